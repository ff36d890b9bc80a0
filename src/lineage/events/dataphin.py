"""Dataphin audit log records (seed 003): the log-field record Dataphin writes to Log Service.

One envelope, ``log``: the flat record as Log Service (SLS) exports it, keys exactly as the
document's log-field table gives them (``log_time``, ``event_id``, ``event_name``,
``user_identity``, ...). SLS adds its own ``__time__`` / ``__source__`` / ``__topic__`` keys (and
``__tag__:...`` keys) to every exported log; they are modelled as optional fields or kept as
extras. Every SLS value is text, so numbers, base64 and JSON all arrive as strings.

All event kinds share one model, :class:`DataphinEvent`; the kind is ``event_name``. The
document's catalogue of log events per module is transcribed in :data:`_LISTINGS` (every row,
in document order, repeats included); :data:`CATALOGUE` keeps each name's first listing and
:data:`ALSO_LISTED` its other listings. An ``event_name`` outside the catalogue is generic
activity (``known=False``), never an error.
"""

from __future__ import annotations

import datetime as dt
import json
from typing import Annotated, Any

from pydantic import BeforeValidator, Field

from lineage.events.base import (
    Base64Text,
    EventModel,
    Id,
    JsonValue,
    LenientTime,
    ParsedEvent,
    RecordError,
    StrList,
    Timestamp,
    require,
)

SOURCE = "dataphin"

# ---------------------------------------------------------------------------------------------
# the catalogue: (module, ((event_name, description), ...)) per "... log events" table of the
# seed, in document order. Names are kept exactly as printed, typos included (``Deletetenant``,
# ``ChangeTenantWarermark``, ``CreateReleatedDataStandards``): they are the wire values.
# ---------------------------------------------------------------------------------------------

