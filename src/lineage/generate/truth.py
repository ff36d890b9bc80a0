"""The generator's ground truth, written to ``OUT/truth/`` as CSV and JSON that tests read.

| file | one row per |
|---|---|
| ``tables.csv`` | table: id, layer, project, name, owner, pii, readers (nodes reading it), node, dropped_at, deprecated_at, planted (its ``model.PLANTED`` kind, or empty) |
| ``nodes.csv`` | DataWorks node: id, name, kind, lineage (sql, audit or none), reads, writes, owner, flow, baseline, deleted_at |
| ``jobs.csv`` | MaxCompute job: id, node, instance, day, status (finished, failed), ended, error_code, error_message, lineage, reads, writes |
| ``instances.csv`` | DataWorks instance: id, node, day, status (success, failure), ended, runs, rerun |
| ``access.csv`` | grant-churn event: time, kind, source, principal, table, ok, expires |
| ``changes.csv`` | change event: time, kind, entity |
| ``feeds.csv`` | expected FEEDS edge: src, dst (from every finished job whose lineage is sql or audit, and every COMPLETE Spark run) |
| ``columns.csv`` | column: table_id, column_id, type (as the DDL last states it: a CHANGE COLUMN retypes), valid_from, valid_to (empty: still there): every table's columns from the job behind its CreateTable, those a ChangeTable adds, a staging table's and the ``etl_batch`` epilogue's from the first finished run; closed by a DataHub field removal, DropTable or a planted break's ``DROP COLUMNS`` / ``CHANGE COLUMN old new`` (the new name opens) |
| ``column_feeds.csv`` | expected column FEEDS: src, dst, qualifier (direct, indirect), nodes (the DataWorks nodes whose finished SQL runs give the pair), first_seen (the first such run's end), from the templates (``generate.projection``); none from variable-named or non-SQL jobs |
| ``failures.csv`` | failing streak of a DataWorks node (``--planted-failures`` above 0 only): node_id, first_failed_instance, first_failed_at (its first failure report), last_success_instance, last_success_at (the ``ended`` of the node's last successful instance before it; empty if none), cause (``planted``: its SQL reads a column a planted break dropped or renamed, and it fails from its first run after the change to the end or its deletion; ``random``: ``plan.FAILURE_RATE``), and for a planted one change_time, change_kind (``field_removal``, as the graph records it), table_id, column_id (the column before the change), change_event_id (the ``eventId`` of the DDL job's ``JobChange`` in the ActionTrail files) |
| ``openlineage.csv`` | Spark run reported as OpenLineage events (``--openlineage-share``): run_id, job_id, day, status (complete, fail), ended, reads, writes |
| ``effects.json`` | planted access change (``effects``): its ``change`` (entity_id, time, kind, action), ``effect`` (restricts, exposes), ``sensitive``, the principals ``gained``/``lost``, the nodes that ``may_fail`` (read the table within ``lookback_days`` before a revoke of their owner) |
| ``hygiene.json`` | what ``lineage hygiene`` must find as of ``as_of`` (the day after the last) with a window of at least ``days``: the ``planted`` pipelines (``model.PLANTED``: unused tables, cycles, islands), every ``unused`` table (written by a finished job, or a non-SQL job's ChangeTableData, and never read by a finished job, a non-SQL job's ReadTableData or a download; not dropped), every ``cycle`` (the planted ones and each table a finished job reads and writes: a self-loop) |
| ``people.csv`` | person: id (canonical), kind (``person``: merged over the alias file; ``guest``: a partner UID that only approvals name), names (the names their events may give them, ``;``-separated: a person's login, then their MaxCompute account, which AddUser gives everyone; a guest's granteeName) |
| ``summary.json`` | parameters, counts per source (records, duplicates, malformed) and kind, ids worth looking at |

A streak is a run of a node's consecutive instances whose status is ``failure`` (a failed run rerun
with success the same day is no streak); it ends at the node's next successful instance.
``ended`` is the time of the last status report (UTC, whole seconds, as the events carry it);
``error_code``/``error_message`` are a failed job's (empty when it finished).
Lists inside a cell are ``;``-separated canonical ids. Rows are streamed as days are generated
(``failures.csv``'s are kept, one per streak, and written at the end, by first failure).
"""

