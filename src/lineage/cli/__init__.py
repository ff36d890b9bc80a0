"""The ``lineage`` command: parse options, call one library function, print.

This package is the CLI layer: here the group ``main`` and the pipeline commands (ingest, build,
impact, access, exposure, blast-radius, report, weekly, repair, generate, demo); ``answers``
(``upstream`` and the human/picture output of impact, upstream, access), ``columns`` (column ids),
``inspect`` (search, show, history, diff), ``export`` (export neo4j/openlineage), ``hygiene``, and
``tour`` (what ``lineage demo`` runs).

Exit status (contract): 0 success, 2 bad usage or bad input, 1 internal failure. Expected errors
(:mod:`lineage.errors`) are one line on stderr, mapped to their exit status in one place
(``_Group.invoke``); a traceback only with ``--debug``. Settings are read once per command
(:mod:`lineage.settings`: ``LINEAGE_*`` variables, root options winning) and passed down.
"""

from __future__ import annotations

import json
import logging
import sys
import traceback
from functools import partial
from pathlib import Path
from typing import TYPE_CHECKING

import click
from rich.table import Table

from lineage.cli.columns import INDIRECT, columns_first
from lineage.cli.export import export_group
from lineage.cli.hygiene import hygiene as hygiene_command
from lineage.cli.inspect import COMMANDS as INSPECT_COMMANDS, print_json, resolving
from lineage.cli.people import people_command
from lineage.cli.why import why_command
from lineage.cli.answers import (ENGINE_CHOICE, FORMAT_CHOICE, LIMIT, change_ids_first, print_access, print_answer, print_blast, traversal_options,
                                 upstream)
from lineage.errors import LineageError, UsageError
from lineage.render.progress import Callback, Reporter
from lineage.render.escape import CELL_LIMIT, terminal, visible
from lineage.render.terminal import console, err, say

if TYPE_CHECKING:
    from lineage.settings import Settings

InputError = UsageError

WAIT = click.option("--wait", type=click.FloatRange(min=0), default=60.0, show_default=True, metavar="SECONDS",
                    help="How long to wait for another run writing the warehouse before exiting 2.")
"""Bad input found by the CLI itself (exit 2, one line); any :class:`UsageError` does the same."""


def settings(ctx: click.Context | None = None) -> Settings:
    """The running command's settings: read once, the first time something needs them (so
    ``lineage CMD --help`` works whatever the environment holds)."""
    from lineage.settings import Settings

    root = (ctx or click.get_current_context()).find_root()
    if "settings" not in root.obj:
        root.obj["settings"] = Settings.from_env(**root.obj["overrides"])
    return root.obj["settings"]


class _Group(click.Group):
    """The one place errors become exit statuses: an expected error (:mod:`lineage.errors`) is
    its own line and exit status, anything else is an internal error (exit 1); tracebacks only
    with --debug. Library code called by a command sees the command's settings as current."""

    def invoke(self, ctx: click.Context):  # type: ignore[override]
        from lineage.settings import running  # not at import: `lineage --help` stays quick

        try:
            with running(partial(settings, ctx)):
                return super().invoke(ctx)
        except (click.ClickException, click.exceptions.Exit, click.Abort, KeyboardInterrupt):
            raise
        except Exception as exc:  # noqa: BLE001 - the contract wants one line and an exit status
            debug = bool(ctx.obj and ctx.obj.get("debug"))
            if debug:
                traceback.print_exc()
            if not isinstance(exc, LineageError):
                from lineage.spark import explain as out_of_memory
                from lineage.store.damage import explain

                command = self.commands.get(ctx.invoked_subcommand or "")
                engines = command is not None and any(p.name == "engine" for p in command.params)
                # an engine out of memory (what to raise, or the other engine), or a damaged file (its repair)
                exc = out_of_memory(exc, alternative=engines) or explain(exc) or exc
            if isinstance(exc, LineageError):
                # the message's own lines kept; event text in it was made visible where it was named
                click.echo("\n".join(visible(line) for line in exc.line.format(exc).split("\n")), err=True)
                sys.exit(exc.exit_code)
            if not debug:
                message = " ".join(str(exc).split())  # one line, even for a multi-line message
                say(f"internal error: {type(exc).__name__}: {message} (run with --debug for details)")
            sys.exit(1)


