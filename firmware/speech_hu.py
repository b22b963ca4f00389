"""Numbers in Hungarian, as the voice's clips (speech.py): "huszonhárom" is huszon + három.

Loaded with a Hungarian pack, in RAM while the board speaks. number(n, out, i) writes the
clip numbers of n (0..9999) into the bytearray out from i, returns where it stopped.
"""

from voicenames import K_HUNDRED, K_N0, K_TEEN, K_TENS, K_THOUSAND, K_TWENTY_, K_TWO_


def number(n, out, i):
    t = n // 1000
    h = n // 100 % 10
    if t:
        if t > 1:
            out[i] = K_TWO_ if t == 2 else K_N0 + t  # "két" before ezer and száz, "kettő" at the end
            i += 1
        out[i] = K_THOUSAND
        i += 1
    if h:
        if h > 1 or t:
            out[i] = K_TWO_ if h == 2 else K_N0 + h
            i += 1
        out[i] = K_HUNDRED
        i += 1
    return _tens(n % 100, out, i, n == 0)


def _tens(r, out, i, zero):
    if r < 10:
        if r or zero:
            out[i] = K_N0 + r
            i += 1
        return i
    tens = r // 10
    if r % 10 == 0:
        out[i] = K_N0 + 10 if tens == 1 else K_TENS + tens - 2  # tíz, húsz, harminc...
        return i + 1
    out[i] = K_TEEN if tens == 1 else (K_TWENTY_ if tens == 2 else K_TENS + tens - 2)  # tizen, huszon, harminc
    out[i + 1] = K_N0 + r % 10
    return i + 2
