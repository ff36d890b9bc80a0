"""MaxCompute ActionTrail events -> facts (seed 002): expectations written from the seed samples."""

from __future__ import annotations

import json
import typing
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest

from lineage.events import maxcompute as events
from lineage.facts import maxcompute as mapping
from lineage.facts.core import ERROR, FACT_NAMES
from lineage.facts.extract import facts_of_event
from lineage.io.reader import read_file

DATA = Path(__file__).resolve().parents[1] / "data" / "maxcompute"
T0 = datetime(2020, 1, 9, 12, 12, 14, tzinfo=UTC)  # the seed's Example eventTime
ROOT = "user:maxcompute:root"  # the seed's userIdentity.userName
GRANTEE = "user:maxcompute:aliyun$xxx@aliyun.com"  # UserName / `ALIYUN$xxx@aliyun.com` of the privilege samples


def fixture(kind: str, name: str = "assembled.json") -> dict[str, typing.Any]:
    """One seed fixture record (the reader strips the document's // comments)."""
    [record] = list(read_file(DATA / kind / name))
    assert record.doc is not None, record.error
    return record.doc


def event(kind: str, data: dict[str, typing.Any], **overrides: typing.Any) -> dict[str, typing.Any]:
    """An inline record in the seed's shape (common fields from the Example column)."""
    doc: dict[str, typing.Any] = {
        "eventId": f"inline-{kind}",
        "acsRegion": "cn-hangzhou",
        "eventName": kind,
        "eventTime": "2020-01-09T12:12:14Z",
        "eventType": events.EVENT_TYPES[kind],
        "serviceName": "MaxCompute",
        "userIdentity": {"accountId": "196550154****", "principalId": "10095174****",
                         "type": "root-account", "userName": "root"},
        "additionalEventData": data,
    }
    doc.update(overrides)
    return doc


def facts(doc: dict[str, typing.Any]) -> list[dict[str, typing.Any]]:
    rows = facts_of_event("maxcompute", doc["eventName"], doc.get("eventId", "e"), None, json.dumps(doc))
    return [dict(zip(FACT_NAMES, row)) for row in rows]


def keys(found: list[dict[str, typing.Any]]) -> list[tuple[str, str, str | None, str | None, str]]:
    return [(f["op"], f["src_id"], f["relationship"], f["dst_id"], f["qualifier"]) for f in found]


def edges(found: list[dict[str, typing.Any]]) -> list[tuple[str, str, str | None, str | None, str]]:
    return [k for k in keys(found) if k[0] != "change" and k[2]]


def one(found: list[dict[str, typing.Any]], op: str, src: str, rel: str | None = None,
        dst: str | None = None, qualifier: str = "") -> dict[str, typing.Any]:
    matches = [f for f in found if (f["op"], f["src_id"], f["relationship"], f["dst_id"], f["qualifier"])
               == (op, src, rel, dst, qualifier)]
    assert len(matches) == 1, f"{(op, src, rel, dst, qualifier)} not once in {keys(found)}"
    return matches[0]


# --- every fixture, every kind ----------------------------------------------------------------

ASSEMBLED = sorted(DATA.glob("*/assembled.json")) + [DATA / "common" / "example_event.json"]


def _accepted(paths: list[Path]) -> list[Path]:
    return [p for p in paths
            if json.loads(p.with_name(p.name.replace(".json", ".expect.json")).read_text())["expect"] == "accepted"]


@pytest.mark.parametrize("path", _accepted(ASSEMBLED), ids=lambda p: f"{p.parent.name}/{p.name}")
def test_every_accepted_fixture_maps_without_error(path: Path) -> None:
    [record] = list(read_file(path))
    found = facts(record.doc)
    assert found, "an accepted seed sample yields at least one fact"
    assert all(f["op"] != ERROR for f in found), found
    assert all(f["source"] == "maxcompute" and f["event_time"] == T0 for f in found)


def test_every_seed_kind_has_a_mapping() -> None:
    assert set(mapping.MAPPING) == set(events.KINDS)
    assert all(emit.note for emits in mapping.MAPPING.values() for emit in emits)


# Kinds whose seed sample is not valid JSON (DescribeTable, SetProjectPolicy) are exercised inline.
INLINE_KINDS = {"DescribeTable", "SetProjectPolicy"}


def test_every_kind_is_exercised_by_a_fixture_or_an_inline_record() -> None:
    fixture_kinds = {json.loads(p.with_name("assembled.expect.json").read_text())["kind"]
                     for p in _accepted(sorted(DATA.glob("*/assembled.json")))}
    assert set(mapping.MAPPING) == fixture_kinds | INLINE_KINDS


