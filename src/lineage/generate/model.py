"""The platform being simulated: projects, layered tables, nodes and their inputs, people, roles.

Built once from the seed, before any event is written; its size is proportional to the number
of tables, never to the number of days or events (the events are streamed day by day).
Inputs are picked by a power law over each lower layer ranked by popularity, so a few hub tables
(a customer dimension, the order fact) feed hundreds of tables, as on real warehouses.
"""

from __future__ import annotations

import random
import zlib
from bisect import bisect
from itertools import accumulate
from dataclasses import dataclass, field
from datetime import datetime, timedelta
from typing import Any

from lineage import ids

COMPANY = "acme"
LAYERS: tuple[tuple[str, float, str], ...] = (
    # layer, share of the tables, MaxCompute project
    ("ods", 0.24, f"{COMPANY}_ods"),
    ("dim", 0.10, f"{COMPANY}_cdm"),
    ("dwd", 0.24, f"{COMPANY}_cdm"),
    ("dws", 0.20, f"{COMPANY}_cdm"),
    ("ads", 0.13, f"{COMPANY}_ads"),
    ("rpt", 0.09, f"{COMPANY}_ads"),
)
"""Warehouse layers, bottom up (ods -> dim -> dwd -> dws -> ads -> reporting)."""
WORKSPACES = {f"{COMPANY}_ods": 31001, f"{COMPANY}_cdm": 31002, f"{COMPANY}_ads": 31003}
"""DataWorks workspace id of each MaxCompute project."""
DOMAINS = ("trade", "customer", "product", "marketing", "finance", "logistics", "risk", "supply")
ENTITIES = ("order", "payment", "refund", "cart", "user", "member", "coupon", "sku", "shop", "invoice",
            "shipment", "visit", "click", "campaign", "ledger", "stock", "review", "address")
SUFFIX = {"ods": "di", "dim": "", "dwd": "di", "dws": "1d", "ads": "report", "rpt": "dashboard"}
PII_ENTITIES = ("user", "member", "address")
"""ODS tables of these entities are tagged PII in DataHub."""
INPUT_COUNTS = (1, 2, 3, 4, 5)
INPUT_WEIGHTS = (0.38, 0.27, 0.17, 0.11, 0.07)
"""How many tables one node joins (1-5), a power-law-like tail."""
HUB_EXPONENT = 1.3
"""Zipf exponent of input popularity: weight of the table ranked r is 1 / r**HUB_EXPONENT."""
SQL_KINDS = (("insert", 0.46), ("cte", 0.20), ("ctas", 0.10), ("multi", 0.08), ("nosql", 0.13), ("variable", 0.03))
"""How a node's daily job writes its table: plain INSERT OVERWRITE, a CTE, a CTAS temp table then
an insert, a multi-insert writing two tables, a non-SQL (MapReduce/Spark) job seen only through
ReadTableData/ChangeTableData audit events, or SQL whose table name is a variable (no lineage)."""
STYLES: dict[str, tuple[tuple[str, int], ...]] = {
    "insert": (("plain", 55), ("dynamic", 12), ("merge", 12), ("update_join", 6), ("unload", 15)),
    "cte": (("plain", 70), ("lake", 30)),
    "ctas": (("plain", 60), ("exchange", 25), ("clone", 15)),
}
"""Per SQL kind, how the script does its work and the share of nodes doing it that way (percent):
a MERGE or an UPDATE with a join instead of the INSERT, dynamic partitions, an UNLOAD of the result
to OSS, a lake file joined as ``parquet.`oss://...```, a staging table swapped in by EXCHANGE
PARTITION or CLONE TABLE (``generate.sqltext`` renders them)."""
PREAMBLES = (("none", 50), ("add_jar", 10), ("msck", 10), ("whoami", 5), ("desc", 10), ("show", 5), ("use", 10))
"""Statements before a script's work that move no data, and their share of scripts (percent)."""
EPILOGUES = (("none", 60), ("analyze", 20), ("lifecycle", 10), ("add_columns", 10))
"""Statements after a script's work: statistics and schema upkeep, no data moved."""
FIRST_NAMES = ("wei", "li", "fang", "min", "jing", "lei", "yan", "tao", "hui", "jun", "ling", "qiang",
               "xin", "bo", "mei", "hao", "yu", "chen", "ning", "rui", "ana", "ben", "carla", "dev",
               "emma", "farid", "grace", "hugo", "ines", "jon")
ROLES = ("analyst", "engineer", "steward", "auditor", "contractor")


@dataclass(frozen=True)
class Intent:
    """One thing that happens on the platform at a moment (a grant, a drop, a release, ...): the
    plan (``plan``) and the planted access changes (``effects``) make them, the writers deliver them."""

    time: datetime
    kind: str
    args: dict[str, Any]


