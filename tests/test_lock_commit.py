"""The writer lock and the all-or-nothing commit, without Spark: real processes, real kills.

(`tests/test_faults.py` shows the same with `lineage ingest` and `lineage build`.)
"""

from __future__ import annotations

import json
import os
import signal
import socket
import subprocess
import sys
import time
from pathlib import Path

import pyarrow as pa
import pyarrow.parquet as pq
import pytest

from lineage.store.commit import Transaction, pending, recover
from lineage.store.damage import DamagedFile, explain, repair
from lineage.store.lock import writer

SRC = str(Path(__file__).resolve().parent.parent / "src")


def python(code: str, **env: str) -> subprocess.Popen[str]:
    return subprocess.Popen([sys.executable, "-c", code], env=dict(os.environ, PYTHONPATH=SRC, **env),
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)


def wait_for(path: Path, process: subprocess.Popen[str]) -> None:
    deadline = time.monotonic() + 60
    while not path.exists():
        assert process.poll() is None, process.communicate()
        assert time.monotonic() < deadline
        time.sleep(0.05)


def test_a_second_writer_waits_then_gives_up_naming_the_holder(tmp_path):
    messages: list[str] = []
    with writer(tmp_path, "lineage ingest", say=messages.append):
        other = python(f"""
from lineage.store.lock import writer
with writer({str(tmp_path)!r}, "lineage build", wait=0.6, say=print):
    print("got it")
""")
        out, err = other.communicate(timeout=60)
        assert other.returncode == 1 and "got it" not in out
        assert "WarehouseBusy" in err
        holder = f"pid {os.getpid()} on {socket.gethostname()} (lineage ingest, since "
        assert f"waiting up to 0.6 s for the warehouse lock held by {holder}" in out
        assert f"is being written by {holder}" in err and "gave up after waiting 0.6 s (--wait)" in err
        with writer(tmp_path, "nested"):  # re-entrant in its own process (weekly: ingest, then build)
            pass
        assert json.loads((tmp_path / ".lock").read_text())["command"] == "lineage ingest"
    assert messages == []
    assert (tmp_path / ".lock").read_text() == ""  # released cleanly


def test_a_waiting_writer_gets_the_lock_when_the_holder_finishes(tmp_path):
    holder = python(f"""
import time
from pathlib import Path
from lineage.store.lock import writer
with writer({str(tmp_path)!r}, "holder"):
    Path({str(tmp_path / 'held')!r}).touch()
    time.sleep(1.5)
""")
    wait_for(tmp_path / "held", holder)
    messages: list[str] = []
    started = time.monotonic()
    with writer(tmp_path, "waiter", wait=60, say=messages.append):
        waited = time.monotonic() - started
    assert holder.wait(60) == 0
    assert waited > 0.3 and len(messages) == 1 and f"held by pid {holder.pid}" in messages[0]


def test_a_killed_holder_leaves_a_stale_lock_that_the_next_writer_takes_over(tmp_path):
    holder = python(f"""
import time
from pathlib import Path
from lineage.store.lock import writer
with writer({str(tmp_path)!r}, "lineage build"):
    Path({str(tmp_path / 'held')!r}).touch()
    time.sleep(600)
""")
    wait_for(tmp_path / "held", holder)
    holder.send_signal(signal.SIGKILL)
    holder.wait(60)
    messages: list[str] = []
    with writer(tmp_path, "next", wait=0, say=messages.append):
        pass
    assert len(messages) == 1
    assert messages[0].startswith(f"taking over the stale lock of pid {holder.pid} on {socket.gethostname()} "
                                  "(lineage build, since ")
    assert "that run is dead" in messages[0]


def write_table(path: Path, rows: int) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    pq.write_table(pa.table({"n": list(range(rows))}), path)


def test_commit_appends_files_and_replaces_directories(tmp_path):
    write_table(tmp_path / "events" / "source=a" / "old.parquet", 2)
    write_table(tmp_path / "graph" / "vertices" / "old.parquet", 5)
    with Transaction(tmp_path, "t") as txn:
        write_table(txn.append(tmp_path / "events") / "source=a" / "new.parquet", 3)
        write_table(txn.replace("graph/vertices") / "new.parquet", 7)
        (txn.append(tmp_path / "events") / "_SUCCESS").touch()
        assert txn.dir.is_dir() and not (tmp_path / "events" / "source=a" / "new.parquet").exists()
    assert sorted(p.name for p in (tmp_path / "events" / "source=a").iterdir()) == ["new.parquet", "old.parquet"]
    assert [p.name for p in (tmp_path / "graph" / "vertices").iterdir()] == ["new.parquet"]
    assert not (tmp_path / "events" / "_SUCCESS").exists()
    assert not (tmp_path / ".txn").exists()


