package onneo4j

import (
	"context"
	"fmt"
	"maps"
	"strings"

	"github.com/neo4j/neo4j-go-driver/v5/neo4j"

	"github.com/memoria-graph/memoria/graph"
	"github.com/memoria-graph/memoria/graph/neo4jdb"
)

// The fast path under a schema mapping (docs/RETRIEVERS.md, "Other
// schemas"): the same queries with the mapped names written in, as quoted
// identifiers (neo4jdb.SchemaCypher), the mapping's values as parameters.
// The snapshot reads a node's adjacency the same way (mapAdjacency). The
// specification's Cypher (--cypher seed) reads memoria's own shape only.

// mapQuery rewrites one of the fast path's expansion queries (a filter's
// predicate already in it) for the mapping sc: the traversed types, the
// degree over them in the mapped graph, a neighbour in the mapped graph
// with its mapped id, invalidated facts left out, the mapped weight (the
// default for a missing one) and tags (a string split on the separator).
func mapQuery(q string, sc *neo4jdb.SchemaCypher) string {
	q = mustReplace(q, "COUNT { (current)-[:RELATES]-() }", sc.Degree("current"))
	q = strings.ReplaceAll(q, "COUNT { (neighbor)-[:RELATES]-() }", sc.Degree("neighbor"))
	q = mustReplace(q, "(current)-[r:RELATES]-(neighbor)", "(current)-[r"+sc.Types()+"]-(neighbor)")
	guard := sc.HasID("neighbor")
	if v := sc.Valid("r"); v != "" {
		guard += " AND " + v
	}
	q = mustReplace(q, "neighbor.id IS NOT NULL AND", guard+" AND")
	q = strings.ReplaceAll(q, "neighbor.id", sc.IDOf("neighbor"))
	q = strings.ReplaceAll(q, "r.weight", "("+sc.Weight("r")+")")
	q = strings.ReplaceAll(q, "r.tags", "("+sc.Tags("r")+")")
	return q
}

// mappedSeedQuery finds seeds ($requests of {i, node_id}) by their mapped
// id in the mapped graph: on the mapping's label, else among the labels
// given (none: every node), with the mapping's property value.
func mappedSeedQuery(sc *neo4jdb.SchemaCypher, labels []string) string {
	return `UNWIND $requests AS q
MATCH (n` + sc.Label() + `) WHERE ` + sc.IDOf("n") + ` = q.node_id` + whereAnd(sc) + labelsAnd(labels) + `
RETURN q.i AS request, properties(n) AS data, labels(n) AS labels, elementId(n) AS element_id`
}

// mappedResolveQuery is resolveIndexQuery (resolveScanQuery without
// labels) by the mapped id, in the mapped graph.
func mappedResolveQuery(sc *neo4jdb.SchemaCypher, labels []string) string {
	return `UNWIND $ids AS id
MATCH (n` + sc.Label() + `) WHERE ` + sc.IDOf("n") + ` = id` + whereAnd(sc) + labelsAnd(labels) + `
RETURN id, elementId(n) AS element_id`
}

// whereAnd is " AND " and the mapping's property filter on n, "" without
// one (its value is in the mapping's Params).
func whereAnd(sc *neo4jdb.SchemaCypher) string {
	if w := sc.Where("n"); w != "" {
		return " AND " + w
	}
	return ""
}

func labelsAnd(labels []string) string {
	if len(labels) == 0 {
		return ""
	}
	return " AND (" + labelDisjunction("n", labels) + ")"
}

// lookupQueries are the seed or resolve queries in the order tried:
// under a label filter one (the label's index, if any, serves it);
// otherwise through the indexed labels, then a scan.
func lookupQueries(sc *neo4jdb.SchemaCypher, indexed []string, q func(*neo4jdb.SchemaCypher, []string) string) []string {
	if sc.Schema().NodeLabel != "" || len(indexed) == 0 {
		return []string{q(sc, nil)}
	}
	return []string{q(sc, indexed), q(sc, nil)}
}

// withSchema adds the mapping's parameters to params.
func withSchema(params map[string]any, sc *neo4jdb.SchemaCypher) map[string]any {
	maps.Copy(params, sc.Params())
	return params
}

// schema is the backend's mapping, nil under memoria's own schema.
func (c *neo4jExpander) schema() *neo4jdb.SchemaCypher {
	if c.backend == nil || !c.fast() {
		return nil
	}
	return c.backend.src.SchemaCypher()
}

