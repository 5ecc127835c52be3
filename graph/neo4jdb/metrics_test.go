package neo4jdb_test

import (
	"context"
	"math/rand"
	"reflect"
	"testing"

	"github.com/memoria-graph/memoria/graph"
	"github.com/memoria-graph/memoria/graph/apoc"
	"github.com/memoria-graph/memoria/graph/inmem"
	"github.com/memoria-graph/memoria/testkit/neo4jfix"
	"github.com/memoria-graph/memoria/testkit/randgraph"
)

// embeddedMetrics is the embedded engine's (exact) metrics of g.
func embeddedMetrics(t *testing.T, g *apoc.Graph) graph.Metrics {
	t.Helper()
	ig, err := inmem.New(g, "embedded")
	if err != nil {
		t.Fatal(err)
	}
	m, err := ig.Metrics(context.Background(), graph.MetricsOptions{})
	if err != nil {
		t.Fatal(err)
	}
	return m
}

// TestMetricsDemoMatchesEmbedded: on the demo graph (57 nodes) a sample
// of 1000 covers every node of degree ≥ 2, so Neo4j's metrics are the
// embedded engine's exactly, clustering included (both sum the local
// coefficients in one order). A sample of 10 is marked as one, of the
// same population, and its coefficient lies in [0, 1]; with another
// seed it is another sample, with the same seed the same figure.
func TestMetricsDemoMatchesEmbedded(t *testing.T) {
	src := fx.Demo(t)
	ctx := context.Background()
	want := embeddedMetrics(t, neo4jfix.DemoGraph(t))
	got, err := src.Metrics(ctx, graph.MetricsOptions{Sample: 1000, Seed: 1})
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("Neo4j\n%+v\nembedded\n%+v", got, want)
	}
	s1, err := src.Metrics(ctx, graph.MetricsOptions{Sample: 10, Seed: 1})
	if err != nil {
		t.Fatal(err)
	}
	var population int64
	for _, h := range want.Histogram {
		if h.Degree >= 2 {
			population += h.Nodes
		}
	}
	c := s1.Clustering
	if !c.Sampled || c.Sample != 10 || c.Population != population || c.Seed != 1 || c.Nodes > 10 || c.Coefficient < 0 || c.Coefficient > 1 {
		t.Errorf("sample of 10: %+v (population %d)", c, population)
	}
	again, err := src.Metrics(ctx, graph.MetricsOptions{Sample: 10, Seed: 1})
	if err != nil || again.Clustering != c {
		t.Errorf("same seed: %+v, %v; first %+v", again.Clustering, err, c)
	}
	deg, err := src.Degrees(ctx, []string{"N2006", "T4030", "no such node"})
	if err != nil || !reflect.DeepEqual(deg, map[string]int64{"N2006": 4, "T4030": 2}) {
		t.Errorf("Degrees: %v, %v", deg, err)
	}
}

// TestMetricsRandomMatchEmbedded: on random graphs (hubs, parallel
// relationships, self-loops, nodes without id) Neo4j's counts, histogram,
// percentiles, hubs and, with a sample of every node, clustering are the
// embedded engine's.
func TestMetricsRandomMatchEmbedded(t *testing.T) {
	r := rand.New(rand.NewSource(1903))
	for i := 0; i < 6; i++ {
		g := randgraph.Generate(r, randgraph.Random(r, 5, 120))
		want := embeddedMetrics(t, g)
		src := fx.Graph(t, g)
		got, err := src.Metrics(context.Background(), graph.MetricsOptions{Sample: 1000})
		if err != nil {
			t.Fatal(err)
		}
		if !reflect.DeepEqual(got, want) {
			t.Errorf("graph %d: Neo4j\n%+v\nembedded\n%+v", i, got, want)
		}
	}
}
