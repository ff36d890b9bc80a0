"""Every output names a person and a role by one readable name, and two called alike apart by
their ids (issue 69): ``Context.name``, what the report, `impact`'s people to tell and `why` print."""

from __future__ import annotations

from pathlib import Path

from lineage.report.context import Context


def _vertex(id_: str, label: str, name: str | None) -> dict:
    return {"id": id_, "label": label, "name": name, "last_seen": None, "properties": {}}


CTX = Context(Path("."), [
    _vertex("user:aliyun:1", "User", "wei"),
    _vertex("user:datahub:wei", "User", "wei"),  # not merged: the same name, another person as far as we know
    _vertex("user:aliyun:2", "User", "ann"),
    _vertex("role:maxcompute:a.role_developer", "Role", "a.role_developer"),
    _vertex("role:maxcompute:b.role_developer", "Role", "b.role_developer"),
    _vertex("table:maxcompute:a.wei", "Table", "wei"),  # a table called alike is no person
    _vertex("table:maxcompute:b.t", "Table", "t"),
    _vertex("table:maxcompute:c.t", "Table", "t"),
], [])


def test_people_called_alike_are_told_apart_by_their_ids():
    assert CTX.name("user:aliyun:1") == "wei (user:aliyun:1)"
    assert CTX.name("user:datahub:wei") == "wei (user:datahub:wei)"
    assert CTX.name("user:aliyun:2") == "ann"


def test_roles_of_two_projects_have_two_names_and_other_labels_keep_theirs():
    assert CTX.name("role:maxcompute:a.role_developer") != CTX.name("role:maxcompute:b.role_developer")
    assert CTX.name("table:maxcompute:b.t") == "t"  # tables keep their names (their ids are in every listing)
