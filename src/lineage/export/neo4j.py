"""Export the temporal graph to Neo4j (or any Bolt server speaking Cypher) with the official driver.

Only what changed since the last export to the same target is sent: the built graph is diffed
against the warehouse's export state (:mod:`lineage.export.state`). Writes are batched
``UNWIND $rows ... MERGE`` statements, each its own managed transaction (the driver retries
transient failures with backoff), with labels and relationship types from the fixed vocabulary
and every value a parameter. Order: relationship deletes, node upserts, relationship upserts,
node deletes, so a relationship never waits for a node that is not there yet.

A record the server cannot take (over FalkorDB's request limit, a value it cannot store, an
error from the server on that row: a failed batch is split in halves down to the row) is
rejected, journaled with its reason and named in the result; the rest is written, and the
result says the export was partial (``lineage export neo4j`` exits :data:`PARTIAL`).
"""

from __future__ import annotations

import os
import shutil
import time
from collections import Counter
from contextlib import contextmanager
from dataclasses import dataclass, field
from datetime import datetime, timezone
from pathlib import Path
from typing import Any, Callable, Iterator

from neo4j.exceptions import DriverError, Neo4jError, TransientError

from lineage.errors import LineageError, UsageError
from lineage.export import bulk as bulk_path
from lineage.export import diff, patience, records
from lineage.export.diff import Plan, node_state, rel_state
from lineage.export.dialect import DIALECTS, Dialect, DialectError, close_without_goodbye, detect, rendered_size
from lineage.export.records import MARKER_LABEL, Node, Rel, check_label, check_type
from lineage.export.state import ENDPOINT, NODE, REFUSED, REL, SERVER, ExportState, target_name
from lineage.store.runs import RunReport, new_run_id
from lineage.store.warehouse import Warehouse

Progress = Callable[[str, int, int], None]
"""``progress(phase, done, total)``: rows written so far out of the rows this run writes."""

MARKER_ID = "lineage"
PARTIAL = 3
"""Exit status of an export that wrote everything but the records it names as rejected
(DESIGN's 3: written, but incomplete)."""


class ExportError(UsageError, RuntimeError):
    """The export cannot go on (unreachable server, bad credentials, inconsistent graph): exit 2."""


class ExportInterrupted(ExportError):
    """The server failed mid-export after the driver's retries; what was written is journaled.
    The server failed, not the input: exit 1, and the message says how to resume."""

    exit_code = 1
    line = LineageError.line


BOLT_SCHEMES = ("bolt://", "bolt+s://", "bolt+ssc://", "neo4j://", "neo4j+s://", "neo4j+ssc://")


@dataclass(frozen=True)
class Target:
    uri: str
    user: str | None = None
    password: str | None = field(default=None, repr=False)
    database: str | None = None
    answer_seconds: float | None = patience.ANSWER_SECONDS
    """How long one request may wait for the server's answer before the export ends (None: forever)."""

    @classmethod
    def from_options(cls, uri: str, user: str | None, password_env: str | None, database: str | None,
                     answer_seconds: float | None = patience.ANSWER_SECONDS) -> "Target":
        """The target the CLI options name; the password only ever comes from the environment
        (``password_env``, default ``NEO4J_PASSWORD``; unset means no authentication)."""
        if not uri.startswith(BOLT_SCHEMES):
            raise ExportError(f"--uri must be a bolt:// or neo4j:// address, not {uri!r}")
        password = os.environ.get(password_env or "NEO4J_PASSWORD")
        if password_env and not password:
            raise ExportError(f"--password-env {password_env}: that environment variable is not set")
        return cls(uri, user, password or None, database, answer_seconds)


