// Upstream lineage of a table (Neo4j 5.21+: shortest-path search)
// Answers: Where does this table's data come from? Every table upstream of it (FEEDS, any depth)
//   at its fewest hops, one row per lineage hop toward it, with the jobs and nodes that move the data.
// Parameters:
//   $table_id  the table whose sources to find, e.g. 'table:maxcompute:retail_dw.ads_sales_report'
//   $as_of     the moment whose graph to look at (UTC), e.g. '2024-07-08T00:00:00Z'
// Example (Neo4j Browser):
//   :param table_id => 'table:maxcompute:retail_dw.ads_sales_report'
//   :param as_of => '2024-07-08T00:00:00Z'

// Neo4j-only variant of upstream_lineage.cypher (SHORTEST); notes: docs/cypher.md#upstream-lineage
WITH CASE size($as_of) WHEN 10 THEN $as_of + 'T00:00:00.000000Z'
                       WHEN 20 THEN substring($as_of, 0, 19) + '.000000Z'
                       ELSE $as_of END AS as_of
MATCH (target:Table {id: $table_id})
WHERE target.first_seen <= as_of AND (target.deleted_at IS NULL OR target.deleted_at > as_of)
MATCH p = SHORTEST 1 (source:Table) ((n:Table)-[f:FEEDS]->()
          WHERE f.valid_from <= as_of AND (f.valid_to IS NULL OR f.valid_to > as_of)
            AND (n.deleted_at IS NULL OR n.deleted_at > as_of)){1,25} (target)
WHERE source <> target
WITH as_of, target, source, min(length(p)) AS distance
WITH as_of, target, collect({table: source, distance: distance}) AS upstream
WITH as_of, upstream, [u IN upstream | u.table] + [target] AS lineage
UNWIND upstream AS up
WITH as_of, lineage, up.table AS source, up.distance AS distance
MATCH (source)-[f:FEEDS]->(next:Table)
WHERE next IN lineage AND f.valid_from <= as_of AND (f.valid_to IS NULL OR f.valid_to > as_of)
OPTIONAL MATCH (source)<-[r:READS]-(x)-[w:WRITES]->(next)
WHERE (x:Job OR x:Node) AND (x.deleted_at IS NULL OR x.deleted_at > as_of)
  AND r.valid_from <= as_of AND (r.valid_to IS NULL OR r.valid_to > as_of)
  AND w.valid_from <= as_of AND (w.valid_to IS NULL OR w.valid_to > as_of)
WITH distance, source, next, f, x
ORDER BY x.id
RETURN distance, source.id AS table, source.name AS name, next.id AS feeds,
       collect(DISTINCT x.id) AS via, f.valid_from AS since
ORDER BY distance, table, feeds
