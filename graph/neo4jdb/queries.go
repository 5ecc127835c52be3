package neo4jdb

// nodeQuery looks one node up by its application id.
const nodeQuery = `MATCH (n {id: $node_id})
RETURN properties(n) AS data, labels(n) AS labels`

// Catalog queries.
const (
	// listNodesQuery lists every node with a string id, by id.
	listNodesQuery = `MATCH (n)
WHERE n.id IS :: STRING NOT NULL
RETURN n.id AS id, labels(n) AS labels,
       CASE WHEN n.text IS :: STRING NOT NULL THEN n.text ELSE '' END AS text,
       ` + shortStringsExpr + ` AS props
ORDER BY n.id
SKIP $offset`

	// findNodesQuery is the node filter of graph.FilterFields and
	// graph.MatchFields in Cypher: the fields are the id, the text, and the
	// short strings (graph.ShortProp runes at most) of the other
	// properties and of their string lists; each field that contains the
	// lower-cased filter ranks 0 (exact), 1 (a word starts with it: the
	// regular expression $word, see wordPrefixRegex) or 2 (substring); a
	// node keeps its best field, rank first, then the shortest, and nodes
	// come by rank, that length, then id.
	findNodesQuery = `MATCH (n)
WHERE n.id IS :: STRING NOT NULL
WITH n, [n.id]
      + CASE WHEN n.text IS :: STRING NOT NULL THEN [n.text] ELSE [] END
      + [f IN reduce(acc = [], k IN [k IN keys(n) WHERE k <> 'id' AND k <> 'text'] |
                 acc + CASE WHEN n[k] IS :: STRING THEN [n[k]]
                            WHEN n[k] IS :: LIST<STRING NOT NULL> THEN n[k]
                            ELSE [] END)
         WHERE size(f) <= $short] AS fields
WITH n, [f IN fields WHERE toLower(f) CONTAINS $filter | toLower(f)] AS hits
WHERE size(hits) > 0
UNWIND hits AS f
WITH n, min(CASE WHEN f = $filter THEN 0 WHEN f =~ $word THEN 1 ELSE 2 END * 1000000000 + size(f)) AS rank
RETURN n.id AS id, labels(n) AS labels,
       CASE WHEN n.text IS :: STRING NOT NULL THEN n.text ELSE '' END AS text,
       ` + shortStringsExpr + ` AS props
ORDER BY rank, n.id
SKIP $offset`

	// shortStringsExpr is graph.ShortStrings of node n, as [key, value]
	// pairs.
	shortStringsExpr = `[k IN keys(n) WHERE k <> 'id' AND n[k] IS :: STRING AND size(n[k]) <= $short | [k, n[k]]]`

	// nameKeysQuery counts the nodes with each string property other than
	// id (Catalog.NameKeys).
	nameKeysQuery = `MATCH (n)
UNWIND keys(n) AS k
WITH k, n[k] AS v
WHERE k <> 'id' AND v IS :: STRING
RETURN k AS key, count(*) AS count
ORDER BY count DESC, key`

	// tagsQuery counts, per tag, the RELATES relationships that carry it
	// (a tag repeated on one relationship counts once). A relationship whose
	// tags are not a list of strings yields a row with ok = false naming it.
	tagsQuery = `MATCH ()-[r:RELATES]->()
WHERE r.tags IS NOT NULL
WITH r, r.tags IS :: LIST<STRING NOT NULL> AS ok
WITH ok, CASE WHEN ok
              THEN reduce(s = [], t IN r.tags | CASE WHEN t IN s THEN s ELSE s + t END)
              ELSE [elementId(r)]
         END AS tags
UNWIND tags AS tag
RETURN ok, tag, count(*) AS count
ORDER BY ok, count DESC, tag`
)

// Whole-graph queries.
const (
	countNodesQuery = `MATCH (n) RETURN count(n) AS count`
	countRelsQuery  = `MATCH ()-[r]->() RETURN count(r) AS count`
	readNodesQuery  = `MATCH (n) RETURN elementId(n) AS eid, labels(n) AS labels, properties(n) AS props`
	readRelsQuery   = `MATCH (a)-[r]->(b)
RETURN elementId(a) AS start, elementId(b) AS end, type(r) AS type, properties(r) AS props`
)
