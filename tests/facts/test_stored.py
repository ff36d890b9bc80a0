"""A ``pairs`` fact's text is stored once, apart from the facts (``lineage.facts.core.stored``): the
facts hold its key, and the text goes to the writer once per task, before the first fact naming it."""

from __future__ import annotations

import hashlib
from datetime import datetime

from lineage.facts.core import PAIRS, PAIRS_KEY, TEXT, Fact, stored

TEXT_A = '[{"dst": "column:maxcompute:p.b.x", "qualifier": "direct", "src": "column:maxcompute:p.a.x", "transformations": ["IDENTITY"]}]'
TEXT_B = TEXT_A.replace("p.b.x", "p.c.x")


def _fact(event: str, op: str, **props: str) -> Fact:
    return Fact(event_id=event, source="maxcompute", kind="Instance", event_time=datetime(2026, 11, 2), actor=None, seq=3,
                op=op, src_id="job:maxcompute:p.j", src_label="Job", relationship=None, dst_id=None, dst_label=None,
                qualifier="", properties=dict(props), valid_until=None, failed=False)


def test_each_text_travels_once_and_the_facts_hold_its_key():
    facts = [_fact("e1", PAIRS, pairs=TEXT_A), _fact("e1", "observe", column_lineage="complete"),
             _fact("e2", PAIRS, pairs="".join(TEXT_A)), _fact("e3", PAIRS, pairs=TEXT_B)]
    sent = list(stored(facts, {}))
    key_a, key_b = (hashlib.sha256(t.encode()).hexdigest() for t in (TEXT_A, TEXT_B))
    assert [(f.event_id, f.op) for f in sent] == [("e1", TEXT), ("e1", PAIRS), ("e1", "observe"), ("e2", PAIRS),
                                                  ("e3", TEXT), ("e3", PAIRS)]
    assert [(f.src_id, f.properties) for f in sent if f.op == TEXT] == [(key_a, {PAIRS: TEXT_A}), (key_b, {PAIRS: TEXT_B})]
    assert [f.properties for f in sent if f.op == PAIRS] == [{PAIRS_KEY: key_a}, {PAIRS_KEY: key_a}, {PAIRS_KEY: key_b}]
    assert sent[2] == facts[1]  # other facts as they were
    # the pairs facts are otherwise as extracted (event, job, time, seq)
    assert all(s._replace(properties={}) == f._replace(properties={}) for s, f in zip([sent[1], sent[3], sent[5]],
                                                                                      [facts[0], facts[2], facts[3]]))


def test_a_text_already_sent_by_the_task_is_not_sent_again():
    keys: dict[str, str] = {}
    first = list(stored([_fact("e1", PAIRS, pairs=TEXT_A)], keys))
    second = list(stored([_fact("e2", PAIRS, pairs=TEXT_A)], keys))
    assert [f.op for f in first] == [TEXT, PAIRS] and [f.op for f in second] == [PAIRS]
    assert second[0].properties == first[1].properties
