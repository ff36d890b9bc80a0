"""The graph's job runs as OpenLineage RunEvents (spec 2-0-2): to a JSON Lines file or an HTTP endpoint.

Marquez, DataHub and OpenMetadata ingest OpenLineage but cannot read MaxCompute SQL; this hands them
our lineage. A run is a MaxCompute job (``job:maxcompute:<InstanceId>``), a DataWorks instance
(``instance:dataworks:<taskId>``) or a run we ingested (``instance:openlineage:<runId>``). Each
becomes a START event and, once finished, a COMPLETE, FAIL or ABORT event carrying:

- inputs/outputs: the run's READS/WRITES (a DataWorks instance: its node's READS/WRITES valid
  while it ran, as DataWorks instances report none of their own), named so that our own ingest
  (``ids.openlineage_dataset``) maps them back to the same Table or Location;
- ``columnLineage`` on an output from the column FEEDS whose ``via`` names the run or its
  definition (its node, its OpenLineage job: ``via`` names definitions, DESIGN.md);
- the job's ``sql``, ``ownership`` (OWNS edges) and ``jobType``; the run's ``processing_engine``
  (this project), ``errorMessage`` when it failed, ``parent`` (a MaxCompute job inside its
  DataWorks instance).

An OpenLineage job's own READS/WRITES (the inputs and outputs a JobEvent declared, with no run)
become one JobEvent, so what we ingested as declared lineage is declared again.

Events are built with openlineage-python's own classes and serialized with its ``Serde``. Run
ids are UUIDs derived from the vertex id, so every export of one graph says the same thing.

Over HTTP each event is one POST (Marquez's ``/api/v1/lineage``); each acknowledged event is
journaled (``lineage.export.state``, under ``WAREHOUSE/exports/<target>/``) before the next is
sent, so an interrupted export resumes and a re-run sends only events that are new or changed.
"""

from __future__ import annotations

import json
import os
import re
import time
import urllib.error
import urllib.request
import uuid
from dataclasses import dataclass, field
from datetime import datetime, timezone
from importlib.metadata import PackageNotFoundError, version
from pathlib import Path
from typing import Any, Callable, Iterable, Iterator
from urllib.parse import urlsplit

from lineage import ids
from lineage.errors import LineageError, UsageError
from lineage.export.state import ExportState
from lineage.graph.api import load_rows, to_time
from lineage.store.warehouse import Warehouse

ENGINE = "lineage"
RUN_NAMESPACE = uuid.uuid5(uuid.NAMESPACE_URL, "https://openlineage.io/lineage/run")
"""uuid5 namespace of run ids: one vertex id, one runId, on every export."""
EVENT = "event"  # the state's ``kind`` of a sent event
DEFAULT_KEY_ENV = "OPENLINEAGE_API_KEY"

COMPLETE_STATES = frozenset({"terminated", "success", "succeeded", "successful", "complete", "completed", "finished"})
FAILED_STATES = frozenset({"failed", "failure", "fail", "error"})
ABORTED_STATES = frozenset({"cancelled", "canceled", "abort", "aborted", "killed", "stopped"})
"""A run's ``status`` (MaxCompute, DataWorks, OpenLineage spellings) -> its terminal eventType;
any other status (running, waiting) is a run that has only STARTed."""


class ExportFailed(LineageError):
    """The endpoint stayed unreachable (or kept failing) past the retry window (exit 1); what
    it acknowledged is journaled and a re-run resumes after it."""


def _version(package: str) -> str:
    try:
        return version(package)
    except PackageNotFoundError:  # pragma: no cover - a source checkout without metadata
        return "0"


PRODUCER = f"https://github.com/lineage/lineage/tree/{_version('lineage')}"


# --------------------------------------------------------------------------------------------
# naming: graph ids -> OpenLineage (namespace, name), the inverse of ids.openlineage_dataset
# --------------------------------------------------------------------------------------------


