"""Named pause points, so the fault tests can kill a run at an exact step (not a lucky moment).

``LINEAGE_TEST_PAUSE_AT=<point>[:<n>]`` pauses the run the ``n``-th time (default first) it
reaches ``<point>``: it creates the file ``LINEAGE_TEST_PAUSE_FILE`` (when set; the test waits
for it), then sleeps ``LINEAGE_TEST_PAUSE_SECONDS`` (default an hour: the test kills it) and
goes on; sooner once the file ``LINEAGE_TEST_RESUME_FILE`` exists (when set: the test resumes
it). Unset (always, outside tests) a point costs one dictionary look-up. Read straight from the
environment on purpose: a test hook, not a setting users see.

Points: ``ingest.file`` (after each input file is parsed), ``ingest.write`` (after each staged
dataset is written), ``ingest.commit`` (after each rename of the commit), ``build.write`` (after
the facts are staged), ``build.graph-write`` (after each of vertices, edges, changes is
staged), ``build.facts.commit`` and ``build.graph.commit`` (after each rename).
"""

from __future__ import annotations

import os
import sys
import time
from collections import Counter
from pathlib import Path

_reached: Counter[str] = Counter()


def pause_point(name: str) -> None:
    spec = os.environ.get("LINEAGE_TEST_PAUSE_AT")
    if not spec:
        return
    point, _, nth = spec.partition(":")
    if point != name:
        return
    _reached[name] += 1
    if _reached[name] != int(nth or 1):
        return
    sys.stderr.write(f"lineage: test pause at {spec} (pid {os.getpid()})\n")
    sys.stderr.flush()
    marker = os.environ.get("LINEAGE_TEST_PAUSE_FILE")
    if marker:
        Path(marker).write_text(str(os.getpid()))
    deadline = time.monotonic() + float(os.environ.get("LINEAGE_TEST_PAUSE_SECONDS", "3600"))
    resume = os.environ.get("LINEAGE_TEST_RESUME_FILE")
    while time.monotonic() < deadline and not (resume and Path(resume).exists()):
        time.sleep(min(0.1, max(0.0, deadline - time.monotonic())))
