"""The weekly impact report (issue 15): what changed, what it put at risk, who must be told,
how access moved, what broke, and whether the inputs were complete.

``lineage report`` / ``lineage weekly`` call :func:`lineage.report.job.write`; notebooks read
a written report back with :func:`load`. Schema: :mod:`lineage.report.model`.
"""

from __future__ import annotations

from lineage.report.model import SCHEMA, Report, load

__all__ = ["SCHEMA", "Report", "load"]