@dataclass
class ExportResult(RunReport):
    """What one export did; ``as_obj`` is ``export neo4j --json`` and ``exports/<target>/runs/<run>.json``."""

    target: str
    database: str | None
    dialect: str
    run_id: str
    dry_run: bool
    full: bool
    nodes: int
    relationships: int
    upserted_nodes: dict[str, int]
    upserted_relationships: dict[str, int]
    deleted_nodes: int
    deleted_relationships: int
    unchanged_nodes: int
    unchanged_relationships: int
    resumed_batches: int
    batches: int
    seconds: float
    notes: list[str]
    method: str = "bolt"
    """How the rows went: bolt, falkordb-bulk-loader, or neo4j-admin-import (files written, nothing sent)."""
    import_command: str | None = None
    """For neo4j-admin-import: the command that imports the files."""
    rejected: int = 0
    """Records the target could not take (not written; this run's and earlier unchanged ones)."""
    rejections: list[dict[str, Any]] = field(default_factory=list)
    """Each rejected record: kind, label (or type), id (or key, src, dst) and the reason."""

    @property
    def partial(self) -> bool:
        return self.rejected > 0


# --- the statements: labels and types are checked against the vocabulary, values are parameters ---


def upsert_nodes_query(label: str) -> str:
    return f"UNWIND $rows AS r MERGE (n:`{check_label(label)}` {{id: r.id}}) SET n = r.props RETURN count(*) AS n"


def upsert_rels_query(rel: str, src_label: str, dst_label: str) -> str:
    return (f"UNWIND $rows AS r MATCH (a:`{check_label(src_label)}` {{id: r.src}}) "
            f"MATCH (b:`{check_label(dst_label)}` {{id: r.dst}}) "
            f"MERGE (a)-[e:`{check_type(rel)}` {{key: r.key}}]->(b) SET e = r.props RETURN count(*) AS n")


def delete_rels_query(rel: str, src_label: str, dst_label: str) -> str:
    return (f"UNWIND $rows AS r MATCH (a:`{check_label(src_label)}` {{id: r.src}})"
            f"-[e:`{check_type(rel)}` {{key: r.key}}]->(b:`{check_label(dst_label)}` {{id: r.dst}}) "
            f"DELETE e RETURN count(*) AS n")


def delete_nodes_query(label: str) -> str:
    return f"UNWIND $rows AS r MATCH (n:`{check_label(label)}` {{id: r.id}}) DETACH DELETE n RETURN count(*) AS n"


MARKER_READ = f"OPTIONAL MATCH (m:`{MARKER_LABEL}` {{id: $id}}) RETURN m.run_id AS run_id"
PROBE_WRITE = f"CREATE (m:`{MARKER_LABEL}` {{id: $id}}) RETURN count(m) AS n"
PROBE_DELETE = f"MATCH (m:`{MARKER_LABEL}` {{id: $id}}) DELETE m RETURN count(*) AS n"
MARKER_WRITE = f"MERGE (m:`{MARKER_LABEL}` {{id: $id}}) SET m += $props RETURN m.run_id AS run_id"


# --- planning (pure, no server) ---


def plan(warehouse: str | Path, state: ExportState, full: bool = False, retry_rejected: bool = False) -> Plan:
    """:func:`lineage.export.diff.plan`, an inconsistent graph an :class:`ExportError`."""
    try:
        return diff.plan(warehouse, state, full, retry_rejected)
    except diff.MissingEndpoint as exc:
        raise ExportError(str(exc)) from None


def batches(rows: list[Any], size: int, request_bytes: int | None, weight: Callable[[Any], int]) -> Iterator[list[Any]]:
    """Consecutive runs of at most ``size`` rows and (when bounded) ``request_bytes`` rendered bytes."""
    batch: list[Any] = []
    used = 0
    for row in rows:
        cost = weight(row) if request_bytes else 0
        if batch and (len(batch) >= size or (request_bytes and used + cost > request_bytes)):
            yield batch
            batch, used = [], 0
        batch.append(row)
        used += cost
    if batch:
        yield batch


def _grouped(rows: list[Any], key: Callable[[Any], tuple[Any, ...]]) -> list[tuple[tuple[Any, ...], list[Any]]]:
    groups: dict[tuple[str, ...], list[Any]] = {}
    for row in rows:
        groups.setdefault(key(row), []).append(row)
    return sorted(groups.items())


# --- talking to the server ---


