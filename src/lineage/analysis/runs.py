"""Runs as evidence: each definition's run history, the failures after a change, and ``why``.

A run happened once (``lineage.ids.RUN_PREFIXES``); the definition behind it runs again: an
Instance's node (``HAS_INSTANCE``), an OpenLineage run's job, a MaxCompute job run's DataWorks
node when the job names it (``skynet_id``) or the build tied it to one (``node``, ``lineage.graph.links``),
else the job run itself (an ad-hoc run). A run's
*start* is its vertex's ``first_seen`` (its first event), its *end* the first of
:data:`END_PROPERTIES` set, else its ``last_seen``; its outcome is its last reported ``status``.

* :func:`failed_after`: the failure streak that follows a change, of each definition the change
  reaches whose last run before the change succeeded (a definition already failing is not the
  change's evidence): its failed runs from the change until the next success.
* :func:`why`: a failing definition's last good run, its first failed run (the start of the
  streak it is in now), and the changes between the two on what it reads and upstream of it,
  most likely first: one whose column the failure's error text names, then the nearest, then
  the kind most likely to break a reader, then the latest.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass, field
from datetime import datetime, timedelta
from pathlib import Path
from typing import Any, Iterable, Mapping, Sequence

from lineage import ids
from lineage.events.times import parse_time
from lineage.graph.props import of_row

RUN_LABELS = ("Instance", "Job")
END_PROPERTIES = ("finished_at", "modified_at", "end_time")
"""Where a run keeps when it ended, first found first (the report reads the same: ``report.context``)."""
ERROR_PROPERTIES = ("error_code", "error_message")
RUN_PROPERTIES = ("status", "skynet_id", "node", *ERROR_PROPERTIES, *END_PROPERTIES)
FAILED = frozenset({"failed", "failure", "error", "fail", "5"})
"""Statuses of a failed run (lower-cased; DataWorks code 5 is a failure): the report's too."""
SUCCEEDED = frozenset({"success", "succeeded", "successful", "terminated", "complete", "completed", "6"})
"""Statuses of a run that succeeded (MaxCompute ``Terminated``, DataWorks code 6, OpenLineage COMPLETE)."""
LOOKBACK = timedelta(days=7)
"""How far before its first failure ``why`` looks for changes when the definition never succeeded."""
RUNNABLE = ("Node", "Job")
CAUSE_ORDER: dict[str, int] = {  # the kinds that can make a reader fail: the others are never a cause
    "drop": 0, "field_removal": 0, "column_type_change": 0, "project_deletion": 0,
    "schema_change": 1, "node_update": 1, "node_deploy": 1, "node_delete": 1, "node_undeploy": 1, "node_freeze": 1,
    "permission_change": 2,
}
"""How likely a kind of change is to make a reader fail (lower first)."""


def failed(status: str | None) -> bool:
    return (status or "").strip().lower() in FAILED


def succeeded(status: str | None) -> bool:
    return (status or "").strip().lower() in SUCCEEDED


def error_text(props: Mapping[str, Any]) -> str | None:
    """A failed run's error: its code and message, as its properties hold them (None: neither)."""
    return " ".join(str(props[k]) for k in ERROR_PROPERTIES if props.get(k)) or None


@dataclass(frozen=True)
class Run:
    id: str
    label: str
    definition: str
    start: datetime | None
    end: datetime | None
    status: str | None
    error: str | None = None

    @property
    def failed(self) -> bool:
        return failed(self.status)

    @property
    def succeeded(self) -> bool:
        return succeeded(self.status)

    def brief(self) -> dict[str, Any]:
        return {"id": self.id, "label": self.label, "time": _iso(self.start), "ended": _iso(self.end),
                "status": self.status, "error": self.error, "definition": self.definition}


def _iso(moment: datetime | None) -> str | None:
    return moment.isoformat() if moment else None


def _time(value: Any) -> datetime | None:
    if value in (None, ""):
        return None
    if isinstance(value, datetime):
        return value
    try:
        return parse_time(str(value))
    except ValueError:
        return None


def definition_of(run: str, label: str, props: Mapping[str, Any], parents: Mapping[str, str]) -> str:
    """The definition a run belongs to (the module's docstring)."""
    if run in parents:
        return parents[run]
    if label == "Job" and props.get("node"):  # tied to the node that ran it (lineage.graph.links)
        return str(props["node"])
    if label == "Job" and props.get("skynet_id"):
        return ids.make("Node", "dataworks", str(props["skynet_id"]))
    return run


