"""What each clip of a voice pack says, in each language; and a call put into words.

CLIPS names the clips by their numbers in firmware/voicenames.py (K_N0 is "n0", K_TENS
"n20"...; a test checks them); a clip's name is its file's in a pack folder (n23.wav is
not one: 23 is n20 + n3, composed on the board). TEXTS[language][name] is what espeak-ng
says for it; a language lacks the clips its numbers do not use (Hungarian has no "n11":
"tizenegy" is tizen + egy).
"""

from .. import firmware_path

firmware_path()
import voicenames as _vn  # noqa: E402
from matchwords import FOULS as _FOULS  # noqa: E402

CLIPS = (
    tuple("n%d" % i for i in range(20))
    + tuple("n%d" % (10 * t) for t in range(2, 10))
    + ("hundred", "thousand", "teen_prefix", "twenty_prefix", "two_prefix", "and", "one_prefix")
    + tuple("foul_" + k for k in _FOULS)  # each foul kind, by the firmware's own names
    + (
        "equalizing",
        "end",
        "white",
        "yellow",
        "wins",
        "draw",
        "shootout",
        "break",
        "minute",
        "seconds",
        "timeout",
        "set",
    )
)
assert len(CLIPS) == _vn.N_CLIPS

_HU_NUMBERS = (
    "nulla egy kettő három négy öt hat hét nyolc kilenc tíz".split()
    + [None] * 9
    + "húsz harminc negyven ötven hatvan hetven nyolcvan kilencven száz ezer tizen huszon két".split()
)
_EN_NUMBERS = (
    "zero one two three four five six seven eight nine ten eleven twelve thirteen fourteen fifteen "
    "sixteen seventeen eighteen nineteen twenty thirty forty fifty sixty seventy eighty ninety "
    "hundred thousand"
).split()
_DE_NUMBERS = (
    "null eins zwei drei vier fünf sechs sieben acht neun zehn elf zwölf dreizehn vierzehn fünfzehn "
    "sechzehn siebzehn achtzehn neunzehn zwanzig dreißig vierzig fünfzig sechzig siebzig achtzig neunzig "
    "hundert tausend"
).split()

_WORDS = {
    "hu": (
        "üres",
        "kiugrott",
        "mozgó golyók",
        "hozzáért",
        "tolás",
        "lábhiba",
        "jelölt fal",
        "az ellenfél golyója",
        "zónahiba",
        "idő",
        "hiba",
        "kiegyenlítő felvétel",
        "vége",
        "fehér",
        "sárga",
        "nyert",
        "döntetlen",
        "szétlövés",
        "szünet",
        "még egy perc",
        "másodperc",
        "időkérés",
        "szett vége",
    ),
    "en": (
        "miss",
        "jumped",
        "moving balls",
        "touched",
        "push",
        "foot",
        "marked cushion",
        "wrong ball",
        "zone",
        "time",
        "foul",
        "equalizing inning",
        "game over",
        "white",
        "yellow",
        "wins",
        "draw",
        "shoot-out",
        "break",
        "one minute",
        "seconds",
        "time-out",
        "set over",
    ),
    "de": (
        "Fehlstoß",
        "Ball gesprungen",
        "Bälle in Bewegung",
        "berührt",
        "geschoben",
        "Fußfehler",
        "markierte Bande",
        "falscher Ball",
        "Feldfehler",
        "Zeit",
        "Foul",
        "Nachstoß",
        "Spielende",
        "Weiß",
        "Gelb",
        "gewinnt",
        "unentschieden",
        "Shoot-out",
        "Pause",
        "noch eine Minute",
        "Sekunden",
        "Auszeit",
        "Satzende",
    ),
}


def _texts(numbers, extra, words):
    """{clip name: text} of a language: numbers by position (None: not a clip of its own),
    its joining words, then its calls' words."""
    out = {}
    for i, text in enumerate(numbers[:28]):
        if text is not None:
            out[CLIPS[i]] = text
    out["hundred"] = numbers[28]
    out["thousand"] = numbers[29]
    out.update(extra)
    first = CLIPS.index("foul_miss")
    for i, text in enumerate(words):
        out[CLIPS[first + i]] = text
    return out


TEXTS = {
    "hu": _texts(
        _HU_NUMBERS,
        {"teen_prefix": _HU_NUMBERS[30], "twenty_prefix": _HU_NUMBERS[31], "two_prefix": _HU_NUMBERS[32]},
        _WORDS["hu"],
    ),
    "en": _texts(_EN_NUMBERS, {}, _WORDS["en"]),
    "de": _texts(
        [None if 13 <= i <= 19 and i not in (16, 17) else t for i, t in enumerate(_DE_NUMBERS)],
        {"and": "und", "one_prefix": "ein"},
        _WORDS["de"],
    ),
}
LANGUAGES = tuple(_vn.LANGUAGES.split())
assert tuple(TEXTS) == LANGUAGES


def number_clips(language, n):
    """The clips the board composes n of (speech_hu/en/de.number, run here): their names."""
    import importlib

    mod = importlib.import_module("speech_" + language)
    out = bytearray(20)
    k = mod.number(n, out, 0)
    return [CLIPS[c] for c in out[:k]]


def spoken(language, clips):
    """The words of a call's clips (the logs): "huszon három"."""
    texts = TEXTS[language]
    return " ".join(texts.get(c, "[%s]" % c) for c in clips)
