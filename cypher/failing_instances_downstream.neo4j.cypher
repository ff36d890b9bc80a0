// Failed task instances downstream of a change (Neo4j 5.21+: shortest-path search)
// Answers: After this change, which scheduled task instances failed among the nodes that read the
//   changed table or any table downstream of it? (Did the change break the pipeline?)
// Parameters:
//   $change_id  a Change record's id, e.g. the demo's schema change on dwd_orders,
//               '8f173bf9e47facd9721999794acbbc18' (find ids with changes_this_week.cypher)
// Example (Neo4j Browser):
//   :param change_id => '8f173bf9e47facd9721999794acbbc18'

// Downstream is taken on the graph as it was just before the change (as `lineage blast-radius`
// does: a dropped table still has its readers): the changed table and the tables it FEEDS (25
// hops at most), the nodes (or anything else) that READ one of them, and their instances
// (HAS_INSTANCE) that began at or after the change and failed: DataWorks status 5, exported as
// status 'failure' (status_code '5'). `distance` = hops from the changed table to the node.
// Failed MaxCompute jobs are not listed: a failed job's vertex says status 'failed', but a failed
// run asserts no lineage (no READS), so it is never one of the readers matched here.
// Neo4j-only variant of failing_instances_downstream.cypher (same columns and answer): the FEEDS
// walk uses SHORTEST 1 with inline predicates, a breadth-first search per downstream table, where
// the portable query enumerates every path and keeps the shortest (exponential on lineage full of
// diamonds, and the changed table is often a hub).
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
