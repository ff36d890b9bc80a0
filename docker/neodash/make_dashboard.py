"""Write docker/neodash/lineage.json, the NeoDash dashboard, from the tested queries of cypher/.

Run after editing a query it uses: `python docker/neodash/make_dashboard.py`. Each report's query
is a cypher/ file without its comments, with every `$name` renamed `$neodash_name` (NeoDash passes
only its own `neodash_` parameters); tests/test_neodash.py checks exactly that.
"""

from __future__ import annotations

import json
import re
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "tests"))

from test_cypher_queries import compact  # noqa: E402 - the tests' own comment stripper

DEFAULTS = {"since": "2024-07-01", "until": "2024-07-08", "as_of": "2024-07-08T00:00:00Z",
            "change_id": "8f173bf9e47facd9721999794acbbc18", "table_id": "table:maxcompute:retail_dw.ods_users"}
PAGES = [  # (page title, [(report title, cypher file, type, x, y, width, height)])
    ("The week's changes", [
        ("Changes of the window (sort by score)", "changes_this_week", "table", 0, 2, 12, 4),
        ("What the chosen change affects", "change_impact", "table", 12, 2, 12, 4),
        ("Failed runs after the chosen change", "failing_instances_downstream", "table", 0, 6, 24, 3),
    ]),
    ("Sensitive data and access", [
        ("PII exposure at the chosen moment", "pii_exposure", "table", 0, 2, 14, 5),
        ("Who can read the chosen table", "who_can_access", "table", 14, 2, 10, 5),
        ("Downstream of the chosen table", "downstream_blast_radius", "table", 0, 7, 24, 4),
    ]),
]
INPUTS = {  # page -> parameters to choose on it: (parameter, NeoDash selector)
    "The week's changes": [("since", "Free Text"), ("until", "Free Text"), ("change_id", ("Change", "id"))],
    "Sensitive data and access": [("as_of", "Free Text"), ("table_id", ("Table", "id"))],
}


def dashboard_query(name: str) -> str:
    """The library query as a NeoDash report runs it."""
    return re.sub(r"\$([A-Za-z_]\w*)", r"$neodash_\1", compact((ROOT / "cypher" / f"{name}.cypher").read_text()))


def selector(parameter: str, kind: str | tuple[str, str], x: int, report_id: str) -> dict:
    settings: dict = {"type": "Free Text" if kind == "Free Text" else "Node Property",
                      "parameterName": f"neodash_{parameter}", "clearParameterOnFieldClear": False}
    query = "RETURN true;"
    if kind != "Free Text":
        label, prop = kind
        settings.update({"entityType": label, "propertyType": prop, "propertyDisplay": prop})
        query = (f"MATCH (n:`{label}`) \nWHERE toLower(toString(n.`{prop}`)) CONTAINS toLower($input) \n"
                 f"RETURN DISTINCT n.`{prop}` as value,  n.`{prop}` as display ORDER BY size(toString(value)) ASC LIMIT 5")
    return {"id": report_id, "title": parameter, "query": query, "width": 8, "height": 2, "x": x, "y": 0,
            "type": "select", "selection": {}, "settings": settings, "schema": []}


def build() -> dict:
    pages = []
    for number, (title, reports) in enumerate(PAGES):
        items = [selector(p, kind, 8 * i, f"p{number}-input-{p}") for i, (p, kind) in enumerate(INPUTS[title])]
        items += [{"id": f"p{number}-{name}", "title": report, "query": dashboard_query(name), "width": w, "height": h,
                   "x": x, "y": y, "type": kind, "selection": {}, "settings": {"fullscreenEnabled": True},
                   "schema": []}
                  for report, name, kind, x, y, w, h in reports]
        pages.append({"title": title, "reports": items})
    return {
        "uuid": "6c1d1a5e-4f0b-4e7e-9a43-1ea9e0c0d018",
        "title": "lineage: changes, impact, PII and access",
        "version": "2.4",
        "settings": {"pagenumber": 0, "editable": True, "fullscreenEnabled": True, "parameters": {
            f"neodash_{k}": v for k, v in DEFAULTS.items()}},
        "pages": pages,
        "parameters": {},
        "extensions": {},
    }


if __name__ == "__main__":
    out = Path(__file__).with_name("lineage.json")
    out.write_text(json.dumps(build(), indent=2) + "\n")
    print(f"wrote {out}")
