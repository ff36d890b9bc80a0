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
``columns``) and the report read it. A DataWorks node update is categorized by the settings it
changed and by what its script change did (:func:`node_update`): *breaking* when its outputs
depend on the settings changed, or the script's rows changed (every reader) or output columns were
removed or redefined (their readers); *additive* when the script only added output columns; else
*metadata*, which tells its owners and is not ranked as a break. A deploy is categorized by its
script alone.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Mapping
from lineage.graph.props import of_row

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


METADATA = "metadata"  # a node update that changed nothing its outputs depend on: its owners are told


@dataclass(frozen=True)
class Setting:
    """A DataWorks node setting (``graph.node_diff.NODE_STATE``) and whether a change to it
    changes what or when the node writes (a break downstream) or only who and how it is run."""

    name: str
    outputs: bool
    why: str


SETTINGS: tuple[Setting, ...] = (
    Setting("program_type", True, "another kind of code runs"),
    Setting("cron", True, "its outputs land at another time"),
    Setting("scheduler_type", True, "paused, dry-run or manual: its outputs stop"),
    Setting("repeatability", True, "a rerun may now (not) rewrite its outputs"),
    Setting("datasource", True, "it reads and writes another engine"),
    Setting("name", False, "a new name"),
    Setting("owner", False, "a new owner (both are told)"),
    Setting("priority", False, "a new priority"),
    Setting("baseline", False, "another baseline (SLA) watches it"),
)
OUTPUT_SETTINGS = frozenset(s.name for s in SETTINGS if s.outputs)
NODE_UPDATE, NODE_DEPLOY = "node_update", "node_deploy"
NODE_KINDS = (NODE_UPDATE, NODE_DEPLOY)
SCRIPT_LEVELS = {"unchanged": 0, "additive": 1, "breaking": 2, "table": 3}
"""A script change's category (``lineage.sql.script_diff``) as a level: metadata, additive, the
readers of some columns, every reader. A node change's level is its settings' and script's worst."""


@dataclass(frozen=True)
class Category:
    """A change's category, the columns it touched (column name, how) and why; a node update's
    ``settings`` changed (setting, before, after)."""

    category: str
    columns: tuple[tuple[str, str], ...]
    why: str
    settings: tuple[tuple[str, Any, Any], ...] = ()
    whole: bool = True  # a node change reaching every reader of its outputs (False: the columns' only)

    def to_json(self) -> list[dict[str, str]]:
        return [{"column": c, "change": how} for c, how in self.columns]


def _json(props: Mapping[str, Any], key: str) -> Any:
    import json

    try:
        return json.loads(props[key]) if props.get(key) is not None else None
    except ValueError:
        return None


def node_update(change: Mapping[str, Any]) -> Category:
    """A node update or deploy, by the settings it changed (:data:`SETTINGS`; a deploy has none)
    and what its script change did (``script``: ``lineage.graph.script_changes``), the worse of
    the two: an output setting changed, or the settings not known (no record of the node before
    it: the safe side), reach every reader; the script's rows changed, every reader; output columns
    removed or redefined, their readers; only added, the readers taking a table by position;
    nothing, its owners are told (*metadata*). A change with no script (no run after it yet, a
    script not understood) is categorized by its settings alone."""
    props = of_row(change)
    changed = _json(props, "changed")
    script = _json(props, "script")
    script = script if isinstance(script, dict) and script.get("category") in SCRIPT_LEVELS else None
    settings: tuple[tuple[str, Any, Any], ...] = ()
    if change["kind"] == NODE_DEPLOY:
        level, why = (0, "") if script is not None else (3, "what the deploy changed is not known: every reader")
    elif not isinstance(changed, dict):
        level, why = 3, "what the update changed is not known: every reader, the safe side"
    else:
        settings = tuple((k, *v) for k, v in sorted(changed.items()) if isinstance(v, list) and len(v) == 2)
        outputs = OUTPUT_SETTINGS.intersection(changed)
        level = 3 if outputs else 0
        why = "; ".join(s.why for s in SETTINGS if s.name in changed and (s.outputs or not outputs))
    columns: tuple[tuple[str, str], ...] = ()
    if script is not None:
        tables = script.get("tables") or []
        columns = tuple((f"{t['table']}.{c['column']}", c["change"]) for t in tables for c in t.get("columns") or [])
        said = "; ".join(f"script: {t['table']}: {t['why']}" for t in tables if t.get("category") != "unchanged")
        if SCRIPT_LEVELS[script["category"]] > level or (SCRIPT_LEVELS[script["category"]] == level and said):
            level, why = SCRIPT_LEVELS[script["category"]], "; ".join(w for w in (why, said) if w)
    category = (METADATA, ADDITIVE, BREAKING, BREAKING)[level]
    return Category(category, columns, why or "nothing changed", settings, whole=level == 3)


def rule_of(kind: str, operation: str | None) -> Rule:
    """The rule for a change of ``kind`` whose report names ``operation``. Nullability does not
    enter: DataHub's ``nullable`` defaults to false (its seed sample of a field added says so), and
    the writers a required column could break are those inserting by position, which an additive
    change reaches already."""
    return next((r for r in RULES if r.kind == kind and r.operation == operation), None) or \
        next((r for r in RULES if r.kind == kind and r.operation is None), None) or DEFAULT


def categorize(change: Mapping[str, Any]) -> Category:
    """The category of a change record (``kind``, ``entity_id``, ``properties``) and its columns
    (a node update: :func:`node_update`)."""
    if change["kind"] in NODE_KINDS:
        return node_update(change)
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


def is_categorized(kind: str) -> bool:
    """Whether a change of ``kind`` has a category (schema changes, node updates and deploys)."""
    return kind in NODE_KINDS or is_schema(kind)


def is_schema(kind: str) -> bool:
    """Whether a change of ``kind`` is categorized by its columns (any other kind keeps its effect)."""
    return any(r.kind == kind for r in RULES)