def dataset_name(vertex_id: str) -> tuple[str, str]:
    """(namespace, name) that our ingest reads back as ``vertex_id``: ``table:maxcompute:p.t`` ->
    (``maxcompute://p``, ``p.t``); ``location:oss://b/k`` -> (``oss://b``, ``k``);
    ``location:file:///tmp/t`` -> (``file``, ``/tmp/t``); ``table:<platform>:<n>`` -> (platform, n)."""
    label, key = ids.label_of(vertex_id), ids.key_of(vertex_id)
    if label == "Location":
        parts = urlsplit(ids.key_of_location(vertex_id))
        if not parts.netloc:
            return parts.scheme, parts.path or "/"
        return f"{parts.scheme}://{parts.netloc}", parts.path.lstrip("/")
    platform = vertex_id.split(":", 2)[1]
    if platform == "maxcompute":
        return f"maxcompute://{key.split('.', 1)[0]}", key
    return platform, key


def column_field(column_id: str, dataset_ids: Iterable[str]) -> tuple[str, str] | None:
    """(dataset id, field) of a column id, among ``dataset_ids`` first, else by its last dot."""
    for dataset in dataset_ids:
        prefix = ids.openlineage_column(dataset, "x")[:-1]
        if column_id.startswith(prefix):
            return dataset, column_id[len(prefix):]
    _, platform, rest = column_id.split(":", 2)
    owner, dot, name = rest.rpartition(".")
    if not dot:
        return None
    if "/" in owner:  # a storage column: column:<scheme>:<authority>/<path>.<field>
        return f"location:{platform}://{owner}", name
    return f"table:{platform}:{owner}", name


def run_uuid(vertex_id: str) -> str:
    """An ingested OpenLineage run keeps its runId (when a UUID); any other run gets uuid5 of its id."""
    if vertex_id.startswith("instance:openlineage:"):
        try:
            return str(uuid.UUID(vertex_id.split(":", 2)[2]))
        except ValueError:
            pass
    return str(uuid.uuid5(RUN_NAMESPACE, vertex_id))


# --------------------------------------------------------------------------------------------
# runs out of the graph
# --------------------------------------------------------------------------------------------


@dataclass
class RunInfo:
    """What the graph knows about one run, before it becomes events."""

    id: str
    job_namespace: str
    job_name: str
    integration: str
    started: datetime | None
    ended: datetime | None
    state: str | None  # COMPLETE / FAIL / ABORT, None while running
    inputs: list[str] = field(default_factory=list)
    outputs: list[str] = field(default_factory=list)
    sql: str | None = None
    owners: list[str] = field(default_factory=list)
    error: str | None = None
    parent: tuple[str, str, str] | None = None  # (run id, job namespace, job name)
    columns: list[dict[str, Any]] = field(default_factory=list)  # column FEEDS through the run
    declared: bool = False  # not a run: an OpenLineage job's declared inputs and outputs (one JobEvent)


def _state(status: Any) -> str | None:
    text = str(status or "").strip().lower()
    if text in COMPLETE_STATES:
        return "COMPLETE"
    if text in FAILED_STATES:
        return "FAIL"
    if text in ABORTED_STATES:
        return "ABORT"
    return None


def _time(value: Any) -> datetime | None:
    if value is None or isinstance(value, datetime):
        return value.replace(tzinfo=timezone.utc) if value is not None and value.tzinfo is None else value
    try:
        return to_time(str(value))
    except UsageError:
        return None


def _overlaps(edge: dict[str, Any], start: datetime | None, end: datetime | None) -> bool:
    """An edge interval ``[valid_from, valid_to)`` meets the run's ``[start, end]``."""
    begin, stop = _time(edge.get("valid_from")), _time(edge.get("valid_to"))
    if end is not None and begin is not None and begin > end:
        return False
    return not (start is not None and stop is not None and stop <= start)


def _via(edge: dict[str, Any]) -> list[str]:
    try:
        found = json.loads(edge["properties"].get("via") or "[]")
    except ValueError:
        return []
    return [str(v) for v in found] if isinstance(found, list) else []


