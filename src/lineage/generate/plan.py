"""What happens on the platform, day by day: runs, failures, reruns, grants, changes.

``setup`` and ``day`` return plain ``Intent`` records (time, kind, args); the per-source
modules turn each into the JSON its platform delivers. Deciding *what* happens here, once,
keeps the four sources consistent (a failed DataWorks instance is a failed MaxCompute job)
and is where the ground truth comes from. Only the platform's current state (open grants,
live nodes and tables) is carried from one day to the next: memory does not grow with days.
"""

from __future__ import annotations

import random
from collections import Counter
from dataclasses import dataclass, field
from datetime import datetime, timedelta

from lineage.generate import effects, schema, sqltext
from lineage.generate.model import LAYERS, Intent, NodeSpec, Platform, TableSpec, hub

FAILURE_RATE = 0.012
"""Share of daily runs that fail (a MaxCompute job Failed, the DataWorks instance status 5)."""
RERUN_RATE = 0.75
"""Share of failed runs rerun by their owner the same day (the rerun succeeds)."""
QUALITY_SHARE = 0.25
"""Share of dwd/dws/ads tables with quality rules."""
CHANGE_WEEKDAY = 2
"""Schema changes, deprecations, drops and node releases happen on Wednesdays (weekday 2)."""
ERRORS = (("ODPS-0130071", "Semantic analysis exception - column not found"),
          ("ODPS-0123131", "User defined function exception"),
          ("ODPS-0420061", "Invalid parameter in HTTP request - fetched partition does not exist"))


@dataclass(frozen=True)
class Break:
    """``generate --planted-failures``: a column of a table some SQL nodes read, dropped or renamed
    by its owner's DDL job; every node whose SQL reads it fails from its next run on."""

    index: int  # the k-th planted failure (0-based)
    time: datetime  # the DDL job's end (its JobChange): when the graph records the change
    kind: str  # "drop" (ALTER TABLE ... DROP COLUMNS) or "rename" (CHANGE COLUMN old new type)
    table: int
    column: str  # the column's name before the change: the one the readers' SQL names
    new: str | None = None  # a rename's new name
    readers: tuple[int, ...] = ()  # the nodes reading it when it was picked


@dataclass
class State:
    """What carries over between days: live nodes/tables, open grants, rules, role members."""

    dropped: set[int] = field(default_factory=set)  # table indexes
    deleted_nodes: set[int] = field(default_factory=set)  # node indexes
    deprecated: set[int] = field(default_factory=set)
    acl: list[tuple[int, int]] = field(default_factory=list)  # (person, table) open ACL grants
    role_members: list[tuple[int, int]] = field(default_factory=list)  # (person, role index)
    dataphin: list[tuple[int, int]] = field(default_factory=list)  # (person, table) open Dataphin grants
    rules: dict[int, list[int]] = field(default_factory=dict)  # table -> rule ids
    next_approval: int = 528_500_000
    releases: list[tuple[int, int]] = field(default_factory=list)  # (node, new input) from the next day on
    touched: set[tuple[int, int]] = field(default_factory=set)  # (person, table) any grant ever named (effects)
    removed: set[tuple[int, str]] = field(default_factory=set)  # (table, column) fields removed so far
    roled: set[tuple[int, int]] = field(default_factory=set)  # (person, role) ever granted (effects)
    retyped: dict[tuple[int, str], str] = field(default_factory=dict)  # (table, column) -> its new type
    broken: dict[str, Break] = field(default_factory=dict)  # column id -> the planted break that took it
    broken_nodes: set[int] = field(default_factory=set)  # nodes failing because they read a broken column
    read_columns: dict[int, frozenset[str]] = field(default_factory=dict)  # id(sqltext.Script) -> columns it reads


def _at(day: datetime, minutes: float) -> datetime:
    return day + timedelta(minutes=minutes)


def _owner_of(platform: Platform, table: int) -> int:
    return platform.table(table).owner


