"""Memory: how much an engine has, and the one paragraph to print when it runs out.

An engine that runs out of memory is an expected failure with a remedy (a setting to raise, the
other engine), not an internal error with a page of Java stack. It shows up in three ways, each
read here (:func:`explain`):

* the local engine (numpy, pyarrow) raises Python's ``MemoryError``;
* the Spark driver's JVM runs out of heap: it is started with ``-XX:+ExitOnOutOfMemoryError``
  (``lineage.spark.get_spark``), so it exits at once (status 3) instead of limping on with a
  lost task that a result iterator would wait for forever; Python then sees a dead gateway;
* the JVM is killed (the kernel's OOM killer: a signal) or a Java ``OutOfMemoryError`` reaches
  Python in a job failure's message.
"""

from __future__ import annotations

import re
import sys
from pathlib import Path
from typing import Any

from lineage.errors import OutOfMemory
from lineage.settings import Settings, current

JAVA_SIGNATURES = ("java.lang.OutOfMemoryError", "Java heap space", "GC overhead limit exceeded",
                   "SparkOutOfMemoryError", "Requested array size exceeds VM limit")
"""Words of a Java out-of-memory failure in an exception's message."""
JVM_OOM_EXIT = 3
"""The JVM's exit status under ``-XX:+ExitOnOutOfMemoryError``."""
SPARK_OOM_EXIT = 52
"""Spark's own exit status for an executor that ran out of memory."""
UNITS = {"": 1, "b": 1, "k": 1 << 10, "m": 1 << 20, "g": 1 << 30, "t": 1 << 40, "p": 1 << 50}


def size_bytes(value: str) -> int:
    """``4g`` -> bytes (no unit: bytes)."""
    match = re.match(r"^\s*([0-9]+)\s*([kmgtp]?)b?\s*$", value.lower())
    if not match:
        raise ValueError(f"not a memory size: {value!r}")
    return int(match[1]) * UNITS[match[2]]


def driver_bytes(settings: Settings | None = None) -> int:
    """The Spark driver's heap in bytes (``LINEAGE_DRIVER_MEMORY``; a bare number is MiB, as Spark reads it)."""
    value = (settings or current()).driver_memory.strip().lower()
    return size_bytes(value + "m" if value.isdigit() else value)


def local_cap(settings: Settings | None = None) -> int | None:
    """``LINEAGE_LOCAL_MEMORY`` in bytes (None: ``auto``, the system's own limits)."""
    value = (settings or current()).local_memory.strip().lower()
    return None if value == "auto" else size_bytes(value + "m" if value.isdigit() else value)


def resident_bytes() -> int:
    """This process's resident memory now (/proc/self/statm; 0 where unknown)."""
    import os

    try:
        return int(Path("/proc/self/statm").read_text().split()[1]) * os.sysconf("SC_PAGE_SIZE")
    except (OSError, ValueError, IndexError):
        return 0


def check_local(settings: Settings | None = None) -> None:
    """Raise ``MemoryError`` when this process holds more than ``LINEAGE_LOCAL_MEMORY``: the local
    engine calls it as its arrays grow (after loading the graph, each level, each chunk's answers)."""
    cap = local_cap(settings)
    if cap is not None and (held := resident_bytes()) > cap:
        raise MemoryError(f"the local engine holds {gib(held)}, over LINEAGE_LOCAL_MEMORY ({gib(cap)})")


def available_bytes(meminfo: str | Path = "/proc/meminfo") -> int | None:
    """Memory the system can give a new process now (``MemAvailable``); None where unknown."""
    try:
        text = Path(meminfo).read_text()
    except OSError:
        return None
    match = re.search(r"^MemAvailable:\s+(\d+)\s*kB", text, re.MULTILINE)
    return int(match[1]) * 1024 if match else None


def gib(n: int | None) -> str:
    return "unknown" if n is None else f"{n / (1 << 30):.1f} GiB"


LOST = ("Py4JNetworkError", "ConnectionRefusedError", "ConnectionResetError", "BrokenPipeError", "EOFError")
"""How Python sees a JVM that is gone: its status is then waited for (it may still be exiting)."""
EXITING = 15.0  # seconds


def _jvm_exit(lost: bool = False) -> int | None:
    """The Spark JVM's exit status once it has exited (None: running, or never started); when
    Python ``lost`` its connection, the JVM may still be exiting: wait for it a little."""
    import subprocess

    context = sys.modules.get("pyspark.context")
    gateway = getattr(getattr(context, "SparkContext", None), "_gateway", None) if context else None
    proc = getattr(gateway, "proc", None)
    if proc is None:
        return None
    try:
        return proc.wait(EXITING) if lost else proc.poll()
    except subprocess.TimeoutExpired:
        return None


def _chain(exc: BaseException) -> list[BaseException]:
    seen: list[BaseException] = []
    while exc is not None and exc not in seen:
        seen.append(exc)
        exc = exc.__cause__ or exc.__context__  # type: ignore[assignment]
    return seen


def explain(exc: BaseException, *, alternative: bool = True, settings: Settings | None = None) -> OutOfMemory | None:
    """The :class:`OutOfMemory` for an error that is an engine running out of memory (None for
    any other error). ``alternative``: the command takes ``--engine``, so the other engine is named."""
    settings = settings or current()
    chain = _chain(exc)
    status = _jvm_exit(lost=any(type(e).__name__ in LOST for e in chain))
    java = any(word in str(e) for e in chain for word in JAVA_SIGNATURES)
    heap = f"spark.driver.memory = {settings.driver_memory}, set by LINEAGE_DRIVER_MEMORY"
    free = f"{gib(available_bytes())} of memory are available now"
    if status is not None or java:
        if status is not None and status < 0:
            what = (f"the Spark JVM was killed (signal {-status}), most likely by the system running out of "
                    f"memory ({heap}; {free})")
            fix = "lower LINEAGE_DRIVER_MEMORY below what is available, or free memory"
        elif java or status in (JVM_OOM_EXIT, SPARK_OOM_EXIT):
            what = f"the Spark engine ran out of memory: the driver's Java heap ({heap}) is too small for this answer"
            fix = f"raise LINEAGE_DRIVER_MEMORY (e.g. LINEAGE_DRIVER_MEMORY=8g; {free})"
        else:
            what = f"the Spark JVM exited with status {status} in the middle of the command ({heap}; {free})"
            fix = "run it again with --debug to see why, or raise LINEAGE_DRIVER_MEMORY if it ran out of memory"
        other = ", or try --engine local (no JVM; it needs far less memory for the same answer)" if alternative else ""
        return OutOfMemory(f"{what}. To go on: {fix}{other}. The Java stack is shown with --debug.")
    if any(isinstance(e, MemoryError) for e in chain):
        spark = _jvm_exit() is None and "pyspark.context" in sys.modules and \
            getattr(sys.modules["pyspark.context"].SparkContext, "_active_spark_context", None) is not None
        where = "the Python driver (collecting Spark's answer)" if spark else "the local engine (in this Python process)"
        cap = local_cap(settings)
        if cap is not None:
            free += f", LINEAGE_LOCAL_MEMORY caps it at {gib(cap)}"
        other = (", or try --engine spark (LINEAGE_DRIVER_MEMORY sets its heap)" if not spark else
                 ", or ask for less (a shorter window, --max-depth)") if alternative else ""
        return OutOfMemory(f"{where} ran out of memory ({free}; a process memory limit, `ulimit -v`, counts too). "
                           f"To go on: free memory or raise the limit (LINEAGE_LOCAL_MEMORY, ulimit){other}. The traceback is shown with --debug.")
    return None