def runs(warehouse: str | Path) -> list[RunInfo]:
    """Every run of the built graph (whole history), oldest first."""
    vertices, edges = load_rows(warehouse)
    by_id = {v["id"]: v for v in vertices}
    out_edges: dict[str, list[dict[str, Any]]] = {}
    parent_of: dict[str, str] = {}
    owners: dict[str, list[str]] = {}
    column_feeds: dict[str, list[dict[str, Any]]] = {}
    for e in edges:
        rel = e["relationship"]
        if rel in ("READS", "WRITES"):
            out_edges.setdefault(e["src"], []).append(e)
        elif rel == "HAS_INSTANCE":
            parent_of[e["dst"]] = e["src"]
        elif rel == "OWNS" and e["src_label"] == "User":
            owners.setdefault(e["dst"], []).append(e["src"])
        elif rel == "FEEDS" and e["src_label"] == "Column":
            for via in _via(e):
                column_feeds.setdefault(via, []).append(e)

    found: list[RunInfo] = []
    for v in vertices:
        vid, props = v["id"], v["properties"] or {}
        if vid.startswith("job:maxcompute:"):
            run = _maxcompute_run(v, by_id)
        elif vid.startswith("instance:"):
            run = _instance_run(v, by_id.get(parent_of.get(vid, "")))
        else:
            continue
        run.started = _time(v.get("first_seen"))
        run.ended = _time(props.get("status_time")) or _time(v.get("last_seen"))
        if run.state == "FAIL" or run.state == "ABORT":
            code, message = props.get("error_code") or props.get("status_code"), props.get("error_message")
            run.error = f"{code}: {message}" if code and message else message or (
                f"{props.get('status')}" + (f" (status code {code})" if code else ""))
        sources = [vid] + ([parent_of[vid]] if vid in parent_of and not vid.startswith("instance:openlineage:") else [])
        node = "node:dataworks:" + props["skynet_id"] if props.get("skynet_id") else None
        job = parent_of.get(vid) if vid.startswith("instance:openlineage:") else None  # its column FEEDS' via
        for source in sources:
            for e in out_edges.get(source, ()):
                if source != vid and not _overlaps(e, run.started, run.ended):
                    continue
                (run.inputs if e["relationship"] == "READS" else run.outputs).append(e["dst"])
        run.inputs, run.outputs = sorted(set(run.inputs)), sorted(set(run.outputs))
        run.owners = sorted({o for s in sources + ([node] if node else []) for o in owners.get(s, ())})
        if run.state in ("FAIL", "ABORT"):
            run.inputs, run.outputs = [], []  # a failed run asserts no lineage (as our ingest reads it)
        seen: set[tuple[str, str, str]] = set()
        for via in [vid, *(sources[1:]), *([node] if node else []), *([job] if job else [])]:
            for e in column_feeds.get(via, ()):
                if (e["src"], e["dst"], e["qualifier"]) not in seen:
                    seen.add((e["src"], e["dst"], e["qualifier"]))
                    run.columns.append(e)
        found.append(run)
    found += _declared(vertices, out_edges, owners, column_feeds)
    return sorted(found, key=lambda r: (r.started or datetime.min.replace(tzinfo=timezone.utc), r.id))


def _declared(vertices: list[dict[str, Any]], out_edges: dict[str, list[dict[str, Any]]],
              owners: dict[str, list[str]], column_feeds: dict[str, list[dict[str, Any]]]) -> list[RunInfo]:
    """Every OpenLineage job with READS/WRITES of its own (a JobEvent's declared inputs and outputs):
    one declared "run" each, at the earliest of those edges, that becomes a JobEvent."""
    found = []
    for v in vertices:
        vid, edges = v["id"], out_edges.get(v["id"], ())
        if not vid.startswith("job:openlineage:") or not edges:
            continue
        props = v["properties"] or {}
        starts = [t for t in (_time(e.get("valid_from")) for e in edges) if t is not None]
        run = RunInfo(vid, props.get("namespace") or "openlineage", str(props.get("name") or ids.key_of(vid)),
                      "OPENLINEAGE", min(starts) if starts else _time(v.get("first_seen")), None, None,
                      sql=props.get("sql"), declared=True)
        run.inputs = sorted({e["dst"] for e in edges if e["relationship"] == "READS"})
        run.outputs = sorted({e["dst"] for e in edges if e["relationship"] == "WRITES"})
        run.owners = sorted(set(owners.get(vid, ())))
        seen: set[tuple[str, str, str]] = set()
        for e in column_feeds.get(vid, ()):
            if (e["src"], e["dst"], e["qualifier"]) not in seen:
                seen.add((e["src"], e["dst"], e["qualifier"]))
                run.columns.append(e)
        found.append(run)
    return found


