"""``lineage export neo4j`` and ``lineage export openlineage``: the built graph sent to a graph
database, or its job runs to an OpenLineage consumer. The commands parse options, call
:mod:`lineage.export` and print; registered on the root group by :mod:`lineage.cli`.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

import click
from rich.table import Table

from lineage.cli.answers import ENGINE_CHOICE
from lineage.export.patience import ANSWER_SECONDS
from lineage.render.progress import Callback
from lineage.render.escape import terminal
from lineage.render.terminal import console, err, say


@click.group("export")
def export_group() -> None:
    """Send the built graph to a graph database, or its job runs to an OpenLineage consumer."""


@export_group.command("neo4j")
@click.option("--warehouse", required=True, type=click.Path(path_type=Path), help="Warehouse directory.")
@click.option("--uri", required=True, envvar="NEO4J_URI", metavar="bolt://HOST:PORT",
              help="Bolt address of the server (or $NEO4J_URI).")
@click.option("--user", envvar="NEO4J_USER", default="neo4j", show_default=True, help="User name (or $NEO4J_USER).")
@click.option("--password-env", "password_env", metavar="VAR",
              help="Environment variable holding the password (default NEO4J_PASSWORD; unset means no auth).")
@click.option("--database", metavar="NAME",
              help="Database name; default: the server's default (FalkorDB over Bolt always uses its graph `falkordb`).")
@click.option("--batch-size", type=click.IntRange(1, 100_000), default=1000, show_default=True,
              help="Rows per transaction.")
@click.option("--dialect", type=click.Choice(["auto", "neo4j", "falkordb"]), default="auto", show_default=True,
              help="Server kind (auto asks the server).")
@click.option("--full", is_flag=True, help="Send every node and relationship, not only what changed.")
@click.option("--dry-run", is_flag=True, help="Print what would be sent (against the local export state); send nothing.")
@click.option("--retry-seconds", type=click.FloatRange(0, 3600), default=60.0, show_default=True,
              help="How long to retry an unreachable server or a transient failure.")
@click.option("--server-timeout", "server_timeout", type=click.FloatRange(1, 86400), default=ANSWER_SECONDS, show_default=True,
              help="Seconds one request may wait for the server's answer; a server silent that long ends the export "
                   "(exit 1, resumable).")
@click.option("--bulk", type=click.Choice(["auto", "always", "never"]), default="auto", show_default=True,
              help="Full export of an empty database through its bulk loader (Neo4j: writes neo4j-admin import files; "
                   "FalkorDB: falkordb-bulk-loader); auto from 100,000 rows (see docs/neo4j.md).")
@click.option("--redis-url", envvar="FALKORDB_REDIS_URL", metavar="redis://HOST:PORT",
              help="FalkorDB's Redis address for the bulk loader (or $FALKORDB_REDIS_URL; default: port 6379 of the Bolt host).")
@click.option("--with-impact", is_flag=True,
              help="Also write the window's blast radius as (:Change)-[:AFFECTS]->(x) and per-table summaries "
                   "(replaced on every run; see docs/neo4j.md).")
@click.option("--retry-rejected", is_flag=True,
              help="Send again the records earlier runs rejected (otherwise they are named, not resent, while unchanged).")
@click.option("--since", metavar="DATE", help="With --with-impact: changes at or after this time.")
@click.option("--until", metavar="DATE", help="With --with-impact: changes before this time (summaries as of then).")
@click.option("--engine", type=ENGINE_CHOICE, default="auto", show_default=True, help="With --with-impact: the engine.")
@click.option("--json", "as_json", is_flag=True, help="Print the summary as one JSON document on stdout.")
def export_neo4j(warehouse: Path, uri: str, user: str, password_env: str | None, database: str | None, batch_size: int,
                 dialect: str, full: bool, dry_run: bool, retry_seconds: float, server_timeout: float, bulk: str, redis_url: str | None,
                 with_impact: bool, retry_rejected: bool, since: str | None, until: str | None, engine: str,
                 as_json: bool) -> None:
    """Export the temporal graph over Bolt: incremental, idempotent, resumable (see docs/neo4j.md).
    Exits 3 when records the server could not take were rejected (named on stderr); the rest is written."""
    from lineage.export.impact import export_impact
    from lineage.export.neo4j import PARTIAL, Target, export

    if (since or until) and not with_impact:
        raise click.UsageError("--since/--until choose the window of --with-impact")

    target = Target.from_options(uri, user, password_env, database, server_timeout)
    if not target.password and not dry_run:
        say(f"no password in ${password_env or 'NEO4J_PASSWORD'}: connecting without authentication")
    with _export_progress(not as_json) as progress:
        result = export(warehouse, target, batch_size=batch_size, dry_run=dry_run, full=full, dialect=dialect,
                        retry_seconds=retry_seconds, progress=progress, bulk=bulk, redis_url=redis_url,
                        retry_rejected=retry_rejected)
    impact = None
    if with_impact and not result.dry_run:
        if result.import_command:
            raise click.UsageError("--with-impact writes over Bolt: load the import files first, then run "
                                   "`export neo4j --with-impact` again")
        impact = export_impact(warehouse, target, since=since, until=until, batch_size=batch_size, dialect=dialect,
                               retry_seconds=retry_seconds, engine=engine)
    if as_json:
        click.echo(json.dumps({**json.loads(result.as_json()), "impact": impact}) if impact else result.as_json())
        if result.partial:
            sys.exit(PARTIAL)
        return
    for note in result.notes:
        say(f"export: {note}")
    out = console()
    verb = "would write" if result.dry_run else "wrote"
    table = Table(title=f"export {result.run_id} to {result.target} ({result.dialect}"
                        f"{', ' + result.database if result.database else ''})")
    for column in ("kind", "in graph", verb, "unchanged", "deleted" if not result.dry_run else "would delete", "rejected"):
        table.add_column(column, justify="left" if column == "kind" else "right")
    rejected = {kind: sum(r["kind"] == kind for r in result.rejections) for kind in ("node", "rel")}
    table.add_row("nodes", str(result.nodes), str(sum(result.upserted_nodes.values())), str(result.unchanged_nodes),
                  str(result.deleted_nodes), str(rejected["node"]))
    table.add_row("relationships", str(result.relationships), str(sum(result.upserted_relationships.values())),
                  str(result.unchanged_relationships), str(result.deleted_relationships), str(rejected["rel"]))
    out.print(table)
    if result.import_command:
        click.echo(result.import_command)
    elif not result.dry_run:
        say(f"export: {result.batches} batch(es) in {result.seconds:.1f}s")
    if impact:
        say(f"export: impact of {impact['changes']} change(s) [{impact['since'] or '-'}, {impact['until'] or '-'}): "
            f"{impact['affects']} AFFECTS, {impact['tables']} table summaries")
    if result.partial:
        _say_rejected(result.rejections)
        sys.exit(PARTIAL)


@export_group.command("openlineage")
@click.option("--warehouse", required=True, type=click.Path(path_type=Path), help="Warehouse directory.")
@click.option("--out", type=click.Path(path_type=Path, dir_okay=False), help="Write the events to this JSON Lines file.")
@click.option("--url", metavar="http(s)://HOST/api/v1/lineage", help="POST the events to this OpenLineage endpoint.")
@click.option("--since", metavar="ISO", help="Events at or after this time.")
@click.option("--until", metavar="ISO", help="Events before this time.")
@click.option("--api-key-env", default="OPENLINEAGE_API_KEY", show_default=True, metavar="VAR",
              help="Environment variable holding the endpoint's bearer token (unset: no Authorization header).")
@click.option("--retry-seconds", type=click.FloatRange(0, 3600), default=60.0, show_default=True,
              help="How long to retry an unreachable or failing endpoint before stopping (a re-run resumes).")
@click.option("--json", "as_json", is_flag=True, help="Print the summary as one JSON document on stdout.")
def export_openlineage(warehouse: Path, out: Path | None, url: str | None, since: str | None, until: str | None,
                       api_key_env: str, retry_seconds: float, as_json: bool) -> None:
    """Every job run of the graph as OpenLineage RunEvents, to a file or an endpoint (see docs/neo4j.md, "Exporting to OpenLineage").
    Exits 3 when the endpoint refused some events (named on stderr; a re-run sends them again)."""
    from lineage.export.openlineage import export_file, export_http

    if (out is None) == (url is None):
        raise click.UsageError("give one of --out FILE or --url URL")
    if out is not None:
        result = export_file(warehouse, out, since=since, until=until)
    else:
        with _export_progress(not as_json) as progress:
            result = export_http(warehouse, url, since=since, until=until, token_env=api_key_env,
                                 retry_seconds=retry_seconds, progress=progress)
    if as_json:
        click.echo(json.dumps(result.to_json()))
    else:
        say(f"export openlineage: {result.runs} run(s), {result.events} event(s): {result.sent} sent, "
            f"{result.skipped} already acknowledged, {result.failed} refused -> {result.target}")
    for failure in result.failures[:REJECTED_SHOWN]:
        say(f"export openlineage: refused {failure['event']} of {terminal(failure['run'], 120)}: "
            f"{terminal(failure['reason'], 300)}")
    if result.failed:
        sys.exit(3)


REJECTED_SHOWN = 10
"""Rejected records named on the terminal; ``--json`` and the run log name them all."""


def _say_rejected(rejections: list[dict]) -> None:
    """Name the rejected records, ids shortened (a rejected id is often the 20,000-character one)."""
    from lineage.render.escape import terminal

    say(f"export: partial: {len(rejections)} record(s) the server cannot take were not written (exit 3; "
        "a re-run names them again without resending them; --retry-rejected sends them again):")
    for r in rejections[:REJECTED_SHOWN]:
        what = (f"{r['label']} {terminal(r['id'], 120)}" if r["kind"] == "node"
                else f"{r['type']} {terminal(r['src'], 80)} -> {terminal(r['dst'], 80)}")
        say(f"export: rejected {what}: {terminal(r['reason'], 300)}")
    if len(rejections) > REJECTED_SHOWN:
        say(f"export: ... {len(rejections) - REJECTED_SHOWN} more (all of them in --json and the run's log)")


def _export_progress(enabled: bool) -> Callback:
    """Rows written so far (lineage.render.progress: a bar on a terminal, otherwise a line every few seconds)."""
    return Callback(err, enabled, "export", lambda update: lambda phase, done, total: update(phase, done, total))