@dataclass(frozen=True)
class Person:
    index: int
    login: str  # the readable name: DataHub corpuser, Dataphin userName
    uid: str  # Aliyun UID (DataWorks operator/owner)
    role: str
    dataphin_id: str

    @property
    def account(self) -> str:
        """The MaxCompute account name (RAM sub-account)."""
        return f"RAM${self.login}@{COMPANY}.example:sub"

    @property
    def user_id(self) -> str:
        return ids.aliyun_user(self.uid)


GUESTS = 2
"""Partner accounts outside the company: no login of theirs is in any event or in the alias
file; a DataWorks approval's ``granteeName`` is the only name their Aliyun UID ever gets."""


@dataclass(frozen=True)
class Guest:
    index: int
    uid: str  # Aliyun UID (the approval's granteeId)
    grantee_name: str  # the approval's granteeName, the only name of the UID

    @property
    def user_id(self) -> str:
        return ids.aliyun_user(self.uid)


def guests() -> list[Guest]:
    """The partner accounts: fixed (no draw from the model's random generator, so adding them
    changes nothing else of the platform)."""
    return [Guest(g, str(286_098_539_641_742_801 + g), f"RAM$partner_{COMPANY}:{FIRST_NAMES[-1 - g]}.guest{g}")
            for g in range(GUESTS)]


@dataclass
class TableSpec:
    index: int
    layer: str
    project: str
    name: str
    domain: str
    entity: str
    owner: int  # Person.index
    pii: bool = False
    node: int | None = None  # the node writing it
    readers: int = 0  # how many nodes read it (filled while picking inputs)
    planted: str = ""  # PLANTED group it belongs to ("" for the platform's own tables)

    @property
    def id(self) -> str:
        return ids.table(self.project, self.name)

    @property
    def qualified(self) -> str:
        return f"{self.project}.{self.name}"


@dataclass
class NodeSpec:
    node_id: int
    name: str
    kind: str  # one of SQL_KINDS
    targets: tuple[int, ...]  # TableSpec indexes written
    inputs: tuple[int, ...]  # TableSpec indexes read
    owner: int
    flow: int
    baseline: int | None
    minute: int  # start minute after 00:00 (upstream layers run first)
    temp: str | None = None  # the CTAS temp table name (kind ctas)
    style: str = "plain"  # STYLES: how a SQL kind does its work
    preamble: str = "none"  # PREAMBLES
    epilogue: str = "none"  # EPILOGUES
    planted: bool = False  # a node of a PLANTED group (planned on its own random stream)
    lake_reads: tuple[str, ...] = ()  # lake tables a Spark job writes that this node joins (generate.openlineage)

    @property
    def id(self) -> str:
        return ids.dataworks("Node", self.node_id)


@dataclass
class Platform:
    seed: int
    start: datetime
    days: int
    tables: list[TableSpec]
    nodes: list[NodeSpec]
    people: list[Person]
    roles: list[tuple[str, str, tuple[int, ...]]]  # (project, role name, table indexes its policy allows)
    flows: dict[int, str]
    baselines: dict[int, str]
    by_name: dict[str, TableSpec] = field(default_factory=dict)
    guests: list[Guest] = field(default_factory=guests)
    planted: dict[str, list[tuple[int, ...]]] = field(default_factory=dict)  # plant(): kind -> groups of tables
    scripts: dict[tuple, Any] = field(default_factory=dict, repr=False)  # sqltext.script's cache
    hub_changes: int = 0  # plan.hub_changes: columns added daily to the most-read tables
    planted_failures: int = 0  # plan.planted_breaks: columns dropped or renamed that break their readers
    job_settings: bool = True  # False (generate --no-job-settings): jobs name no node; instances frame their jobs
    partition_events: bool = False  # generate --partition-events: a ChangeTable ADD_PARTITION per table a run writes
    spark_reads: frozenset[str] = frozenset()  # tables the Spark jobs read (generate.openlineage): never broken

    def day(self, index: int) -> datetime:
        return self.start + timedelta(days=index)

    def table(self, index: int) -> TableSpec:
        return self.tables[index]


def _layer_sizes(n: int) -> list[int]:
    sizes = [max(2, round(n * share)) for _, share, _ in LAYERS]
    sizes[2] += n - sum(sizes)  # the rounding rest goes to dwd
    return sizes


def _zipf(size: int) -> list[float]:
    """Cumulative Zipf weights of ranks 1..size."""
    return list(accumulate(1.0 / (rank + 1) ** HUB_EXPONENT for rank in range(size)))


