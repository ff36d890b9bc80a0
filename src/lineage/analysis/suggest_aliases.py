"""Merges to propose: people the graph still holds under several ids, with the evidence for each.

The build merges what the platform itself ties together (``lineage.graph.identities``) and what
the alias file says. For the rest, two people of different platforms are proposed as one when
they share a name (:data:`EVIDENCE`): the same user name (a DataHub corpuser, the user of a
``RAM$<account>:<user>`` account, a login an event gives) or the same display name (a name with a
space in it). A name shared by two people of one platform proves nothing (``sub``, ``admin``):
it proposes nothing. A person two names would merge into two different people is not proposed.
The proposals are written in the alias file's format (:func:`render`) for a person to review:
nothing is merged until they are saved as ``DIR/aliases.csv`` and the graph is built again.
"""

from __future__ import annotations

import csv
import io
import json
import re
from collections import defaultdict
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Callable, Iterable, Mapping

from lineage.ids import key_of
from lineage.render.escape import visible

CANONICAL_ORDER = ("aliyun", "maxcompute", "dataphin", "datahub")
"""Which id a proposed merge keeps: the Aliyun uid first (the generated and documented alias
files' convention), then the account, the Dataphin user, the corpuser."""

ACCOUNT = re.compile(r"^(?:ram|aliyun)\$(?P<account>[^:]*)(?::(?P<user>.*))?$", re.IGNORECASE)


def _account_names(text: str) -> list[str] | None:
    """The names in an account spelling: its user and its account's mailbox name
    (``RAM$corp@x.com:dev`` -> ``dev``, ``corp``; ``ALIYUN$bob@x.com`` -> ``bob``); None: not one.
    A main account's name that all its RAM users share is shared within one platform: it proposes nothing."""
    found = ACCOUNT.match(text)
    if found is None:
        return None
    return [n for n in (found["user"], found["account"].split("@", 1)[0]) if n]


def user_names(person: "Person") -> set[str]:
    """The logins a person goes by: id keys that are logins and given names without a space."""
    found = set()
    for text in (*person.keys, *person.names):
        names = _account_names(text)
        if names is None and (text.isdigit() or any(c.isspace() for c in text)):
            continue  # a uid or a display name
        found.update(n.strip().lower() for n in (names if names is not None else [text]))
    return {n for n in found if n and "*" not in n}  # masked names (``******``) prove nothing


def display_names(person: "Person") -> set[str]:
    """The display names a person is given (a name with a space), case and spacing ignored."""
    return {" ".join(n.split()).lower() for n in person.names if any(c.isspace() for c in n.strip())}


EVIDENCE: tuple[tuple[str, Callable[["Person"], set[str]]], ...] = (
    ("same user name", user_names),
    ("same display name", display_names),
)
"""Each kind of evidence and the names of a person it compares."""


@dataclass(frozen=True)
class Person:
    """A User vertex: its id, name, the keys of every id merged into it and every name given it."""

    id: str
    name: str
    keys: tuple[str, ...]
    names: tuple[str, ...]

    @property
    def platform(self) -> str:
        return self.id.split(":", 2)[1]


@dataclass(frozen=True)
class Proposal:
    """Merge ``alias`` into ``canonical`` because of ``evidence`` (``kind 'name'`` each)."""

    alias: Person
    canonical: Person
    evidence: tuple[str, ...]


def person_of(row: Mapping[str, Any]) -> Person:
    """A :class:`Person` from a vertex row (``properties``: ``names`` and ``aliases``, JSON lists)."""
    props = row.get("properties") or {}

    def listed(key: str) -> list[str]:
        try:
            return [str(v) for v in json.loads(props.get(key) or "[]")]
        except (ValueError, TypeError):
            return []

    namespace = row["id"].split(":", 2)[1]
    own = [key_of(row["id"])] if namespace in ("maxcompute", "datahub") else []
    names = listed("names") or ([row["name"]] if row.get("name") else [])
    return Person(row["id"], row.get("name") or key_of(row["id"]), tuple(own + listed("aliases")), tuple(names))


