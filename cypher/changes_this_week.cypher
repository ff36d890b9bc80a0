// Changes in a time window
// Answers: What changed between two moments (e.g. this week): every Change record with
//   $since <= time < $until, the entity it changed, and that entity's current owners (to ask).
// Parameters:
//   $since  start of the window, inclusive (UTC), e.g. '2024-07-01T00:00:00Z'
//   $until  end of the window, exclusive (UTC), e.g. '2024-07-08T00:00:00Z'
// Example (Neo4j Browser):
//   :param since => '2024-07-01T00:00:00Z'
//   :param until => '2024-07-08T00:00:00Z'

// Notes: docs/cypher.md#changes-this-week
WITH [t IN [$since, $until] | CASE size(t) WHEN 10 THEN t + 'T00:00:00.000000Z'
                                         WHEN 20 THEN substring(t, 0, 19) + '.000000Z'
                                         ELSE t END] AS window
MATCH (c:Change)
WHERE window[0] <= c.time AND c.time < window[1]
OPTIONAL MATCH (c)-[:CHANGES]->(entity)
OPTIONAL MATCH (owner)-[o:OWNS]->(entity)
WHERE o.valid_to IS NULL AND owner.deleted_at IS NULL
WITH c, entity, owner ORDER BY owner.id
RETURN c.time AS time, c.kind AS kind, c.entity_label AS label, c.entity_id AS entity, entity.name AS name,
       c.actor AS actor, c.source AS source, collect(DISTINCT owner.id) AS owners, entity.deleted_at AS deleted_at,
       c.id AS change_id, c.event_id AS event_id, c.impact_score AS score, c.impact_rank AS rank,
       c.affected_count AS affected, c.effect AS effect
ORDER BY time, change_id
