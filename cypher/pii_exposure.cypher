// PII exposure
// Answers: Where sensitive data flows, who reads it, who was never cleared for it
// Parameters:
//   $as_of  the moment to ask about (UTC)
// Example (Neo4j Browser):
//   :param as_of => '2024-07-05T00:00:00Z'

// Notes: docs/cypher.md#pii-exposure
WITH CASE size($as_of) WHEN 10 THEN $as_of + 'T00:00:00.000000Z'
  WHEN 20 THEN substring($as_of, 0, 19) + '.000000Z'
  ELSE $as_of END AS at
MATCH (b:Table)
WITH at, b, [(b)-[s:TAGGED]->(x)
  WHERE s.valid_from <= at AND coalesce(s.valid_to, 'z') > at
  AND toLower(substring(x.id, size(split(x.id, ':')[0] + split(x.id, ':')[1]) + 2))
  IN ['propagation:stop', 'nopropagation'] | x] AS st
WITH at, collect(CASE WHEN size(st) > 0 OR toLower(trim(coalesce(b.propagate, ''))) = 'false'
  THEN b END) AS bl
MATCH m = (src:Table)-[:HAS_COLUMN*0..1]->()-[:TAGGED|HAS_LABEL]->(mk)
WHERE all(r IN relationships(m) WHERE r.valid_from <= at AND coalesce(r.valid_to, 'z') > at)
  AND all(n IN nodes(m) WHERE coalesce(n.deleted_at, 'z') > at)
WITH DISTINCT at, bl, src, mk,
  substring(mk.id, size(split(mk.id, ':')[0] + split(mk.id, ':')[1]) + 2) AS key
WITH at, bl, src, mk, toInteger(coalesce(mk.level, key)) AS lv,
  [i IN range(0, size(key) - 1) | substring(key, i, 1)] AS cs
WITH at, bl, src, mk, lv, reduce(s = ' ', i IN range(0, size(cs) - 1) | s + CASE
  WHEN NOT ('a' <= cs[i] <= 'z' OR 'A' <= cs[i] <= 'Z' OR '0' <= cs[i] <= '9') THEN ' '
  WHEN i > 0 AND 'A' <= cs[i] <= 'Z' AND ('a' <= cs[i - 1] <= 'z' OR '0' <= cs[i - 1] <= '9')
  THEN ' ' + toLower(cs[i])
  ELSE toLower(cs[i]) END) + ' ' AS ws
WITH at, bl, src, mk, lv, ws
WHERE (mk:Tag AND any(w IN ['pii', 'sensitive', 'confidential', 'restricted'] WHERE ws CONTAINS (' ' + w + ' ')))
  OR (mk:Label AND lv >= 2)
MATCH p = (src)-[:FEEDS*0..25]->(t)
WHERE all(f IN relationships(p) WHERE f.valid_from <= at AND coalesce(f.valid_to, 'z') > at)
  AND all(n IN nodes(p) WHERE coalesce(n.deleted_at, 'z') > at)
  AND (length(p) = 0 OR none(n IN nodes(p) WHERE n IN bl))
WITH at, mk, lv, src, t, length(p) AS hp,
  [c = (t)-[:HAS_COLUMN*0..1]->()-[:TAGGED|HAS_LABEL]->(own)
  WHERE all(r IN relationships(c) WHERE r.valid_from <= at AND coalesce(r.valid_to, 'z') > at)
  AND (own = mk OR (mk:Label AND own:Label AND toInteger(coalesce(own.level, split(own.id, ':')[2])) >= lv))
  | own] AS cov
WHERE hp = 0 OR size(cov) = 0
WITH at, mk, lv, t, min(hp) AS dd, collect(DISTINCT src) AS srcs
WITH at, mk, lv, t, dd, srcs,
  [q = (t)-[:IN_PROJECT|HAS_COLUMN*0..1]->()<-[g:CAN_ACCESS]-()<-[:HAS_ROLE*0..1]-(u)
  WHERE NOT u:Role
  AND all(r IN relationships(q) WHERE r.valid_from <= at AND coalesce(r.valid_to, 'z') > at)
  AND all(n IN nodes(q) WHERE coalesce(n.deleted_at, 'z') > at)
  | {u: u, lab: coalesce(g.qualifier, '') = 'label', glv: toInteger(g.label)}] AS grants
WITH at, mk, lv, t, dd, srcs, [x IN grants WHERE NOT x.lab | x.u] AS rds,
  [x IN grants WHERE x.lab AND x.glv >= lv | x.u] AS gr
UNWIND CASE WHEN size(rds) = 0 THEN [null] ELSE rds END AS rd
WITH mk, lv, t, dd, srcs, gr, rd,
  [(rd)-[h:HAS_LABEL]->(l) WHERE mk:Label AND h.valid_from <= at AND coalesce(h.valid_to, 'z') > at
  AND toInteger(coalesce(l.level, split(l.id, ':')[2])) >= lv | l] AS clr
WITH mk, t, dd, srcs, gr, collect(DISTINCT rd) AS rds,
  collect(CASE WHEN size(clr) > 0 THEN rd END) AS lbl
WITH mk, collect({t: t, distance: dd, srcs: srcs, rds: rds, lbl: lbl, gr: gr}) AS rows
UNWIND rows AS row
WITH mk, row, reduce(acc = [], x IN rows | acc + CASE WHEN x.t IN row.srcs THEN x.rds + x.gr ELSE [] END)
  AS ok
RETURN mk.id AS mark, row.distance AS distance, row.t.id AS table, [o IN row.srcs | o.id] AS origins,
  [u IN row.rds | u.id] AS readers,
  [u IN row.rds WHERE row.distance > 0 AND NOT u IN ok AND NOT u IN row.lbl | u.id] AS exposed
ORDER BY mark, distance, table
