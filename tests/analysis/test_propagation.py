"""Sensitive-tag propagation and exposure on a small hand-built graph; expected answers by hand.

Lineage (FEEDS, all from day 1)::

    crm.contacts ──► dw.users ──► mart.summary ◄── finance.cards ──► finance.cards_copy
                     │    ▲                      ◄── finance.misc
                     ▼    │
    raw.users ──► stg.users ──► tmp.debug ──► tmp.after
      ▲  │
      │  └──► anon.users ──► ml.features
      └── dw.users (cycle raw -> stg -> dw -> raw)

Marks: crm.contacts TAGGED PII (table); raw.users' column email TAGGED PII until day 10, and the
table TAGGED Tier1 (not sensitive); finance.cards HAS_LABEL 3; finance.cards_copy's column
HAS_LABEL 4; finance.misc HAS_LABEL 1 (below 2: not sensitive). Stops: anon.users TAGGED
NoPropagation from day 3; tmp.debug has the property propagate=false.
"""

from __future__ import annotations

from datetime import datetime, timezone

from lineage.analysis.propagation import exposure, propagate
from lineage.analysis.sensitivity import Sensitivity


def day(n: int) -> datetime:
    return datetime(2024, 7, n, tzinfo=timezone.utc)


DAY1 = day(1)


LABELS = {"user": "User", "role": "Role", "table": "Table", "label": "Label", "column": "Column", "tag": "Tag"}


def V(vid: str, **props: str) -> dict:
    return {"id": vid, "label": LABELS[vid.split(":")[0]], "name": vid.split(":")[-1], "first_seen": day(1),
            "last_seen": day(1), "deleted_at": None, "event_count": 1, "properties": props}


def E(src: str, rel: str, dst: str, qualifier: str = "", valid_from: datetime = DAY1, valid_to: datetime | None = None,
      **props: str) -> dict:
    return {"src": src, "dst": dst, "relationship": rel, "qualifier": qualifier,
            "src_label": LABELS[src.split(":")[0]], "dst_label": LABELS[dst.split(":")[0]],
            "valid_from": valid_from, "valid_to": valid_to, "last_seen": valid_from, "event_count": 1,
            "closed_by": "retract" if valid_to else None, "properties": props}


def t(name: str) -> str:
    return f"table:maxcompute:{name}"


CRM, RAW, STG, DW, MART = t("crm.contacts"), t("raw.users"), t("stg.users"), t("dw.users"), t("mart.summary")
ANON, ML, DEBUG, AFTER = t("anon.users"), t("ml.features"), t("tmp.debug"), t("tmp.after")
CARDS, COPY, MISC = t("finance.cards"), t("finance.cards_copy"), t("finance.misc")
EMAIL, COPY_PAN = "column:maxcompute:raw.users.email", "column:maxcompute:finance.cards_copy.pan"
PII, TIER1, STOP = "tag:datahub:PII", "tag:datahub:Tier1", "tag:datahub:NoPropagation"
L1, L3, L4 = "label:maxcompute:1", "label:maxcompute:3", "label:maxcompute:4"
URSULA, VICTOR, WENDY, XAVIER, YVONNE = (f"user:maxcompute:{n}" for n in ("ursula", "victor", "wendy", "xavier", "yvonne"))
READER = "role:maxcompute:raw.reader"

VERTICES = [
    *(V(x) for x in (CRM, RAW, STG, DW, MART, ANON, ML, AFTER, CARDS, COPY, MISC, EMAIL, COPY_PAN, PII, TIER1, STOP)),
    V(DEBUG, propagate="false"),
    V(L1, level="1"), V(L3, level="3"), V(L4, level="4"),
    *(V(u) for u in (URSULA, VICTOR, WENDY, XAVIER, YVONNE, READER)),
]
FEEDS = [(CRM, DW), (RAW, STG), (STG, DW), (DW, RAW), (DW, MART), (RAW, ANON), (ANON, ML), (STG, DEBUG),
         (DEBUG, AFTER), (CARDS, MART), (MISC, MART), (CARDS, COPY)]
MARKS = [
    E(CRM, "TAGGED", PII),
    E(RAW, "HAS_COLUMN", EMAIL), E(EMAIL, "TAGGED", PII, valid_to=day(10)), E(RAW, "TAGGED", TIER1),
    E(CARDS, "HAS_LABEL", L3), E(COPY, "HAS_COLUMN", COPY_PAN), E(COPY_PAN, "HAS_LABEL", L4), E(MISC, "HAS_LABEL", L1),
    E(ANON, "TAGGED", STOP, valid_from=day(3)),
]
GRANTS = [
    E(u, "CAN_ACCESS", MART, "select", privileges='["select"]') for u in (URSULA, VICTOR, WENDY, YVONNE)
] + [
    E(VICTOR, "CAN_ACCESS", CRM, "select", privileges='["select"]'),  # cleared for PII at an origin
    E(WENDY, "HAS_LABEL", L3),  # cleared for label 3
    E(YVONNE, "CAN_ACCESS", CARDS, "label", label="3"),  # label grant at the origin: cleared for label 3
    E(XAVIER, "HAS_ROLE", READER), E(READER, "CAN_ACCESS", RAW, "select", privileges='["select"]'),
    E(XAVIER, "CAN_ACCESS", STG, "select", privileges='["select"]'),
]
EDGES = [E(a, "FEEDS", b) for a, b in FEEDS] + MARKS + GRANTS


