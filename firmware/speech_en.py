"""Numbers in English, as the voice's clips (speech.py): "twenty-three" is twenty + three.

Loaded with an English pack, in RAM while the board speaks. number(n, out, i) writes the
clip numbers of n (0..9999) into the bytearray out from i, returns where it stopped.
"""

from voicenames import K_HUNDRED, K_N0, K_TENS, K_THOUSAND


def number(n, out, i):
    t = n // 1000
    h = n // 100 % 10
    r = n % 100
    if t:
        out[i] = K_N0 + t
        out[i + 1] = K_THOUSAND
        i += 2
    if h:
        out[i] = K_N0 + h
        out[i + 1] = K_HUNDRED
        i += 2
    if r < 20:
        if r or n == 0:
            out[i] = K_N0 + r
            i += 1
        return i
    out[i] = K_TENS + r // 10 - 2
    i += 1
    if r % 10:
        out[i] = K_N0 + r % 10
        i += 1
    return i
