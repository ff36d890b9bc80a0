"""Which way impact flows along each relationship: one table, read by both engines.

A stored edge reads as a sentence (``(Job)-[:READS]->(Table)``), but impact does not always
follow it: a changed Table impacts the Jobs that READ it (against the arrow) and the Tables
those jobs WRITE (with the arrow). Relationships not listed carry no impact. People are reached (owners, principals with access,
role members) but nothing flows on from them: no rule leaves a User.
"""

from __future__ import annotations

from dataclasses import dataclass

FORWARD = "forward"  # impact flows src -> dst (the stored direction)
BACKWARD = "backward"  # impact flows dst -> src


@dataclass(frozen=True)
class ImpactRule:
    relationship: str
    flows: str  # FORWARD or BACKWARD
    why: str


IMPACT_RULES: tuple[ImpactRule, ...] = (
    ImpactRule("FEEDS", FORWARD, "a changed table changes the tables derived from it"),
    ImpactRule("READS", BACKWARD, "jobs and nodes (and charts) reading a changed table break or change"),
    ImpactRule("WRITES", FORWARD, "what an impacted job or node writes is impacted"),
    ImpactRule("HAS_INSTANCE", FORWARD, "an impacted node's instances run the changed logic"),
    ImpactRule("HAS_INSTANCE", BACKWARD, "a run reading a changed table is its job's: the job runs again"),
    ImpactRule("IN_DAG", FORWARD, "an impacted instance puts its DAG run at risk"),
    ImpactRule("IN_FLOW", FORWARD, "an impacted DAG puts its workflow at risk"),
    ImpactRule("IN_BASELINE", FORWARD, "an impacted node puts its baseline (SLA) at risk"),
    ImpactRule("DEFINES", FORWARD, "a changed file changes the node it defines"),
    ImpactRule("HAS_COLUMN", BACKWARD, "a changed column changes its table"),
    ImpactRule("CHECKS", BACKWARD, "quality rules on an impacted table may start failing"),
    ImpactRule("CONTAINS", BACKWARD, "a dashboard containing an impacted chart is affected"),
    ImpactRule("OWNS", BACKWARD, "owners of an impacted asset must be told"),
    ImpactRule("CAN_ACCESS", BACKWARD, "principals who can read an impacted table notice"),
    ImpactRule("HAS_ROLE", BACKWARD, "members of a role with access to an impacted table notice"),
)
RULES_BY_RELATIONSHIP: dict[str, ImpactRule] = {rule.relationship: rule for rule in reversed(IMPACT_RULES)}
"""Each relationship's first rule (HAS_INSTANCE has two: a node's instances; a run's job)."""

UPSTREAM_RULES: tuple[ImpactRule, ...] = (
    ImpactRule("FEEDS", BACKWARD, "the tables a table is derived from"),
    ImpactRule("WRITES", BACKWARD, "the jobs and nodes that write a table"),
    ImpactRule("READS", FORWARD, "the tables those jobs and nodes read"),
)
"""Upstream lineage: where a table's data comes from (the reverse of the data flow)."""


# ---------------------------------------------------------------------------------------------
# How each kind of change reaches people (issue 29): one table, read by blast radius on both engines.

BREAKS = "breaks"  # downstream along the data flow (IMPACT_RULES), as a broken table or node would
EXPOSES = "exposes"  # principals gain a path to the data; a sensitive tag spreads to derived tables
RESTRICTS = "restricts"  # principals lose access; the jobs they run that read the data may fail
NOTIFIES = "notifies"  # people to tell (owners; for data removed, its recent readers), nothing further
EFFECTS = (BREAKS, EXPOSES, RESTRICTS, NOTIFIES)
WRITE = "write"
"""Not a change: data written (a partition added, an insert, an overwrite, an upload). It updates
when the table was last written (a WRITES/UPLOADED edge) and makes no Change record."""
ACCESS = "access"  # exposes or restricts: decided per change by what it did (opened or closed access)
TAGGING = "tagging"  # exposes when a sensitive tag is added, otherwise notifies


OWNERS = "owners"  # a notice tells the entity's owners (one instant before and as of the change)
READERS = "readers"  # ... and the definitions (nodes, jobs) that read the data within the lookback
LONG_READERS = "long_readers"  # ... and those readers whose reads reach back further than a new lifecycle


@dataclass(frozen=True)
class ChangeEffect:
    kind: str
    effect: str  # one of EFFECTS, or ACCESS / TAGGING (decided per change)
    why: str
    tells: str = OWNERS  # a notice's people: OWNERS, READERS or LONG_READERS


