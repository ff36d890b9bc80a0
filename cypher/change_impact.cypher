// What a change affects (precomputed)
// Answers: If this change goes ahead (or went ahead), what does it affect and who must be told?
//   Every affected vertex at its fewest hops, with the change's impact score and rank.
// Parameters:
//   $change_id  a Change record's id, e.g. the demo's schema change on dwd_orders,
//               '8f173bf9e47facd9721999794acbbc18' (find ids with changes_this_week.cypher)
// Example (Neo4j Browser):
//   :param change_id => '8f173bf9e47facd9721999794acbbc18'

// Notes: docs/cypher.md#change-impact
MATCH (c:Change {id: $change_id})-[a:AFFECTS]->(x)
RETURN a.distance AS distance, a.label AS label, x.id AS id, x.name AS name,
       c.kind AS kind, c.entity_id AS entity, c.impact_score AS score, c.impact_rank AS rank,
       c.affected_count AS affected
ORDER BY distance, id