def test_an_unknown_event_name_yields_no_facts() -> None:
    assert facts(event("InsertJob", {"InstanceId": "1"}, eventName="StopJob")) == []


# --- actor and failure ------------------------------------------------------------------------


def test_actor_is_the_maxcompute_account_else_the_principal_id() -> None:
    [job] = [f for f in facts(fixture("InstanceTunnel"))]
    assert job["actor"] == ROOT
    doc = event("InstanceTunnel", {"InstanceId": "20201027080131990gf23****"},
                userIdentity={"principalId": "10095174****", "type": "ram-user"})
    [job] = facts(doc)
    assert job["actor"] == "user:aliyun:10095174****"
    assert job["properties"]["downloaded_by"] == "user:aliyun:10095174****"
    named = event("AddUser", {"UserName": "RAM$a@b.com:sub", "ProjectName": "p"},
                  userIdentity={"userName": "ALIYUN$Bob@x.com", "principalId": "1"})
    assert {f["actor"] for f in facts(named)} == {"user:maxcompute:aliyun$bob@x.com"}


def test_the_requesters_uid_is_named_by_the_account_beside_it() -> None:
    """ActionTrail ties the uid and the account: the uid is observed with the account as its name
    (what ``graph.identities`` merges by); a masked uid or name ties nothing."""
    doc = event("CreateTable", {"TableName": "t", "ProjectName": "p"},
                userIdentity={"principalId": "1102105053765170", "type": "ram-user", "userName": "RAM$corp:Wei"})
    [tie] = [f for f in facts(doc) if f["src_id"].startswith("user:aliyun:")]
    assert (tie["op"], tie["src_id"], tie["properties"]) == ("observe", "user:aliyun:1102105053765170", {"name": "RAM$corp:Wei"})
    assert tie["actor"] == "user:maxcompute:ram$corp:wei"
    masked = [event("CreateTable", {"TableName": "t", "ProjectName": "p"}, userIdentity=who) for who in (
        {"principalId": "10095174****", "userName": "RAM$corp:wei"}, {"principalId": "11", "userName": "RAM$******"})]
    assert not [f for d in masked for f in facts(d) if f["src_id"].startswith("user:aliyun:")]


def test_the_seed_example_event_failed_so_it_only_observes() -> None:
    # errorCode ODPS-10000 and Status Failed: the job submission changed nothing.
    found = facts(fixture("common", "example_event.json"))
    assert keys(found) == [
        ("observe", "job:maxcompute:2020102713575683gc2j****", None, None, ""),
        ("observe", "job:maxcompute:2020102713575683gc2j****", "IN_PROJECT", "project:maxcompute:test_audit", ""),
    ]
    assert all(f["failed"] for f in found)


def test_a_failed_grant_only_observes() -> None:
    doc = fixture("GrantACL")
    doc["errorCode"] = "ODPS-0130013"
    found = facts(doc)
    assert {(f["op"], f["failed"]) for f in found} == {("observe", True)}
    one(found, "observe", GRANTEE, "CAN_ACCESS", "project:maxcompute:meta", "createtable")


# --- jobs -------------------------------------------------------------------------------------


def test_insert_job_asserts_a_submitted_job_in_its_project() -> None:
    found = facts(fixture("InsertJob"))
    job = "job:maxcompute:2020102713575683gc2j****"
    assert keys(found) == [("assert", job, None, None, ""),
                           ("assert", job, "IN_PROJECT", "project:maxcompute:meta", "")]
    props = found[0]["properties"]
    assert props["status"] == "submitted"
    assert (props["task_name"], props["task_type"], props["project"], props["sql"]) == (
        "console_query_task_1603807075919", "SQL", "meta", "create table a(a string);")


def test_insert_job_with_a_status_keeps_it() -> None:
    # Seed 002's common sample is an InsertJob that carries Status Failed (and an errorCode):
    # the job's status is the event's, not "submitted".
    found = facts(fixture("common", "example_event.json"))
    assert found[0]["failed"] is True and found[0]["properties"]["status"] == "Failed"
    [job, _] = facts(event("InsertJob", {"InstanceId": "i1", "ProjectName": "p", "Status": "Running"}))
    assert job["op"] == "assert" and job["properties"]["status"] == "Running"


