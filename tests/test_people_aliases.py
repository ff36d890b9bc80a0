"""People once, by a readable name (issue 69, item 2).

A generated platform (its ``aliases.csv`` is where the generator planted who is who) is built
*without* that file: the build merges what the events tie together themselves (each MaxCompute
account into the uid ActionTrail gives beside it), and `lineage people --suggest-aliases` proposes
exactly the rest of the planted pairs (the Dataphin user and the DataHub corpuser of each person)
and nothing else. Accepted (saved as the warehouse's aliases.csv, built again), every person is one
vertex, named by their login, and nothing more is proposed.

The rules of :func:`suggest` on their own: a name shared within one platform proposes nothing.
"""

from __future__ import annotations

import csv
import json

import pytest
from click.testing import CliRunner

from lineage.analysis.suggest_aliases import Person, suggest
from lineage.cli import main
from lineage.graph.aliases import read_aliases

TABLES, DAYS = 40, 2


def _planted(path) -> dict[str, str]:
    return read_aliases(path)


@pytest.fixture(scope="module")
def unmerged(spark, tmp_path_factory):
    """A generated platform ingested and built without its alias file."""
    from lineage.generate import generate
    from lineage.graph.build import build

    root = tmp_path_factory.mktemp("people")
    generate(root / "platform", tables=TABLES, days=DAYS)
    warehouse = root / "warehouse"
    ran = CliRunner().invoke(main, ["ingest", str(root / "platform" / "events"), "--warehouse", str(warehouse)])
    assert ran.exit_code == 0, ran.output
    result = build(warehouse, spark=spark)
    return root, warehouse, result


def _suggested(warehouse, out) -> dict[str, str]:
    ran = CliRunner().invoke(main, ["people", "--warehouse", str(warehouse), "--suggest-aliases", "--out", str(out)])
    assert ran.exit_code == 0, ran.output
    return read_aliases(out)


def _users(warehouse) -> dict[str, dict]:
    import pyarrow.parquet as pq

    from lineage.graph.api import built

    rows = pq.read_table(str(built(warehouse, "vertices").vertices), filters=[("label", "=", "User")]).to_pylist()
    return {r["id"]: r for r in rows}


def _requesters(events) -> dict[str, str]:
    """account id -> uid, as the generated ActionTrail files give them side by side (read here
    with json, not through the mapping under test)."""
    import gzip

    found = {}
    for path in sorted((events / "maxcompute").rglob("*.json.gz")):
        for event in json.loads(gzip.open(path, "rt").read() or "[]"):
            who = event.get("userIdentity") or {}
            if who.get("userName") and str(who.get("principalId", "")).isdigit():
                found["user:maxcompute:" + who["userName"].lower()] = "user:aliyun:" + who["principalId"]
    return found


def test_the_platforms_own_ties_merge_every_account_into_its_uid(unmerged):
    root, warehouse, result = unmerged
    tied = _requesters(root / "platform" / "events")
    users = _users(warehouse)
    assert tied and result.tied_identities >= len(tied)  # DataWorks' granteeNames tie some more
    assert not set(tied) & set(users)  # no account that acted is a person of its own
    for account, uid in tied.items():
        aliases = json.loads(dict(users[uid]["properties"]).get("aliases", "[]"))
        assert account.split(":", 2)[2] in aliases


def _groups(pairs: dict[str, str]) -> set[frozenset[str]]:
    merged: dict[str, set[str]] = {}
    for alias, canonical in pairs.items():
        merged.setdefault(canonical, {canonical}).add(alias)
    return {frozenset(g) for g in merged.values()}


def test_suggest_aliases_proposes_the_planted_pairs_and_nothing_else(unmerged, tmp_path):
    """The planted people still under several ids, each id with a name to compare (a uid no event
    names is only a number: nothing proves who it is), are exactly the proposed groups; each kept
    under its Aliyun uid when the graph has it."""
    root, warehouse, _ = unmerged
    planted = _planted(root / "platform" / "aliases.csv")
    users = _users(warehouse)
    person: dict[str, set[str]] = {}
    for uid, row in users.items():
        if not row["name"].isdigit():
            person.setdefault(planted.get(uid, uid), set()).add(uid)
    expected = {frozenset(ids) for ids in person.values() if len(ids) > 1}
    assert len(expected) >= 2  # the fixture plants some
    proposed = _suggested(warehouse, tmp_path / "aliases.csv")
    assert _groups(proposed) == expected
    for alias, canonical in proposed.items():
        if planted[alias] in users:
            assert canonical == planted[alias]
    assert "same user name" in (tmp_path / "aliases.csv").read_text()  # each proposal says why


