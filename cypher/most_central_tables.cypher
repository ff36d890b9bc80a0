// Most central tables
// Answers: Which tables does the most depend on today? Ranked by the tables downstream of each
//   (FEEDS, any depth) plus the jobs and nodes that read it; the top $limit.
// Parameters:
//   $limit  how many tables to list, e.g. 10
// Example (Neo4j Browser):
//   :param limit => 10

// Notes: docs/cypher.md#most-central-tables
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