def test_insert_job_truncates_long_sql() -> None:
    sql = "select 1 from t where x = '" + "y" * 5000 + "'"
    [job, _] = facts(event("InsertJob", {"InstanceId": "i1", "ProjectName": "p", "OperationText": sql}))
    assert len(job["properties"]["sql"]) == 4000


def test_failed_job_change_gives_no_lineage() -> None:
    # The seed's JobChange sample has Status Failed.
    found = facts(fixture("JobChange"))
    assert keys(found) == [("observe", "job:maxcompute:2020102713575683gc2j****", None, None, "")]
    assert found[0]["failed"] is True and found[0]["properties"]["status"] == "Failed"


def _job_change(status: str, sql: str, **extra: typing.Any) -> dict[str, typing.Any]:
    return event("JobChange", {"Status": status, "ProjectName": "meta", "TaskName": "console_query_task_1",
                               "InstanceId": "20201027135756XYZ", "TaskType": "SQL", "OperationText": sql, **extra})


def test_successful_job_change_reads_and_writes_tables() -> None:
    found = facts(_job_change("Terminated", "INSERT OVERWRITE TABLE dws_orders SELECT * FROM other.ods_orders;"))
    job = "job:maxcompute:20201027135756xyz"
    assert sorted(edges(found)) == [
        ("assert", job, "READS", "table:maxcompute:other.ods_orders", ""),
        ("assert", job, "WRITES", "table:maxcompute:meta.dws_orders", ""),
    ]
    assert one(found, "observe", job)["properties"]["status"] == "Terminated"
    assert "sql_error" not in one(found, "observe", job)["properties"]


def test_job_that_creates_a_table_writes_it() -> None:
    sql = "CREATE TABLE IF NOT EXISTS dim_new (id BIGINT) LIFECYCLE 7; CREATE TABLE dim_copy LIKE other.dim_old;"
    found = facts(_job_change("Terminated", sql))
    job = "job:maxcompute:20201027135756xyz"
    assert sorted(edges(found)) == [
        ("assert", job, "READS", "table:maxcompute:other.dim_old", ""),
        ("assert", job, "WRITES", "table:maxcompute:meta.dim_copy", ""),
        ("assert", job, "WRITES", "table:maxcompute:meta.dim_new", ""),
        # the DDL states dim_new's one column; dim_copy copies a table whose columns are unknown here
        ("assert", "table:maxcompute:meta.dim_new", "HAS_COLUMN", "column:maxcompute:meta.dim_new.id", ""),
    ]


def test_job_reading_and_writing_storage_paths_names_locations() -> None:
    sql = ("LOAD INTO TABLE ods_raw PARTITION (ds='20240101') FROM LOCATION "
           "'oss://oss-cn-hangzhou-internal.aliyuncs.com/landing/raw/ds=20240101/' STORED AS PARQUET;"
           "ALTER TABLE dw.fact EXCHANGE PARTITION (ds='20240101') WITH TABLE ods_raw;"
           "UNLOAD FROM dw.fact PARTITION (ds='20240101') INTO LOCATION 'oss://export/fact/' STORED AS ORC;")
    found = facts(_job_change("Terminated", sql, skynet_id="700001234"))
    job, node = "job:maxcompute:20201027135756xyz", "node:dataworks:700001234"
    assert sorted(e for e in edges(found) if e[1] == job) == [
        ("assert", job, "READS", "location:oss://landing/raw", ""),
        ("assert", job, "READS", "table:maxcompute:dw.fact", ""),
        ("assert", job, "READS", "table:maxcompute:meta.ods_raw", ""),
        ("assert", job, "WRITES", "location:oss://export/fact", ""),
        ("assert", job, "WRITES", "table:maxcompute:dw.fact", ""),
        ("assert", job, "WRITES", "table:maxcompute:meta.ods_raw", ""),
    ]
    assert ("assert", node, "READS", "location:oss://landing/raw", "") in edges(found)
    assert ("assert", node, "WRITES", "location:oss://export/fact", "") in edges(found)
    assert {f["dst_label"] for f in found if f["dst_id"] and f["dst_id"].startswith("location:")} == {"Location"}
    assert "sql_error" not in one(found, "observe", job)["properties"]


@pytest.mark.parametrize("status", ["Success", "succeeded", "TERMINATED"])
def test_success_statuses_are_case_insensitive(status: str) -> None:
    found = facts(_job_change(status, "insert into a select * from b"))
    assert ("assert", "job:maxcompute:20201027135756xyz", "WRITES", "table:maxcompute:meta.a", "") in keys(found)