_LISTINGS: tuple[tuple[str, tuple[tuple[str, str], ...]], ...] = (
    (  # seed line 173
        "Super X",
        (
            ("PublishXApp", "Publishes an X application."),
        ),
    ),
    (  # seed line 183
        "Platform management",
        (
            ("StartMaintenanceMode", "Starts maintenance mode."),
            ("StopMaintenanceMode", "Stops maintenance mode."),
            (
                "ChangeOwner",
                (
                    "Transfers ownership of a resource, such as a task or a security "
                    "identification rule."
                ),
            ),
        ),
    ),
    (  # seed line 205
        "Management center",
        (
            ("UserLogIn", "A user logs in."),
            ("UserLogOut", "A user logs out."),
            (
                "VisitDataphin",
                (
                    "A user accesses Dataphin. A new event is logged if the user reopens the page"
                    " after 2 hours of inactivity."
                ),
            ),
            ("ModifyAuditLogConfig", "Modifies the audit log settings in the metastore."),
            ("SuperAdminAddUser", "A super administrator adds a new user."),
            ("SuperAdminDeleteUser", "A super administrator deletes a user."),
            ("ChangeUserStatus", "Modifies the status of a member."),
            ("SuperAdminModifyUser", "Modifies member information."),
            (
                "AutoAddUser",
                "Automatically adds a user upon their first login via SAML authentication.",
            ),
            (
                "AutoModifyUser",
                "Automatically updates user information upon login via SAML authentication.",
            ),
            ("createShadowAccount", "Creates a built-in account."),
            ("resetShadowAccountPassword", "Resets the password of a built-in account."),
            ("updateShadowAccountPassword", "Modifies the password of a built-in account."),
            (
                "RoleProjectSave",
                (
                    "Creates or modifies a project role, including its permissions and status "
                    "(enabled/disabled)."
                ),
            ),
            ("RoleTenantSave", "Creates or modifies a global role."),
            ("RoleTenantDelete", "Deletes a global role."),
            ("UpdateTenantComputeEngineSetting", "Configures the tenant compute engine."),
            ("UpdateTenantRTComputeEngineSetting", "Modifies real-time compute settings."),
            (
                "UpdateResourceDashboardSetting",
                "Enables or disables the scheduling resource dashboard.",
            ),
            ("UpdateCustomTaskParameters", "Configures tenant-level parameters for custom tasks."),
            ("AddOrUpdateChangeStrategy", "Adds or modifies a change policy."),
            ("DeleteChangeStrategy", "Deletes a change policy."),
            ("SetChangeStrategyStatus", "Modifies the activation status of a change policy."),
            ("AddOrUpdateChangeRule", "Adds or modifies a change rule."),
            ("DeleteChangeRule", "Deletes a change rule."),
            ("SetChangeRuleStatus", "Modifies the activation status of a change rule."),
            ("SuperOpsInitMeta", "A super administrator initializes the metastore."),
            ("UpdateBpmsConfiguration", "Modifies approval settings."),
            ("EditMessageChannel", "Modifies a message channel."),
            ("DeleteCustomMessageChannel", "Deletes a custom message channel."),
            ("DataDownloadBasicSetting", "Modifies file download format settings."),
            ("AddApprovalSetting", "Adds an approval policy."),
            ("UpdateApprovalSetting", "Updates an approval policy."),
            ("RemoveApprovalSetting", "Deletes an approval policy."),
            ("CreateApprovalTemplate", "Creates a custom approval template."),
            ("UpdateApprovalTemplate", "Modifies a custom approval template."),
            ("DeleteApprovalTemplate", "Deletes a custom approval template."),
            (
                "PublishObject",
                (
                    "Publishes a business object, such as a metatable, mirrored table, real-time "
                    "template, or pipeline task."
                ),
            ),
            ("CreateTenant", "Creates a tenant."),
            ("UpdateTenant", "Modifies a tenant."),
            ("Deletetenant", "Deletes a tenant."),
            ("RestoreTenant", "Restores a tenant."),
            ("CreateResourceQuota", "Creates a custom resource group."),
            ("UpdateResourceQuota", "Updates a custom resource group."),
            ("DeleteResourceQuota", "Deletes a custom resource group."),
            ("CreateFlinkSessionCluster", "Creates a session cluster."),
            ("UpdateFlinkSessionCluster", "Modifies a session cluster."),
            ("DeleteFlinkSessionCluster", "Deletes a session cluster."),
            ("AddDataSource", "Creates a data source."),
            ("ChangeDataSource", "Modifies a data source."),
            ("DeleteDataSource", "Deletes a data source."),
            ("TestDataSourceConnection", "Tests a data source connection."),
            ("ChangeDataSourceOwner", "Transfers the ownership of a data source."),
            ("AddCustomDataSource", "Creates a custom real-time data source."),
            ("UpdateCustomDataSource", "Updates a custom real-time data source."),
            ("DeleteCustomDataSource", "Deletes a custom real-time data source."),
            ("ApplyPrivilege", "Applies for permissions."),
            ("ReturnPermission", "Relinquishes permissions."),
            ("AuthorizeExpire", "Permissions expire."),
            ("ApprovePrivilege", "Approves a permission request."),
            ("GrantPermission", "Proactively grants permissions."),
            ("RevokePermission", "Proactively revokes permissions."),
            (
                "ChangeServiceOwner",
                (
                    "Transfers the ownership of a Data Service API, application, Dataphin data "
                    "source, or service unit."
                ),
            ),
            ("ConfigFunctionPermission", "Modifies a function permission configuration."),
            ("ChangeFunctionPermissionOwner", "Transfers the ownership of a function permission."),
            ("AuthAuditExport", "Exports permission audit details."),
            ("CreateRowPermissions", "Creates a row-level permission."),
            ("UpdateRowPermissions", "Modifies a row-level permission."),
            ("DeleteRowPermissions", "Deletes a row-level permission."),
            ("EditMessageConfig", "Modifies message configurations."),
            ("ChangeTenantStyle", "Modifies tenant style configurations."),
            ("MigrateStreamJob", "Performs a cross-platform migration of a stream job."),
            ("ChangeTenantWarermark", "Modifies the tenant's watermark settings."),
            (
                "SetDataServiceDatasourceForTag",
                "Assigns a service data source to the tagging platform.",
            ),
            ("CreateServiceDataFlowForBackupFlow", "Generates a backup data flow."),
            ("ChangeDataServiceSetting", "Modifies Data Service settings."),
            ("SaveTenantMenu", "Saves the tenant menu configuration."),
            ("InstallPythonModule", "Installs a Python module."),
            ("UpgradePythonModule", "Upgrades a Python module."),
            ("DeletePythonModule", "Deletes a Python module."),
            ("AddPythonMirror", "Adds a Python mirror source."),
            ("UpdatePythonMirror", "Modifies a Python mirror source."),
            ("DeletePythonMirror", "Deletes a Python mirror source."),
            ("SecurityConfigSetting", "Modifies security settings."),
            ("DataDownloadBasicSetting", "Modifies file download format settings."),
        ),
    ),
    (  # seed line 619
        "Data warehouse planning",
        (
            ("AdminAddBizUnit", "Creates a data section (formerly a business section)."),
            ("AdminChangeBizUnit", "Modifies a data section (formerly a business section)."),
            ("AdminDeleteBizUnit", "Deletes a data section (formerly a business section)."),
            ("AddDataDomain", "Adds a subject domain (formerly a data domain)."),
            ("UpdateDataDomain", "Updates a subject domain (formerly a data domain)."),
            ("DeleteDataDomain", "Deletes a subject domain (formerly a data domain)."),
            ("AddStatisticalPeriod", "Adds a statistical period."),
            ("UpdateStatisticalPeriod", "Updates a statistical period."),
            ("DeleteStatisticalPeriod", "Deletes a statistical period."),
            ("CreateGlobalVariable", "Creates a global variable."),
            ("UpdateGlobalVariable", "Updates a global variable."),
            ("DeleteGlobalVariable", "Deletes a global variable."),
            ("CreateGlobalVariableGroup", "Creates a global variable group."),
            ("UpdateGlobalVariableGroup", "Updates a global variable group."),
            ("DeleteGlobalVariableGroup", "Deletes a global variable group."),
            ("AddComputeEngine", "Adds a compute engine."),
            ("UpdateComputeEngine", "Updates a compute engine."),
            ("DeleteComputeEngine", "Deletes a compute engine."),
            ("TestComputeEngineConnection", "Tests a compute engine connection."),
            ("ChangeComputeEngineOwner", "Changes the owner of a compute engine."),
            ("CreateAccelerationSource", "Creates an acceleration source."),
            ("EditAccelerationSource", "Edits an acceleration source."),
            ("DeleteAccelerationSource", "Deletes an acceleration source."),
            ("AdminAddProject", "Creates a project."),
            ("AdminChangeProject", "Modifies a project."),
            ("AdminDeleteProject", "Deletes a project."),
            ("AdminSetRole", "Modifies the role of a project member."),
            ("AdminRemoveRole", "Removes a project member."),
            ("AddBizObject", "Creates a business object."),
            ("UpdateBizObject", "Updates a business object."),
            ("DeleteBizObject", "Deletes a business object."),
            ("PublishBizObject", "Publishes a business object."),
            ("UnpublishBizObject", "Unpublishes a business object."),
            ("AddBizActivity", "Creates a business activity."),
            ("UpdateBizActivity", "Updates a business activity."),
            ("DeleteBizActivity", "Deletes a business activity."),
            ("PublishBizActivity", "Publishes a business activity."),
            ("UnpublishBizActivity", "Unpublishes a business activity."),
            ("SavePublicCalendar", "Saves a public calendar."),
            ("SavePublicCalendarTag", "Saves a public calendar tag."),
            ("DeletePublicCalendarTag", "Deletes a public calendar tag."),
            ("DeletePublicCalendar", "Deletes a public calendar."),
            ("AddTaskScheduleTemplate", "Creates an offline scheduling template."),
            ("EditTaskScheduleTemplate", "Edits an offline scheduling template."),
            ("DeleteTaskScheduleTemplate", "Deletes an offline scheduling template."),
        ),
    ),
    (  # seed line 821
        "Publish and development",
        (
            (
                "PublishObject",
                (
                    "Publishes a business object, such as a metatable, mirror table, stream "
                    "processing template, or pipeline."
                ),
            ),
            (
                "CreateDefinition",
                (
                    "Creates a definition (such as a dimension, business process, atomic metric, "
                    "business qualifier, or derived metric)."
                ),
            ),
            (
                "ChangeDefinition",
                (
                    "Updates a definition (such as a dimension, business process, atomic metric, "
                    "business qualifier, or derived metric)."
                ),
            ),
            (
                "DeleteDefinition",
                (
                    "Deletes a definition (such as a dimension, business process, atomic metric, "
                    "business qualifier, or derived metric)."
                ),
            ),
            (
                "SubmitDefinition",
                (
                    "Submits a definition (such as a dimension, business process, atomic metric, "
                    "business qualifier, or derived metric)."
                ),
            ),
            (
                "OfflineDefinition",
                (
                    "Takes a definition (such as a dimension, business process, atomic metric, "
                    "business qualifier, or derived metric) offline."
                ),
            ),
            (
                "CreateModel",
                (
                    "Creates a logical table, such as a dimension table, fact table, or summary "
                    "table."
                ),
            ),
            (
                "ChangeModel",
                (
                    "Updates a logical table, such as a dimension table, fact table, or summary "
                    "table."
                ),
            ),
            (
                "DeleteModel",
                (
                    "Deletes a logical table, such as a dimension table, fact table, or summary "
                    "table."
                ),
            ),
            ("SaveModel", "Saves a logical table (dimension table or fact table)."),
            ("SubmitModel", "Submits a logical table."),
            ("OfflineModel", "Takes a logical table offline."),
            ("AddPipeline", "Creates a pipeline."),
            ("DeletePipeline", "Deletes a pipeline."),
            ("UpdatePipeline", "Updates a pipeline."),
            ("SubmitPipeline", "Submits a pipeline."),
            ("OfflinePipeline", "Takes a pipeline offline."),
            ("DownloadPipelineScript", "Downloads a pipeline script."),
            ("UploadPipelineScript", "Uploads a pipeline script."),
            (
                "PipelineCreateTable",
                "Creates the required tables for a pipeline in a single operation.",
            ),
            ("AddRealTimePipeline", "Creates a real-time integration task."),
            ("UpdateRealTimePipeline", "Updates a real-time integration task."),
            ("SubmitRealTimePipeline", "Submits a real-time integration task."),
            ("OfflineRealTimePipeline", "Takes a real-time integration task offline."),
            ("DeleteRealTimePipeline", "Deletes a real-time integration task."),
            ("SubmitNode", "Submits a node (Shell, Python, or MaxCompute)."),
            ("OfflineNode", "Takes a node offline (Shell, Python, or MaxCompute)."),
            ("AddDataNode", "Creates a data processing task (scheduled or manual)."),
            ("ChangeDataNode", "Updates a data processing task (scheduled or manual)."),
            ("DeleteDataNode", "Deletes a data processing task (scheduled or manual)."),
            ("AddFile", "Creates an ad hoc query or a directory."),
            ("DeleteFile", "Deletes an ad hoc query or a directory."),
            ("ChangeFile", "Updates an ad hoc query, or renames an ad hoc query or a directory."),
            ("MoveFile", "Moves a file (data processing task, ad hoc query, or directory)."),
            ("UpdateMetatable", "Updates a real-time metatable."),
            ("DeleteMetatable", "Deletes a real-time metatable."),
            ("SubmitMetatable", "Submits a real-time metatable."),
            ("CreateMetatable", "Creates a real-time metatable."),
            ("CreateMirrortable", "Creates a mirror table."),
            ("UpdateMirrortable", "Updates a mirror table."),
            ("DeleteMirrortable", "Deletes a mirror table."),
            ("SubmitMirrortable", "Submits a mirror table."),
            ("CreateTable", "Creates a physical table using the table management UI."),
            ("AlterTable", "Alters a physical table using the table management UI."),
            ("DropTable", "Drops a physical table using the table management UI."),
            ("CreateBatchTaskTemplate", "Creates a batch task template."),
            ("UpdateBatchTaskTemplate", "Updates a batch task template."),
            ("DeleteBatchTaskTemplate", "Deletes a batch task template."),
            ("CloneBatchTaskTemplate", "Clones a batch task template."),
            ("SubmitBatchTaskTemplate", "Submits a batch task template."),
            ("CreateStreamProcessTemplate", "Creates a stream processing template."),
            ("UpdateStreamProcessTemplate", "Updates a stream processing template."),
            ("DeleteStreamProcessTemplate", "Deletes a stream processing template."),
            ("SubmitStreamProcessTemplate", "Submits a stream processing template."),
            ("AddFunction", "Creates a function."),
            ("ChangeFunction", "Updates a function."),
            ("DeleteFunction", "Deletes a function."),
            ("UploadResource", "Uploads a resource."),
            ("DownloadResource", "Downloads a resource."),
            ("AddResource", "Creates a resource."),
            ("ChangeResource", "Updates a resource."),
            ("DeleteResource", "Deletes a resource."),
            ("BulkChangeOwnerForStreamJob", "Changes the owner of multiple stream jobs."),
            ("BulkGetLockForStreamJob", "Acquires locks on multiple stream jobs."),
            ("BulkSubmitStreamJob", "Submits multiple stream jobs."),
            ("BulkOfflineStreamJob", "Takes multiple stream jobs offline."),
            ("BulkDeleteStreamJob", "Deletes multiple stream jobs."),
            ("BulkMoveStreamJob", "Moves multiple stream jobs."),
            ("BulkApplyPropertiesForStreamJob", "Updates the settings for multiple stream jobs."),
            ("CreateTable", "Creates a table using SQL."),
            ("AlterTable", "Alters a table using SQL."),
            ("SelectTable", "Queries a table using SQL."),
            ("DropTable", "Drops a table using SQL."),
            ("AdhocDownload", "Exports a sample of the query result."),
            ("FullDataDownload", "Exports the complete query result."),
            ("INSERT_INTO_TABLE", "Inserts data into a table using SQL."),
            ("DropPartition", "Deletes a partition."),
            ("AddPartition", "Adds a partition."),
        ),
    ),
    (  # seed line 1187
        "O&M Center",
        (
            ("CreateSupplementalWorkflow", "Creates a data backfill workflow."),
            ("UpdateTask", "Suspends a task."),
            ("UpdateTask", "Resumes a task."),
            ("ChangeTaskPriority", "Changes the task priority."),
            ("ChangeTaskOwner", "Changes the task owner."),
            ("RunTask", "Runs a manual task."),
            ("AddSupplementTask", "Adds a data backfill task."),
            ("UpdateSupplementTask", "Modifies a data backfill task."),
            ("DeleteSupplementTask", "Deletes a data backfill task."),
            (
                "UpdateTaskInstance",
                (
                    "Manages task instances. Operations include rerunning a task instance, "
                    "rerunning its downstream instances, setting an instance to success, "
                    "force-rerunning an instance, suspending a node instance, and resuming a node"
                    " instance."
                ),
            ),
            ("RemoveUpstreamDependence", "Removes an upstream dependency."),
            ("RerunTask", "Reruns a task instance."),
            ("RerunDownstreamInstance", "Reruns downstream instances."),
            ("AddTaskMonitor", "Adds a task monitoring item (offline & real-time)."),
            ("UpdateTaskMonitor", "Modifies a task monitoring item (offline & real-time)."),
            ("DeleteTaskMonitor", "Deletes a task monitoring item (offline & real-time)."),
            ("CreateStreamMonitorItem", "Adds a real-time task monitoring item."),
            ("UpdateStreamMonitorItem", "Modifies a real-time task monitoring item."),
            ("DeleteStreamMonitorItem", "Deletes a real-time task monitoring item."),
            ("CreateBaseline", "Creates a baseline."),
            ("UpdateBaseline", "Modifies a baseline."),
            ("DeleteBaseline", "Deletes a baseline."),
            ("AddCurrentLimitingRule", "Creates a throttling rule."),
            ("UpdateCurrentLimitingRule", "Modifies a throttling rule."),
            ("DeleteCurrentLimitingRule", "Deletes a throttling rule."),
            ("UpdateSystemRunningSetting", "Modifies the runtime configuration."),
        ),
    ),
    (  # seed line 1321
        "Data distilling",
        (
            ("CreateIDCategory", "Creates an ID category."),
            ("ChangeIDCategory", "Modifies an ID category."),
            ("DeleteIDCategory", "Deletes an ID category."),
            ("CreateKeyID", "Creates an entity ID."),
            ("ChangeKeyID", "Modifies an entity ID."),
            ("DeleteKeyID", "Deletes an entity ID."),
            ("ImportIDMappingTable", "Imports a OneID mapping table."),
            ("OpenOneID", "Enables OneID normalization."),
            ("CloseOneID", "Disables OneID normalization."),
            ("CreateBehaviorDomain", "Creates a behavior domain."),
            ("ChangeBehaviorDomain", "Modifies a behavior domain."),
            ("DeleteBehaviorDomain", "Deletes a behavior domain."),
            ("CreateLineofBusiness", "Creates a line of business."),
            ("ChangeLineofBusiness", "Modifies a line of business."),
            ("DeleteLineofBusiness", "Deletes a line of business."),
            ("CreateAction", "Creates an action."),
            ("ChangeAction", "Modifies an action."),
            ("DeleteAction", "Deletes an action."),
            ("CreateObject", "Creates an object."),
            ("ChangeObject", "Modifies an object."),
            ("DeleteObject", "Deletes an object."),
            ("CreateObjectAttribute", "Creates an object attribute."),
            ("ChangeObjectAttribute", "Modifies an object attribute."),
            ("DeleteObjectAttribute", "Deletes an object attribute."),
            ("CreateBehaviorRule", "Creates a behavior rule."),
            ("ChangeBehaviorRule", "Modifies a behavior rule."),
            ("DeleteBehaviorRule", "Deletes a behavior rule."),
            ("SubmitBehaviorRule", "Submits a behavior rule."),
            ("OfflineBehaviorRule", "Disables a behavior rule."),
            ("PreviewBehaviorRule", "Previews a behavior rule."),
            ("OfflineAndDeleteBehaviorRule", "Disables and deletes a behavior rule."),
            ("DownloadBehaviorDefinitionTable", "Downloads the behavior rule definition table."),
            ("CreateLabelCategory", "Creates a label category."),
            ("ChangeLabelCategory", "Modifies a label category."),
            ("DeleteLabelCategory", "Deletes a label category."),
            ("CreateStatisticalLabel", "Creates a statistical label."),
            ("ChangeStatisticalLabel", "Modifies a statistical label."),
            ("DeleteStatisticalLabel", "Deletes a statistical label."),
            ("TestStatisticalLabel", "Tests a statistical label."),
            ("SubmitStatisticalLabel", "Submits a statistical label."),
            ("OfflineStatisticalLabel", "Disables a statistical label."),
            ("OfflineAndDeleteStatisticalLabel", "Disables and deletes a statistical label."),
            ("CreatePreferenceLabel", "Creates a preference label."),
            ("ChangePreferenceLabel", "Modifies a preference label."),
            ("DeletePreferenceLabel", "Deletes a preference label."),
            ("TestPreferenceLabel", "Tests a preference label."),
            ("SubmitPreferenceLabel", "Submits a preference label."),
            ("OfflinePreferenceLabel", "Disables a preference label."),
            ("DistillingRefreshData", "Refreshes data for data distilling."),
            ("OfflineAndDeletePreferenceLabel", "Disables and deletes a preference label."),
            ("CreateRegisteredLabel", "Creates a registered label."),
            ("ChangeRegisteredLabel", "Modifies a registered label."),
            ("DeleteRegisteredLabel", "Deletes a registered label."),
            ("CreateLogicalLabelTable", "Creates a logical label table."),
            ("ChangeLogicalLabelTable", "Modifies a logical label table."),
            ("DeleteLogicalLabelTable", "Deletes a logical label table."),
            ("SubmitLogicalLabelTable", "Submits a logical label table."),
            ("OfflineLogicalLabelTable", "Disables a logical label table."),
            ("OfflineAndDeleteLogicalLabelTable", "Disables and deletes a logical label table."),
            ("CreateLogicalLabelTableField", "Adds a field to a logical label table."),
            ("DeleteLogicalLabelTableField", "Deletes a field from a logical label table."),
        ),
    ),
    (  # seed line 1601
        "Asset governance",
        (
            ("UpdateAssetTopic", "Updates an asset topic."),
            ("CreateAssetTopicGroup", "Creates a topic group."),
            ("UpdateAssetTopicGroup", "Updates a topic group."),
            ("DeleteAssetTopicGroup", "Deletes a topic group."),
            ("CreateAssetTopic", "Creates an asset topic."),
            ("ChangeOwner", "Changes the data table owner."),
            ("CreateManualDataDiscovery", "Starts a manual discovery task."),
            ("OpenAutoDataDiscovery", "Enables automatic discovery."),
            ("CloseAutoDataDiscovery", "Disables automatic discovery."),
            ("StopDataDiscovery", "Stops a running data discovery task."),
            ("CreateManualDataDiscovery", "Starts a manual discovery task."),
            ("OpenAutoDataDiscovery", "Enables automatic discovery."),
            ("CloseAutoDataDiscovery", "Disables automatic discovery."),
            ("StopDataDiscovery", "Stops a running data discovery task."),
        ),
    ),
    (  # seed line 1669
        "Data standard",
        (
            ("CreateStandardSet", "Creates a standard set."),
            ("UpdateStandardSet", "Updates a standard set."),
            ("DeleteStandardSet", "Deletes a standard set."),
            ("CreateStandard", "Creates a data standard."),
            ("UpdateStandard", "Updates a data standard."),
            ("SubmitPublishStandard", "Submits a data standard for publishing."),
            ("RepublishStandard", "Republishes a data standard."),
            ("WithdrawPublishStandard", "Withdraws a published data standard."),
            ("UnpublishStandard", "Unpublishes a data standard."),
            ("DeleteStandard", "Deletes a data standard."),
            ("ImportStandards", "Imports data standards in bulk."),
            ("CancelConfirmedMapping", "Removes a confirmed mapping."),
            ("AddStandardMonitoring", "Adds a monitoring rule for a data standard."),
            ("UpdateStandardMonitoring", "Updates a monitoring rule for a data standard."),
            ("CancelStandardMonitoring", "Deletes a monitoring rule for a data standard."),
            ("ChangeDataClassification", "Updates the data classification."),
            ("CreateReleatedDataStandards", "Adds a related data standard."),
            ("DeleteReleatedDataStandards", "Deletes a related data standard."),
            ("SetInvalidMapping", "Marks a mapping as invalid."),
            ("CancelInvalidMapping", "Unmarks a mapping as invalid."),
            ("UpdateStandardEvaluateJob", "Updates the standard evaluation configuration."),
            ("AddConfirmedMapping", "Adds a confirmed mapping."),
            ("AddInvalidMapping", "Adds an invalid mapping."),
            ("CreateStandardMappingRule", "Creates a standard mapping rule."),
            ("UpdateStandardMappingRule", "Updates a standard mapping rule."),
            (
                "TemporaryOnetimeRunStandardMappingRule",
                "Manually runs a standard mapping rule once.",
            ),
            ("DeleteStandardMappingRule", "Deletes a standard mapping rule."),
            ("StopStandardMappingRule", "Stops a running standard mapping rule."),
            ("CreateLookupTable", "Creates a lookup table."),
            ("UpdateLookupTable", "Updates a lookup table."),
            ("DeleteLookupTable", "Deletes a lookup table."),
            ("CreateWordRoot", "Creates a word root."),
            ("UpdateWordRoot", "Updates a word root."),
            ("DeleteWordRoot", "Deletes a word root."),
            ("CreateStandardDirectory", "Creates a standard set directory."),
            ("UpdateStandardDirectory", "Updates a standard set directory."),
            ("DeleteStandardDirectory", "Deletes a standard set directory."),
            ("CreateStandardsTemplate", "Creates a standards template."),
            ("UpdateStandardsTemplate", "Updates a standards template."),
            ("DeleteStandardsTemplate", "Deletes a standards template."),
        ),
    ),
    (  # seed line 1851
        "Asset quality",
        (
            ("AddQualityRule", "Adds a quality rule."),
            ("DeleteQualityRule", "Deletes a quality rule."),
            ("UpdateQualityRule", "Updates a quality rule, including its alert settings."),
            ("SetQualityRuleStatus", "Sets the status of a quality rule."),
            ("DeleteAssetTopic", "Deletes an asset topic."),
            (
                "AddOrUpdateConcurrencyRule",
                "Adds or updates a data source rate limiting configuration.",
            ),
            ("AddQualityTemplate", "Adds a rule template."),
            ("UpdateQualityTemplate", "Updates a rule template."),
            ("DeleteQualityTemplate", "Deletes a rule template."),
            ("AddQualityWatch", "Adds a quality watch."),
            ("UpdateQualityWatch", "Updates a quality watch."),
            ("DeleteQualityWatch", "Deletes a quality watch."),
            ("SetQualityWatchStatus", "Sets the status of a quality watch."),
            ("SetQualityWatchViewAuth", "Sets the view permissions for a quality watch."),
            ("SaveQualityAlert", "Saves a quality alert."),
            ("AddQualitySchedule", "Adds a quality schedule."),
            ("UpdateQualitySchedule", "Updates a quality schedule."),
            ("DeleteQualitySchedule", "Deletes a quality schedule."),
            ("AssignQualityRuleSchedule", "Assigns a quality rule to a schedule."),
            ("DeleteQualityRuleSchedule", "Unassigns a quality rule from a schedule."),
            ("AddQualityArchiveTable", "Adds an archive table."),
            ("DeleteQualityArchiveTable", "Deletes an archive table."),
            ("SubmitQualityWatchTasks", "Submits quality watch tasks."),
            ("SubmitQualityRuleTasks", "Submits quality rule tasks."),
            ("SaveKnowledge", "Saves a knowledge base."),
            ("RemoveKnowledge", "Removes a knowledge base."),
            ("AddKnowledgeLinks", "Adds associations to a knowledge base."),
            ("RemoveKnowledgeLinks", "Removes associations from a knowledge base."),
        ),
    ),
    (  # seed line 1989
        "Asset security",
        (
            ("AddSecurityLabel", "Specifies or uploads an identification result manually."),
            ("AddIdentificationRule", "Creates an identification rule."),
            ("DeleteIdentificationRule", "Deletes an identification rule."),
            ("UpdateIdentificationRule", "Modifies an identification rule."),
            ("TestIdentificationRule", "Tests an identification rule."),
            (
                "SetIdentificationRuleStatus",
                "Changes the activation status of an identification rule.",
            ),
            (
                "ScheduledExecuteDataIdentification",
                "Triggers a scheduled data identification task.",
            ),
            (
                "SaveIdentifyScheduleSettings",
                "Modifies the settings of a scheduled identification task.",
            ),
            ("ResetIdentifyRule", "Resets an identification rule."),
            ("AddDataClass", "Creates a data classification."),
            ("DeleteDataClass", "Deletes a data classification."),
            ("UpdateDataClass", "Modifies a data classification."),
            ("AddDataLevel", "Creates a data sensitivity level."),
            ("DeleteDataLevel", "Deletes a data sensitivity level."),
            ("UpdateDataLevel", "Modifies a data sensitivity level."),
            ("AddDesensitizationRule", "Creates a desensitization rule."),
            ("DeleteDesensitizationRule", "Deletes a desensitization rule."),
            ("UpdateDesensitizationRule", "Modifies a desensitization rule."),
            (
                "SetDesensitizationRuleStatus",
                "Changes the activation status of a desensitization rule.",
            ),
            ("ChangeDesensitizationRuleOwner", "Changes the owner of a desensitization rule."),
            ("AddDesensitizationWhitelist", "Creates a desensitization rule whitelist."),
            ("DeleteDesensitizationWhitelist", "Deletes a desensitization rule whitelist."),
            ("UpdateDesensitizationWhitelist", "Modifies a desensitization rule whitelist."),
            (
                "SetDesensitizationWhitelistStatus",
                "Changes the activation status of a desensitization rule whitelist.",
            ),
            (
                "AddDesensitizationKey",
                "Creates a desensitization key or an encryption/decryption key.",
            ),
            (
                "DeleteDesensitizationKey",
                "Deletes a desensitization key or an encryption/decryption key.",
            ),
            (
                "UpdateDesensitizationKey",
                "Modifies a desensitization key or an encryption/decryption key.",
            ),
            ("ChangeDesensitizationKeyOwner", "Changes the owner of a key."),
            ("QueryDesensitizeSecretKey", "Views an encryption/decryption key."),
            ("ExecuteDataIdentification", "Executes a data identification task."),
            (
                "SetIdentificationRecordStatus",
                "Changes the activation status of an identification record.",
            ),
            ("SetIdentificationRecordResult", "Modifies the identification rule for a field."),
        ),
    ),
    (  # seed line 2139
        "Asset governance",
        (
            ("AddGovMetadataSet", "Adds governance metadata."),
            ("DeleteGovMetadataSet", "Deletes governance metadata."),
            ("UpdateGovMetadataSet", "Updates governance metadata."),
            ("ChangeGovMetadataSetOwner", "Changes the owner of a metadata set."),
            (
                "checkMetaData",
                (
                    "Automatically checks whether the data source, table, and fields linked to "
                    "the governance metadata exist."
                ),
            ),
            (
                "grantMetaDataTable",
                "Grants permissions on the table associated with the metadata when it is created.",
            ),
            ("SetTableLifeCycleFromGovernance", "Storage governance: Sets the table lifecycle."),
            (
                "RenamePhysicalTable",
                "Storage governance: Renames a physical table to move it to the recycle bin.",
            ),
            (
                "PauseTableGenTaskFromGovernance",
                "Storage governance: Pauses a table production node.",
            ),
            ("PauseTaskFromGovernance", "Compute governance: Pauses a compute node."),
            ("AddArtifact", "Adds a governance item."),
            ("UpdateArtifact", "Updates a governance item."),
            ("DeleteArtifact", "Deletes a governance item."),
            ("ChangeArtifactStatus", "Changes the status of a governance item."),
            ("ChangeArtifactOwner", "Changes the owner of a governance item."),
            ("AddPushTask", "Adds a governance push task."),
            ("UpdatePushTask", "Updates a governance push task."),
            ("DeletePushTask", "Deletes a governance push task."),
            ("ChangePushTaskOwner", "Changes the owner of a governance push task."),
            ("PausePushTask", "Pauses a governance push task."),
            ("testSendMessage", "Sends a test governance push message."),
            ("RerunPushTask", "Reruns a push task."),
            ("ResumeTable", "Restores a table."),
            ("RemoveTableFromGovernance", "Removes a table from asset governance."),
        ),
    ),
    (  # seed line 2253
        "Data service",
        (
            ("AdminReleaseLogicUnit", "Creates a service unit."),
            ("AdminUpdateLogicUnit", "Modifies a service unit."),
            ("AdminDeleteLogicUnit", "Deletes a service unit."),
            ("PublishServiceUnit", "Publishes a service unit."),
            ("AddAPI", "Creates an API."),
            ("AdminCreateAPI", "Creates an API."),
            ("AdminUpdateAPI", "Modifies an API."),
            ("AdminDeleteAPI", "Deletes an API."),
            ("TestAPI", "Tests an API."),
            ("AdminPreReleaseAPI", "Submits an API."),
            ("AdminReleaseAPI", "Publishes an API."),
            ("AdminUnbindAPI", "Revokes authorization for an API."),
            ("AdminCreateMetadata", "Adds service metadata."),
            ("AdminUpdateMetadata", "Modifies service metadata."),
            ("AdminDeleteMetadata", "Deletes service metadata."),
            ("AddDataphinDataSource", "Adds or modifies a Dataphin data source."),
            ("DeleteDataphinDataSource", "Deletes a Dataphin data source."),
            ("ChangeDataphinDataSourceStatus", "Sets the status of a Dataphin data source."),
            ("SetAPILimit", "Configures rate limiting for an API."),
            ("ConfigAPIMonitor", "Configures an API alert."),
            ("SuperAdminAddUser", "Adds a service member."),
            ("SuperAdminUpdateUser", "Modifies the role of a service member."),
            ("SuperAdminDeleteUser", "Deletes a service member."),
            ("AdminCreateApp", "Creates an application."),
            ("AdminUpdateApp", "Modifies an application."),
            ("AdminDeleteApp", "Deletes an application."),
            ("AdminAddAppMember", "Adds an application member."),
            (
                "AdminAddUpdateAppMember",
                "Updates an application member, including the member's role and validity period.",
            ),
            ("AdminAddDeleteAppMember", "Deletes an application member."),
            (
                "UpdateServiceUnitGroup",
                (
                    "Adds, modifies, or deletes a service unit group, application group, or "
                    "Dataphin data source group."
                ),
            ),
            (
                "ChangeDataService2ndLevelDomainStatus",
                (
                    "Enables or disables the public second-level domain name and VPC domain name "
                    "for a service."
                ),
            ),
            ("UpdateIndependentDomainforService", "Adds or modifies an independent domain name."),
            ("DeleteIndependentDomainforService", "Deletes an independent domain name."),
            ("UpdateVPCIDforService", "Adds, modifies, or deletes a VPC ID."),
            ("UpdateSystemConf", "Modifies the system configuration for a service."),
            ("ChangeLogAndMonitoringSettings", "Modifies the O&M monitoring configuration."),
            ("SetAPIGatewayForDataService", "Sets the API gateway for a data service."),
            ("CreateAccessKey", "Creates an AccessKey."),
            ("DeleteAccessKey", "Deletes an AccessKey."),
            ("EnableAccessKey", "Enables an AccessKey."),
        ),
    ),
    (  # seed line 2447
        "Tag platform",
        (
            ("QdOnlistingLabel", "Shelves a tag."),
            ("QdChangeCluster", "Edits a group."),
            ("QdCreateLabel", "Creates a tag."),
            ("QdOfflistingLabel", "Unshelves a tag."),
            ("QdOnlistingCluster", "Shelves a group."),
            ("QdOfflistingCluster", "Unshelves a group."),
            ("QdCreateView", "Creates a view."),
            ("QdChangeView", "Edits a view."),
            ("QdOnlineView", "Publishes a view."),
            ("QdCreateBehavior", "Creates a behavior."),
            ("QdChangeLabel", "Edits a tag."),
            ("QdDeleteLabel", "Deletes a tag."),
            ("QdOfflineView", "Unpublishes a view."),
            ("QdDeleteView", "Deletes a view."),
            ("QdOnlineBehavior", "Publishes a behavior."),
            ("QdOfflineBehavior", "Unpublishes a behavior."),
            ("QdDeleteBehavior", "Deletes a behavior."),
            ("QdChangeBehavior", "Edits a behavior."),
            ("QdCreateCluster", "Creates a group."),
            ("QdDeleteCluster", "Deletes a group."),
            ("SaveMarket", "Creates or edits a market."),
            ("DeleteMarket", "Deletes a market."),
            ("SaveEntity", "Creates or edits an entity."),
            ("DeleteEntity", "Deletes an entity."),
            ("SaveEntityID", "Creates or edits an entity ID."),
            ("DeleteEntityID", "Deletes an entity ID."),
            ("CreateTag", "Creates an offline tag."),
            ("EditTag", "Edits an offline tag."),
            ("DeleteTag", "Deletes an offline tag."),
            ("PublishTagOrGroup", "Publishes an offline tag."),
            ("UnpublishTagOrGroup", "Unpublishes an offline tag."),
            ("ShelveTag", "Shelves an offline tag."),
            ("UnShelveTag", "Unshelves an offline tag."),
            ("PublishAndShelveTagOrGroup", "Publishes and shelves a tag or group."),
            ("RemoveTagOrGroup", "Removes an applied offline tag, real-time tag, or group."),
            ("CreateVersion", "Creates a tag or group version."),
            ("EditVersion", "Edits a tag or group version."),
            ("SubmitVersion", "Submits a tag or group version."),
            ("WithdrawVersion", "Withdraws a tag or group version."),
            ("DeleteVersion", "Deletes a tag or group version."),
            ("CreateTag", "Creates a real-time tag."),
            ("EditTag", "Edits a real-time tag."),
            ("DeleteTag", "Deletes a real-time tag."),
            ("PublishTagOrGroup", "Publishes a real-time tag."),
            ("UnpublishTagOrGroup", "Unpublishes a real-time tag."),
            ("ShelveTag", "Shelves a real-time tag."),
            ("UnShelveTag", "Unshelves a real-time tag."),
            ("EditVersion", "Edits a real-time tag version."),
            ("SubmitVersion", "Submits a real-time tag version."),
            ("WithdrawVersion", "Withdraws a real-time tag version."),
            ("DeleteVersion", "Deletes a real-time tag version."),
            ("CreateGroup", "Creates a group."),
            ("EditGroup", "Edits a group."),
            ("DeleteGroup", "Deletes a group."),
            ("PublishTagOrGroup", "Publishes a group."),
            ("UnpublishTagOrGroup", "Unpublishes a group."),
            ("ShelveGroup", "Shelves a group."),
            ("UnShelveGroup", "Unshelves a group."),
            ("CreateVersion", "Creates a tag or group version."),
            ("SubmitVersion", "Submits a tag or group version."),
            ("WithdrawVersion", "Withdraws a tag or group version."),
            ("DeleteVersion", "Deletes a tag or group version."),
            ("CreateBehaviorRelation", "Creates a behavior relation."),
            ("EditBehaviorRelation", "Edits a behavior relation."),
            ("DeleteBehaviorRelation", "Deletes a behavior relation."),
            ("PublishBehaviorRelation", "Publishes a behavior relation."),
            ("UnPublishBehaviorRelation", "Unpublishes a behavior relation."),
            ("SaveTagOfflineServiceTask", "Creates or edits a tag offline service task."),
            ("DeleteTagOfflineServiceTask", "Deletes a tag offline service task."),
            ("PublishTagOfflineServiceTask", "Publishes a tag offline service task."),
            ("UnPublishTagOfflineServiceTask", "Unpublishes a tag offline service task."),
            ("SaveGroupOfflineServiceTask", "Creates or edits a group offline service task."),
            ("DeleteGroupOfflineServiceTask", "Deletes a group offline service task."),
            ("SaveGroupPageQueryServiceTask", "Creates or edits a group paginated query service."),
            ("DeleteGroupOfflineServiceTask", "Deletes a group offline service task."),
            ("PublishGroupOfflineServiceTask", "Publishes a group offline service task."),
            ("UnPublishGroupOfflineServiceTask", "Unpublishes a group offline service task."),
            ("CreateIndividualPortrait", "Creates an individual portrait."),
            ("EditIndividualPortrait", "Edits an individual portrait."),
            ("DeleteIndividualPortrait", "Deletes an individual portrait."),
            ("CreateApplication", "Creates an application."),
            ("EditApplication", "Edits an application."),
            ("DeleteApplication", "Deletes an application."),
            ("ApplyTagOrGroup", "Applies for a tag or group."),
            ("CreateTagAttribute", "Creates a tag attribute."),
            ("EditTagAttribute", "Edits a tag attribute."),
            ("DeleteTagAttribute", "Deletes a tag attribute."),
            ("OpenOrCloseTagAttribute", "Enables or disables a tag attribute."),
            ("EditTagsOrGroupCategory", "Batch edits the category of tags or groups."),
        ),
    ),
    (  # seed line 2811
        "Analysis platform",
        (
            ("AddNotebook", "Adds a Notebook."),
            ("DeleteNotebook", "Deletes a Notebook."),
            ("ShareNotebook", "Shares a Notebook."),
            ("DeleteShareNotebook", "Deletes a shared Notebook."),
            ("CreateSQLQuery", "Creates an SQL query."),
            ("DeleteSQLQuery", "Deletes an SQL query."),
            ("ShareSQLQuery", "Shares an SQL query."),
            ("DeleteShareSQLQuery", "Deletes a shared SQL query."),
            ("CreateManualTable", "Creates a manual table."),
            ("PublishManualTable", "Publishes a manual table."),
            (
                "TransferToGeneralPhysicalTable",
                "Converts a manual table to a general physical table.",
            ),
            ("DeleteManualTable", "Deletes a manual table."),
            ("HandoverManualTable", "Changes the owner of a manual table."),
            ("ShareManualTable", "Shares a manual table."),
        ),
    ),
    (  # seed line 2879
        "Asset operation",
        (
            (
                "UpdateAssetTopicCatalog",
                "Updates an asset topic catalog. The log contains only the modified catalog.",
            ),
            ("PublishAssetTopicCatalog", "Publishes an asset topic catalog."),
            ("UpdateAssetAttribute", "Updates asset attributes."),
            ("UpdateAssetMaintenancePermission", "Updates asset maintenance permissions."),
            ("ListAssets", "Lists assets."),
            ("UnlistAssets", "Unlists assets."),
            ("SuspendListAsset", "Suspends the listing of an asset."),
            ("CreateListRulesGroup", "Creates a rule group."),
            (
                "UpdateListRulesGroup",
                "Updates a rule group. This operation does not change the rule order.",
            ),
            ("DeleteListRulesGroup", "Deletes a rule group."),
            ("ManuallyRunListRules", "Manually runs all rules in a rule group."),
            ("ManuallyKillListRules", "Manually stops all rules in a rule group."),
            ("CreateListRule", "Creates a rule."),
            ("UpdateListRule", "Updates a rule, including its activation status."),
            ("DeleteListRule", "Deletes a rule."),
        ),
    ),
    (  # seed line 2951
        "Alert Center",
        (
            ("SuspendAlert", "Suspends an alert."),
            ("CreateShiftSchedule", "Creates a shift schedule."),
            ("UpdateShiftSchedule", "Updates a shift schedule."),
            ("DeleteShiftSchedule", "Deletes a shift schedule."),
            ("UpdateMessageTemplate", "Updates a message template."),
        ),
    ),
    (  # seed line 2983
        "Notification center",
        (
            ("ApplyPrivilege", "Submits an approval ticket."),
            ("TransferApplicationForm", "Transfers an approval ticket."),
            ("ApprovePrivilege", "Approves or rejects an approval ticket."),
            ("SignApplicationForm", "Adds a signer to an approval ticket."),
            ("mtaskCallBack", "Executes a callback after an approval ticket is approved."),
        ),
    ),
)


