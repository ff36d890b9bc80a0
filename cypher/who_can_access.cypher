// Who can read a table
// Answers: Who can read this table as of a moment, through what (a grant of their own, an approval,
//   a role, a project-level or a column-level grant), with which privileges, and since when?
// Parameters:
//   $table_id  the table, e.g. 'table:maxcompute:retail_dw.dwd_orders'
//   $as_of     the moment to ask about (UTC), e.g. '2024-07-05T00:00:00Z'
// Example (Neo4j Browser):
//   :param table_id => 'table:maxcompute:retail_dw.dwd_orders'
//   :param as_of => '2024-07-05T00:00:00Z'

// Notes: docs/cypher.md#who-can-access
WITH CASE size($as_of) WHEN 10 THEN $as_of + 'T00:00:00.000000Z'
                       WHEN 20 THEN substring($as_of, 0, 19) + '.000000Z'
                       ELSE $as_of END AS as_of
MATCH (t:Table {id: $table_id})
WHERE t.first_seen <= as_of AND (t.deleted_at IS NULL OR t.deleted_at > as_of)
// the object granted on: the table itself, its project or one of its columns
MATCH scope = (t)-[:IN_PROJECT|HAS_COLUMN*0..1]->(object)
WHERE all(s IN relationships(scope) WHERE s.valid_from <= as_of AND (s.valid_to IS NULL OR s.valid_to > as_of))
  AND (object.deleted_at IS NULL OR object.deleted_at > as_of)
MATCH (grantee)-[g:CAN_ACCESS]->(object)
WHERE g.valid_from <= as_of AND (g.valid_to IS NULL OR g.valid_to > as_of)
  AND coalesce(g.qualifier, '') <> 'label' AND (grantee.deleted_at IS NULL OR grantee.deleted_at > as_of)
// the holder: the grantee, or each member of a Role grantee
OPTIONAL MATCH (member:User)-[h:HAS_ROLE]->(grantee:Role)
WHERE h.valid_from <= as_of AND (h.valid_to IS NULL OR h.valid_to > as_of)
  AND (member.deleted_at IS NULL OR member.deleted_at > as_of)
WITH t, object, grantee, g, h, CASE WHEN grantee:Role THEN member ELSE grantee END AS principal
WHERE principal IS NOT NULL
WITH t, object, grantee, g, principal,
     CASE WHEN h IS NOT NULL AND h.valid_from > g.valid_from THEN h.valid_from ELSE g.valid_from END AS since,
     [p IN coalesce(g.privileges, []) WHERE trim(p) <> '' | toLower(trim(p))] AS listed
RETURN principal.id AS principal, principal.label AS label, principal.name AS name,
       CASE WHEN grantee:Role THEN 'role'
            WHEN g.closed_by = 'expiry' OR g.approval IS NOT NULL OR g.via IS NOT NULL OR g.ticket_id IS NOT NULL
              THEN 'approval'
            ELSE 'direct' END AS kind,
       CASE WHEN object = t THEN null WHEN object:Project THEN 'project' ELSE 'column' END AS scope,
       [p IN CASE WHEN size(listed) > 0 THEN listed ELSE [toLower(coalesce(g.qualifier, ''))] END
        WHERE p <> '' | CASE WHEN p STARTS WITH 'odps:' THEN substring(p, 5) ELSE p END] AS privileges,
       [principal.id] + CASE WHEN grantee:Role THEN [grantee.id] ELSE [] END
         + CASE WHEN object = t THEN [] ELSE [object.id] END + [t.id] AS path,
       since,
       CASE WHEN g.closed_by = 'expiry' THEN g.valid_to ELSE coalesce(g.expires, g.expires_at) END AS expires
ORDER BY principal, kind, path
