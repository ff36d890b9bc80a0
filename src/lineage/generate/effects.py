"""Planted access changes whose effects ``lineage blast-radius`` must find (issue 29).

Two kinds, from their own random stream (``<seed>:effects:<day>``) and written after every other
record of a day (the rest of a seed's output is unchanged):

* a **revoke that breaks a scheduled job**: a node's owner is granted a table the node reads
  (early on the day, before the runs), then the grant is revoked that evening; the node reads
  the table every day before and is scheduled on the days after, so it will fail. The owner had
  no other path to the table (no grant, approval, label or role of theirs ever named it), so
  the graph shows the loss. Only nodes whose reads the graph sees (``SQL_READS``) are chosen;
* a **grant on a sensitive table** (PII-tagged, label-secured) to a person with no path to it
  before: an ACL grant and a label grant.

``truth.Truth`` writes ``truth/effects.json`` from the intents' ``effect`` arguments.
"""

from __future__ import annotations

import random
from datetime import datetime, timedelta
from typing import TYPE_CHECKING

from lineage.generate.model import Intent, Platform

if TYPE_CHECKING:
    from lineage.generate.plan import State

REVOKES = 2
"""Revokes planted per platform (a platform of at least two days)."""
GRANTS = ("GrantACL", "GrantLabel")
"""The sensitive grants planted, one of each."""
SQL_READS = frozenset({"insert", "cte", "ctas", "multi"})
"""Node kinds whose reads the graph knows (``(Node)-[:READS]->`` from the job's SQL): a non-SQL
node's reads are its jobs' (``ReadTableData``) and a job is owned by no one in the graph."""
GRANT_KINDS = frozenset({"GrantACL", "GrantLabel", "approval-change-finished", "ApplyPrivilege",
                         "ApprovePrivilege", "GrantPermission"})
"""Intents that may give their ``person`` a path to their ``table`` (counted even when they fail)."""


def touch(state: State, intents: list[Intent]) -> None:
    """Remember every (person, table) and (person, role) any grant ever named: a plant's person
    must have had no path before (conservative: expiries and revokes are not subtracted)."""
    for intent in intents:
        args = intent.args
        if intent.kind in GRANT_KINDS and "person" in args and "table" in args:
            state.touched.add((args["person"], args["table"]))
        elif intent.kind == "GrantRole":
            state.roled.add((args["person"], args["role"]))


def reached(platform: Platform, state: State, person: int, table: int) -> bool:
    return (person, table) in state.touched or any(
        (person, r) in state.roled and table in allowed for r, (_, _, allowed) in enumerate(platform.roles))


def revoke_days(days: int) -> list[int]:
    """The days of the planted revokes: inside the window, with a scheduled run after each."""
    return [(days - 2) * (r + 1) // (REVOKES + 1) for r in range(REVOKES)] if days >= 2 else []


def grant_days(days: int) -> list[int]:
    return [(days - 1) * (g + 1) // (len(GRANTS) + 1) for g in range(len(GRANTS))]


def plant_day(platform: Platform, state: State, index: int) -> list[Intent]:
    """The day's planted revokes and grants (after the day's plan: ``state`` is the day's end)."""
    rng = random.Random(f"{platform.seed}:effects:{index}")
    day = platform.day(index)
    out: list[Intent] = []
    live = [t for t in platform.tables if not t.planted and t.index not in state.dropped]
    readers: dict[int, list[int]] = {}
    for n, node in enumerate(platform.nodes):
        if not node.planted and n not in state.deleted_nodes:
            for t in node.inputs:
                readers.setdefault(t, []).append(n)
    for _ in range(revoke_days(platform.days).count(index)):
        candidates = []
        for table in live:
            if table.pii:
                continue
            for person in sorted({platform.nodes[n].owner for n in readers.get(table.index, ())}):
                nodes = [n for n in readers[table.index] if platform.nodes[n].owner == person]
                if all(platform.nodes[n].kind in SQL_READS for n in nodes) and not reached(platform, state, person, table.index):
                    candidates.append((person, table.index, tuple(nodes)))
        if not candidates:
            continue
        person, table, nodes = rng.choice([c for c in candidates if len(c[2]) > 1] or candidates)  # more may fail
        state.touched.add((person, table))
        actor = platform.table(table).owner
        out.append(Intent(day + timedelta(minutes=10 + rng.random() * 10), "GrantACL",
                          {"person": person, "table": table, "actor": actor, "effect": "exposes"}))
        out.append(Intent(day + timedelta(hours=19, minutes=rng.random() * 60), "RevokeACL",
                          {"person": person, "table": table, "actor": actor, "effect": "restricts", "nodes": nodes}))
    for g, kind in enumerate(GRANTS):
        if grant_days(platform.days)[g] != index:
            continue
        pairs = [(p.index, t.index) for t in live if t.pii for p in platform.people
                 if p.index != t.owner and not reached(platform, state, p.index, t.index)]
        if not pairs:
            continue
        person, table = rng.choice(pairs)
        state.touched.add((person, table))
        moment = day + timedelta(hours=20 + g, minutes=rng.random() * 50)
        actor = platform.table(table).owner if kind == "GrantACL" else 0  # labels: the admin
        args = {"person": person, "table": table, "actor": actor, "effect": "exposes", "sensitive": True}
        out.append(Intent(moment, kind, {**args, "level": 2, "days": None} if kind == "GrantLabel" else args))
    return out


def may_fail(platform: Platform, nodes: tuple[int, ...], table_id: str, moment: datetime,
             read_at: dict[tuple[int, str], datetime], lookback: timedelta = timedelta(days=7)) -> list[str]:
    """The nodes of a planted revoke that read the table in the ``lookback`` before it (a finished
    run: the graph's READS) and so fail on their next run."""
    return sorted(platform.nodes[n].id for n in nodes
                  if moment - lookback <= read_at.get((n, table_id), moment) < moment)