def _first_listings() -> dict[str, tuple[str, str]]:
    catalogue: dict[str, tuple[str, str]] = {}
    for module, events in _LISTINGS:
        for name, description in events:
            catalogue.setdefault(name, (module, description))
    return catalogue


def _other_listings() -> dict[str, tuple[tuple[str, str], ...]]:
    others: dict[str, list[tuple[str, str]]] = {}
    for module, events in _LISTINGS:
        for name, description in events:
            if (module, description) != CATALOGUE[name] and (module, description) not in (
                others.get(name, [])
            ):
                others.setdefault(name, []).append((module, description))
    return {name: tuple(rows) for name, rows in others.items()}


CATALOGUE: dict[str, tuple[str, str]] = _first_listings()
"""event_name -> (module, description) of its first listing in the document."""
ALSO_LISTED: dict[str, tuple[tuple[str, str], ...]] = _other_listings()
"""event_name -> its further, different listings (the same name in another module or table)."""

KINDS: frozenset[str] = frozenset(CATALOGUE)


# ---------------------------------------------------------------------------------------------
# field coercions specific to Dataphin
# ---------------------------------------------------------------------------------------------


def _split_user_identity(value: Any) -> Any:
    """``username:internal user id:tenant id:original account id`` -> its four parts.

    The username comes from the member list and may itself contain ``:``, so the last three parts
    are split from the right. Fewer than four parts is a malformed value (a field error).
    """
    if value is None or value == "" or isinstance(value, dict):
        return value or None
    if not isinstance(value, str):
        raise ValueError(f"expected 'username:user id:tenant id:account id', got {value!r}")
    parts = value.rsplit(":", 3)
    if len(parts) != 4:
        raise ValueError(
            f"expected 'username:user id:tenant id:account id' (4 parts), got {value!r}"
        )
    user_name, user_id, tenant_id, account_id = (part.strip() or None for part in parts)
    return {
        "user_name": user_name,
        "user_id": user_id,
        "tenant_id": tenant_id,
        "account_id": account_id,
        "raw": value,
    }


