"""The graph as CSV files for a database's bulk loader: Neo4j's ``neo4j-admin database import full``
and ``falkordb-bulk-loader``.

Both loaders want one header per file that types every column, so rows are grouped per label
(nodes) or per (type, start label, end label) (relationships), and a group is split further only
where one property holds values of different types in it (a ``via`` that is a list in one row
and a plain string in another). Every writer returns the keys of the rows whose values its
loader cannot carry exactly (Neo4j's CSV has no empty list; falkordb-bulk-loader strips strings
and reads ``""`` as null): those rows are loaded as close as the format allows and then sent
again over Bolt, which replaces their properties with the exact values.

Neo4j's format (``header`` file + ``data`` file per group, RFC 4180 quoting with ``""`` for a
quote, newlines inside quoted fields with ``--multiline-fields=true``):

- nodes: ``id:ID(<Label>)`` (an ID space per label; the column is also stored as property
  ``id``), ``<property>:<type>`` ..., ``:LABEL``;
- relationships: ``:START_ID(<Label>)``, ``:END_ID(<Label>)``, ``:TYPE``, ``key:string``, ...;
- types ``string``, ``long``, ``double``, ``boolean``, ``string[]`` (elements joined by the
  array delimiter, a control character that no element contains);
- a null (absent) property is an empty unquoted field, every string is quoted, so ``""`` is the
  empty string (``--ignore-empty-strings`` stays false).
"""

from __future__ import annotations

import codecs
import locale
import shlex
import shutil
import uuid
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Callable, Iterable, Iterator, Union

from lineage.export.records import MARKER_LABEL, Home, Node, Rel, check_label, check_type, home
from lineage.export.state import NODE, REL

Item = Union[Node, Rel]

VALUE_TYPES: dict[type, str] = {str: "string", bool: "boolean", int: "long", float: "double", list: "string[]"}
"""Python type of a property value -> the type name of Neo4j's import header."""

FALKORDB_TYPES = {"string": "STRING", "boolean": "BOOL", "long": "INT", "double": "DOUBLE", "string[]": "ARRAY"}

ARRAY_DELIMITERS = ("\x1f", "\x1e", "\x1d", "\x1c", "|", ";")
"""Candidates for Neo4j's ``--array-delimiter``, the first that no list element contains wins."""


class BulkFileError(ValueError):
    """A value neither loader has a type for."""


def _label(name: str) -> str:
    return name if name == MARKER_LABEL else check_label(name)


def value_type(key: str, value: Any) -> str:
    kind = VALUE_TYPES.get(type(value))
    if kind is None or (kind == "string[]" and not all(isinstance(v, str) for v in value)):
        raise BulkFileError(f"property {key!r}: no bulk-import type for {value!r}")
    return kind


@dataclass
class Group:
    """The rows of one file: one label (or relationship type and end labels), one type per column."""

    name: str
    src_label: str | None
    dst_label: str | None
    columns: list[tuple[str, str]]  # (property, type), identity column first
    variant: int = 0

    @property
    def stem(self) -> str:
        base = self.name if self.src_label is None else f"{self.src_label}.{self.name}.{self.dst_label}"
        return base + (f".{self.variant}" if self.variant else "")


def _type_name(key: str, kind: type) -> str:
    name = VALUE_TYPES.get(kind)
    if name is None:
        raise BulkFileError(f"property {key!r}: no bulk-import type for a {kind.__name__}")
    return name


