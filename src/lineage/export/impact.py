"""Precomputed answers in the exported graph (``lineage export neo4j --with-impact``).

Variable-length Cypher over a whole platform is slow in a browser (and FalkorDB's planner makes
some shapes very slow: see cypher/README.md), so the export can also write what our own engine
already knows, turning the Browser's heaviest questions into one- or two-hop lookups:

- ``(:Change)-[:AFFECTS {distance, label}]->(x)`` for every vertex each change of the window
  affects (the one-pass blast radius of :mod:`lineage.analysis.blast`, each change on the graph
  one instant before it), and on each Change its ``impact_score``, ``affected_count`` and
  ``impact_rank`` (1 = the window's highest score);
- on each Table, as of the window's end: ``downstream_tables`` (tables reached along FEEDS),
  ``readers`` (jobs and nodes reading it), ``sensitive_reached`` (ids of the sensitive marks
  propagated into it, :mod:`lineage.analysis.propagation`);
- on the export marker, ``impact_since`` / ``impact_until`` / ``impact_changes``: the window.

Re-exports replace all of it (every AFFECTS and summary is cleared first), so it is idempotent
like the rest of the export. Labels come from the fixed vocabulary; every value is a parameter.
"""

from __future__ import annotations

from collections import defaultdict, deque
from dataclasses import dataclass
from datetime import datetime
from pathlib import Path
from typing import Any, Iterable

from lineage.export.records import AFFECTS_REL, CHANGE_LABEL, MARKER_LABEL, check_label, check_type

CHANGE_PROPS = ("impact_score", "affected_count", "impact_rank")
TABLE_PROPS = ("downstream_tables", "readers", "sensitive_reached")
MARKER_PROPS = ("impact_since", "impact_until", "impact_changes")
CLEAR_BATCH = 5000


@dataclass(frozen=True)
class ImpactRows:
    """What ``--with-impact`` writes, as parameter rows."""

    since: str | None
    until: str | None
    changes: list[dict[str, Any]]  # {id, score, count, rank}
    affects: list[dict[str, Any]]  # {change, id, label, distance}
    tables: list[dict[str, Any]]  # {id, downstream_tables, readers, sensitive_reached}


def _stamp(moment: datetime | None) -> str | None:
    return moment.strftime("%Y-%m-%dT%H:%M:%S.%fZ") if moment else None  # the export's fixed width


def table_summaries(vertices: list[dict[str, Any]], edges: list[dict[str, Any]], moment: datetime | None,
                    until: Any) -> list[dict[str, Any]]:
    """Per live Table at ``moment`` (now: open intervals between live vertices): the tables
    downstream along FEEDS, the readers, and the sensitive marks propagated into it."""
    from lineage.analysis.propagation import propagate
    from lineage.graph.api import exists_at, valid_at

    live = {v["id"] for v in vertices if (exists_at(v, moment) if moment else v["deleted_at"] is None)}
    feeds: dict[str, set[str]] = defaultdict(set)
    readers: dict[str, set[str]] = defaultdict(set)
    for e in edges:
        if not (valid_at(e, moment) if moment else e["valid_to"] is None) or e["src"] not in live or e["dst"] not in live:
            continue
        if e["relationship"] == "FEEDS":
            feeds[e["src"]].add(e["dst"])
        elif e["relationship"] == "READS":
            readers[e["dst"]].add(e["src"])
    marks: dict[str, set[str]] = defaultdict(set)
    for p in propagate(vertices, edges, until):
        marks[p.table].add(p.tag)
    out = []
    for table in sorted(v["id"] for v in vertices if v["label"] == "Table" and v["id"] in live):
        seen, queue = {table}, deque([table])
        while queue:
            for nxt in feeds[queue.popleft()] - seen:
                seen.add(nxt)
                queue.append(nxt)
        out.append({"id": table, "downstream_tables": len(seen) - 1, "readers": len(readers[table]),
                    "sensitive_reached": sorted(marks[table])})
    return out


def impact_rows(warehouse: str | Path, since: Any = None, until: Any = None, engine: str = "auto",
                spark: Any = None) -> ImpactRows:
    """The window's ranked blast radius (every affected vertex) and the Table summaries at its end."""
    from lineage.analysis.api import blast
    from lineage.graph.api import load_rows, to_time
    from lineage.graph.reports import ids_of

    ranked = blast(warehouse, since=since, until=until, engine=engine, spark=spark, affected=None)
    changes, affects = [], []
    for rank, impact in enumerate(ranked, 1):
        # every report of one change (lineage.graph.reports) is a Change node: each gets its rank
        changes.extend({"id": i, "score": impact.score, "count": impact.count, "rank": rank}
                       for i in ids_of(impact.change_id, impact.reported_by))
        affects.extend({"change": impact.change_id, "id": a.id, "label": a.label, "distance": a.distance}
                       for a in impact.affected)
    vertices, edges = load_rows(warehouse)
    moment = to_time(until)
    return ImpactRows(_stamp(to_time(since)), _stamp(moment), changes, affects,
                      table_summaries(vertices, edges, moment, until))


