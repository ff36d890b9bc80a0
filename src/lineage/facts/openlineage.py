"""OpenLineage events -> facts: runs of jobs reading and writing datasets, the same vertices as ours.

A run is an ``Instance`` of a ``Job`` (``job:openlineage:<namespace>/<name>``,
``instance:openlineage:<runId>``): ``(Job)-[:HAS_INSTANCE]->(Instance)``, the run's inputs
``(Instance)-[:READS]->`` and outputs ``(Instance)-[:WRITES]->`` a Table or Location
(``lineage.ids.openlineage_dataset``: a MaxCompute or storage dataset is the vertex our other
sources name). The spec lets a run name its datasets on any of its events (Marquez's seed names
them on START only), so every event of a run asserts what it names, marked with the run
(``properties.run``): the fold (``lineage.graph.fold.run_lineage``) holds those edges only once
the run's last status is COMPLETE, from its completion on; FEEDS then follow from the run's
inputs to its outputs as for any job, naming the job (``properties.definition``), not the run, in
``via``. FAIL and ABORT are failed operations: their facts change
nothing but the run's status (``failed``, ``error_code`` FAIL/ABORT, ``error_message`` from the
``errorMessage`` facet). A JobEvent declares a job's inputs and outputs: ``(Job)-[:READS|WRITES]``.

Facets are read by the tables below (:data:`JOB_FACETS`, :data:`RUN_FACETS`,
:data:`DATASET_FACETS`, :data:`IO_FACETS`) or become edges (``ownership`` -> OWNS, ``schema`` ->
HAS_COLUMN, ``columnLineage`` -> column FEEDS, ``parent`` -> CONTAINS, ``symlinks`` -> the id,
``lifecycleStateChange`` -> a Change); every other facet is kept whole on its vertex (input and
output facets: on the READS/WRITES edge) as the property ``facet.<name>`` (JSON), never dropped.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterable, Iterator
from functools import partial
from typing import Any

from lineage import ids
from lineage.events.base import ParsedEvent
from lineage.events.openlineage import Dataset, DatasetEvent, JobEvent, RunEvent
from lineage.facts.core import Emit, Out

SOURCE = "openlineage"

RUN_KEY = "run"
"""The property that marks an edge as a run's report: it holds once that run completes
(``lineage.graph.fold.RUN_KEY``, the same name)."""
DEFINITION = "definition"
"""A run's READS/WRITES property naming its job (``job:openlineage:<namespace>/<name>``): the
definition a derived table FEEDS names in ``via`` instead of the run (``lineage.graph.fold.derive_feeds``,
DESIGN.md "Definitions and runs"); a column FEEDS names the job in ``via`` itself."""
FAILED_STATES = frozenset({"FAIL", "ABORT"})
MAX_FACET_CHARS = 65_536
"""A kept facet longer than this (Spark's ``spark.logicalPlan``) is cut, and says so."""
DATASET_LABELS = ("Table", "Location")

# --------------------------------------------------------------------------------------------
# the contract
# --------------------------------------------------------------------------------------------


def failed(event: ParsedEvent) -> bool:
    """A run that FAILed or was ABORTed asserts nothing; its status says so."""
    return event.kind in FAILED_STATES


def actor_id(event: ParsedEvent) -> str | None:
    """OpenLineage events name no one who acted."""
    return None


# --------------------------------------------------------------------------------------------
# facet tables: facet name -> the properties it gives (None values are dropped)
# --------------------------------------------------------------------------------------------


def _get(facet: Any, *keys: str) -> Any:
    return next((facet[k] for k in keys if isinstance(facet, dict) and facet.get(k) not in (None, "")), None)


JOB_FACETS: dict[str, Callable[[dict], dict[str, Any]]] = {
    "sql": lambda f: {"sql": _get(f, "query"), "sql_dialect": _get(f, "dialect")},
    "jobType": lambda f: {"job_type": _get(f, "jobType"), "processing_type": _get(f, "processingType"),
                          "integration": _get(f, "integration")},
    "documentation": lambda f: {"description": _get(f, "description")},
    "sourceCodeLocation": lambda f: {"source_code_url": _get(f, "url", "repoUrl"), "source_code_path": _get(f, "path")},
    "ownership": lambda f: {"owners": _owner_names(f) or None},
}
"""Job facets read into Job properties (ownership also gives OWNS edges)."""

RUN_FACETS: dict[str, Callable[[dict], dict[str, Any]]] = {
    "parent": lambda f: {"parent_run": _parent(f)[0], "parent_job": _parent(f)[1]},
    "nominalTime": lambda f: {"nominal_start_time": _get(f, "nominalStartTime"),
                              "nominal_end_time": _get(f, "nominalEndTime")},
    "processing_engine": lambda f: {"engine": _get(f, "name"), "engine_version": _get(f, "version"),
                                    "openlineage_adapter_version": _get(f, "openlineageAdapterVersion")},
    "errorMessage": lambda f: {"error_message": _get(f, "message"), "error_language": _get(f, "programmingLanguage"),
                               "error_stack_trace": _get(f, "stackTrace")},
}
"""Run facets read into Instance properties (parent also gives CONTAINS edges)."""

DATASET_FACETS: dict[str, Callable[[dict], dict[str, Any]]] = {
    "schema": lambda f: {"columns": len(_fields(f)) if _fields(f) else None},
    "symlinks": lambda f: {"symlinks": [ids.openlineage_dataset(ns, name) for ns, name in _symlink_pairs(f)] or None},
    "dataSource": lambda f: {"data_source": _get(f, "name"), "data_source_uri": _get(f, "uri")},
    "documentation": lambda f: {"description": _get(f, "description")},
    "ownership": lambda f: {"owners": _owner_names(f) or None},
    "lifecycleStateChange": lambda f: {"lifecycle_state_change": _get(f, "lifecycleStateChange")},
    "storage": lambda f: {"storage_layer": _get(f, "storageLayer"), "file_format": _get(f, "fileFormat")},
    "datasetType": lambda f: {"dataset_type": _get(f, "datasetType"), "dataset_subtype": _get(f, "subType")},
    "columnLineage": lambda f: {},  # column FEEDS (below)
}
"""Dataset facets read into Table/Location properties (schema: HAS_COLUMN, columnLineage: FEEDS)."""

IO_FACETS: dict[str, Callable[[dict], dict[str, Any]]] = {
    "outputStatistics": lambda f: {"row_count": _get(f, "rowCount"), "bytes": _get(f, "size"),
                                   "file_count": _get(f, "fileCount")},
    "inputStatistics": lambda f: {"row_count": _get(f, "rowCount"), "bytes": _get(f, "size"),
                                  "file_count": _get(f, "fileCount")},
}
"""Input/output facets read into READS/WRITES properties."""

LIFECYCLE_CHANGES: dict[str, str] = {"CREATE": "create", "DROP": "drop", "ALTER": "schema_change",
                                     "RENAME": "schema_change"}
"""``lifecycleStateChange`` of a completed run (or a DatasetEvent) -> Change kind; OVERWRITE and
TRUNCATE change rows, not the table: no Change."""


def _facet_text(value: Any) -> str:
    """A facet kept whole as JSON, cut (and saying so) past :data:`MAX_FACET_CHARS`."""
    text = json.dumps(value, ensure_ascii=False, sort_keys=True, default=str)
    if len(text) > MAX_FACET_CHARS:
        return f"{text[:MAX_FACET_CHARS]}... (cut: {len(text)} characters)"
    return text


def _facet_props(facets: dict[str, Any], table: dict[str, Callable[[dict], dict[str, Any]]]) -> dict[str, Any]:
    """Properties of the facets ``table`` reads, plus ``facet.<name>`` for every other facet."""
    props: dict[str, Any] = {}
    for name in sorted(facets):
        facet = facets[name]
        if name in table and isinstance(facet, dict):
            props.update({k: v for k, v in table[name](facet).items() if v is not None})
        else:
            props[f"facet.{name}"] = _facet_text(facet)
    return props


# --------------------------------------------------------------------------------------------
# reading an event
# --------------------------------------------------------------------------------------------


def _owner_names(facet: dict) -> list[str]:
    return [str(o["name"]) for o in facet.get("owners") or () if isinstance(o, dict) and o.get("name")]


def _fields(facet: dict, prefix: str = "") -> list[tuple[str, dict]]:
    """(dotted name, field) of a schema facet's fields, nested ones (``fields``) included."""
    out: list[tuple[str, dict]] = []
    for field in facet.get("fields") or ():
        if isinstance(field, dict) and field.get("name") not in (None, ""):
            name = f"{prefix}{field['name']}"
            out.append((name, field))
            out.extend(_fields(field, f"{name}."))
    return out


def _symlink_pairs(facet: Any) -> list[tuple[str, str]]:
    if not isinstance(facet, dict):
        return []
    return [(str(i["namespace"]), str(i["name"])) for i in facet.get("identifiers") or ()
            if isinstance(i, dict) and i.get("namespace") and i.get("name")]


def _parent(facet: dict) -> tuple[str | None, str | None]:
    """(run id, job id) of a parent facet; either may be absent."""
    run, job = facet.get("run") or {}, facet.get("job") or {}
    run_id = ids.openlineage_run(run["runId"]) if isinstance(run, dict) and run.get("runId") else None
    job_id = (ids.openlineage_job(job["namespace"], job["name"])
              if isinstance(job, dict) and job.get("namespace") and job.get("name") else None)
    return run_id, job_id


def dataset_id(dataset: Dataset) -> str:
    """The Table or Location a dataset is (its symlinks considered): ``lineage.ids``."""
    return ids.openlineage_dataset(dataset.namespace, dataset.name, _symlink_pairs(dataset.facets.get("symlinks")))


def _datasets(event: ParsedEvent, which: str | None = None) -> list[Dataset]:
    """The event's ``inputs``/``outputs`` (``which``), all of them, or a DatasetEvent's one."""
    model = event.model
    if isinstance(model, DatasetEvent):
        return [model.dataset] if which is None else []
    if which is None:
        return [*model.inputs, *model.outputs]
    return list(getattr(model, which))


def _job(event: ParsedEvent) -> str | None:
    model = event.model
    return ids.openlineage_job(model.job.namespace, model.job.name) if isinstance(model, (RunEvent, JobEvent)) else None


def _run(event: ParsedEvent) -> str | None:
    return ids.openlineage_run(event.model.run.run_id) if isinstance(event.model, RunEvent) else None


def _lineage_owner(event: ParsedEvent) -> tuple[str, dict[str, Any]] | None:
    """Who a lineage edge belongs to: the run (marked: it holds once the run completes; and naming
    its job, the definition) or, for a JobEvent's declared datasets, the job."""
    run, job = _run(event), _job(event)
    if run:
        return run, {RUN_KEY: run, DEFINITION: job}
    return (job, {}) if job else None


# --------------------------------------------------------------------------------------------
# fact helpers
# --------------------------------------------------------------------------------------------


def job_vertex(event: ParsedEvent) -> Iterator[Out]:
    """The job with its name, namespace and job facets."""
    job = _job(event)
    if job:
        model = event.model.job
        yield Out(job, props={"name": model.name, "namespace": model.namespace, **_facet_props(model.facets, JOB_FACETS)})


def run_vertex(event: ParsedEvent) -> Iterator[Out]:
    """The run: its status (the eventType; OTHER adds facets only), producer and run facets."""
    run = _run(event)
    if run:
        model = event.model
        state = model.event_type.value
        yield Out(run, props={
            "status": None if state == "OTHER" else state,
            "error_code": state if state in FAILED_STATES else None,
            "run_id": model.run.run_id, "job": _job(event), "producer": model.producer,
            **_facet_props(model.run.facets, RUN_FACETS)})


def job_run(event: ParsedEvent) -> Iterator[Out]:
    run = _run(event)
    if run:
        yield Out(_job(event), run)


def dataset_vertex(event: ParsedEvent) -> Iterator[Out]:
    """Every dataset the event names, with its OpenLineage names and dataset facets."""
    for dataset in _datasets(event):
        vertex = dataset_id(dataset)
        own = vertex == ids.openlineage_dataset(dataset.namespace, dataset.name)
        yield Out(vertex, props={"namespace": dataset.namespace, "dataset": dataset.name,
                                 "name": dataset.name if own else None,
                                 **_facet_props(dataset.facets, DATASET_FACETS)})


def lineage(event: ParsedEvent, which: str) -> Iterator[Out]:
    """READS (``inputs``) / WRITES (``outputs``) of the run (or the JobEvent's job)."""
    owner = _lineage_owner(event)
    if owner is None:
        return
    src, marker = owner
    for dataset in _datasets(event, which):
        facets = dataset.input_facets if which == "inputs" else dataset.output_facets
        yield Out(src, dataset_id(dataset), props={**marker, **_facet_props(facets, IO_FACETS)})


def job_owners(event: ParsedEvent) -> Iterator[Out]:
    """``ownership`` job facet: each owner OWNS the job."""
    job = _job(event)
    if job:
        yield from _owns(event.model.job.facets.get("ownership"), job)


def dataset_owners(event: ParsedEvent) -> Iterator[Out]:
    """``ownership`` dataset facet: each owner OWNS the dataset."""
    for dataset in _datasets(event):
        yield from _owns(dataset.facets.get("ownership"), dataset_id(dataset))


def _owns(facet: Any, target: str) -> Iterator[Out]:
    if isinstance(facet, dict):
        for owner in facet.get("owners") or ():
            if isinstance(owner, dict) and owner.get("name"):
                yield Out(ids.openlineage_user(owner["name"]), target, props={"owner_type": owner.get("type")})


def schema_columns(event: ParsedEvent) -> Iterator[Out]:
    """``schema``: (dataset)-[:HAS_COLUMN]->(Column) per field (nested fields dotted)."""
    for dataset in _datasets(event):
        facet = dataset.facets.get("schema")
        if isinstance(facet, dict):
            vertex = dataset_id(dataset)
            for name, _ in _fields(facet):
                yield Out(vertex, ids.openlineage_column(vertex, name))


def column_vertex(event: ParsedEvent) -> Iterator[Out]:
    """Each schema field as a Column: its name as written, type and description."""
    for dataset in _datasets(event):
        facet = dataset.facets.get("schema")
        if isinstance(facet, dict):
            vertex = dataset_id(dataset)
            for name, field in _fields(facet):
                yield Out(ids.openlineage_column(vertex, name), props={
                    "name": name, "type": field.get("type"), "description": field.get("description")})


def _known_ids(event: ParsedEvent) -> dict[tuple[str, str], str]:
    """(namespace, name) -> vertex of every dataset the event names (its symlinks applied), for
    the input fields of a column-lineage facet, which name datasets by namespace and name only."""
    return {(d.namespace, d.name): dataset_id(d) for d in _datasets(event)}


def _mappings(items: Any, default: list[str] | None = None) -> Iterator[tuple[str, str, str, str | None]]:
    """(namespace, name, qualifier, subtype) of each input field and each of its transformations;
    a field without a transformation type is ``direct`` (DESIGN.md)."""
    for item in items or ():
        if not isinstance(item, dict) or not (item.get("namespace") and item.get("name") and item.get("field")):
            continue
        key = (str(item["namespace"]), str(item["name"]), str(item["field"]))
        transformations = [t for t in item.get("transformations") or () if isinstance(t, dict)]
        if not transformations:
            for subtype in default or [None]:
                yield (*key, "direct", subtype)
        for t in transformations:
            yield (*key, str(t.get("type") or "DIRECT").lower(), t.get("subtype"))


def column_feeds(event: ParsedEvent) -> Iterator[Out]:
    """``columnLineage``: (input Column)-[:FEEDS {via, transformations}]->(output Column),
    qualifier ``direct``/``indirect`` from each transformation's type; the facet's dataset-wide
    inputs (``dataset``) shape every output column the facet or the schema names. ``via`` is the
    job (a definition), never the run: a daily job's column FEEDS name it once."""
    owner, via = _lineage_owner(event), _job(event)
    if owner is None or via is None:
        return
    marker = {k: v for k, v in owner[1].items() if k == RUN_KEY}
    known = _known_ids(event)
    pairs: dict[tuple[str, str, str], set[str]] = {}
    for dataset in _datasets(event):
        facet = dataset.facets.get("columnLineage")
        if not isinstance(facet, dict):
            continue
        target = dataset_id(dataset)
        fields = facet.get("fields") if isinstance(facet.get("fields"), dict) else {}
        outputs = list(fields)
        schema = dataset.facets.get("schema")
        outputs += [name for name, _ in _fields(schema)] if isinstance(schema, dict) else []
        rows = [(out, m) for out, spec in fields.items() if isinstance(spec, dict)
                for m in _mappings(spec.get("inputFields"),
                                   [spec["transformationType"]] if spec.get("transformationType") else None)]
        rows += [(out, m) for m in _mappings(facet.get("dataset")) for out in dict.fromkeys(outputs)]
        for out, (namespace, name, field, qualifier, subtype) in rows:
            source = known.get((namespace, name)) or ids.openlineage_dataset(namespace, name)
            key = (ids.openlineage_column(source, field), ids.openlineage_column(target, out), qualifier)
            pairs.setdefault(key, set()).update([subtype] if subtype else [])
    for (src, dst, qualifier), subtypes in pairs.items():
        yield Out(src, dst, qualifier=qualifier,
                  props={**marker, "via": [via], "transformations": sorted(subtypes)})


def parent_run(event: ParsedEvent) -> Iterator[Out]:
    """``parent``: the parent run CONTAINS this run (a task run inside its DAG run)."""
    run = _run(event)
    facet = event.model.run.facets.get("parent") if run else None
    if isinstance(facet, dict):
        parent, _ = _parent(facet)
        if parent and parent != run:
            yield Out(parent, run)


def parent_job_run(event: ParsedEvent) -> Iterator[Out]:
    """``parent``: the parent job HAS_INSTANCE the parent run."""
    facet = event.model.run.facets.get("parent") if _run(event) else None
    if isinstance(facet, dict):
        run, job = _parent(facet)
        if run and job:
            yield Out(job, run)


def parent_job(event: ParsedEvent) -> Iterator[Out]:
    """``parent``: the parent job CONTAINS this job (an Airflow DAG its task, dbt its model)."""
    job = _job(event)
    facet = event.model.run.facets.get("parent") if _run(event) else None
    if isinstance(facet, dict):
        _, parent = _parent(facet)
        if parent and parent != job:
            yield Out(parent, job)


def lifecycle_change(event: ParsedEvent) -> Iterator[Out]:
    """``lifecycleStateChange`` CREATE/DROP/ALTER/RENAME of a COMPLETE run or a DatasetEvent."""
    if event.kind not in ("COMPLETE", "DatasetEvent"):
        return
    for dataset in _datasets(event):
        facet = dataset.facets.get("lifecycleStateChange")
        state = str(_get(facet, "lifecycleStateChange") or "").upper()
        if state in LIFECYCLE_CHANGES:
            yield Out(dataset_id(dataset), props={"lifecycle_state_change": state, "job": _job(event),
                                                  "run": _run(event)})


def _only(label: str, fn: Callable[[ParsedEvent], Iterable[Out]]) -> Callable[[ParsedEvent], Iterator[Out]]:
    """``fn``'s facts whose dataset end is a ``label`` (a row's labels are fixed)."""

    def only(event: ParsedEvent) -> Iterator[Out]:
        for out in fn(event):
            if ids.label_of(out.dst if out.dst is not None and ids.label_of(out.dst) in DATASET_LABELS else out.src) == label:
                yield out

    only.__doc__ = fn.__doc__
    return only


# --------------------------------------------------------------------------------------------
# the table
# --------------------------------------------------------------------------------------------

_DATASET_NOTE = ("(namespace, name) -> table:maxcompute:<project>.<table> (maxcompute://, odps://, or a symlink to one), "
                 "location:<scheme>://<authority>/<name> (oss, s3, s3a, gs, hdfs, abfss, file, dbfs), "
                 "else table:<scheme>:<name>")
_JOB_EXTRA = ("name", "namespace", "sql", "sql_dialect", "job_type", "processing_type", "integration", "description",
              "source_code_url", "source_code_path", "owners", "facet.<name>")
_RUN_EXTRA = ("status", "error_code", "run_id", "job", "producer", "parent_run", "parent_job", "nominal_start_time",
              "nominal_end_time", "engine", "engine_version", "openlineage_adapter_version", "error_message",
              "error_language", "error_stack_trace", "facet.<name>")
_DATASET_EXTRA = ("namespace", "dataset", "name", "columns", "symlinks", "data_source", "data_source_uri",
                  "description", "owners", "lifecycle_state_change", "storage_layer", "file_format", "dataset_type",
                  "dataset_subtype", "facet.<name>")
_IO_EXTRA = (RUN_KEY, DEFINITION, "row_count", "bytes", "file_count", "facet.<name>")
_JOB_IO_EXTRA = ("row_count", "bytes", "file_count", "facet.<name>")


def _per_label(**kwargs: Any) -> tuple[Emit, ...]:
    """One row per dataset label, the dataset end being ``src`` or ``dst`` as the row says."""
    fn, at = kwargs.pop("fn"), kwargs.pop("at")
    return tuple(Emit(**{**kwargs, at: label}, fn=_only(label, fn)) for label in DATASET_LABELS)


DATASETS: tuple[Emit, ...] = (
    *_per_label(op="observe", at="src", fn=dataset_vertex, note=_DATASET_NOTE, extra=_DATASET_EXTRA),
    *_per_label(op="assert", at="dst", src="User", rel="OWNS", fn=dataset_owners,
                note="ownership dataset facet: owners[].name -> user:openlineage:<name> (a user: prefix dropped)",
                extra=("owner_type",)),
    *_per_label(op="assert", at="src", rel="HAS_COLUMN", dst="Column", fn=schema_columns,
                note="schema facet: each field (nested ones dotted) -> column:<platform>:<key>.<field>"),
    Emit(op="observe", src="Column", fn=column_vertex, note="schema facet fields", extra=("name", "type", "description")),
    *_per_label(op="change", at="src", rel="create", fn=lambda e: (o for o in lifecycle_change(e) if o.props["lifecycle_state_change"] == "CREATE"),
                note="lifecycleStateChange CREATE (COMPLETE runs, DatasetEvents)", extra=("lifecycle_state_change", "job", "run")),
    *_per_label(op="change", at="src", rel="drop", fn=lambda e: (o for o in lifecycle_change(e) if o.props["lifecycle_state_change"] == "DROP"),
                note="lifecycleStateChange DROP (COMPLETE runs, DatasetEvents)", extra=("lifecycle_state_change", "job", "run")),
    *_per_label(op="change", at="src", rel="schema_change",
                fn=lambda e: (o for o in lifecycle_change(e) if o.props["lifecycle_state_change"] in ("ALTER", "RENAME")),
                note="lifecycleStateChange ALTER/RENAME (COMPLETE runs, DatasetEvents)",
                extra=("lifecycle_state_change", "job", "run")),
)
"""What any event says about the datasets it names."""

JOB: tuple[Emit, ...] = (
    Emit(op="assert", src="Job", fn=job_vertex, note="job:openlineage:<job.namespace>/<job.name>", extra=_JOB_EXTRA),
    Emit(op="assert", src="User", rel="OWNS", dst="Job", fn=job_owners,
         note="ownership job facet: owners[].name -> user:openlineage:<name>", extra=("owner_type",)),
)

RUN: tuple[Emit, ...] = (
    *JOB,
    Emit(op="assert", src="Instance", fn=run_vertex,
         note="instance:openlineage:<run.runId>; status = eventType (FAIL/ABORT: failed, error_code)", extra=_RUN_EXTRA),
    Emit(op="assert", src="Job", rel="HAS_INSTANCE", dst="Instance", fn=job_run, note="job -> run"),
    *_per_label(op="assert", at="dst", src="Instance", rel="READS", fn=partial(lineage, which="inputs"),
                note="inputs; properties.run = the run: holds once the run COMPLETEs (any event of the run may name them); "
                     "definition = the job (FEEDS via)",
                extra=_IO_EXTRA),
    *_per_label(op="assert", at="dst", src="Instance", rel="WRITES", fn=partial(lineage, which="outputs"),
                note="outputs; held once the run COMPLETEs, as READS", extra=_IO_EXTRA),
    Emit(op="assert", src="Column", rel="FEEDS", dst="Column", fn=column_feeds,
         note="columnLineage facet of an output: inputFields -> the output field, qualifier direct/indirect "
              "(transformation type; none: direct), dataset-wide inputs to every output field; via = the job; "
              "held once the run COMPLETEs",
         extra=(RUN_KEY, "via", "transformations")),
    Emit(op="assert", src="Instance", rel="CONTAINS", dst="Instance", fn=parent_run,
         note="parent run facet: parent run -> this run"),
    Emit(op="assert", src="Job", rel="HAS_INSTANCE", dst="Instance", fn=parent_job_run,
         note="parent run facet: parent job -> parent run"),
    Emit(op="assert", src="Job", rel="CONTAINS", dst="Job", fn=parent_job,
         note="parent run facet: parent job -> this job"),
    *DATASETS,
)
"""Every RunEvent, whatever its eventType (FAIL and ABORT: kept as failed, the status only)."""

MAPPING: dict[str, tuple[Emit, ...]] = {
    "START": RUN,
    "RUNNING": RUN,
    "COMPLETE": RUN,
    "FAIL": RUN,
    "ABORT": RUN,
    "OTHER": RUN,
    "JobEvent": (
        *JOB,
        *_per_label(op="assert", at="dst", src="Job", rel="READS", fn=partial(lineage, which="inputs"),
                    note="the job's declared inputs", extra=_JOB_IO_EXTRA),
        *_per_label(op="assert", at="dst", src="Job", rel="WRITES", fn=partial(lineage, which="outputs"),
                    note="the job's declared outputs", extra=_JOB_IO_EXTRA),
        Emit(op="assert", src="Column", rel="FEEDS", dst="Column", fn=column_feeds,
             note="columnLineage facet of a declared output (via the job)", extra=("via", "transformations")),
        *DATASETS,
    ),
    "DatasetEvent": DATASETS,
}
"""Event kind (a RunEvent's eventType, JobEvent, DatasetEvent) -> facts."""
