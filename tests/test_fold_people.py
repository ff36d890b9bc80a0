"""A person's display name (issue 28): every name events give a person is kept on the vertex, and
one rule picks ``name``: a login over an account spelling over a numeric uid, then the most
recently given.

Folded alone (``fold_one``): the names come from the text of the ids, which batching prefixes."""

from __future__ import annotations

import json
from datetime import datetime, timedelta, timezone

import pytest

from foldbatch import fold_one
from lineage import ids
from lineage.facts.core import Fact

T0 = datetime(2024, 7, 1, tzinfo=timezone.utc)
TABLE = "table:maxcompute:p.t"
CAROL = "user:aliyun:286098539641742801"  # only an approval's granteeName names her
DAN = "user:aliyun:1100000000000001"  # renamed: two logins over time, and a numeric name
DAVE = "user:maxcompute:ram$dave@x.example:sub"  # AddUser wrote the account's case
EVE = "user:aliyun:1100000000000002"  # merged: a DataHub corpuser and a MaxCompute account
NOBODY = "user:aliyun:42"  # no event names them
ALIASES = {"user:datahub:eve": EVE, "user:maxcompute:ram$eve@x.example:sub": EVE}


def at(days: float) -> datetime:
    return T0 + timedelta(days=days)


def fact(event, when, op, src, rel=None, dst=None, props=None, failed=False):
    return Fact(event_id=event, source="test", kind="Kind", event_time=when, actor=None, seq=0, op=op, src_id=src,
                src_label=ids.label_of(src), relationship=rel, dst_id=dst, dst_label=ids.label_of(dst) if dst else None,
                qualifier="select" if rel == "CAN_ACCESS" else "", properties=props or {}, valid_until=None,
                failed=failed)


def named(event, when, user, name, failed=False):
    return fact(event, when, "observe", user, props={"name": name}, failed=failed)


ROWS = [
    named("c1", at(0), CAROL, "RAM$corp:carol"),
    fact("c1", at(0), "assert", CAROL, "CAN_ACCESS", TABLE),
    named("d1", at(0), DAN, "dan.old"),
    named("d2", at(3), DAN, "dan.new"),
    named("d3", at(5), DAN, "1100000000000001"),  # a uid given as a name: never over a login
    named("d4", at(6), DAN, "dan.failed", failed=True),  # a failed operation names nobody
    named("v1", at(0), DAVE, "RAM$Dave@x.example:sub"),
    fact("v2", at(2), "assert", DAVE, "CAN_ACCESS", TABLE),  # the lower-cased id key, later
    fact("e1", at(1), "assert", "user:datahub:eve", "OWNS", TABLE),
    named("e2", at(4), "user:maxcompute:ram$eve@x.example:sub", "RAM$eve@x.example:sub"),
    fact("n1", at(1), "assert", NOBODY, "CAN_ACCESS", TABLE),
]


@pytest.fixture(scope="module")
def people(spark):
    vertices, _, _ = fold_one(spark, ROWS, ALIASES)
    return vertices


def names(vertex) -> list[str]:
    return json.loads(vertex["properties"]["names"])


def test_a_uid_named_only_by_an_approval_grantee_name_is_called_by_it(people):
    assert people[CAROL]["name"] == "RAM$corp:carol"
    assert names(people[CAROL]) == ["RAM$corp:carol"]


def test_the_most_recent_login_wins_and_a_numeric_name_comes_last(people):
    assert people[DAN]["name"] == "dan.new"
    assert names(people[DAN]) == ["dan.new", "dan.old", "1100000000000001"]


def test_a_name_is_kept_as_the_event_wrote_it_over_its_lower_cased_id_key(people):
    assert people[DAVE]["name"] == "RAM$Dave@x.example:sub"
    assert names(people[DAVE]) == ["RAM$Dave@x.example:sub"]


def test_a_merged_person_is_named_by_a_login_over_a_later_account_spelling(people):
    """Issue 69: the corpuser ``eve`` reads better than ``RAM$eve@x.example:sub``, given later."""
    assert people[EVE]["name"] == "eve"
    assert names(people[EVE]) == ["eve", "RAM$eve@x.example:sub"]
    assert json.loads(people[EVE]["properties"]["aliases"]) == [
        "1100000000000002", "eve", "ram$eve@x.example:sub"]  # what the name resolver answers to


def test_nobody_named_keeps_the_uid_and_no_names(people):
    assert people[NOBODY]["name"] == "42" and "names" not in people[NOBODY]["properties"]
    assert people[TABLE]["name"] == "p.t" and "names" not in people[TABLE]["properties"]