# --- the statements ---

CLEAR_AFFECTS = (f"MATCH (:`{CHANGE_LABEL}`)-[a:`{AFFECTS_REL}`]->() WITH a LIMIT {CLEAR_BATCH} "
                 "DELETE a RETURN count(*) AS n")
CLEAR_CHANGES = (f"MATCH (c:`{CHANGE_LABEL}`) WHERE c.impact_rank IS NOT NULL "
                 + "SET " + ", ".join(f"c.{p} = null" for p in CHANGE_PROPS) + " RETURN count(*) AS n")
CLEAR_TABLES = ("MATCH (t:`Table`) WHERE t.downstream_tables IS NOT NULL "
                + "SET " + ", ".join(f"t.{p} = null" for p in TABLE_PROPS) + " RETURN count(*) AS n")
WRITE_CHANGES = (f"UNWIND $rows AS r MATCH (c:`{CHANGE_LABEL}` {{id: r.id}}) "
                 "SET c.impact_score = r.score, c.affected_count = r.count, c.impact_rank = r.rank RETURN count(*) AS n")
WRITE_TABLES = ("UNWIND $rows AS r MATCH (t:`Table` {id: r.id}) SET t.downstream_tables = r.downstream_tables, "
                "t.readers = r.readers, t.sensitive_reached = r.sensitive_reached RETURN count(*) AS n")
WRITE_MARKER = (f"MATCH (m:`{MARKER_LABEL}` {{id: $id}}) SET m.impact_since = $since, m.impact_until = $until, "
                "m.impact_changes = $changes RETURN count(*) AS n")


def write_affects_query(label: str) -> str:
    return (f"UNWIND $rows AS r MATCH (c:`{CHANGE_LABEL}` {{id: r.change}}) MATCH (x:`{check_label(label)}` {{id: r.id}}) "
            f"CREATE (c)-[:`{check_type(AFFECTS_REL)}` {{distance: r.distance, label: r.label}}]->(x) RETURN count(*) AS n")


def _chunks(rows: list[dict[str, Any]], dialect: Any, query: str, batch_size: int) -> Iterable[list[dict[str, Any]]]:
    from lineage.export.neo4j import batches, request_limit, weight

    encoded = [dialect.encode(r) for r in rows]
    return batches(encoded, batch_size, request_limit(dialect, query), weight)


def write_impact(session: Any, dialect: Any, rows: ImpactRows, batch_size: int, marker_id: str) -> dict[str, int]:
    """Replace the precomputed answers on the server with ``rows``; counts of what was written.
    A row the server could not match (a vertex the export did not send) stops with an error."""
    from lineage.export.neo4j import ExportError, write

    while write(session, CLEAR_AFFECTS)[0]["n"]:
        pass
    write(session, CLEAR_CHANGES)
    write(session, CLEAR_TABLES)
    written = {"affects": 0, "changes": 0, "tables": 0}
    steps: list[tuple[str, str, list[dict[str, Any]]]] = [("changes", WRITE_CHANGES, rows.changes),
                                                           ("tables", WRITE_TABLES, rows.tables)]
    by_label: dict[str, list[dict[str, Any]]] = defaultdict(list)
    for row in rows.affects:
        by_label[row["label"]].append(row)
    steps += [("affects", write_affects_query(label), group) for label, group in sorted(by_label.items())]
    for kind, query, group in steps:
        for chunk in _chunks(group, dialect, query, batch_size):
            n = write(session, query, rows=chunk)[0]["n"]
            if n != len(chunk):
                raise ExportError(f"--with-impact: the server matched {n} of {len(chunk)} {kind} rows "
                                  "(a vertex the export should have sent is missing; run again with --full)")
            written[kind] += n
    write(session, WRITE_MARKER, **dialect.encode(
        {"id": marker_id, "since": rows.since, "until": rows.until, "changes": len({c["rank"] for c in rows.changes})}))
    return written



def export_impact(warehouse: str | Path, target: Any, *, since: Any = None, until: Any = None, batch_size: int = 1000,
                  dialect: str = "auto", retry_seconds: float = 60.0, engine: str = "auto",
                  spark: Any = None) -> dict[str, Any]:
    """After an export to ``target``: compute the window's answers and replace them on the server.
    Returns what was written (``export neo4j --json`` prints it under ``impact``)."""
    from lineage.export.neo4j import MARKER_ID, ExportError, bolt_session

    rows = impact_rows(warehouse, since, until, engine, spark)
    with bolt_session(target, retry_seconds, dialect, "--with-impact",
                      "Run the same command again: it replaces what was written.") as bolt:
        if not bolt.run_id:
            raise ExportError(f"{target.uri}: --with-impact needs the exported graph there first")
        written = write_impact(bolt.session, bolt.dialect, rows, batch_size, MARKER_ID)
    return {"since": rows.since, "until": rows.until, **written}