@click.group(cls=_Group, context_settings={"help_option_names": ["-h", "--help"]})
@click.option("--debug", is_flag=True, help="Show the traceback of an error (expected or internal).")
@click.option("--graphframes", metavar="auto|JAR|COORDINATE",
              help="GraphFrames for Spark: the cached jar (auto), a jar path, or a Maven coordinate for "
                   "clusters, e.g. graphframes:graphframes:0.8.3-spark3.5-s_2.12.")
@click.option("--spark-master", metavar="URL", help="Spark master (default local[2]).")
@click.version_option(package_name="lineage")
@click.pass_context
def main(ctx: click.Context, debug: bool, graphframes: str | None, spark_master: str | None) -> None:
    """Lineage and change impact across DataWorks, MaxCompute, Dataphin and DataHub."""
    # options win over LINEAGE_GRAPHFRAMES / LINEAGE_SPARK_MASTER; read by settings() when needed
    ctx.obj = {"debug": debug, "overrides": {"graphframes": graphframes or None, "spark_master": spark_master or None}}
    if not debug:
        # libraries' log records are not the command's output: without a handler of its own,
        # root's first logging.exception (Py4J's, for a command a dead JVM never answered) would
        # print a traceback on stderr beside the command's one paragraph. --debug shows them.
        logging.getLogger().addHandler(logging.NullHandler())


main.add_command(upstream)
main.add_command(hygiene_command)
main.add_command(why_command)
main.add_command(people_command)


@main.command()
@click.argument("paths", nargs=-1, required=True, type=click.Path(path_type=Path))
@click.option("--warehouse", required=True, type=click.Path(path_type=Path), help="Warehouse directory.")
@click.option("--json", "as_json", is_flag=True, help="Print the summary as one JSON document on stdout.")
@click.option("--strict", is_flag=True, help="Exit 2 if any record was quarantined (foreign records do not count).")
@click.option("--parse-in", type=click.Choice(["auto", "local", "spark"]), default=None, show_default="auto",
              help="Parse records in the driver (local) or in Spark tasks; auto picks by input size.")
@click.option("--engine", "engine_alias", type=click.Choice(["auto", "local", "spark"]), default=None, hidden=True,
              help="Deprecated name of --parse-in.")
@click.option("--exclude", multiple=True, metavar="GLOB", help="Skip files whose name matches (repeatable).")
@click.option("--max-record-mb", type=click.IntRange(1, 2047), default=64, show_default=True,
              help="Records larger than this are quarantined (kept truncated).")
@WAIT
def ingest(paths: tuple[Path, ...], warehouse: Path, as_json: bool, strict: bool, parse_in: str | None,
           engine_alias: str | None, exclude: tuple[str, ...], max_record_mb: int, wait: float) -> None:
    """Read event files/directories (JSON, JSON Lines, arrays, .gz) into the warehouse."""
    from lineage.ingest.pipeline import ingest as run_ingest

    if engine_alias is not None:
        if parse_in is not None and parse_in != engine_alias:
            raise click.UsageError(f"--engine is the old name of --parse-in: give one (got {engine_alias} and {parse_in})")
        say("ingest --engine is deprecated: use --parse-in")

    chosen = settings()
    if err.is_terminal and not as_json and "spark_progress" not in chosen.given:
        chosen = chosen.replace(spark_progress=True)  # Spark's stage bar for the Spark path
    with _progress(not as_json) as progress:
        result = run_ingest(paths, warehouse, parse_in=parse_in or engine_alias or "auto", exclude=exclude,
                            max_record_bytes=max_record_mb * 1024 * 1024, progress=progress, settings=chosen,
                            wait=wait, say=say)
    if as_json:
        click.echo(result.as_json())
    else:
        _print_ingest(result)
    if result.understood == 0:
        raise UsageError(f"nothing could be read: {result.total.read} record(s) in {result.files} file(s), none understood"
                         + (f"; see {result.quarantine_path}" if result.total.quarantined else ""))
    if result.total.quarantined:
        say(f"{result.total.quarantined} record(s) quarantined; they are in {result.quarantine_path}")
        if strict:
            sys.exit(2)


@main.command()
@click.option("--warehouse", required=True, type=click.Path(path_type=Path), help="Warehouse directory.")
@click.option("--aliases", type=click.Path(path_type=Path, exists=True, dir_okay=False),
              help="Identity alias CSV (alias,canonical); default: WAREHOUSE/aliases.csv when present.")
