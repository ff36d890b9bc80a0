"""`lineage people --suggest-aliases`: the merges of people to review, in the aliases.csv format.

Reads the built graph's people (:mod:`lineage.analysis.suggest_aliases`) and writes the proposals,
each under a comment with its evidence, after the lines of the warehouse's aliases.csv already in
use: the whole file can replace it once reviewed. Registered on the root group by :mod:`lineage.cli`.
"""

from __future__ import annotations

from pathlib import Path

import click

from lineage.errors import UsageError


@click.command("people")
@click.option("--warehouse", required=True, type=click.Path(path_type=Path), help="Warehouse directory.")
@click.option("--suggest-aliases", "suggest", is_flag=True,
              help="Propose merges of people found under several ids, with the evidence for each.")
@click.option("--out", type=click.Path(path_type=Path, dir_okay=False),
              help="Write the proposed aliases.csv here (default: stdout).")
def people_command(warehouse: Path, suggest: bool, out: Path | None) -> None:
    """The people of the graph. With --suggest-aliases: the merges to review, as an aliases.csv
    (save it as WAREHOUSE/aliases.csv after review, then run `lineage build`)."""
    from lineage.analysis.suggest_aliases import people_rows, render, suggest as proposals_of
    from lineage.store.warehouse import Warehouse

    if not suggest:
        raise UsageError("lineage people: say what to do (--suggest-aliases)")
    wh = Warehouse.at(warehouse)
    existing = wh.aliases.read_text(encoding="utf-8").splitlines() if wh.aliases.is_file() else []
    proposals = proposals_of(people_rows(warehouse))
    text = render(proposals, existing, str(warehouse))
    if out is None:
        click.echo(text, nl=False)
    else:
        out.write_text(text, encoding="utf-8")
    click.echo(f"people: {len(proposals)} merge(s) proposed" + (f" in {out}" if out else ""), err=True)
