"""Canonical vertex ids (DESIGN.md's contract) and the fixed label vocabulary.

``<label-lowercase>:<namespace>:<key>``. Every source names the same MaxCompute table, user or
project in its own way (DataWorks GUIDs ``odps.<project>.<table>``, MaxCompute ``ProjectName`` +
``TableName``, DataHub dataset URNs); the functions here are the only place those spellings
become one id, so identity resolution is a property of the id, not of a later merge.
MaxCompute and DataHub names are case-insensitive: they are lower-cased.
"""

from __future__ import annotations

import re
from urllib.parse import urlsplit

# label (as stored and exported) -> id prefix. Labels and relationship types of the graph come
# only from these tables, never from event text (they become Neo4j labels/types).
LABELS: dict[str, str] = {
    "Table": "table",
    "Column": "column",
    "User": "user",
    "Role": "role",
    "Label": "label",
    "Project": "project",
    "Node": "node",
    "Instance": "instance",
    "Dag": "dag",
    "Flow": "flow",
    "Baseline": "baseline",
    "File": "file",
    "Job": "job",
    "Tag": "tag",
    "GlossaryTerm": "glossaryterm",
    "Domain": "domain",
    "QualityRule": "qualityrule",
    "Dashboard": "dashboard",
    "Chart": "chart",
    "DataFlow": "dataflow",
    "DataJob": "datajob",
    "StructuredProperty": "structuredproperty",
    "Proposal": "proposal",
    "Approval": "approval",
    "Resource": "resource",
    "Function": "function",
    "Entity": "entity",
    "Location": "location",
}
LABEL_OF_PREFIX: dict[str, str] = {prefix: label for label, prefix in LABELS.items()}
RUN_PREFIXES: tuple[str, ...] = ("instance:", "dag:", "job:maxcompute:")
"""Ids of runs (DESIGN.md, *Definitions and runs*): a DataWorks instance, an OpenLineage run (both
``instance:``), a DAG run, a MaxCompute job run. A run happened once: what a change reaches walks
through runs (to what they wrote, their workflow, an ad-hoc run's author) but never lists one."""


def is_run(vertex_id: str) -> bool:
    """Whether an id names a run (:data:`RUN_PREFIXES`), not a definition that runs again."""
    return vertex_id.startswith(RUN_PREFIXES)

RELATIONSHIPS: frozenset[str] = frozenset({
    "CAN_ACCESS", "HAS_ROLE", "MEMBER_OF", "OWNS", "READS", "WRITES", "FEEDS", "HAS_INSTANCE",
    "IN_DAG", "IN_FLOW", "IN_BASELINE", "DEFINES", "HAS_COLUMN", "TAGGED", "HAS_TERM", "IN_DOMAIN",
    "CHECKS", "DOWNLOADED", "UPLOADED", "IN_PROJECT", "HAS_LABEL", "HAS_PROPERTY", "PROPOSED",
    "CONTAINS",
})
"""Edge relationship types (DESIGN.md's list plus HAS_LABEL for MaxCompute label security,
HAS_PROPERTY for DataHub structured properties, PROPOSED for pending action requests and
CONTAINS for DataHub containment such as dashboard -> chart)."""

CHANGE_KINDS: frozenset[str] = frozenset({
    "create", "schema_change", "drop", "deprecation", "undeprecation", "field_removal", "column_type_change",
    "node_create", "node_update", "node_delete", "node_deploy", "node_undeploy", "node_freeze",
    "node_unfreeze", "project_deletion", "permission_change", "owner_change", "tag_change",
    "term_change", "domain_change", "partition_drop", "truncate", "partition_change", "lifecycle_change",
})
"""Kinds of Change records (the inputs of blast radius and the weekly report)."""


def norm(value: object) -> str:
    """Case-insensitive names (MaxCompute, DataHub) compare lower-cased and stripped."""
    return str(value).strip().lower()


def make(label: str, namespace: str, key: str) -> str:
    return f"{LABELS[label]}:{namespace}:{key}"


def label_of(vertex_id: str) -> str:
    """The label a canonical id belongs to (``table:maxcompute:p.t`` -> ``Table``)."""
    prefix = vertex_id.split(":", 1)[0]
    return LABEL_OF_PREFIX.get(prefix, "Entity")


def key_of(vertex_id: str) -> str:
    """The key part of a canonical id: what a vertex is called when nothing better is known."""
    parts = vertex_id.split(":", 2)
    return parts[2] if len(parts) == 3 else vertex_id


# --------------------------------------------------------------------------------------------
# tables
# --------------------------------------------------------------------------------------------

MAXCOMPUTE_PLATFORMS = frozenset({"maxcompute", "odps"})
"""DataHub platform names / DataWorks table types that mean a MaxCompute table."""


