"""``report.json``: the weekly report as a versioned pydantic model (``"schema": "lineage.report/1"``).

Every figure the HTML and Markdown show is in here, so a notebook can ``lineage.report.load(path)``
and get the same numbers. Times are ISO 8601 UTC strings; ids are canonical ids (DESIGN.md) and
every id shown to people also has a ``name``. Lists are sorted deterministically so that a re-run
over the same inputs writes the same bytes (only ``generated_at`` differs).

Schema ``lineage.report/1`` (fields below, each documented):
``schema, generated_at, week, since, until, engine, top, headline[], changes[], people[],
impact_graph, access, operations, input_health, parts[], hygiene``. Adding a field is a compatible change;
renaming or removing one makes ``lineage.report/2``.
"""

from __future__ import annotations

from pathlib import Path
from typing import Literal

from pydantic import BaseModel, ConfigDict, Field

SCHEMA = "lineage.report/1"


class _Model(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)


class Asset(_Model):
    """An affected vertex, by name: ``distance`` hops downstream of the change."""

    id: str
    label: str
    name: str
    distance: int


class Unmerged(_Model):
    """People the graph still holds under several ids (issue 69): ``people`` merges
    ``lineage people --suggest-aliases`` proposes over ``ids`` ids, ``named_here`` of them among
    this report's people to tell, and ``how`` to merge them."""

    people: int
    ids: int
    named_here: int
    how: str


class ColumnReach(_Model):
    """A field removal or column type change the graph knows the columns of (issue 32): of the
    ``downstream`` tables its table reaches table-level, the ``reading`` ones its column-precise
    impact reaches (what blast radius scored: direct column FEEDS, and whole tables past jobs whose
    column lineage is partial), one instant before the change; ``paths``: the column paths
    (``table.column`` names) to the nearest tables that read the columns, at most 3."""

    columns: list[str]  # the changed columns' ids
    reading: int
    downstream: int
    paths: list[list[str]]


class FailedRun(_Model):
    """A run that failed after a change, of a node or job the change reaches whose last run before
    it had succeeded (``lineage.analysis.runs.failed_after``), with its error text."""

    id: str
    label: str
    definition: str
    definition_name: str
    time: str | None
    error: str | None = None


class Change(_Model):
    """One change of the window, ranked as ``lineage blast-radius`` ranks it."""

    rank: int
    change_id: str
    entity_id: str
    entity_label: str
    entity_name: str
    kind: str
    effect: str = "breaks"  # how it reaches people: breaks, exposes, restricts, notifies (blast radius)
    time: str | None
    actor: str | None
    actor_name: str | None
    score: float
    high_impact: bool
    affected_count: int
    summary: dict[str, int]  # affected counts by label
    top_assets: list[Asset]  # the most important affected assets (weight / distance, then name)
    owners: list[str]  # owners of the changed entity and of affected assets, as of just before the change
    readers: list[str]  # principals who could read an affected table just before the change (lineage access)
    column_reach: ColumnReach | None = None  # column changes only: how many downstream tables read the column
    reported_by: list[str] = []  # the sources that reported it (one change reported by two is one row)
    columns: list[str] = []  # the columns it touched, when the change names them
    category: str | None = None  # a schema change's additive / breaking / table (lineage.analysis.categories)
    column_change: str | None = None  # what was done to them (added, removed, type_changed, ...)
    script: str | None = None  # a node change's script: what of its rows changed ("a join, the filter")
    failed_after: list[FailedRun] = []  # its evidence: runs that failed since (lineage.analysis.runs)
    failing: list[str] = []  # the names of the nodes and jobs those runs are of
    explained: bool = False  # the error of a run failed since names a column the change touched


class Figure(_Model):
    """One headline figure: this window, the previous one, and the last 8 windows (oldest first)."""

    key: str
    title: str
    value: int
    previous: int
    delta: int
    trend: list[int]


class GraphNode(_Model):
    id: str
    label: str
    name: str
    layer: int  # 0 = changed entity, n = n hops downstream


class GraphEdge(_Model):
    src: str
    dst: str


class ImpactGraph(_Model):
    """The impact subgraph of the top changes: tables, nodes, dashboards (instances collapsed
    into their node), laid out by distance from the change."""

    changes: list[str]
    nodes: list[GraphNode]
    edges: list[GraphEdge]
    truncated: int = 0  # affected vertices left out of the picture


class Grant(_Model):
    """A grant or approval (a ``CAN_ACCESS`` interval) that opened, was revoked or expired."""

    principal: str
    principal_name: str
    target: str
    target_name: str
    privileges: list[str]
    kind: str  # direct | approval | label (access.GRANT_KINDS)
    at: str | None  # when it opened / was revoked / expired
    expires_at: str | None = None


