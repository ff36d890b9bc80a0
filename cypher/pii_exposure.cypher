// PII exposure
// Answers: Where does sensitive data flow (FEEDS), who reads it there, who was never cleared for it?
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
  IN ['propagation:stop', 'nopropagation'] | x] AS stops
WITH at, collect(CASE WHEN size(stops) > 0 OR toLower(trim(coalesce(b.propagate, ''))) = 'false'
  THEN b END) AS bl
MATCH m = (origin:Table)-[:HAS_COLUMN*0..1]->()-[:TAGGED|HAS_LABEL]->(mark)
WHERE all(r IN relationships(m) WHERE r.valid_from <= at AND coalesce(r.valid_to, 'z') > at)
  AND all(n IN nodes(m) WHERE coalesce(n.deleted_at, 'z') > at)
WITH DISTINCT at, bl, origin, mark,
  substring(mark.id, size(split(mark.id, ':')[0] + split(mark.id, ':')[1]) + 2) AS key
WITH at, bl, origin, mark, toInteger(coalesce(mark.level, key)) AS lv,
  [i IN range(0, size(key) - 1) | substring(key, i, 1)] AS cs
WITH at, bl, origin, mark, lv, reduce(s = ' ', i IN range(0, size(cs) - 1) | s + CASE
  WHEN NOT ('a' <= cs[i] <= 'z' OR 'A' <= cs[i] <= 'Z' OR '0' <= cs[i] <= '9') THEN ' '
  WHEN i > 0 AND 'A' <= cs[i] <= 'Z' AND ('a' <= cs[i - 1] <= 'z' OR '0' <= cs[i - 1] <= '9')
  THEN ' ' + toLower(cs[i])
  ELSE toLower(cs[i]) END) + ' ' AS words
WITH at, bl, origin, mark, lv, words
WHERE (mark:Tag AND any(w IN ['pii', 'sensitive', 'confidential', 'restricted'] WHERE words CONTAINS (' ' + w + ' ')))
  OR (mark:Label AND lv >= 2)
MATCH p = (origin)-[:FEEDS*0..25]->(t)
WHERE all(f IN relationships(p) WHERE f.valid_from <= at AND coalesce(f.valid_to, 'z') > at)
  AND all(n IN nodes(p) WHERE coalesce(n.deleted_at, 'z') > at)
  AND (length(p) = 0 OR none(n IN nodes(p) WHERE n IN bl))
WITH at, mark, lv, origin, t, length(p) AS hops,
  [c = (t)-[:HAS_COLUMN*0..1]->()-[:TAGGED|HAS_LABEL]->(own)
  WHERE all(r IN relationships(c) WHERE r.valid_from <= at AND coalesce(r.valid_to, 'z') > at)
  AND (own = mark OR (mark:Label AND own:Label AND toInteger(coalesce(own.level, split(own.id, ':')[2])) >= lv))
  | own] AS covers
WHERE hops = 0 OR size(covers) = 0
WITH at, mark, lv, t, min(hops) AS dist, collect(DISTINCT origin) AS origins
WITH at, mark, lv, t, dist, origins,
  [q = (t)-[:IN_PROJECT|HAS_COLUMN*0..1]->()<-[g:CAN_ACCESS]-()<-[:HAS_ROLE*0..1]-(u)
  WHERE NOT u:Role
  AND all(r IN relationships(q) WHERE r.valid_from <= at AND coalesce(r.valid_to, 'z') > at)
  AND all(n IN nodes(q) WHERE coalesce(n.deleted_at, 'z') > at)
  | {u: u, lab: coalesce(g.qualifier, '') = 'label', glv: toInteger(g.label)}] AS grants
WITH at, mark, lv, t, dist, origins, [x IN grants WHERE NOT x.lab | x.u] AS readers,
  [x IN grants WHERE x.lab AND x.glv >= lv | x.u] AS granted
UNWIND CASE WHEN size(readers) = 0 THEN [null] ELSE readers END AS reader
WITH mark, lv, t, dist, origins, granted, reader,
  [(reader)-[h:HAS_LABEL]->(l) WHERE mark:Label AND h.valid_from <= at AND coalesce(h.valid_to, 'z') > at
  AND toInteger(coalesce(l.level, split(l.id, ':')[2])) >= lv | l] AS clr
WITH mark, t, dist, origins, granted, collect(DISTINCT reader) AS readers,
  collect(CASE WHEN size(clr) > 0 THEN reader END) AS lbl
WITH mark, collect({t: t, distance: dist, origins: origins, readers: readers, lbl: lbl,
  granted: granted}) AS rows
UNWIND rows AS row
WITH mark, row, reduce(acc = [], x IN rows | acc + CASE WHEN x.t IN row.origins THEN x.readers + x.granted ELSE [] END)
  AS cleared
RETURN mark.id AS mark, row.distance AS distance, row.t.id AS table, [o IN row.origins | o.id] AS origins,
  [u IN row.readers | u.id] AS readers,
  [u IN row.readers WHERE row.distance > 0 AND NOT u IN cleared AND NOT u IN row.lbl | u.id] AS exposed
ORDER BY mark, distance, table
