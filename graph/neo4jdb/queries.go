package neo4jdb

// nodeQuery looks one node up by its application id.
const nodeQuery = `MATCH (n {id: $node_id})
RETURN properties(n) AS data, labels(n) AS labels`

// Catalog queries.
const (
	listNodesQuery = `MATCH (n)
WHERE n.id IS :: STRING NOT NULL
  AND ($filter = '' OR toLower(n.id) CONTAINS $filter
       OR (n.text IS :: STRING NOT NULL AND toLower(n.text) CONTAINS $filter))
RETURN n.id AS id, labels(n) AS labels,
       CASE WHEN n.text IS :: STRING THEN n.text ELSE '' END AS text
ORDER BY n.id
SKIP $offset`

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
