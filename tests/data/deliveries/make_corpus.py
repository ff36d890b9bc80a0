"""Writes tests/data/deliveries: the delivery-shapes corpus and its manifest (expected counts written by hand).

Run from the repository root: python tests/data/deliveries/make_corpus.py tests/data/deliveries
"""
import base64, copy, gzip, json, sys
from pathlib import Path

OUT = Path(sys.argv[1])

def b64(obj, gz=False):
    raw = json.dumps(obj).encode()
    if gz:
        raw = gzip.compress(raw, mtime=0)
    return base64.b64encode(raw).decode()

def js(obj):
    return json.dumps(obj, ensure_ascii=False)

# --- inner records, field names from the seeds -------------------------------------------
MC_CREATE = {
    "eventId": "918510a4-7b63-47d2-b053-8f9db82c0010", "acsRegion": "cn-hangzhou", "eventName": "CreateTable",
    "eventTime": "2020-01-09T12:12:14Z", "eventType": "TableEvent", "requestId": "6df41e8c-cfd0-4beb-8dd0-13b8490fdf5b",
    "serviceName": "MaxCompute", "sourceIpAddress": "47.100.XX.XX", "userAgent": "JavaSDK Version:0.35.9",
    "userIdentity": {"accountId": "196550154****", "principalId": "10095174****", "type": "root-account", "userName": "root"},
    "referencedResources": {"Table": ["ttt"]},
    "additionalEventData": {"TableName": "ttt", "ProjectName": "meta_dev", "CorrelationId": "20201027083345196gsjgpv21",
                            "Source": "INSTANCE", "OperationText": "CREATE_TABLE"},
}
def mc(event_id, name="CreateTable", **over):
    e = copy.deepcopy(MC_CREATE); e["eventId"] = event_id; e["eventName"] = name; e.update(over); return e
MC_UNKNOWN = mc("mc-unknown-0001", "CreateMaterializedView", eventType="TableEvent")
def ecs(event_id, name="DescribeInstances"):
    return {"eventId": event_id, "acsRegion": "cn-hangzhou", "eventName": name, "eventSource": "ecs.aliyuncs.com",
            "eventTime": "2024-05-06T08:00:00Z", "eventType": "ApiCall", "eventVersion": "1", "requestId": "r-" + event_id,
            "serviceName": "Ecs", "sourceIpAddress": "47.100.XX.XX", "userAgent": "AlibabaCloud (Linux) Java/1.8",
            "userIdentity": {"accountId": "196550154****", "principalId": "10095174****", "type": "root-account",
                             "userName": "root"}, "apiVersion": "2014-05-26"}
def oss(event_id):
    e = ecs(event_id, "PutObject"); e["serviceName"] = "Oss"; e["eventSource"] = "oss.aliyuncs.com"; return e

DW_UPLOAD = {
    "datacontenttype": "application/json;charset=utf-8", "aliyunaccountid": "1493189603770213",
    "aliyunpublishtime": "2023-12-11T02:10:00.194Z",
    "data": {"eventCode": "upload-data-to-table", "uploadSourceType": "LOCAL", "optTableType": "CREATE",
             "targetEngineType": "MAXCOMPUTE", "writeType": "OVERWRITE", "conflictMode": "IGNORE",
             "operatorBaseId": "12312*****", "operatorUid": "1222222*****", "datasourceId": "1111",
             "datasourceName": "odps_first", "tableGuid": "odps.mc_project.test_table", "queryDwProjectId": "22222",
             "queryDwProjectName": "test_project", "fileSize": 123456},
    "aliyunoriginalaccountid": "149318960******", "specversion": "1.0", "aliyuneventbusname": "default",
    "id": "2c3e41e5-3486-40ce-87d4-910f989cf2a7", "source": "acs.dataworks", "time": "2023-12-11T10:10:00.117Z",
    "aliyunregionid": "cn-shanghai", "type": "dataworks:ResourcesUpload:UploadDataToTable",
}
def dw(event_id):
    e = copy.deepcopy(DW_UPLOAD); e["id"] = event_id; return e