@click.option("--json", "as_json", is_flag=True, help="Print the summary as one JSON document on stdout.")
@click.option("--full", is_flag=True,
              help="Extract the facts of every event again (replacing WAREHOUSE/facts: repairs damaged facts).")
@WAIT
def build(warehouse: Path, aliases: Path | None, as_json: bool, full: bool, wait: float) -> None:
    """Turn the ingested events into facts and the temporal graph (WAREHOUSE/graph)."""
    result = _run_build(warehouse, aliases, quiet=as_json, full=full, wait=wait)
    if as_json:
        click.echo(result.as_json())
    else:
        _print_build(result)


def _run_build(warehouse: Path, aliases: Path | None, quiet: bool = False, full: bool = False, wait: float = 60.0):
    from lineage.graph.build import build as run_build

    with Reporter(err, not quiet, "build") as reporter:
        result = run_build(warehouse, aliases=aliases, progress=reporter.update, settings=settings(), full=full,
                           wait=wait, say=say)
    if result.mapping_errors:
        say(f"{result.mapping_errors} event(s) could not be mapped to facts (kept in WAREHOUSE/facts with op=error); "
            f"first: {result.error_examples[0]['source']} {result.error_examples[0]['event_id']}: "
            f"{result.error_examples[0]['reason']}")
    return result


def _print_build(result) -> None:
    out = console()
    out.print(f"build {result.build_id}: {result.events} events ({result.new_events} new) -> "
              f"{result.facts} facts ({result.new_facts} new, {result.failed_facts} from failed operations) -> "
              f"{result.vertices} vertices, {result.edges} edges, {result.changes} changes", markup=False, soft_wrap=True)
    table = Table(title="graph")
    table.add_column("vertices by label")
    table.add_column("count", justify="right")
    table.add_column("edges by relationship")
    table.add_column("count", justify="right")
    labels, rels = list(result.vertices_by_label.items()), list(result.edges_by_relationship.items())
    for i in range(max(len(labels), len(rels))):
        left = labels[i] if i < len(labels) else ("", "")
        right = rels[i] if i < len(rels) else ("", "")
        table.add_row(left[0], str(left[1]), right[0], str(right[1]))
    out.print(table)
    out.print(f"graph written to {result.warehouse}/graph (vertices, edges, changes)", markup=False, soft_wrap=True)


@main.command()
@traversal_options
@click.option("--relationship", "relationships", multiple=True, metavar="REL",
              help="Follow only these relationships (repeatable; default: every impact rule).")
@click.option("--all", "every", is_flag=True, help="List every vertex (instances and jobs not collapsed).")
@LIMIT
@click.option("--json", "as_json", is_flag=True, help="Print one JSON document on stdout.")
@click.option("--format", "fmt", type=FORMAT_CHOICE, help="Print the affected subgraph for Graphviz, Mermaid or Gephi/yEd.")
@INDIRECT
@change_ids_first
@resolving("ids")
@columns_first(downstream=True)
def impact(ids: tuple[str, ...], warehouse: Path, as_of: str | None, max_depth: int | None, engine: str,
           relationships: tuple[str, ...], every: bool, limit: int, as_json: bool, fmt: str | None) -> None:
    """If these vertices change, what breaks and who will notice (downstream impact); given change
    ids (from blast-radius), what those changes did, by their effect."""
    from lineage.analysis.api import impact as run_impact

    with Reporter(err, not as_json, "impact"):
        result = run_impact(warehouse, ids, as_of=as_of, max_depth=max_depth, engine=engine,
                            relationships=relationships or None)
    print_answer(warehouse, result, question="impact", downstream=True, as_json=as_json, fmt=fmt, every=every,
                 limit=limit)


@main.command()
@click.argument("target")
@click.option("--warehouse", required=True, type=click.Path(path_type=Path), help="Warehouse directory.")
@click.option("--as-of", "as_of", metavar="ISO", help="Ask about access as it was then (default: now).")
@click.option("--json", "as_json", is_flag=True, help="Print one JSON document on stdout.")
@resolving("target")
def access(target: str, warehouse: Path, as_of: str | None, as_json: bool) -> None:
    """Who can read TARGET, through which grants, and since when."""
    from lineage.analysis.api import access as run_access

    result = run_access(warehouse, target, as_of=as_of)
    if as_json:
        print_json(result.to_json)
        return
    print_access(warehouse, result)


