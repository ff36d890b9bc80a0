"""`impact column:...` and `upstream column:...`: column-precise answers (``lineage.analysis.columns``).

A decorator, so ``impact`` and ``upstream`` keep one signature: when every id given is a Column,
the command answers along column FEEDS (``--indirect`` adds the indirect ones, marked) instead of
the table-level walk.
"""

from __future__ import annotations

import functools
import json
from typing import Any, Callable

import click

from lineage import ids as ids_of

INDIRECT = click.option("--indirect", is_flag=True,
                        help="Columns only: also follow indirect column lineage (joins, filters, windows), marked.")


def columns_first(downstream: bool) -> Callable[[Callable[..., Any]], Callable[..., Any]]:
    """Answer column ids column-precisely; other ids go to the command (``--indirect`` dropped).
    Put it directly above the function, under ``resolving`` (names become ids first)."""

    def wrap(command: Callable[..., Any]) -> Callable[..., Any]:
        @functools.wraps(command)
        def run(*args: Any, **kwargs: Any) -> Any:
            indirect = kwargs.pop("indirect", False)
            given = kwargs["ids"]
            if not given or any(ids_of.label_of(i) != "Column" for i in given):
                if indirect:
                    raise click.UsageError("--indirect is for column ids only")
                return command(*args, **kwargs)
            from lineage.analysis.columns import ask

            result = ask(kwargs["warehouse"], given, as_of=kwargs.get("as_of"), max_depth=kwargs.get("max_depth"),
                         engine=kwargs.get("engine", "auto"), indirect=indirect, downstream=downstream)
            if kwargs.get("fmt"):
                raise click.UsageError("--format is not drawn for column answers yet: use --json or the text answer")
            if kwargs.get("as_json"):
                click.echo(json.dumps(result.to_json()))
            else:
                click.echo(text(result))
            return None

        return run

    return wrap


def text(result: Any) -> str:
    """The human answer: one line per vertex, nearest first, marks at the end (ids escaped)."""
    from lineage.render.escape import terminal

    question = "impact" if result.downstream else "upstream"
    lineage = "direct and indirect" if result.indirect else "direct"
    lines = [f"{question} of {', '.join(terminal(s) for s in result.sources)} as of {result.as_of.isoformat()} "
             f"({lineage} column lineage, engine {result.engine})"]
    for r in result.affected:
        marks = " ".join(m for m, on in (("indirect", r.indirect), ("fallback", r.fallback)) if on)
        lines.append(f"{r.distance:>4}  {r.label or '-':<10} {terminal(r.id)}" + (f"  [{marks}]" if marks else ""))
    fallback = [r for r in result.affected if r.fallback and r.label == "Table"]
    if fallback:
        lines.append(f"fallback: {len(fallback)} table(s) taken whole, written by jobs whose column lineage is partial")
    counts: dict[str, int] = {}
    for r in result.affected:
        counts[r.label or "-"] = counts.get(r.label or "-", 0) + 1
    lines.append("summary: " + (", ".join(f"{k} {v}" for k, v in sorted(counts.items())) or "nothing reached"))
    return "\n".join(lines)
