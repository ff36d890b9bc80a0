"""Sums that do not depend on the order of their terms: ``sum(term * count)`` correctly rounded.

The blast-radius score adds ``weight / distance`` over thousands of affected vertices; engines
find them in different orders (Spark aggregates counts per label and distance), and float
addition is not associative. Each term is split in two halves of 26 significant bits
(Veltkamp) and each count in base 2**26 digits, so every partial product is exact, and
``math.fsum`` rounds their exact sum once: one float for one multiset of terms.
"""

from __future__ import annotations

import math
from typing import Iterable, Sequence

import numpy as np

SPLIT = 134217729.0  # 2**27 + 1
DIGIT = 1 << 26


def exact_sum(terms: Iterable[tuple[float, int]]) -> float:
    """``sum(term * count for term, count in terms)``, correctly rounded."""
    parts: list[float] = []
    for term, count in terms:
        hi = SPLIT * term
        hi = hi - (hi - term)
        lo = term - hi
        scale = 1.0
        while count:
            count, digit = divmod(count, DIGIT)
            parts += [digit * scale * hi, digit * scale * lo]
            scale *= DIGIT
    return math.fsum(parts)


def exact_sums(terms: np.ndarray, counts: np.ndarray, bounds: Sequence[int]) -> list[float]:
    """:func:`exact_sum` of each group ``terms[bounds[i]:bounds[i+1]]``, vectorised (same floats)."""
    hi = SPLIT * terms
    hi = hi - (hi - terms)
    lo = terms - hi
    columns, scale, left = [], 1.0, counts.astype(np.int64)
    while True:
        digit = (left % DIGIT).astype(np.float64)
        columns += [digit * scale * hi, digit * scale * lo]
        left = left // DIGIT
        if not left.any():
            break
        scale *= DIGIT
    parts = np.stack(columns, axis=1).reshape(-1).tolist()
    width = len(columns)
    return [math.fsum(parts[a * width:b * width]) for a, b in zip(bounds[:-1], bounds[1:])]