@main.command()
@click.option("--warehouse", required=True, type=click.Path(path_type=Path), help="Warehouse directory.")
@click.option("--as-of", "as_of", metavar="ISO", help="Ask about the graph as it was then (default: now).")
@click.option("--tag", "tags", multiple=True, metavar="NAME",
              help="Only these tags (repeatable; default: PII/Sensitive/Confidential/Restricted and labels >= 2).")
@click.option("--limit", type=click.IntRange(1, None), default=20, show_default=True,
              help="Principals listed, most tables first (the first line counts them all).")
@click.option("--every", is_flag=True, help="Under each principal, every table with its lineage and access path.")
@click.option("--json", "as_json", is_flag=True, help="Print one JSON document on stdout.")
def exposure(warehouse: Path, as_of: str | None, tags: tuple[str, ...], limit: int, every: bool, as_json: bool) -> None:
    """Who can read data carrying a propagated sensitive tag they were never cleared for at its source."""
    from lineage.analysis.api import exposure as run_exposure
    from lineage.graph.api import vertex_rows
    from lineage.render.columns import terminal_width
    from lineage.render.terminal import lines_text
    from lineage.render.text import exposure_answer
    from lineage.report.context import given_name

    found = run_exposure(warehouse, as_of=as_of, tags=tags or None)
    if as_json:
        print_json(lambda: {"as_of": as_of, "exposures": [e.to_json() for e in found]})
        return
    ids = {v for e in found for v in (e.principal, e.table, *e.origins, e.origin, *e.path, *e.access_path)}
    names = {row["id"]: given_name(row) for row in vertex_rows(warehouse, ids)}
    click.echo(lines_text(exposure_answer(found, name=lambda v: names.get(v) or v.split(":", 2)[-1],
                                          width=terminal_width(), limit=limit, every=every)))


@main.command("blast-radius")
@click.option("--warehouse", required=True, type=click.Path(path_type=Path), help="Warehouse directory.")
@click.option("--since", metavar="DATE", help="Changes at or after this time.")
@click.option("--until", metavar="DATE", help="Changes before this time.")
@click.option("--max-depth", type=click.IntRange(1, None), help="Stop after this many hops.")
@click.option("--engine", type=ENGINE_CHOICE, default="auto", show_default=True)
@click.option("--top", type=click.IntRange(1, None), default=20, show_default=True, help="Rows in the table.")
@click.option("--json", "as_json", is_flag=True, help="Print one JSON document on stdout.")
@click.option("--affected", "affected_limit", type=click.IntRange(0, None), default=100, show_default=True,
              help="With --json: affected vertices listed per change, nearest first (counts, summary and score "
                   "always cover all of them).")
@click.option("--full", is_flag=True,
              help="Every affected vertex of every change as JSON Lines: one change per line, ranked, streamed.")
@click.option("--pairs-out", type=click.Path(path_type=Path),
              help="Also write every (change, affected vertex) pair as a parquet dataset to this folder "
                   "(replaced when complete), streamed: for windows with millions of pairs.")
def blast_radius_command(warehouse: Path, since: str | None, until: str | None, max_depth: int | None, engine: str,
                         top: int, as_json: bool, affected_limit: int, full: bool, pairs_out: Path | None) -> None:
    """Every change in a time window, what it affects and its impact score, ranked."""
    from lineage.analysis.api import blast, blast_all
    from lineage.analysis.pairs import write_pairs
    from lineage.store.warehouse import Warehouse

    warehouse = Warehouse.at(warehouse)  # opened once: every analysis below reads one graph generation

    if full:
        for impact in blast_all(warehouse, since=since, until=until, engine=engine, max_depth=max_depth):
            click.echo(json.dumps(impact.to_json()))
        return
    limit = affected_limit if as_json else 0
    with Reporter(err, not as_json, "blast-radius"):
        if pairs_out:
            streamed = blast_all(warehouse, since=since, until=until, engine=engine, max_depth=max_depth)
            written, ranked = write_pairs(streamed, pairs_out, keep=limit)
            say(f"blast-radius: {written.pairs:,} (change, vertex) pair(s) of {written.changes:,} change(s) "
                f"written to {terminal(str(written.folder))} ({written.files} file(s))")
        else:
            ranked = blast(warehouse, since=since, until=until, engine=engine, max_depth=max_depth, affected=limit)
    if as_json:
        click.echo(json.dumps({"since": since, "until": until, "changes": [r.to_json() for r in ranked]}))
        return
    print_blast(warehouse, ranked, top)


