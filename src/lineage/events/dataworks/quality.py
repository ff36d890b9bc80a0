"""Data Quality events: check feedback and results; rule, monitor and subscription pre-events.

Only the feedback and check-finished events are on the English page; the rule, monitor
(evaluation task) and alert-subscription pre-events come from the Chinese page.
"""

from __future__ import annotations

from pydantic import AliasChoices, Field

from lineage.events.base import Bool, EventModel, Id, IdList, JsonValue, LenientTime, StrList
from lineage.events.dataworks.common import (
    DataWorksBody,
    DataWorksEvent,
    RequiredId,
    RequiredIdList,
)

# ---------------------------------------------------------------------------------------------
# check feedback and results
# ---------------------------------------------------------------------------------------------


class DqcCheckFeedback(DataWorksBody):
    """Feedback was given on a data quality check result."""

    TIME_FIELDS = ("begin_time",)
    ACTOR_FIELDS = ("create_user",)

    rule_id: RequiredId = Field(alias="ruleId")
    rule_check_id: Id = Field(None, alias="ruleCheckId")
    feedback_content: str | None = Field(None, alias="feedbackContent")
    create_user: Id = Field(None, alias="createUser")
    task_id: str | None = Field(None, validation_alias=AliasChoices("taskId", "taskid"))
    begin_time: LenientTime = Field(None, alias="beginTime")  # when the feedback was given
    env_type: str | None = Field(None, alias="envType")  # ODPS, EMR, HOLO
    project_name: str | None = Field(None, alias="projectName")  # the data source
    project_id: Id = Field(None, alias="projectId")


class DqcCheckFeedbackEvent(DataWorksEvent[DqcCheckFeedback]):
    """dqc-check-feedback-event in any envelope."""


class DqcReferenceValue(EventModel):
    """A historical sample value the check compared against."""

    biz_date: LenientTime = Field(None, alias="bizDate")
    discrete_property: str | None = Field(None, alias="discreteProperty")
    value: float | None = None
    single_check_result: int | None = Field(None, alias="singleCheckResult")


class DqcSampleValue(EventModel):
    """The current sample value."""

    biz_date: LenientTime = Field(None, alias="bizDate")
    value: float | None = None


class DqcCheckFinished(DataWorksBody):
    """A data quality rule was checked against a table partition."""

    TIME_FIELDS = ("end_time", "begin_time")
    ACTOR_FIELDS = ()

    id: Id = None  # this check run
    rule_id: RequiredId = Field(alias="ruleId")
    rule_name: str | None = Field(None, alias="ruleName")
    project_name: str | None = Field(None, alias="projectName")  # engine / data source
    table_name: str | None = Field(None, alias="tableName")
    property: str | None = None  # the checked column, "-" for table-level rules
    task_id: str | None = Field(None, alias="taskId")
    entity_id: Id = Field(None, alias="entityId")
    project_id: Id = Field(None, alias="projectId")
    bizdate: LenientTime = None
    date_type: str | None = Field(None, alias="dateType")
    actual_expression: str | None = Field(None, alias="actualExpression")
    match_expression: str | None = Field(None, alias="matchExpression")
    block_type: int | None = Field(None, alias="blockType")  # 1 strong, 0 weak
    check_result: int | None = Field(None, alias="checkResult")  # -1 error, 0 pass, 1 warn, 2 critical
    check_result_status: int | None = Field(None, alias="checkResultStatus")
    method_name: str | None = Field(None, alias="methodName")
    begin_time: LenientTime = Field(None, alias="beginTime")
    end_time: LenientTime = Field(None, alias="endTime")
    time_consuming: str | None = Field(None, alias="timeConsuming")
    external_type: str | None = Field(None, alias="externalType")  # CWF2 = scheduled
    external_id: str | None = Field(None, alias="externalId")  # node id, or triggerByManual
    discrete: Bool = None
    fixed_check: Bool = Field(None, alias="fixedCheck")
    reference_value: list[DqcReferenceValue] = Field(default_factory=list, alias="referenceValue")
    sample_value: list[DqcSampleValue] = Field(default_factory=list, alias="sampleValue")
    trend: str | None = None
    expect_value: float | None = Field(None, alias="expectValue")
    op: str | None = None
    template_id: int | None = Field(None, alias="templateId")
    checker_type: int | None = Field(None, alias="checkerType")
    is_prediction: Bool = Field(None, alias="isPrediction")
    feedback_status: int | None = Field(None, alias="feedbackStatus")
    whether_to_filter_dirty_data: Bool = Field(None, alias="whetherToFilterDirtyData")
    comment: str | None = None


