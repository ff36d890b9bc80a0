"""Spark jobs next to MaxCompute, reporting their runs as OpenLineage RunEvents (issue 34, part 4).

``lineage generate --openlineage-share F`` adds Spark jobs (``F`` × the platform's nodes, at least
one): each reads one or two MaxCompute tables of the middle layers (dim, dwd, dws), through the
MaxCompute connector (``maxcompute://`` datasets) or, for a table a node UNLOADs, its export files
(``oss://acme-export``), and writes one lake table (``oss://acme-lake/spark/<name>``) that a
MaxCompute node of the top layers (ads, reporting) then joins as ``parquet.`oss://...```: lineage
crosses the boundary MaxCompute -> Spark -> MaxCompute. The datasets are named so that
``ids.openlineage_dataset`` gives the vertices the MaxCompute SQL names.

Every job runs daily: START, then COMPLETE (inputs, outputs, a schema facet; a columnLineage facet
on every other job) or FAIL with an errorMessage facet. Events go to
``DIR/events/openlineage/DAY.jsonl``, the file transport's JSON Lines, written once and whole.
Everything here comes from its own random streams (``<seed>:openlineage``): with ``F`` = 0 nothing
is drawn and the output is byte for byte what it was.
"""

from __future__ import annotations

import random
from collections.abc import Iterator
from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import Any

from lineage import ids
from lineage.generate.ident import Ids
from lineage.generate.model import Platform

PRODUCER = "https://github.com/OpenLineage/OpenLineage/tree/1.23.0/integration/spark"
SCHEMA_URL = "https://openlineage.io/spec/2-0-2/OpenLineage.json#/$defs/RunEvent"
FACET = "https://openlineage.io/spec/facets/{version}/{name}.json#/$defs/{name}"
JOB_NAMESPACE = "acme-spark"
MAXCOMPUTE_NAMESPACE = "maxcompute://service.cn-hangzhou.maxcompute.aliyun.com/api"
EXPORT_NAMESPACE, LAKE_NAMESPACE = "oss://acme-export", "oss://acme-lake"
FAILURE_RATE = 0.05
"""Share of Spark runs that FAIL (and the first job's second day always does, so a short platform has one)."""
SOURCE_LAYERS, READER_LAYERS = ("dim", "dwd", "dws"), ("ads", "rpt")
"""Spark reads the middle layers and the top layers read Spark back: no cycle can form."""
READER_KINDS = ("insert", "ctas", "multi")
"""Node kinds whose FROM clause joins the lake table (``sqltext._joins``)."""


@dataclass(frozen=True)
class SparkJob:
    index: int
    name: str
    inputs: tuple[tuple[str, str], ...]  # OpenLineage datasets (namespace, name without the partition)
    output: str  # the lake table's name (``sqltext.SPARK_URI``)
    minute: int  # start minute after 00:00
    columns: bool  # reports a columnLineage facet

    @property
    def id(self) -> str:
        return ids.openlineage_job(JOB_NAMESPACE, self.name)

    @property
    def reads(self) -> tuple[str, ...]:
        return tuple(sorted({ids.openlineage_dataset(ns, name) for ns, name in self.inputs}))

    @property
    def writes(self) -> tuple[str, ...]:
        return (ids.openlineage_dataset(LAKE_NAMESPACE, f"spark/{self.output}"),)


@dataclass(frozen=True)
class SparkRun:
    job: SparkJob
    run_id: str
    begin: datetime
    end: datetime
    ok: bool


def plant(platform: Platform, share: float) -> list[SparkJob]:
    """The Spark jobs of ``share`` (0: none, nothing drawn), and the top-layer node that joins each
    one's lake table (``NodeSpec.lake_reads``)."""
    if not share:
        return []
    rng = random.Random(f"{platform.seed}:openlineage")
    own = [n for n in platform.nodes if not n.planted]
    sources = [t for t in platform.tables if not t.planted and t.layer in SOURCE_LAYERS]
    readers = [n for n in own if n.kind in READER_KINDS and n.inputs
               and platform.table(n.targets[0]).layer in READER_LAYERS]
    unloads = {n.targets[0] for n in own if n.kind == "insert" and n.style == "unload"}
    if not sources or not readers:
        return []
    jobs = []
    for index in range(max(1, round(share * len(own)))):
        chosen = rng.sample(sources, min(len(sources), rng.choice((1, 1, 2))))
        exported = [t for t in sources if t.index in unloads]
        if index == 0 and exported:  # every platform reads an export's files at least once
            chosen = list({t.index: t for t in [rng.choice(exported), *chosen[1:]]}.values())
        inputs = tuple((EXPORT_NAMESPACE, f"{t.project}/{t.name}") if t.index in unloads
                       else (MAXCOMPUTE_NAMESPACE, t.qualified) for t in chosen)
        name = f"{chosen[0].domain}_{chosen[0].entity}_features_{index}"
        jobs.append(SparkJob(index, f"acme_lake.{name}", inputs, name, 200 + rng.randrange(40), index % 2 == 0))
        reader = rng.choice(readers)
        reader.lake_reads = (*reader.lake_reads, name)
    return jobs