def _write_report(warehouse: Path, out: Path, week: str | None, since: str | None, until: str | None, engine: str,
                  top: int, as_json: bool, fresh: bool, pairs: bool = False, person: str | None = None) -> None:
    """Shared by ``report`` and ``weekly``: write the files, print where (or the document), exit 3 on gaps."""
    from lineage.report.job import INCOMPLETE, write
    from lineage.report.window import choose

    from lineage.store.warehouse import Warehouse

    with Reporter(err, not as_json, "report"):  # the warehouse opened once: one graph generation throughout
        opened, window = Warehouse.at(warehouse), choose(week, since, until)
        written = write(opened, out, window, engine=engine, top=top, fresh=fresh)
        if pairs:  # a second, streamed pass: every pair of the window, never held
            from lineage.analysis.api import blast_all
            from lineage.analysis.pairs import write_pairs

            done, _ = write_pairs(blast_all(opened, since=window.since, until=window.until, engine=engine),
                                  written.folder / "pairs")
            say(f"report: {done.pairs:,} (change, vertex) pair(s) of {done.changes:,} change(s) written to "
                f"{terminal(str(done.folder))} ({done.files} file(s))")
    if written.kept:
        say(f"report: the trend's {written.kept} earlier week(s) kept from earlier reports, "
            f"{len(written.history or {}) - written.kept} walked (--fresh-history walks them all)")
    if person:  # one person's digest instead: the files are written all the same
        from lineage.report.render import find_person, person_markdown

        found = find_person(written.report, person)
        click.echo(found.model_dump_json(indent=1) if as_json else person_markdown(written.report, found), nl=not as_json)
    elif as_json:
        click.echo(written.report.to_json(), nl=False)
    else:
        for name, path in written.files.items():
            click.echo(f"{name}: {path}")
    if not written.complete:
        for alert in written.report.input_health.alerts:  # one line per source, the report's own words
            say(f"input gap: {alert}")
        say(f"report written, but its inputs are incomplete ({written.report.input_health.gaps} source-day(s))")
        sys.exit(INCOMPLETE)


_REPORT_OPTIONS = (
    click.option("--week", metavar="YYYY-Www", help="ISO week (UTC); default: the last complete week."),
    click.option("--since", metavar="DATE", help="Window start (with --until), instead of --week."),
    click.option("--until", metavar="DATE", help="Window end, exclusive (with --since)."),
    click.option("--engine", type=ENGINE_CHOICE, default="auto", show_default=True),
    click.option("--top", type=click.IntRange(1, None), default=10, show_default=True, help="Changes shown in full."),
    click.option("--json", "as_json", is_flag=True, help="Print report.json on stdout instead of the file names."),
    click.option("--fresh-history", "fresh", is_flag=True,
                 help="Compute the trend's earlier weeks again instead of using the figures earlier reports kept."),
    click.option("--pairs", is_flag=True,
                 help="Also write every (change, affected vertex) pair of the window to OUT/<week>/pairs/ (parquet, "
                      "as blast-radius --pairs-out), streamed in a second pass."),
)


def _report_options(function):
    for option in reversed(_REPORT_OPTIONS):
        function = option(function)
    return function


@main.command("report")
@click.option("--warehouse", required=True, type=click.Path(path_type=Path), help="Warehouse directory.")
@click.option("--out", type=click.Path(path_type=Path), default=Path("reports"), show_default=True,
              help="Reports go to OUT/<week>/report.{html,json,md}.")
@_report_options
@click.option("--person", metavar="ID|NAME",
              help="Print this person's digest (what to act on this week) in Markdown, ready to paste; with --json, "
                   "their entry of report.json's people. The files are written as usual.")
def report_command(warehouse: Path, out: Path, week: str | None, since: str | None, until: str | None, engine: str,
                   top: int, as_json: bool, fresh: bool, pairs: bool, person: str | None) -> None:
    """The weekly impact report: changes, whom to tell, access drift, failures, input health."""
    _write_report(warehouse, out, week, since, until, engine, top, as_json, fresh, pairs, person)