def setup(platform: Platform) -> list[Intent]:
    """Day 0, before the first run: tables, users, roles, nodes, rules, catalogue metadata."""
    rng = random.Random(f"{platform.seed}:setup")
    day = platform.day(0)
    out: list[Intent] = []
    admin = platform.people[0].index
    for project in sorted({t.project for t in platform.tables}):
        for person in platform.people:
            out.append(Intent(_at(day, 1), "AddUser", {"project": project, "person": person.index, "actor": admin}))
    for r, (project, role, allowed) in enumerate(platform.roles):
        out.append(Intent(_at(day, 2), "CreateRole", {"project": project, "role": role, "actor": admin}))
        if allowed:
            out.append(Intent(_at(day, 2), "PutRolePolicy", {"project": project, "role": role, "tables": allowed,
                                                            "actor": admin}))
    for table in own_tables(platform):
        out += ddl(platform, "CreateTable", table.index, _at(day, 3), table.owner, schema.ddl(table))
        out.append(Intent(_at(day, 4), "dh_owner", {"table": table.index, "person": table.owner, "op": "ADD"}))
        out.append(Intent(_at(day, 4), "dh_domain", {"table": table.index}))
        if table.pii:
            out.append(Intent(_at(day, 4), "dh_tag", {"table": table.index, "tag": "PII", "op": "ADD"}))
            out.append(Intent(_at(day, 5), "SetTableLabel", {"table": table.index, "level": 2, "actor": admin}))
        if rng.random() < 0.2:
            term = "CustomerData" if table.entity in ("user", "member", "address") else f"{table.domain.title()}Metric"
            out.append(Intent(_at(day, 4), "dh_term", {"table": table.index, "term": term}))
    for n, node in enumerate(platform.nodes):
        if not node.planted:
            out.append(Intent(_at(day, 6), "node-change-created", {"node": n, "actor": node.owner}))
    for table in own_tables(platform):
        if table.layer in ("dwd", "dws", "ads") and rng.random() < QUALITY_SHARE:
            rule_ids = []
            for n in range(rng.choice((1, 1, 2))):
                rule_ids.append(_rule_id(table.index, n))
            out.append(Intent(_at(day, 7), "batch-create-data-quality-rules",
                              {"table": table.index, "rules": rule_ids, "actor": table.owner}))
    analysts = [p.index for p in platform.people if p.role == "analyst"][:2] or [0]
    for table in (t for t in platform.tables if t.pii):
        for person in analysts:  # the CRM analysts read the raw customer tables directly
            out.append(Intent(_at(day, 8), "GrantACL", {"person": person, "table": table.index, "actor": table.owner}))
    stewards = [p.index for p in platform.people if p.role in ("steward", "auditor")] or [0]
    for person in stewards:
        for table in (t for t in platform.tables if t.pii):
            out.append(Intent(_at(day, 8), "GrantLabel", {"table": table.index, "person": person, "level": 2,
                                                          "days": None, "actor": admin}))
    return out


def own_tables(platform: Platform) -> list[TableSpec]:
    """The platform's own tables, not the planted pipelines' (``model.plant``)."""
    return [t for t in platform.tables if not t.planted]


def planted_setup(platform: Platform) -> list[Intent]:
    """Day 0 of the planted pipelines: their tables, owners, domains and nodes (no random draw)."""
    day = platform.day(0)
    out: list[Intent] = []
    for table in (t for t in platform.tables if t.planted):
        out += ddl(platform, "CreateTable", table.index, _at(day, 3), table.owner, schema.ddl(table))
        out.append(Intent(_at(day, 4), "dh_owner", {"table": table.index, "person": table.owner, "op": "ADD"}))
        out.append(Intent(_at(day, 4), "dh_domain", {"table": table.index}))
    for n, node in enumerate(platform.nodes):
        if node.planted:
            out.append(Intent(_at(day, 6), "node-change-created", {"node": n, "actor": node.owner}))
    return out


DDL_KINDS = ("ddl-start", "ddl-end")
"""The InsertJob and JobChange of the statement behind a CreateTable or ChangeTable."""


def ddl(platform: Platform, kind: str | None, table: int, moment: datetime, actor: int, sql: str,
        **change: str) -> list[Intent]:
    """A CreateTable / ChangeTable and the job that ran its statement (the event's CorrelationId,
    Source INSTANCE): the job's SQL states the columns, which ActionTrail's table events do not.
    ``kind`` None: the job alone (a column type change has no ChangeTable operation in seed 002).
    ``change``: what the statement does for the truth (``column`` and ``type`` added or retyped)."""
    job = f"{moment:%Y%m%d%H%M%S}{table % 1000:03d}0d{table:06d}"
    args = {"table": table, "actor": actor, "job": job, "sql": sql, **change}
    event = [Intent(moment, kind, args)] if kind else []
    return [Intent(moment - timedelta(seconds=20), "ddl-start", args), *event,
            Intent(moment + timedelta(seconds=5), "ddl-end", args)]


