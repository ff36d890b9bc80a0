// Most central tables (Neo4j 5.21+: shortest-path search, COUNT {} subqueries)
// Answers: Which tables does the most depend on today? Ranked by the tables downstream of each
//   (FEEDS, any depth) plus the jobs and nodes that read it; the top $limit.
// Parameters:
//   $limit  how many tables to list, e.g. 10
// Example (Neo4j Browser):
//   :param limit => 10

// On the current graph: open intervals (valid_to null) between vertices not deleted.
// score = downstream + readers, where `downstream` counts distinct tables and storage locations
// (Location: OSS/HDFS paths written or read outside MaxCompute) reachable along FEEDS
// (25 hops at most) and `readers` the distinct vertices with a READS into the table (every
// MaxCompute job run counts, so a table read daily outranks one read once; `reading_nodes` counts
// the readers that are not Jobs). `upstream` and `writers` are shown for context. Ties by id.
// After `lineage export neo4j --with-impact` each Table also holds `downstream_tables` and
// `readers` (as of the export window's end): `MATCH (t:Table) RETURN t.id, t.downstream_tables
// + t.readers AS score ORDER BY score DESC` is then a one-hop answer on any graph size.
// Neo4j-only variant of most_central_tables.cypher (same columns and answer): each count is a
// COUNT {} subquery on the table instead of an OPTIONAL MATCH and an aggregation per stage, the
// FEEDS walks up and down are SHORTEST 1 with inline predicates (a breadth-first search per
// reached table, where the portable query enumerates every path of every table: exponential on
// lineage full of diamonds), and `reading_nodes` uses the label expression `!Job`.
MATCH (t:Table)
WHERE t.deleted_at IS NULL
WITH t,
     COUNT { MATCH SHORTEST 1 (t) (()-[f:FEEDS]->(n) WHERE f.valid_to IS NULL AND n.deleted_at IS NULL){1,25} (d)
             WHERE d <> t RETURN DISTINCT d } AS downstream,
     COUNT { MATCH SHORTEST 1 (u:Table) ((n)-[f:FEEDS]->() WHERE f.valid_to IS NULL AND n.deleted_at IS NULL){1,25} (t)
             WHERE u <> t RETURN DISTINCT u } AS upstream,
     COUNT { MATCH (reader)-[r:READS]->(t) WHERE r.valid_to IS NULL AND reader.deleted_at IS NULL
             RETURN DISTINCT reader } AS readers,
     COUNT { MATCH (reader:!Job)-[r:READS]->(t) WHERE r.valid_to IS NULL AND reader.deleted_at IS NULL
             RETURN DISTINCT reader } AS reading_nodes,
     COUNT { MATCH (writer)-[w:WRITES]->(t) WHERE w.valid_to IS NULL AND writer.deleted_at IS NULL
             RETURN DISTINCT writer } AS writers
RETURN t.id AS table, t.name AS name, downstream + readers AS score, downstream, readers, reading_nodes,
       upstream, writers
ORDER BY score DESC, table
LIMIT $limit
