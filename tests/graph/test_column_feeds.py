"""A job run's column lineage as one ``pairs`` fact folds to exactly the graph that one assert per pair
folds to (``lineage.graph.column_feeds``): the column FEEDS rows and the Column vertices, row by row,
on the generated platform's facts -- with a key that facts of the other shape (an OpenLineage column
FEEDS) also assert, and with runs whose event also states columns (a CTAS)."""

from __future__ import annotations

import json
from datetime import timedelta

import pytest

from foldbatch import fold_rows
from lineage.facts.core import PAIRS, PAIRS_KEY, Fact
from lineage.graph import resolve
from lineage.graph.column_feeds import VIA_LIMIT
from lineage.store.schema import FACTS

pytestmark = pytest.mark.spark


def _per_pair(row: dict) -> list[Fact]:
    """One pairs fact as the asserts it stands for, written here from the format, not the fold: ``via``
    names the run's definition (the node that submitted the job) if it has one, else the job."""
    pairs = json.loads(row["properties"]["pairs"])
    via = row["properties"].get("definition") or row["src_id"]
    return [Fact(**{**row, "seq": row["seq"] * 1000 + i, "op": "assert", "src_id": p["src"], "src_label": "Column",
                    "relationship": "FEEDS", "dst_id": p["dst"], "dst_label": "Column", "qualifier": p["qualifier"],
                    "properties": {"via": json.dumps([via]), "transformations": json.dumps(p["transformations"])}})
            for i, p in enumerate(pairs)]


def _inline(fact: Fact, texts: dict[str, str]) -> Fact:
    """A stored ``pairs`` fact with its text back in place of its key (the fact as extracted)."""
    if fact.op != PAIRS:
        return fact
    props = {k: v for k, v in fact.properties.items() if k != PAIRS_KEY}
    return fact._replace(properties={**props, "pairs": texts[fact.properties[PAIRS_KEY]]})


def _key(row: dict) -> str:
    return repr(sorted((k, sorted(v.items()) if isinstance(v, dict) else v) for k, v in row.items()))


def test_pairs_fold_as_one_assert_per_pair(spark, generated):
    stored = resolve.current(spark.read.parquet(str(generated.warehouse / "facts")).select(*FACTS.names))
    texts = {r["text"]: r["pairs"] for r in spark.read.parquet(str(generated.warehouse / "pairs_texts")).collect()}
    facts = [_inline(Fact(**r.asDict()), texts) for r in stored.collect()]
    runs = [f._asdict() for f in facts if f.op == PAIRS]
    assert len(runs) > 50, "the generated platform's jobs have column lineage"
    ctas = {f.event_id for f in facts if f.relationship == "HAS_COLUMN"}
    assert ctas & {r["event_id"] for r in runs}, "some runs' events also state columns"
    # another source asserts a pair one run has, a day later, through another job
    run = runs[0]
    pair = json.loads(run["properties"]["pairs"])[0]
    other = Fact(event_id="ol-1", source="openlineage", kind="RunEvent", event_time=run["event_time"] + timedelta(days=1),
                 actor=None, seq=0, op="assert", src_id=pair["src"], src_label="Column", relationship="FEEDS",
                 dst_id=pair["dst"], dst_label="Column", qualifier=pair["qualifier"],
                 properties={"via": json.dumps(["job:openlineage:ns.other"]), "transformations": json.dumps(["AGGREGATION"])},
                 valid_until=None, failed=False)
    # a script that a job ran, then another job no node submitted, after every other run, more times
    # than a FEEDS lists definitions: both are listed (the first by its node if it has one)
    first = next(r for r in runs if not r["failed"])
    last = max(r["event_time"] for r in runs)
    own = {k: v for k, v in first["properties"].items() if k != "definition"}
    again = [Fact(**{**first, "event_id": f"again-{i}", "event_time": last + timedelta(hours=i),
                     "src_id": first["src_id"] + "_again", "properties": own}) for i in range(1, VIA_LIMIT + 2)]
    runs += [f._asdict() for f in again]
    added = [other, *again]
    as_asserts = [f for f in facts if f.op != PAIRS] + [f for r in runs for f in _per_pair(r)] + [other]

    got_v, got_e, _ = fold_rows(spark, facts + added, {})  # as the build folds: shared frames persisted, then released
    want_v, want_e, _ = fold_rows(spark, as_asserts, {})
    assert sorted(map(_key, got_e)) == sorted(map(_key, want_e))
    assert sorted(map(_key, got_v)) == sorted(map(_key, want_v))
    [merged] = [e for e in got_e if (e["src"], e["dst"], e["qualifier"], e["relationship"])
                == (pair["src"], pair["dst"], pair["qualifier"], "FEEDS")]
    assert "job:openlineage:ns.other" in json.loads(merged["properties"]["via"]), "the two shapes fold together"
    assert "AGGREGATION" in json.loads(merged["properties"]["transformations"])
    first_pair = json.loads(first["properties"]["pairs"])[0]
    [rerun] = [e for e in got_e if (e["src"], e["dst"], e["qualifier"], e["relationship"])
               == (first_pair["src"], first_pair["dst"], first_pair["qualifier"], "FEEDS")]
    named = first["properties"].get("definition") or first["src_id"]
    assert {named, first["src_id"] + "_again"} <= set(json.loads(rerun["properties"]["via"]))
