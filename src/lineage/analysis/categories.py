"""What a change did to the columns its readers use, decided in one place (issue 68, item 1).

A change to a table's schema is *additive* when no reader naming its columns can notice it (a
column added): it reaches only the jobs that take the table by column position (``SELECT
*``, an ``INSERT`` without a column list: ``lineage.sql.positional``) and the owners. It is
*breaking* when readers of the columns it touched fail (a column removed or renamed, a type
changed): it reaches the readers of those columns only, column by column downstream
(``lineage.analysis.columns``). When the change does not say what it did (``ChangeTable`` of a word
not listed, a table renamed, a change naming no operation) it is *table*-level: every reader, as a
drop; the safe default, as SQLMesh's categorizer falls back to breaking when it cannot tell. A
type change is breaking: the change records name the new type only, so a widening cannot be told
apart. A lifecycle or a comment changed is no schema change (``rules.CHANGE_EFFECTS``: notices).

:func:`categorize` is the one function over a change's column diff; blast radius (both engines: the
column answer is a pure function of the rows either reads), ``blast-radius --json`` (``category``,
``columns``) and the report read it.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Mapping

ADDITIVE, BREAKING, TABLE = "additive", "breaking", "table"


@dataclass(frozen=True)
class Rule:
    """A change of ``kind`` whose report names ``operation`` (``graph.reports.operation_of``; None:
    any or none) is ``category``; each column it names was ``how``."""

    kind: str
    operation: str | None
    category: str
    how: str
    why: str


RULES: tuple[Rule, ...] = (
    Rule("field_removal", None, BREAKING, "removed", "readers of a removed or renamed column fail"),
    Rule("column_type_change", None, BREAKING, "type_changed", "readers may not cast the column's new type"),
    Rule("schema_change", "add", ADDITIVE, "added", "a column added: only readers taking the table by position notice"),
    Rule("schema_change", "remove", BREAKING, "removed", "readers of the removed field fail"),
    Rule("schema_change", "modify", BREAKING, "modified", "a field's type or nullability changed: its readers may fail"),
    Rule("schema_change", "rename", TABLE, "renamed", "the table renamed: every reader by the old name fails"),
)
"""The first rule of a change's kind and operation (then of its kind with operation None) decides."""
DEFAULT = Rule("", None, TABLE, "changed", "what changed is not known: every reader, the safe side")


@dataclass(frozen=True)
class Category:
    """A change's category, the columns it touched (column name, how) and why."""

    category: str
    columns: tuple[tuple[str, str], ...]
    why: str

    def to_json(self) -> list[dict[str, str]]:
        return [{"column": c, "change": how} for c, how in self.columns]


def rule_of(kind: str, operation: str | None) -> Rule:
    """The rule for a change of ``kind`` whose report names ``operation``. Nullability does not
    enter: DataHub's ``nullable`` defaults to false (its seed sample of a field added says so), and
    the writers a required column could break are those inserting by position, which an additive
    change reaches already."""
    return next((r for r in RULES if r.kind == kind and r.operation == operation), None) or \
        next((r for r in RULES if r.kind == kind and r.operation is None), None) or DEFAULT


def categorize(change: Mapping[str, Any]) -> Category:
    """The category of a change record (``kind``, ``entity_id``, ``properties``) and its columns."""
    from lineage.analysis.runs import changed_columns
    from lineage.graph.reports import operation_of

    props = change.get("properties") or {}
    if isinstance(props, list):
        props = dict(props)
    rule = rule_of(change["kind"], operation_of(props))
    named = set(changed_columns({"entity_id": change["entity_id"], "properties": props}))
    if props.get("field_path"):  # DataHub's field (a nested one by its last part, as reports.columns_named)
        named.add(str(props["field_path"]).rsplit(".", 1)[-1].lower())
    return Category(rule.category, tuple((c, rule.how) for c in sorted(named)), rule.why)


def is_schema(kind: str) -> bool:
    """Whether a change of ``kind`` is categorized by its columns (any other kind keeps its effect)."""
    return any(r.kind == kind for r in RULES)
