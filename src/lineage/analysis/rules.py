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
RULES_BY_RELATIONSHIP: dict[str, ImpactRule] = {rule.relationship: rule for rule in IMPACT_RULES}

UPSTREAM_RULES: tuple[ImpactRule, ...] = (
    ImpactRule("FEEDS", BACKWARD, "the tables a table is derived from"),
    ImpactRule("WRITES", BACKWARD, "the jobs and nodes that write a table"),
    ImpactRule("READS", FORWARD, "the tables those jobs and nodes read"),
)
"""Upstream lineage: where a table's data comes from (the reverse of the data flow)."""