class Concern(_Model):
    """A change of the week as one person's digest says it: what changed (kind, columns, script)
    and what of theirs it reaches (``theirs``: the first 3 by name, ``more``: the others)."""

    change_id: str
    kind: str
    effect: str
    entity_name: str
    actor_name: str | None = None
    time: str | None = None
    category: str | None = None
    columns: list[str] = []
    column_change: str | None = None
    script: str | None = None
    why: Literal["owner", "reader"]  # they own what it reaches (or the changed entity), or they read it
    theirs: list[str] = []  # names
    more: int = 0
    failing: list[str] = []  # the names of their nodes and jobs that failed since it (its evidence)
    by_them: bool = False  # they made it (listed after others' changes)


class Digest(_Model):
    """One person's week (issue 69): the changes upstream of what they own or read, the runs of
    theirs that failed after one, the access they gained or lost, and the one thing to do first
    (``lineage.report.actions``); ``weight`` orders people by how much they have to act on."""

    weight: int
    action: str
    action_parts: list[str] = []  # the action's own words (even positions) and event text (odd): outputs escape the odd
    concerns: list[Concern] = []
    failed: list[FailedRun] = []  # runs of a node or job they own, failed since a change that reaches it
    gained: list[Grant] = []  # access opened to them this week
    lost: list[Grant] = []  # access revoked or expired


class Person(_Model):
    """Someone to tell: why (``owner`` of the changed entity or of an affected asset, ``reader``
    of an affected asset; ``access`` when only their own access moved) and which assets, per
    change they must hear about; ``digest``: what they should know and do (sorted by its weight)."""

    id: str
    name: str
    reasons: list[Literal["owner", "reader", "access"]]
    changes: list[str]  # change ids
    assets: list[str]  # asset ids they must hear about (changed entities and affected assets)
    digest: Digest | None = None


class Exposure(_Model):
    """A principal reading data with a propagated sensitive mark, not cleared at the source (``lineage exposure``)."""

    principal: str
    table: str
    tag: str
    origin: str
    marks: list[str] = []  # every mark's name on the table: one exposure per (principal, table)


class Access(_Model):
    opened: list[Grant]
    revoked: list[Grant]
    expired: list[Grant]
    newly_sensitive_readers: list[str]  # can read sensitive (tagged or propagated) data at `until`, could not at `since`
    sensitive_readers_start: int
    sensitive_readers_end: int
    exposures_end: list[Exposure]  # `lineage exposure --as-of UNTIL`
    open_on_dropped: list[Grant]  # grants still valid at `until` on tables dropped by then


class Failure(_Model):
    """A failed instance or job (its last reported ``status``), and the earlier change it is downstream of."""

    id: str
    label: str
    name: str
    node: str | None  # the scheduling node of an instance
    at: str | None
    status: str
    after_change: str | None = None  # the change whose failed_after lists it (the latest one, when several do)
    error: str | None = None  # its error text (a failed MaxCompute job's code and message)


class QualityFailure(_Model):
    rule: str
    table: str
    status: str


class Operations(_Model):
    failures: list[Failure]
    quality_failures: list[QualityFailure]


class SourceHealth(_Model):
    source: str
    per_day: dict[str, int]  # event_date -> accepted events
    total: int
    unknown_kind: int  # accepted as generic activity of unknown kind
    quarantined: int  # quarantined records in the warehouse for this source (all time: they carry no date)
    implausible_time: int = 0  # stored events with a time before 2000 or over a day after their ingest (all time)
    expected_daily: bool  # active on most days of its history: a day without events is a gap
    gaps: list[str]  # days of the window without events or under a tenth of the usual volume, when expected_daily
    low_days: list[str] = []  # the gaps that had events, but under a tenth of usual_daily
    usual_daily: int = 0  # median events on the active days of the source's history (report/health.py)
    last_day: str | None = None  # the last day with events from this source, up to the window's end


class UnknownKind(_Model):
    """An event kind the mapping does not know, accepted in the window: a new DataWorks code or
    MaxCompute eventName is noticed the week it appears."""

    source: str
    kind: str
    count: int
    example_id: str  # one event of this kind (``lineage show``/``history`` on its subject)
    first_day: str  # the window's first day with this kind


class InputHealth(_Model):
    days: list[str]
    sources: list[SourceHealth]
    quarantined_unrecognised: int  # records no source recognised
    gaps: int  # source-days without events (exit status 3 when > 0)
    unknown_kinds: list[UnknownKind] = []  # most frequent first
    implausible_time: int = 0  # stored events with an implausible time, all sources (all time)
    alerts: list[str] = []  # one sentence per source with gaps, for the headline ("no dataworks events since ...")
    first_day: str | None = None  # the first day any source delivered events (up to the window's end)