def test_running_job_change_only_observes_status() -> None:
    found = facts(_job_change("Running", "insert into a select * from b"))
    assert keys(found) == [("observe", "job:maxcompute:20201027135756xyz", None, None, "")]
    assert found[0]["failed"] is False and "sql_error" not in found[0]["properties"]


def test_unparseable_sql_gives_sql_error_and_no_edges() -> None:
    found = facts(_job_change("Success", "insert overwrite table ((( from where"))
    assert keys(found) == [("observe", "job:maxcompute:20201027135756xyz", None, None, "")]
    assert found[0]["properties"]["sql_error"]


def test_dataworks_scheduled_job_links_its_node_to_the_same_tables() -> None:
    doc = _job_change("Terminated", "insert overwrite table a select * from b",
                      skynet_id="700001234", SKYNET_TASKID="98765")
    found = facts(doc)
    assert ("assert", "node:dataworks:700001234", "READS", "table:maxcompute:meta.b", "") in keys(found)
    assert ("assert", "node:dataworks:700001234", "WRITES", "table:maxcompute:meta.a", "") in keys(found)
    job = one(found, "observe", "job:maxcompute:20201027135756xyz")["properties"]
    assert (job["skynet_id"], job["skynet_taskid"]) == ("700001234", "98765")


def test_no_skynet_id_no_node_edges() -> None:
    found = facts(_job_change("Terminated", "insert overwrite table a select * from b"))
    assert not any(f["src_label"] == "Node" for f in found)


def test_instance_tunnel_observes_the_job_with_who_downloaded_it() -> None:
    [job] = facts(fixture("InstanceTunnel"))
    assert (job["op"], job["src_id"], job["relationship"]) == ("observe", "job:maxcompute:20201027080131990gf23****", None)
    assert job["properties"]["downloaded_by"] == ROOT
    assert job["properties"]["session_id"] == "2020102716014017c4ca0b036850f6"


# --- tunnel and table data --------------------------------------------------------------------


def test_download_table_is_the_actor_downloading_project_name_table() -> None:
    # ProjectName (project2) owns the table; CurrentProject (project1) is where the download ran.
    [f] = facts(fixture("DownloadTable"))
    assert (f["op"], f["src_id"], f["relationship"], f["dst_id"]) == (
        "assert", ROOT, "DOWNLOADED", "table:maxcompute:project2.source_xml_instid_flt_2")
    assert f["properties"]["partition"] == "projectname=inst_200233,ds=20201027"
    assert f["properties"]["current_project"] == "project1"


def test_upload_table_uses_table_name_not_referenced_resources() -> None:
    [f] = facts(fixture("UploadTable"))
    assert (f["op"], f["src_id"], f["relationship"], f["dst_id"]) == (
        "assert", ROOT, "UPLOADED", "table:maxcompute:meta2.m_rt_privilege_event")
    assert f["properties"]["partition"] == "ds=20201027,hh=22,mm=00"


def test_read_and_change_table_data_via_instance_are_job_edges() -> None:
    read = facts(fixture("ReadTableData"))
    one(read, "assert", "job:maxcompute:20201027083345196gsjgpv21", "READS", "table:maxcompute:meta_dev.ttt")
    change = facts(fixture("ChangeTableData"))
    one(change, "assert", "job:maxcompute:20201027083345196gsjgpv21", "WRITES", "table:maxcompute:meta_dev.ttt")
    assert not any(f["relationship"] in ("DOWNLOADED", "UPLOADED") for f in read + change)


def test_read_and_change_table_data_via_tunnel_are_user_edges() -> None:
    data = {"TableName": "ttt", "ProjectName": "meta_dev", "CorrelationId": "2020102708334519tunnel", "Source": "TUNNEL"}
    read = facts(event("ReadTableData", {**data, "OperationText": "READ_TABLE"}))
    one(read, "assert", ROOT, "DOWNLOADED", "table:maxcompute:meta_dev.ttt")
    change = facts(event("ChangeTableData", {**data, "OperationText": "INSERT_TABLE"}))
    one(change, "assert", ROOT, "UPLOADED", "table:maxcompute:meta_dev.ttt")
    assert not any(f["src_label"] == "Job" for f in read + change)


# --- tables -----------------------------------------------------------------------------------


def test_create_table() -> None:
    found = facts(fixture("CreateTable"))
    table = "table:maxcompute:meta_dev.ttt"
    assert keys(found) == [("assert", table, None, None, ""),
                           ("assert", table, "IN_PROJECT", "project:maxcompute:meta_dev", ""),
                           ("change", table, "create", None, "")]
    assert found[0]["properties"]["name"] == "ttt"


