// Dangling grants on dropped objects
// Answers: Which grants are still open on tables (or other objects) that have been dropped or
//   deleted? They grant nothing today, but come back to life if a table of that name is recreated.
// Parameters: none
// Example (Neo4j Browser):
//   (no parameters: run it as it is)

// Notes: docs/cypher.md#dangling-grants
MATCH (grantee)-[g:CAN_ACCESS]->(object)
WHERE g.valid_to IS NULL AND object.deleted_at IS NOT NULL
OPTIONAL MATCH (member)-[h:HAS_ROLE]->(grantee:Role)
WHERE h.valid_to IS NULL AND member.deleted_at IS NULL
WITH grantee, g, object, member ORDER BY member.id
RETURN object.id AS object, object.label AS label, object.deleted_at AS dropped_at,
       grantee.id AS grantee, grantee.label AS grantee_label, grantee.deleted_at IS NOT NULL AS grantee_deleted,
       g.qualifier AS qualifier, g.privileges AS privileges, g.valid_from AS granted_at,
       collect(DISTINCT member.id) AS members
ORDER BY dropped_at, object, grantee, qualifier
