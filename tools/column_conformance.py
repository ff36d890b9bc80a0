"""Run the public peer's column-lineage cases (../shared/conformance/sqllineage-column) through
``lineage.sql.columns.column_lineage`` and compare its direct plus field-level indirect pairs
(CONDITIONAL, WINDOW) with the peer's pairs. The cases are read from there, never copied.

    python tools/column_conformance.py [CASES_DIR] [--show]
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

from lineage.sql.columns import DEFAULT, FIELD_LEVEL, column_lineage

CASES = Path(__file__).resolve().parents[1] / ".." / "shared" / "conformance" / "sqllineage-column"


def run_case(case: dict) -> tuple[set[tuple[str, str]], set[tuple[str, str]], tuple[str, ...]]:
    """(ours, the peer's, our partial reasons) for one case; unqualified tables are ``<default>``."""
    schema = {name: cols for name, cols in (case.get("metadata") or {}).items()}
    result = column_lineage(case["sql"], schema)
    ours = {(s, t) for s, t in result.pairs(FIELD_LEVEL)}
    theirs = {(s, t) for s, t in case["pairs"]}
    return ours, theirs, result.partial


def compare(cases_dir: Path = CASES) -> dict:
    cases = json.loads((cases_dir / "cases.json").read_text())
    agree, differ = [], []
    for case in cases:
        ours, theirs, partial = run_case(case)
        (agree if ours == theirs else differ).append(
            {"id": case["id"], "only_ours": sorted(ours - theirs), "only_peer": sorted(theirs - ours),
             "partial": list(partial)})
    return {"cases": len(cases), "agree": len(agree), "differ": differ, "default": DEFAULT}


if __name__ == "__main__":
    args = [a for a in sys.argv[1:] if not a.startswith("--")]
    report = compare(Path(args[0]) if args else CASES)
    if "--show" in sys.argv:
        for d in report["differ"]:
            print(d["id"])
            for p in d["only_ours"]:
                print("   ours only:", p)
            for p in d["only_peer"]:
                print("   peer only:", p)
            for p in d["partial"]:
                print("   partial:", p)
    print(f"{report['agree']} of {report['cases']} cases agree")