DW_FC = {"blockBusiness": True, "eventCategoryType": "resources-upload", "eventType": "upload-data-to-table",
         "extensionBizId": "job_6603643923728775070",
         "messageBody": {"tenantId": "28378****10656", "eventCode": "upload-data-to-table", "operatorUid": "1222222*****",
                         "tableGuid": "odps.mc_project.test_table", "queryDwProjectId": "22222"},
         "messageId": "52d44ee7-b51f-4d4d-afeb-0000000000fc"}
DW_UNKNOWN = {**dw("dw-unknown-0001"), "type": "dataworks:FutureChange:SomethingNew",
              "data": {"eventCode": "something-new", "tenantId": 1, "operator": "19***735"}}

DP = {
    "log_time": "2021-09-06 16:23:16", "date": "2021-09-06", "time": "16:23:16.062",
    "event_id": "0520D29C-1834-5A06-B711-4A5AE132C894****", "event_name": "ChangeFile",
    "event_source": "http://cn-shanghai-dataphin.aliyun.com/api/file/285113803570922****", "event_status": "SUCCESS",
    "event_version": "N/A", "user_identity": "{UserName}:30000****:30000****:22937234192469****",
    "source_ip": "221.6.XX.XX,100.104.XX.XX,100.120.XX.XX", "user_agent": "Mozilla/5.0",
    "trace_id": "ac1606a616391198657692073d****", "span_id": "0", "response_element": "ZGF0YXBoaW4=",
    "resource_id": "t_3200016408177999872_20211213_320001640817799****", "resource_name": "Common SQL",
    "resource_type": "File", "region": "cn-hangzhou", "additional_event_data": "ZGF0YXBoaW4=", "tenant_id": "30399****",
    "user_identity_json": "{\"userName\":\"{UserName}\",\"userId\":\"30000****\",\"tenantId\":\"30000****\",\"accountId\":\"22937234192469****\"}",
}
def dp(event_id, name="ChangeFile"):
    e = dict(DP); e["event_id"] = event_id; e["event_name"] = name; return e

ECE = {"entityUrn": "urn:li:dataset:abc", "entityType": "dataset", "category": "TAG", "operation": "ADD",
       "modifier": "urn:li:tag:PII", "parameters": {"tagUrn": "urn:li:tag:PII"},
       "auditStamp": {"actor": "urn:li:corpuser:jdoe", "time": 1649953100653}}
def ece(urn="urn:li:dataset:abc", etype="dataset", tag="PII", t=1649953100653):
    e = copy.deepcopy(ECE); e["entityUrn"] = urn; e["entityType"] = etype; e["modifier"] = f"urn:li:tag:{tag}"
    e["parameters"] = {"tagUrn": f"urn:li:tag:{tag}"}; e["auditStamp"]["time"] = t; return e
CONTAINER = ece("urn:li:container:b41c14bc5cb3ccfbb0433c8cbdef2992", "container", "Legacy", 1649953100700)
def platform(e, header=True):
    doc = {"name": "entityChangeEvent", "payload": {"contentType": "application/json", "value": js(e)}}
    if header:
        doc = {"header": {"timestampMillis": e["auditStamp"]["time"]}, **doc}
    return doc

# --- wrappers -----------------------------------------------------------------------------
def sls(contents, topic, source="log-service", t=1578572000):
    return {"__topic__": topic, "__source__": source, "__time__": t, "contents": contents}
def kafka(value, topic, offset):
    return {"topic": topic, "partition": 0, "offset": offset, "timestamp": 1700000000000, "key": None, "value": value}
def eventbridge(data, source, typ, event_id):
    return {"specversion": "1.0", "id": event_id, "source": source, "type": typ, "subject": "acs:" + source[4:],
            "time": "2024-05-06T08:00:01Z", "aliyunaccountid": "1493189603770213", "aliyunregionid": "cn-hangzhou",
            "aliyuneventbusname": "default", "datacontenttype": "application/json;charset=utf-8", "data": data}
def mns_topic(message, message_id):
    return {"TopicOwner": "1493189603770213", "Message": message, "Subscriber": "1493189603770213",
            "PublishTime": 1700000000000, "SubscriptionName": "lineage", "MessageMD5": "0" * 32,
            "TopicName": "dataworks-events", "MessageId": message_id}
def mns_queue(body, message_id):
    return {"requestId": "req-" + message_id, "messageId": message_id, "messageBody": body}