def removable(platform: Platform, state: State, table: int) -> str | None:
    """The field a removal takes: the table's own column that most of its SQL readers read and
    not all of them (so that column-precise impact is narrower than the table's), not yet removed."""
    spec = platform.table(table)
    prefix = schema.column_id(spec.id, "")
    readers = [n for n in platform.nodes if table in n.inputs and n.kind in sqltext.TEMPLATES and n.kind != "variable"]
    read: Counter[str] = Counter()
    for node in readers:
        found = sqltext.script(platform, node)
        read.update({src[len(prefix):] for src, _, q in found.pairs if q == "direct" and src.startswith(prefix)}
                    if found else ())
    names = [n for n, _ in schema.columns(spec)[len(schema.BASE):] if (table, n) not in state.removed]
    if not names:
        return None
    return max(names, key=lambda n: (0 < read[n] < len(readers), read[n], -names.index(n)))


def _rule_id(table: int, n: int) -> int:
    return 28_600_000 + table * 4 + n


def initial_state(platform: Platform, setup_intents: list[Intent]) -> State:
    state = State()
    for intent in setup_intents:
        if intent.kind == "batch-create-data-quality-rules":
            state.rules[intent.args["table"]] = list(intent.args["rules"])
    effects.touch(state, setup_intents)
    return state


@dataclass
class Run:
    """One MaxCompute job of a node's daily instance."""

    job: str  # the MaxCompute InstanceId
    begin: datetime
    end: datetime
    ok: bool
    error: tuple[str, str] | None = None


@dataclass
class NodeDay:
    node: int  # index into platform.nodes
    task_id: int
    dag_id: int
    waiting: datetime
    runs: list[Run]
    rerun_at: datetime | None = None
    cause: Break | None = None  # the planted break its SQL trips over (``planted_breaks``): it fails

    @property
    def ok(self) -> bool:
        return self.runs[-1].ok


@dataclass
class Day:
    index: int
    date: datetime
    runs: list[NodeDay]
    intents: list[Intent]
    planted: list[NodeDay] = field(default_factory=list)  # the planted pipelines' runs (``model.plant``)
    planted_intents: list[Intent] = field(default_factory=list)
    effect_intents: list[Intent] = field(default_factory=list)  # the planted access changes (``effects``)


def _job_id(moment: datetime, node: int, attempt: int) -> str:
    return f"{moment:%Y%m%d%H%M%S}{node % 1000:03d}{attempt}g{node:06d}"


def plan_day(platform: Platform, state: State, index: int) -> Day:
    """Everything that happens on day ``index`` (state is updated for the next day)."""
    rng = random.Random(f"{platform.seed}:day:{index}")
    day = platform.day(index)
    _release(platform, state)
    runs: list[NodeDay] = []
    intents: list[Intent] = []
    flow_dags = {flow: 500_000_000_000 + index * 1000 + n for n, flow in enumerate(sorted(platform.flows))}
    broken_rng: random.Random | None = None
    for n, node in enumerate(platform.nodes):
        if n in state.deleted_nodes or node.planted:
            continue
        waiting = _at(day, node.minute + rng.random())
        begin = waiting + timedelta(minutes=1 + rng.random() * 4)
        end = begin + timedelta(minutes=2 + rng.random() * 20)
        failed = rng.random() < FAILURE_RATE
        first = Run(_job_id(begin, n, 0), begin, end, not failed, rng.choice(ERRORS) if failed else None)
        node_day = NodeDay(n, 4_600_000_000 + index * 1_000_000 + n, flow_dags[node.flow], waiting, [first])
        if failed and rng.random() < RERUN_RATE:
            node_day.rerun_at = end + timedelta(minutes=30 + rng.random() * 60)
            again = node_day.rerun_at + timedelta(minutes=1)
            node_day.runs.append(Run(_job_id(again, n, 1), again, again + timedelta(minutes=5 + rng.random() * 10), True))
        checks: list[Intent] = []
        if node_day.ok:  # drawn even for a run a planted break fails: the day's other draws stay as they were
            for target in node.targets:
                for rule in state.rules.get(target, ()):
                    result = rng.choices((0, 1, 2), (0.94, 0.03, 0.03))[0]
                    checks.append(Intent(node_day.runs[-1].end + timedelta(minutes=1), "dqc-check-finished-event",
                                         {"table": target, "rule": rule, "result": result}))
        cause = _cause(platform, state, node, begin) if state.broken else None
        if cause is not None:
            if broken_rng is None:
                broken_rng = random.Random(f"{platform.seed}:broken:{index}")
            node_day = _failing(node_day, cause, broken_rng)
            state.broken_nodes.add(n)
        runs.append(node_day)
        if node_day.ok:
            intents += checks
        elif node.baseline is not None:
            intents.append(Intent(node_day.runs[0].end + timedelta(minutes=2), "workbench-monitor-alert",
                                  {"baseline": node.baseline, "node": n, "task_id": node_day.task_id}))
    intents += _access(platform, state, rng, day)
    intents += _guest_approvals(platform, state, index)
    if day.weekday() == CHANGE_WEEKDAY and index > 0:
        intents += _changes(platform, state, rng, day)
    if platform.hub_changes and index > 0:
        intents += hub_changes(platform, state, day)
    if index in break_days(platform):
        intents += planted_breaks(platform, state, index, runs)
    planted, planted_intents = _planted_day(platform, index, flow_dags)
    effects.touch(state, intents)
    return Day(index, day, runs, intents, planted, planted_intents, effects.plant_day(platform, state, index))