def table(project: str, name: str, platform: str = "maxcompute") -> str:
    """``table:maxcompute:<project>.<table>``; a name already qualified keeps its own project."""
    name = norm(name)
    if "." in name and norm(platform) in MAXCOMPUTE_PLATFORMS:
        return make("Table", "maxcompute", name)
    platform = "maxcompute" if norm(platform) in MAXCOMPUTE_PLATFORMS else norm(platform)
    return make("Table", platform, f"{norm(project)}.{name}" if project else name)


def table_from_qualified(qualified: str, default_project: str | None = None) -> str | None:
    """``project.table`` (or a bare ``table`` with a default project) -> a MaxCompute table id."""
    text = norm(qualified).strip("`")
    if not text:
        return None
    parts = [p.strip("`") for p in text.split(".")]
    if len(parts) == 1:
        return make("Table", "maxcompute", f"{norm(default_project)}.{parts[0]}") if default_project else None
    if len(parts) == 3:  # project.schema.table (MaxCompute schemas): keep all three levels
        return make("Table", "maxcompute", ".".join(parts))
    return make("Table", "maxcompute", ".".join(parts[-2:]))


_DATAWORKS_GUID = re.compile(r"^(odps|maxcompute)\.(?P<rest>.+)$", re.IGNORECASE)


def table_from_guid(guid: str) -> str | None:
    """DataWorks table GUIDs: ``odps.<project>.<table>`` (the MaxCompute table); else None."""
    match = _DATAWORKS_GUID.match(guid.strip())
    if not match:
        return None
    rest = match.group("rest")
    return table_from_qualified(rest) if "." in rest else None


OSS_ENDPOINT_SUFFIX = ".aliyuncs.com"
"""OSS names a bucket either in the path after an endpoint (``oss://oss-cn-hangzhou-internal.aliyuncs.com/
bucket/p``, MaxCompute's LOCATION form) or as the endpoint's first label (``oss://bucket.oss-cn-...``)."""
SCHEME_ALIASES = {"s3a": "s3", "s3n": "s3"}
"""Connectors that name the same object store."""
DEFAULT_FS = "hdfs"
"""A path without a scheme is on the cluster's default file system (``fs.defaultFS``): assumed HDFS."""


def location_uri(path: str, local: bool = False) -> str | None:
    """A storage path as ``<scheme>://<bucket>/<path>``: one spelling per place, so two jobs naming
    it differently meet at one vertex. Scheme and bucket lower-cased, the path's case kept (object
    keys are case-sensitive), ``//`` and a trailing ``/`` dropped, and trailing Hive partition
    directories (``ds=20240101``) dropped: lineage is kept per dataset, as it is per table, not per
    partition. ``local`` (``LOAD DATA LOCAL``, ``LOCAL DIRECTORY``): a path on the client, ``file``."""
    text = str(path).strip().strip("'\"`").strip()
    if not text:
        return None
    parts = urlsplit(text)
    scheme = parts.scheme.lower()
    bucket, key = parts.netloc.lower(), parts.path
    if not scheme:
        scheme = "file" if local else DEFAULT_FS
    scheme = SCHEME_ALIASES.get(scheme, scheme)
    if scheme == "oss" and bucket.endswith(OSS_ENDPOINT_SUFFIX):
        if bucket.startswith("oss-"):  # endpoint host: the bucket is the first path segment
            first, _, key = key.lstrip("/").partition("/")
            bucket = first.lower()
        else:
            bucket = bucket.split(".", 1)[0]
    segments = [s for s in key.split("/") if s]
    while segments and "=" in segments[-1]:
        segments.pop()
    return f"{scheme}://{bucket}/{'/'.join(segments)}".rstrip("/") if segments else f"{scheme}://{bucket}"


def location(path: str, local: bool = False) -> str | None:
    """``location:<scheme>://<bucket>/<path>`` (DESIGN.md): data read from or written to a storage path."""
    uri = location_uri(path, local)
    return f"{LABELS['Location']}:{uri}" if uri else None


def column(table_id: str, field: str) -> str:
    """``column:<platform>:<project>.<table>.<field>`` from the table's id."""
    _, platform, key = table_id.split(":", 2)
    return f"column:{platform}:{key}.{norm(field)}"


# --------------------------------------------------------------------------------------------
# principals, projects, roles
# --------------------------------------------------------------------------------------------


def aliyun_user(uid: str) -> str:
    return make("User", "aliyun", str(uid).strip())


def maxcompute_user(account: str) -> str:
    """``aliyun$bob@aliyun.com``, ``ram$x@y.com:sub``: MaxCompute account names, lower-cased."""
    return make("User", "maxcompute", norm(account))


def dataphin_user(internal_id: str) -> str:
    return make("User", "dataphin", str(internal_id).strip())


def datahub_user(corpuser: str) -> str:
    """``urn:li:corpuser:bob`` or ``bob`` -> ``user:datahub:bob``."""
    text = str(corpuser).strip()
    for prefix in ("urn:li:corpuser:", "urn:li:corpGroup:", "urn:li:corpgroup:"):
        if text.startswith(prefix):
            text = text[len(prefix):]
    return make("User", "datahub", norm(text))


