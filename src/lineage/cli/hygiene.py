"""`lineage hygiene`: unused tables, cycles, islands and importance as of one instant.

The command parses options, calls :func:`lineage.analysis.api.hygiene` and prints: ``--json``
the contract's document (DESIGN.md), otherwise four short sections by name. Registered on the
root group by :mod:`lineage.cli`.
"""

from __future__ import annotations

import json
from pathlib import Path

import click

from lineage.analysis.hygiene import DEFAULT_TOP, DEFAULT_UNUSED_DAYS, TINY_ISLAND, Hygiene
from lineage.cli.answers import ENGINE_CHOICE
from lineage.render.columns import few
from lineage.render.terminal import lines_text

LISTED = 10
"""Members of one cycle or island printed before ``and N more``."""


def _some(ids, names: dict[str, str], limit: int = LISTED) -> str:
    return few([names.get(i, i) for i in ids], shown=limit)


def runs_text(runs: int, days: int) -> str:
    """What an unused table's run count means: a count of 0 is a node deployed to write it whose
    runs the window holds none of, not a table nothing writes."""
    if runs:
        return f"{runs} run(s) in {days} days"
    return f"no run seen in {days} days (its node is deployed to write it)"


def hygiene_lines(result: Hygiene) -> list[str]:
    """The human answer: what a platform team acts on, each section with its count first."""
    names = result.names
    lines = [f"platform hygiene as of {result.to_json()['as_of']} ({result.engine} engine)", ""]
    lines.append(f"unused tables: {len(result.unused)} written in the last {result.unused_days} days and read by nothing")
    for u in result.unused:
        cost = runs_text(u.runs, result.unused_days) + (f", {u.bytes:,.0f} bytes" if u.bytes is not None else "") + (
            f", {u.records:,.0f} records" if u.records is not None else "")
        lines.append(f"  {names.get(u.id, u.id)}  owners: {_some(u.owners, names) or '-'}  "
                     f"writers: {_some(u.writers, names, 3) or '-'}  {cost}")
    between = [c for c in result.cycles if not c.self_loop]
    loops = [c for c in result.cycles if c.self_loop]
    lines += ["", f"cycles between tables: {len(between)}"]
    for c in between:
        lines.append(f"  {_some(c.tables, names)}  closed by: {_some(c.jobs, names, 5) or '-'}")
    lines += ["", f"self-loops: {len(loops)} table(s) each read and rewritten by its own job "
                  "(staging, incremental loads: usually by design)"]
    if loops:
        lines.append(f"  {_some([c.tables[0] for c in loops], names)}")
    tiny = [i for i in result.islands if i.size <= TINY_ISLAND]
    lines += ["", f"islands: {len(result.islands)}"]
    if result.islands:
        largest = result.islands[0]
        lines.append(f"  largest: {largest.size} dataset(s): {_some(largest.tables, names)}")
        lines.append(f"  tiny (<= {TINY_ISLAND} datasets): {len(tiny)}")
        lines += [f"    {_some(i.tables, names)}" for i in tiny]
    lines += ["", f"importance: top {len(result.importance)} tables by PageRank along the data flow"]
    for rank, imp in enumerate(result.importance, 1):
        lines.append(f"  {rank:>3}. {names.get(imp.id, imp.id)}  {imp.score:.6f}  owners: {_some(imp.owners, names) or '-'}")
    return lines


@click.command()
@click.option("--warehouse", required=True, type=click.Path(path_type=Path), help="Warehouse directory.")
@click.option("--as-of", "as_of", metavar="ISO", help="Ask about the platform as it was then (default: now).")
@click.option("--unused-days", type=click.IntRange(1, None), default=DEFAULT_UNUSED_DAYS, show_default=True,
              help="Unused: written in this many days before --as-of and read by nothing in them.")
@click.option("--engine", type=ENGINE_CHOICE, default="auto", show_default=True,
              help="networkx in memory (local) or GraphFrames (spark); auto picks by graph size.")
@click.option("--top", type=click.IntRange(1, None), default=DEFAULT_TOP, show_default=True,
              help="Tables ranked by importance.")
@click.option("--json", "as_json", is_flag=True, help="Print one JSON document on stdout.")
def hygiene(warehouse: Path, as_of: str | None, unused_days: int, engine: str, top: int, as_json: bool) -> None:
    """Tables written and never read, pipelines that feed themselves, islands, the tables that matter most."""
    from lineage.analysis.api import hygiene as run_hygiene

    result = run_hygiene(warehouse, as_of=as_of, unused_days=unused_days, engine=engine, top=top)
    if as_json:
        click.echo(json.dumps(result.to_json()))
        return
    click.echo(lines_text(hygiene_lines(result)))
