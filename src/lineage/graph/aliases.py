"""The optional identity alias file: several platform identities -> one canonical vertex.

CSV with a header ``alias,canonical`` (``#`` comments and blank lines allowed), e.g.::

    alias,canonical
    user:maxcompute:ram$analyst@retail.example:sub,user:aliyun:1320876710332592
    user:datahub:analyst,user:aliyun:1320876710332592

Chains resolve (a -> b -> c makes a -> c); a cycle, a malformed id, or an alias whose label
differs from its canonical id's label is an error naming the file and line. The build reads the
file into a frame (``build.aliases_frame``) and :func:`resolve_ids` applies it to the facts' ids.
"""

from __future__ import annotations

import csv
from pathlib import Path

from pyspark.sql import DataFrame
from pyspark.sql import functions as F

from lineage import ids
from lineage.errors import UsageError


class AliasError(UsageError):
    """A bad alias file: the message names file, line and what is wrong."""


def _check_id(value: str, where: str, column: str) -> str:
    text = value.strip()
    parts = text.split(":", 2)
    if len(parts) != 3 or not all(parts) or parts[0] not in ids.LABEL_OF_PREFIX:
        raise AliasError(f"{where}: {column} {text!r} is not a canonical id (<label>:<namespace>:<key>)")
    return text


def read_aliases(path: str | Path) -> dict[str, str]:
    """alias -> canonical id, fully resolved."""
    path = Path(path)
    try:
        lines = path.read_text(encoding="utf-8").splitlines()
    except (OSError, UnicodeDecodeError) as exc:
        raise AliasError(f"{path}: cannot read alias file: {exc}") from None
    numbered = [(n, line) for n, line in enumerate(lines, 1) if line.strip() and not line.lstrip().startswith("#")]
    if not numbered:
        return {}
    header_line, header = numbered[0]
    if [h.strip().lower() for h in next(csv.reader([header]))] != ["alias", "canonical"]:
        raise AliasError(f"{path}:{header_line}: the header must be 'alias,canonical'")
    mapping: dict[str, str] = {}
    where_of: dict[str, str] = {}
    for number, line in numbered[1:]:
        where = f"{path}:{number}"
        row = next(csv.reader([line]))
        if len(row) != 2:
            raise AliasError(f"{where}: expected 2 fields (alias,canonical), got {len(row)}")
        alias, canonical = _check_id(row[0], where, "alias"), _check_id(row[1], where, "canonical")
        if ids.label_of(alias) != ids.label_of(canonical):
            raise AliasError(f"{where}: alias {alias!r} is a {ids.label_of(alias)}, canonical {canonical!r} a {ids.label_of(canonical)}")
        if alias == canonical:
            continue
        if alias in mapping and mapping[alias] != canonical:
            raise AliasError(f"{where}: alias {alias!r} already maps to {mapping[alias]!r} ({where_of[alias]})")
        mapping[alias] = canonical
        where_of[alias] = where
    return {alias: _resolve(alias, mapping, where_of) for alias in mapping}


def _resolve(alias: str, mapping: dict[str, str], where_of: dict[str, str]) -> str:
    seen = [alias]
    current = mapping[alias]
    while current in mapping:
        if current in seen:
            raise AliasError(f"{where_of[alias]}: alias cycle: {' -> '.join(seen + [current])}")
        seen.append(current)
        current = mapping[current]
    return current


def resolve_ids(frame: DataFrame, columns: tuple[str, ...], aliases: DataFrame | None) -> DataFrame:
    """Every aliased id in ``columns`` replaced by its canonical id (identity resolution)."""
    if aliases is None:
        return frame
    table = F.broadcast(aliases.select(F.col("alias").alias("_a"), F.col("canonical").alias("_c")))
    for column in columns:
        frame = (frame.join(table, frame[column] == table["_a"], "left")
                 .withColumn(column, F.coalesce(F.col("_c"), F.col(column))).drop("_a", "_c"))
    return frame