def _rank(person: Person) -> tuple[int, str]:
    order = CANONICAL_ORDER.index(person.platform) if person.platform in CANONICAL_ORDER else len(CANONICAL_ORDER)
    return order, person.id


def suggest(people: Iterable[Person]) -> list[Proposal]:
    """Every merge the evidence supports, sorted by canonical id then alias id."""
    people = sorted(people, key=_rank)
    found: dict[tuple[str, str], list[str]] = defaultdict(list)  # (alias id, canonical id) -> evidence
    by_id = {p.id: p for p in people}
    for kind, names_of in EVIDENCE:
        holders: dict[str, list[Person]] = defaultdict(list)
        for person in people:
            for name in names_of(person):
                holders[name].append(person)
        for name, group in sorted(holders.items()):
            platforms = [p.platform for p in group]
            if len(group) < 2 or len(set(platforms)) < len(platforms):
                continue  # alone, or shared within one platform: not a person's name
            canonical = min(group, key=_rank)
            for person in group:
                if person is not canonical:
                    found[(person.id, canonical.id)].append(f"{kind} {name!r}")
    targets: dict[str, set[str]] = defaultdict(set)
    for alias, canonical in found:
        targets[alias].add(canonical)
    return sorted((Proposal(by_id[a], by_id[c], tuple(dict.fromkeys(found[(a, c)])))
                   for (a, c) in found if len(targets[a]) == 1 and c not in targets),
                  key=lambda p: (p.canonical.id, p.alias.id))


def people_rows(warehouse: str | Path) -> list[Person]:
    """The graph's User vertices (the whole history), read with pyarrow."""
    import pyarrow.compute as pc
    import pyarrow.parquet as pq

    from lineage.graph.api import built

    table = pq.read_table(str(built(warehouse, "vertices").vertices), columns=["id", "label", "name", "properties"],
                          filters=[("label", "=", "User")])
    props = table.column("properties")
    names = pc.map_lookup(props, query_key="names", occurrence="last").to_pylist()
    aliases = pc.map_lookup(props, query_key="aliases", occurrence="last").to_pylist()
    return [person_of({"id": i, "name": n, "properties": {"names": a, "aliases": b}})
            for i, n, a, b in zip(table.column("id").to_pylist(), table.column("name").to_pylist(), names, aliases)]


def _field(text: str) -> str:
    out = io.StringIO()
    csv.writer(out, lineterminator="").writerow([text])
    return out.getvalue()


def render(proposals: list[Proposal], existing: Iterable[str] = (), source: str = "") -> str:
    """The proposals as an alias file (``lineage.graph.aliases``): a comment with each one's
    evidence above its line (event text made visible: one line each), after the lines of the
    alias file already in use (``existing``), so the whole can replace it."""
    lines = ["# proposed by `lineage people --suggest-aliases`" + (f" on {visible(source)}" if source else ""),
             "# review: delete every line you do not agree with; then save this as <warehouse>/aliases.csv",
             "# and run `lineage build` (one person per merged group from then on)",
             "alias,canonical"]
    kept = [line for line in existing if line.strip() and not line.lstrip().startswith("#")]
    if kept and kept[0].replace(" ", "").lower() == "alias,canonical":
        kept = kept[1:]
    if kept:
        lines += ["# already in the alias file", *kept]
    for p in proposals:
        lines.append(f"# {visible(p.alias.name)} ({visible(p.alias.id)}) is {visible(p.canonical.name)} "
                     f"({visible(p.canonical.id)}): {visible('; '.join(p.evidence))}")
        if visible(p.alias.id) != p.alias.id or visible(p.canonical.id) != p.canonical.id:
            lines.append("# not written as a line: an id holds a control character (write it by hand)")
            continue
        lines.append(f"{_field(p.alias.id)},{_field(p.canonical.id)}")
    return "\n".join(lines) + "\n"
