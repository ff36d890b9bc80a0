// Most central tables (Neo4j 5.21+: shortest-path search, COUNT {} subqueries)
// Answers: Which tables does the most depend on today? Ranked by the tables downstream of each
//   (FEEDS, any depth) plus the jobs and nodes that read it; the top $limit.
// Parameters:
//   $limit  how many tables to list, e.g. 10
// Example (Neo4j Browser):
//   :param limit => 10

// Neo4j-only variant of most_central_tables.cypher (COUNT {}, SHORTEST, label expression); notes: docs/cypher.md#most-central-tables
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
