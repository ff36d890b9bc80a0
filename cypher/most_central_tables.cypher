// Most central tables
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
MATCH (t:Table)
WHERE t.deleted_at IS NULL
OPTIONAL MATCH down = (t)-[:FEEDS*1..25]->(d)
WHERE all(f IN relationships(down) WHERE f.valid_to IS NULL) AND all(n IN nodes(down) WHERE n.deleted_at IS NULL)
  AND d <> t
WITH t, count(DISTINCT d) AS downstream
OPTIONAL MATCH up = (u:Table)-[:FEEDS*1..25]->(t)
WHERE all(f IN relationships(up) WHERE f.valid_to IS NULL) AND all(n IN nodes(up) WHERE n.deleted_at IS NULL)
  AND u <> t
WITH t, downstream, count(DISTINCT u) AS upstream
OPTIONAL MATCH (reader)-[r:READS]->(t)
WHERE r.valid_to IS NULL AND reader.deleted_at IS NULL
WITH t, downstream, upstream, count(DISTINCT reader) AS readers,
     count(DISTINCT CASE WHEN NOT reader:Job THEN reader END) AS reading_nodes
OPTIONAL MATCH (writer)-[w:WRITES]->(t)
WHERE w.valid_to IS NULL AND writer.deleted_at IS NULL
WITH t, downstream, upstream, readers, reading_nodes, count(DISTINCT writer) AS writers
RETURN t.id AS table, t.name AS name, downstream + readers AS score, downstream, readers, reading_nodes,
       upstream, writers
ORDER BY score DESC, table
LIMIT $limit
