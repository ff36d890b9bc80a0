// Failed task instances downstream of a change (Neo4j 5.21+: shortest-path search)
// Answers: After this change, which scheduled task instances failed among the nodes that read the
//   changed table or any table downstream of it? (Did the change break the pipeline?)
// Parameters:
//   $change_id  a Change record's id, e.g. the demo's schema change on dwd_orders,
//               '8f173bf9e47facd9721999794acbbc18' (find ids with changes_this_week.cypher)
// Example (Neo4j Browser):
//   :param change_id => '8f173bf9e47facd9721999794acbbc18'

// Neo4j-only variant of failing_instances_downstream.cypher (SHORTEST); notes: docs/cypher.md#failing-instances-downstream
MATCH (c:Change {id: $change_id})-[:CHANGES]->(changed)
OPTIONAL MATCH p = SHORTEST 1 (changed) (()-[f:FEEDS]->(n)
                   WHERE f.valid_from < c.time AND (f.valid_to IS NULL OR f.valid_to >= c.time)
                     AND (n.deleted_at IS NULL OR n.deleted_at >= c.time)){1,25} (t:Table)
WHERE t <> changed AND (changed.deleted_at IS NULL OR changed.deleted_at >= c.time)
WITH c, changed, t, min(length(p)) AS hops
WITH c, changed, collect(CASE WHEN t IS NOT NULL THEN {table: t, hops: hops} END) AS downstream
UNWIND [{table: changed, hops: 0}] + downstream AS hit
WITH c, hit.table AS t, hit.hops AS hops
MATCH (reader)-[r:READS]->(t)
WHERE r.valid_from < c.time AND (r.valid_to IS NULL OR r.valid_to >= c.time)
  AND (reader.deleted_at IS NULL OR reader.deleted_at >= c.time)
WITH c, reader, min(hops) + 1 AS distance, collect(t.id) AS reads
MATCH (reader)-[:HAS_INSTANCE]->(i:Instance)
WHERE i.first_seen >= c.time AND (i.status = 'failure' OR i.status_code = '5')
OPTIONAL MATCH (i)-[:IN_DAG]->(dag)
RETURN i.id AS instance, i.status AS status, i.first_seen AS began, i.last_seen AS last_seen,
       reader.id AS node, reader.name AS node_name, distance, reads, dag.id AS dag, c.time AS changed_at
ORDER BY began, instance
