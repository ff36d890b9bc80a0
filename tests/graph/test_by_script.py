"""The build extracts the events of one SQL text together (``facts.extract.by_script``), so the
per-process SQL caches analyse each text once per build instead of once per worker."""

from __future__ import annotations

import json

from lineage.facts.extract import by_script


def _job(n: int, text: str) -> tuple[str, str, str]:
    return ("maxcompute", f"e{n}", json.dumps({"additionalEventData": {"OperationText": text}}))


def test_events_of_one_text_are_adjacent_in_one_partition(spark):
    texts = [f"INSERT OVERWRITE TABLE p.t{i % 7} SELECT a FROM p.s{i % 7}" for i in range(70)]
    rows = [_job(i, t) for i, t in enumerate(texts)] + [("datahub", f"d{i}", "{}") for i in range(30)]
    events = spark.createDataFrame(rows, "source string, event_id string, doc string").repartition(5)
    parts = by_script(events).rdd.map(
        lambda r: json.loads(r["doc"]).get("additionalEventData", {}).get("OperationText")).glom().collect()
    assert len(parts) == 5
    seen = [text for part in parts for text in part]
    assert sorted(e for e in seen if e) == sorted(texts) and seen.count(None) == 30  # nothing lost
    for text in set(texts):  # each text's 10 events: in one partition, one run
        holding = [part for part in parts if text in part]
        assert len(holding) == 1
        part = holding[0]
        first = part.index(text)
        assert part[first:first + 10] == [text] * 10
    assert max(len(p) for p in parts) < 100  # events without a script are spread, not in one partition