def test_change_table_adding_a_partition_is_a_write_not_a_change() -> None:
    """The seed's sample (ADD_PARTITION, Source INSTANCE): the job wrote the table; no Change (issue 68)."""
    found = facts(fixture("ChangeTable"))
    assert keys(found) == [("observe", "table:maxcompute:proj1.ttt", None, None, ""),
                           ("assert", "job:maxcompute:20201028161651750g05e0tsa", "WRITES", "table:maxcompute:proj1.ttt", "")]
    assert found[1]["properties"]["operation"] == "ADD_PARTITION"


@pytest.mark.parametrize("name, operation, kind", [
    ("ChangeTable", "ALTER_TABLE_DROP_PARTITION", "partition_drop"),
    ("ChangeTable", "ALTER_TABLE_CHANGE_LIFECYCLE", "lifecycle_change"),
    ("ChangeTable", "ALTER_PARTITION", "partition_change"),
    ("ChangeTable", "ALTER_TABLE_ADD_COLUMNS", "schema_change"),
    ("ChangeTable", "ALTER_TABLE_RENAME", "schema_change"),
    ("ChangeTable", "SOMETHING_NEW", "schema_change"),  # a word not listed: a change, the safe side
    ("ChangeTableData", "TRUNCATE_TABLE", "truncate"),
    ("ChangeTableData", "INSERT_OVERWRITE_PARTITION", None),
    ("ChangeTableData", "SOMETHING_NEW", None),  # a word not listed: a write
])
def test_a_table_operation_is_a_change_of_its_kind_or_a_write(name, operation, kind) -> None:
    event = json.loads(json.dumps(fixture(name)))
    event["additionalEventData"]["OperationText"] = operation
    found = facts(event)
    changes = [(r["relationship"], r["properties"]["operation"]) for r in found if r["op"] == "change"]
    writes = [r for r in found if r["op"] == "assert" and r["relationship"] in ("WRITES", "UPLOADED")]
    assert changes == ([(kind, operation)] if kind else [])
    assert bool(writes) == (kind is None)


def test_drop_table_retracts_table_name_not_referenced_resources() -> None:
    found = facts(fixture("DropTable"))
    assert keys(found) == [("retract", "table:maxcompute:prj1.hot_user_hs_top30", "HAS_COLUMN", None, ""),  # its columns close
                           ("retract", "table:maxcompute:prj1.hot_user_hs_top30", None, None, ""),
                           ("change", "table:maxcompute:prj1.hot_user_hs_top30", "drop", None, "")]


def test_describe_table_observes() -> None:
    # The seed's sample has a trailing comma; this is the record it means.
    found = facts(event("DescribeTable", {"TableName": "ttt", "ProjectName": "prj1"}))
    assert keys(found) == [("observe", "table:maxcompute:prj1.ttt", None, None, "")]


# --- roles, users, projects -------------------------------------------------------------------


def test_create_and_drop_role() -> None:
    role = "role:maxcompute:dev1.test1"  # RoleName test1 of ProjectName dev1 (CurrentProject is meta_dev)
    assert keys(facts(fixture("CreateRole"))) == [
        ("assert", role, None, None, ""), ("assert", role, "IN_PROJECT", "project:maxcompute:dev1", "")]
    assert keys(facts(fixture("DropRole"))) == [
        ("retract", role, None, None, ""), ("retract", role, "IN_PROJECT", "project:maxcompute:dev1", ""),
        ("change", role, "permission_change", None, "")]


def test_add_and_remove_user() -> None:
    user = "user:maxcompute:ram$xxxx@aliyun.com:sub"
    added = facts(fixture("AddUser"))
    one(added, "assert", user, "MEMBER_OF", "project:maxcompute:project1")
    assert one(added, "observe", user)["properties"]["name"] == "ram$xxxx@aliyun.com:sub"
    removed = facts(fixture("RemoveUser"))
    one(removed, "retract", user, "MEMBER_OF", "project:maxcompute:project1")
    one(removed, "change", "project:maxcompute:project1", "permission_change")


def test_projects() -> None:
    assert keys(facts(fixture("CreateProject"))) == [
        ("assert", "project:maxcompute:xxxx", None, None, ""), ("change", "project:maxcompute:xxxx", "create", None, "")]
    [update] = facts(fixture("UpdateProject"))
    assert (update["op"], update["src_id"]) == ("observe", "project:maxcompute:xxx")
    assert json.loads(update["properties"]["properties"])["odps.sql.hive.compatible"] == "false"
    frozen = facts(event("UpdateProject", {"ProjectName": "xxx", "State": "FROZEN"}))
    assert frozen[0]["properties"]["state"] == "FROZEN"
    assert keys(facts(fixture("DeleteProject"))) == [
        ("retract", "project:maxcompute:xxxx", None, None, ""),
        ("change", "project:maxcompute:xxxx", "project_deletion", None, "")]