def _maxcompute_run(v: dict[str, Any], by_id: dict[str, dict[str, Any]]) -> RunInfo:
    """A MaxCompute job: job named after the DataWorks node that scheduled it, if any, else its task."""
    props = v["properties"] or {}
    project = props.get("project") or "default"
    node = by_id.get(f"node:dataworks:{props['skynet_id']}") if props.get("skynet_id") else None
    name = (node or {}).get("name") or v.get("name") or ids.key_of(v["id"])
    run = RunInfo(v["id"], f"maxcompute://{project}", str(name), "MAXCOMPUTE", None, None, _state(props.get("status")),
                  sql=props.get("sql"))
    instance = by_id.get(f"instance:dataworks:{props['skynet_taskid']}") if props.get("skynet_taskid") else None
    if instance is not None and node is not None:
        run.parent = (instance["id"], *_dataworks_job(node, instance))
    return run


def _dataworks_job(node: dict[str, Any] | None, instance: dict[str, Any]) -> tuple[str, str]:
    props = instance["properties"] or {}
    workspace = props.get("workspace") or (node or {}).get("properties", {}).get("project_id") or "default"
    name = (node or {}).get("name") or ids.key_of(node["id"] if node else instance["id"])
    return f"dataworks://{workspace}", str(name)


def _instance_run(v: dict[str, Any], job: dict[str, Any] | None) -> RunInfo:
    """A DataWorks instance (a run of its node) or an OpenLineage run we ingested (its own job)."""
    props = v["properties"] or {}
    if v["id"].startswith("instance:openlineage:") and job is not None:
        jp = job["properties"] or {}
        namespace, name = jp.get("namespace") or "openlineage", jp.get("name") or ids.key_of(job["id"])
        integration, sql = "OPENLINEAGE", jp.get("sql")
    else:
        namespace, name = _dataworks_job(job, v)
        integration, sql = "DATAWORKS", (job or {}).get("properties", {}).get("sql") if job else None
    return RunInfo(v["id"], namespace, str(name), integration, None, None, _state(props.get("status")), sql=sql)


# --------------------------------------------------------------------------------------------
# runs -> openlineage-python events
# --------------------------------------------------------------------------------------------


def _iso(moment: datetime | None) -> str:
    moment = moment or datetime(1970, 1, 1, tzinfo=timezone.utc)
    return moment.astimezone(timezone.utc).isoformat(timespec="milliseconds").replace("+00:00", "Z")


def _column_facet(output: str, feeds: list[dict[str, Any]], datasets: list[str]) -> Any:
    """``columnLineage`` of one output: each column FEEDS is an input field whose transformation
    type is its qualifier (DIRECT/INDIRECT) and subtypes its ``transformations``."""
    from openlineage.client.facet_v2 import column_lineage_dataset as cl

    fields: dict[str, dict[tuple[str, str, str], list[Any]]] = {}
    for e in feeds:
        dst, src = column_field(e["dst"], [output]), column_field(e["src"], datasets)
        if dst is None or src is None or dst[0] != output:
            continue
        try:
            subtypes = json.loads(e["properties"].get("transformations") or "[]")
        except ValueError:
            subtypes = []
        kind = (e.get("qualifier") or "direct").upper()
        namespace, name = dataset_name(src[0])
        inputs = fields.setdefault(dst[1], {}).setdefault((namespace, name, src[1]), [])
        inputs += [cl.Transformation(type=kind, subtype=s) for s in subtypes or [None]]
    if not fields:
        return None
    return cl.ColumnLineageDatasetFacet(producer=PRODUCER, fields={
        out: cl.Fields(inputFields=[cl.InputField(namespace=ns, name=n, field=f, transformations=t)
                                    for (ns, n, f), t in sorted(inputs.items())])
        for out, inputs in sorted(fields.items())})


