"""Access drift counts (principal, object) pairs, privileges listed inside (issue 68, item 4): a
grant of ``select`` and ``describe`` is stored as one ``CAN_ACCESS`` interval per privilege, and the
report's "grants added" once counted each interval."""

from __future__ import annotations

from datetime import datetime, timedelta, timezone

from export.graphgen import write_graph

from lineage.report.context import Context
from lineage.report.drift import access_drift, counts
from lineage.report.window import Window

T0 = datetime(2024, 7, 1, tzinfo=timezone.utc)
WEEK = Window("2024-W27", T0, T0 + timedelta(days=7))
TABLE, OTHER = "table:maxcompute:p.t", "table:maxcompute:p.u"
ANN, BEN = "user:maxcompute:ann", "user:maxcompute:ben"


def grant(user, table, privilege, start, end=None):
    return {"src": user, "dst": table, "relationship": "CAN_ACCESS", "qualifier": privilege, "valid_from": start,
            "valid_to": end, "last_seen": start, "properties": {"privileges": f'["{privilege}"]'}}


def test_grants_are_counted_per_person_and_table_with_their_privileges_inside(tmp_path):
    day = T0 + timedelta(days=1)
    vertices = [{"id": i, "label": label, "name": i, "first_seen": T0 - timedelta(days=30)}
                for i, label in ((TABLE, "Table"), (OTHER, "Table"), (ANN, "User"), (BEN, "User"))]
    edges = [grant(ANN, TABLE, "select", day), grant(ANN, TABLE, "describe", day + timedelta(minutes=1)),
             grant(ANN, OTHER, "select", day),
             grant(BEN, TABLE, "select", T0 - timedelta(days=10), end=day),
             grant(BEN, TABLE, "update", T0 - timedelta(days=10), end=day)]
    ctx = Context.of(write_graph(tmp_path, vertices, edges))
    assert counts(ctx, WEEK) == {"opened": 2, "revoked": 1, "expired": 0}
    drift = access_drift(ctx, WEEK)
    assert [(g.principal, g.target, g.privileges) for g in drift.opened] == [
        (ANN, TABLE, ["describe", "select"]), (ANN, OTHER, ["select"])]  # by time, then principal and table
    assert [(g.principal, g.target, g.privileges) for g in drift.revoked] == [(BEN, TABLE, ["select", "update"])]