@dataclass
class History:
    """Every run by definition, oldest first (by start, then id)."""

    by_definition: dict[str, list[Run]] = field(default_factory=dict)
    by_run: dict[str, Run] = field(default_factory=dict)

    @classmethod
    def of_rows(cls, vertices: Iterable[Mapping[str, Any]], edges: Iterable[Mapping[str, Any]]) -> "History":
        """From vertex rows (``id, label, first_seen, last_seen, properties``) and edge rows
        (``src, relationship, dst``: the ``HAS_INSTANCE`` ones are read)."""
        parents: dict[str, str] = {}
        for e in edges:
            if e.get("relationship") == "HAS_INSTANCE":
                parents[e["dst"]] = min(e["src"], parents.get(e["dst"], e["src"]))
        history = cls()
        for v in vertices:
            if v.get("label") not in RUN_LABELS or not ids.is_run(v["id"]):
                continue
            props = of_row(v)
            end = next((t for t in (_time(props.get(k)) for k in END_PROPERTIES) if t is not None), None)
            run = Run(v["id"], v["label"], definition_of(v["id"], v["label"], props, parents),
                      _time(v.get("first_seen")), end or _time(v.get("last_seen")), props.get("status"),
                      error_text(props))
            history.by_run[run.id] = run
            history.by_definition.setdefault(run.definition, []).append(run)
        for runs in history.by_definition.values():
            runs.sort(key=lambda r: (_cmp(r.start) if r.start else datetime.max, r.id))
        return history

    @classmethod
    def of(cls, warehouse: str | Path) -> "History":
        """The warehouse's runs (Arrow-filtered: run vertices with :data:`RUN_PROPERTIES` only)."""
        import pyarrow.dataset as ds

        from lineage.graph.api import _read_table, _slim, built, stream_rows

        wh = built(warehouse, "vertices", "edges")
        vertices = _read_table(wh.vertices, ds.field("label").isin(list(RUN_LABELS)))
        vertices = _slim(vertices, dict.fromkeys(RUN_LABELS, RUN_PROPERTIES))
        edges = _read_table(wh.edges, ds.field("relationship") == "HAS_INSTANCE", ["src", "relationship", "dst"])
        return cls.of_rows(stream_rows(vertices), stream_rows(edges))

    def runs(self, definition: str) -> list[Run]:
        return self.by_definition.get(definition, [])

    def before(self, definition: str, moment: datetime) -> list[Run]:
        """The definition's runs that started before ``moment``."""
        return [r for r in self.runs(definition) if r.start is not None and _cmp(r.start) < _cmp(moment)]

    def after(self, definition: str, moment: datetime) -> list[Run]:
        return [r for r in self.runs(definition) if r.start is not None and _cmp(r.start) >= _cmp(moment)]


def _cmp(moment: datetime) -> datetime:
    """Times compared as naive UTC (the graph's are UTC, aware or not)."""
    if moment.tzinfo is not None:
        from datetime import timezone

        moment = moment.astimezone(timezone.utc).replace(tzinfo=None)
    return moment


def _finished(runs: Sequence[Run]) -> list[Run]:
    """The runs with an outcome (a run still going, or of an unknown status, tells nothing)."""
    return [r for r in runs if r.failed or r.succeeded]


def failure_streak(runs: Sequence[Run]) -> list[Run]:
    """The failed runs from the first of ``runs`` up to the first success (none: a success first)."""
    streak = []
    for r in _finished(runs):
        if r.succeeded:
            break
        streak.append(r)
    return streak


def failed_after(history: History, moment: datetime | None, definitions: Iterable[str]) -> list[Run]:
    """The runs that failed after ``moment``, of ``definitions`` whose last run before it had
    succeeded: each one's failure streak from then on, ordered by time then id."""
    if moment is None:
        return []
    found: list[Run] = []
    for definition in dict.fromkeys(definitions):
        before = _finished(history.before(definition, moment))
        if not before or not before[-1].succeeded:
            continue
        found.extend(failure_streak(history.after(definition, moment)))
    return sorted(found, key=lambda r: (_cmp(r.start) if r.start else datetime.min, r.id))


def reached_definitions(entity: str, affected: Iterable[Any]) -> list[str]:
    """What of a change's answer runs again: the changed entity and the nodes and jobs reached."""
    return [entity] + [a.id for a in affected if a.label in RUNNABLE and not ids.is_run(a.id)]


# ---------------------------------------------------------------------------------------------
# why


@dataclass(frozen=True)
class Cause:
    change: Mapping[str, Any]
    path: tuple[str, ...]  # from the changed entity down to the failing definition
    distance: int
    named: bool  # the failure's error text names a column the change touched

    def to_json(self, name: Any = None) -> dict[str, Any]:
        c = self.change
        doc = {"change_id": c["change_id"], "entity_id": c["entity_id"], "kind": c["kind"],
               "time": _iso(c.get("time")), "path": list(self.path), "distance": self.distance,
               "actor": c.get("actor"), "columns": changed_columns(c), "error_names_column": self.named}
        if name is not None:
            doc["entity_name"] = name(c["entity_id"])
        return doc