def _planted_day(platform: Platform, index: int, flow_dags: dict[int, int]) -> tuple[list[NodeDay], list[Intent]]:
    """The planted pipelines' day, on their own random stream (the rest of the plan is unchanged):
    every node runs and succeeds; the island's report is downloaded by its owner."""
    rng = random.Random(f"{platform.seed}:hygiene:{index}")
    day = platform.day(index)
    runs = []
    for n, node in enumerate(platform.nodes):
        if not node.planted:
            continue
        waiting = _at(day, node.minute + rng.random())
        begin = waiting + timedelta(minutes=1 + rng.random() * 4)
        end = begin + timedelta(minutes=2 + rng.random() * 20)
        runs.append(NodeDay(n, 4_600_000_000 + index * 1_000_000 + n, flow_dags[node.flow], waiting,
                            [Run(_job_id(begin, n, 0), begin, end, True)]))
    intents = [Intent(_at(day, 8 * 60 + rng.random() * 10 * 60), "DownloadTable",
                      {"person": platform.table(group[-1]).owner, "table": group[-1]})
               for group in platform.planted.get("island", ())]
    return runs, intents


GUEST_APPROVAL = 529_000_000
"""Approval order ids of the partner accounts (apart from the others: the daily plan is unchanged)."""


def _guest_approvals(platform: Platform, state: State, index: int) -> list[Intent]:
    """Approvals granting a partner account (``model.Guest``) a table: each guest on day
    ``index == guest`` (so even a short platform has them), then now and then. Their own random
    generator: the rest of the day's plan is what it was without them."""
    rng = random.Random(f"{platform.seed}:guests:{index}")
    day = platform.day(index)
    live = _live_tables(platform, state)
    consumers = [t for t in live if platform.table(t).layer in ("dws", "ads", "rpt")] or live
    out = []
    for guest in platform.guests:
        if guest.index == index or rng.random() < 0.15:
            table = rng.choice(consumers)
            out.append(Intent(_at(day, 9 * 60 + rng.random() * 8 * 60), "approval-change-finished", {
                "guest": guest.index, "table": table, "approver": _owner_of(platform, table),
                "id": GUEST_APPROVAL + index * 10 + guest.index, "days": rng.choice((14, 30))}))
    return out


def _live_tables(platform: Platform, state: State) -> list[int]:
    return [t.index for t in platform.tables if t.index not in state.dropped and not t.planted]