def rows(found) -> list[tuple]:
    return [(p.table, p.tag, p.origins, p.distance, p.path) for p in found]


def test_pii_and_label_propagate_around_the_cycle_and_stop() -> None:
    assert rows(propagate(VERTICES, EDGES, as_of=day(5))) == [
        # dw: nearest origin crm (1 hop); raw reaches it in 2 (raw, stg, dw)
        (DW, PII, (CRM, RAW), 1, (CRM, DW)),
        # label 3 from finance.cards; misc's label 1 is not sensitive
        (MART, L3, (CARDS,), 1, (CARDS, MART)),
        (MART, PII, (CRM, RAW), 2, (CRM, DW, MART)),
        # stg: raw in 1; crm in 3 (crm, dw, raw, stg)
        (STG, PII, (CRM, RAW), 1, (RAW, STG)),
        # not raw (carries PII itself, so the cycle brings nothing back), not anon/ml (stop tag),
        # not tmp.debug/tmp.after (propagate=false), not cards_copy (its own label 4 >= 3), no Tier1
    ]


def test_before_the_stop_tag_anon_and_its_downstream_receive() -> None:
    found = {(p.table, p.tag): (p.distance, p.path) for p in propagate(VERTICES, EDGES, as_of=day(2))}
    assert found[(ANON, PII)] == (1, (RAW, ANON))
    assert found[(ML, PII)] == (2, (RAW, ANON, ML))
    assert (DEBUG, PII) not in found and (AFTER, PII) not in found  # the property has no time: always stops


def test_when_the_origin_tag_is_removed_the_origin_becomes_a_receiver() -> None:
    assert rows(propagate(VERTICES, EDGES, as_of=day(12))) == [
        (DW, PII, (CRM,), 1, (CRM, DW)),
        (MART, L3, (CARDS,), 1, (CARDS, MART)),
        (MART, PII, (CRM,), 2, (CRM, DW, MART)),
        (RAW, PII, (CRM,), 2, (CRM, DW, RAW)),
        (STG, PII, (CRM,), 3, (CRM, DW, RAW, STG)),
    ]


def test_configurable_sensitivity_and_tag_filter() -> None:
    tier1 = Sensitivity(words=frozenset({"tier1"}), min_label_level=None)
    assert rows(propagate(VERTICES, EDGES, as_of=day(5), sensitivity=tier1)) == [
        (DW, TIER1, (RAW,), 2, (RAW, STG, DW)),
        (MART, TIER1, (RAW,), 3, (RAW, STG, DW, MART)),
        (STG, TIER1, (RAW,), 1, (RAW, STG)),
    ]
    assert [p.table for p in propagate(VERTICES, EDGES, as_of=day(5), tags=["label:maxcompute:3"])] == [MART]


def exposures(found) -> list[tuple]:
    return [(x.principal, x.table, x.marks, x.origin) for x in found]


def test_exposure_day_5() -> None:
    found = exposure(VERTICES, EDGES, as_of=day(5))
    assert exposures(found) == [
        # reads mart, no access at either origin, no clearance: one exposure (a pair), both marks listed,
        # named by the first (label 3, from finance.cards) (issue 68)
        (URSULA, MART, ("label 3", "PII"), CARDS),
        (VICTOR, MART, ("label 3",), CARDS),  # victor reads crm (a PII origin): not exposed for PII
        (WENDY, MART, ("PII",), CRM),  # wendy's label 3 clears her for label 3, not for PII
        (YVONNE, MART, ("PII",), CRM),  # yvonne's label grant at finance.cards clears label 3
        # xavier reads stg (PII from raw) but also raw via his role: cleared
    ]
    wendy = found[2]
    assert (wendy.tag, wendy.path, wendy.access_path, wendy.privileges, wendy.kinds) == (
        PII, (CRM, DW, MART), (WENDY, MART), ("select",), ("direct",))
    assert wendy.to_json()["access_path"] == [WENDY, MART] and wendy.to_json()["marks"] == ["PII"]


def test_exposure_changes_with_as_of() -> None:
    # day 12: the email column lost its PII tag, so raw is no longer an origin: xavier's access to
    # raw no longer clears him, and raw itself now holds PII propagated from crm
    assert exposures(exposure(VERTICES, EDGES, as_of=day(12))) == [
        (URSULA, MART, ("label 3", "PII"), CARDS),
        (VICTOR, MART, ("label 3",), CARDS),
        (WENDY, MART, ("PII",), CRM),
        (XAVIER, RAW, ("PII",), CRM),
        (XAVIER, STG, ("PII",), CRM),
        (YVONNE, MART, ("PII",), CRM),
    ]
    assert exposures(exposure(VERTICES, EDGES, as_of=day(5), tags=["pii"])) == [
        (URSULA, MART, ("PII",), CRM), (WENDY, MART, ("PII",), CRM), (YVONNE, MART, ("PII",), CRM)]
