"""The warehouse's storage: where everything lives on disk and how it is written safely.

``warehouse`` (the paths of one warehouse, local or remote), ``schema`` (the columns of every
parquet dataset the build writes), ``lock`` (the one writer lock), ``commit`` (all-or-nothing
commits and their recovery), ``runs`` (the run-report base: ``--json`` and the run logs),
``damage`` (damaged files: the message and ``lineage repair``), ``testhooks`` (the pause points of
the fault tests). The stages (ingest, graph, export, report) write through these modules.
"""
