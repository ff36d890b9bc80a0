"""The identity alias file: chains resolve, mistakes name file and line."""

from __future__ import annotations

import pytest

from lineage.graph.aliases import AliasError, read_aliases


def write(tmp_path, text):
    path = tmp_path / "aliases.csv"
    path.write_text(text)
    return path


def test_chains_resolve_and_comments_are_ignored(tmp_path):
    path = write(tmp_path, "# people\nalias,canonical\n\nuser:datahub:bob,user:maxcompute:aliyun$bob@x.com\n"
                           "user:maxcompute:aliyun$bob@x.com,user:aliyun:42\n")
    assert read_aliases(path) == {"user:datahub:bob": "user:aliyun:42", "user:maxcompute:aliyun$bob@x.com": "user:aliyun:42"}


@pytest.mark.parametrize("body, where, what", [
    ("user:a:1,user:b:2\n", ":1:", "header"),
    ("alias,canonical\nuser:a:1\n", ":2:", "expected 2 fields"),
    ("alias,canonical\nbob,user:aliyun:1\n", ":2:", "not a canonical id"),
    ("alias,canonical\nuser:datahub:bob,table:maxcompute:p.t\n", ":2:", "is a User"),
    ("alias,canonical\nuser:a:1,user:b:2\nuser:b:2,user:a:1\n", ":2:", "alias cycle"),
    ("alias,canonical\nuser:a:1,user:b:2\nuser:a:1,user:c:3\n", ":3:", "already maps"),
])
def test_mistakes_name_the_line(tmp_path, body, where, what):
    path = write(tmp_path, body)
    with pytest.raises(AliasError) as error:
        read_aliases(path)
    assert f"{path}{where}" in str(error.value) and what in str(error.value)