def connect(target: Target, retry_seconds: float) -> Any:
    """A verified driver. The probe is a managed transaction, so the driver itself retries an
    unreachable server with exponential backoff for up to ``retry_seconds``."""
    from neo4j import GraphDatabase
    from neo4j.exceptions import AuthError, Neo4jError, ServiceUnavailable

    auth = (target.user or "neo4j", target.password) if target.password else None
    driver = GraphDatabase.driver(target.uri, auth=auth, max_transaction_retry_time=retry_seconds,
                                  connection_acquisition_timeout=10, connection_timeout=10)
    try:
        with driver.session(database=target.database) as session:
            read(session, "RETURN 1 AS one")
        return driver
    except AuthError as exc:
        driver.close()
        raise ExportError(f"{target.uri}: authentication failed for user {target.user or 'neo4j'!r}: {exc.message}") from None
    except Neo4jError as exc:
        driver.close()
        raise ExportError(f"{target.uri}: the server refused the session: {exc.message or exc.code}"
                          f"{' (FalkorDB accepts only the user falkordb or no password)' if target.password else ''}") from None
    except (ServiceUnavailable, OSError) as exc:
        driver.close()
        reason = str(exc).strip().splitlines()[-1] if str(exc).strip() else type(exc).__name__
        raise ExportError(f"{target.uri}: server not reachable after {retry_seconds:g}s: {reason}") from None


@dataclass(frozen=True)
class Connection:
    """An open session on the target, the dialect it speaks, and the export run its marker names."""

    session: Any
    dialect: Dialect
    run_id: str | None


@contextmanager
def bolt_session(target: Target, retry_seconds: float, dialect: str, what: str, advice: str) -> Iterator[Connection]:
    """The one way every writer talks to the target: connect, pick the dialect (``auto``: ask the
    server), read the export marker; on the way out close the driver (FalkorDB: without GOODBYE).
    A server failure inside becomes :class:`ExportInterrupted` naming ``what`` stopped, then ``advice``;
    so does a request the server leaves unanswered for ``target.answer_seconds`` (:mod:`patience`)."""
    with patience.watched(target.answer_seconds):
        try:
            driver = connect(target, retry_seconds)
            try:
                with driver.session(database=target.database) as session:
                    chosen = DIALECTS[dialect] if dialect != "auto" else detect(lambda query: read(session, query))
                    if chosen.close_quietly:
                        close_without_goodbye()
                    yield Connection(session, chosen, read(session, MARKER_READ, id=MARKER_ID)[0]["run_id"])
            except (Neo4jError, DriverError) as exc:
                message = getattr(exc, "message", None) or str(exc).strip().splitlines()[-1]
                raise ExportInterrupted(f"{target.uri}: {what} stopped: {type(exc).__name__}: {message}. {advice}") from None
            finally:
                driver.close()
        except patience.ServerSilent:
            patience.quiet()
            raise ExportInterrupted(f"{target.uri}: {what} stopped: the server left a request unanswered for "
                                    f"{target.answer_seconds:g}s (--server-timeout). {advice}") from None


def _write(session: Any, query: str, rows: list[dict[str, Any]]) -> int:
    return write(session, query, rows=rows)[0]["n"]


def read(session: Any, query: str, **params: Any) -> list[dict[str, Any]]:
    """A managed read transaction. Every statement goes through one: FalkorDB picks the graph
    from auto-commit RUN metadata wrongly, but consistently for transactions."""
    with patience.answered():
        return session.execute_read(lambda tx: [r.data() for r in tx.run(query, **params)])


def write(session: Any, query: str, **params: Any) -> list[dict[str, Any]]:
    """A managed write transaction (retried by the driver on transient failures)."""
    with patience.answered():
        return session.execute_write(lambda tx: [r.data() for r in tx.run(query, **params)])