CHANGE_EFFECTS: tuple[ChangeEffect, ...] = (
    ChangeEffect("drop", BREAKS, "readers of a dropped table fail"),
    ChangeEffect("schema_change", BREAKS, "readers may not parse the new schema"),
    ChangeEffect("field_removal", BREAKS, "readers of the removed field fail"),
    ChangeEffect("column_type_change", BREAKS, "readers may not cast the new type"),
    ChangeEffect("node_update", BREAKS, "the node's outputs change"),
    ChangeEffect("node_deploy", BREAKS, "new logic runs in production"),
    ChangeEffect("node_undeploy", BREAKS, "the node's outputs stop"),
    ChangeEffect("node_delete", BREAKS, "the node's outputs stop"),
    ChangeEffect("node_freeze", BREAKS, "the node's outputs stop until unfrozen"),
    ChangeEffect("project_deletion", BREAKS, "everything in the project goes"),
    ChangeEffect("permission_change", ACCESS, "a grant exposes the data to its grantees; a revoke or expiry "
                 "restricts them, and the jobs they run that read it fail"),
    ChangeEffect("tag_change", TAGGING, "a sensitive tag added makes the derived tables sensitive"),
    ChangeEffect("owner_change", NOTIFIES, "the old and the new owner must know"),
    ChangeEffect("deprecation", NOTIFIES, "owners must know; nothing breaks yet"),
    ChangeEffect("undeprecation", NOTIFIES, "owners must know"),
    ChangeEffect("term_change", NOTIFIES, "a catalogue fact: owners must know"),
    ChangeEffect("domain_change", NOTIFIES, "a catalogue fact: owners must know"),
    ChangeEffect("create", NOTIFIES, "nothing reads a new asset yet"),
    ChangeEffect("node_create", NOTIFIES, "a new node is not deployed yet"),
    ChangeEffect("node_unfreeze", NOTIFIES, "the node resumes as it was"),
    ChangeEffect("partition_drop", NOTIFIES, "rows are gone, the schema is not: who read them lately and the "
                 "owners must know; a reader of the dropped partition finds it empty, it does not fail", READERS),
    ChangeEffect("truncate", NOTIFIES, "every row is gone, the schema is not: as a dropped partition", READERS),
    ChangeEffect("partition_change", NOTIFIES, "a partition renamed or altered: its rows move, the schema stays",
                 READERS),
    ChangeEffect("lifecycle_change", NOTIFIES, "older partitions will be reclaimed: the owners, and readers "
                 "reaching further back than the new lifecycle, must know", LONG_READERS),
)
EFFECT_BY_KIND: dict[str, ChangeEffect] = {e.kind: e for e in CHANGE_EFFECTS}
DEFAULT_EFFECT = NOTIFIES  # a kind not listed: tell the owners, walk nothing


@dataclass(frozen=True)
class Operation:
    """A source's word for what it did to a table (MaxCompute's ``OperationText`` of ``ChangeTable``
    and ``ChangeTableData``, seed 002) and what it is: a Change ``kind`` of :data:`CHANGE_EFFECTS`,
    or :data:`WRITE` (no Change: the table was written)."""

    operation: str
    kind: str
    why: str


OPERATIONS: tuple[Operation, ...] = (
    Operation("ADD_PARTITION", WRITE, "a job or a Tunnel upload writing a new partition (logged for every one)"),
    Operation("INSERT_TABLE", WRITE, "rows appended"),
    Operation("INSERT_PARTITION", WRITE, "rows appended to a partition"),
    Operation("INSERT_OVERWRITE_TABLE", WRITE, "the table's rows replaced by a job's: its readers read the new ones"),
    Operation("INSERT_OVERWRITE_PARTITION", WRITE, "a partition's rows replaced"),
    Operation("DATA_INGESTION", WRITE, "a Tunnel upload (the seed's sample)"),
    Operation("TRUNCATE_TABLE", "truncate", "every row removed"),
    Operation("ALTER_TABLE_DROP_PARTITION", "partition_drop", "a partition's rows removed"),
    Operation("ALTER_PARTITION", "partition_change", "a partition renamed or its properties altered"),
    Operation("ALTER_TABLE_CHANGE_LIFECYCLE", "lifecycle_change", "the table's retention changed"),
    Operation("ALTER_TABLE_ADD_COLUMNS", "schema_change", "columns added"),
    Operation("ALTER_TABLE_RENAME", "schema_change", "the table renamed: readers by the old name fail"),
)
"""Kind of each operation word: the one place a data operation is told apart from a change."""
OPERATION_KIND: dict[str, str] = {o.operation: o.kind for o in OPERATIONS}


def operation_kind(operation: str | None, default: str) -> str:
    """The kind (or :data:`WRITE`) of a source's operation word; ``default`` for a word not listed
    (``ChangeTable``: a schema change, the safe side; ``ChangeTableData``: a write)."""
    return OPERATION_KIND.get((operation or "").strip().upper(), default)


ACCESS_RULES: tuple[ImpactRule, ...] = (
    ImpactRule("CAN_ACCESS", BACKWARD, "principals (users, roles) granted the data"),
    ImpactRule("HAS_ROLE", BACKWARD, "members of a role granted the data"),
    ImpactRule("MEMBER_OF", BACKWARD, "members of a project granted as a whole"),
)
"""Who has a path to the data (exposes, restricts): walked backward from the changed entity."""
ACCESS_DEPTH = 2  # the data <- role <- user
OWNER_RULES: tuple[ImpactRule, ...] = (ImpactRule("OWNS", BACKWARD, "the owners of the changed entity"),)
RUNS = ("OWNS",)
"""``(User)-[:OWNS]->(Node|Job)``: a scheduled node runs as its owner, so a principal who loses
access runs, and fails, the nodes and jobs it owns."""
RUNNABLE_LABELS = frozenset({"Node", "Job"})
SENSITIVE_SPREAD: tuple[ImpactRule, ...] = (ImpactRule("FEEDS", FORWARD, "tables derived from a sensitive table"),)
RESTRICT_WORDS = ("revoke", "return", "expire", "remove", "deny", "delete", "cancel", "reject", "drop")
"""Words in a permission change's ``statement``/``action``/``operation`` that mean access was
taken away, used when the graph shows neither an opened nor a closed grant at the change."""