def fc_http(body, is_b64):
    return {"version": "v1", "rawPath": "/events", "headers": {"Content-Type": "application/json"},
            "queryParameters": {}, "body": body, "isBase64Encoded": is_b64,
            "requestContext": {"accountId": "1493189603770213", "http": {"method": "POST", "path": "/events"}}}
def fc_destination(payload):
    return {"timestamp": 1700000000000, "requestContext": {"requestId": "req-dest", "functionArn": "acs:fc:cn-hangzhou:1493189603770213:functions/ingest", "condition": "", "approximateInvokeCount": 1},
            "requestPayload": payload, "responseContext": {"statusCode": 200, "functionError": ""}, "responsePayload": "ok"}
def fc_timer(payload):
    return {"triggerTime": "2024-05-06T08:00:00Z", "triggerName": "hourly", "payload": payload}

CASES = []  # (source dir, name, lines, expected {accepted, foreign, quarantined}, note, foreign kinds, deliveries)
def case(src, name, records, accepted=0, foreign=0, quarantined=0, note="", foreign_kinds=(), delivery=None, unknown=()):
    CASES.append(dict(src=src, name=name, records=records, accepted=accepted, foreign=foreign,
                      quarantined=quarantined, note=note, foreign_kinds=list(foreign_kinds), delivery=delivery,
                      unknown=list(unknown)))

# maxcompute ---------------------------------------------------------------------------------
case("maxcompute", "log_service_export", [
    sls({"event": js(mc("mc-sls-0001"))}, "actiontrail_audit_event"),
    sls({"event": js(ecs("ecs-sls-0001"))}, "actiontrail_audit_event"),
    sls({"event": js(MC_UNKNOWN)}, "actiontrail_audit_event"),
    sls({"event": "{\"eventId\": \"broken"}, "actiontrail_audit_event"),
], accepted=2, foreign=1, quarantined=1, foreign_kinds=["maxcompute:service:Ecs"], delivery="log-service:contents",
   unknown=["CreateMaterializedView"],
   note="ActionTrail trail shipped to a Log Service logstore, exported: contents.event is the event as a JSON string")
case("maxcompute", "lookup_events_response", [
    {"RequestId": "4B2C-86A1", "NextToken": "AAAAAV3MpHK1AP0pfERHZN5pu6kU+SQXzm0H9mu/FiSc=", "StartTime": "2020-01-09T00:00:00Z",
     "EndTime": "2020-01-10T00:00:00Z",
     "Events": [mc("mc-api-0001"), ecs("ecs-api-0001"), mc("mc-api-0002", "DropTable"), oss("oss-api-0001"), ecs("ecs-api-0002", "RunInstances")]},
    {"RequestId": "4B2C-86A2", "Events": []},
], accepted=2, foreign=3, foreign_kinds=["maxcompute:service:Ecs", "maxcompute:service:Oss"], delivery="api:Events[0]",
   note="ActionTrail LookupEvents responses saved to a file (paging fields ignored; an empty page holds nothing)")
case("maxcompute", "kafka_base64", [
    kafka(b64(mc("mc-kafka-0001")), "actiontrail", 1),
    kafka(b64(ecs("ecs-kafka-0001"), gz=True), "actiontrail", 2),
    kafka(js(mc("mc-kafka-0002", "DropTable")), "actiontrail", 3),
    kafka("bm90IGpzb24gYXQgYWxs", "actiontrail", 4),
], accepted=2, foreign=1, quarantined=1, foreign_kinds=["maxcompute:service:Ecs"], delivery="kafka:value(base64)",
   note="Kafka records (value base64 of JSON, base64 of gzip JSON, a JSON string; the last is base64 of text)")
case("maxcompute", "eventbridge_actiontrail", [
    eventbridge(mc("mc-eb-0001"), "acs.odps", "odps:ActionTrail:ApiCall", "eb-0001"),
    eventbridge(ecs("ecs-eb-0001"), "acs.ecs", "ecs:ActionTrail:ApiCall", "eb-0002"),
    eventbridge({"instanceId": "i-bp1", "status": "Running", "regionId": "cn-hangzhou"}, "acs.ecs", "ecs:Instance:StateChange", "eb-0003"),
], accepted=1, foreign=2, foreign_kinds=["maxcompute:service:Ecs", "dataworks:source:acs.ecs"], delivery="eventbridge:data",
   note="EventBridge CloudEvents on the default bus: ActionTrail API calls of MaxCompute and ECS, and an ECS state change")
