package main

import (
	"context"
	"testing"
	"time"

	"github.com/memoria-graph/memoria/graph"
	"github.com/memoria-graph/memoria/graph/neo4jdb"
	"github.com/memoria-graph/memoria/retriever"
	"github.com/memoria-graph/memoria/retriever/activation"
	"github.com/memoria-graph/memoria/retriever/activation/onneo4j"
	"github.com/memoria-graph/memoria/retriever/ppr"
	"github.com/memoria-graph/memoria/testkit/randgraph"
	"github.com/memoria-graph/memoria/testkit/scale1m"
	"github.com/neo4j/neo4j-go-driver/v5/neo4j"
)

// BenchmarkNeo4jPPRFloor1M measures what personalized PageRank's default
// run (ε 1e-6) cannot avoid reading on Neo4j, beside Activation Energy's
// fast path in the same run, on BenchmarkNeo4jRetrievers1M's server, graph
// and seeds (docs/PERFORMANCE.md, "Personalized PageRank": the target of
// ≤ 3× the fast path, and why no exact push meets it there).
//
// One default run, traced, gives the element ids PPR's Arcs queries ask
// for (the nodes it pushes, each read whole: an exact push must spread a
// pushed node's residual over every one of its relationships) and those
// its Strengths queries ask for (the nodes it weighs). Then, p50 of 7
// each, every query in its own read transaction as the reader runs them:
//
//   - find the pushed nodes by element id, return only their count;
//   - … and sum their RELATES degrees;
//   - … and walk their relationships on the server, summing the weights
//     and counting the other ends, returning one row (the least work of
//     any push: it transfers nothing);
//   - the Arcs query as PPR sends it (the other ends' ids, element ids and
//     weights, a row per node);
//   - the Strengths query over the weighed nodes as PPR sends it;
//   - PPR's whole default run.
//
// Each is reported as a ratio to the fast path's p50; the loop times the
// fast path.
func BenchmarkNeo4jPPRFloor1M(b *testing.B) {
	const n, m, typed = 100_000, 1_000_000, 200_000
	srv, src := scale1m.Server(b, "typed", n, m+typed, func() []byte { return randgraph.ScaleTyped(n, m, typed, 2.5, 1) })
	ctx := context.Background()
	seeds := scale1m.Seeds
	tags := []string{randgraph.ScaleTag(0), randgraph.ScaleTag(3)}
	q := retriever.Query{Seeds: seeds, Tags: tags}

	fast, err := activation.New(onneo4j.New(src), activation.DefaultParams(), activation.DefaultOptions())
	if err != nil {
		b.Fatal(err)
	}
	runActivation := func() {
		if _, err := fast.ExploreAll(ctx, seeds, tags); err != nil {
			b.Fatal(err)
		}
	}
	nb := neo4jdb.NewNeighbourhood(src)
	runPPR := func() {
		if _, err := ppr.Retrieve(ctx, nb, q, ppr.DefaultParams()); err != nil {
			b.Fatal(err)
		}
	}
	arcsQuery, strengthsQuery := neo4jdb.ArcsQuery(graph.Relates), neo4jdb.StrengthsQuery(graph.Relates)
	var pushed, weighed []string
	nb.SetTrace(func(query string, params map[string]any) {
		refs, _ := params["refs"].([]string)
		switch query {
		case arcsQuery:
			pushed = append(pushed, refs...)
		case strengthsQuery:
			weighed = append(weighed, refs...)
		}
	})
	for t0 := time.Now(); time.Since(t0) < 5*time.Second; {
		runActivation()
	}
	runPPR()
	nb.SetTrace(nil)
	if len(pushed) == 0 || len(weighed) == 0 {
		b.Fatalf("the traced run sent %d Arcs and %d Strengths element ids: the queries' text changed?", len(pushed), len(weighed))
	}

	auth := neo4j.NoAuth()
	if srv.Username != "" {
		auth = neo4j.BasicAuth(srv.Username, srv.Password, "")
	}
	drv, err := neo4j.NewDriverWithContext(srv.URI, auth)
	if err != nil {
		b.Fatal(err)
	}
	defer drv.Close(ctx)
	read := func(query string, refs []string) func() {
		return func() {
			ctx, cancel := context.WithTimeout(ctx, time.Minute)
			defer cancel()
			s := drv.NewSession(ctx, neo4j.SessionConfig{AccessMode: neo4j.AccessModeRead})
			defer s.Close(ctx)
			if _, err := neo4j.ExecuteRead(ctx, s, func(tx neo4j.ManagedTransaction) (int, error) {
				res, err := tx.Run(ctx, query, map[string]any{"refs": refs, "missing": graph.MissingRelatesWeight})
				if err != nil {
					return 0, err
				}
				rows := 0
				for res.Next(ctx) {
					rows++
				}
				return rows, res.Err()
			}); err != nil {
				b.Fatal(err)
			}
		}
	}
	p50 := func(f func()) time.Duration { return p50n(7, f) }
	act := p50(runActivation)
	b.Logf("activation fast path p50 %v; PPR pushed %d nodes, weighed %d", act.Round(time.Millisecond), len(pushed), len(weighed))
	steps := []struct {
		name, metric, query string
		refs                []string
	}{
		{"find the pushed nodes", "find/activation", `UNWIND $refs AS ref MATCH (n) WHERE elementId(n) = ref RETURN count(n)`, pushed},
		{"… and their degrees", "degrees/activation", `UNWIND $refs AS ref MATCH (n) WHERE elementId(n) = ref RETURN sum(COUNT { (n)-[:RELATES]-() })`, pushed},
		{"… and walk their relationships, one row back", "walk/activation", `UNWIND $refs AS ref MATCH (n) WHERE elementId(n) = ref
CALL (n) { MATCH (n)-[r:RELATES]-(m) RETURN sum(coalesce(r.weight, $missing)) AS w, count(m) AS c }
RETURN sum(c), sum(w)`, pushed},
		{"the Arcs query as PPR sends it", "arcs/activation", arcsQuery, pushed},
		{"the Strengths query as PPR sends it", "strengths/activation", strengthsQuery, weighed},
	}
	for _, s := range steps {
		d := p50(read(s.query, s.refs))
		b.Logf("%-45s over %6d: p50 %v (×%.2f)", s.name, len(s.refs), d.Round(time.Millisecond), float64(d)/float64(act))
		b.ReportMetric(float64(d)/float64(act), s.metric)
	}
	whole := p50(runPPR)
	b.Logf("%-45s: p50 %v (×%.2f)", "PPR's default run", whole.Round(time.Millisecond), float64(whole)/float64(act))
	b.ReportMetric(float64(whole)/float64(act), "ppr/activation")
	b.ReportMetric(float64(act)/float64(time.Millisecond), "activation-p50-ms")
	for b.Loop() {
		runActivation()
	}
}
