"""Access drift: grants opened, revoked and expired in the window; who newly reads sensitive data.

A grant is one ``CAN_ACCESS`` interval (DESIGN.md): it opened at ``valid_from``, ended at
``valid_to`` (``closed_by`` says whether by expiry or by a revoke/return). Sensitive data is a
table carrying a sensitive tag or label, itself or propagated along lineage
(``lineage.analysis.propagation``); its readers are ``lineage access`` principals who read.
"""

from __future__ import annotations

from datetime import datetime

from lineage.analysis import propagation
from lineage.analysis.access import CAN_ACCESS, Edge, expiry_of, grant_kind, principals_at, privileges_of
from lineage.report.context import Context, iso
from lineage.report.model import Access, Exposure, Grant
from lineage.report.window import Window


def _inside(moment: datetime | None, window: Window) -> bool:
    return moment is not None and window.since <= moment < window.until


def _sorted(grants: list[Grant]) -> list[Grant]:
    return sorted(grants, key=lambda g: (g.at or "", g.principal, g.target, g.kind))


def sensitive_tables(ctx: Context, moment: datetime) -> list[str]:
    """Tables carrying a sensitive mark at ``moment``, themselves or by propagation."""
    snap = ctx.snapshot(moment)
    tables = {t for t, label in snap.labels.items() if label == "Table" and snap.exists(t) and propagation.carried(snap, t)}
    tables |= {p.table for p in propagation.propagated_at(snap)}
    return sorted(tables)


def sensitive_readers(ctx: Context, moment: datetime) -> set[str]:
    """Principals who can read a sensitive table at ``moment``."""
    snap = ctx.snapshot(moment)
    return {pid for t in sensitive_tables(ctx, moment) for pid, p in principals_at(snap, t).items() if p.reads}


def _pairs(ctx: Context, found: list[tuple[Edge, datetime | None]]) -> list[Grant]:
    """One Grant per (principal, object): a grant of several privileges is one interval per
    privilege (``CAN_ACCESS`` keyed by qualifier), so a person given ``select, describe`` on one
    table is one grant listing both, at its earliest moment."""
    by_pair: dict[tuple[str, str], list[tuple[Edge, datetime | None]]] = {}
    for edge, at in found:
        by_pair.setdefault((edge.src, edge.dst), []).append((edge, at))
    out = []
    for rows in by_pair.values():
        rows.sort(key=lambda r: iso(r[1]) or "")
        edge, at = rows[0]
        out.append(Grant(principal=edge.src, principal_name=ctx.name(edge.src), target=edge.dst,
                         target_name=ctx.name(edge.dst), privileges=sorted({p for e, _ in rows for p in privileges_of(e)}),
                         kind=", ".join(sorted({grant_kind(e) for e, _ in rows})), at=iso(at),
                         expires_at=min((iso(expiry_of(e)) for e, _ in rows if expiry_of(e)), default=None)))
    return _sorted(out)


def grants_in(ctx: Context, window: Window) -> tuple[list[Grant], list[Grant], list[Grant]]:
    """(opened, revoked, expired) in the window: (principal, object) pairs, privileges listed inside."""
    grants = [e for e in ctx.edges if e.relationship == CAN_ACCESS]
    opened = [(e, e.valid_from) for e in grants if _inside(e.valid_from, window)]
    revoked = [(e, e.valid_to) for e in grants if _inside(e.valid_to, window) and e.closed_by != "expiry"]
    ends = [(e, e.valid_to if e.closed_by == "expiry" else expiry_of(e)) for e in grants]
    expired = [(e, end) for e, end in ends if _inside(end, window)]
    return _pairs(ctx, opened), _pairs(ctx, revoked), _pairs(ctx, expired)


def counts(ctx: Context, window: Window) -> dict[str, int]:
    """Grants opened / revoked / expired in the window (the headline's figures), as pairs."""
    opened, revoked, expired = grants_in(ctx, window)
    return {"opened": len(opened), "revoked": len(revoked), "expired": len(expired)}


def access_drift(ctx: Context, window: Window) -> Access:
    grants = [e for e in ctx.edges if e.relationship == CAN_ACCESS]
    opened, revoked, expired = grants_in(ctx, window)
    start, end = sensitive_readers(ctx, window.since), sensitive_readers(ctx, window.until)
    snap = ctx.snapshot(window.until)
    dropped = []
    for e in grants:
        row = ctx.by_id.get(e.dst)
        if row and e.valid_at(window.until) and row.get("deleted_at") and row["deleted_at"] <= window.until:
            dropped.append((e, row["deleted_at"]))
    exposures = [Exposure(principal=x.principal, table=x.table, tag=x.tag, origin=x.origin, marks=list(x.marks))
                 for x in propagation.exposure_at(snap)]
    return Access(opened=opened, revoked=revoked, expired=expired,
                  newly_sensitive_readers=sorted(end - start), sensitive_readers_start=len(start),
                  sensitive_readers_end=len(end), exposures_end=exposures, open_on_dropped=_pairs(ctx, dropped))