from __future__ import annotations

import csv
import json
from datetime import datetime, timedelta
from pathlib import Path
from typing import Any

from lineage import ids
from lineage.generate import dataworks, effects, schema, sqltext
from lineage.generate.model import Intent, Platform
from lineage.generate.plan import Day

ACCESS_KINDS = {
    "GrantACL": "maxcompute", "RevokeACL": "maxcompute", "GrantRole": "maxcompute", "RevokeRole": "maxcompute",
    "GrantLabel": "maxcompute", "approval-change-finished": "dataworks", "ApplyPrivilege": "dataphin",
    "ApprovePrivilege": "dataphin", "GrantPermission": "dataphin", "RevokePermission": "dataphin",
    "ReturnPermission": "dataphin",
}
CHANGE_KINDS = ("ChangeTable", "DropTable", "node-change-updated", "node-change-deleted", "dh_schema",
                "dh_deprecation", "dh_lifecycle", "dh_owner")
HEADERS = {
    "jobs": ("job_id", "node_id", "instance_id", "day", "status", "ended", "error_code", "error_message", "lineage",
             "reads", "writes"),
    "instances": ("instance_id", "node_id", "day", "status", "ended", "runs", "rerun"),
    "access": ("time", "kind", "source", "principal", "table_id", "ok", "expires"),
    "changes": ("time", "kind", "entity_id"),
}
FAILURES_HEADER = ("node_id", "first_failed_instance", "first_failed_at", "last_success_instance", "last_success_at",
                   "cause", "change_time", "change_kind", "table_id", "column_id", "change_event_id")
"""``failures.csv``: one row per failing streak of a node (``--planted-failures``)."""
SPARK_HEADER = ("run_id", "job_id", "day", "status", "ended", "reads", "writes")
"""``openlineage.csv``: one row per Spark run reported through OpenLineage (``generate.openlineage``)."""


def _join(values: Any) -> str:
    return ";".join(values)


def _iso(moment: datetime) -> str:
    return moment.strftime("%Y-%m-%dT%H:%M:%SZ")


def job_id(instance: str) -> str:
    return ids.make("Job", "maxcompute", ids.norm(instance))


