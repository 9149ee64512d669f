"""Dice faces from a hardware-seeded generator, without modulo bias.

The state of a xorshift128 generator (Marsaglia 2003) is seeded from the hardware entropy
source and stirred again with fresh hardware bytes and the press timing at every roll, so
neither a reset nor a predictable seed repeats a sequence. A face is drawn by rejection:
a 32-bit value v counts only if v < 6 * floor(2**32 / 6), so each face has exactly the same
number of accepted values (plain `v % 6` would favour faces 1-4).
"""

MASK = 0xFFFFFFFF


class Xorshift128:
    def __init__(self, seed):
        self.s = [0, 0, 0, 0]
        self.stir(seed)

    def stir(self, data):
        """Mix bytes into the state (any length); the state never becomes all zero."""
        for i, b in enumerate(data):
            w = i % 4
            self.s[w] = ((self.s[w] << 8) | (self.s[w] >> 24)) & MASK ^ b
        if not any(self.s):
            self.s[0] = 0x9E3779B9
        for _ in range(8):
            self.next32()

    def next32(self):
        s = self.s
        t = s[3]
        t ^= (t << 11) & MASK
        t ^= t >> 8
        s[3], s[2], s[1] = s[2], s[1], s[0]
        t ^= s[0] ^ (s[0] >> 19)
        s[0] = t
        return t


def uniform(source, n, bits=32):
    """A value in 0..n-1, each equally likely, from `source()` giving uniform `bits`-bit values."""
    span = 1 << bits
    limit = span - span % n  # values at or above `limit` would favour the low results: draw again
    while True:
        v = source()
        if v < limit:
            return v % n


class DiceRng:
    """Faces 1..6 for the box: hardware-seeded xorshift128 plus rejection sampling."""

    def __init__(self, random_bytes):
        self._random_bytes = random_bytes
        self._gen = Xorshift128(random_bytes(16))

    def stir(self, data=b""):
        """Mix in fresh hardware entropy and `data` (e.g. the press timing) before a roll."""
        self._gen.stir(self._random_bytes(8) + data)

    def face(self):
        return uniform(self._gen.next32, 6) + 1