@main.command()
@click.argument("paths", nargs=-1, required=True, type=click.Path(path_type=Path))
@click.option("--warehouse", required=True, type=click.Path(path_type=Path), help="Warehouse directory.")
@click.option("--out", required=True, type=click.Path(path_type=Path), help="Reports go to OUT/<week>/.")
@_report_options
@WAIT
def weekly(paths: tuple[Path, ...], warehouse: Path, out: Path, week: str | None, since: str | None,
           until: str | None, engine: str, top: int, as_json: bool, fresh: bool, pairs: bool, wait: float) -> None:
    """The scheduler's job: ingest what is new, build, report (exit 3: report written, inputs incomplete)."""
    from lineage import spark
    from lineage.graph.build import up_to_date
    from lineage.ingest.pipeline import ingest as run_ingest
    from lineage.store.lock import writer

    # one lock for both steps: no writer in between; the JVM they start, its heap grown to the
    # build's, is not kept beside the report
    with spark.ended_after(), writer(warehouse, "lineage weekly", wait, say):
        result = run_ingest(paths, warehouse, settings=settings(), say=say)
        say(f"weekly: ingested {result.total.accepted} new event(s) ({result.total.duplicates} already known, "
            f"{result.total.quarantined} quarantined)")
        last = up_to_date(warehouse)
        if last is None:
            built = _run_build(warehouse, None, quiet=True)
    if last is None:
        say(f"weekly: graph built ({built.vertices} vertices, {built.edges} edges, {built.changes} changes)")
    else:
        say(f"weekly: nothing new since build {last['build_id']}: its graph is kept ({last['vertices']} vertices, "
            f"{last['edges']} edges)")
    _write_report(warehouse, out, week, since, until, engine, top, as_json, fresh, pairs)


@main.command()
@click.option("--warehouse", required=True, type=click.Path(path_type=Path, exists=True, file_okay=False),
              help="Warehouse directory.")
@WAIT
def repair(warehouse: Path, wait: float) -> None:
    """Move unreadable (truncated, corrupted) parquet files aside to WAREHOUSE/damaged/ and say what restores them."""
    from lineage.store.damage import repair as run_repair
    from lineage.store.lock import writer

    with writer(warehouse, "lineage repair", wait, say):
        moved = run_repair(warehouse)
    if not moved:
        say(f"every parquet file of {warehouse} reads whole: nothing to repair")
    for file, reason, then in moved:
        say(f"moved {file} to damaged/ ({reason}); now: {then}")


@main.command()
@click.option("--out", required=True, type=click.Path(path_type=Path), help="Where events, aliases.csv and truth/ go.")
@click.option("--tables", type=click.IntRange(12, 10_000_000), default=200, show_default=True,
              help="Tables of the platform (every other count scales with it).")
@click.option("--days", type=click.IntRange(1, 3650), default=14, show_default=True, help="Days of activity.")
@click.option("--start", type=click.DateTime(["%Y-%m-%d"]), default=None, help="First day (default 2026-09-28).")
@click.option("--seed", type=int, default=7, show_default=True, help="Same seed and options, same bytes.")
@click.option("--foreign-share", type=click.FloatRange(0, 1, max_open=True), default=0.0, show_default=True,
              help="Share of the ActionTrail files' events that are other cloud services' (a real trail's majority).")
@click.option("--openlineage-share", type=click.FloatRange(0, 1), default=0.0, show_default=True,
              help="Spark jobs reporting OpenLineage runs (events/openlineage/DAY.jsonl), as a share of the nodes.")
@click.option("--hub-changes", type=click.IntRange(0), default=0, show_default=True,
              help="Columns added every day, in turn to the 8 most-read tables: breaking changes that reach far.")
@click.option("--planted-failures", type=click.IntRange(0), default=0, show_default=True,
              help="Columns SQL nodes read, dropped or renamed over the period: their readers fail from the next run "
                   "on (truth/failures.csv).")
@click.option("--no-job-settings", "job_settings", is_flag=True, flag_value=False, default=True,
              help="MaxCompute jobs name no DataWorks node (no SKYNET_ID, as ActionTrail documents them): the build "
                   "matches them to instances by time (truth/jobs.csv says which is right).")
@click.option("--partition-events", is_flag=True,
              help="A ChangeTable ADD_PARTITION for every table a successful run writes, as MaxCompute logs them: "
                   "writes, which must make no change.")