class Truth:
    """Open CSV writers for the streamed truth; ``close`` writes the files known only at the end."""

    def __init__(self, out: Path, platform: Platform):
        self.dir = out / "truth"
        self.dir.mkdir(parents=True, exist_ok=True)
        self.platform = platform
        self.handles = {name: open(self.dir / f"{name}.csv", "w", newline="") for name in HEADERS}
        self.writers = {name: csv.writer(h) for name, h in self.handles.items()}
        for name, header in HEADERS.items():
            self.writers[name].writerow(header)
        self.feeds: set[tuple[str, str]] = set()
        self.dropped: dict[int, str] = {}
        self.deprecated: dict[int, str] = {}
        self.deleted: dict[int, str] = {}
        self.stats: dict[str, int] = {"jobs": 0, "failed_jobs": 0, "finished_jobs": 0, "instances": 0,
                                      "failed_instances": 0, "reruns": 0, "grants": 0, "revokes": 0,
                                      "failed_grants": 0, "changes": 0}
        self.busy: dict[int, int] = {}
        self.written: set[str] = set()  # datasets a run wrote, as the events show it (hygiene.json)
        self.read: set[str] = set()  # datasets a run or a download read
        self.read_at: dict[tuple[int, str], datetime] = {}  # (node, dataset) -> its last finished SQL read
        self.effects: list[dict[str, Any]] = []  # effects.json: the planted access changes
        self.spark_rows: Any = None  # openlineage.csv's writer, opened by the first Spark run
        self.columns: dict[str, dict[str, list[str]]] = {}  # table -> column -> [type, valid_from, valid_to]
        self.column_feeds: dict[tuple[str, str, str], set[str]] = {}  # (src, dst, qualifier) -> node ids
        self.column_since: dict[tuple[str, str, str], str] = {}  # the pair's first finished run
        self.scripts_ran: set[int] = set()  # sqltext.Script objects (cached per node and inputs) recorded
        self.last_ok: dict[str, tuple[str, str]] = {}  # node id -> its last successful instance and its end
        self.streaks: dict[str, dict[str, Any]] = {}  # node id -> its open failing streak
        self.failures: list[dict[str, Any]] = []  # failures.csv: closed streaks
        self.break_events: dict[str, str] = {}  # planted break (its index) -> its DDL JobChange's eventId

    def day(self, day: Day) -> None:
        platform = self.platform
        for node_day in day.runs:
            node = platform.nodes[node_day.node]
            reads, writes = sqltext.truth(platform, node)
            lineage = sqltext.LINEAGE_FROM[node.kind]
            for run in node_day.runs:
                error_code, error_message = run.error or ("", "")
                self.writers["jobs"].writerow((job_id(run.job), node.id, ids.dataworks("Instance", node_day.task_id),
                                               f"{day.date:%Y-%m-%d}", "finished" if run.ok else "failed",
                                               _iso(run.end), error_code, error_message, lineage,
                                               _join(reads), _join(writes)))
                self.stats["jobs"] += 1
                self.stats["finished_jobs" if run.ok else "failed_jobs"] += 1
                if run.ok and lineage != "none":
                    self.feeds.update((a, b) for a in reads for b in writes)  # a == b: a self-loop (DESIGN.md)
                    self.written.update(writes)
                if lineage == "sql" and run.ok or lineage == "audit":  # ReadTableData comes before the outcome
                    self.read.update(reads)
                if lineage == "sql" and run.ok:
                    self.read_at.update(((node_day.node, r), run.end.replace(microsecond=0)) for r in reads)
                    self.script_ran(node, _iso(run.end))
            self.writers["instances"].writerow((ids.dataworks("Instance", node_day.task_id), node.id,
                                                f"{day.date:%Y-%m-%d}", "success" if node_day.ok else "failure",
                                                _iso(dataworks.framing(self.platform, node_day.runs[-1])[1]), len(node_day.runs),
                                                int(node_day.rerun_at is not None)))
            self.stats["instances"] += 1
            self.stats["failed_instances"] += int(not node_day.ok)
            self.stats["reruns"] += int(node_day.rerun_at is not None)
            if platform.planted_failures:
                self.streak(node.id, node_day)
        for intent in day.intents:
            self.intent(intent)

    def streak(self, node: str, node_day: Any) -> None:
        """A node's instance in its failing streaks (``failures.csv``)."""
        instance = ids.dataworks("Instance", node_day.task_id)
        if node_day.ok:
            if node in self.streaks:
                self.failures.append(self.streaks.pop(node))
            self.last_ok[node] = (instance, _iso(node_day.runs[-1].end))
        elif node not in self.streaks:
            last, last_at = self.last_ok.get(node, ("", ""))
            self.streaks[node] = {"node_id": node, "first_failed_instance": instance,
                                  "first_failed_at": _iso(node_day.runs[0].end), "last_success_instance": last,
                                  "last_success_at": last_at, "cause": node_day.cause}

    def rendered(self, intent: Intent, doc: dict[str, Any]) -> None:
        """An intent's event as written: a planted break's DDL ``JobChange`` is its change's event."""
        if intent.kind == "ddl-end" and "planted_failure" in intent.args:
            self.break_events[intent.args["planted_failure"]] = doc["eventId"]

    def failure_rows(self) -> list[tuple[str, ...]]:
        rows = []
        for streak in sorted([*self.failures, *self.streaks.values()],
                             key=lambda s: (s["first_failed_at"], s["node_id"])):
            cause = streak["cause"]
            change: tuple[str, ...] = ("random", "", "", "", "", "")
            if cause is not None:
                table = self.platform.table(cause.table).id
                change = ("planted", _iso(cause.time), "field_removal", table, schema.column_id(table, cause.column),
                          self.break_events.get(str(cause.index), ""))
            rows.append((*(streak[k] for k in FAILURES_HEADER[:5]), *change))
        return rows

    def script_ran(self, node: Any, when: str) -> None:
        """A finished SQL run: its column pairs, and the columns its script creates (from the template)."""
        script = sqltext.script(self.platform, node)
        if script is None or id(script) in self.scripts_ran:  # its pairs and columns are already in
            return
        self.scripts_ran.add(id(script))
        for pair in script.pairs:
            self.column_feeds.setdefault(pair, set()).add(node.id)
            self.column_since.setdefault(pair, when)
        for table, name, kind in script.made:
            self.open_column(table, name, kind, when)

    def open_column(self, table: str, name: str, kind: str, when: str) -> None:
        columns, column = self.columns.setdefault(table, {}), schema.column_id(table, name)
        if column not in columns or columns[column][2]:
            columns[column] = [kind, when, ""]

    def close_columns(self, table: str, when: str, name: str | None = None) -> None:
        for column, row in self.columns.get(table, {}).items():
            if not row[2] and (name is None or column == schema.column_id(table, name)):
                row[2] = when

    def ddl(self, intent: Intent) -> None:
        """The job behind a CreateTable / ChangeTable: a finished SQL job; CREATE TABLE writes the table."""
        table, when = self.platform.table(intent.args["table"]), _iso(intent.time)
        created = intent.args["sql"].startswith("CREATE")
        writes = table.id if created else ""
        self.writers["jobs"].writerow((job_id(intent.args["job"]), "", "", f"{intent.time:%Y-%m-%d}", "finished",
                                       when, "", "", "sql", "", writes))
        self.stats["jobs"] += 1
        self.stats["finished_jobs"] += 1
        if created:
            self.written.add(table.id)
            for name, kind in schema.columns(table) + (schema.PARTITION,):
                self.open_column(table.id, name, kind, when)
        elif "DROP COLUMNS" in intent.args["sql"]:  # a planted break (plan.planted_breaks)
            self.close_columns(table.id, when, intent.args["column"])
        elif intent.args.get("new"):  # CHANGE COLUMN old new <type>: the old column closes, the new one opens
            self.close_columns(table.id, when, intent.args["column"])
            self.open_column(table.id, intent.args["new"], intent.args["type"], when)
        elif "CHANGE COLUMN" in intent.args["sql"]:  # the column keeps its id and takes the new type
            self.columns[table.id][schema.column_id(table.id, intent.args["column"])][0] = intent.args["type"]
        else:  # ALTER TABLE ... ADD COLUMNS
            self.open_column(table.id, intent.args["column"], intent.args["type"], when)

    def intent(self, intent: Intent) -> None:
        platform, args, when = self.platform, intent.args, _iso(intent.time)
        if intent.kind == "ddl-end":
            self.ddl(intent)
        if intent.kind == "dh_schema" and args["op"] == "REMOVE":
            self.close_columns(platform.table(args["table"]).id, when, args["field"])
        if intent.kind in ACCESS_KINDS:
            person = platform.guests[args["guest"]] if "guest" in args else platform.people[args["person"]]
            table = platform.table(args["table"]).id if "table" in args else ids.role(*platform.roles[args["role"]][:2])
            expires = ""
            if args.get("days"):
                expires = (intent.time + timedelta(days=args["days"])).strftime("%Y-%m-%dT%H:%M:%SZ")
            ok = args.get("ok", True)
            self.writers["access"].writerow((when, intent.kind, ACCESS_KINDS[intent.kind], person.user_id, table,
                                             int(ok), expires))
            revoke = intent.kind.startswith(("Revoke", "Return"))
            self.stats["revokes" if revoke else "grants"] += int(ok)
            self.stats["failed_grants"] += int(not ok)
        if "effect" in args:
            self.effect(intent)
        if intent.kind in ("DownloadTable", "download-resources-execute"):
            self.read.add(platform.table(args["table"]).id)
            self.busy[args["person"]] = self.busy.get(args["person"], 0) + 1
        if intent.kind in CHANGE_KINDS:
            entity = platform.nodes[args["node"]].id if "node" in args else platform.table(args["table"]).id
            self.writers["changes"].writerow((when, intent.kind, entity))
            self.stats["changes"] += 1
            if intent.kind == "DropTable":
                self.dropped[args["table"]] = when
                self.close_columns(platform.table(args["table"]).id, when)
            elif intent.kind == "dh_deprecation":
                self.deprecated[args["table"]] = when
            elif intent.kind == "node-change-deleted":
                self.deleted[args["node"]] = when

    def spark(self, runs: list[Any]) -> None:
        """The day's Spark runs (``generate.openlineage.SparkRun``): a COMPLETE run feeds its
        outputs from its inputs (FEEDS across the MaxCompute boundary); a FAIL run asserts nothing."""
        if runs and self.spark_rows is None:
            self.handles["openlineage"] = open(self.dir / "openlineage.csv", "w", newline="")
            self.spark_rows = csv.writer(self.handles["openlineage"])
            self.spark_rows.writerow(SPARK_HEADER)
        for run in runs:
            reads, writes = run.job.reads, run.job.writes
            self.spark_rows.writerow((ids.openlineage_run(run.run_id), run.job.id, f"{run.begin:%Y-%m-%d}",
                                      "complete" if run.ok else "fail", _iso(run.end), _join(reads), _join(writes)))
            if run.ok:
                self.feeds.update((a, b) for a in reads for b in writes)
                self.written.update(writes)
                self.read.update(reads)

    def effect(self, intent: Intent) -> None:
        """One planted access change (``effects``): its change as the graph records it, and what
        ``blast-radius`` must say of it."""
        platform, args = self.platform, intent.args
        table, person = platform.table(args["table"]), platform.people[args["person"]].user_id
        restricts = args["effect"] == "restricts"
        self.effects.append({
            "change": {"entity_id": table.id, "time": _iso(intent.time), "kind": "permission_change",
                       "action": intent.kind},
            "effect": args["effect"], "sensitive": bool(args.get("sensitive")),
            "gained": [] if restricts else [person], "lost": [person] if restricts else [],
            "may_fail": effects.may_fail(platform, args["nodes"], table.id, intent.time.replace(microsecond=0),
                                         self.read_at) if restricts else [],
        })

    def close(self, summary: dict[str, Any]) -> dict[str, Any]:
        for handle in self.handles.values():
            handle.close()
        platform = self.platform
        with open(self.dir / "tables.csv", "w", newline="") as handle:
            writer = csv.writer(handle)
            writer.writerow(("table_id", "layer", "project", "name", "owner", "pii", "readers", "node_id",
                             "dropped_at", "deprecated_at", "planted"))
            for t in platform.tables:
                writer.writerow((t.id, t.layer, t.project, t.name, platform.people[t.owner].user_id, int(t.pii),
                                 t.readers, platform.nodes[t.node].id if t.node is not None else "",
                                 self.dropped.get(t.index, ""), self.deprecated.get(t.index, ""), t.planted))
        with open(self.dir / "nodes.csv", "w", newline="") as handle:
            writer = csv.writer(handle)
            writer.writerow(("node_id", "name", "kind", "lineage", "reads", "writes", "owner", "flow", "baseline",
                             "deleted_at"))
            for n, node in enumerate(platform.nodes):
                reads, writes = sqltext.truth(platform, node)
                writer.writerow((node.id, node.name, node.kind, sqltext.LINEAGE_FROM[node.kind], _join(reads),
                                 _join(writes), platform.people[node.owner].user_id, ids.dataworks("Flow", node.flow),
                                 ids.dataworks("Baseline", node.baseline) if node.baseline else "",
                                 self.deleted.get(n, "")))
        with open(self.dir / "feeds.csv", "w", newline="") as handle:
            writer = csv.writer(handle)
            writer.writerow(("src", "dst"))
            writer.writerows(sorted(self.feeds))
        with open(self.dir / "columns.csv", "w", newline="") as handle:
            writer = csv.writer(handle)
            writer.writerow(("table_id", "column_id", "type", "valid_from", "valid_to"))
            writer.writerows((table, column, *row) for table, columns in sorted(self.columns.items())
                             for column, row in sorted(columns.items()))
        with open(self.dir / "column_feeds.csv", "w", newline="") as handle:
            writer = csv.writer(handle)
            writer.writerow(("src", "dst", "qualifier", "nodes", "first_seen"))
            writer.writerows((*pair, _join(sorted(nodes)), self.column_since[pair])
                             for pair, nodes in sorted(self.column_feeds.items()))
        with open(self.dir / "people.csv", "w", newline="") as handle:
            writer = csv.writer(handle)
            writer.writerow(("user_id", "kind", "names"))
            for person in platform.people:  # DataHub corpuser, Dataphin userName, approvals: the login
                writer.writerow((person.user_id, "person", _join((person.login, person.account))))
            for guest in platform.guests:
                writer.writerow((guest.user_id, "guest", guest.grantee_name))
        if platform.planted_failures:
            with open(self.dir / "failures.csv", "w", newline="") as handle:
                writer = csv.writer(handle)
                writer.writerow(FAILURES_HEADER)
                writer.writerows(self.failure_rows())
        (self.dir / "effects.json").write_text(json.dumps({"lookback_days": 7, "changes": self.effects}, indent=1) + "\n")
        (self.dir / "hygiene.json").write_text(json.dumps(self.hygiene(), indent=1) + "\n")
        summary = {**summary, "stats": self.stats}
        (self.dir / "summary.json").write_text(json.dumps(summary, indent=1, sort_keys=True) + "\n")
        return summary


    def hygiene(self) -> dict[str, Any]:
        """What ``lineage hygiene`` must find, from what was generated: no other cycle can exist
        (a node reads only lower layers, its CTAS temp table and, after an UNLOAD, its own target;
        the planted pipelines read only their own group's tables)."""
        platform = self.platform
        dropped = {platform.table(t).id for t in self.dropped}

        def ids_of(groups: list[tuple[int, ...]]) -> list[list[str]]:
            return sorted(sorted(platform.table(t).id for t in group) for group in groups)

        planted_cycles = [[platform.table(t).id for t in group if platform.table(t).layer != "ods"]
                          for group in platform.planted.get("cycle", ())]
        loops = [[a] for a, b in self.feeds if a == b and a not in dropped]
        return {
            "as_of": _iso(platform.day(platform.days)), "window_days": platform.days,
            "planted": {
                "unused": sorted(platform.table(group[-1]).id for group in platform.planted.get("unused", ())),
                "cycles": sorted(sorted(c) for c in planted_cycles),
                "islands": ids_of([g for groups in platform.planted.values() for g in groups]),
            },
            "unused": sorted(t for t in self.written - self.read - dropped if t.startswith("table:")),
            "cycles": sorted(sorted(c) for c in planted_cycles + loops),
        }


def aliases(platform: Platform) -> str:
    """Every person's platform identities joined to their DataWorks UID (the canonical one)."""
    lines = ["# one person, several platforms: the Aliyun UID (DataWorks) is the canonical identity", "alias,canonical"]
    for person in platform.people:
        for alias in (ids.maxcompute_user(person.account), ids.dataphin_user(person.dataphin_id),
                      ids.datahub_user(person.login)):
            lines.append(f"{alias},{person.user_id}")
    return "\n".join(lines) + "\n"