class DqcCheckFinishedEvent(DataWorksEvent[DqcCheckFinished]):
    """dqc-check-finished-event in any envelope."""


# ---------------------------------------------------------------------------------------------
# rules and monitors (evaluation tasks): pre-events
# ---------------------------------------------------------------------------------------------


class DataQualityTarget(EventModel):
    """The monitored table, by its Data Map GUID (``odps.<project>.<table>``, ...)."""

    database_type: str | None = Field(None, alias="databaseType")
    table_guid: str | None = Field(None, alias="tableGuid")


class DataQualityThreshold(EventModel):
    """One threshold expression such as ``$checkValue > 0``."""

    expression: str | None = None


class DataQualityThresholds(EventModel):
    """The expected and critical thresholds of a rule."""

    expected: DataQualityThreshold | None = None
    critical: DataQualityThreshold | None = None


class DataQualityCheckingConfig(EventModel):
    """How samples are checked: threshold type and thresholds."""

    type: str | None = None
    thresholds: DataQualityThresholds | None = None


class DataQualitySamplingConfig(EventModel):
    """How samples are collected: the metric (Count, Min, NullValueCount, ...)."""

    metric: str | None = None


class DataQualityRule(EventModel):
    """A data quality rule as created or updated."""

    id: Id = None
    name: str | None = None
    enabled: Bool = None
    severity: str | None = None  # High / Normal
    description: str | None = None
    template_code: str | None = Field(None, alias="templateCode")
    sampling_config: DataQualitySamplingConfig | None = Field(None, alias="samplingConfig")
    checking_config: DataQualityCheckingConfig | None = Field(None, alias="checkingConfig")


class DataQualityRulesBatchCreate(DataWorksBody):
    """Rules are about to be created on a table."""

    TIME_FIELDS = ("operation_time",)

    target: DataQualityTarget
    rules: list[DataQualityRule] = Field(default_factory=list)
    data_quality_task_id: Id = Field(None, alias="dataQualityTaskId")
    project_id: Id = Field(None, alias="projectId")
    operator: Id = None
    operation_time: LenientTime = Field(None, alias="operationTime")


class DataQualityRulesBatchCreateEvent(DataWorksEvent[DataQualityRulesBatchCreate]):
    """batch-create-data-quality-rules in any envelope."""


class DataQualityRuleUpdate(DataWorksBody, DataQualityRule):
    """A rule is about to be updated (the body is the rule itself)."""

    TIME_FIELDS = ("operation_time",)

    id: RequiredId
    project_id: Id = Field(None, alias="projectId")
    operator: Id = None
    operation_time: LenientTime = Field(None, alias="operationTime")


class DataQualityRuleUpdateEvent(DataWorksEvent[DataQualityRuleUpdate]):
    """update-data-quality-rule in any envelope."""


class DataQualityBatchDelete(DataWorksBody):
    """Rules or monitors (by ``ids``) are about to be deleted."""

    TIME_FIELDS = ("operation_time",)

    ids: RequiredIdList
    project_id: Id = Field(None, alias="projectId")
    operator: Id = None
    operation_time: LenientTime = Field(None, alias="operationTime")


class DataQualityBatchDeleteEvent(DataWorksEvent[DataQualityBatchDelete]):
    """batch-delete-data-quality-rules / batch-delete-data-quality-evaluation-tasks."""


