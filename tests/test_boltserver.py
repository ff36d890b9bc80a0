"""The test servers' watchdog: a FalkorDB that stops answering during a fixture's export is killed
and the export done again on a fresh server, instead of the suite waiting forever (CI hung twice
on it, in the platform export). A stopped process (SIGSTOP) answers nothing, as the deadlocked one
did."""

from __future__ import annotations

import os
import signal

import boltserver
import pytest


def test_a_server_that_stops_answering_is_replaced_and_the_load_done_again(tmp_path, monkeypatch, capsys):
    monkeypatch.setattr(boltserver, "STALLED", 2.0)
    monkeypatch.setattr(boltserver, "POLL", 0.5)
    monkeypatch.setattr(boltserver, "PING_SECONDS", 0.5)
    monkeypatch.setattr(boltserver, "RETRY_SECONDS", 1.0)  # the killed server's transaction: not retried for 30 s
    attempts = []

    def load(server) -> None:
        attempts.append(server.redis_port)
        if len(attempts) == 1:
            os.kill(server.process.pid, signal.SIGSTOP)  # silent from here on, like the deadlock
        server.query("CREATE (:Loaded {attempt: $n})", n=len(attempts))

    folders = iter(tmp_path / f"s{i}" for i in range(3))
    server = boltserver.loaded(lambda: next(folders), load)
    try:
        assert len(attempts) == 2 and server.redis_port == attempts[1]
        assert boltserver.answers(server.redis_port)
        assert server.query("MATCH (n:Loaded) RETURN n.attempt AS a") == [{"a": 2}]
        assert "stopped answering (attempt 1 of 3)" in capsys.readouterr().err
    finally:
        server.stop()


def test_a_load_that_fails_on_a_live_server_is_not_retried(tmp_path):
    attempts = []

    def load(server) -> None:
        attempts.append(1)
        raise ValueError("a broken export")

    with pytest.raises(ValueError, match="a broken export"):
        boltserver.loaded(lambda: tmp_path / f"s{len(attempts)}", load)
    assert attempts == [1]
