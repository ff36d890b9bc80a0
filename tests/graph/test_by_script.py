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
    cores = spark.sparkContext.defaultParallelism
    assert len(parts) >= 5 and len(parts) % cores == 0  # whole waves of one task per core
    seen = [text for part in parts for text in part]
    assert sorted(e for e in seen if e) == sorted(texts) and seen.count(None) == 30  # nothing lost
    for text in set(texts):  # each text's 10 events: in one partition, one run
        holding = [part for part in parts if text in part]
        assert len(holding) == 1
        part = holding[0]
        first = part.index(text)
        assert part[first:first + 10] == [text] * 10
    # events without a script are spread by their id: Spark's xxhash64 of a null is its seed, not
    # null, so all of them (530,000 of a 10^6-event month) once went to one task
    assert sum(1 for part in parts if None in part) > 1


def test_a_one_word_operation_name_is_not_a_script_and_its_events_spread(spark):
    """MaxCompute's ``DATA_INGESTION``/``READ_TABLE`` in ``OperationText`` name an operation, not a
    script: nothing to analyse once per text, so a month's 94,000 of them need not share one task."""
    rows = [_job(i, "DATA_INGESTION") for i in range(60)] + [_job(100 + i, "SELECT 1") for i in range(10)]
    events = spark.createDataFrame(rows, "source string, event_id string, doc string").repartition(4)
    parts = by_script(events).rdd.map(lambda r: r["event_id"]).glom().collect()
    assert sorted(e for part in parts for e in part) == sorted(r[1] for r in rows)  # nothing lost
    assert max(sum(e.startswith("e") and int(e[1:]) < 60 for e in part) for part in parts) < 60
    assert len([part for part in parts if any(int(e[1:]) >= 100 for e in part)]) == 1  # the script's runs stay together