def maxcompute_project(name: str) -> str:
    return make("Project", "maxcompute", norm(name))


def dataworks_project(workspace_id: str) -> str:
    return make("Project", "dataworks", str(workspace_id).strip())


def role(project: str, name: str) -> str:
    return make("Role", "maxcompute", f"{norm(project)}.{norm(name)}")


def dataworks(label: str, key: object) -> str:
    """DataWorks objects keyed by their numeric id: Node, Instance, Dag, Flow, Baseline, File."""
    return make(label, "dataworks", str(key).strip())


def datahub(label: str, key: object) -> str:
    """DataHub objects by urn key, case kept (urns are case-sensitive): Tag, GlossaryTerm,
    Domain, StructuredProperty, Proposal, Chart/Dashboard/DataFlow/DataJob (``<platform>.<name>``)."""
    return make(label, "datahub", str(key).strip())


# --------------------------------------------------------------------------------------------
# OpenLineage (DESIGN.md's OpenLineage rule; the README's table of examples)
# --------------------------------------------------------------------------------------------

OPENLINEAGE_STORAGE = frozenset({"oss", "s3", "s3a", "s3n", "gs", "hdfs", "abfss", "file", "dbfs"})
"""Namespace schemes whose datasets are storage paths (``location:``), not tables."""


def _ol_namespace(namespace: str) -> tuple[str, str]:
    """(scheme, authority) of an OpenLineage dataset namespace: ``postgres://db:5432`` ->
    (``postgres``, ``db:5432``); one without ``://`` is all scheme (``bigquery``, ``file``)."""
    text = str(namespace).strip()
    scheme, sep, rest = text.partition("://")
    if not sep:
        return norm(text), ""
    return norm(scheme), rest.split("/", 1)[0]


def openlineage_maxcompute(namespace: str, name: str) -> str | None:
    """The MaxCompute table an OpenLineage dataset names (namespace ``maxcompute://...`` or
    ``odps://...``), else None. ``project.table`` (or ``project.schema.table``) is the name; a bare
    table takes its project from a namespace authority that is not a host (``odps://sales_dw``)."""
    scheme, authority = _ol_namespace(namespace)
    if scheme not in MAXCOMPUTE_PLATFORMS:
        return None
    project = authority if authority and "." not in authority and ":" not in authority else None
    return table_from_qualified(name, project)


def openlineage_dataset(namespace: str, name: str, symlinks: list[tuple[str, str]] | None = None) -> str:
    """The vertex an OpenLineage dataset ``(namespace, name)`` is, lower-cased (DESIGN.md):

    * a ``symlinks`` identifier (namespace, name) naming a MaxCompute table wins;
    * a MaxCompute namespace: ``table:maxcompute:<project>.<table>``;
    * a storage namespace (:data:`OPENLINEAGE_STORAGE`): the :func:`location` of
      ``<scheme>://<authority>/<name>`` (one ``/`` between), so it meets the paths SQL names;
    * any other: ``table:<scheme>:<name>``, host and port dropped.
    """
    for sym_namespace, sym_name in symlinks or ():
        found = openlineage_maxcompute(sym_namespace, sym_name)
        if found:
            return found
    found = openlineage_maxcompute(namespace, name)
    if found:
        return found
    scheme, authority = _ol_namespace(namespace)
    if scheme in OPENLINEAGE_STORAGE:
        path = str(name).strip()
        place = location(f"{scheme}://{authority}/{path.lstrip('/')}")
        if place:
            return place
    return make("Table", scheme, norm(name))


def openlineage_column(dataset_id: str, field: str) -> str:
    """A field of an OpenLineage dataset: ``column:<platform>:<key>.<field>`` for a table,
    ``column:<scheme>:<authority>/<path>.<field>`` for a storage location; lower-cased."""
    if label_of(dataset_id) == "Location":
        scheme, _, rest = key_of_location(dataset_id).partition("://")
        return f"column:{scheme}:{norm(rest)}.{norm(field)}"
    return column(dataset_id, field)


def key_of_location(location_id: str) -> str:
    """``location:s3://b/p`` -> ``s3://b/p``."""
    return location_id.split(":", 1)[1]


def openlineage_job(namespace: str, name: str) -> str:
    """``job:openlineage:<namespace>/<name>`` (lower-cased)."""
    return make("Job", "openlineage", f"{norm(namespace)}/{norm(name)}")


def openlineage_run(run_id: str) -> str:
    """``instance:openlineage:<runId>``: a run is an Instance of its Job."""
    return make("Instance", "openlineage", norm(run_id))


def openlineage_user(owner: str) -> str:
    """An ownership facet's owner (``user:jdoe``, ``team:data``) -> ``user:openlineage:jdoe`` /
    ``user:openlineage:team:data`` (a ``user:`` prefix is the facet's convention, dropped)."""
    text = norm(owner)
    return make("User", "openlineage", text[5:] if text.startswith("user:") else text)
