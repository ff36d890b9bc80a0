"""The reader on messy files: every record comes out, good or with a reason naming file and line."""

from __future__ import annotations

import gzip
import json
import os
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from lineage.io import jsonscan
from lineage.io.reader import expand_paths, read_file


def write(path: Path, data: bytes | str) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(data.encode() if isinstance(data, str) else data)
    return path


def summary(path: Path, **kw) -> list[tuple[int, object, str | None]]:
    return [(r.line, r.doc, r.error) for r in read_file(path, **kw)]


def test_json_lines_keep_good_lines_around_a_truncated_one(tmp_path):
    path = write(tmp_path / "a.jsonl", '{"a": 1}\n{"b": 2\n\n{"c": 3}\n')
    rows = summary(path)
    assert rows[0] == (1, {"a": 1}, None)
    assert rows[1][0] == 2 and rows[1][1] is None and "truncated JSON" in rows[1][2]
    assert rows[2] == (4, {"c": 3}, None)


def test_pretty_documents_are_split_and_a_bad_one_costs_only_itself(tmp_path):
    text = '{\n  "a": 1\n}\n{\n  "tenantId": The tenant ID,\n  "x": 1\n}\n{\n  "c": 3\n}\n'
    rows = summary(write(tmp_path / "docs.json", text))
    assert [r[0] for r in rows] == [1, 4, 8]
    assert rows[0][1] == {"a": 1} and rows[2][1] == {"c": 3}
    assert rows[1][1] is None and "invalid JSON at line 5 column 15" in rows[1][2]


@pytest.mark.parametrize("text", ['{"a": 1}\n{"b": [1,\n  2', '{\n "a": 1\n}\n{"b": [1,\n  2'])
def test_truncated_json_is_named_as_such(tmp_path, text):
    rows = summary(write(tmp_path / "t.json", text))
    assert rows[0][1] == {"a": 1}
    assert any(r[2] and "truncated JSON" in r[2] and "line" in r[2] for r in rows[1:])


def test_json_array_yields_elements_and_rejects_non_objects(tmp_path):
    rows = summary(write(tmp_path / "arr.json", '[\n {"a": 1},\n {"b": 2},\n 7\n]'))
    assert rows[:2] == [(2, {"a": 1}, None), (3, {"b": 2}, None)]
    assert rows[2][2] == "expected a JSON object, got a number"


def test_documented_repairs_comments_and_masked_numbers(tmp_path):
    text = '{\n "baselineId": 70***287, // the baseline\n "operator": **************, /* who */ "n": 1\n}'
    (record,) = list(read_file(write(tmp_path / "doc.json", text)))
    assert record.doc == {"baselineId": "70***287", "operator": "**************", "n": 1}
    assert record.repairs == ("comments", "masked-values")


def test_repairs_leave_strings_alone():
    value, repairs = jsonscan.loads('{"url": "http://x/*y*/", "s": "a//b"} // c')
    assert value == {"url": "http://x/*y*/", "s": "a//b"} and repairs == ("comments",)


def test_gzip_is_detected_by_content_not_name(tmp_path):
    path = write(tmp_path / "events.data", gzip.compress(b'{"a": 1}\n{"b": 2}\n'))
    assert [r.doc for r in read_file(path)] == [{"a": 1}, {"b": 2}]


def test_corrupt_gzip_reports_where_reading_stopped(tmp_path):
    good = gzip.compress(b"".join(b'{"n": %d}\n' % i for i in range(2000)))
    path = write(tmp_path / "bad.gz", good[: len(good) // 2])
    records = list(read_file(path))
    assert records[-1].error and "corrupt or truncated" in records[-1].error
    assert all(r.doc for r in records[:-1]) and len(records) > 1


def test_binary_file_is_one_quarantined_record(tmp_path):
    (record,) = list(read_file(write(tmp_path / "x.json", b"\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR")))
    assert record.line == 0 and record.error.startswith("binary file")


def test_empty_and_blank_files_hold_no_records(tmp_path):
    assert list(read_file(write(tmp_path / "e.json", b""))) == []
    assert list(read_file(write(tmp_path / "b.json", b"\n  \n"))) == []


def test_not_utf8_line_is_reported_and_neighbours_kept(tmp_path):
    rows = summary(write(tmp_path / "u.jsonl", b'{"a": "\xff"}\n{"b": 1}\n'))
    assert "not UTF-8" in rows[0][2] and rows[1] == (2, {"b": 1}, None)


def test_fifty_megabyte_line_is_read_whole(tmp_path):
    big = {"eventName": "InsertJob", "text": "x" * (50 * 1024 * 1024)}
    path = write(tmp_path / "big.jsonl", '{"a": 1}\n' + json.dumps(big) + '\n{"c": 3}\n')
    records = list(read_file(path))
    assert [r.line for r in records] == [1, 2, 3]
    assert records[1].doc == big and records[1].error is None


def test_line_over_the_limit_is_kept_truncated_with_its_size(tmp_path):
    path = write(tmp_path / "big.jsonl", '{"a": 1}\n' + json.dumps({"t": "y" * 5000}) + '\n{"c": 3}\n')
    records = list(read_file(path, max_record_bytes=1000))
    assert records[0].doc == {"a": 1} and records[2].doc == {"c": 3}
    assert records[1].truncated and records[1].size == 5009 and "over the record size limit" in records[1].error


def test_directory_walk_skips_hidden_and_reports_unreadable(tmp_path):
    write(tmp_path / "d" / "a.json", '{"a": 1}')
    write(tmp_path / "d" / ".hidden.json", '{"h": 1}')
    write(tmp_path / "d" / "notes.md", "# not events")
    write(tmp_path / "d" / "sub" / "b.jsonl.gz", gzip.compress(b'{"b": 1}\n'))
    os.symlink(tmp_path / "missing.json", tmp_path / "d" / "dangling.json")
    scan = expand_paths([tmp_path / "d"], exclude=("*.skip.json",))
    names = [p.name for p in scan.files]
    assert names == ["a.json", "dangling.json", "b.jsonl.gz"]
    assert scan.skipped == [str(tmp_path / "d" / "notes.md")]
    (broken,) = [r for r in read_file(tmp_path / "d" / "dangling.json")]
    assert broken.line == 0 and broken.error.startswith("cannot read file")


def test_missing_explicit_path_is_a_usage_error(tmp_path):
    with pytest.raises(FileNotFoundError, match="no such file"):
        expand_paths([tmp_path / "nope.json"])


_json_values = st.recursive(
    st.none() | st.booleans() | st.integers() | st.text(alphabet='{}[]"\\/*,: ab\n\u00e9'),
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(alphabet='{}[]"\\/ ab', max_size=5), inner, max_size=4),
    max_leaves=12,
)


@settings(max_examples=300, deadline=None)
@given(values=st.lists(_json_values.filter(lambda v: isinstance(v, (dict, list))), min_size=1, max_size=4),
       indent=st.sampled_from([None, 2]))
def test_decoder_and_bracket_balance_find_the_same_ends(values, indent):
    """Valid JSON is measured by the C decoder, invalid by the bracket balance: both must end every
    value (brackets, quotes, slashes and escapes inside strings included) at the same place."""
    text = json.dumps(values, indent=indent, ensure_ascii=False)
    spans = list(jsonscan.scan_values(text))
    assert [json.loads(text[s.start:s.end]) for s in spans] == values
    for span in spans:
        assert jsonscan.balance(text, span.start) == (span.end, True)
