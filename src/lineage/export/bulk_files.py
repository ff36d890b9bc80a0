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
from typing import Any, Callable, Iterable, Union

from lineage.export.records import MARKER_LABEL, Node, Rel, check_label, check_type
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
    items: list[Any] = field(default_factory=list)
    variant: int = 0

    @property
    def stem(self) -> str:
        base = self.name if self.src_label is None else f"{self.src_label}.{self.name}.{self.dst_label}"
        return base + (f".{self.variant}" if self.variant else "")


def groups(items: Iterable[Item], identity: str) -> list[Group]:
    """``items`` (all nodes, or all relationships) as file groups; ``identity`` ("id" or "key")
    is the first column."""
    by_home: dict[tuple[str, str | None, str | None], list[Item]] = {}
    for item in items:
        home = (item.label, None, None) if isinstance(item, Node) else (item.type, item.src_label, item.dst_label)
        by_home.setdefault(home, []).append(item)
    out: list[Group] = []
    for (name, src, dst), members in sorted(by_home.items(), key=lambda kv: tuple(x or "" for x in kv[0])):
        types: dict[str, set[str]] = {}
        for item in members:
            for key, value in item.props.items():
                types.setdefault(key, set()).add(value_type(key, value))
        mixed = sorted(k for k, t in types.items() if len(t) > 1)
        fixed = [(k, next(iter(t))) for k, t in sorted(types.items(), key=lambda kv: (kv[0] != identity, kv[0]))
                 if k not in mixed]
        variants: dict[tuple[str | None, ...], list[Item]] = {}
        for item in members:
            signature = tuple(value_type(k, item.props[k]) if k in item.props else None for k in mixed)
            variants.setdefault(signature, []).append(item)
        for n, (signature, rows) in enumerate(sorted(variants.items(), key=lambda kv: repr(kv[0]))):
            columns = fixed + [(k, t) for k, t in zip(mixed, signature) if t is not None]
            out.append(Group(name, src, dst, columns, rows, n))
    return out


def _key(item: Item) -> tuple[str, str]:
    return (NODE, item.id) if isinstance(item, Node) else (REL, item.key)


# --- Neo4j: neo4j-admin database import full -------------------------------------------------


def _quoted(text: str) -> str:
    return '"' + text.replace('"', '""') + '"'


def array_delimiter(items: Iterable[Item]) -> str:
    used = {ch for item in items for value in item.props.values() if isinstance(value, list)
            for element in value for ch in element if ch in ARRAY_DELIMITERS}
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


def write_neo4j_import(directory: Path, nodes: list[Node], rels: list[Rel], marker: dict[str, Any],
                       database: str) -> Neo4jImport:
    """Replace ``directory`` with the import files of this graph plus the ``LineageExport`` marker."""
    if "," in str(directory):
        raise BulkFileError(f"{directory}: neo4j-admin separates files with commas, so the path cannot have one")
    shutil.rmtree(directory, ignore_errors=True)
    directory.mkdir(parents=True)
    delimiter = array_delimiter([*nodes, *rels])
    marker_node = Node(MARKER_LABEL, marker["id"], marker, "")
    result = Neo4jImport(directory, database, delimiter, [], set(), 0)
    for group in groups([*nodes, marker_node], "id"):
        header = [f"id:ID({_label(group.name)})"]
        header += [_header_cell(k, t) for k, t in group.columns if k != "id"] + [":LABEL"]
        columns = [k for k, _ in group.columns if k != "id"]
        _write(result, "nodes", directory / f"nodes.{group.stem}", header, group.items,
               lambda n: [_quoted(n.id), *(_cell(result, n, n.props.get(k), delimiter) for k in columns), n.label])
    for group in groups(rels, "key"):
        header = [f":START_ID({check_label(group.src_label or '')})", f":END_ID({check_label(group.dst_label or '')})",
                  ":TYPE", *(_header_cell(k, t) for k, t in group.columns)]
        columns = [k for k, _ in group.columns]
        _write(result, "relationships", directory / f"relationships.{group.stem}", header, group.items,
               lambda r: [_quoted(r.src), _quoted(r.dst), check_type(r.type),
                          *(_cell(result, r, r.props.get(k), delimiter) for k in columns)])
    return result


def _cell(result: Neo4jImport, item: Item, value: Any, delimiter: str) -> str:
    text, exact = neo4j_field(value, delimiter)
    if not exact:
        result.inexact.add(_key(item))
    return text


def _write(result: Neo4jImport, kind: str, stem: Path, header: list[str], items: list[Any],
           row: Callable[[Any], list[str]]) -> None:
    head, data = stem.with_name(stem.name + ".header.csv"), stem.with_name(stem.name + ".csv")
    head.write_text(",".join(header) + "\n", encoding="utf-8")
    with data.open("w", encoding="utf-8", newline="") as out:
        out.writelines(",".join(row(item)) + "\n" for item in items)
    result.files.append((kind, head, data))
    result.rows += len(items)


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


def write_falkordb_csvs(directory: Path, nodes: list[Node], rels: list[Rel]) -> FalkorFiles:
    """Replace ``directory`` with one CSV per group (header in the file) for the bulk loader, which
    reads them in the locale's encoding."""
    shutil.rmtree(directory, ignore_errors=True)
    directory.mkdir(parents=True)
    encoding = locale.getpreferredencoding(False)
    result = FalkorFiles(directory, [], [], set(), 0, encoding, f"lineage-empty-string-{uuid.uuid4().hex}",
                         pad=f"lineage-pad-{uuid.uuid4().hex}")

    utf8 = codecs.lookup(encoding).name == "utf-8"

    def cells(item: Item, columns: list[str]) -> list[str]:
        out = []
        props = item.props
        for key in columns:
            value = props.get(key)
            if value is None:
                out.append("")
            elif (type(value) is str and value and value == value.strip() and "\r" not in value and "\x00" not in value
                  and utf8):  # the common case, without the calls below
                out.append('"' + value.replace('"', '""') + '"')
            else:
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

    def write(path: Path, header: list[str], items: list[Any], row: Callable[[Any], list[str]]) -> None:
        with path.open("w", encoding=encoding, errors="replace", newline="") as out:
            out.write(",".join(header) + "\n")
            out.writelines(",".join(row(item)) + "\n" for item in items)
        result.rows += len(items)

    for node in nodes:  # an id the loader changed could not be found again by the Bolt export's MERGE
        if not falkordb_string_exact(node.id, encoding):
            raise BulkFileError(f"{node.label} id {node.id!r}: falkordb-bulk-loader would not store it unchanged "
                                "(it strips values, reads CR as LF)")
    for group in groups(nodes, "id"):
        label = _label(group.name)
        columns = [k for k, _ in group.columns if k != "id"]
        header = [f"id:ID({label})", *(f"{k}:{FALKORDB_TYPES[t]}" for k, t in group.columns if k != "id")]
        path = directory / f"nodes.{group.stem}.csv"
        write(path, header, group.items, lambda n: [_quoted(n.id), *cells(n, columns)])
        result.nodes.append((label, path))
    for group in groups(rels, "key"):
        columns = [k for k, _ in group.columns]
        header = [f":START_ID({check_label(group.src_label or '')})", f":END_ID({check_label(group.dst_label or '')})",
                  *(f"{k}:{FALKORDB_TYPES[t]}" for k, t in group.columns)]
        path = directory / f"relationships.{group.stem}.csv"
        write(path, header, group.items, lambda r: [_quoted(r.src), _quoted(r.dst), *cells(r, columns)])
        result.relationships.append((check_type(group.name), path))
    return result