def events(run: RunInfo) -> list[Any]:
    """START and, for a finished run, its COMPLETE/FAIL/ABORT (openlineage-python RunEvents); a
    declared job's one JobEvent."""
    from openlineage.client.event_v2 import InputDataset, Job, JobEvent, OutputDataset, Run, RunEvent, RunState
    from openlineage.client.facet_v2 import (error_message_run, job_type_job, ownership_job, parent_run,
                                             processing_engine_run, sql_job)

    job_facets: dict[str, Any] = {"jobType": job_type_job.JobTypeJobFacet(producer=PRODUCER, 
        processingType="BATCH", integration=run.integration, jobType="JOB" if run.integration == "MAXCOMPUTE" else "TASK")}
    if run.sql:
        job_facets["sql"] = sql_job.SQLJobFacet(producer=PRODUCER, query=run.sql, dialect="maxcompute" if run.integration != "OPENLINEAGE" else None)
    if run.owners:
        job_facets["ownership"] = ownership_job.OwnershipJobFacet(producer=PRODUCER, 
            owners=[ownership_job.Owner(name=o if o.startswith("user:") else f"user:{o}") for o in run.owners])
    run_facets: dict[str, Any] = {"processing_engine": processing_engine_run.ProcessingEngineRunFacet(producer=PRODUCER, 
        version=_version("lineage"), name=ENGINE, openlineageAdapterVersion=_version("openlineage-python"))}
    if run.parent:
        parent_id, namespace, name = run.parent
        run_facets["parent"] = parent_run.ParentRunFacet(producer=PRODUCER, run=parent_run.Run(runId=run_uuid(parent_id)),
                                                         job=parent_run.Job(namespace=namespace, name=name))
    datasets = [*run.inputs, *run.outputs]
    inputs = [InputDataset(namespace=ns, name=n) for ns, n in map(dataset_name, run.inputs)]
    outputs = []
    for output in run.outputs:
        namespace, name = dataset_name(output)
        facet = _column_facet(output, run.columns, datasets)
        outputs.append(OutputDataset(namespace=namespace, name=name, facets={"columnLineage": facet} if facet else {}))
    job = Job(namespace=run.job_namespace, name=run.job_name, facets=job_facets)
    if run.declared:
        return [JobEvent(eventTime=_iso(run.started), producer=PRODUCER, job=job, inputs=inputs, outputs=outputs)]

    def event(state: str, moment: datetime | None, extra: dict[str, Any] | None = None) -> Any:
        return RunEvent(eventType=RunState(state), eventTime=_iso(moment), producer=PRODUCER,
                        run=Run(runId=run_uuid(run.id), facets={**run_facets, **(extra or {})}),
                        job=job, inputs=inputs, outputs=outputs)

    out = [event("START", run.started)]
    if run.state is not None:
        extra = {}
        if run.state != "COMPLETE":
            extra["errorMessage"] = error_message_run.ErrorMessageRunFacet(producer=PRODUCER, 
                message=run.error or run.state, programmingLanguage="SQL")
        out.append(event(run.state, run.ended or run.started, extra))
    return out


def to_json(event: Any) -> str:
    """One event as the file transport writes it (openlineage-python's Serde, one line)."""
    from openlineage.client.serde import Serde

    return Serde.to_json(event)


def serialized(warehouse: str | Path, since: Any = None, until: Any = None) -> Iterator[tuple[RunInfo, str, str]]:
    """(run, key, JSON) of every event with ``since <= eventTime < until``, in time order (a
    run's START first), so a consumer sees runs begin and end as they did."""
    start, end = to_time(since), to_time(until)
    chosen = []
    for run in runs(warehouse):
        for order, event in enumerate(events(run)):
            moment = to_time(event.eventTime)
            if (start is None or moment >= start) and (end is None or moment < end):
                chosen.append((moment, order, run.id, run, event))
    for _, _, _, run, event in sorted(chosen, key=lambda c: c[:3]):
        key = f"job/{run.job_namespace}/{run.job_name}" if run.declared else f"{event.run.runId}/{event.eventType.value}"
        yield run, key, to_json(event)


# --------------------------------------------------------------------------------------------
# targets
# --------------------------------------------------------------------------------------------


@dataclass
class Result:
    target: str
    runs: int = 0
    events: int = 0
    sent: int = 0
    skipped: int = 0
    failed: int = 0
    failures: list[dict[str, Any]] = field(default_factory=list)

    def to_json(self) -> dict[str, Any]:
        return {"target": self.target, "runs": self.runs, "events": self.events, "sent": self.sent,
                "skipped": self.skipped, "failed": self.failed, "failures": self.failures}


def export_file(warehouse: str | Path, out: str | Path, since: Any = None, until: Any = None) -> Result:
    """Every event as JSON Lines (the file transport's format), written beside and renamed."""
    out = Path(out)
    result = Result(str(out))
    partial = out.with_name(out.name + ".partial")
    out.parent.mkdir(parents=True, exist_ok=True)
    seen: set[str] = set()
    with partial.open("w", encoding="utf-8") as handle:
        for run, _, text in serialized(warehouse, since, until):
            if not run.declared:
                seen.add(run.id)
            handle.write(text + "\n")
            result.events += 1
    os.replace(partial, out)
    result.runs, result.sent = len(seen), result.events
    return result