class Named(_Model):
    """A vertex shown by name (a person, node, job or table)."""

    id: str
    name: str


class Runnable(_Model):
    """A node or job with its owners: one that may fail, or one that reads a deprecated table."""

    id: str
    label: str
    name: str
    owners: list[Named]


class PartEntry(_Model):
    """One change as its part shows it (``change_id`` names its row in ``changes[]``); each part
    fills the fields it is about and leaves the others empty."""

    change_id: str
    rank: int  # its overall rank in changes[] (the part's own order is the list's order)
    sensitive: list[str] = []  # exposes: why the data is sensitive (a tag or label it carries, a tag added)
    principals: list[Named] = []  # exposes: who gained a path to the data; restricts: who lost it
    tables: list[Named] = []  # exposes (a sensitive tag added): the derived tables that become sensitive
    may_fail: list[Runnable] = []  # restricts: the nodes and jobs that may fail, with their owners
    tell: list[Named] = []  # breaks: the people to tell (owners and readers of what it reaches)
    old_owners: list[Named] = []  # notifies: owners one instant before the change
    new_owners: list[Named] = []  # notifies: owners as of the change
    readers: list[Runnable] = []  # notifies (deprecation): the nodes (else jobs) reading it, with their owners
    detail: str | None = None  # notifies: what a term, domain or tag change set (from the change's properties)


class Part(_Model):
    """One of the four parts of the week (``effect``: breaks, exposes, restricts, notifies):
    every change of that effect, in the part's order; the pages show the first ``top``."""

    effect: str
    title: str
    count: int
    entries: list[PartEntry]


class UnusedTable(_Model):
    """A table written in the last ``unused_days`` and read by nothing, as of the week's end."""

    id: str
    name: str
    owners: list[Named]
    writers: list[Named]
    runs: int
    last_written: str | None


class CycleFound(_Model):
    """Tables feeding each other (a strongly connected component of FEEDS) as of the week's end."""

    tables: list[Named]
    jobs: list[Named]  # the jobs (nodes) that close it
    new: bool  # not a cycle at the week's start
    self_loop: bool = False  # one table its own job reads and rewrites (staging, incremental): shown apart


class ImportanceMove(_Model):
    """A table whose PageRank importance moved most between the week's start and its end."""

    id: str
    name: str
    start: float  # share of all tables' PageRank (0 when the table did not exist)
    end: float
    rank_start: int | None  # 1 = most important; None: not in the graph then
    rank_end: int | None


class HygieneSection(_Model):
    """Platform hygiene (``lineage hygiene``) at the week's start and end, compared (issue 33)."""

    engine: str  # the engine hygiene ran on (local: networkx, whatever the report's engine)
    unused_days: int
    new_unused: list[UnusedTable]  # unused at the end, not at the start
    unused_end: int  # every unused table at the end
    cycles: list[CycleFound]
    risers: list[ImportanceMove]
    fallers: list[ImportanceMove]


class Report(_Model):
    """The whole report document."""

    model_config = ConfigDict(extra="forbid", frozen=True, populate_by_name=True)

    schema_: Literal["lineage.report/1"] = Field(SCHEMA, alias="schema")
    generated_at: str
    week: str
    since: str
    until: str
    engine: str
    top: int
    high_impact_score: float
    headline: list[Figure]
    changes: list[Change]
    people: list[Person]
    impact_graph: ImpactGraph
    access: Access
    operations: Operations
    input_health: InputHealth
    parts: list[Part] = []  # the week's changes by effect: breaks, exposes, restricts, notifies
    hygiene: HygieneSection | None = None
    unmerged: Unmerged | None = None  # people under several ids the report could not merge
    data_weeks: int | None = None  # how many of the trend's windows (the last ones) have events: 1 = the warehouse's first

    @property
    def first_week(self) -> bool:
        """No event before this window: its figures have nothing to be compared with."""
        return self.data_weeks is not None and self.data_weeks <= 1

    def to_json(self) -> str:
        """The file's text: keys in model order, indented, ending in a newline (stable bytes)."""
        return self.model_dump_json(by_alias=True, indent=1) + "\n"


def load(path: str | Path) -> Report:
    """A ``report.json`` (or the folder holding it) as a :class:`Report`."""
    path = Path(path)
    if path.is_dir():
        path = path / "report.json"
    return Report.model_validate_json(path.read_text())
