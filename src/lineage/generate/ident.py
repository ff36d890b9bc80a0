"""Deterministic ids (UUIDs, hex, digits) from one random stream per source and day."""

from __future__ import annotations

import random


class Ids:
    def __init__(self, seed: str):
        self.rng = random.Random(seed)

    def uuid(self) -> str:
        h = "%032x" % self.rng.getrandbits(128)
        return f"{h[:8]}-{h[8:12]}-4{h[13:16]}-{h[16:20]}-{h[20:]}"

    def hex(self, n: int) -> str:
        return "%0*x" % (n, self.rng.getrandbits(4 * n))

    def digits(self, n: int) -> str:
        return str(self.rng.randrange(10 ** (n - 1), 10**n))