def test_set_project_policy_is_a_permission_change() -> None:
    # The seed's sample has a stray quote; this is the record it means.
    assert keys(facts(event("SetProjectPolicy", {"CurrentProject": "test_prj"}))) == [
        ("change", "project:maxcompute:test_prj", "permission_change", None, "")]


# --- grants -----------------------------------------------------------------------------------


def test_grant_and_revoke_role() -> None:
    # `grant test_role to  ALIYUN$xxx@aliyun.com`, ProjectName meta.
    role = "role:maxcompute:meta.test_role"
    assert keys(facts(fixture("GrantRole"))) == [
        ("assert", GRANTEE, "HAS_ROLE", role, ""), ("change", role, "permission_change", None, "")]
    assert keys(facts(fixture("RevokeRole"))) == [
        ("retract", GRANTEE, "HAS_ROLE", role, ""), ("change", role, "permission_change", None, "")]


def test_grant_acl_on_project() -> None:
    # `grant createtable on project meta to  ALIYUN$xxx@aliyun.com;`
    found = facts(fixture("GrantACL"))
    grant = one(found, "assert", GRANTEE, "CAN_ACCESS", "project:maxcompute:meta", "createtable")
    assert json.loads(grant["properties"]["privileges"]) == ["createtable"]
    one(found, "change", "project:maxcompute:meta", "permission_change")
    assert len(found) == 2


def test_revoke_acl_on_project() -> None:
    # `revoke createtable on project project1 from ...` (CurrentProject meta, ProjectName project1).
    found = facts(fixture("RevokeACL"))
    assert keys(found) == [
        ("retract", GRANTEE, "CAN_ACCESS", "project:maxcompute:project1", "createtable"),
        ("change", "project:maxcompute:project1", "permission_change", None, "")]


def _acl(kind: str, text: str, object_type: str = "TABLE", object_name: str = "t") -> dict[str, typing.Any]:
    return event(kind, {"ObjectType": object_type, "CurrentProject": "meta", "UserName": "ALIYUN$bob@x.com",
                        "ProjectName": "meta", "OperationText": text, "ObjectName": object_name})


def test_one_fact_per_privilege_so_revoking_one_keeps_the_other() -> None:
    table = "table:maxcompute:meta.t"
    bob = "user:maxcompute:aliyun$bob@x.com"
    granted = facts(_acl("GrantACL", "grant select, update on table t to user ALIYUN$bob@x.com"))
    assert sorted(edges(granted)) == [
        ("assert", bob, "CAN_ACCESS", table, "select"), ("assert", bob, "CAN_ACCESS", table, "update")]
    assert json.loads(one(granted, "assert", bob, "CAN_ACCESS", table, "update")["properties"]["privileges"]) == ["update"]
    revoked = facts(_acl("RevokeACL", "revoke update on table t from user ALIYUN$bob@x.com"))
    assert edges(revoked) == [("retract", bob, "CAN_ACCESS", table, "update")]
    assert revoked[0]["event_time"] == T0
    one(revoked, "change", table, "permission_change")


def test_grant_to_role_makes_the_role_the_grantee() -> None:
    found = facts(_acl("GrantACL", "GRANT Describe, Select ON TABLE other.t2 TO ROLE analysts;", object_name="t2"))
    role = "role:maxcompute:meta.analysts"
    assert sorted(edges(found)) == [
        ("assert", role, "CAN_ACCESS", "table:maxcompute:other.t2", "describe"),
        ("assert", role, "CAN_ACCESS", "table:maxcompute:other.t2", "select")]
    assert not any(f["src_label"] == "User" for f in found)


def test_grant_on_resource_and_function() -> None:
    found = facts(_acl("GrantACL", "grant read on resource udf.jar to user ALIYUN$bob@x.com", "RESOURCE", "udf.jar"))
    one(found, "assert", "user:maxcompute:aliyun$bob@x.com", "CAN_ACCESS", "resource:maxcompute:meta.udf.jar", "read")
    one(found, "change", "resource:maxcompute:meta.udf.jar", "permission_change")
    found = facts(_acl("GrantACL", "grant execute on function my_udf to role r", "FUNCTION", "my_udf"))
    one(found, "assert", "role:maxcompute:meta.r", "CAN_ACCESS", "function:maxcompute:meta.my_udf", "execute")


