package neo4jdb_test

import (
	"context"
	"testing"

	"github.com/memoria-graph/memoria/graph"
	"github.com/memoria-graph/memoria/testkit/randgraph"
	"github.com/memoria-graph/memoria/testkit/scale1m"
)

// BenchmarkCheckSchema1M is what opening a graph through a schema mapping
// costs on Neo4j: Source.CheckSchema, the one aggregation that counts the
// nodes and the relationships a mapping's refusals need, on the scale
// graph (randgraph.Scale(100_000, 1_000_000, 2.5, 1): BenchmarkNeo4jScale's
// "uniform" database, on `make neo4j`'s settings) read under memoria's own
// names with a default weight (a mapping that is not memoria's own, so the
// check runs: every node, and the weight and tags of every one of the 1M
// RELATES), and with the label Event besides (about a sixth of the nodes,
// so of each relationship's ends).
func BenchmarkCheckSchema1M(b *testing.B) {
	const n, m = 100_000, 1_000_000
	_, src := scale1m.Server(b, "uniform", n, m, func() []byte { return randgraph.Scale(n, m, 2.5, 1) })
	ctx := context.Background()
	for _, c := range []struct {
		name, label string
	}{{"every-node", ""}, {"label-Event", "Event"}} {
		b.Run(c.name, func(b *testing.B) {
			sc := graph.MemoriaSchema()
			w := 0.01
			sc.DefaultWeight, sc.NodeLabel = &w, c.label
			if err := src.SetSchema(sc); err != nil {
				b.Fatal(err)
			}
			if err := src.CheckSchema(ctx); err != nil { // warms the server
				b.Fatal(err)
			}
			for b.Loop() {
				if err := src.CheckSchema(ctx); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
