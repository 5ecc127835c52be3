package neo4jload

import (
	"fmt"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/memoria-graph/memoria/graph"
	"github.com/memoria-graph/memoria/graph/apoc"
	"github.com/memoria-graph/memoria/internal/cypherlit"
)

// Plan is what Load writes for a graph, built before it connects: the
// statements (index creations, and per label list and relationship type
// the UNWIND queries) and the rows of their batches. Building it needs no
// database, so a graph the checker accepts can be shown to give statements
// Neo4j accepts too (FuzzParse in graph/apoc does).
type Plan struct {
	g     *apoc.Graph
	batch int

	indexNames []string
	indexes    []string // CREATE INDEX statements, in IndexLabels order

	nodeGroups []*nodeGroup
	relTypes   []*relType
	// appID maps a node's internal id to its application id.
	appID map[string]string
}

// nodeGroup is the nodes that share one label list, with the queries that
// write them.
type nodeGroup struct {
	labels []string
	// merge writes rows {id, props} (labelled nodes; "" for the group
	// without labels, which unlabelledBatch writes); takeOver writes rows
	// {eid, id, props} onto given nodes (see loader.takeOver).
	merge, takeOver string
	rows            []map[string]any
}

// relType is the relationships of one type: groups of identical ones.
type relType struct {
	typ    string
	query  string
	groups []*relGroup
}

// relGroup is k identical relationships.
type relGroup struct {
	start, end string // application ids
	props      map[string]any
	k          int64
}

// Prepare checks g (ValidateForLoad) and builds the statements Load runs
// for it in batches of batch rows (DefaultBatchSize when batch <= 0). Every
// label, relationship type and property key of a statement is checked once
// more as Neo4j checks names; an error there means the checker let through
// a name Neo4j refuses.
func Prepare(g *apoc.Graph, batch int) (*Plan, error) {
	if err := ValidateForLoad(g); err != nil {
		return nil, err
	}
	if batch <= 0 {
		batch = DefaultBatchSize
	}
	p := &Plan{g: g, batch: batch, appID: make(map[string]string, len(g.Nodes))}
	var q quoter

	labels := apoc.IndexLabels(g)
	p.indexNames = apoc.IndexNames(labels)
	p.indexes = apoc.IndexStatements(labels)

	byKey := make(map[string]*nodeGroup)
	for i := range g.Nodes {
		n := &g.Nodes[i]
		id := n.Properties["id"].(string) // ValidateForLoad: every node has one
		p.appID[n.InternalID] = id
		key := strings.Join(n.Labels, "\x00")
		grp, ok := byKey[key]
		if !ok {
			grp = &nodeGroup{labels: n.Labels, merge: mergeQuery(&q, n.Labels), takeOver: takeOverQuery(&q, n.Labels)}
			byKey[key] = grp
			p.nodeGroups = append(p.nodeGroups, grp)
		}
		for k := range n.Properties {
			q.name(k)
		}
		grp.rows = append(grp.rows, map[string]any{"id": id, "props": n.Properties})
	}

	byType := make(map[string]*relType)
	index := make(map[string]*relGroup)
	for i := range g.Rels {
		r := &g.Rels[i]
		s, e := p.appID[r.Start], p.appID[r.End]
		key := strconv.Quote(r.Type) + " " + strconv.Quote(s) + " " + strconv.Quote(e) + " " + graph.CanonicalProps(r.Properties)
		if grp, ok := index[key]; ok {
			grp.k++
			continue
		}
		for k := range r.Properties {
			q.name(k)
		}
		grp := &relGroup{start: s, end: e, props: r.Properties, k: 1}
		index[key] = grp
		rt, ok := byType[r.Type]
		if !ok {
			rt = &relType{typ: r.Type, query: fmt.Sprintf(relsQuery, q.name(r.Type))}
			byType[r.Type] = rt
			p.relTypes = append(p.relTypes, rt)
		}
		rt.groups = append(rt.groups, grp)
	}
	if q.err != nil {
		return nil, q.err
	}
	return p, nil
}

// Queries lists the distinct statements of the plan: the index creations,
// each label list's merge and take-over queries, each relationship type's
// query.
func (p *Plan) Queries() []string {
	out := append([]string(nil), p.indexes...)
	for _, grp := range p.nodeGroups {
		if grp.merge != "" {
			out = append(out, grp.merge)
		}
		out = append(out, grp.takeOver)
	}
	for _, rt := range p.relTypes {
		out = append(out, rt.query)
	}
	return out
}

// quoter quotes names for statements, keeping the first name Neo4j would
// refuse ("Token names cannot be empty or contain any null-bytes"; invalid
// UTF-8 would be stored altered).
type quoter struct{ err error }

func (q *quoter) name(name string) string {
	if q.err == nil && (name == "" || strings.IndexByte(name, 0) >= 0 || !utf8.ValidString(name)) {
		q.err = fmt.Errorf("a statement would use the name %s, which Neo4j refuses", strconv.Quote(name))
	}
	return cypherlit.QuoteName(name)
}

// mergeQuery merges rows {id, props} on the first label and id, sets the
// properties and adds the other labels; it returns each row's id, the
// node's element id and labels. Nodes without labels have none ("").
func mergeQuery(q *quoter, labels []string) string {
	if len(labels) == 0 {
		return ""
	}
	var b strings.Builder
	b.WriteString("UNWIND $rows AS row\nMERGE (n:")
	b.WriteString(q.name(labels[0]))
	b.WriteString(" {id: row.id})\nSET n = row.props")
	if len(labels) > 1 {
		b.WriteString(", n")
		for _, lb := range labels[1:] {
			b.WriteString(":" + q.name(lb))
		}
	}
	b.WriteString("\nRETURN row.id AS id, elementId(n) AS eid, labels(n) AS labels")
	return b.String()
}

// takeOverQuery writes rows {eid, id, props} onto the nodes with those
// element ids: properties replaced, the labels added.
func takeOverQuery(q *quoter, labels []string) string {
	var b strings.Builder
	b.WriteString("UNWIND $rows AS row\nMATCH (n) WHERE elementId(n) = row.eid\nSET n = row.props")
	if len(labels) > 0 {
		b.WriteString(", n")
		for _, lb := range labels {
			b.WriteString(":" + q.name(lb))
		}
	}
	b.WriteString("\nRETURN row.id AS id, elementId(n) AS eid, labels(n) AS labels")
	return b.String()
}

// relsQuery creates, for each row (a group of k identical relationships of
// the type, the %[1]s), the ones missing between the two nodes, and returns
// the element ids of the k that the group keeps: those already there (at
// most k) and the new ones. Rows are told apart by i: two rows whose maps
// Cypher finds equal (weight 1 and 1.0) must not merge in the aggregation.
const relsQuery = `UNWIND $rows AS row
MATCH (a) WHERE elementId(a) = row.s
MATCH (b) WHERE elementId(b) = row.e
OPTIONAL MATCH (a)-[r:%[1]s]->(b)
  WHERE properties(r) = row.props
    AND all(k IN keys(row.props) WHERE valueType(r[k]) STARTS WITH 'LIST' OR valueType(r[k]) = valueType(row.props[k]))
WITH a, b, row, collect(r) AS found
CALL {
  WITH a, b, row, found
  UNWIND range(1, row.k - size(found)) AS j
  CREATE (a)-[c:%[1]s]->(b) SET c = row.props
  RETURN collect(elementId(c)) AS created
}
RETURN row.i AS i, [x IN found[0..row.k] | elementId(x)] + created AS kept`