case("maxcompute", "mns_topic", [
    mns_topic(b64(mc("mc-mns-0001")), "mns-0001"),
    mns_topic(js(mc("mc-mns-0002", "DropTable")), "mns-0002"),
], accepted=2, delivery="mns-topic:Message(base64)", note="MNS topic HTTP notifications (JSON format), Message base64 or JSON")
case("maxcompute", "fc_destination", [
    fc_destination(js(mc("mc-fcd-0001"))),
], accepted=1, delivery="fc-destination:requestPayload",
   note="Function Compute async-invocation destination record: the triggering event in requestPayload")
case("maxcompute", "eventbridge_kafka_in_log_service", [
    sls({k: (js(v) if isinstance(v, dict) else v) for k, v in
         eventbridge(kafka(b64(mc("mc-deep-0001")), "actiontrail", 9), "acs:alikafka", "alikafka:Topic:Message", "eb-k-01").items()},
        "eventbridge_archive"),
], accepted=1, delivery="log-service:contents/eventbridge:data/kafka:value(base64)",
   note="three wrappers deep: a Log Service export of an EventBridge Kafka-source event whose value is base64 ActionTrail")

# dataworks ----------------------------------------------------------------------------------
case("dataworks", "log_service_export", [
    sls({k: (js(v) if isinstance(v, dict) else v) for k, v in dw("dw-sls-0001").items()}, "dataworks_event"),
    sls(js(dw("dw-sls-0002")), "dataworks_event"),
], accepted=2, delivery="log-service:contents",
   note="EventBridge -> Log Service export of DataWorks CloudEvents: data as a JSON string; or all of contents as one")
case("dataworks", "list_response_data", [
    {"requestId": "0bc1ec92", "success": True, "data": [dw("dw-api-0001"), dw("dw-api-0002"), DW_UNKNOWN]},
], accepted=3, delivery="api:data[0]", unknown=["something-new"],
   note="a list response under `data` (paging fields ignored); an unknown event code is accepted and listed")
case("dataworks", "kafka_json", [
    kafka(js(dw("dw-kafka-0001")), "dataworks-events", 11),
    kafka(js(DW_FC), "dataworks-events", 12),
], accepted=2, delivery="kafka:value", note="EventBridge -> Kafka sink: value the CloudEvent / FC message as a JSON string")
case("dataworks", "mns_topic_base64", [
    mns_topic(b64(dw("dw-mns-0001")), "mns-0101"),
], accepted=1, delivery="mns-topic:Message(base64)", note="EventBridge -> MNS topic, base64 Message")
case("dataworks", "eventbridge_mns_queue", [
    eventbridge(mns_queue(js(dw("dw-mnsq-0001")), "mq-01"), "acs.mns", "mns:Queue:SendMessage", "eb-mq-01"),
], accepted=1, delivery="eventbridge:data/mns-queue:messageBody",
   note="EventBridge MNS-queue source: data.messageBody holds the CloudEvent as a JSON string")
case("dataworks", "fc_http", [
    fc_http(b64(dw("dw-http-0001")), True),
    fc_http(js(DW_FC), False),
    fc_http("<html>not an event</html>", False),
], accepted=2, quarantined=1, delivery="fc-http:body(base64)",
   note="Function Compute HTTP trigger events (body base64 when isBase64Encoded); an HTML body is quarantined")
case("dataworks", "eventbridge_other_products", [
    eventbridge({"bucket": "logs", "object": "a.txt"}, "acs.oss", "oss:ObjectCreated:PutObject", "eb-oss-01"),
    dw("dw-eb-0001"),
], accepted=1, foreign=1, foreign_kinds=["dataworks:source:acs.oss"], delivery=None,
   note="the bus that carries DataWorks' events carries other products': counted foreign, not quarantined")

# dataphin ------------------------------------------------------------------------------------
case("dataphin", "log_service_export", [
    sls({k: v for k, v in dp("dp-sls-0001").items()}, "dataphin_audit", t=1630945396),
    sls(dp("dp-sls-0002", "SomeFutureEvent"), "dataphin_audit", t=1630945397),
], accepted=2, delivery="log-service:contents", unknown=["SomeFutureEvent"],
   note="Log Service export of the audit logstore: contents the log fields (user_identity_json a JSON string)")