// mappedSeed finds the seed by its mapped id (FetchSeed under a mapping).
func (c *neo4jExpander) mappedSeed(ctx context.Context, sc *neo4jdb.SchemaCypher, nodeID string) (graph.Node, bool, error) {
	var recs []*neo4j.Record
	for _, q := range lookupQueries(sc, c.indexed, mappedSeedQuery) {
		var err error
		if recs, err = c.backend.batch.do(ctx, q, withSchema(map[string]any{}, sc), map[string]any{"node_id": nodeID}); err != nil {
			return graph.Node{}, false, err
		}
		if len(recs) > 0 {
			break
		}
	}
	switch len(recs) {
	case 0:
		return graph.Node{}, false, nil
	case 1:
	default:
		return graph.Node{}, false, fmt.Errorf("Neo4j has %d nodes with %s %q; node ids must be unique", len(recs), sc.Schema().IDProperty, nodeID)
	}
	props, err := neo4jdb.Column[map[string]any](recs[0], "data")
	if err != nil {
		return graph.Node{}, false, err
	}
	labels, err := neo4jdb.Strings(recs[0], "labels")
	if err != nil {
		return graph.Node{}, false, err
	}
	n, err := sc.Node(props, labels, nodeID)
	if err != nil {
		return graph.Node{}, false, err
	}
	eid, err := neo4jdb.Column[string](recs[0], "element_id")
	if err != nil {
		return graph.Node{}, false, err
	}
	c.elements[nodeID] = []string{eid}
	return n, true, nil
}

// mappedCandidate reads a candidate's neighbour and relationship under the
// mapping.
func mappedCandidate(rec *neo4j.Record, sc *neo4jdb.SchemaCypher, props map[string]any, parent, nid string) (graph.Node, graph.Edge, error) {
	data, err := neo4jdb.Column[map[string]any](rec, "neighbor_data")
	if err != nil {
		return graph.Node{}, graph.Edge{}, err
	}
	labels, err := neo4jdb.Strings(rec, "neighbor_labels")
	if err != nil {
		return graph.Node{}, graph.Edge{}, err
	}
	nb, err := sc.Node(data, labels, nid)
	if err != nil {
		return graph.Node{}, graph.Edge{}, err
	}
	edge, err := sc.Edge(props, parent, nid)
	if err != nil {
		return graph.Node{}, graph.Edge{}, fmt.Errorf("relationship (%q)-[:%s]-(%q): %w", parent, graph.Relates, nid, err)
	}
	return nb, edge, nil
}

// mapAdjacency rewrites the snapshot's adjacency read (a filter's predicate
// already on its OPTIONAL MATCH, or none) for the mapping sc: the degree
// over the traversed types in the mapped graph, the relationships of those
// types to a neighbour in the mapped graph with an id, invalidated facts
// left out, the neighbour's mapped id. The weight and tags are read from
// the relationship's properties in Go (SchemaCypher.Edge).
func mapAdjacency(q string, sc *neo4jdb.SchemaCypher) string {
	q = mustReplace(q, "COUNT { (current)-[:RELATES]-() }", sc.Degree("current"))
	guard := sc.HasID("neighbor")
	if v := sc.Valid("r"); v != "" {
		guard += " AND " + v
	}
	const optional = "OPTIONAL MATCH (current)-[r:RELATES]-(neighbor)\n"
	mapped := "OPTIONAL MATCH (current)-[r" + sc.Types() + "]-(neighbor)\n"
	if strings.Contains(q, optional+"WHERE ") {
		q = mustReplace(q, optional+"WHERE ", mapped+"WHERE "+guard+" AND (")
		q = mustReplace(q, "\nRETURN ", ")\nRETURN ")
	} else {
		q = mustReplace(q, optional, mapped+"WHERE "+guard+"\n")
	}
	return mustReplace(q, "neighbor.id ", sc.IDOf("neighbor")+" ")
}

// snapNeighbor reads a snapshot row's neighbour with id id, under the
// mapping sc when it is not nil.
func snapNeighbor(rec *neo4j.Record, sc *neo4jdb.SchemaCypher, id string) (graph.Node, error) {
	if sc == nil {
		return neo4jdb.NodeFromRecord(rec, "neighbor_data", "neighbor_labels", id)
	}
	data, err := neo4jdb.Column[map[string]any](rec, "neighbor_data")
	if err != nil {
		return graph.Node{}, err
	}
	labels, err := neo4jdb.Strings(rec, "neighbor_labels")
	if err != nil {
		return graph.Node{}, err
	}
	return sc.Node(data, labels, id)
}
