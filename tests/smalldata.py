"""Spark settings for the tests' tiny data, where fixed costs per query dominate.

Adaptive execution re-plans every shuffle, and generated code is compiled (Janino) for every new
plan. Interpreted evaluation gives the same rows (Spark's own suites run both modes) at about half
the time per fold here. The test session uses them (``conftest.spark``), and so do the jobs the
cluster test runs on a standalone cluster, the ``lineage`` processes of the fault tests and the
notebook kernels (``test_cluster``, ``test_faults``, ``test_notebooks``: :func:`conf_dir`).
"""

import shutil
from pathlib import Path

SPARK_CONF = {
    "spark.default.parallelism": "2",
    "spark.sql.adaptive.enabled": "false",
    "spark.sql.codegen.wholeStage": "false",
    "spark.sql.codegen.factoryMode": "NO_CODEGEN",
}


def conf_dir(folder: Path) -> Path:
    """``folder`` made a Spark conf dir for a ``lineage`` process a test starts (``SPARK_CONF_DIR``):
    lineage's own log4j2 settings, and :data:`SPARK_CONF` as ``spark-defaults.conf``."""
    import lineage

    folder.mkdir(parents=True, exist_ok=True)
    shutil.copy(Path(lineage.__file__).parent / "conf" / "log4j2.properties", folder / "log4j2.properties")
    (folder / "spark-defaults.conf").write_text("".join(f"{key} {value}\n" for key, value in SPARK_CONF.items()))
    return folder