def test_a_transaction_that_raises_leaves_nothing(tmp_path):
    write_table(tmp_path / "graph" / "vertices" / "old.parquet", 5)
    with pytest.raises(RuntimeError), Transaction(tmp_path, "t") as txn:
        write_table(txn.replace("graph/vertices") / "new.parquet", 7)
        raise RuntimeError("boom")
    assert [p.name for p in (tmp_path / "graph" / "vertices").iterdir()] == ["old.parquet"]
    assert not (tmp_path / ".txn").exists()


COMMIT = """
import pyarrow as pa, pyarrow.parquet as pq
from pathlib import Path
from lineage.store.commit import Transaction
root = Path({root!r})
with Transaction(root, "t") as txn:
    for index in range(4):
        pq.write_table(pa.table({{"n": [index]}}), txn.append("events") / f"part-{{index}}.parquet")
    for name in ("edges", "vertices"):
        staged = txn.replace(f"graph/{{name}}")
        pq.write_table(pa.table({{"n": [1, 2, 3]}}), staged / "new.parquet")
"""


@pytest.mark.parametrize("renames", [1, 4, 5])
def test_a_commit_killed_midway_is_finished_by_recovery(tmp_path, renames):
    """Killed after 1 (events), 4 (all events) or 5 renames (edges replaced, vertices not)."""
    write_table(tmp_path / "graph" / "edges" / "old.parquet", 9)
    write_table(tmp_path / "graph" / "vertices" / "old.parquet", 9)
    marker = tmp_path / "paused"
    process = python(COMMIT.format(root=str(tmp_path)), LINEAGE_TEST_PAUSE_AT=f"t.commit:{renames}",
                     LINEAGE_TEST_PAUSE_FILE=str(marker))
    wait_for(marker, process)
    process.send_signal(signal.SIGKILL)
    process.wait(60)
    assert len(list((tmp_path / "events").glob("*.parquet"))) == min(renames, 4)  # half-done, as killed
    assert len(pending(tmp_path)) == 1
    messages = list(recover(tmp_path))
    assert len(messages) == 1 and messages[0].startswith("finished the commit of an interrupted run")
    assert len(list((tmp_path / "events").glob("*.parquet"))) == 4
    for name in ("edges", "vertices"):
        assert [p.name for p in (tmp_path / "graph" / name).iterdir()] == ["new.parquet"]
    assert not (tmp_path / ".txn").exists()


def test_an_uncommitted_transaction_is_discarded_by_recovery(tmp_path):
    txn = Transaction(tmp_path, "t")
    write_table(txn.append("events") / "part-0.parquet", 3)
    messages = list(recover(tmp_path))
    assert messages[0].startswith("discarded the uncommitted output")
    assert not (tmp_path / "events").exists() and not (tmp_path / ".txn").exists()


def test_a_damaged_file_is_named_with_its_repair(tmp_path):
    warehouse = tmp_path / "warehouse"
    damaged = warehouse / "graph" / "edges" / "part-0.parquet"
    write_table(damaged, 1000)
    damaged.write_bytes(damaged.read_bytes()[:200])
    with pytest.raises(Exception) as raised:
        pq.read_table(warehouse / "graph" / "edges")
    error = explain(raised.value)
    assert isinstance(error, DamagedFile)
    assert str(error).startswith(f"damaged file in the warehouse (graph): {damaged}: truncated or corrupted")
    assert f"run `lineage build --warehouse {warehouse}`" in str(error)
    assert explain(ValueError("a different problem")) is None


def test_repair_moves_unreadable_files_aside(tmp_path):
    good = tmp_path / "events" / "source=a" / "event_date=2024-01-01" / "good.parquet"
    bad = good.with_name("bad.parquet")
    write_table(good, 10)
    write_table(bad, 1000)
    bad.write_bytes(bad.read_bytes()[:-40])
    moved = repair(tmp_path)
    assert [(file, then) for file, _why, then in moved] == [
        ("events/source=a/event_date=2024-01-01/bad.parquet",
         "ingest the original inputs again to restore its records (those still stored count as duplicates), "
         f"then `lineage build --warehouse {tmp_path}`")]
    assert good.exists() and not bad.exists()
    assert (tmp_path / "damaged" / "events" / "source=a" / "event_date=2024-01-01" / "bad.parquet").exists()
    assert repair(tmp_path) == []
