package neo4jdb

import (
	"strings"
)

// The catalog, the graph metrics and the whole-graph read under a schema
// mapping (docs/RETRIEVERS.md, "Other schemas"): the same queries as
// without one (queries.go, metrics.go), reading the graph the mapping
// keeps, as the embedded engine holds it after translating a file: the
// nodes of the label, the relationships between them that are not
// invalidated facts, a node's id its mapped id property, degrees over the
// traversed types, tags from the mapped property (a string split on the
// separator). Every name is a quoted identifier, every value a parameter.

// catalogQuery is listNodesQuery or findNodesQuery under the mapping: the
// nodes of the label with an id (a non-empty string), keyed and ordered
// by it.
func (m *mapping) catalogQuery(q string, params map[string]any) string {
	q = mustReplaceOnce(q, "MATCH (n)\nWHERE n.id IS :: STRING NOT NULL", "MATCH (n)\nWHERE "+m.hasID("n", params))
	return strings.ReplaceAll(q, "n.id", m.idOf("n"))
}

// nameKeysQuery is nameKeysQuery under the mapping: the nodes with an id.
func (m *mapping) nameKeysQuery(params map[string]any) string {
	return mustReplaceOnce(nameKeysQuery, "MATCH (n)\n", "MATCH (n)\nWHERE "+m.hasID("n", params)+"\n")
}

// between is the pattern and predicate of relationship r (of types, nil:
// any) from a to b in the mapped graph: both ends kept, r not invalidated.
func (m *mapping) between(ts []string, params map[string]any) string {
	pred := all(m.kept("a", params), m.kept("b", params), m.valid("r", params))
	if pred == "" {
		return "MATCH (a)-[r" + types(ts) + "]->(b)"
	}
	return "MATCH (a)-[r" + types(ts) + "]->(b) WHERE " + pred
}

// tagsQuery is tagsQuery under the mapping: the traversed relationships of
// the mapped graph, their tags read as the retrievers read them
// (SchemaCypher.Tags), "" when the mapping has no tags property.
func (m *mapping) tagsQuery(params map[string]any) string {
	if m.s.TagsProperty == "" {
		return ""
	}
	params["schema_sep"] = m.s.TagsSeparator
	tags := (&SchemaCypher{m: m}).Tags("r")
	return m.between(m.s.Traverse, params) + `
WITH r, ` + tags + ` AS ts
WHERE ts IS NOT NULL
WITH r, ts, ts IS :: LIST<STRING NOT NULL> AS ok
WITH ok, CASE WHEN ok
              THEN reduce(s = [], t IN ts | CASE WHEN t IN s THEN s ELSE s + t END)
              ELSE [elementId(r)]
         END AS tags
UNWIND tags AS tag
RETURN ok, tag, count(*) AS count
ORDER BY ok, count DESC, tag`
}

// metricsQueries are the metrics queries (relsByTypeQuery, selfLoopsQuery,
// degreeHistQuery, hubsQuery, clusteringQuery) under the mapping.
type metricsQueries struct {
	relsByType, selfLoops, degreeHist, hubs, clustering string
}

// metrics writes the metrics queries for the mapping, their values added
// to params.
func (m *mapping) metrics(params map[string]any) metricsQueries {
	deg := m.degree("n", m.s.Traverse, params)
	where := func(preds ...string) string {
		if p := all(preds...); p != "" {
			return " WHERE " + p
		}
		return ""
	}
	ts := types(m.s.Traverse)
	return metricsQueries{
		relsByType: m.between(nil, params) + `
RETURN type(r) AS type, count(*) AS count ORDER BY type`,
		selfLoops: `MATCH (n)-[r` + ts + `]->(n)` + where(m.kept("n", params), m.valid("r", params)) + `
RETURN count(r) AS count`,
		degreeHist: `MATCH (n)` + where(m.kept("n", params)) + `
WITH ` + deg + ` AS degree
RETURN degree, count(*) AS nodes ORDER BY degree`,
		hubs: `MATCH (n) WHERE ` + m.hasID("n", params) + `
WITH ` + m.idOf("n") + ` AS id, ` + deg + ` AS degree
WHERE degree >= $min
WITH id, degree ORDER BY degree DESC, id
WITH collect([id, degree]) AS hubs
RETURN size(hubs) AS count, hubs[..$limit] AS hubs`,
		clustering: `MATCH (n) WHERE ` + all(m.kept("n", params), deg+" >= 2") + `
WITH n ORDER BY elementId(n)
WITH collect(n) AS ns
UNWIND $positions AS p
WITH ns[p] AS n
CALL (n) {
  MATCH (n)-[r` + ts + `]-(m) WHERE ` + all("m <> n", m.kept("m", params), m.valid("r", params)) + `
  RETURN collect(DISTINCT m) AS nb
}
CALL (nb) {
  UNWIND nb AS a
  MATCH (a)-[r` + ts + `]-(b)
  WHERE ` + all("elementId(a) < elementId(b)", "b IN nb", m.valid("r", params)) + `
  RETURN count(DISTINCT [elementId(a), elementId(b)]) AS links
}
RETURN size(nb) AS k, links, count(*) AS nodes`,
	}
}

// readQueries are readNodesQuery and readRelsQuery under the mapping: the
// graph as stored, less what the mapping leaves out.
func (m *mapping) readQueries(params map[string]any) (nodes, rels string) {
	match := "MATCH (n" + m.label() + ")"
	if w := m.where("n", params); w != "" {
		match += " WHERE " + w
	}
	nodes = mustReplaceOnce(readNodesQuery, "MATCH (n)", match)
	rels = m.between(nil, params) + `
RETURN elementId(a) AS start, elementId(b) AS end, type(r) AS type, properties(r) AS props`
	return nodes, rels
}

// mustReplaceOnce replaces old, which must occur exactly once in s, by
// new: the mapped queries are the unmapped ones rewritten, so a change to
// those fails loudly here.
func mustReplaceOnce(s, old, new string) string {
	if strings.Count(s, old) != 1 {
		panic("neo4jdb: the query text to replace is not there once: " + old)
	}
	return strings.Replace(s, old, new, 1)
}
