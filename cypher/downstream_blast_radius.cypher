// Downstream blast radius of a table
// Answers: If this table breaks, what is downstream and who will notice, at the fewest hops?
//   Past runs are not affected: what runs again is.
// Parameters:
//   $table_id  the changed table
//   $as_of     the moment whose graph to look at (UTC)
// Example (Neo4j Browser):
//   :param table_id => 'table:maxcompute:retail_dw.ods_users'
//   :param as_of => '2024-07-08T00:00:00Z'

// Notes: docs/cypher.md#downstream-blast-radius
WITH CASE size($as_of) WHEN 10 THEN $as_of + 'T00:00:00.000000Z'
    WHEN 20 THEN substring($as_of, 0, 19) + '.000000Z'
    ELSE $as_of END AS at
MATCH (source:Table {id: $table_id})
WHERE source.first_seen <= at AND coalesce(source.deleted_at, 'z') > at
OPTIONAL MATCH p = (source)-[:FEEDS*1..25]->(t:Table)
WHERE all(f IN relationships(p) WHERE f.valid_from <= at AND coalesce(f.valid_to, 'z') > at)
  AND all(n IN nodes(p) WHERE coalesce(n.deleted_at, 'z') > at) AND t <> source
WITH at, source, t, length(p) AS hops, nodes(p)[length(p) - 1].id AS previous
WITH at, source, t, min(hops) AS distance, collect([hops, previous]) AS ways
WITH at, source, collect([w IN ways WHERE t IS NOT NULL AND w[0] = distance
    | {node: t, distance: distance, rel: 'FEEDS', from: w[1]}]) AS found
UNWIND reduce(acc = [{node: source, distance: 0, rel: null, from: null}], l IN found | acc + l) AS table
WITH at, table, table.node AS t, table.distance AS d
WITH at, table, d, t, [] AS around
WITH at, table, d, t, around +
  [(x)-[r:READS]->(t)
    WHERE r.valid_from <= at AND coalesce(r.valid_to, 'z') > at
    AND coalesce(x.deleted_at, 'z') > at AND NOT x.id STARTS WITH 'job:maxcompute:'
    AND NOT x.label IN ['Instance', 'Dag']
    | {node: x, distance: d + 1, rel: 'READS', from: t.id}] AS around
WITH at, table, d, t, around +
  [(o)-[w:OWNS]->(x)-[r:READS]->(t)
    WHERE r.valid_from <= at AND coalesce(r.valid_to, 'z') > at
    AND w.valid_from <= at AND coalesce(w.valid_to, 'z') > at
    AND coalesce(x.deleted_at, 'z') > at AND coalesce(o.deleted_at, 'z') > at
    | {node: o, distance: d + 2, rel: 'OWNS', from: x.id}] AS around
WITH at, table, d, t, around +
  [(b)<-[ib:IN_BASELINE]-(x)-[r:READS]->(t)
    WHERE r.valid_from <= at AND coalesce(r.valid_to, 'z') > at
    AND ib.valid_from <= at AND coalesce(ib.valid_to, 'z') > at
    AND coalesce(x.deleted_at, 'z') > at AND coalesce(b.deleted_at, 'z') > at
    | {node: b, distance: d + 2, rel: 'IN_BASELINE', from: x.id}] AS around
WITH at, table, d, t, around +
  [(o)-[w:OWNS]->(t)
    WHERE w.valid_from <= at AND coalesce(w.valid_to, 'z') > at
    AND coalesce(o.deleted_at, 'z') > at
    | {node: o, distance: d + 1, rel: 'OWNS', from: t.id}] AS around
WITH at, table, d, t, around +
  [(g)-[a:CAN_ACCESS]->(t)
    WHERE a.valid_from <= at AND coalesce(a.valid_to, 'z') > at
    AND coalesce(g.deleted_at, 'z') > at
    | {node: g, distance: d + 1, rel: 'CAN_ACCESS', from: t.id}] AS around
WITH at, table, d, t, around +
  [(m)-[h:HAS_ROLE]->(g)-[a:CAN_ACCESS]->(t)
    WHERE a.valid_from <= at AND coalesce(a.valid_to, 'z') > at
    AND h.valid_from <= at AND coalesce(h.valid_to, 'z') > at
    AND coalesce(g.deleted_at, 'z') > at AND coalesce(m.deleted_at, 'z') > at
    | {node: m, distance: d + 2, rel: 'HAS_ROLE', from: g.id}] AS around
UNWIND CASE WHEN d = 0 THEN around ELSE [table] + around END AS hit
WITH hit.node AS n, min(hit.distance) AS distance, collect(hit) AS hits
UNWIND [h IN hits WHERE h.distance = distance] AS nearest
RETURN distance, n.label AS label, n.id AS id, n.name AS name,
    collect(DISTINCT nearest.rel) AS reached_by, collect(DISTINCT nearest.from) AS from
ORDER BY distance, id