case("dataphin", "fc_timer_and_kafka", [
    fc_timer(js(dp("dp-timer-0001"))),
    kafka(b64(dp("dp-kafka-0001")), "dataphin-audit", 5),
], accepted=2, delivery="fc-timer:payload", note="Function Compute timer payload / Kafka value carrying a log record")
case("dataphin", "list_response_items", [
    {"RequestId": "7A1F", "TotalCount": 2, "PageNumber": 1, "PageSize": 2, "Items": [dp("dp-api-0001"), "not an object"]},
], accepted=1, quarantined=1, delivery="api:Items[0]",
   note="a list response under `Items`; an element that is not an object is quarantined")

# datahub ------------------------------------------------------------------------------------
case("datahub", "platform_event_header", [
    platform(ece(tag="Gold", t=1649953100001)),
    platform(ece(tag="Silver", t=1649953100002), header=False),
], accepted=2, note="PlatformEvent with and without header (the ECE in payload.value as a JSON string)")
case("datahub", "kafka_platform_event", [
    kafka(js(platform(ece(tag="Bronze", t=1649953100003), header=False)), "PlatformEvent_v1", 21),
    kafka(b64(platform(CONTAINER)), "PlatformEvent_v1", 22),
], accepted=1, foreign=1, foreign_kinds=["datahub:entityType:container"], delivery="kafka:value",
   note="Kafka PlatformEvent_v1 topic read as JSON; a change to a container (not modelled) is foreign")
case("datahub", "avro_json", [
    {"header": {"com.linkedin.pegasus2avro.mxe.PlatformEventHeader": {"timestampMillis": {"long": 1649953100004}}},
     "name": {"string": "entityChangeEvent"},
     "payload": {"com.linkedin.pegasus2avro.mxe.GenericPayload": {"contentType": {"string": "application/json"},
                                                                   "value": {"bytes": js(ece(tag="Avro", t=1649953100004))}}}},
    {"entityUrn": {"string": "urn:li:dataset:abc"}, "entityType": {"string": "dataset"}, "category": {"string": "TAG"},
     "operation": {"string": "REMOVE"}, "modifier": {"string": "urn:li:tag:Avro"},
     "parameters": {"map": {"tagUrn": "urn:li:tag:Avro"}},
     "auditStamp": {"com.linkedin.pegasus2avro.common.AuditStamp": {"actor": "urn:li:corpuser:jdoe", "time": 1649953100005}}},
], accepted=2, delivery="avro-json:unions", note="Avro JSON union encoding: a PlatformEvent and a bare ECE")
case("datahub", "actions_envelope_items", [
    {"Items": [{"event_type": "EntityChangeEvent_v1", "event": ece(tag="Actions", t=1649953100006), "meta": {}},
               {"event_type": "EntityChangeEvent_v1", "event": ece("urn:li:dataProduct:sales", "dataProduct", "Actions", 1649953100007), "meta": {}}]},
], accepted=1, foreign=1, foreign_kinds=["datahub:entityType:dataProduct"], delivery="api:Items[0]",
   note="datahub-actions envelopes listed under Items; a data product change is foreign")

manifest = ["# The delivery-shapes corpus: per file, what `lineage ingest` must make of it (hand-counted).",
            "# foreign_kinds: <source that declares it>:<kind>. Files end in .delivery so that ingesting tests/data as a directory does not pick them up.", ""]
for c in CASES:
    d = OUT / c["src"]; d.mkdir(parents=True, exist_ok=True)
    path = d / f"{c['name']}.delivery"
    path.write_text("".join(js(r) + "\n" for r in c["records"]))
    manifest += [f'["{c["src"]}/{c["name"]}.delivery"]', f'note = {json.dumps(c["note"])}',
                 f'accepted = {c["accepted"]}', f'foreign = {c["foreign"]}', f'quarantined = {c["quarantined"]}']
    if c["foreign_kinds"]:
        manifest.append(f'foreign_kinds = {json.dumps(c["foreign_kinds"])}')
    if c["unknown"]:
        manifest.append(f'unknown_kinds = {json.dumps(c["unknown"])}')
    if c["delivery"]:
        manifest.append(f'delivery = {json.dumps(c["delivery"])}')
    manifest.append("")
(OUT / "manifest.toml").write_text("\n".join(manifest))
