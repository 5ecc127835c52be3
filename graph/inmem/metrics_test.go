package inmem

import (
	"context"
	"math"
	"math/rand"
	"reflect"
	"slices"
	"testing"

	"github.com/memoria-graph/memoria/graph"
	"github.com/memoria-graph/memoria/testkit/randgraph"
)

// TestMetricsTrianglePendant: the triangle A–B–C with D hanging off C (and
// a KNOWS B→D, which no degree counts). Degrees 2, 2, 3, 1. Clustering:
// A's neighbours B, C are linked (1), so are B's A, C (1); C's A, B, D
// have one linked pair of three (1/3); D has one neighbour and is left
// out: (1 + 1 + 1/3) / 3 = 7/9 over 3 nodes. Tags x, y: 2. Hub: C (degree
// 3 = p99 > p50 = 2).
func TestMetricsTrianglePendant(t *testing.T) {
	g := loadGo(t, nd("0", "A"), nd("1", "B"), nd("2", "C"), nd("3", "D"),
		rl("10", "0", "1", `"tags":["x"]`), rl("11", "1", "2", `"tags":["x","y"]`), rl("12", "2", "0", ""), rl("13", "2", "3", ""),
		rt("14", "KNOWS", "1", "3", ""))
	m, err := g.Metrics(context.Background(), graph.MetricsOptions{})
	if err != nil {
		t.Fatal(err)
	}
	want := graph.Metrics{Nodes: 4, Relationships: 5, ByType: []graph.TypeCount{{Type: "KNOWS", Count: 1}, {Type: "RELATES", Count: 4}}, Relates: 4,
		AverageDegree: 2, Degree: graph.DegreePercentiles{P50: 2, P90: 3, P99: 3, Max: 3},
		Histogram: []graph.DegreeCount{{Degree: 1, Nodes: 1}, {Degree: 2, Nodes: 2}, {Degree: 3, Nodes: 1}}, Tags: 2,
		Clustering: graph.Clustering{Coefficient: (1 + 1 + 1.0/3) / 3, Nodes: 3},
		HubDegree:  3, HubCount: 1, Hubs: []graph.NodeDegree{{ID: "C", Degree: 3}}}
	if !reflect.DeepEqual(m, want) {
		t.Errorf("got\n%+v\nwant\n%+v", m, want)
	}
	deg, err := g.Degrees(context.Background(), []string{"C", "D", "nope"})
	if err != nil || !reflect.DeepEqual(deg, map[string]int64{"C": 3, "D": 1}) {
		t.Errorf("Degrees: %v, %v", deg, err)
	}
}

// TestMetricsParallelAndSelfLoop: A–B twice, B–C, C–A, a self-loop on C,
// D alone (with a MENTIONS to A) and a node without id, E, tied to D.
// Degrees (rule 1): A 3, B 3, C 3 (the self-loop once), D 1, E 1; sum
// 2 × 6 − 1 = 11 over 5 nodes. On the simple graph A, B, C form a
// triangle (the parallel pair is one link, the self-loop no neighbour):
// clustering 1 over 3 nodes. p50 = rank 3 = 3 = p99: no hubs.
func TestMetricsParallelAndSelfLoop(t *testing.T) {
	g := loadGo(t, nd("0", "A"), nd("1", "B"), nd("2", "C"), nd("3", "D"), nd("4", ""),
		rl("10", "0", "1", ""), rl("11", "1", "0", ""), rl("12", "1", "2", ""), rl("13", "2", "0", ""), rl("14", "2", "2", ""),
		rl("15", "3", "4", ""), rt("16", "MENTIONS", "3", "0", ""))
	m, err := g.Metrics(context.Background(), graph.MetricsOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if m.Nodes != 5 || m.Relates != 6 || m.SelfLoops != 1 || m.Relationships != 7 || m.AverageDegree != 11.0/5 {
		t.Errorf("counts: %+v", m)
	}
	if m.Degree != (graph.DegreePercentiles{P50: 3, P90: 3, P99: 3, Max: 3}) || m.HubDegree != 0 || m.HubCount != 0 || m.Hubs != nil {
		t.Errorf("degrees: %+v, hubs %d %v", m.Degree, m.HubDegree, m.Hubs)
	}
	if m.Clustering != (graph.Clustering{Coefficient: 1, Nodes: 3}) {
		t.Errorf("clustering: %+v", m.Clustering)
	}
}

// naiveClustering is the definition, independently: an adjacency matrix of
// the simple graph, and every pair of every node's neighbours.
func naiveClustering(g *Graph) (float64, int64) {
	n := g.NodeCount()
	adj := make([][]bool, n)
	for i := range adj {
		adj[i] = make([]bool, n)
	}
	for u := int32(0); int(u) < n; u++ {
		nbr, _ := g.Relates(u)
		for _, v := range nbr {
			if v != u {
				adj[u][v], adj[v][u] = true, true
			}
		}
	}
	var sum float64
	var count int64
	for u := 0; u < n; u++ {
		var ns []int
		for v := 0; v < n; v++ {
			if adj[u][v] {
				ns = append(ns, v)
			}
		}
		if len(ns) < 2 {
			continue
		}
		var links int64
		for i := range ns {
			for j := i + 1; j < len(ns); j++ {
				if adj[ns[i]][ns[j]] {
					links++
				}
			}
		}
		sum += 2 * float64(links) / float64(len(ns)*(len(ns)-1))
		count++
	}
	if count == 0 {
		return 0, 0
	}
	return sum / float64(count), count
}

// TestMetricsRandomAgainstNaive compares the clustering and the degree
// histogram with the definitions on random graphs (hubs, parallel
// relationships, self-loops).
func TestMetricsRandomAgainstNaive(t *testing.T) {
	r := rand.New(rand.NewSource(19))
	for i := 0; i < 30; i++ {
		ag := randgraph.Generate(r, randgraph.Random(r, 2, 60))
		g, err := New(ag, "random")
		if err != nil {
			t.Fatal(err)
		}
		m, err := g.Metrics(context.Background(), graph.MetricsOptions{})
		if err != nil {
			t.Fatal(err)
		}
		c, n := naiveClustering(g)
		// The sums run in different orders: equal up to rounding.
		if math.Abs(m.Clustering.Coefficient-c) > 1e-12 || m.Clustering.Nodes != n {
			t.Errorf("graph %d: clustering %v over %d, naive %v over %d", i, m.Clustering.Coefficient, m.Clustering.Nodes, c, n)
		}
		var degs []int64
		var sum int64
		for u := int32(0); int(u) < g.NodeCount(); u++ {
			degs = append(degs, g.Degree(u))
			sum += g.Degree(u)
		}
		slices.Sort(degs)
		at := func(p int) int64 { return degs[(p*len(degs)+99)/100-1] }
		if want := (graph.DegreePercentiles{P50: at(50), P90: at(90), P99: at(99), Max: degs[len(degs)-1]}); m.Degree != want {
			t.Errorf("graph %d: %+v, want %+v", i, m.Degree, want)
		}
		if m.Nodes != int64(len(ag.Nodes)) || sum != 2*m.Relates-m.SelfLoops {
			t.Errorf("graph %d: %d nodes, degree sum %d, relates %d, self-loops %d", i, m.Nodes, sum, m.Relates, m.SelfLoops)
		}
	}
}
