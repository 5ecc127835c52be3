package neo4jtest

import (
	"context"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/neo4j/neo4j-go-driver/v5/neo4j"

	"github.com/memoria-graph/memoria/graph"
)

// DumpNode and DumpRel are a graph's elements as Dump renders them: Start
// and End index the nodes.
type (
	DumpNode struct {
		Labels []string
		Props  map[string]any
	}
	DumpRel struct {
		Start, End int
		Type       string
		Props      map[string]any
	}
)

// Dump renders the whole default database of d canonically (DumpOf), so
// that tests can compare a database with itself at two times, or with the
// graph it should hold, exactly.
func Dump(t testing.TB, d neo4j.DriverWithContext) string {
	t.Helper()
	ctx := context.Background()
	nodes, err := neo4j.ExecuteQuery(ctx, d, "MATCH (n) RETURN elementId(n) AS eid, labels(n) AS labels, properties(n) AS props", nil, neo4j.EagerResultTransformer)
	if err != nil {
		t.Fatalf("neo4jtest: dump: %v", err)
	}
	rels, err := neo4j.ExecuteQuery(ctx, d, "MATCH (a)-[r]->(b) RETURN elementId(a) AS a, elementId(b) AS b, type(r) AS type, properties(r) AS props", nil, neo4j.EagerResultTransformer)
	if err != nil {
		t.Fatalf("neo4jtest: dump: %v", err)
	}
	index := make(map[string]int, len(nodes.Records))
	dn := make([]DumpNode, len(nodes.Records))
	for i, rec := range nodes.Records {
		eid, _ := rec.Get("eid")
		labels, _ := rec.Get("labels")
		props, _ := rec.Get("props")
		index[eid.(string)] = i
		for _, l := range labels.([]any) {
			dn[i].Labels = append(dn[i].Labels, l.(string))
		}
		dn[i].Props = props.(map[string]any)
	}
	dr := make([]DumpRel, len(rels.Records))
	for i, rec := range rels.Records {
		a, _ := rec.Get("a")
		b, _ := rec.Get("b")
		typ, _ := rec.Get("type")
		props, _ := rec.Get("props")
		dr[i] = DumpRel{Start: index[a.(string)], End: index[b.(string)], Type: typ.(string), Props: props.(map[string]any)}
	}
	return DumpOf(dn, dr)
}

// DumpOf renders a graph canonically, independent of element ids and
// order: one line per node, its labels (sorted) and properties
// (graph.CanonicalProps: the values as Neo4j stores them, so an integer 1
// and a float 1.0 differ), then one line per relationship, its start
// node's line, type, properties and end node's line; each part sorted. Two graphs render the
// same exactly when they hold the same nodes and relationships (as
// multisets: identical nodes are not told apart).
func DumpOf(nodes []DumpNode, rels []DumpRel) string {
	nl := make([]string, len(nodes))
	for i, n := range nodes {
		labels := slices.Sorted(slices.Values(n.Labels))
		nl[i] = "(" + strings.Join(labels, ":") + " " + graph.CanonicalProps(n.Props) + ")"
	}
	rl := make([]string, len(rels))
	for i, r := range rels {
		rl[i] = nl[r.Start] + "-[" + strconv.Quote(r.Type) + " " + graph.CanonicalProps(r.Props) + "]->" + nl[r.End]
	}
	slices.Sort(nl)
	slices.Sort(rl)
	return fmt.Sprintf("%d nodes\n%s\n%d relationships\n%s\n", len(nl), strings.Join(nl, "\n"), len(rl), strings.Join(rl, "\n"))
}
