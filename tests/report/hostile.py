"""A DataHub file whose names, actors, owners, tags and terms are hostile text (HTML, script,
rich markup, terminal escapes, Markdown links, bidi overrides, arbitrary Unicode), as issue 27
found them: every output must show them as text and none may obey them."""

from __future__ import annotations

import json
import random
from datetime import datetime, timezone
from pathlib import Path

WEEK = "2026-W47"  # Monday 2026-11-16 .. Sunday 2026-11-22
TABLE = "acme.<img src=x onerror=window.__pwned=1>"
ACTOR = "[bold red]boss[/]<script>window.__pwned=2</script>"
OWNER = "own\x1b]0;pwned\x07er\x1b[2J"
TERM = "x](javascript:window.__pwned=3)"
TAG = "PII<svg onload=window.__pwned=4>"
ALPHABET = ["<", ">", "&", '"', "'", "[", "]", "/", "\\", "`", "*", "_", "#", "|", ":", "@", "!", "\x1b", "\x07", "\x9b",
            "\u202e", "\u200b", "\n", "\t", "\x7f", "表", "é", "👩‍💻", "a", "b", "c", "x", "y", " "]


def corpus(n: int = 10, seed: int = 27) -> list[str]:
    """``n`` fixed pseudo-random strings over :data:`ALPHABET`, no two alike (a table name each)."""
    rng = random.Random(seed)
    out: list[str] = []
    while len(out) < n:
        text = "t" + "".join(rng.choice(ALPHABET) for _ in range(rng.randint(4, 16)))
        if text.strip() == text and text not in out:
            out.append(text)
    return out


def _ms(day: int, hour: int) -> int:
    return int(datetime(2026, 11, day, hour, tzinfo=timezone.utc).timestamp() * 1000)


def _event(urn: str, category: str, operation: str, actor: str, time: int, modifier: str, parameters: dict) -> str:
    return json.dumps({"entityUrn": urn, "entityType": "dataset", "category": category, "operation": operation,
                       "modifier": modifier, "parameters": parameters,
                       "auditStamp": {"actor": f"urn:li:corpuser:{actor}", "time": time}})


def dataset(name: str) -> str:
    return f"urn:li:dataset:(urn:li:dataPlatform:maxcompute,{name},PROD)"


def write(events: Path) -> Path:
    """The hostile DataHub file under ``events``: for each table (the named ones and the corpus),
    an owner, a tag, a term and, later in the week, a field removal by a hostile actor."""
    names = [TABLE, *corpus()]
    actors = [ACTOR, *reversed(corpus(seed=28))]
    lines = []
    for i, (name, actor) in enumerate(zip(names, actors)):
        urn, day = dataset(name), 16 + i % 5
        owner = f"urn:li:corpuser:{OWNER if i == 0 else actors[-1 - i]}"
        lines.append(_event(urn, "OWNER", "ADD", actor, _ms(day, 8), owner,
                            {"ownerUrn": owner, "ownerType": "TECHNICAL_OWNER"}))
        lines.append(_event(urn, "TAG", "ADD", actor, _ms(day, 9), f"urn:li:tag:{TAG}", {"tagUrn": f"urn:li:tag:{TAG}"}))
        lines.append(_event(urn, "GLOSSARY_TERM", "ADD", actor, _ms(day, 10), f"urn:li:glossaryTerm:{TERM}",
                            {"termUrn": f"urn:li:glossaryTerm:{TERM}"}))
        field = f"urn:li:schemaField:({urn},col_{i})"
        lines.append(_event(urn, "TECHNICAL_SCHEMA", "REMOVE", actor, _ms(day + 1, 11), field,
                            {"fieldUrn": field, "fieldPath": f"col_{i}", "nullable": False}))
    events.mkdir(parents=True, exist_ok=True)
    path = events / "datahub-hostile.jsonl"
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return path