def _lenient_json(value: Any) -> Any:
    """``request_parameter``: JSON text becomes an object; anything else is kept as given."""
    if isinstance(value, str) and value.strip()[:1] in ("{", "["):
        try:
            return json.loads(value)
        except json.JSONDecodeError:
            return value
    return value


def _status(value: Any) -> Any:
    return value.strip().upper() if isinstance(value, str) else value


_FAILED = frozenset({"FAIL", "FAILED", "FAILURE"})
_SUCCEEDED = frozenset({"SUCCESS", "SUCCEEDED"})


# ---------------------------------------------------------------------------------------------
# models
# ---------------------------------------------------------------------------------------------


class UserIdentity(EventModel):
    """Who acted: a Dataphin member, as ``username:internal user id:tenant id:account id``."""

    user_name: str | None = None
    """Username from the member list in the Dataphin management center."""
    user_id: Id = None
    """Dataphin internal user ID (the actor)."""
    tenant_id: Id = None
    """Dataphin tenant ID."""
    account_id: Id = None
    """Account in the source account system integrated with Dataphin."""
    raw: str | None = None
    """The ``user_identity`` text as logged."""


class DataphinEvent(EventModel):
    """One Dataphin audit log record: a user's operation in a Dataphin module (see CATALOGUE)."""

    log_time: Timestamp = Field(None, alias="log_time")
    """When the log was recorded (``2021-09-06 16:23:16``)."""
    date: dt.date | None = Field(None, alias="date")
    """Date the log was generated (``2021-09-06``)."""
    time: dt.time | None = Field(None, alias="time")
    """Time of day the log was generated (``16:23:16.062``)."""
    event_id: Id = Field(alias="event_id")
    """The event ID."""
    event_name: str = Field(alias="event_name")
    """The event name: the kind, one of CATALOGUE's names for known events."""
    event_source: str | None = Field(None, alias="event_source")
    """The event source: the Dataphin API URL that was called."""
    event_status: Annotated[str | None, BeforeValidator(_status)] = Field(
        None, alias="event_status"
    )
    """``SUCCESS`` or ``FAIL``."""
    event_version: str | None = Field(None, alias="event_version")
    """Reserved, unused (``N/A``)."""
    user_identity: Annotated[UserIdentity | None, BeforeValidator(_split_user_identity)] = Field(
        None, alias="user_identity"
    )
    """Who acted, split into its four parts."""
    source_ip: StrList = Field(default_factory=list, alias="source_ip")
    """Browser or client IP addresses (a comma-separated list on the wire)."""
    user_agent: str | None = Field(None, alias="user_agent")
    """User agent of the access source; often omitted for non-browser clients."""
    trace_id: str | None = Field(None, alias="trace_id")
    """Unique trace ID of the request."""
    span_id: str | None = Field(None, alias="span_id")
    """Reserved, unused (``0``)."""
    response_element: Base64Text = Field(None, alias="response_element")
    """Elements of the response (base64 on the wire, decoded here)."""
    resource_id: Id = Field(None, alias="resource_id")
    """ID of the resource acted on, such as a code task ID or a logical table ID."""
    resource_name: str | None = Field(None, alias="resource_name")
    """Name of the resource; omitted when the event involves no resource."""
    resource_type: str | None = Field(None, alias="resource_type")
    """Type of the resource (``File``, ...)."""
    region: str | None = Field(None, alias="region")
    """Region of the Dataphin instance."""
    additional_event_data: Base64Text = Field(None, alias="additional_event_data")
    """Additional custom information (base64 on the wire, decoded here); empty by default."""
    tenant_id: Id = Field(None, alias="tenant_id")
    """The Dataphin tenant ID."""
    request_parameter: Annotated[Any, BeforeValidator(_lenient_json)] = Field(
        None, alias="request_parameter"
    )
    """The request parameters as logged (the doc names it only as request_parameter_json's
    source); JSON text is parsed, anything else kept."""
    request_parameter_json: JsonValue = Field(None, alias="request_parameter_json")
    """request_parameter as JSON (for ActionTrail compatibility), parsed."""
    user_identity_json: JsonValue = Field(None, alias="user_identity_json")
    """user_identity as JSON (for ActionTrail compatibility), parsed."""
    sls_time: LenientTime = Field(None, alias="__time__")
    """Log Service receive time (epoch seconds) added to exported logs."""
    sls_source: str | None = Field(None, alias="__source__")
    """Log Service source (the collecting host or IP) added to exported logs."""
    sls_topic: str | None = Field(None, alias="__topic__")
    """Log Service topic added to exported logs."""

    @property
    def failed(self) -> bool | None:
        """True for ``FAIL``, False for ``SUCCESS``, None when the status is absent or other."""
        if self.event_status in _FAILED:
            return True
        if self.event_status in _SUCCEEDED:
            return False
        return None

    @property
    def event_time(self) -> dt.datetime | None:
        """When it happened: ``date`` + ``time`` (generated), else ``log_time``, else SLS time.

        Dataphin's times carry no zone: like every naive time here they are taken as UTC.
        """
        if self.date is not None and self.time is not None:
            return dt.datetime.combine(self.date, self.time.replace(tzinfo=None), dt.timezone.utc)
        if self.log_time is not None:
            return self.log_time
        if self.sls_time is not None:
            return self.sls_time
        if self.date is not None:
            return dt.datetime.combine(self.date, dt.time(), dt.timezone.utc)
        return None

    @property
    def actor(self) -> str | None:
        """The Dataphin internal user ID of whoever acted, when the record names one."""
        return self.user_identity.user_id if self.user_identity else None