def export(
    warehouse: str | Path,
    target: Target,
    *,
    batch_size: int = 1000,
    dry_run: bool = False,
    full: bool = False,
    dialect: str = "auto",
    retry_seconds: float = 60.0,
    progress: Progress | None = None,
    bulk: str = "auto",
    redis_url: str | None = None,
    bulk_min_rows: int = bulk_path.BULK_MIN_ROWS,
    retry_rejected: bool = False,
) -> ExportResult:
    """Bring the target up to date with the built graph (see the module docstring); ``bulk``
    (auto, always, never) picks the bulk path for an empty database (:mod:`lineage.export.bulk`);
    ``retry_rejected`` sends again the records earlier runs rejected."""
    started = time.monotonic()
    wh = Warehouse.at(warehouse)
    state = ExportState.load(wh.exports / target_name(target.uri, target.database))
    notes: list[str] = []
    resumed = state.journaled
    if resumed:
        notes.append(f"resuming an interrupted export: {resumed} batch(es) were already written")
    run_id = new_run_id()

    if dry_run:
        work = plan(wh.root, state, full, retry_rejected)
        notes.append("dry run: counts are against this warehouse's export state; nothing was sent")
        return _result(target, dialect, run_id, True, full, work, 0, resumed, started, notes)
    if bulk == "always" and dialect == "neo4j":  # the import files need no server
        try:
            return _neo4j_import(wh, target, state, run_id, plan(wh.root, state, True), resumed, started, notes)
        except bulk_path.BulkError as exc:
            raise ExportError(str(exc)) from None
        finally:
            state.close()

    try:
        with bolt_session(target, retry_seconds, dialect, "the export",
                          "What was written is recorded; run the same command again to resume.") as bolt:
            session, chosen, on_server = bolt.session, bolt.dialect, bolt.run_id
            if chosen is DIALECTS["falkordb"] and target.database:
                notes.append("FalkorDB's Bolt endpoint writes to its default graph `falkordb` whatever --database says")
            if on_server != state.run_id:
                notes.append(f"the target holds export run {on_server or 'none'} but this warehouse last wrote "
                             f"{state.run_id or 'none'}: exporting everything")
                state.forget()
                full = True
            work = plan(wh.root, state, full, retry_rejected)
            state.keep_rejected(work.skipped)
            send = work
            if bulk_path.wanted(bulk, bulk_min_rows, work.nodes + work.relationships, on_server,
                                lambda query: read(session, query)):
                if state.size:  # an empty target: send everything whatever the state says
                    state.forget()
                    work = plan(wh.root, state, True, retry_rejected)
                if chosen is DIALECTS["neo4j"]:
                    return _neo4j_import(wh, target, state, run_id, work, resumed, started, notes)
                send = _falkordb_bulk(session, target, redis_url, bulk, work, state, wh, notes)
            if work.total == 0 and not full and state.run_id:
                notes.append("the target is up to date: nothing was sent")
                return _result(target, chosen.name, state.run_id, False, full, work, 0, resumed, started, notes)
            ensure_schema(session, chosen, [*work.labels, MARKER_LABEL], work.rel_types)
            written, rejected = _apply(session, chosen, send, state, batch_size, progress)
            write(session, MARKER_WRITE, id=MARKER_ID, props=chosen.encode({
                "run_id": run_id, "warehouse": str(wh.root), "nodes": work.nodes,
                "relationships": work.relationships,
                "exported_at": datetime.now(timezone.utc).strftime(records.TIME_FORMAT)}))
            state.save(run_id)
    except bulk_path.BulkInterrupted as exc:
        raise ExportInterrupted(f"{target.uri}: {exc}") from None
    except (DialectError, bulk_path.BulkError) as exc:
        raise ExportError(str(exc)) from None
    finally:
        state.close()
    result = _result(target, chosen.name, run_id, False, full, work, written, resumed, started, notes, rejected)
    result.method = "falkordb-bulk-loader" if send is not work else "bolt"
    result.log(wh.exports / target_name(target.uri, target.database) / "runs")
    return result


@dataclass
class Step:
    """One statement and the plan items it writes (encoded per row when sent)."""

    phase: str
    query: str
    items: list[Any]
    payload: Callable[[Any], dict[str, Any]]
    journal: Callable[[Any], dict[str, Any]]
    expect_all: bool


