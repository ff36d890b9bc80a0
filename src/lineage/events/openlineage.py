"""OpenLineage events (spec 2-0-2, older versions tolerated): the fifth source.

Spark's OpenLineage listener, Airflow's provider, dbt-ol, Flink and Marquez emit three kinds of
event, each its own envelope: a **RunEvent** (``run`` + ``job``; its kind is the ``eventType``,
one of openlineage-python's ``RunState`` values: START, RUNNING, COMPLETE, FAIL, ABORT, OTHER),
a **JobEvent** (``job`` without ``run``: a job's declared inputs and outputs) and a
**DatasetEvent** (``dataset`` alone). They arrive as JSON Lines (the file transport) or inside
the delivery wrappers ``lineage.events.deliveries`` peels (Kafka, Log Service, EventBridge).

The models follow openlineage-python's own classes (``openlineage.client.event_v2``) field for
field, but validate with pydantic: that package builds events and has no reader, and its
constructors reject what published events hold (the runId ``run_id`` is not a UUID). Facets stay
JSON objects here; ``lineage.facts.openlineage`` says which it maps. Tolerated as published: no
``schemaURL``, ``_producer``/``_schemaURL`` for ``producer``/``schemaURL`` (pre-1.0 clients),
facets without their ``_producer``, event times with nanoseconds, an offset or no zone (UTC),
a missing eventType (``OTHER``: extra metadata about a run). What the spec requires and a
record lacks (``eventTime``, ``producer``, ``run.runId``, ``job.namespace``/``name``, a
dataset's ``namespace``/``name``) is a field error: the record is quarantined naming it. No
event has an id of its own: ingest uses a hash of the validated event, so a redelivered event
is a duplicate.
"""

from __future__ import annotations

import re
from typing import Annotated, Any

from openlineage.client.event_v2 import RunState
from pydantic import AliasChoices, BeforeValidator, Field

from lineage.events.base import EventModel, ParsedEvent, RecordError, Shape, Source, parse_time

NAME = "openlineage"

RUN_KINDS: tuple[str, ...] = tuple(state.value for state in RunState)
"""A RunEvent's kind is its eventType (openlineage-python's ``RunState``)."""
JOB_EVENT, DATASET_EVENT = "JobEvent", "DatasetEvent"

_NANOS = re.compile(r"(\.\d{6})\d+")


def _event_time(value: Any) -> Any:
    """ISO 8601 with up to nine fractional digits (Flink, Marquez): microseconds kept."""
    if isinstance(value, str):
        value = _NANOS.sub(r"\1", value.strip())
    time = parse_time(value)
    if time is None:
        raise ValueError("required: an ISO 8601 time")
    return time


def _object(value: Any) -> Any:
    """Facets may be sent as null: the same as none."""
    return {} if value is None else value


def _list(value: Any) -> Any:
    return [] if value is None else value


def _text(value: Any) -> Any:
    """Names and namespaces are text; a number is written as text, an empty one is missing."""
    if isinstance(value, (int, float)) and not isinstance(value, bool):
        value = str(value)
    if isinstance(value, str) and not value.strip():
        raise ValueError("must not be empty")
    return value


EventTime = Annotated[Any, BeforeValidator(_event_time)]
Facets = Annotated[dict[str, Any], BeforeValidator(_object)]
Name = Annotated[str, BeforeValidator(_text)]


class Dataset(EventModel):
    """``Dataset`` / ``InputDataset`` / ``OutputDataset``: identified by namespace and name."""

    namespace: Name
    name: Name
    facets: Facets = Field(default_factory=dict)
    input_facets: Facets = Field(default_factory=dict, alias="inputFacets")
    output_facets: Facets = Field(default_factory=dict, alias="outputFacets")


Datasets = Annotated[list[Dataset], BeforeValidator(_list)]


class Job(EventModel):
    namespace: Name
    name: Name
    facets: Facets = Field(default_factory=dict)


class Run(EventModel):
    run_id: Name = Field(alias="runId")
    facets: Facets = Field(default_factory=dict)


class _Event(EventModel):
    event_time: EventTime = Field(alias="eventTime")
    producer: Name = Field(validation_alias=AliasChoices("producer", "_producer"), serialization_alias="producer")
    schema_url: str | None = Field(default=None, validation_alias=AliasChoices("schemaURL", "_schemaURL"),
                                   serialization_alias="schemaURL")


class RunEvent(_Event):
    event_type: RunState = Field(default=RunState.OTHER, alias="eventType")
    run: Run
    job: Job
    inputs: Datasets = Field(default_factory=list)
    outputs: Datasets = Field(default_factory=list)


class JobEvent(_Event):
    job: Job
    inputs: Datasets = Field(default_factory=list)
    outputs: Datasets = Field(default_factory=list)


class DatasetEvent(_Event):
    dataset: Dataset


MODELS: dict[str, type[EventModel]] = {**{kind: RunEvent for kind in RUN_KINDS}, JOB_EVENT: JobEvent,
                                       DATASET_EVENT: DatasetEvent}

_PRODUCED = ("producer", "_producer", "schemaURL", "_schemaURL", "eventType", "inputs", "outputs")

SHAPES: tuple[Shape, ...] = (
    Shape(envelope="run-event", present=("run", "job"), any_of=("eventTime", "eventType")),
    Shape(envelope="job-event", present=("job", "eventTime"), absent=("run",), any_of=_PRODUCED),
    Shape(envelope="dataset-event", present=("dataset", "eventTime"), absent=("run", "job"), any_of=_PRODUCED),
)
"""Envelope signatures: ``run``/``job``/``dataset`` beside ``eventTime`` are OpenLineage's alone
(an ActionTrail event has ``eventTime`` but none of them)."""

_MODEL_OF_ENVELOPE = {"run-event": RunEvent, "job-event": JobEvent, "dataset-event": DatasetEvent}


def _event_type(doc: dict[str, Any]) -> dict[str, Any]:
    """An eventType in lower case (``complete``) is the same state."""
    value = doc.get("eventType")
    if isinstance(value, str) and value != value.upper():
        return {**doc, "eventType": value.strip().upper()}
    return doc


def parse(doc: dict[str, Any], envelope: str) -> ParsedEvent:
    """Validate one event with the model of its envelope; the kind is the eventType (run events)."""
    model_type = _MODEL_OF_ENVELOPE.get(envelope)
    if model_type is None:
        raise RecordError(f"unknown OpenLineage envelope {envelope!r}", field="envelope")
    model = model_type.model_validate(_event_type(doc) if model_type is RunEvent else doc)
    kind = model.event_type.value if isinstance(model, RunEvent) else JOB_EVENT if isinstance(model, JobEvent) else DATASET_EVENT
    return ParsedEvent(source=NAME, kind=kind, envelope=envelope, model=model, event_id=None,
                       event_time=model.event_time, actor=None, known=True)


SOURCE = Source(name=NAME, shapes=SHAPES, models=MODELS, parse=parse, mapping="lineage.facts.openlineage")
