"""What each person should know and do this week (issue 69): a digest per person, read from the
report's own rows (its changes, their failed runs, the access that moved), so the digest never
says what the whole report does not.

A person's digest lists the changes upstream of what they own or read (what changed: kind,
columns, script; what of theirs it reaches), the runs of theirs that failed after one of those
changes, and the access they gained or lost; its ``action`` is the first rule of :data:`ACTIONS`
that applies, and its ``weight`` (:data:`WEIGHTS`) orders people by how much they have to act on.
Pure functions over the report's model.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping

from lineage.analysis.rules import BREAKS, EXPOSES, NOTIFIES, RESTRICTS
from lineage.report.model import Access, Change, Concern, Digest, FailedRun, Grant, Person

THEIRS_SHOWN = 3
EFFECT_ORDER = {BREAKS: 0, RESTRICTS: 1, EXPOSES: 2, NOTIFIES: 3}
WEIGHTS: dict[str, int] = {
    "failed": 1000,  # a definition of theirs failing since a change: act now, before any number of notices
    f"owner {BREAKS}": 20, f"reader {BREAKS}": 5,
    f"owner {RESTRICTS}": 10, f"reader {RESTRICTS}": 10,
    "lost": 10, "gained": 3,
    f"owner {EXPOSES}": 3, f"reader {EXPOSES}": 3,
    f"owner {NOTIFIES}": 1, f"reader {NOTIFIES}": 1,
}
"""How much each line of a digest asks of its person (the sum orders the digests)."""


class Value(str):
    """Event text inside an action (a name, a time, an error): escaped by each output, where the
    action's own words are not."""


Said = list  # words and Values, in order


def _what(c: Concern) -> Said:
    """``field_removal of p.src (column w removed) by alice``: a change as a digest line names it."""
    said: Said = [Value(c.kind), " of ", Value(c.entity_name)]
    if c.columns:
        said += [f" (column{'s' if len(c.columns) > 1 else ''} ", Value(", ".join(c.columns)),
                 f" {c.column_change})" if c.column_change else ")"]
    elif c.script:
        said += [" (script: ", Value(c.script), " changed)"]
    return said + ([" by ", Value(c.actor_name)] if c.actor_name else [])


def _theirs(c: Concern) -> Said:
    return [Value(", ".join(c.theirs)), f" and {c.more} more" if c.more else ""]


def _fix(d: Digest) -> Said | None:
    if not d.failed:
        return None
    run = d.failed[0]
    cause = next((c for c in d.concerns if run.definition_name in c.failing), None)
    return ["Fix ", Value(run.definition_name), ": it has failed since ", Value((run.time or "?")[:16]),
            *([" after ", *_what(cause)] if cause else []), *([": ", Value(run.error)] if run.error else [])]


def _first(d: Digest, why: str, effect: str) -> Concern | None:
    return next((c for c in d.concerns if c.why == why and c.effect == effect), None)


def _check_owned(d: Digest) -> Said | None:
    c = _first(d, "owner", BREAKS)
    return c and ["Check ", *_theirs(c), " against ", *_what(c), ": it may break them"]


def _check_read(d: Digest) -> Said | None:
    c = _first(d, "reader", BREAKS)
    return c and ["Check what you read from ", *_theirs(c), " after ", *_what(c)]


def _access(g: Grant) -> Said:
    return [" (", Value(", ".join(g.privileges) or "access"), ", ", Value((g.at or "?")[:10]), ")"]


def _lost(d: Digest) -> Said | None:
    return d.lost and ["Confirm you no longer need ", Value(d.lost[0].target_name), *_access(d.lost[0])]


def _restricted(d: Digest) -> Said | None:
    c = next((c for c in d.concerns if c.effect == RESTRICTS), None)
    return c and ["Make sure what you run on ", *_theirs(c), " still has access after ", *_what(c)]


def _gained(d: Digest) -> Said | None:
    return d.gained and ["Review your new access to ", Value(d.gained[0].target_name), *_access(d.gained[0])]


def _exposed(d: Digest) -> Said | None:
    c = next((c for c in d.concerns if c.effect == EXPOSES), None)
    return c and ["Review who can now reach ", *_theirs(c), " after ", *_what(c)]


def _note(d: Digest) -> Said | None:
    c = next(iter(d.concerns), None)
    return c and ["Note ", *_what(c), " (it reaches ", *_theirs(c), ")"]


