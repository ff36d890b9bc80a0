"""What counts as sensitive, and what stops it spreading (:class:`Sensitivity`, configurable).

Read by the propagation of sensitive marks along lineage (``lineage.analysis.propagation``) and
by the effects of a tag change (``lineage.analysis.effects``: is the tag added sensitive?): one
small rule both import, so neither imports the other.
"""

from __future__ import annotations

import re
from dataclasses import dataclass


@dataclass(frozen=True)
class Sensitivity:
    """What counts as sensitive and what stops propagation (lower-case names and words)."""

    words: frozenset[str] = frozenset({"pii", "sensitive", "confidential", "restricted"})
    min_label_level: int | None = 2  # None: labels never count
    stop_tags: frozenset[str] = frozenset({"propagation:stop", "nopropagation"})
    stop_property: tuple[str, str] = ("propagate", "false")

    def sensitive_tag(self, name: str) -> bool:
        return bool(self.words & set(_words(name)))

    def sensitive_level(self, level: int | None) -> bool:
        return level is not None and self.min_label_level is not None and level >= self.min_label_level


DEFAULT_SENSITIVITY = Sensitivity()


def _words(name: str) -> list[str]:
    """``HighlySensitive_PII-v2`` -> highly, sensitive, pii, v2."""
    spaced = re.sub(r"([a-z0-9])([A-Z])", r"\1 \2", name)
    return [w.lower() for w in re.split(r"[^A-Za-z0-9]+", spaced) if w]