def steps(work: Plan) -> Iterator[Step]:
    """The plan as statements in write order, the upserts a batch of the graph at a time (read
    while sending: only one batch of records is held)."""
    deleted = lambda r: {**r, "digest": None}  # noqa: E731
    for (rel, src_label, dst_label), rows in _grouped(work.rel_deletes, lambda r: (r["label"], r["src_label"], r["dst_label"])):
        yield Step(f"delete {rel}", delete_rels_query(rel, src_label, dst_label), rows,
                   lambda r: {"src": r["src"], "key": r["key"], "dst": r["dst"]}, deleted, False)
    for _, batch in work.records():
        for (_, name, src_label, dst_label), items in _grouped(batch, records.home):
            if src_label is None:
                yield Step(f"write {name}", upsert_nodes_query(name), items, lambda n: {"id": n.id, "props": n.props},
                           node_state, True)
            else:
                yield Step(f"write {name}", upsert_rels_query(name, src_label, dst_label), items,
                           lambda r: {"src": r.src, "dst": r.dst, "key": r.key, "props": r.props}, rel_state, True)
    for (label,), rows in _grouped(work.node_deletes, lambda r: (r["label"],)):
        yield Step(f"delete {label}", delete_nodes_query(label), rows, lambda r: {"id": r["key"]}, deleted, False)


def encoded(dialect: Dialect, step: Step, item: Any, limit: int | None) -> tuple[dict[str, Any], int]:
    """The parameter row of ``item`` and its rendered size; :class:`DialectError` when the
    server cannot take it (an id it cannot look up, a value it cannot store, over the request limit)."""
    for value in _ids(item):
        dialect.check_id(value)
    row = dialect.encode(step.payload(item))
    size = weight(row) if limit else 0
    if limit and size > limit:
        raise DialectError(f"needs {size} bytes, over the {dialect.name} request limit of {limit}")
    return row, size


def weight(row: dict[str, Any]) -> int:
    return rendered_size(row) + 2


def request_limit(dialect: Dialect, query: str) -> int | None:
    return dialect.request_bytes - len(query.encode()) - 16 if dialect.request_bytes else None


def _fatal(exc: Neo4jError) -> bool:
    """A server error about the session, not the row (transient after the driver's retries,
    refused credentials or permissions): it stops the export instead of rejecting every row."""
    return isinstance(exc, TransientError) or str(exc.code or "").startswith("Neo.ClientError.Security")


def _apply(session: Any, dialect: Dialect, work: Plan, state: ExportState, batch_size: int,
           progress: Progress | None) -> tuple[int, list[dict[str, Any]]]:
    """Send the plan; every committed batch goes to the journal before the next one is sent.
    Returns the batches written and the records rejected (each journaled as it is rejected)."""
    done, count, total = 0, 0, work.total
    rejected: list[dict[str, Any]] = []
    lost: dict[str, str] = {}  # nodes rejected in this run and not on the target: id -> reason

    def reject(step: Step, item: Any, reason: str, cause: str) -> None:
        nonlocal done
        row = {**step.journal(item), "reason": reason, "cause": cause}
        state.reject([row])
        rejected.append(row)
        if row["kind"] == NODE and not state.holds_node(row["key"]):
            lost[row["key"]] = reason
        done += 1

    def send(step: Step, chunk: list[tuple[Any, dict[str, Any], int]]) -> None:
        """Write ``chunk``; when the server fails it, split it in halves down to the row it refuses."""
        nonlocal done, count
        try:
            written = _write(session, step.query, [row for _, row, _ in chunk])
        except Neo4jError as exc:
            if _fatal(exc):
                raise
            if len(chunk) == 1:
                reject(step, chunk[0][0], f"the server refused it: {exc.code}: {exc.message}", SERVER)
                return
            half = len(chunk) // 2
            send(step, chunk[:half])
            send(step, chunk[half:])
            return
        if step.expect_all and written != len(chunk):
            raise ExportError(f"{step.phase}: the server wrote {written} of {len(chunk)} rows "
                              "(a node it should hold is missing; run again with --full)")
        state.record([step.journal(item) for item, _, _ in chunk])
        done += len(chunk)
        count += 1

    for step in steps(work):
        limit = request_limit(dialect, step.query)
        pairs = []
        for item in step.items:
            end = next((e for e in ("src", "dst") if getattr(item, e) in lost), None) if isinstance(item, Rel) else None
            if end:  # its MATCH would find no node: the rows would not be written
                reject(step, item, f"its {end} node was rejected ({lost[getattr(item, end)]})", ENDPOINT)
                continue
            try:
                row, size = encoded(dialect, step, item, limit)
            except DialectError as exc:
                reject(step, item, str(exc), REFUSED)
                continue
            pairs.append((item, row, size))
        for chunk in batches(pairs, batch_size, limit, lambda triple: triple[2]):
            send(step, chunk)
            if progress:
                progress(step.phase, done, total)
    return count, rejected