@click.option("--json", "as_json", is_flag=True, help="Print the summary as one JSON document on stdout.")
def generate(out: Path, tables: int, days: int, start, seed: int, foreign_share: float, openlineage_share: float,
             hub_changes: int, planted_failures: int, job_settings: bool, partition_events: bool, as_json: bool) -> None:
    """Write the events of one realistic data platform (all four sources), its aliases and ground truth."""
    from lineage.generate import DEFAULT_START
    from lineage.generate import generate as run_generate

    def progress(done: int, total: int, events: int) -> None:
        if not as_json and (done == total or done % 7 == 0):
            say(f"generate: day {done}/{total}, {events} events")

    result = run_generate(out, tables=tables, days=days, start=start.date() if start else DEFAULT_START, seed=seed,
                          progress=progress, foreign_share=foreign_share, openlineage_share=openlineage_share,
                          hub_changes=hub_changes, planted_failures=planted_failures, job_settings=job_settings,
                          partition_events=partition_events)
    if as_json:
        click.echo(json.dumps(result.summary, sort_keys=True))
        return
    _print_generated(result)


def _print_generated(result) -> None:
    out = console()
    counts = result.summary["counts"]
    table = Table(title=f"generated {result.summary['tables']} tables over {result.summary['days']} days "
                        f"from {result.summary['start']} (seed {result.summary['seed']}) in {result.out}")
    for column in ("source", "records", "duplicates", "malformed", "foreign"):
        table.add_column(column, justify="left" if column == "source" else "right")
    for name, row in [*counts["sources"].items(), ("total", counts["total"])]:
        table.add_row(name, *(str(row[k]) for k in ("records", "duplicates", "malformed", "foreign")))
    out.print(table)
    stats = result.summary["stats"]
    out.print(f"{counts['files']} files under {result.out / 'events'}; jobs {stats['jobs']} "
              f"({stats['failed_jobs']} failed, {stats['reruns']} reruns); grants {stats['grants']}, "
              f"revokes {stats['revokes']}, failed grants {stats['failed_grants']}; changes {stats['changes']}",
              markup=False, soft_wrap=True)
    out.print(f"aliases: {result.out / 'aliases.csv'}; ground truth: {result.out / 'truth'}", markup=False, soft_wrap=True)
    for key, value in result.summary["interesting"].items():
        out.print(f"  {key.replace('_', ' ')}: {value}", markup=False, soft_wrap=True)


@main.command()
@click.option("--out", type=click.Path(path_type=Path), default=Path("demo-out"), show_default=True,
              help="Where the generated events and the warehouse go.")
@click.option("--neo4j-uri", metavar="bolt://HOST:PORT", help="Also export the graph there (password from $NEO4J_PASSWORD).")
@click.option("--tables", type=click.IntRange(12, 100_000), default=None, help="Tables of the generated platform (default 200).")
@click.option("--days", type=click.IntRange(1, 3650), default=None,
              help="Days of activity (default 35; 7 with --small).")
@click.option("--small", is_flag=True, help="The hand-checked nine-table sample platform (lineage.generate.samples) instead.")
def demo(out: Path, neo4j_uri: str | None, tables: int | None, days: int | None, small: bool) -> None:
    """Generate a platform worth exploring, ingest, build, rank last week's changes, and show where to look."""
    if small:
        _small_demo(out, days or 7)
        return
    import time

    from lineage.cli import tour as demo_run

    begun = time.monotonic()
    with _progress(True) as progress:
        tour = demo_run.run(out, tables=tables or demo_run.DEMO_TABLES, days=days or demo_run.DEMO_DAYS,
                            neo4j_uri=neo4j_uri, say=say, ingest_progress=progress)
    _print_tour(tour, time.monotonic() - begun)