class Files:
    """The files of one graph, written a row at a time: one per :data:`Home` and combination of
    types of the properties whose type varies there (a ``via`` that is a list in one row and a
    plain string in another), opened at its first row. ``types`` (every property's Python types
    per home, from one read of the graph before) fixes each file's columns before its first row;
    :meth:`close` numbers a home's variants in the order of their types, whatever the row order."""

    def __init__(self, directory: Path, types: dict[Home, dict[str, set[type]]],
                 opened: Callable[[Path, Group], Any]) -> None:
        self.directory, self.opened = directory, opened
        self.layout: dict[Home, tuple[list[tuple[str, str]], list[str]]] = {}
        for where, props in types.items():
            identity = "id" if where[0] == NODE else "key"
            kinds = {k: {_type_name(k, t) for t in ts} for k, ts in props.items()}
            mixed = sorted(k for k, t in kinds.items() if len(t) > 1)
            fixed = [(k, next(iter(t))) for k, t in sorted(kinds.items(), key=lambda kv: (kv[0] != identity, kv[0]))
                     if k not in mixed]
            self.layout[where] = (fixed, mixed)
        self.files: dict[tuple[Home, tuple[str | None, ...]], tuple[Group, Path, Any]] = {}
        self.rows = 0

    def group(self, home: Home, props: dict[str, Any]) -> tuple[Group, Any]:
        """The group (and open file) a row of ``home`` with ``props`` goes to."""
        fixed, mixed = self.layout[home]
        signature = tuple(value_type(k, props[k]) if k in props else None for k in mixed)
        found = self.files.get((home, signature))
        if found is None:
            columns = fixed + [(k, t) for k, t in zip(mixed, signature) if t is not None]
            group = Group(home[1], home[2], home[3], columns)
            path = self.directory / f".partial-{len(self.files)}.csv"
            found = self.files[(home, signature)] = (group, path, self.opened(path, group))
        self.rows += 1
        return found[0], found[2]

    def close(self, prefix: Callable[[Group], str]) -> list[tuple[Group, Path]]:
        """Close every file and give it its name (``prefix(group)`` + stem + ``.csv``), in home order."""
        out = []
        for where in sorted({h for h, _ in self.files}, key=lambda h: tuple(x or "" for x in h)):
            variants = [(sig, entry) for (h, sig), entry in self.files.items() if h == where]
            for n, (_, (group, path, handle)) in enumerate(sorted(variants, key=lambda v: repr(v[0]))):
                handle.close()
                group.variant = n
                final = self.directory / f"{prefix(group)}{group.stem}.csv"
                path.rename(final)
                out.append((group, final))
        return out


def _key(item: Item) -> tuple[str, str]:
    return (NODE, item.id) if isinstance(item, Node) else (REL, item.key)


# --- Neo4j: neo4j-admin database import full -------------------------------------------------


def _quoted(text: str) -> str:
    return '"' + text.replace('"', '""') + '"'


def array_delimiter(used: set[str]) -> str:
    """The first of :data:`ARRAY_DELIMITERS` that no list element contains (``used``: their characters)."""
    return next((ch for ch in ARRAY_DELIMITERS if ch not in used), ARRAY_DELIMITERS[0])


def neo4j_field(value: Any, delimiter: str) -> tuple[str, bool]:
    """One CSV field and whether Neo4j reads back exactly ``value``."""
    if value is None:
        return "", True
    if isinstance(value, str):
        return _quoted(value), True
    if isinstance(value, bool):
        return ("true" if value else "false"), True
    if isinstance(value, (int, float)):
        return repr(value), True
    # a list: Neo4j has no empty array in CSV (an empty field is null) and no escape for the delimiter
    exact = bool(value) and all(element and delimiter not in element for element in value)
    return (_quoted(delimiter.join(value)) if value else ""), exact


def _header_cell(name: str, kind: str) -> str:
    return f"{name}:{kind}"


@dataclass
class Neo4jImport:
    directory: Path
    database: str
    array_delimiter: str
    files: list[tuple[str, Path, Path]]  # ("nodes"|"relationships", header, data)
    inexact: set[tuple[str, str]]
    rows: int

    def command(self) -> str:
        """The ``neo4j-admin`` call that imports these files (Neo4j 5.19+: database name first)."""
        parts = ["neo4j-admin", "database", "import", "full", self.database, "--overwrite-destination=true",
                 "--id-type=string", "--multiline-fields=true", f"--array-delimiter=U+{ord(self.array_delimiter):04X}"]
        parts += [f"--{kind}={header},{data}" for kind, header, data in self.files]
        return " ".join(shlex.quote(p) for p in parts)


