"""Files -> raw records, each with its file and line, never losing one.

Formats are recognised per file, not by extension: gzip by its magic bytes; JSON Lines when the
first non-blank line is a complete JSON value (each line then stands alone, so a truncated line
costs only itself); otherwise a stream of (pretty-printed) documents or a JSON array, split by
bracket balancing so that one invalid document does not take its neighbours with it.
JSON Lines stream line by line; documents and arrays are read whole by the process parsing them.

Everything that cannot become a JSON object becomes a record with ``error`` set, for the
quarantine: unreadable and binary files (one record, line 0), invalid or truncated JSON, lines
over the size limit (kept truncated, with the byte count), text that is not UTF-8.
"""

from __future__ import annotations

import bisect
import fnmatch
import gzip
import json
import os
import zlib
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, BinaryIO, Iterable, Iterator

from lineage.errors import UsageError
from lineage.io import jsonscan


class InputNotFound(UsageError, FileNotFoundError):
    """A path named on the command line does not exist (bad usage, not a record to quarantine)."""


DEFAULT_MAX_RECORD_BYTES = 64 * 1024 * 1024
RAW_KEEP_BYTES = 1024 * 1024  # what the quarantine keeps of an oversized record
DEFAULT_INCLUDE = ("*.json", "*.jsonl", "*.ndjson", "*.log", "*.txt", "*.gz")
_SNIFF = 8192


@dataclass(frozen=True)
class RawRecord:
    """One record as read: ``doc`` when it is a JSON object, else ``error`` says why not."""

    file: str
    line: int
    text: str
    doc: dict[str, Any] | None = None
    error: str | None = None
    repairs: tuple[str, ...] = ()
    size: int = 0
    truncated: bool = False


@dataclass
class PathScan:
    """The files a set of paths expands to, and the paths that could not be listed."""

    files: list[Path] = field(default_factory=list)
    problems: list[RawRecord] = field(default_factory=list)
    skipped: list[str] = field(default_factory=list)


def expand_paths(
    paths: Iterable[str | os.PathLike[str]],
    include: tuple[str, ...] = DEFAULT_INCLUDE,
    exclude: tuple[str, ...] = (),
) -> PathScan:
    """Files named explicitly are always read; directories are walked (sorted, hidden skipped)
    for names matching ``include`` and not ``exclude``. A missing explicit path raises
    :class:`InputNotFound` (bad usage; also a FileNotFoundError); an entry of a directory that
    cannot be listed or opened becomes a problem record so the summary shows it."""
    scan = PathScan()
    for raw in paths:
        path = Path(raw)
        if not path.exists() and not path.is_symlink():
            raise InputNotFound(f"no such file or directory: {path}")
        if not path.is_dir():
            scan.files.append(path)
            continue
        for root, dirs, names in os.walk(path, onerror=lambda err: scan.problems.append(_unreadable(Path(err.filename or path), err))):
            dirs[:] = sorted(d for d in dirs if not d.startswith("."))
            for name in sorted(names):
                candidate = Path(root) / name
                if name.startswith(".") or any(fnmatch.fnmatch(name, pat) for pat in exclude):
                    continue
                if not any(fnmatch.fnmatch(name, pat) for pat in include):
                    scan.skipped.append(str(candidate))
                    continue
                scan.files.append(candidate)
    return scan


def _unreadable(path: Path, error: BaseException) -> RawRecord:
    reason = getattr(error, "strerror", None) or str(error)
    return RawRecord(file=str(path), line=0, text="", error=f"cannot read file: {reason}")


def _open(path: Path) -> BinaryIO:
    handle = path.open("rb")
    magic = handle.peek(2)[:2] if hasattr(handle, "peek") else b""
    if magic == b"\x1f\x8b":
        handle.close()
        return gzip.open(path, "rb")  # type: ignore[return-value]
    return handle