def named(row: dict[str, Any]) -> dict[str, Any]:
    """A rejected record as the result names it (``--json``'s ``rejections``)."""
    if row["kind"] == NODE:
        return {"kind": NODE, "label": row["label"], "id": row["key"], "reason": row["reason"]}
    return {"kind": REL, "type": row["label"], "key": row["key"], "src": row["src"], "dst": row["dst"],
            "reason": row["reason"]}



def _ids(item: Any) -> tuple[str, ...]:
    if isinstance(item, Node):
        return (item.id,)
    if isinstance(item, Rel):
        return (item.src, item.dst)
    return ()


def ensure_schema(session: Any, dialect: Dialect, labels: list[str], rel_types: list[str]) -> list[str]:
    statements = dialect.schema(lambda query: read(session, query), labels, rel_types)
    for statement in statements:
        write(session, statement)
    return statements


def _bulk_state(state: ExportState, work: Plan, inexact: set[tuple[str, str]]) -> None:
    """The state after a bulk load: every row, but those the loader could not store exactly."""
    import pyarrow.compute as pc

    from lineage.export.state import STATE_COLUMNS

    sent = work.sent
    if inexact:
        sent = sent.filter(pc.invert(diff.among(sent, inexact)))
    state.forget()
    state.hold(sent.select(list(STATE_COLUMNS)))


def _falkordb_bulk(session: Any, target: Target, redis_url: str | None, mode: str, work: Plan, state: ExportState,
                   wh: Warehouse, notes: list[str]) -> Plan:
    """Load ``work`` into an empty FalkorDB over its Redis port; what is left to send over Bolt."""
    import pyarrow.compute as pc

    sent = work.sent
    for key in sent.filter(pc.equal(sent.column("kind"), NODE)).column("key").to_pylist():
        DIALECTS["falkordb"].check_id(key)
    counts = Counter({row["values"]: row["counts"] for row in pc.value_counts(sent.column("kind")).to_pylist()})
    directory = wh.exports / target_name(target.uri, target.database) / "falkordb-bulk"
    try:
        files = bulk_path.falkordb_files(directory, work)
        client = bulk_path.open_redis(target.uri, redis_url, target.password,
                                      lambda probe: write(session, PROBE_WRITE, id=probe),
                                      lambda probe: write(session, PROBE_DELETE, id=probe), target.answer_seconds)
    except bulk_path.BulkUnavailable as exc:
        shutil.rmtree(directory, ignore_errors=True)
        if mode == "always":
            raise
        notes.append(f"bulk load not possible, exporting over Bolt: {exc}")
        return work
    try:
        bulk_path.falkordb_load(client, directory, files, counts[NODE], counts[REL])
    finally:
        client.close()
    for statement, params, count in bulk_path.value_fixes(files):
        fixed = write(session, statement, **params)[0]["n"]
        if fixed != count:
            raise ExportError(f"{statement}: set {fixed} values, not {count}")
    _bulk_state(state, work, files.inexact)
    notes.append(f"bulk-loaded {counts[NODE]} nodes and {counts[REL]} relationships with "
                 "falkordb-bulk-loader" + (f"; {len(files.inexact)} row(s) it cannot store exactly were sent again "
                                           "over Bolt" if files.inexact else ""))
    return work.only(files.inexact)


