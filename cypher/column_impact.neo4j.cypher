// Column impact (Neo4j 5.21+: shortest-path search)
// Answers: If this column changes, which columns take its values along direct column FEEDS, in
//   which tables, and which nodes and jobs read those columns there (a column FEEDS out of one
//   names them in its via; not past job runs), at the fewest hops?
// Parameters:
//   $column_id  the changed column, e.g. 'column:maxcompute:p.s.a'
//   $as_of      the moment whose graph to look at (UTC), e.g. '2024-07-02T01:00:00Z'
// Example (Neo4j Browser):
//   :param column_id => 'column:maxcompute:p.s.a'
//   :param as_of => '2024-07-02T01:00:00Z'

// Neo4j-only variant of column_impact.cypher (SHORTEST); notes: docs/cypher.md#column-impact
WITH CASE size($as_of) WHEN 10 THEN $as_of + 'T00:00:00.000000Z'
    WHEN 20 THEN substring($as_of, 0, 19) + '.000000Z'
    ELSE $as_of END AS at
MATCH (source:Column {id: $column_id})
WHERE source.first_seen <= at AND coalesce(source.deleted_at, 'z') > at
// 1. columns along direct column FEEDS valid at `at`, at their fewest hops (every nearest predecessor)
OPTIONAL MATCH p = ALL SHORTEST (source) (()-[f:FEEDS]->(n:Column)
                   WHERE f.qualifier = 'direct' AND f.valid_from <= at AND coalesce(f.valid_to, 'z') > at
                     AND coalesce(n.deleted_at, 'z') > at){1,25} (c:Column)
WHERE c <> source
WITH at, source, c, length(p) AS hops, nodes(p)[-2].id AS previous
WITH at, source, c, min(hops) AS distance, collect([hops, previous]) AS ways
WITH at, source, collect([w IN ways WHERE c IS NOT NULL AND w[0] = distance
    | {node: c, distance: distance, from: w[1]}]) AS found
UNWIND reduce(acc = [{node: source, distance: 0, from: null}], l IN found | acc + l) AS col
WITH at, col, col.node AS c, col.distance AS d
// 2. each column's table (HAS_COLUMN, else the table its id names), the Jobs and Nodes reading it;
//    a reader is kept when a column FEEDS out of a column reached there names it in its via
OPTIONAL MATCH (t:Table)-[h:HAS_COLUMN]->(c)
WHERE h.valid_from <= at AND coalesce(h.valid_to, 'z') > at
WITH at, col, c, d, collect(t) AS owned, split(substring(c.id, 7), '.') AS parts
WITH at, col, c, d, owned, [i IN range(size(parts) - 1, 1, -1)
    | 'table:' + reduce(s = parts[0], x IN parts[1..i] | s + '.' + x)] AS names
OPTIONAL MATCH (n:Table)
WHERE size(owned) = 0 AND n.id IN names
  AND n.first_seen <= at AND coalesce(n.deleted_at, 'z') > at
WITH at, col, c, d, owned, names, collect(n) AS named
WITH at, col, c, d, CASE WHEN size(owned) > 0 THEN owned
    ELSE [x IN named WHERE x.id = head([m IN names WHERE m IN [y IN named | y.id]])] END AS tables
UNWIND CASE WHEN size(tables) = 0 THEN [null] ELSE tables END AS t
WITH at, col, c, d, t, [(c)-[g:FEEDS]->() WHERE g.valid_from <= at AND coalesce(g.valid_to, 'z') > at
    | g.via] AS vias
WITH at, col, c, d, t, vias, CASE WHEN t IS NULL THEN [] ELSE [{node: t, distance: d + 1, from: c.id}] +
  [(x)-[r:READS]->(t)
    WHERE (x:Job OR x:Node) AND NOT x.id STARTS WITH 'job:maxcompute:'
    AND r.valid_from <= at AND coalesce(r.valid_to, 'z') > at
    AND coalesce(x.deleted_at, 'z') > at
    | {node: x, distance: d + 2, from: t.id, reads: any(v IN vias WHERE x.id IN v)}] END AS around
UNWIND [col] + around AS hit
// 3. one row per vertex, at its fewest hops (a reader: from the nearest table it reads a reached column of)
WITH hit.node AS v, hit.from AS src, min(hit.distance) AS distance, collect(hit.reads) AS reads
WHERE distance > 0 AND (NOT v.label IN ['Job', 'Node'] OR true IN reads)
WITH v, min(distance) AS d, collect([distance, src]) AS ways
RETURN d AS distance, v.label AS label, v.id AS id, v.name AS name,
    [w IN ways WHERE w[0] = d | w[1]] AS from
ORDER BY distance, id