def _pick(rng: random.Random, candidates: list[int], cumulative: list[float], k: int) -> tuple[int, ...]:
    """k distinct candidates, weighted by a Zipf law over their rank (the list's order)."""
    chosen: list[int] = []
    while len(chosen) < min(k, len(candidates)):
        pick = candidates[bisect(cumulative, rng.random() * cumulative[-1])]
        if pick not in chosen:
            chosen.append(pick)
    return tuple(chosen)


def build(seed: int, tables: int, days: int, start: datetime) -> Platform:
    """The platform for ``seed``: the same arguments always give the same platform."""
    rng = random.Random(f"{seed}:model")
    n_people = max(8, min(400, tables // 8))
    people = [
        Person(i, f"{FIRST_NAMES[i % len(FIRST_NAMES)]}.{ENTITIES[(i // len(FIRST_NAMES)) % len(ENTITIES)]}{i}",
               str(1_100_000_000_000_000 + rng.randrange(10**15)), ROLES[min(i % 7, len(ROLES) - 1)],
               str(300_010_000 + i))
        for i in range(n_people)
    ]
    engineers = [p.index for p in people if p.role == "engineer"] or [0]
    specs: list[TableSpec] = []
    used: set[str] = set()
    for (layer, _share, project), size in zip(LAYERS, _layer_sizes(tables)):
        for _ in range(size):
            domain, entity = rng.choice(DOMAINS), rng.choice(ENTITIES)
            base = "_".join(part for part in (layer, domain, entity, SUFFIX[layer]) if part)
            name, n = base, 1
            while name in used:
                n += 1
                name = f"{base}_{n}"
            used.add(name)
            specs.append(TableSpec(len(specs), layer, project, name, domain, entity, rng.choice(engineers),
                                   pii=layer == "ods" and entity in PII_ENTITIES))
    by_layer: dict[str, list[int]] = {}
    for spec in specs:
        by_layer.setdefault(spec.layer, []).append(spec.index)
    flows = {41000 + i: f"wf_{d}" for i, d in enumerate(DOMAINS)}
    baselines = {117800000 + i: f"sla_{name}" for i, name in enumerate(("daily_core", "finance_close", "exec_dashboard"))}
    nodes: list[NodeSpec] = []
    order = [layer for layer, _, _ in LAYERS]
    popularity = {layer: rng.sample(by_layer[layer], len(by_layer[layer])) for layer in order}
    rank = {i: r for members in popularity.values() for r, i in enumerate(members)}
    claimed: set[int] = set()
    for level, layer in enumerate(order):
        # candidates ranked by popularity within their layer, nearer layers first at equal rank
        lower = sorted((i for low in order[:level] for i in popularity[low]),
                       key=lambda i: rank[i] + 0.5 * (level - order.index(specs[i].layer)))
        cumulative = _zipf(len(lower))
        for index in by_layer[layer]:
            if index in claimed:
                continue
            kind = "nosql" if layer == "ods" else rng.choices([k for k, _ in SQL_KINDS], [w for _, w in SQL_KINDS])[0]
            targets = [index]
            if kind == "multi":
                sibling = next((i for i in by_layer[layer] if i not in claimed and i != index), None)
                if sibling is None:
                    kind = "insert"
                else:
                    targets.append(sibling)
            claimed.update(targets)
            inputs: tuple[int, ...] = ()
            if lower:
                k = rng.choices(INPUT_COUNTS, INPUT_WEIGHTS)[0]
                inputs = _pick(rng, lower, cumulative, k)
            node_id = 700_200_000 + len(nodes)
            name = specs[index].name + ("_sync" if layer == "ods" else "_etl")
            flow = 41000 + DOMAINS.index(specs[index].domain)
            baseline = None
            if layer in ("ads", "rpt") or rng.random() < 0.1:
                baseline = 117800000 + (2 if layer == "rpt" else 1 if specs[index].domain == "finance" else 0)
            node = NodeSpec(node_id, name, kind, tuple(targets), inputs, specs[index].owner, flow, baseline,
                            minute=30 + 40 * level + rng.randrange(30),
                            temp=f"tmp_{name}" if kind == "ctas" else None)
            for t in targets:
                specs[t].node = len(nodes)
            for i in inputs:
                specs[i].readers += 1
            nodes.append(node)
    if len(nodes) > 10 and not any(n.kind == "variable" for n in nodes):
        # every platform has at least one script whose table name is a variable (no lineage)
        last = next(n for n in reversed(nodes) if n.kind == "insert")
        last.kind = "variable"
    _assign_styles(nodes)
    roles = []
    for project in WORKSPACES:
        in_project = [s.index for s in specs if s.project == project]
        roles.append((project, "role_reader", tuple(rng.sample(in_project, min(6, len(in_project))))))
        roles.append((project, "role_developer", ()))
    platform = Platform(seed, start, days, specs, nodes, people, roles, flows, baselines)
    plant(platform)
    platform.by_name = {s.name: s for s in platform.tables}
    return platform


PLANTED_FLOW = 41000 + len(DOMAINS)
"""The workflow of the planted pipelines (after every domain's: the others' DAG ids are unchanged)."""
PLANTED: tuple[tuple[str, tuple[tuple[str, str, tuple[int, ...]], ...]], ...] = (
    # (group kind, tables: (layer, name word, indexes within the group of the tables its node reads))
    ("unused", (("ods", "legacy", ()),)),
    ("unused", (("ods", "legacy", ()), ("dws", "legacy", (0,)))),
    ("cycle", (("ods", "loop", ()), ("dws", "loop", (0, 2)), ("ads", "loop", (1,)))),
    ("island", (("ods", "sandbox", ()), ("dwd", "sandbox", (0,)), ("ads", "sandbox", (1,)))),
)
"""The pipelines ``lineage hygiene`` must find (issue 33), each apart from the platform and the
others: a legacy sync written daily and read by nothing; a legacy sync whose daily aggregate is
read by nothing; a stock table and its report feeding each other (dws -> ads -> dws: a cycle);
a sandbox pipeline whose report only its owner downloads (an island). Every group is an island."""


def plant(platform: Platform) -> None:
    """Append the PLANTED pipelines' tables and nodes to the platform, from their own random
    stream: the platform's own tables, nodes and people are what they were without them."""
    rng = random.Random(f"{platform.seed}:hygiene")
    engineers = [p.index for p in platform.people if p.role == "engineer"] or [0]
    used = {t.name for t in platform.tables}
    order = [layer for layer, _, _ in LAYERS]
    projects = {layer: project for layer, _, project in LAYERS}
    platform.flows[PLANTED_FLOW] = "wf_legacy"
    for kind, members in PLANTED:
        domain, entity, owner = rng.choice(DOMAINS), rng.choice(ENTITIES), rng.choice(engineers)
        group: list[int] = []
        for layer, word, _ in members:
            base = "_".join(part for part in (layer, word, domain, entity, SUFFIX[layer]) if part)
            name, n = base, 1
            while name in used:
                n += 1
                name = f"{base}_{n}"
            used.add(name)
            group.append(len(platform.tables))
            platform.tables.append(TableSpec(len(platform.tables), layer, projects[layer], name, domain, entity,
                                             owner, planted=kind))
        for index, (layer, _, reads) in zip(group, members):
            inputs = tuple(group[r] for r in reads)
            name = platform.tables[index].name + ("_sync" if not inputs else "_etl")
            node = NodeSpec(700_200_000 + len(platform.nodes), name, "insert" if inputs else "nosql", (index,),
                            inputs, owner, PLANTED_FLOW, None, minute=30 + 40 * order.index(layer) + rng.randrange(30),
                            planted=True)
            platform.tables[index].node = len(platform.nodes)
            for i in inputs:
                platform.tables[i].readers += 1
            platform.nodes.append(node)
        platform.planted.setdefault(kind, []).append(tuple(group))


def _hashed(name: str, salt: str, table: tuple[tuple[str, int], ...]) -> str:
    """A weighted choice by a hash of the node's name (not the plan's random generator: adding a
    style does not change the platform's shape)."""
    roll = zlib.crc32(f"{salt}:{name}".encode()) % sum(w for _, w in table)
    for value, weight in table:
        if roll < weight:
            return value
        roll -= weight
    return table[-1][0]


def _assign_styles(nodes: list[NodeSpec]) -> None:
    """Style, preamble and epilogue of every SQL node; the first nodes of a kind take each
    non-plain choice once, so even a small platform runs every statement kind."""
    seen: dict[str, int] = {}
    sql_rank = 0
    for node in nodes:
        if node.kind in ("nosql", "variable"):
            continue
        rank = seen[node.kind] = seen.get(node.kind, -1) + 1
        styles = STYLES.get(node.kind, (("plain", 1),))
        forced = [s for s, _ in styles[1:]]
        node.style = forced[rank] if rank < len(forced) else _hashed(node.name, "style", styles)
        for attr, table in (("preamble", PREAMBLES), ("epilogue", EPILOGUES)):
            extra = [s for s, _ in table[1:]]
            setattr(node, attr, extra[sql_rank] if sql_rank < len(extra) else _hashed(node.name, attr, table))
        sql_rank += 1


def hub(platform: Platform) -> TableSpec:
    """The table most nodes read (of the platform's own)."""
    return max((t for t in platform.tables if not t.planted), key=lambda t: (t.readers, -t.index))