def _neo4j_import(wh: Warehouse, target: Target, state: ExportState, run_id: str, work: Plan, resumed: int,
                  started: float, notes: list[str]) -> ExportResult:
    """Write the neo4j-admin import files (with the marker of ``run_id``) and the state they make true."""
    marker = {"id": MARKER_ID, "run_id": run_id, "warehouse": str(wh.root), "nodes": work.nodes,
              "relationships": work.relationships, "exported_at": datetime.now(timezone.utc).strftime(records.TIME_FORMAT)}
    directory = wh.exports / target_name(target.uri, target.database) / "neo4j-import"
    files = bulk_path.neo4j_import(directory, work, marker, target.database or "neo4j")
    schema = DIALECTS["neo4j"].schema(lambda query: [], [*work.labels, MARKER_LABEL], work.rel_types)
    (directory / "schema.cypher").write_text("".join(f"{statement};\n" for statement in schema), encoding="utf-8")
    _bulk_state(state, work, files.inexact)
    state.save(run_id)
    notes.append(f"nothing was sent: wrote neo4j-admin import files for {files.rows - 1} rows to {directory}; stop the "
                 "database, run the import command (it replaces the database's content), start it, create the constraints "
                 "with `cypher-shell -f schema.cypher` from that directory, then run this export again: it is incremental" + (f" and sends the {len(files.inexact)} row(s) the CSV format cannot carry "
                                              "exactly" if files.inexact else ""))
    result = _result(target, "neo4j", run_id, False, True, work, 0, resumed, started, notes)
    result.method, result.import_command = "neo4j-admin-import", files.command()
    result.log(wh.exports / target_name(target.uri, target.database) / "runs")
    return result


def _result(target: Target, dialect: str, run_id: str, dry_run: bool, full: bool, work: Plan, batches_written: int,
            resumed: int, started: float, notes: list[str], rejected: list[dict[str, Any]] | None = None) -> ExportResult:
    """The counts of a run: written excludes what this run rejected; unchanged excludes the
    earlier rejections it skipped; ``rejected`` counts both."""
    fresh = {(r["kind"], r["key"]) for r in rejected or ()}
    new = Counter((r["kind"], r["label"]) for r in rejected or () if r.get("digest") is not None)  # upserts, not deletes
    upserted = work.upserted_counts()
    sent: Counter[str] = Counter()
    for (kind, _), n in upserted.items():
        sent[kind] += n
    skipped = Counter(r["kind"] for r in work.skipped)
    return ExportResult(
        target=target.uri, database=target.database, dialect=dialect, run_id=run_id, dry_run=dry_run, full=full,
        nodes=work.nodes, relationships=work.relationships,
        upserted_nodes=_written(upserted, new, NODE),
        upserted_relationships=_written(upserted, new, REL),
        deleted_nodes=sum((NODE, r["key"]) not in fresh for r in work.node_deletes),
        deleted_relationships=sum((REL, r["key"]) not in fresh for r in work.rel_deletes),
        unchanged_nodes=work.nodes - sent[NODE] - skipped[NODE],
        unchanged_relationships=work.relationships - sent[REL] - skipped[REL],
        resumed_batches=resumed, batches=batches_written, seconds=round(time.monotonic() - started, 3), notes=notes,
        rejected=len(work.skipped) + len(fresh), rejections=[named(r) for r in [*work.skipped, *(rejected or ())]],
    )


def _written(upserted: Counter[tuple[str, str]], rejected: Counter[tuple[str, str]], kind: str) -> dict[str, int]:
    """Records of ``kind`` upserted per label (or type), less those this run rejected."""
    out = {label: n - rejected[(kind, label)] for (k, label), n in upserted.items() if k == kind}
    return dict(sorted((label, n) for label, n in out.items() if n))