def read_file(path: str | os.PathLike[str], max_record_bytes: int = DEFAULT_MAX_RECORD_BYTES) -> Iterator[RawRecord]:
    """Every record of one file, in order. Never raises for bad content; see the module doc."""
    path = Path(path)
    name = str(path)
    try:
        stream = _open(path)
    except OSError as exc:
        yield _unreadable(path, exc)
        return
    with stream:
        try:
            head = stream.peek(_SNIFF)[:_SNIFF] if hasattr(stream, "peek") else b""
        except (OSError, EOFError, zlib.error) as exc:
            yield RawRecord(name, 0, "", error=f"cannot read file: corrupt gzip data ({exc})")
            return
        if b"\x00" in head:
            offset = head.index(b"\x00")
            yield RawRecord(
                name, 0, head[:256].decode("latin-1"), error=f"binary file (NUL byte at offset {offset}): not JSON text",
                size=len(head), truncated=True,
            )
            return
        lines = _LineReader(stream, name, max_record_bytes)
        first = lines.first_content_line()
        if first is None:
            return  # an empty file holds no records; the caller counts it as empty
        if lines.pending[0][3] or _is_complete_value(first):
            yield from _json_lines(lines)
        else:
            yield from _documents(lines, max_record_bytes)


def _is_complete_value(line: str) -> bool:
    stripped = line.strip()
    if not stripped or stripped[0] not in "{[":
        return False
    try:
        jsonscan.loads(stripped)
        return True
    except jsonscan.JsonError:
        spans = list(jsonscan.scan_values(stripped, split_top_array=False))
        return len(spans) == 1 and spans[0].closed and spans[0].end == len(stripped)


class _LineReader:
    """Bounded line reading from a binary stream with line numbers and decode errors kept."""

    def __init__(self, stream: BinaryIO, name: str, limit: int):
        self.stream = stream
        self.name = name
        self.limit = limit
        self.lineno = 0
        self.pending: list[tuple[int, bytes, int, bool]] = []
        self.error: str | None = None

    def next_line(self) -> tuple[int, bytes, int, bool] | None:
        """(line number, bytes without newline, full size, truncated) or None at end of file."""
        if self.pending:
            return self.pending.pop(0)
        try:
            data = self.stream.readline(self.limit + 1)
        except (OSError, EOFError, zlib.error) as exc:
            self.error = f"cannot read file after line {self.lineno}: corrupt or truncated data ({exc})"
            return None
        if not data:
            return None
        self.lineno += 1
        size = len(data)
        truncated = False
        if len(data) > self.limit and not data.endswith(b"\n"):
            truncated = True
            keep = data[:RAW_KEEP_BYTES]
            while True:  # drain the rest of the oversized line without keeping it
                try:
                    more = self.stream.readline(1 << 20)
                except (OSError, EOFError, zlib.error):
                    break
                size += len(more)
                if not more or more.endswith(b"\n"):
                    break
            data = keep
            size -= 1 if more.endswith(b"\n") else 0
        else:
            size = len(data.rstrip(b"\r\n"))
        return self.lineno, data.rstrip(b"\r\n"), size, truncated

    def first_content_line(self) -> str | None:
        while True:
            item = self.next_line()
            if item is None:
                return None
            if item[1].strip():
                self.pending.insert(0, item)
                return item[1].decode("utf-8", errors="replace").lstrip("\ufeff")


def _decode(data: bytes) -> tuple[str | None, str | None]:
    try:
        return data.decode("utf-8").lstrip("\ufeff"), None
    except UnicodeDecodeError as exc:
        return None, f"not UTF-8 text (invalid byte at offset {exc.start})"


def _never_closed(line: int) -> str:
    return f"truncated JSON: the value opened at line {line} is never closed"