class DataQualityTrigger(EventModel):
    """What runs a monitor: ByScheduledTaskInstance (of ``taskIds`` nodes) or ByManual."""

    type: str | None = None
    task_ids: IdList = Field(default_factory=list, alias="taskIds")


class DataQualityHook(EventModel):
    """A callback in a monitor run's life cycle (BlockTaskInstance)."""

    type: str | None = None
    condition: str | None = None


class DataQualityNotificationReceiver(EventModel):
    """Who is notified (the wire key is misspelt ``notificaionReceivers``)."""

    receiver_type: str | None = Field(None, alias="receiverType")
    receiver_values: StrList = Field(default_factory=list, alias="receiverValues")
    extension: JsonValue = None  # a JSON string


class DataQualityNotification(EventModel):
    """Channels and receivers of one notification."""

    channels: StrList = Field(default_factory=list)
    notification_receivers: list[DataQualityNotificationReceiver] = Field(
        default_factory=list, validation_alias=AliasChoices("notificaionReceivers", "notificationReceivers")
    )


class DataQualityNotifications(EventModel):
    """When to notify and whom."""

    condition: str | None = None
    notifications: list[DataQualityNotification] = Field(default_factory=list)


class DataQualityEvaluationTaskCreate(DataWorksBody):
    """A monitor (evaluation task) is about to be created on a table."""

    TIME_FIELDS = ("operation_time",)

    target: DataQualityTarget
    name: str | None = None
    description: str | None = None
    trigger: DataQualityTrigger | None = None
    data_source_id: Id = Field(None, alias="dataSourceId")
    runtime_conf: JsonValue = Field(None, alias="runtimeConf")  # a JSON string
    rules: list[DataQualityRule] = Field(default_factory=list)
    hooks: list[DataQualityHook] = Field(default_factory=list)
    # the table says Array<Notification>, the sample an object {condition, notifications}
    notifications: DataQualityNotifications | list[DataQualityNotification] | None = None
    project_id: Id = Field(None, alias="projectId")
    operator: Id = None
    operation_time: LenientTime = Field(None, alias="operationTime")


class DataQualityEvaluationTaskCreateEvent(DataWorksEvent[DataQualityEvaluationTaskCreate]):
    """create-data-quality-evaluation-task in any envelope."""


class DataQualityEvaluationTaskClone(DataWorksBody):
    """A monitor (``id``) is about to be cloned onto other tables."""

    TIME_FIELDS = ("operation_time",)

    id: RequiredId
    targets: list[DataQualityTarget] = Field(default_factory=list)
    project_id: Id = Field(None, alias="projectId")
    operator: Id = None
    operation_time: LenientTime = Field(None, alias="operationTime")


class DataQualityEvaluationTaskCloneEvent(DataWorksEvent[DataQualityEvaluationTaskClone]):
    """clone-data-quality-evaluation-task in any envelope."""


class DataQualityNotificationChange(DataWorksBody):
    """An alert subscription of a monitor is about to be created, updated or deleted."""

    TIME_FIELDS = ("operation_time",)

    data_quality_evaluation_task_id: RequiredId = Field(alias="dataQualityEvaluationTaskId")
    channel: str | None = None  # Mail, Sms, Phone, Feishu, Weixin, Dingding, Webhook
    receiver_value: str | None = Field(None, alias="receiverValue")
    current_channel: str | None = Field(None, alias="currentChannel")
    current_receiver_value: str | None = Field(None, alias="currentReceiverValue")
    updated_channel: str | None = Field(None, alias="updatedChannel")
    updated_receiver_value: str | None = Field(None, alias="updatedReceiverValue")
    project_id: Id = Field(None, alias="projectId")
    operator: Id = None
    operation_time: LenientTime = Field(None, alias="operationTime")


class DataQualityNotificationChangeEvent(DataWorksEvent[DataQualityNotificationChange]):
    """create-/update-data-quality-evaluation-task-notification in any envelope."""
