"""Numbers in German, as the voice's clips (speech.py): "dreiundzwanzig" is drei + und + zwanzig,
"dreizehn" drei + zehn (a pack under 400 KB: sechzehn and siebzehn are clips of their own).

Loaded with a German pack, in RAM while the board speaks. number(n, out, i) writes the
clip numbers of n (0..9999) into the bytearray out from i, returns where it stopped.
"""

from voicenames import K_AND, K_HUNDRED, K_N0, K_ONE_, K_TENS, K_THOUSAND


def number(n, out, i):
    t = n // 1000
    h = n // 100 % 10
    r = n % 100
    if t:
        out[i] = K_ONE_ if t == 1 else K_N0 + t  # eintausend
        out[i + 1] = K_THOUSAND
        i += 2
    if h:
        out[i] = K_ONE_ if h == 1 else K_N0 + h  # einhundert
        out[i + 1] = K_HUNDRED
        i += 2
    if 13 <= r <= 19 and r != 16 and r != 17:  # drei + zehn (the pack keeps sechzehn, siebzehn whole)
        out[i] = K_N0 + r - 10
        out[i + 1] = K_N0 + 10
        return i + 2
    if r < 20:
        if r or n == 0:
            out[i] = K_N0 + r  # eins at the end: hunderteins
            i += 1
        return i
    if r % 10:
        out[i] = K_ONE_ if r % 10 == 1 else K_N0 + r % 10  # einundzwanzig
        out[i + 1] = K_AND
        i += 2
    out[i] = K_TENS + r // 10 - 2
    return i + 1