def _access(platform: Platform, state: State, rng: random.Random, day: datetime) -> list[Intent]:
    """Grant churn: ACL grants and revokes, role grants, approvals with expiry, Dataphin, labels, downloads."""
    out: list[Intent] = []
    people = len(platform.people)
    live = _live_tables(platform, state)
    consumers = [t for t in live if platform.table(t).layer in ("dws", "ads", "rpt")] or live
    admin = 0

    def when() -> datetime:
        return _at(day, 8 * 60 + rng.random() * 10 * 60)  # office hours

    for _ in range(max(1, people // 8)):
        person, table = rng.randrange(people), rng.choice(consumers)
        out.append(Intent(when(), "GrantACL", {"person": person, "table": table, "actor": _owner_of(platform, table)}))
        state.acl.append((person, table))
    for _ in range(max(1, people // 16)):
        if state.acl:
            person, table = state.acl.pop(rng.randrange(len(state.acl)))
            out.append(Intent(when(), "RevokeACL", {"person": person, "table": table, "actor": _owner_of(platform, table)}))
    if rng.random() < 0.5:
        person, role = rng.randrange(people), rng.randrange(len(platform.roles))
        out.append(Intent(when(), "GrantRole", {"person": person, "role": role, "actor": admin}))
        state.role_members.append((person, role))
    if state.role_members and rng.random() < 0.25:
        person, role = state.role_members.pop(rng.randrange(len(state.role_members)))
        out.append(Intent(when(), "RevokeRole", {"person": person, "role": role, "actor": admin}))
    for _ in range(max(1, people // 20)):
        person, table = rng.randrange(people), rng.choice(live)
        state.next_approval += 1
        out.append(Intent(when(), "approval-change-finished", {
            "person": person, "table": table, "approver": _owner_of(platform, table), "id": state.next_approval,
            "days": rng.choice((3, 7, 14, 30, 90))}))
    for _ in range(max(1, people // 25)):
        person, table = rng.randrange(people), rng.choice(live)
        ticket = f"T-{day:%Y%m%d}-{rng.randrange(10**6):06d}"
        applied = when()
        out.append(Intent(applied, "ApplyPrivilege", {"person": person, "table": table, "ticket": ticket, "days": 30}))
        out.append(Intent(applied + timedelta(minutes=20), "ApprovePrivilege", {
            "person": person, "table": table, "ticket": ticket, "approver": _owner_of(platform, table),
            "days": rng.choice((7, 30, 60))}))
        state.dataphin.append((person, table))
    if rng.random() < 0.6:
        person, table = rng.randrange(people), rng.choice(live)
        ok = rng.random() >= 0.15
        out.append(Intent(when(), "GrantPermission", {"person": person, "table": table, "ok": ok,
                                                      "actor": _owner_of(platform, table)}))
        if ok:
            state.dataphin.append((person, table))
    if state.dataphin and rng.random() < 0.3:
        person, table = state.dataphin.pop(rng.randrange(len(state.dataphin)))
        out.append(Intent(when(), rng.choice(("RevokePermission", "ReturnPermission")),
                          {"person": person, "table": table, "actor": _owner_of(platform, table)}))
    pii = [t for t in live if platform.table(t).pii]
    if pii and rng.random() < 0.2:
        out.append(Intent(when(), "GrantLabel", {"table": rng.choice(pii), "person": rng.randrange(people),
                                                 "level": 2, "days": rng.choice((3, 7, 14)), "actor": admin}))
    busy = platform.people[len(platform.people) // 2].index
    for person in [busy] * 2 + [rng.randrange(people) for _ in range(max(1, people // 12))]:
        table = rng.choice(consumers)
        out.append(Intent(when(), rng.choice(("DownloadTable", "download-resources-execute")),
                          {"person": person, "table": table}))
    if rng.random() < 0.3:
        ods = [t for t in live if platform.table(t).layer == "ods"]
        if ods:
            out.append(Intent(when(), "upload-data-to-table", {"person": rng.randrange(people), "table": rng.choice(ods)}))
    return out


def _changes(platform: Platform, state: State, rng: random.Random, day: datetime) -> list[Intent]:
    """The weekly release: schema changes, field removals, deprecations, drops, node updates/deletions."""
    out: list[Intent] = []
    live = _live_tables(platform, state)
    n = len(own_tables(platform))
    hub_index = hub(platform).index

    def when() -> datetime:
        return _at(day, 14 * 60 + rng.random() * 4 * 60)

    for table in rng.sample(live, max(1, n // 80)):
        owner = _owner_of(platform, table)
        out += _add_column(platform, table, when(), owner, f"col_{day:%m%d}_{table}")
        out.append(Intent(when(), "dh_schema", {"table": table, "field": f"col_{day:%m%d}_{table}", "op": "ADD",
                                               "person": owner}))
    for table in rng.sample(live, max(1, n // 150)):
        out += _remove(platform, state, table, when())
    # the hub's schema changes every week: the demo's biggest blast radius; its first release
    # also removes a field some of its readers read
    moment, owner = when(), _owner_of(platform, hub_index)
    out += _add_column(platform, hub_index, moment, owner, f"col_{day:%m%d}_{hub_index}")
    out.append(Intent(moment, "dh_schema", {"table": hub_index, "field": f"col_{day:%m%d}_{hub_index}", "op": "ADD",
                                            "person": owner}))
    if not any(t == hub_index for t, _ in state.removed):
        out += _remove(platform, state, hub_index, moment + timedelta(minutes=1))
        out += _retype(platform, state, hub_index, moment + timedelta(minutes=2))
    fresh = [t for t in live if t not in state.deprecated]
    for table in rng.sample(fresh, min(len(fresh), max(1, n // 200))):
        state.deprecated.add(table)
        out.append(Intent(when(), "dh_deprecation", {"table": table, "person": _owner_of(platform, table)}))
    leaves = [t for t in live if platform.table(t).layer in ("ads", "rpt") and platform.table(t).readers == 0
              and platform.table(t).node is not None and platform.nodes[platform.table(t).node].kind in ("insert", "cte")]
    for table in rng.sample(leaves, min(len(leaves), max(1, n // 250))):
        node = platform.table(table).node
        owner = _owner_of(platform, table)
        moment = when()
        state.dropped.add(table)
        state.deleted_nodes.add(node)
        out.append(Intent(moment, "node-change-deleted", {"node": node, "actor": owner}))
        out.append(Intent(moment + timedelta(minutes=5), "DropTable", {"table": table, "actor": owner}))
        out.append(Intent(moment + timedelta(minutes=6), "dh_lifecycle", {"table": table, "person": owner}))
    own = [i for i, node in enumerate(platform.nodes) if not node.planted]
    alive = [i for i in own if i not in state.deleted_nodes]
    for node in rng.sample(alive, min(len(alive), max(1, len(own) // 50))):
        out.append(Intent(when(), "node-change-updated", {"node": node, "actor": platform.nodes[node].owner}))
        _add_input(platform, state, rng, node)
    if rng.random() < 0.5:
        table = rng.choice(live)
        old, new = _owner_of(platform, table), rng.randrange(len(platform.people))
        out.append(Intent(when(), "dh_owner", {"table": table, "person": old, "op": "REMOVE"}))
        out.append(Intent(when(), "dh_owner", {"table": table, "person": new, "op": "ADD"}))
    return out


HUBS = 8
"""``generate --hub-changes``: how many of the most-read tables the daily hub changes go to."""


def hub_changes(platform: Platform, state: State, day: datetime) -> list[Intent]:
    """``generate --hub-changes N``: every day, N columns added, the k-th to the (k mod ``HUBS``)-th
    most-read live table (ChangeTable with its DDL job, and DataHub's field ADD): a platform whose
    breaking changes reach far every day. Draws nothing at random: the rest of the plan is unchanged."""
    live = set(_live_tables(platform, state))
    hubs = sorted((t for t in own_tables(platform) if t.index in live), key=lambda t: (-t.readers, t.index))[:HUBS]
    out: list[Intent] = []
    for k in range(platform.hub_changes if hubs else 0):
        table = hubs[k % len(hubs)]
        moment, name = _at(day, 13 * 60 + k), f"hub_{day:%m%d}_{table.index}_{k}"
        out += _add_column(platform, table.index, moment, table.owner, name)
        out.append(Intent(moment, "dh_schema", {"table": table.index, "field": name, "op": "ADD", "person": table.owner}))
    return out


def _add_column(platform: Platform, table: int, moment: datetime, owner: int, name: str) -> list[Intent]:
    sql = f"ALTER TABLE {platform.table(table).qualified} ADD COLUMNS ({name} STRING);\n"
    return ddl(platform, "ChangeTable", table, moment, owner, sql, column=name, type="STRING")


RETYPED = {"BIGINT": "STRING", "DOUBLE": "DECIMAL(18,2)", "DECIMAL(18,2)": "DECIMAL(20,4)", "STRING": "VARCHAR(255)",
           "DATETIME": "TIMESTAMP"}
"""A column type change: the column's type -> its new one."""


def _retype(platform: Platform, state: State, table: int, moment: datetime) -> list[Intent]:
    """``ALTER TABLE ... CHANGE COLUMN c c <type>`` on a column some readers read and others do not."""
    name = removable(platform, state, table)
    if name is None:
        return []
    spec = platform.table(table)
    new = RETYPED[dict(schema.columns(spec))[name]]
    state.retyped[(table, name)] = new
    sql = f"ALTER TABLE {spec.qualified} CHANGE COLUMN {name} {name} {new};\n"
    return ddl(platform, None, table, moment, spec.owner, sql, column=name, type=new)


def _remove(platform: Platform, state: State, table: int, moment: datetime) -> list[Intent]:
    """A field removal, as DataHub reports it (ActionTrail's ChangeTable has no dropped-column kind)."""
    name = removable(platform, state, table)
    if name is None:
        return []
    state.removed.add((table, name))
    return [Intent(moment, "dh_schema", {"table": table, "field": name, "op": "REMOVE",
                                         "person": _owner_of(platform, table)})]


def _add_input(platform: Platform, state: State, rng: random.Random, n: int) -> None:
    """A release that joins one more table (from a lower layer, popular tables more likely):
    from the next run on, the node's SQL reads it; lineage grows over time as on real platforms."""
    node = platform.nodes[n]
    if node.kind not in ("insert", "cte", "ctas", "multi", "nosql") or not node.inputs or len(node.inputs) >= 5:
        return
    layers = [layer for layer, _, _ in LAYERS]
    below = layers[: layers.index(platform.table(node.targets[0]).layer)]
    broken = {b.table for b in state.broken.values()}  # no node starts reading a broken table (one draw still)
    candidates = [t for t in own_tables(platform) if t.layer in below and t.index not in node.inputs
                  and t.index not in node.targets and t.index not in broken]
    if not candidates:
        return
    state.releases.append((n, rng.choices(candidates, [t.readers + 1 for t in candidates])[0].index))


def _release(platform: Platform, state: State) -> None:
    """Yesterday's node updates take effect: their SQL joins the new input from today's run on."""
    for n, table in state.releases:
        node = platform.nodes[n]
        if table not in node.inputs:
            node.inputs = (*node.inputs, table)
            platform.table(table).readers += 1
    state.releases.clear()


# ---------------------------------------------------------------------------------------------
# generate --planted-failures N: failures caused by an upstream change, with their ground truth
# ---------------------------------------------------------------------------------------------

BREAK_ERROR = ("ODPS-0130071", "Semantic analysis exception - column {column} cannot be resolved")
"""The error of a job whose SQL names a column that was dropped or renamed (MaxCompute's compiler)."""
BREAK_RERUN_RATE = 0.3
"""Share of a broken node's failed days its owner reruns it (the rerun fails again)."""
BREAK_READERS = 8
"""A planted break prefers a column at most this many nodes read (and fewer than read its table)."""
RENAMED = {"user_id": "buyer_id", "shop_id": "store_id", "sku_id": "item_id", "region": "region_code",
           "status": "order_status", "channel": "channel_code", "city": "city_name", "category": "category_name",
           "price": "unit_price", "quantity": "qty", "discount": "discount_rate", "pay_time": "paid_at"}
"""A renamed column's new name (``schema.EXTRAS``: no table has both)."""


def break_days(platform: Platform) -> list[int]:
    """The days of the planted breaks, spread over days 1 .. days-2 (each has a run before it and
    one after it); several on one day when there are more breaks than days."""
    n, span = platform.planted_failures, platform.days - 2
    if not n or span < 1:
        return []
    return [1 + k * span // n for k in range(n)]


def _reads(platform: Platform, state: State, node: NodeSpec) -> frozenset[str]:
    """The column ids the node's current SQL names (the sources of its column truth)."""
    found = sqltext.script(platform, node)
    if found is None:
        return frozenset()
    key = id(found)  # scripts stay in platform.scripts: an id is never reused
    if key not in state.read_columns:
        state.read_columns[key] = frozenset(src for src, _, _ in found.pairs)
    return state.read_columns[key]


def _cause(platform: Platform, state: State, node: NodeSpec, begin: datetime) -> Break | None:
    """The earliest break before ``begin`` of a column the node's SQL reads, if any."""
    hits = [b for column, b in state.broken.items() if b.time < begin and column in _reads(platform, state, node)]
    return min(hits, key=lambda b: (b.time, b.index), default=None)


def _failing(node_day: NodeDay, cause: Break, rng: random.Random) -> NodeDay:
    """The node's day as its broken SQL runs it: the job fails at compile time, seconds after it
    starts; a rerun by its owner fails the same way. Waiting and start times are the day's own."""
    first = node_day.runs[0]
    error = (BREAK_ERROR[0], BREAK_ERROR[1].format(column=cause.column))
    end = first.begin + timedelta(seconds=4 + rng.random() * 20)
    out = NodeDay(node_day.node, node_day.task_id, node_day.dag_id, node_day.waiting,
                  [Run(first.job, first.begin, end, False, error)], cause=cause)
    if rng.random() < BREAK_RERUN_RATE:
        out.rerun_at = end + timedelta(minutes=30 + rng.random() * 60)
        again = out.rerun_at + timedelta(minutes=1)
        out.runs.append(Run(_job_id(again, node_day.node, 1), again, again + timedelta(seconds=4 + rng.random() * 20),
                            False, error))
    return out


def _break_target(platform: Platform, state: State, rng: random.Random,
                  failing: set[int]) -> tuple[int, str, tuple[int, ...]] | None:
    """(table, column, its readers) for a planted break: an extra column (not ``schema.BASE``) of
    a live table that SQL nodes read by name, not removed, retyped or broken yet, not read by a
    Spark job, and whose readers are all healthy today (no streak of theirs starts before the
    change; none already broken, none with a pending release). Preferred: a column some readers
    of the table do not read, and at most ``BREAK_READERS`` read."""
    live = set(_live_tables(platform, state))
    pending = {n for n, _ in state.releases}
    joined = {t for _, t in state.releases}  # a table a node starts reading tomorrow: that node's release is news too
    readers: dict[int, list[int]] = {}
    for n, node in enumerate(platform.nodes):
        if node.planted or n in state.deleted_nodes or node.kind not in sqltext.TEMPLATES or node.kind == "variable":
            continue
        for table in node.inputs:
            readers.setdefault(table, []).append(n)
    tiers: dict[tuple[bool, bool], list[tuple[int, str, tuple[int, ...]]]] = {}
    for spec in own_tables(platform):
        of = readers.get(spec.index, [])
        if (spec.index not in live or spec.index in joined or spec.id in platform.spark_reads or not of
                or any(n in pending for n in of)):
            continue
        for name, _ in schema.columns(spec)[len(schema.BASE):]:
            if (spec.index, name) in state.removed or (spec.index, name) in state.retyped:
                continue  # a column already changed: one change per column
            column = schema.column_id(spec.id, name)
            by = tuple(n for n in of if column in _reads(platform, state, platform.nodes[n]))
            if not by or any(n in state.broken_nodes or n in failing for n in by):
                continue
            tiers.setdefault((len(by) == len(of), len(by) > BREAK_READERS), []).append((spec.index, name, by))
    if not tiers:
        return None
    return rng.choice(tiers[min(tiers)])


def planted_breaks(platform: Platform, state: State, index: int, runs: list[NodeDay]) -> list[Intent]:
    """``generate --planted-failures N``: the breaks of day ``index`` (``break_days``), in the
    afternoon after every run of the day: the table owner's DDL job (InsertJob, then JobChange:
    MaxCompute's ActionTrail has no ChangeTable operation for a dropped or renamed column) with
    ``ALTER TABLE t DROP COLUMNS c`` (even breaks) or ``ALTER TABLE t CHANGE COLUMN c c2 <type>``
    (odd), and DataHub's field REMOVE (and the new field's ADD) 40 seconds later. From their next
    run on, the nodes reading the column fail (``plan_day``). Its own random stream: the day's
    other draws are what they were without it."""
    rng = random.Random(f"{platform.seed}:breaks:{index}")
    day = platform.day(index)
    failing = {r.node for r in runs if not r.ok}
    out: list[Intent] = []
    for k in (k for k, d in enumerate(break_days(platform)) if d == index):
        picked = _break_target(platform, state, rng, failing)
        if picked is None:
            continue
        table, name, by = picked
        spec = platform.table(table)
        moment = _at(day, 10 * 60 + rng.random() * 7 * 60)
        kind = "drop" if k % 2 == 0 else "rename"
        old_type = dict(schema.columns(spec))[name]  # never retyped (``_break_target``)
        if kind == "drop":
            sql, new = f"ALTER TABLE {spec.qualified} DROP COLUMNS {name};\n", None
        else:
            new = RENAMED[name]
            sql = f"ALTER TABLE {spec.qualified} CHANGE COLUMN {name} {new} {old_type};\n"
        extra = {"new": new} if new else {}
        jobs = ddl(platform, None, table, moment, spec.owner, sql, column=name, type=old_type,
                   planted_failure=str(k), **extra)
        out += jobs
        out.append(Intent(moment + timedelta(seconds=40), "dh_schema", {"table": table, "field": name, "op": "REMOVE",
                                                                        "person": spec.owner}))
        if new:
            out.append(Intent(moment + timedelta(seconds=40), "dh_schema", {"table": table, "field": new, "op": "ADD",
                                                                            "person": spec.owner}))
        state.removed.add((table, name))
        state.broken_nodes.update(by)
        state.broken[schema.column_id(spec.id, name)] = Break(k, jobs[-1].time, kind, table, name, new, by)
    return out
