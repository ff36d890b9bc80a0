"""`lineage why`: a failing node, job or run, and the upstream changes that may have broken it.

Parses options, calls :func:`lineage.analysis.api.why` and prints: ``--json`` the contract's
document (DESIGN.md), otherwise the streak and the candidate causes, most likely first, each with
its path and the failure's error text beside it. Registered on the root group by :mod:`lineage.cli`.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any, Callable

import click

from lineage.cli.answers import ENGINE_CHOICE
from lineage.cli.inspect import print_json, resolving
from lineage.render.terminal import lines_text

SHOWN = 10
"""Causes printed (``--json`` lists them all)."""


def why_lines(result: Any, name: Callable[[str], str]) -> list[str]:
    """The human answer: the streak, then each candidate cause with its path."""
    def run(r: Any) -> str:
        return f"{r.id} at {r.start.isoformat() if r.start else '?'} ({r.status})"

    lines = [f"why {name(result.target)} ({result.target})"]
    if result.definition != result.target:
        lines.append(f"  a run of {name(result.definition)} ({result.definition})")
    if result.first_failure is None:
        lines.append("  no failure to explain: its last finished run did not fail")
        return lines
    lines.append(f"  last good run: {run(result.last_success) if result.last_success else 'none known'}")
    lines.append(f"  first failed run: {run(result.first_failure)}; {result.failures} failed run(s) in a row")
    if result.error:
        lines.append(f"  error: {result.error}")
    if not result.causes:
        lines.append("  no change upstream of what it reads between the two")
        return lines
    lines.append(f"  {len(result.causes)} change(s) upstream between the two, most likely first:")
    for n, cause in enumerate(result.causes[:SHOWN], 1):
        c = cause.change
        columns = cause.to_json()["columns"]
        lines.append(f"  {n:>3}. {c['time'].isoformat() if c.get('time') else '?'}  {c['kind']}  "
                     f"{name(c['entity_id'])}" + (f" ({', '.join(columns)})" if columns else "")
                     + ("  <- named in the error" if cause.named else ""))
        lines.append(f"       path: {' -> '.join(cause.path)}")
    if len(result.causes) > SHOWN:
        lines.append(f"  and {len(result.causes) - SHOWN} more (--json lists them all)")
    return lines


@click.command("why")
@click.argument("target")
@click.option("--warehouse", required=True, type=click.Path(path_type=Path), help="Warehouse directory.")
@click.option("--as-of", "as_of", metavar="ISO", help="Explain the failure streak as of then (default: the latest).")
@click.option("--engine", type=ENGINE_CHOICE, default="auto", show_default=True)
@click.option("--json", "as_json", is_flag=True, help="Print one JSON document on stdout.")
@resolving("target")
def why_command(target: str, warehouse: Path, as_of: str | None, engine: str, as_json: bool) -> None:
    """Why TARGET (a node, job or run) fails: its last good run, its first failed run, and the
    changes upstream of what it reads between the two, most likely first."""
    from lineage.analysis.api import why
    from lineage.report.context import Context

    result = why(warehouse, target, as_of=as_of, engine=engine)
    if as_json:
        print_json(result.to_json)
        return
    ctx = Context.of(warehouse)
    click.echo(lines_text(why_lines(result, ctx.name)))