def _record(name: str, line: int, text: str, size: int, truncated: bool = False) -> list[RawRecord]:
    """Parse one record's text; a top-level array in a JSON Lines line yields one per element."""
    if truncated:
        error = f"record is {size} bytes, over the record size limit; kept truncated to {len(text)} characters"
        return [RawRecord(name, line, text, error=error, size=size, truncated=True)]
    try:
        value, repairs = jsonscan.loads(text)
    except jsonscan.JsonError as exc:
        spans = list(jsonscan.scan_values(text, split_top_array=False))
        if len(spans) == 1 and not spans[0].closed and text.lstrip()[:1] in ("{", "["):
            return [RawRecord(name, line, text, error=_never_closed(line), size=size)]
        where = f"line {line + exc.line - 1} column {exc.column}"
        hint = " (more text after the first JSON value: a fragment, or several values on one line)" if exc.message == "Extra data" else ""
        return [RawRecord(name, line, text, error=f"invalid JSON at {where}: {exc.message}{hint}", size=size)]
    values = value if isinstance(value, list) else [value]
    records = []
    for item in values:
        if isinstance(item, dict):
            records.append(RawRecord(name, line, text if len(values) == 1 else _dumps(item), doc=item, repairs=repairs, size=size))
        else:
            records.append(RawRecord(name, line, _dumps(item), error=f"expected a JSON object, got {_kind(item)}", size=size))
    return records


def _dumps(value: Any) -> str:
    return json.dumps(value, ensure_ascii=False)


def _kind(value: Any) -> str:
    return {list: "an array", str: "a string", bool: "a boolean", type(None): "null"}.get(type(value), "a number")


def _json_lines(lines: _LineReader) -> Iterator[RawRecord]:
    while (item := lines.next_line()) is not None:
        number, data, size, truncated = item
        if not data.strip():
            continue
        text, error = _decode(data)
        if text is None:
            yield RawRecord(lines.name, number, data[:RAW_KEEP_BYTES].decode("utf-8", errors="replace"), error=error, size=size)
            continue
        yield from _record(lines.name, number, text, size, truncated)
    if lines.error:
        yield RawRecord(lines.name, lines.lineno + 1, "", error=lines.error)


def _documents(lines: _LineReader, max_record_bytes: int) -> Iterator[RawRecord]:
    name = lines.name
    head = lines.pending[:]
    lines.pending.clear()
    first_line = head[0][0]
    try:
        rest = lines.stream.read()
    except (OSError, EOFError, zlib.error) as exc:
        rest = b""
        lines.error = f"cannot read file after line {lines.lineno}: corrupt or truncated data ({exc})"
    data = b"\n".join(item[1] for item in head) + b"\n" + rest
    text, error = _decode(data)
    if text is None:
        keep = data[:RAW_KEEP_BYTES].decode("utf-8", errors="replace")
        yield RawRecord(name, first_line, keep, error=error, size=len(data), truncated=len(data) > RAW_KEEP_BYTES)
    else:
        line_starts = _line_offsets(text)
        for span in jsonscan.scan_values(text):
            line = first_line + _line_of(line_starts, span.start) - 1
            chunk = text[span.start : span.end]
            size = len(chunk.encode("utf-8"))
            if not span.closed and chunk.lstrip()[:1] in ("{", "["):
                yield RawRecord(name, line, chunk[:RAW_KEEP_BYTES], error=_never_closed(line), size=size, truncated=size > RAW_KEEP_BYTES)
            elif size > max_record_bytes:
                yield from _record(name, line, chunk[:RAW_KEEP_BYTES], size, truncated=True)
            else:
                yield from _record(name, line, chunk, size)
    if lines.error:
        yield RawRecord(name, lines.lineno + 1, "", error=lines.error)


def _line_offsets(text: str) -> list[int]:
    offsets = [0]
    index = text.find("\n")
    while index >= 0:
        offsets.append(index + 1)
        index = text.find("\n", index + 1)
    return offsets


def _line_of(offsets: list[int], position: int) -> int:
    return bisect.bisect_right(offsets, position)