def write_neo4j_import(directory: Path, items: Iterable[Item], types: dict[Home, dict[str, set[type]]],
                       list_chars: set[str], marker: dict[str, Any], database: str) -> Neo4jImport:
    """Replace ``directory`` with the import files of the graph's ``items`` (read once, a row at a
    time; ``types`` and ``list_chars`` from a read before) plus the ``LineageExport`` marker."""
    if "," in str(directory):
        raise BulkFileError(f"{directory}: neo4j-admin separates files with commas, so the path cannot have one")
    shutil.rmtree(directory, ignore_errors=True)
    directory.mkdir(parents=True)
    delimiter = array_delimiter(list_chars)
    marker_node = Node(MARKER_LABEL, marker["id"], marker, "")
    result = Neo4jImport(directory, database, delimiter, [], set(), 0)
    marker_home = (NODE, MARKER_LABEL, None, None)
    files = Files(directory, {**types, marker_home: {k: {type(v)} for k, v in marker.items()}},
                  lambda path, group: path.open("w", encoding="utf-8", newline=""))
    for item in _then(items, marker_node):
        group, out = files.group(home(item), item.props)
        if isinstance(item, Node):
            row = [_quoted(item.id), *(_cell(result, item, item.props.get(k), delimiter) for k, _ in group.columns
                                       if k != "id"), item.label]
        else:
            row = [_quoted(item.src), _quoted(item.dst), check_type(item.type),
                   *(_cell(result, item, item.props.get(k), delimiter) for k, _ in group.columns)]
        out.write(",".join(row) + "\n")
    result.rows = files.rows
    for group, path in files.close(lambda g: "nodes." if g.src_label is None else "relationships."):
        if group.src_label is None:
            header = [f"id:ID({_label(group.name)})", *(_header_cell(k, t) for k, t in group.columns if k != "id"),
                      ":LABEL"]
            kind = "nodes"
        else:
            header = [f":START_ID({check_label(group.src_label)})", f":END_ID({check_label(group.dst_label or '')})",
                      ":TYPE", *(_header_cell(k, t) for k, t in group.columns)]
            kind = "relationships"
        head = path.with_name(path.name[:-len(".csv")] + ".header.csv")
        head.write_text(",".join(header) + "\n", encoding="utf-8")
        result.files.append((kind, head, path))
    return result


def _then(items: Iterable[Item], last: Item) -> Iterator[Item]:
    yield from items
    yield last


def _cell(result: Any, item: Item, value: Any, delimiter: str) -> str:
    if isinstance(value, list):
        value_type("list", value)
    text, exact = neo4j_field(value, delimiter)
    if not exact:
        result.inexact.add(_key(item))
    return text


# --- FalkorDB: falkordb-bulk-loader (--enforce-schema) ---------------------------------------


def falkordb_string_exact(text: str, encoding: str) -> bool:
    """The loader strips every value, reads an empty one as null, opens files with universal
    newlines (a CR becomes LF) and sends NUL-terminated strings."""
    if not text or text != text.strip() or "\r" in text or "\x00" in text:
        return False
    try:
        text.encode(encoding)
    except UnicodeEncodeError:
        return False
    return True


def falkordb_element_exact(text: str, encoding: str) -> bool:
    """List elements are read back with the loader's type inference: "12" would become 12."""
    from falkordb_bulk_loader.entity_file import Type, inferred_prop_to_binary

    return falkordb_string_exact(text, encoding) and inferred_prop_to_binary(text)[0] == Type.STRING.value


def falkordb_field(value: Any, encoding: str, empty: str) -> tuple[str, bool]:
    """One CSV field and whether the loader stores exactly ``value`` (``""`` is written as ``empty``,
    which the caller replaces after the load)."""
    if value is None:
        return "", True
    if value == "":
        return _quoted(empty), True
    if isinstance(value, str):
        return _quoted(value), falkordb_string_exact(value, encoding)
    if isinstance(value, bool):
        return ("true" if value else "false"), True
    if isinstance(value, (int, float)):
        return repr(value), True
    return _quoted(repr(list(value))), all(falkordb_element_exact(v, encoding) for v in value)


