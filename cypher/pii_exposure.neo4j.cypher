// PII exposure (Neo4j 5.21+)
// Answers: Which tables carry a sensitive mark (a PII / Sensitive / Confidential / Restricted tag,
//   or a MaxCompute label of level 2 or more), which tables their data flows into (FEEDS), who can
//   read each of those, and who of them was never cleared at the source (exposed)?
// Parameters:
//   $as_of  the moment to ask about (UTC), e.g. '2024-07-05T00:00:00Z'
// Example (Neo4j Browser):
//   :param as_of => '2024-07-05T00:00:00Z'

// Neo4j-only variant of pii_exposure.cypher (EXISTS {}, SHORTEST, label expression); notes: docs/cypher.md#pii-exposure
WITH CASE size($as_of) WHEN 10 THEN $as_of + 'T00:00:00.000000Z'
                       WHEN 20 THEN substring($as_of, 0, 19) + '.000000Z'
                       ELSE $as_of END AS at
// tables that stop propagation
MATCH (b:Table)
WITH at, collect(CASE WHEN EXISTS { (b)-[s:TAGGED]->(x)
                                    WHERE s.valid_from <= at AND coalesce(s.valid_to, 'z') > at
                                      AND toLower(substring(x.id, size(split(x.id, ':')[0]) + size(split(x.id, ':')[1]) + 2))
                                          IN ['propagation:stop', 'nopropagation'] }
                           OR toLower(trim(coalesce(b.propagate, ''))) = 'false'
                      THEN b END) AS blocked
// marks on tables and their columns
MATCH m = (origin:Table)-[:HAS_COLUMN*0..1]->()-[:TAGGED|HAS_LABEL]->(mark:Tag|Label)
WHERE all(r IN relationships(m) WHERE r.valid_from <= at AND coalesce(r.valid_to, 'z') > at)
  AND all(n IN nodes(m) WHERE coalesce(n.deleted_at, 'z') > at)
WITH DISTINCT at, blocked, origin, mark,
     substring(mark.id, size(split(mark.id, ':')[0]) + size(split(mark.id, ':')[1]) + 2) AS key
WITH at, blocked, origin, mark, toInteger(coalesce(mark.level, key)) AS level,
     [i IN range(0, size(key) - 1) | substring(key, i, 1)] AS cs
WITH at, blocked, origin, mark, level, reduce(s = ' ', i IN range(0, size(cs) - 1) | s + CASE
       WHEN NOT ('a' <= cs[i] <= 'z' OR 'A' <= cs[i] <= 'Z' OR '0' <= cs[i] <= '9') THEN ' '
       WHEN i > 0 AND 'A' <= cs[i] <= 'Z' AND ('a' <= cs[i - 1] <= 'z' OR '0' <= cs[i - 1] <= '9')
         THEN ' ' + toLower(cs[i])
       ELSE toLower(cs[i]) END) + ' ' AS words
WITH at, blocked, origin, mark, level,
     (mark:Tag AND any(w IN ['pii', 'sensitive', 'confidential', 'restricted'] WHERE words CONTAINS (' ' + w + ' ')))
     OR (mark:Label AND level >= 2) AS sensitive
WHERE sensitive
// where each mark flows: the origin itself at 0 hops, else no blocked table on the path
MATCH p = SHORTEST 1 (origin) ((a)-[f:FEEDS]->(n)
          WHERE f.valid_from <= at AND coalesce(f.valid_to, 'z') > at AND coalesce(n.deleted_at, 'z') > at
            AND NOT a IN blocked AND NOT n IN blocked){0,25} (t)
WITH at, mark, level, origin, t, length(p) AS hops
WHERE hops = 0
   OR NOT EXISTS { MATCH c = (t)-[:HAS_COLUMN*0..1]->()-[:TAGGED|HAS_LABEL]->(own)
                   WHERE all(r IN relationships(c) WHERE r.valid_from <= at AND coalesce(r.valid_to, 'z') > at)
                     AND (own = mark OR (mark:Label AND own:Label
                                         AND toInteger(coalesce(own.level, split(own.id, ':')[2])) >= level)) }
WITH at, mark, level, t, min(hops) AS distance, collect(DISTINCT origin) AS origins
// readers of each table (and label grants: a clearance, not a read); readers of a mark's origins,
// and holders of a label grant of its level there, were cleared for it at the source
WITH at, mark, level, t, distance, origins,
     [q = (t)-[:IN_PROJECT|HAS_COLUMN*0..1]->()<-[g:CAN_ACCESS]-()<-[:HAS_ROLE*0..1]-(u)
      WHERE NOT u:Role
        AND all(r IN relationships(q) WHERE r.valid_from <= at AND coalesce(r.valid_to, 'z') > at)
        AND all(n IN nodes(q) WHERE coalesce(n.deleted_at, 'z') > at)
      | {u: u, lab: coalesce(g.qualifier, '') = 'label', lv: toInteger(g.label)}] AS grants
WITH at, mark, level, t, distance, origins, [x IN grants WHERE NOT x.lab | x.u] AS readers,
     [x IN grants WHERE x.lab AND x.lv >= level | x.u] AS granted
UNWIND CASE WHEN size(readers) = 0 THEN [null] ELSE readers END AS reader
WITH mark, level, t, distance, origins, granted, reader,
     mark:Label AND EXISTS { (reader)-[h:HAS_LABEL]->(l) WHERE h.valid_from <= at AND coalesce(h.valid_to, 'z') > at
                               AND toInteger(coalesce(l.level, split(l.id, ':')[2])) >= level } AS label_cleared
WITH mark, t, distance, origins, granted, collect(DISTINCT reader) AS readers,
     collect(CASE WHEN label_cleared THEN reader END) AS lbl
WITH mark AS mk, collect({t: t, distance: distance, srcs: origins, rds: readers, lbl: lbl,
                          gr: granted}) AS rows
UNWIND rows AS row
WITH mk, row, reduce(acc = [], x IN rows | acc + CASE WHEN x.t IN row.srcs THEN x.rds + x.gr ELSE [] END)
     AS ok
RETURN mk.id AS mark, row.distance AS distance, row.t.id AS table, [o IN row.srcs | o.id] AS origins,
       [u IN row.rds | u.id] AS readers,
       [u IN row.rds WHERE row.distance > 0 AND NOT u IN ok AND NOT u IN row.lbl | u.id] AS exposed
ORDER BY mark, distance, table
