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


def _grant(ctx: Context, edge: Edge, at: datetime | None) -> Grant:
    return Grant(principal=edge.src, principal_name=ctx.name(edge.src), target=edge.dst, target_name=ctx.name(edge.dst),
                 privileges=list(privileges_of(edge)), kind=grant_kind(edge), at=iso(at), expires_at=iso(expiry_of(edge)))


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


def counts(ctx: Context, window: Window) -> dict[str, int]:
    """Grants opened / revoked / expired in the window (the headline's figures)."""
    grants = [e for e in ctx.edges if e.relationship == CAN_ACCESS]
    return {
        "opened": sum(_inside(e.valid_from, window) for e in grants),
        "revoked": sum(_inside(e.valid_to, window) and e.closed_by != "expiry" for e in grants),
        "expired": sum(_inside(e.valid_to if e.closed_by == "expiry" else expiry_of(e), window) for e in grants),
    }


def access_drift(ctx: Context, window: Window) -> Access:
    grants = [e for e in ctx.edges if e.relationship == CAN_ACCESS]
    opened = [_grant(ctx, e, e.valid_from) for e in grants if _inside(e.valid_from, window)]
    revoked = [_grant(ctx, e, e.valid_to) for e in grants if _inside(e.valid_to, window) and e.closed_by != "expiry"]
    expired = []
    for e in grants:
        end = e.valid_to if e.closed_by == "expiry" else expiry_of(e)
        if _inside(end, window):
            expired.append(_grant(ctx, e, end))
    start, end = sensitive_readers(ctx, window.since), sensitive_readers(ctx, window.until)
    snap = ctx.snapshot(window.until)
    dropped = []
    for e in grants:
        row = ctx.by_id.get(e.dst)
        if row and e.valid_at(window.until) and row.get("deleted_at") and row["deleted_at"] <= window.until:
            dropped.append(_grant(ctx, e, row["deleted_at"]))
    exposures = [Exposure(principal=x.principal, table=x.table, tag=x.tag, origin=x.origin)
                 for x in propagation.exposure_at(snap)]
    return Access(opened=_sorted(opened), revoked=_sorted(revoked), expired=_sorted(expired),
                  newly_sensitive_readers=sorted(end - start), sensitive_readers_start=len(start),
                  sensitive_readers_end=len(end), exposures_end=exposures, open_on_dropped=_sorted(dropped))