def parts_of(said: Said) -> list[str]:
    """Words first, then event text, alternating (adjacent pieces of one kind joined): the
    digest's ``action_parts``, which the outputs escape at odd positions only."""
    out: list[str] = [""]
    for piece in said:
        if not piece:
            continue
        if isinstance(piece, Value) == (len(out) % 2 == 0):
            out[-1] += piece
        else:
            out.append(str(piece))
    return out


ACTIONS: tuple[Callable[[Digest], Said | None], ...] = (
    _fix, _check_owned, _check_read, _lost, _restricted, _gained, _exposed, _note)
"""The one thing to do, first rule that applies: a failure of theirs, then a break of what they
own, then of what they read, then access lost, then gained, then anything to note."""


def _concern(row: Change, why: str, theirs: Iterable[str], name: Callable[[str], str], pid: str) -> Concern:
    mine = set(theirs)
    names = sorted({name(a) for a in mine})
    failing = sorted({r.definition_name for r in row.failed_after if r.definition in mine}) if why == "owner" else []
    return Concern(failing=failing, by_them=row.actor == pid, change_id=row.change_id, kind=row.kind, effect=row.effect, entity_name=row.entity_name,
                   actor_name=row.actor_name, time=row.time, category=row.category, columns=row.columns,
                   column_change=row.column_change, script=row.script, why=why,  # type: ignore[arg-type]
                   theirs=names[:THEIRS_SHOWN], more=max(len(names) - THEIRS_SHOWN, 0))


def _failed(rows: Iterable[Change], owned: set[str]) -> list[FailedRun]:
    """The first failed run per definition of theirs, among the changes' evidence (oldest first)."""
    first: dict[str, FailedRun] = {}
    for row in rows:
        for run in row.failed_after:
            if run.definition in owned and (run.definition not in first or (run.time or "") < (first[run.definition].time or "")):
                first[run.definition] = run
    return sorted(first.values(), key=lambda r: (r.time or "", r.definition))


def digest(pid: str, reach: Mapping[str, Mapping[str, Iterable[str]]], rows: Mapping[str, Change],
           access: Access, name: Callable[[str], str]) -> Digest:
    """One person's digest (``reach``: change id -> owner/reader -> what of theirs it reaches)."""
    concerns = [_concern(rows[cid], why, theirs, name, pid) for cid, whys in reach.items() if cid in rows
                for why, theirs in sorted(whys.items()) if theirs]
    # others' changes before their own (they know what they did), what they own before what they read
    concerns.sort(key=lambda c: (EFFECT_ORDER.get(c.effect, 9), c.by_them, c.why != "owner", rows[c.change_id].rank))
    owned = {a for whys in reach.values() for a in whys.get("owner", ())}
    failed = _failed((rows[cid] for cid in reach if cid in rows), owned)
    gained = [g for g in access.opened if g.principal == pid]
    lost = [g for g in [*access.revoked, *access.expired] if g.principal == pid]
    weight = (WEIGHTS["failed"] * len({r.definition for r in failed}) + WEIGHTS["lost"] * len(lost)
              + WEIGHTS["gained"] * len(gained) + sum(WEIGHTS.get(f"{c.why} {c.effect}", 1) for c in concerns))
    draft = Digest(weight=weight, action="", concerns=concerns, failed=failed, gained=gained, lost=lost)
    said = parts_of(next((said for rule in ACTIONS if (said := rule(draft))), ["Nothing to do"]))
    return draft.model_copy(update={"action": "".join(said), "action_parts": said})


def with_digests(people: list[Person], reach: Mapping[str, Mapping[str, Mapping[str, Iterable[str]]]],
                 rows: Iterable[Change], access: Access, name: Callable[[str], str]) -> list[Person]:
    """Every person with their digest, and those whose own access moved (reason ``access``),
    most to act on first (then by name, then id)."""
    by_id = {r.change_id: r for r in rows}
    moved = {g.principal for g in [*access.opened, *access.revoked, *access.expired]}
    everyone = {p.id: p for p in people}
    for pid in moved - set(everyone):
        everyone[pid] = Person(id=pid, name=name(pid), reasons=["access"], changes=[], assets=[])
    found = [p.model_copy(update={"digest": digest(p.id, reach.get(p.id, {}), by_id, access, name)})
             for p in everyone.values()]
    return sorted(found, key=lambda p: (-p.digest.weight, p.name, p.id))  # type: ignore[union-attr]
