"""`lineage upstream`, and the human and picture output of `impact`, `upstream`, `access`, `blast-radius`.

The command parses options, calls one library function (:mod:`lineage.analysis.api`) and prints:
``--json`` the contract's document, ``--format dot|mermaid|graphml`` the collapsed subgraph
(:mod:`lineage.render.formats`), otherwise the top-down answer (:mod:`lineage.render.text`) at
the terminal's width. Registered on the root group by :mod:`lineage.cli`.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import click

from lineage.cli.columns import INDIRECT, columns_first
from lineage.cli.inspect import print_json, resolving
from lineage.render.terminal import lines_text

FORMAT_CHOICE = click.Choice(["dot", "mermaid", "graphml"])
ENGINE_CHOICE = click.Choice(["auto", "local", "spark"])
_TRAVERSAL_OPTIONS = (
    click.argument("ids", nargs=-1, required=True),
    click.option("--warehouse", required=True, type=click.Path(path_type=Path), help="Warehouse directory."),
    click.option("--as-of", "as_of", metavar="ISO", help="Ask about the graph as it was then (default: now)."),
    click.option("--max-depth", type=click.IntRange(1, None), help="Stop after this many hops."),
    click.option("--engine", type=ENGINE_CHOICE, default="auto", show_default=True,
                 help="networkx in memory (local) or GraphFrames (spark); auto picks by graph size."),
)


def traversal_options(function):
    """The arguments ``impact`` and ``upstream`` share: ids, warehouse, as-of, depth, engine."""
    for option in reversed(_TRAVERSAL_OPTIONS):
        function = option(function)
    return function


LIMIT = click.option("--limit", type=click.IntRange(1, None), default=25, show_default=True,
                     help="Vertices listed per label, nearest first (the counts cover all; --json lists all).")
"""impact's and upstream's rows per label."""


def print_answer(warehouse: Path, result: Any, *, question: str, downstream: bool, as_json: bool,
                 fmt: str | None, every: bool, limit: int | None = None) -> None:
    """One answer of impact (``downstream``) or upstream, in the form asked for."""
    if as_json and fmt:
        raise click.UsageError("give --json or --format, not both")
    if as_json:
        print_json(result.to_json)
        return
    from lineage.analysis.people import people_to_tell
    from lineage.analysis.rules import IMPACT_RULES, UPSTREAM_RULES
    from lineage.render.columns import terminal_width
    from lineage.render.formats import FORMATS
    from lineage.render.picture import picture
    from lineage.render.text import answer
    from lineage.report.context import Context

    ctx = Context.of(warehouse)
    snap = ctx.snapshot(result.as_of)
    rules = IMPACT_RULES if downstream else UPSTREAM_RULES
    drawn = picture(snap, result.sources, result.affected, rules, downstream=downstream, collapse=not every,
                    name=ctx.name)
    if fmt:
        click.echo(FORMATS[fmt](drawn), nl=False)
        return
    people = None
    if downstream:
        people = people_to_tell(snap, [*result.sources, *(a.id for a in result.affected)], ctx.name)
    lines = answer(question, drawn, as_of=result.as_of, engine=result.engine, name=ctx.name, width=terminal_width(),
                   people=people, limit=limit)
    click.echo(lines_text(lines))


def print_access(warehouse: Path, result: Any) -> None:
    """The human answer of `access`, at the terminal's width."""
    from lineage.analysis.ownership import PRIVILEGES
    from lineage.render.columns import terminal_width
    from lineage.render.text import access_answer
    from lineage.report.context import Context

    ctx = Context.of(warehouse)
    every = PRIVILEGES.get(ctx.label(result.target), ())
    click.echo(lines_text(access_answer(result, name=ctx.name, width=terminal_width(), every=every)))


def change_ids_first(command):
    """Let ``impact`` take change ids: when every id given is a Change record's ``change_id``, the
    answer is those changes' blast radius (each by its effect, as ``blast-radius`` answers), not a
    walk from vertices. Put it above ``resolving``, which would reject a change id as unknown."""
    import functools

    @functools.wraps(command)
    def run(*args: Any, **kwargs: Any) -> Any:
        from lineage.analysis.api import traversal
        from lineage.analysis.blast import blast_radius
        from lineage.analysis.columns import for_changes
        from lineage.graph import script_changes
        from lineage.graph.api import change_rows
        from lineage.graph.reports import ids_of

        ids = kwargs["ids"]
        wanted = set(ids)
        if not ids or any(len(i) != 32 or not all(ch in "0123456789abcdef" for ch in i) for i in ids):
            return command(*args, **kwargs)
        found = [(c, ids_of(c["change_id"], c["reported_by"])) for c in change_rows(kwargs["warehouse"], scripts=False)]
        changes = script_changes.attach(kwargs["warehouse"], [c for c, its in found if wanted.intersection(its)])
        if not wanted <= {i for _, its in found for i in its}:
            return command(*args, **kwargs)
        walker = traversal(kwargs["warehouse"], kwargs["engine"])
        ranked = blast_radius(changes, walker, max_depth=kwargs["max_depth"],
                              columns=for_changes(changes, kwargs["warehouse"]))  # as blast-radius scores them
        if kwargs.get("as_json"):
            affected = {}
            for r in ranked:
                for a in r.to_json()["affected"]:
                    affected.setdefault(a["id"], a)
            listed = sorted(affected.values(), key=lambda a: (a["distance"], a["id"]))
            summary: dict[str, int] = {}
            for a in listed:
                summary[a["label"]] = summary.get(a["label"], 0) + 1
            click.echo(json.dumps({"sources": list(dict.fromkeys(ids)), "affected": listed,
                                   "summary": dict(sorted(summary.items(), key=lambda kv: str(kv[0]))),
                                   "changes": [r.to_json() for r in ranked]}))
            return None
        print_blast(kwargs["warehouse"], ranked, len(ranked))
        return None

    return run


def print_blast(warehouse: Path, ranked: Sequence[Any], top: int) -> None:
    """The human table of `blast-radius`: changes by name, at the terminal's width."""
    from lineage.render.columns import terminal_width
    from lineage.render.text import blast_answer
    from lineage.report.context import Context

    ctx = Context.of(warehouse)
    click.echo(lines_text(blast_answer(ranked, top, name=ctx.name, width=terminal_width())))


@click.command()
@traversal_options
@click.option("--all", "every", is_flag=True, help="List every vertex (instances and jobs not collapsed).")
@LIMIT
@click.option("--json", "as_json", is_flag=True, help="Print one JSON document on stdout.")
@click.option("--format", "fmt", type=FORMAT_CHOICE, help="Print the upstream subgraph for Graphviz, Mermaid or Gephi/yEd.")
@INDIRECT
@resolving("ids")
@columns_first(downstream=False)
def upstream(ids: Sequence[str], warehouse: Path, as_of: str | None, max_depth: int | None, engine: str, every: bool,
             limit: int, as_json: bool, fmt: str | None) -> None:
    """Where these tables' data comes from, hop by hop, through which jobs (upstream lineage)."""
    from lineage.analysis.api import upstream as run_upstream

    result = run_upstream(warehouse, ids, as_of=as_of, max_depth=max_depth, engine=engine)
    print_answer(warehouse, result, question="upstream", downstream=False, as_json=as_json, fmt=fmt, every=every,
                 limit=limit)