def test_unparseable_grant_gives_no_access_but_still_a_change() -> None:
    found = facts(_acl("GrantACL", "this is not a grant", "TABLE", "t"))
    assert keys(found) == [("change", "table:maxcompute:meta.t", "permission_change", None, "")]


def test_grant_label_uses_the_statement_table() -> None:
    # `GRANT LABEL 4 ON TABLE t1 TO USER ALIYUN$xxx@aliyun.com;` (the sample's ObjectName says "meta").
    found = facts(fixture("GrantLabel"))
    grant = one(found, "assert", GRANTEE, "CAN_ACCESS", "table:maxcompute:meta.t1", "label")
    assert grant["properties"]["label"] == "4" and grant["valid_until"] is None
    one(found, "change", "table:maxcompute:meta.t1", "permission_change")


def test_revoke_label_closes_the_label_grant() -> None:
    found = facts(fixture("RevokeLabel"))
    one(found, "retract", GRANTEE, "CAN_ACCESS", "table:maxcompute:meta.t1", "label")


def test_grant_label_with_expiry_sets_valid_until() -> None:
    found = facts(event("GrantLabel", {
        "ObjectType": "TABLE", "UserName": "RAM$a@b.com:sub", "ProjectName": "meta",
        "OperationText": "GRANT LABEL 2 ON TABLE t(col1, col2) TO USER RAM$a@b.com:sub WITH EXP 5", "ObjectName": "t"}))
    grant = one(found, "assert", "user:maxcompute:ram$a@b.com:sub", "CAN_ACCESS", "table:maxcompute:meta.t", "label")
    assert grant["valid_until"] == T0 + timedelta(days=5)
    assert grant["properties"]["label"] == "2"
    assert json.loads(grant["properties"]["columns"]) == ["col1", "col2"]


def test_put_role_policy() -> None:
    # Allow odps:Read, odps:List on acs:odps:*:projects/p1; Allow Describe/Select on projects/p1/tables/m_*
    # (a pattern, not a table: no edge). Role test1_role of ProjectName meta_dev.
    found = facts(fixture("PutRolePolicy"))
    role = "role:maxcompute:meta_dev.test1_role"
    assert sorted(k for k in keys(found) if k[2] == "CAN_ACCESS") == [
        ("assert", role, "CAN_ACCESS", "project:maxcompute:p1", "odps:list"),
        ("assert", role, "CAN_ACCESS", "project:maxcompute:p1", "odps:read")]
    change = one(found, "change", role, "permission_change")
    assert json.loads(change["properties"]["allow_actions"]) == ["odps:describe", "odps:list", "odps:read", "odps:select"]
    one(found, "change", "project:maxcompute:p1", "permission_change")


def test_put_role_policy_table_resource_and_deny() -> None:
    policy = {"Version": "1", "Statement": [
        {"Effect": "Allow", "Action": ["odps:Select"], "Resource": ["acs:odps:*:projects/p1/tables/orders"]},
        {"Effect": "Deny", "Action": ["odps:Drop"], "Resource": ["acs:odps:*:projects/p1/tables/orders"]}]}
    found = facts(event("PutRolePolicy", {"RoleName": "r", "ProjectName": "p1", "OperationText": json.dumps(policy)}))
    assert [k for k in keys(found) if k[2] == "CAN_ACCESS"] == [
        ("assert", "role:maxcompute:p1.r", "CAN_ACCESS", "table:maxcompute:p1.orders", "odps:select")]
    assert json.loads(one(found, "change", "role:maxcompute:p1.r", "permission_change")["properties"]["deny_actions"]) \
        == ["odps:drop"]
    one(found, "change", "table:maxcompute:p1.orders", "permission_change")


def test_set_table_label_replaces_the_tables_label() -> None:
    # The seed's sample (`SET LABEL 3 TO TABLE t1test(col1);`) names no project: no table id, only the label.
    assert keys(facts(fixture("SetTableLabel"))) == [("assert", "label:maxcompute:3", None, None, "")]
    found = facts(event("SetTableLabel", {"ObjectType": "TABLE", "OperationText": "SET LABEL 3 TO TABLE t1test(col1);",
                                          "ObjectName": "t1test", "ProjectName": "meta"}))
    table = "table:maxcompute:meta.t1test"
    assert keys(found) == [
        ("retract", table, "HAS_LABEL", None, ""),  # wildcard first: a set replaces
        ("assert", table, "HAS_LABEL", "label:maxcompute:3", ""),
        ("assert", "label:maxcompute:3", None, None, ""),
        ("change", table, "permission_change", None, "")]
    assert json.loads(found[1]["properties"]["columns"]) == ["col1"]