def target_dir(warehouse: str | Path, url: str) -> Path:
    """``WAREHOUSE/exports/openlineage_<scheme>_<host>_<port>_<path>``: one journal per endpoint."""
    parts = urlsplit(url)
    text = f"openlineage_{parts.scheme}_{parts.hostname or ''}_{parts.port or ''}_{parts.path.strip('/')}"
    return Warehouse.at(warehouse).root / "exports" / re.sub(r"[^A-Za-z0-9._-]+", "_", text)


class _Transient(Exception):
    """Worth retrying: the endpoint is unreachable, overloaded or failing."""


class _Refused(Exception):
    """The endpoint answered 4xx: it will not take this event as it is."""


def post(url: str, body: bytes, token: str | None, timeout: float = 30.0) -> None:
    """POST one event; a 2xx is an acknowledgement, 408/429/5xx and network errors are
    :class:`_Transient`, any other status is the endpoint refusing this event (:class:`_Refused`)."""
    headers = {"Content-Type": "application/json"}
    if token:
        headers["Authorization"] = f"Bearer {token}"
    request = urllib.request.Request(url, data=body, headers=headers, method="POST")
    try:
        with urllib.request.urlopen(request, timeout=timeout) as response:
            response.read()
    except urllib.error.HTTPError as exc:
        if exc.code in (408, 429) or exc.code >= 500:
            raise _Transient(f"HTTP {exc.code}") from None
        detail = exc.read()[:300].decode("utf-8", "replace")
        raise _Refused(f"HTTP {exc.code}: {' '.join(detail.split())}") from None
    except (urllib.error.URLError, OSError) as exc:
        raise _Transient(str(getattr(exc, "reason", exc))) from None


def export_http(warehouse: str | Path, url: str, since: Any = None, until: Any = None, token_env: str = DEFAULT_KEY_ENV,
                retry_seconds: float = 60.0, timeout: float = 30.0,
                progress: Callable[[str, int, int], None] | None = None) -> Result:
    """POST every event not yet acknowledged (or changed since), in time order, journaling each
    acknowledgement before the next; a refused event (4xx) is counted failed and resent next run."""
    from lineage.export.records import digest

    if urlsplit(url).scheme not in ("http", "https"):
        raise UsageError(f"--url must be http(s)://...: {url!r}")
    token = os.environ.get(token_env) or None
    state = ExportState.load(target_dir(warehouse, url))
    result = Result(url)
    todo = list(serialized(warehouse, since, until))
    result.runs, result.events = len({r.id for r, _, _ in todo if not r.declared}), len(todo)
    run_id = datetime.now(timezone.utc).strftime("%Y%m%dT%H%M%SZ")
    try:
        for index, (run, key, text) in enumerate(todo):
            sign = digest({"event": text})
            held = state.rows.get((EVENT, key))
            if held is not None and held.get("digest") == sign:
                result.skipped += 1
                continue
            try:
                _send(url, text.encode("utf-8"), token, retry_seconds, timeout)
            except _Refused as exc:
                result.failed += 1
                result.failures.append({"run": run.id, "event": key, "reason": str(exc)})
                continue
            label = "JobEvent" if run.declared else key.rsplit("/", 1)[1]
            state.record([{"kind": EVENT, "key": key, "label": label, "src": run.id, "digest": sign}])
            result.sent += 1
            if progress:
                progress("sending events", index + 1, len(todo))
    finally:
        state.save(run_id)
    return result


def _send(url: str, body: bytes, token: str | None, retry_seconds: float, timeout: float) -> None:
    """One event, retried with backoff while the endpoint fails transiently, for ``retry_seconds``."""
    deadline, pause = time.monotonic() + retry_seconds, 0.2
    while True:
        try:
            post(url, body, token, timeout)
            return
        except _Transient as exc:
            if time.monotonic() + pause > deadline:
                raise ExportFailed(f"export openlineage: {url} unreachable or failing ({exc}) for {retry_seconds:g}s; "
                                   "what it acknowledged is kept: run the export again to resume") from None
            time.sleep(pause)
            pause = min(pause * 2, 5.0)