class UnknownDataphinEvent(DataphinEvent):
    """A record whose event_name is not in the catalogue: generic activity, all fields optional."""

    event_id: Id = Field(None, alias="event_id")


MODELS: dict[str, type[DataphinEvent]] = {kind: DataphinEvent for kind in sorted(KINDS)}


# ---------------------------------------------------------------------------------------------
# envelopes
# ---------------------------------------------------------------------------------------------

_ENVELOPES: dict[str, tuple[frozenset[str], frozenset[str]]] = {
    # name: (keys that must all be present, keys of which at least one must be present)
    "log": (
        frozenset({"event_name"}),
        frozenset({"event_id", "user_identity", "user_identity_json", "log_time", "trace_id"}),
    ),
}
"""Envelope signatures. Dataphin's snake_case field names do not occur in the other sources'
records (DataWorks CloudEvent/FC messages, MaxCompute ActionTrail ``eventName``, DataHub ECE)."""


def detect(doc: dict[str, Any]) -> str | None:
    """The envelope name when ``doc`` is a Dataphin audit log record, else None."""
    if not isinstance(doc, dict):
        return None
    for name, (all_of, any_of) in _ENVELOPES.items():
        if all_of.issubset(doc) and not any_of.isdisjoint(doc):
            return name
    return None


def parse(doc: dict[str, Any], envelope: str) -> ParsedEvent:
    """Validate one record; an event_name outside the catalogue comes back with known=False."""
    if envelope not in _ENVELOPES:
        raise RecordError(f"unknown Dataphin envelope {envelope!r}", field="envelope")
    kind = str(require(doc, "event_name")).strip()
    known = kind in KINDS
    model = MODELS.get(kind, UnknownDataphinEvent).model_validate(doc)
    return ParsedEvent(
        source=SOURCE,
        kind=kind,
        envelope=envelope,
        model=model,
        event_id=model.event_id,
        event_time=model.event_time,
        actor=model.actor,
        known=known,
    )