def test_set_user_label() -> None:
    # The seed's sample carries only UserName: no level, so no label edge.
    user = "user:maxcompute:aliyun$xxxx@aliyun.com"
    found = facts(fixture("SetUserLabel"))
    assert keys(found) == [("observe", user, None, None, ""), ("change", user, "permission_change", None, "")]
    found = facts(event("SetUserLabel", {"UserName": "aliyun$xxxx@aliyun.com",
                                         "OperationText": "SET LABEL 2 TO USER ALIYUN$xxxx@aliyun.com;"}))
    assert edges(found) == [
        ("retract", user, "HAS_LABEL", None, ""), ("assert", user, "HAS_LABEL", "label:maxcompute:2", "")]


def test_a_bad_statement_does_not_drop_the_statements_that_parsed() -> None:
    # Judgment call: parsed statements are exact, not guesses; the bad one is named in sql_error.
    found = facts(_job_change("Terminated", "insert overwrite table a select * from b; insert into ((( from where;"))
    job = "job:maxcompute:20201027135756xyz"
    assert sorted(edges(found)) == [("assert", job, "READS", "table:maxcompute:meta.b", ""),
                                    ("assert", job, "WRITES", "table:maxcompute:meta.a", "")]
    assert "statement 2" in one(found, "observe", job)["properties"]["sql_error"]


def test_non_sql_task_is_not_parsed() -> None:
    doc = _job_change("Terminated", "spark-submit --class Main app.jar")
    doc["additionalEventData"]["TaskType"] = "CUPID"
    found = facts(doc)
    assert keys(found) == [("observe", "job:maxcompute:20201027135756xyz", None, None, "")]
    assert "sql_error" not in found[0]["properties"]


# --- robustness: missing optional data -> fewer facts, never an error ----------------------------

MINIMAL_DATA: dict[str, dict[str, typing.Any]] = {
    "InsertJob": {"InstanceId": "1"}, "JobChange": {"InstanceId": "1", "Status": "Success"},
    "DownloadTable": {"TableName": "t", "ProjectName": "p"}, "UploadTable": {"TableName": "t", "ProjectName": "p"},
    "InstanceTunnel": {"InstanceId": "1"},
    "CreateRole": {"RoleName": "r", "ProjectName": "p"}, "DropRole": {"RoleName": "r", "ProjectName": "p"},
    "AddUser": {"UserName": "u", "ProjectName": "p"}, "RemoveUser": {"UserName": "u", "ProjectName": "p"},
    **{k: {"TableName": "t", "ProjectName": "p"} for k in (
        "CreateTable", "ChangeTable", "DropTable", "DescribeTable", "ReadTableData", "ChangeTableData")},
    **{k: {"UserName": "u", "ProjectName": "p"} for k in (
        "GrantRole", "RevokeRole", "GrantACL", "RevokeACL", "GrantLabel", "RevokeLabel")},
    "PutRolePolicy": {"RoleName": "r", "ProjectName": "p"},
    "SetProjectPolicy": {"CurrentProject": "p"},
    "SetTableLabel": {"ObjectName": "t"},
    "SetUserLabel": {"UserName": "u"},
    "CreateProject": {"ProjectName": "p"}, "UpdateProject": {"ProjectName": "p"}, "DeleteProject": {"ProjectName": "p"},
}
MESSY_TEXT = ["", "   ", "grant", "grant on to", "revoke ,,, from", "GRANT LABEL ON TABLE TO USER WITH EXP 999999999",
              "{\"Statement\": \"nope\"}", "{\"Statement\": [{\"Effect\": \"Allow\", \"Action\": [1], \"Resource\": [{}]}]}",
              "acs:odps:*:projects/", "SET LABEL TO", "insert into"]


@pytest.mark.parametrize("kind", sorted(MINIMAL_DATA))
def test_minimal_and_messy_records_never_raise(kind: str) -> None:
    for text in [None, *MESSY_TEXT]:
        data = dict(MINIMAL_DATA[kind])
        if text is not None:
            data["OperationText"] = text
        for identity in ({}, {"userName": ""}, {"principalId": "19***735"}):
            found = facts(event(kind, data, userIdentity=identity))
            assert all(f["op"] != ERROR for f in found), found