@dataclass(frozen=True)
class Why:
    target: str
    definition: str
    last_success: Run | None
    first_failure: Run | None
    causes: tuple[Cause, ...] = ()
    failures: int = 0  # failed runs in the streak
    error: str | None = None  # the first error text of the streak (a node's instance has none: its job's)

    def to_json(self, name: Any = None) -> dict[str, Any]:
        def brief(run: Run | None) -> dict[str, Any] | None:
            return None if run is None else {"id": run.id, "time": _iso(run.start), "ended": _iso(run.end),
                                             "status": run.status, "error": run.error}

        return {"target": self.target, "definition": self.definition, "last_success": brief(self.last_success),
                "first_failure": brief(self.first_failure), "failed_runs": self.failures, "error": self.error,
                "causes": [c.to_json(name) for c in self.causes]}


def changed_columns(change: Mapping[str, Any]) -> list[str]:
    """The column names a change record says it touched (``columns``: a JSON list or a comma list;
    a Column entity's own name)."""
    props = of_row(change)
    raw = props.get("columns")
    names: list[str] = []
    if raw:
        try:
            value = json.loads(raw)
        except (TypeError, ValueError):
            value = [part for part in str(raw).split(",")]
        for item in value if isinstance(value, list) else [value]:
            if isinstance(item, Mapping):
                item = item.get("name") or item.get("column") or item.get("old") or ""
            if str(item).strip():
                names.append(str(item).strip().lower())
    if change.get("entity_id", "").startswith("column:"):
        names.append(change["entity_id"].rsplit(".", 1)[-1])
    return sorted(set(names))


def names_column(error: str | None, columns: Sequence[str]) -> bool:
    """Whether an error text names one of ``columns`` (a whole word): the strongest sign a change
    of those columns is the failure's cause."""
    if not error or not columns:
        return False
    text = error.lower()
    return any(re.search(rf"(?<![\w]){re.escape(c)}(?![\w])", text) for c in columns)


def streak_of(history: History, target: str, as_of: datetime | None) -> tuple[str, Run | None, list[Run]]:
    """(definition, last success before the streak, the failure streak) of a node, job or run: the
    streak the target run is in, or the definition's latest streak as of ``as_of``."""
    run = history.by_run.get(target)
    definition = run.definition if run else target
    runs = _finished(history.runs(definition))
    if as_of is not None:
        runs = [r for r in runs if r.start is not None and _cmp(r.start) <= _cmp(as_of)]
    if run is not None and run.failed and run in runs:
        end = runs.index(run) + 1
    elif run is not None:
        return definition, None, []  # a run that did not fail has nothing to explain
    else:
        end = len(runs)
    first = end
    while first > 0 and runs[first - 1].failed:
        first -= 1
    streak = runs[first:end]
    if run is not None:  # the streak goes on after the run asked about, to the next success
        streak = streak + [r for r in failure_streak(runs[end:])]
    last_success = runs[first - 1] if first > 0 else None
    return definition, last_success, streak


def why(history: History, target: str, changes: Sequence[Mapping[str, Any]], upstream: Mapping[str, tuple[int, tuple[str, ...]]],
        *, as_of: datetime | None = None, streak: tuple[str, Run | None, list[Run]] | None = None) -> Why:
    """Why ``target`` fails (the module's docstring). ``changes``: change records (``lineage.graph.
    api.change_rows``); ``upstream``: entity -> (distance, path from the definition) of what the
    definition reads and everything upstream of it, the definition itself at distance 0 (the
    caller walks it as of the first failure: :func:`lineage.analysis.api.why`); ``streak``:
    :func:`streak_of`'s answer when the caller has it already."""
    definition, last_success, streak = streak or streak_of(history, target, as_of)
    if not streak:
        return Why(target, definition, None, None)
    first = streak[0]
    start = last_success.start if last_success and last_success.start else (
        first.start - LOOKBACK if first.start else None)
    errors = " ".join(r.error for r in streak if r.error)
    error = next((r.error for r in streak if r.error), None)
    causes = []
    for change in changes:
        moment = change.get("time")
        if moment is None or first.start is None or start is None:
            continue
        if not (_cmp(start) < _cmp(moment) <= _cmp(first.start)):
            continue
        if change["kind"] not in CAUSE_ORDER:  # a creation, an owner or a tag: nothing a reader fails on
            continue
        entity = change["entity_id"]
        reach = upstream.get(entity) or upstream.get(_table_of_column(entity) or "")
        if reach is None:
            continue
        distance, path = reach
        down = tuple(reversed(path))
        if entity not in down:
            down = (entity, *down)
        if down[-1] != definition:  # walked from one of its runs: the run is the definition's
            down = (*down, definition)
        causes.append(Cause(change, down, distance, names_column(errors, changed_columns(change))))
    causes.sort(key=lambda c: (not c.named, c.distance, CAUSE_ORDER[c.change["kind"]],
                               -_cmp(c.change["time"]).timestamp(), c.change["change_id"]))
    return Why(target, definition, last_success, first, tuple(causes), len(streak), error)


def _table_of_column(entity: str) -> str | None:
    """``column:<platform>:<project>.<table>.<field>`` -> ``table:<platform>:<project>.<table>``."""
    if not entity.startswith("column:"):
        return None
    _, platform, key = entity.split(":", 2)
    return f"table:{platform}:{key.rsplit('.', 1)[0]}" if "." in key else None
