// Downstream blast radius of a table (Neo4j 5.21+: shortest-path search)
// Answers: If this table breaks, what is downstream and who will notice, at the fewest hops? Past
//   runs (job runs, instances) are not affected: what runs again is. Only a 'breaks' change walks
//   downstream (change_impact.cypher answers for any change).
// Parameters:
//   $table_id  the changed table, e.g. 'table:maxcompute:retail_dw.ods_users'
//   $as_of     the moment whose graph to look at (UTC), e.g. '2024-07-08T00:00:00Z'
// Example (Neo4j Browser):
//   :param table_id => 'table:maxcompute:retail_dw.ods_users'
//   :param as_of => '2024-07-08T00:00:00Z'

// Neo4j-only variant of downstream_blast_radius.cypher (SHORTEST); notes: docs/cypher.md#downstream-blast-radius
WITH CASE size($as_of) WHEN 10 THEN $as_of + 'T00:00:00.000000Z'
                       WHEN 20 THEN substring($as_of, 0, 19) + '.000000Z'
                       ELSE $as_of END AS as_of
MATCH (source:Table {id: $table_id})
WHERE source.first_seen <= as_of AND (source.deleted_at IS NULL OR source.deleted_at > as_of)
// 1. tables downstream along FEEDS, valid at as_of, at their fewest hops
OPTIONAL MATCH p = ALL SHORTEST (source) (()-[f:FEEDS]->(n:Table)
                   WHERE f.valid_from <= as_of AND (f.valid_to IS NULL OR f.valid_to > as_of)
                     AND (n.deleted_at IS NULL OR n.deleted_at > as_of)){1,25} (t:Table)
WHERE t <> source
WITH as_of, source, t, length(p) AS hops, nodes(p)[-2].id AS previous
WITH as_of, source, t, min(hops) AS distance, collect([hops, previous]) AS ways
WITH as_of, source, collect([w IN ways WHERE t IS NOT NULL AND w[0] = distance
                             | {node: t, distance: distance, rel: 'FEEDS', from: w[1]}]) AS found
UNWIND reduce(acc = [{node: source, distance: 0, rel: null, from: null}], l IN found | acc + l) AS table
WITH as_of, table, table.node AS t, table.distance AS d
// 2. around each affected table: readers (and their owners and baselines), owners, grantees
WITH table, d, t,
  [(x)-[r:READS]->(t)
     WHERE r.valid_from <= as_of AND (r.valid_to IS NULL OR r.valid_to > as_of)
       AND (x.deleted_at IS NULL OR x.deleted_at > as_of)
       AND NOT x.id STARTS WITH 'job:maxcompute:' AND NOT (x:Instance OR x:Dag)
     | {node: x, distance: d + 1, rel: 'READS', from: t.id}] +
  [(o)-[w:OWNS]->(x)-[r:READS]->(t)
     WHERE r.valid_from <= as_of AND (r.valid_to IS NULL OR r.valid_to > as_of)
       AND w.valid_from <= as_of AND (w.valid_to IS NULL OR w.valid_to > as_of)
       AND (x.deleted_at IS NULL OR x.deleted_at > as_of) AND (o.deleted_at IS NULL OR o.deleted_at > as_of)
     | {node: o, distance: d + 2, rel: 'OWNS', from: x.id}] +
  [(b)<-[ib:IN_BASELINE]-(x)-[r:READS]->(t)
     WHERE r.valid_from <= as_of AND (r.valid_to IS NULL OR r.valid_to > as_of)
       AND ib.valid_from <= as_of AND (ib.valid_to IS NULL OR ib.valid_to > as_of)
       AND (x.deleted_at IS NULL OR x.deleted_at > as_of) AND (b.deleted_at IS NULL OR b.deleted_at > as_of)
     | {node: b, distance: d + 2, rel: 'IN_BASELINE', from: x.id}] +
  [(o)-[w:OWNS]->(t)
     WHERE w.valid_from <= as_of AND (w.valid_to IS NULL OR w.valid_to > as_of)
       AND (o.deleted_at IS NULL OR o.deleted_at > as_of)
     | {node: o, distance: d + 1, rel: 'OWNS', from: t.id}] +
  [(g)-[a:CAN_ACCESS]->(t)
     WHERE a.valid_from <= as_of AND (a.valid_to IS NULL OR a.valid_to > as_of)
       AND (g.deleted_at IS NULL OR g.deleted_at > as_of)
     | {node: g, distance: d + 1, rel: 'CAN_ACCESS', from: t.id}] +
  [(m)-[h:HAS_ROLE]->(g)-[a:CAN_ACCESS]->(t)
     WHERE a.valid_from <= as_of AND (a.valid_to IS NULL OR a.valid_to > as_of)
       AND h.valid_from <= as_of AND (h.valid_to IS NULL OR h.valid_to > as_of)
       AND (g.deleted_at IS NULL OR g.deleted_at > as_of) AND (m.deleted_at IS NULL OR m.deleted_at > as_of)
     | {node: m, distance: d + 2, rel: 'HAS_ROLE', from: g.id}] AS around
UNWIND CASE WHEN d = 0 THEN around ELSE [table] + around END AS hit
// 3. one row per affected vertex, at its fewest hops
WITH hit.node AS n, min(hit.distance) AS distance, collect(hit) AS hits
UNWIND [h IN hits WHERE h.distance = distance] AS nearest
RETURN distance, n.label AS label, n.id AS id, n.name AS name,
       collect(DISTINCT nearest.rel) AS reached_by, collect(DISTINCT nearest.from) AS from
ORDER BY distance, id