def day_runs(platform: Platform, jobs: list[SparkJob], index: int) -> list[SparkRun]:
    """Each job's run of day ``index`` (its own random stream per day)."""
    rng = random.Random(f"{platform.seed}:openlineage:{index}")
    ident = Ids(f"{platform.seed}:openlineage:runs:{index}")
    day = platform.day(index)
    runs = []
    for job in jobs:
        begin = day + timedelta(minutes=job.minute + rng.random())
        end = begin + timedelta(minutes=3 + rng.random() * 12)
        failed = rng.random() < FAILURE_RATE or (job.index == 0 and index == 1 and platform.days > 2)
        runs.append(SparkRun(job, ident.uuid(), begin, end, not failed))
    return runs


def _facet(name: str, version: str, /, **fields: Any) -> dict[str, Any]:
    return {"_producer": PRODUCER, "_schemaURL": FACET.format(version=version, name=name), **fields}


def _time(moment: datetime) -> str:
    return moment.strftime("%Y-%m-%dT%H:%M:%S.%f")[:-3] + "Z"


def events(platform: Platform, runs: list[SparkRun]) -> Iterator[dict[str, Any]]:
    """START and COMPLETE (or FAIL) of every run, as Spark's OpenLineage listener reports them."""
    for run in runs:
        job, ds = run.job, f"ds={run.begin - timedelta(days=1):%Y%m%d}"
        inputs = [{"namespace": ns, "name": f"{name}/{ds}" if ns == EXPORT_NAMESPACE else name} for ns, name in job.inputs]
        output: dict[str, Any] = {"namespace": LAKE_NAMESPACE, "name": f"spark/{job.output}"}
        common = {
            "job": {"namespace": JOB_NAMESPACE, "name": job.name,
                    "facets": {"jobType": _facet("JobTypeJobFacet", "2-0-3", processingType="BATCH",
                                                 integration="SPARK", jobType="SQL_JOB")}},
            "inputs": inputs, "producer": PRODUCER, "schemaURL": SCHEMA_URL,
        }
        engine = {"processing_engine": _facet("ProcessingEngineRunFacet", "1-1-1", version="3.5.1", name="spark",
                                              openlineageAdapterVersion="1.23.0")}
        yield {"eventType": "START", "eventTime": _time(run.begin), "run": {"runId": run.run_id, "facets": engine},
               **common, "outputs": [output]}
        if not run.ok:
            message = f"Job aborted: lost executor reading {inputs[0]['name']}"
            yield {"eventType": "FAIL", "eventTime": _time(run.end),
                   "run": {"runId": run.run_id, "facets": {**engine, "errorMessage": _facet(
                       "ErrorMessageRunFacet", "1-0-1", message=message, programmingLanguage="JAVA")}},
                   **common, "outputs": [output]}
            continue
        facets: dict[str, Any] = {"schema": _facet("SchemaDatasetFacet", "1-1-1", fields=[
            {"name": "id", "type": "bigint"}, {"name": "amount", "type": "decimal(18,2)"}])}
        if job.columns:
            facets["columnLineage"] = _facet("ColumnLineageDatasetFacet", "1-2-0", fields={
                column: {"inputFields": [{"namespace": d["namespace"], "name": d["name"], "field": column,
                                          "transformations": [{"type": "DIRECT", "subtype": kind}]}
                                         for d in inputs]}
                for column, kind in (("id", "IDENTITY"), ("amount", "AGGREGATION"))})
        yield {"eventType": "COMPLETE", "eventTime": _time(run.end), "run": {"runId": run.run_id, "facets": engine},
               **common, "outputs": [{**output, "facets": facets}]}