def _print_tour(tour, seconds: float) -> None:
    out = console()
    if tour.blast:
        since, until = tour.blast_window
        table = Table(title=f"blast radius, {since} to {until} (top 5 of {len(tour.blast)})")
        for column in ("score", "kind", "entity", "affected"):
            table.add_column(column, justify="right" if column == "score" else "left", overflow="fold")
        for r in tour.blast[:5]:
            table.add_row(f"{r.score:g}", r.kind, r.entity_id, ", ".join(f"{k} {v}" for k, v in r.summary.items()) or "-")
        out.print(table)
    if tour.exported is not None:
        out.print(f"exported to Neo4j: {tour.exported.to_json()}", markup=False, soft_wrap=True)
    lines = [f"demo finished in {seconds:.0f} s. Where everything is:",
             f"  events (per source per day, gzipped): {tour.events}",
             f"  ground truth of the generator:        {tour.truth}",
             f"  warehouse (graph under graph/):       {tour.warehouse}",
             *([f"  the week's report (open report.html):  {tour.report.folder}"] if tour.report else []),
             "  notebooks: notebooks/*.ipynb read this warehouse (LINEAGE_WAREHOUSE overrides it)",
             "Worth a look: " + ", ".join(f"{k.replace('_', ' ')} {v}" for k, v in tour.interesting.items()),
             "Try next:"]
    for what, command in tour.commands:
        lines += [f"  # {what}", f"  {command}"]
    out.print("\n".join(lines), markup=False, soft_wrap=True)


def _small_demo(out: Path, days: int) -> None:
    """The nine-table platform of lineage.generate.samples (hand-checked; tests rely on its ids)."""
    from lineage.ingest.pipeline import ingest as run_ingest
    from lineage.generate.samples import ALIASES, write_samples

    events = out / "events"
    files = write_samples(events, days=days)
    say(f"demo: wrote {len(files)} sample event files to {events}")
    with _progress(True) as progress:
        result = run_ingest([events], out / "warehouse", progress=progress)
    _print_ingest(result)
    say(f"demo: {result.total.quarantined} deliberately broken record(s) are in {result.quarantine_path}")
    aliases = out / "warehouse" / "aliases.csv"
    aliases.write_text(ALIASES)
    say(f"demo: identity aliases (the same people on several platforms) in {aliases}")
    built = _run_build(out / "warehouse", None)
    _print_build(built)
    say(f"demo: warehouse at {result.warehouse}")
    say(f"demo: next, e.g. `lineage impact table:maxcompute:retail_dw.dwd_orders --warehouse {result.warehouse}` or "
        f"`lineage export neo4j --warehouse {result.warehouse} --uri bolt://localhost:7687` (see docs/neo4j.md)")


def _progress(enabled: bool) -> Callback:
    """Files read so far (lineage.render.progress: a bar on a terminal, otherwise a line every few seconds)."""
    return Callback(err, enabled, "ingest",
                    lambda update: lambda index, total, name: update("reading files", index, total, Path(name).name))


def _print_ingest(result) -> None:
    out = console()
    table = Table(title=f"ingest {result.run_id} ({result.parse_in}, {result.files} files)")
    for column in ("source", "read", "accepted", "quarantined", "duplicates", "foreign", "unknown kind", "implausible time"):
        table.add_column(column, justify="left" if column == "source" else "right")
    for name, counts in [*result.sources.items(), ("total", result.total)]:
        table.add_row(name, *(str(v) for v in (counts.read, counts.accepted, counts.quarantined,
                                                 counts.duplicates, counts.foreign, counts.unknown_kind,
                                                 counts.implausible_time)))
    out.print(table)
    if result.unknown_kinds:
        kinds = ", ".join(f"{u['source']}:{u['kind']} ({u['count']}) e.g. {u['example_id']}" for u in result.unknown_kinds)
        out.print(terminal(f"accepted as generic activity of unknown kind: {kinds}"), soft_wrap=True)
    if result.foreign_kinds:
        kinds = ", ".join(f"{f['source']}:{f['kind']} ({f['count']})" for f in result.foreign_kinds[:5])
        more = len(result.foreign_kinds) - 5
        out.print(terminal(f"skipped as another product's records (foreign): {kinds}"
                           + (f" and {more} more kind(s)" if more > 0 else "")), soft_wrap=True)
    if result.empty_files:
        out.print(terminal(f"empty files (no records): {', '.join(result.empty_files)}"), soft_wrap=True)
    for example in result.quarantine_examples[:5]:
        out.print(terminal(f"quarantined {example['file']}:{example['line']}: {example['reason']}", CELL_LIMIT * 2),
                  soft_wrap=True)


for _command in INSPECT_COMMANDS:  # search, show, history, diff (lineage.cli.inspect)
    main.add_command(_command)
main.add_command(export_group)  # export neo4j, export openlineage (lineage.cli.export)