@dataclass
class FalkorFiles:
    directory: Path
    nodes: list[tuple[str, Path]]  # (label, file)
    relationships: list[tuple[str, Path]]  # (type, file)
    inexact: set[tuple[str, str]]
    rows: int
    encoding: str
    empty: str
    """Written for an empty string (the loader reads ``""`` as null)."""
    emptied: dict[tuple[str, str, str], int] = field(default_factory=dict)
    """(kind, label or type, property) -> how many values were written as :attr:`empty`."""
    pad: str = ""
    """Written before and after a string with whitespace at an end (the loader strips it): a SQL
    text ending in a newline, most of a platform's Job rows. Removed after the load by one
    statement per property; sending each such row again over Bolt, one SQL text per request
    (FalkorDB's 4 KB limit), took most of a 10^6-event export."""
    padded: dict[tuple[str, str, str], int] = field(default_factory=dict)
    """(kind, label or type, property) -> how many values were written between two :attr:`pad`."""


def write_falkordb_csvs(directory: Path, items: Iterable[Item], types: dict[Home, dict[str, set[type]]]) -> FalkorFiles:
    """Replace ``directory`` with one CSV per group (header in the file) for the bulk loader, which
    reads them in the locale's encoding; ``items`` are read once, a row at a time (``types`` from a
    read before)."""
    shutil.rmtree(directory, ignore_errors=True)
    directory.mkdir(parents=True)
    encoding = locale.getpreferredencoding(False)
    result = FalkorFiles(directory, [], [], set(), 0, encoding, f"lineage-empty-string-{uuid.uuid4().hex}",
                         pad=f"lineage-pad-{uuid.uuid4().hex}")

    utf8 = codecs.lookup(encoding).name == "utf-8"

    def cells(item: Item, columns: list[tuple[str, str]]) -> list[str]:
        out = []
        props = item.props
        for key, _ in columns:
            value = props.get(key)
            if value is None:
                out.append("")
            elif (type(value) is str and value and value == value.strip() and "\r" not in value and "\x00" not in value
                  and utf8):  # the common case, without the calls below
                out.append('"' + value.replace('"', '""') + '"')
            else:
                if isinstance(value, list):
                    value_type(key, value)
                text, exact = falkordb_field(value, encoding, result.empty)
                home = (NODE, item.label, key) if isinstance(item, Node) else (REL, item.type, key)
                if not exact and isinstance(value, str) and falkordb_string_exact(result.pad + value + result.pad, encoding):
                    text, exact = _quoted(result.pad + value + result.pad), True  # only its ends were the trouble
                    result.padded[home] = result.padded.get(home, 0) + 1
                if not exact:
                    result.inexact.add(_key(item))
                elif value == "":
                    result.emptied[home] = result.emptied.get(home, 0) + 1
                out.append(text)
        return out

    def opened(path: Path, group: Group) -> Any:
        handle = path.open("w", encoding=encoding, errors="replace", newline="")
        if group.src_label is None:
            header = [f"id:ID({_label(group.name)})", *(f"{k}:{FALKORDB_TYPES[t]}" for k, t in group.columns if k != "id")]
        else:
            header = [f":START_ID({check_label(group.src_label)})", f":END_ID({check_label(group.dst_label or '')})",
                      *(f"{k}:{FALKORDB_TYPES[t]}" for k, t in group.columns)]
        handle.write(",".join(header) + "\n")
        return handle

    files = Files(directory, types, opened)
    for item in items:
        group, out = files.group(home(item), item.props)
        if isinstance(item, Node):
            # an id the loader changed could not be found again by the Bolt export's MERGE
            if not falkordb_string_exact(item.id, encoding):
                raise BulkFileError(f"{item.label} id {item.id!r}: falkordb-bulk-loader would not store it unchanged "
                                    "(it strips values, reads CR as LF)")
            out.write(",".join([_quoted(item.id), *cells(item, [c for c in group.columns if c[0] != "id"])]) + "\n")
        else:
            out.write(",".join([_quoted(item.src), _quoted(item.dst), *cells(item, group.columns)]) + "\n")
    result.rows = files.rows
    for group, path in files.close(lambda g: "nodes." if g.src_label is None else "relationships."):
        if group.src_label is None:
            result.nodes.append((_label(group.name), path))
        else:
            result.relationships.append((check_type(group.name), path))
    return result
