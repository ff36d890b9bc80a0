"""The people a report could not merge: still under several ids, and how to merge them.

The proposals are :func:`lineage.analysis.suggest_aliases.suggest`'s over the graph's people (the
report's context holds them): counted, not merged. Nothing is merged until a person reviews them.
"""

from __future__ import annotations

from lineage.graph.props import properties_of
from lineage.analysis.suggest_aliases import person_of, suggest
from lineage.report.context import Context
from lineage.report.model import Person, Unmerged

HOW = ("run `lineage people --warehouse DIR --suggest-aliases --out DIR/aliases.csv`, review the proposals "
       "(each line says why), then `lineage build --warehouse DIR`")


def unmerged(ctx: Context, people: list[Person]) -> Unmerged:
    """The count of people under several ids: in the whole graph and among ``people``."""
    rows = [{**row, "properties": properties_of(row.get("properties"))} for row in ctx.vertices if row.get("label") == "User"]
    proposals = suggest(person_of(row) for row in rows)
    groups: dict[str, set[str]] = {}
    for p in proposals:
        groups.setdefault(p.canonical.id, {p.canonical.id}).add(p.alias.id)
    named = {person.id for person in people}
    return Unmerged(people=len(groups), ids=sum(len(g) for g in groups.values()),
                    named_here=sum(bool(g & named) for g in groups.values()), how=HOW)
