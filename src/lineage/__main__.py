"""``python -m lineage ...``, and the file ``spark-submit`` runs on a cluster:

    spark-submit --master URL --py-files lineage.zip,graphframes.jar --jars graphframes.jar \
        src/lineage/__main__.py build --warehouse s3a://bucket/warehouse

(see docs/cluster.md, "Running on a cluster"). The package itself comes from ``--py-files`` (or an
installed wheel); this file only starts the CLI.
"""

from __future__ import annotations

import os
import sys

if not __package__:
    # Run as a file, Python puts this directory first on sys.path, where lineage's own modules
    # (io, spark, ...) would shadow top-level ones: drop it, lineage is imported as a package.
    here = os.path.dirname(os.path.realpath(__file__))
    sys.path[:] = [entry for entry in sys.path if os.path.realpath(entry or os.curdir) != here]

from lineage.cli import main  # noqa: E402 - after the sys.path repair above

if __name__ == "__main__":
    main(prog_name="lineage")
