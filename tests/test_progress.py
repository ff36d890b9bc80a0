"""Progress of long work (lineage.render.progress): what a log shows when stderr is not a terminal,
a live bar when it is, nothing with --json, and a no-op when no command opened a reporter."""

from __future__ import annotations

import io

from rich.console import Console

from lineage.render import progress
from lineage.render.progress import Reporter


def console(terminal: bool) -> tuple[Console, io.StringIO]:
    out = io.StringIO()
    return Console(file=out, force_terminal=terminal, width=100), out


def test_not_a_terminal_gives_a_line_per_stage_and_every_few_seconds(monkeypatch):
    clock = [100.0]
    monkeypatch.setattr(progress.time, "monotonic", lambda: clock[0])
    con, out = console(False)
    with Reporter(con, True, "ingest", every=5) as reporter:
        reporter.update("reading files", 1, 10, "a.json")
        clock[0] += 1
        reporter.update("reading files", 2, 10, "b.json")  # 1 s later, same stage: quiet
        clock[0] += 5
        reporter.update("reading files", 3, 10, "c.json")  # 6 s: a line
        clock[0] += 1
        reporter.update("reading files", 10, 10, "j.json")  # finished: a line
        clock[0] += 70
        progress.update("writing parquet")  # the module-level call reaches the open reporter
    assert reporter.lines == [
        "ingest: reading files 1/10 (a.json) [0s]",
        "ingest: reading files 3/10 (c.json) [6s]",
        "ingest: reading files 10/10 (j.json) [7s]",
        "ingest: writing parquet [1m17s]",
    ]
    assert out.getvalue().splitlines() == reporter.lines


def test_a_terminal_gets_a_live_bar_and_a_line_per_stage():
    con, out = console(True)
    with Reporter(con, True, "build") as reporter:
        reporter.update("folding facts")
        reporter.update("writing vertices", 3, 4)
    text = out.getvalue()
    assert "build: folding facts" in text and "build: writing vertices" in text
    assert reporter.lines == []  # no plain lines: the bar shows counts


def test_disabled_prints_nothing_and_no_reporter_is_a_no_op():
    con, out = console(False)
    with Reporter(con, False, "impact") as reporter:
        reporter.update("spark BFS: level", 1)
        progress.update("spark BFS: level", 2)
    assert out.getvalue() == "" and reporter.lines == []
    progress.update("outside any command")  # nothing open: nothing happens, nothing raised


def test_forwarded_sends_module_level_updates_to_the_callback_then_back():
    con, out = console(False)
    seen: list[str] = []
    with Reporter(con, True, "ingest") as reporter:
        reporter.update("reading files", 1, 2)
        with progress.forwarded(lambda stage: seen.append(f"build: {stage}")):
            progress.update("folding, step 01", 3, detail="x")
        progress.update("writing parquet")
    assert seen == ["build: folding, step 01"]
    assert [line.split(" [")[0] for line in reporter.lines] == ["ingest: reading files 1/2", "ingest: writing parquet"]
