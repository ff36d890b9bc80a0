"""Identities the platform itself ties together: one person without an alias file.

An event that names an Aliyun uid with a MaxCompute account name beside it (ActionTrail's
``userIdentity``: ``principalId`` and ``userName``; DataWorks' ``granteeId`` and
``granteeName: RAM$corp:dev``) says that ``user:maxcompute:<account>`` is that uid. Every such
account id is merged into its uid, as an alias file line would merge it. Ids are lower-cased, so
``RAM$corp:dev`` and ``ram$corp:dev`` are one account already. An account the events give to two
uids is left alone (the platform contradicts itself): it stays an id of its own, for the alias
file to decide. The alias file wins over a tie, and a tie that would close a cycle
with the file's lines is dropped.
"""

from __future__ import annotations

from collections import defaultdict

from pyspark.sql import DataFrame
from pyspark.sql import functions as F

from lineage import ids

ACCOUNT = r"(?i)^(ram|aliyun)\$[^*]+$"
"""A name that is a MaxCompute account (``RAM$<account>:<user>``, ``ALIYUN$<email>``), unmasked."""


def tied_pairs(facts: DataFrame) -> list[tuple[str, str]]:
    """(account id, uid id) of every account name a fact gives an Aliyun uid, of the accounts some
    fact names (src, dst or actor: the others merge nothing), sorted: people-sized."""
    prefix = ids.maxcompute_user("")
    named = facts.where(
        ~F.col("failed") & F.col("op").isin("assert", "observe") & F.col("relationship").isNull()
        & (F.col("src_label") == "User") & F.col("src_id").startswith("user:aliyun:")
        & F.trim(F.col("properties")["name"]).rlike(ACCOUNT)
    ).select(F.concat(F.lit(prefix), F.lower(F.trim(F.col("properties")["name"]))).alias("account"),
             F.col("src_id").alias("uid")).distinct()
    accounts = facts.select(F.explode(F.array("src_id", "dst_id", "actor")).alias("account")).where(
        F.col("account").startswith(prefix)).distinct()
    return sorted((r["account"], r["uid"]) for r in named.join(accounts, "account").collect())


def ties(pairs: list[tuple[str, str]]) -> dict[str, str]:
    """account id -> uid id, for the accounts given to exactly one uid."""
    uids: dict[str, set[str]] = defaultdict(set)
    for account, uid in pairs:
        uids[account].add(uid)
    return {account: next(iter(found)) for account, found in sorted(uids.items()) if len(found) == 1}


def combined(file_mapping: dict[str, str], tied: dict[str, str]) -> dict[str, str]:
    """The alias table the fold applies: the file's (resolved) lines, then every tie the file does
    not already decide, every id resolved to its end (a tie to a uid the file merges elsewhere
    ends there; a file line ending at a tied account ends at its uid); a tie whose end comes back
    to its account is dropped. A tie points at an end (no alias of its own): no cycle can form."""
    out = dict(file_mapping)
    for account, uid in tied.items():
        if account in out:
            continue
        end = _end(uid, out)
        if end != account:
            out[account] = end
    return {alias: _end(canonical, out) for alias, canonical in out.items()}


def _end(vertex: str, mapping: dict[str, str]) -> str:
    while vertex in mapping:
        vertex = mapping[vertex]
    return vertex