def test_accepted_suggestions_leave_one_vertex_per_person_named_by_login(unmerged, spark, tmp_path):
    from lineage.graph.build import build

    root, warehouse, _ = unmerged
    before = len(_users(warehouse))
    _suggested(warehouse, warehouse / "aliases.csv")  # accepted as they are
    build(warehouse, spark=spark)
    users = _users(warehouse)
    truth = {r["user_id"]: r for r in csv.DictReader(open(root / "platform" / "truth" / "people.csv"))}
    assert len(users) < before
    for uid, row in users.items():
        login = truth[uid]["names"].split(";")[0] if uid in truth else None
        if login in json.loads(dict(row["properties"]).get("names", "[]")):
            assert row["name"] == login  # given a login: named by it, not by RAM$...:sub or the uid
    again = CliRunner().invoke(main, ["people", "--warehouse", str(warehouse), "--suggest-aliases"])
    assert again.exit_code == 0 and "people: 0 merge(s) proposed" in again.stderr
    assert _suggested(warehouse, tmp_path / "again.csv") == read_aliases(warehouse / "aliases.csv")  # kept, none new


def _person(pid, *names, keys=()):
    return Person(pid, names[0] if names else pid, tuple(keys), tuple(names))


def test_a_name_shared_within_one_platform_proposes_nothing():
    people = [
        _person("user:aliyun:1", "wei", "RAM$corp:wei"),
        _person("user:datahub:wei", keys=("wei",)),
        _person("user:dataphin:7", "Wei Zhang"),
        _person("user:aliyun:2", "Wei Zhang", "admin"),
        _person("user:aliyun:3", "admin"),  # two uids called admin: not one person's name
        _person("user:datahub:admin", keys=("admin",)),
        _person("user:aliyun:4", "******"),  # masked
        _person("user:datahub:******", keys=("******",)),
    ]
    found = {(p.alias.id, p.canonical.id): p.evidence for p in suggest(people)}
    assert found == {
        ("user:datahub:wei", "user:aliyun:1"): ("same user name 'wei'",),
        ("user:dataphin:7", "user:aliyun:2"): ("same display name 'wei zhang'",),
    }


def test_an_account_given_to_two_uids_is_not_merged_and_the_file_wins():
    from lineage.graph.identities import combined, ties

    pairs = [("user:maxcompute:ram$c:a", "user:aliyun:1"), ("user:maxcompute:ram$c:b", "user:aliyun:2"),
             ("user:maxcompute:ram$c:b", "user:aliyun:3"), ("user:maxcompute:ram$c:d", "user:aliyun:4")]
    assert ties(pairs) == {"user:maxcompute:ram$c:a": "user:aliyun:1", "user:maxcompute:ram$c:d": "user:aliyun:4"}
    file = {"user:maxcompute:ram$c:d": "user:aliyun:9",  # the file says otherwise: it wins
            "user:aliyun:1": "user:aliyun:7",  # the tie's uid is merged on: the tie ends there too
            "user:aliyun:4": "user:maxcompute:ram$c:a"}
    assert combined(file, ties(pairs)) == {**file, "user:maxcompute:ram$c:a": "user:aliyun:7",
                                           "user:aliyun:4": "user:aliyun:7"}  # chains resolved
    assert combined({"user:aliyun:1": "user:maxcompute:ram$c:a"}, ties(pairs)) == {
        "user:aliyun:1": "user:maxcompute:ram$c:a",
        "user:maxcompute:ram$c:d": "user:aliyun:4"}  # the tie closing a cycle with the file is dropped


def test_the_proposals_file_keeps_event_text_on_its_own_lines(tmp_path):
    """A name or id with a line break or a comma cannot add a line of its own to aliases.csv."""
    from lineage.analysis.suggest_aliases import render

    people = [_person("user:aliyun:1", "wei\nuser:datahub:x,user:aliyun:9", "wei"),
              _person("user:datahub:wei", keys=("wei",)),
              _person("user:aliyun:2", "ann"), _person("user:datahub:ann\n", keys=("ann\n",))]
    text = render(suggest(people), ["alias,canonical", "user:datahub:z,user:aliyun:1"])
    (tmp_path / "aliases.csv").write_text(text)
    assert read_aliases(tmp_path / "aliases.csv") == {"user:datahub:z": "user:aliyun:1",
                                                      "user:datahub:wei": "user:aliyun:1"}
    assert all(line.startswith(("#", "alias,", "user:")) for line in text.splitlines())
