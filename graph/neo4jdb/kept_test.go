package neo4jdb_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/memoria-graph/memoria/graph"
	"github.com/memoria-graph/memoria/graph/neo4jdb"
	"github.com/memoria-graph/memoria/retriever"
	"github.com/memoria-graph/memoria/retriever/ppr"
)

// strengthsOf reads the strengths of the nodes ids (all in the graph)
// over RELATES through nb, missing the weight of a relationship without
// one.
func strengthsOf(t *testing.T, nb graph.Neighbourhood, ids []string, missing float64) []float64 {
	t.Helper()
	var out []float64
	err := nb.Read(context.Background(), func(r graph.Reader) error {
		refs, err := r.Nodes(context.Background(), ids)
		if err != nil {
			return err
		}
		if len(refs) != len(ids) {
			return fmt.Errorf("found %d of %v", len(refs), ids)
		}
		ws, err := r.Strengths(context.Background(), refs, graph.Relates, missing)
		out = out[:0]
		for _, w := range ws {
			if !w.Clean {
				return fmt.Errorf("strengths %v: not clean", ws)
			}
			out = append(out, w.Total)
		}
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// arcsOf reads the arcs of the nodes ids (all in the graph) over RELATES
// through nb, as "from>to:weight" in the order Arcs gives them.
func arcsOf(t *testing.T, nb graph.Neighbourhood, ids []string) []string {
	t.Helper()
	var out []string
	err := nb.Read(context.Background(), func(r graph.Reader) error {
		refs, err := r.Nodes(context.Background(), ids)
		if err != nil {
			return err
		}
		arcs, err := r.Arcs(context.Background(), refs, graph.Relates, 0.01)
		out = out[:0]
		for _, a := range arcs {
			out = append(out, fmt.Sprintf("%s>%s:%v", refs[a.From].Node.ID, a.To.Node.ID, a.Weight))
		}
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	slices.Sort(out) // the order of one node's arcs follows element ids
	return out
}

// TestStrengthsKept: a Source keeps the strengths its readers read, for
// every later read of the same table, and reads again after any change of
// what W is computed from. The graph, written by hand: a–b RELATES weight
// 0.5, a–c weight 0.25, b–c without a weight. With a missing weight of
// 0.01 (the retrievers'), the sums from the smallest: W(a) = 0.25 + 0.5 =
// 0.75, W(b) = 0.01 + 0.5 = 0.51, W(c) = 0.01 + 0.25 = 0.26; with 0.1,
// W(b) = 0.1 + 0.5 = 0.6, W(c) = 0.1 + 0.25 = 0.35.
//
//   - first read: 3 nodes read from the server (StrengthsRead 3), 3 kept;
//   - the same read again, through another Neighbourhood of the source: the
//     same values, none read (3);
//   - missing 0.1: another table, 3 read (6), 6 kept;
//   - under a relationship filter (weight >= 0.3, which keeps a–b only):
//     the same W as unfiltered (a filter leaves strengths the graph's) but
//     another table, 3 read (9);
//   - another Source on the same database keeps its own: 3 read there;
//   - the arcs likewise (ArcsRead, ArcsKept): 3 nodes read, 6 arcs kept;
//     none read again; under the filter another table (3 more read, 3
//     more kept: a–b both ways and c's empty list);
//   - a write (a–b's weight set to 1.0): the next read reads again (12),
//     W(a) = 0.25 + 1 = 1.25, W(b) = 0.01 + 1 = 1.01, W(c) 0.26, and the
//     tables read before are dropped (3 kept); the arcs too (9 read, 6
//     kept, a–b weighing 1).
//
// Each expected value is graph.SumWeights of the weights listed, the one
// rule both engines follow.
func TestStrengthsKept(t *testing.T) {
	d := fx.Driver(t)
	fx.Cypher(t, d, "MATCH (n) DETACH DELETE n", nil)
	fx.Cypher(t, d, `CREATE (a:Memory {id: 'a'}), (b:Memory {id: 'b'}), (c:Memory {id: 'c'}),
	       (a)-[:RELATES {weight: 0.5}]->(b), (a)-[:RELATES {weight: 0.25}]->(c), (b)-[:RELATES]->(c)`, nil)
	ids := []string{"a", "b", "c"}
	sum := func(ws ...float64) float64 { return graph.SumWeights(ws).Total }
	src := neo4jdb.NewSource(d, "", "")
	check := func(step string, nb graph.Neighbourhood, missing float64, want []float64, read int64, kept int) {
		t.Helper()
		got := strengthsOf(t, nb, ids, missing)
		if fmt.Sprint(got) != fmt.Sprint(want) {
			t.Errorf("%s: strengths %v, want %v", step, got, want)
		}
		if n := src.StrengthsRead(); n != read {
			t.Errorf("%s: %d strengths read from the server in all, want %d", step, n, read)
		}
		if n := src.StrengthsKept(); n != kept {
			t.Errorf("%s: %d strengths kept, want %d", step, n, kept)
		}
	}
	base := []float64{sum(0.5, 0.25), sum(0.5, 0.01), sum(0.25, 0.01)}
	check("first read", neo4jdb.NewNeighbourhood(src), 0.01, base, 3, 3)
	check("again", neo4jdb.NewNeighbourhood(src), 0.01, base, 3, 3)
	check("missing 0.1", neo4jdb.NewNeighbourhood(src), 0.1, []float64{sum(0.5, 0.25), sum(0.5, 0.1), sum(0.25, 0.1)}, 6, 6)
	filter := graph.RelFilter{Where: []graph.RelCond{{Key: "weight", Op: graph.OpGE, Value: 0.3}}}
	check("filtered", neo4jdb.Filtered(src, filter), 0.01, base, 9, 9)
	check("filtered again", neo4jdb.Filtered(src, filter), 0.01, base, 9, 9)

	// The arcs, by hand: a's to b (0.5) and c (0.25), b's to a (0.5) and
	// c (missing: 0.01), c's to a (0.25) and b (0.01); under the filter
	// (weight >= 0.3) a's to b and b's to a, c none (an empty list, kept
	// at a cost of 1).
	all := []string{"a>b:0.5", "a>c:0.25", "b>a:0.5", "b>c:0.01", "c>a:0.25", "c>b:0.01"}
	arcs := func(step string, nb graph.Neighbourhood, want []string, read int64, kept int) {
		t.Helper()
		if got := arcsOf(t, nb, ids); fmt.Sprint(got) != fmt.Sprint(want) {
			t.Errorf("%s: arcs %v, want %v", step, got, want)
		}
		if n := src.ArcsRead(); n != read {
			t.Errorf("%s: %d nodes' arcs read from the server in all, want %d", step, n, read)
		}
		if n := src.ArcsKept(); n != kept {
			t.Errorf("%s: %d arcs kept, want %d", step, n, kept)
		}
	}
	arcs("arcs", neo4jdb.NewNeighbourhood(src), all, 3, 6)
	arcs("arcs again", neo4jdb.NewNeighbourhood(src), all, 3, 6)
	arcs("arcs filtered", neo4jdb.Filtered(src, filter), []string{"a>b:0.5", "b>a:0.5"}, 6, 9)
	arcs("arcs filtered again", neo4jdb.Filtered(src, filter), []string{"a>b:0.5", "b>a:0.5"}, 6, 9)

	other := neo4jdb.NewSource(d, "", "")
	if got := strengthsOf(t, neo4jdb.NewNeighbourhood(other), ids, 0.01); fmt.Sprint(got) != fmt.Sprint(base) || other.StrengthsRead() != 3 {
		t.Errorf("another source: strengths %v, %d read; want %v, 3", got, other.StrengthsRead(), base)
	}

	fx.Cypher(t, d, "MATCH (:Memory {id: 'a'})-[r]->(:Memory {id: 'b'}) SET r.weight = 1.0", nil)
	check("after a write", neo4jdb.NewNeighbourhood(src), 0.01, []float64{sum(1, 0.25), sum(1, 0.01), sum(0.25, 0.01)}, 12, 3)
	arcs("arcs after a write", neo4jdb.NewNeighbourhood(src), []string{"a>b:1", "a>c:0.25", "b>a:1", "b>c:0.01", "c>a:0.25", "c>b:0.01"}, 9, 6)
}

// TestStrengthBound: with the bound lowered to 2 (MaxKeptStrengths), a
// read of the three nodes of TestStrengthsKept's graph keeps 2 of them,
// and the same read again reads the third from the server only (3 + 1 =
// 4 read), with the same values; a read of another table (missing 0.1)
// drops the first table to make room: 2 kept, 3 more read (7). The arcs
// with their bound at 3 (MaxKeptArcs): each node has 2, so one node's
// are kept (2) and the next would pass 3; the same read again reads the
// other two nodes only (3 + 2 = 5), with the same arcs. Then, through
// personalized PageRank on the demo graph with both bounds at 5, the
// source keeps 5 strengths and at most 5 arcs, and every run ranks to the
// bit as a run on a source that keeps nothing from before.
func TestStrengthBound(t *testing.T) {
	d := fx.Driver(t)
	fx.Cypher(t, d, "MATCH (n) DETACH DELETE n", nil)
	fx.Cypher(t, d, `CREATE (a:Memory {id: 'a'}), (b:Memory {id: 'b'}), (c:Memory {id: 'c'}),
	       (a)-[:RELATES {weight: 0.5}]->(b), (a)-[:RELATES {weight: 0.25}]->(c), (b)-[:RELATES]->(c)`, nil)
	ids := []string{"a", "b", "c"}
	src := neo4jdb.NewSource(d, "", "")
	neo4jdb.SetKeptBounds(src, 2, 3)
	nb := neo4jdb.NewNeighbourhood(src)
	first := strengthsOf(t, nb, ids, 0.01)
	if src.StrengthsKept() != 2 || src.StrengthsRead() != 3 {
		t.Errorf("first read: %d kept, %d read; want 2, 3", src.StrengthsKept(), src.StrengthsRead())
	}
	if again := strengthsOf(t, nb, ids, 0.01); fmt.Sprint(again) != fmt.Sprint(first) || src.StrengthsKept() != 2 || src.StrengthsRead() != 4 {
		t.Errorf("again: %v (first %v), %d kept, %d read; want 2, 4", again, first, src.StrengthsKept(), src.StrengthsRead())
	}
	strengthsOf(t, nb, ids, 0.1)
	if src.StrengthsKept() != 2 || src.StrengthsRead() != 7 {
		t.Errorf("another table: %d kept, %d read; want 2, 7", src.StrengthsKept(), src.StrengthsRead())
	}

	all := arcsOf(t, nb, ids)
	if src.ArcsKept() != 2 || src.ArcsRead() != 3 {
		t.Errorf("arcs: %d kept, %d read; want 2, 3", src.ArcsKept(), src.ArcsRead())
	}
	if again := arcsOf(t, nb, ids); fmt.Sprint(again) != fmt.Sprint(all) || len(all) != 6 || src.ArcsKept() != 2 || src.ArcsRead() != 5 {
		t.Errorf("arcs again: %v (first %v), %d kept, %d read; want 6 arcs, 2, 5", again, all, src.ArcsKept(), src.ArcsRead())
	}

	demo := fx.Demo(t)
	neo4jdb.SetKeptBounds(demo, 5, 5)
	want := rankJSON(t, fx.Demo(t), graph.RelFilter{})
	for run := range 3 {
		if got := rankJSON(t, demo, graph.RelFilter{}); got != want {
			t.Fatalf("run %d with the bound at 5:\n%s\nwant\n%s", run+1, got, want)
		}
		if n, a := demo.StrengthsKept(), demo.ArcsKept(); n != 5 || a > 5 || a == 0 {
			t.Errorf("run %d: %d strengths kept, want the bound, 5; %d arcs, want 1 to 5", run+1, n, a)
		}
	}
}

// pprQuery is the demo graph's scenario A seed and four more (as
// retriever/ppr's TestNeighbourhoodPlans), at ppr's defaults (ε 1e-6).
var pprQuery = retriever.Query{Seeds: []retriever.Seed{{NodeID: "N2006", Score: 0.85}, {NodeID: "T3000", Score: 0.9},
	{NodeID: "T4001", Score: 0.5}, {NodeID: "N2010", Score: 0.4}, {NodeID: "N2001", Score: 0.3}}}

// rankJSON runs personalized PageRank of pprQuery on src under f and
// returns its ranking as JSON (every float written so that it reads back
// to the same bits), with the number of nodes it weighed.
func rankJSON(t *testing.T, src *neo4jdb.Source, f graph.RelFilter) string {
	t.Helper()
	s, _ := rankWeighed(t, src, f)
	return s
}

func rankWeighed(t *testing.T, src *neo4jdb.Source, f graph.RelFilter) (string, int64) {
	t.Helper()
	res, err := ppr.Retrieve(context.Background(), neo4jdb.Filtered(src, f), pprQuery, ppr.DefaultParams())
	if err != nil {
		t.Fatal(err)
	}
	b, err := json.Marshal(res)
	if err != nil {
		t.Fatal(err)
	}
	w, _ := res.Stats.Get("nodes_weighed")
	return string(b), int64(w.(int))
}

// TestPPRStrengthsKept: personalized PageRank on the demo graph (ε 1e-6,
// five seeds). The first run on a source reads from the server the
// strength of each node it weighs, once (StrengthsRead = its
// nodes_weighed), and arcs; a second run reads neither and ranks to the
// bit as the first, and as a run on another source, which keeps nothing from before.
// A run under a relationship filter reads its nodes again (its own table)
// and ranks as the same filtered run on another source. After a write to
// the database (every weight of N2006's RELATES relationships set to 0.3)
// a run reads again (its nodes_weighed more) and ranks as a run on another
// source, not as before the write. Four goroutines running three times
// each on one new source (-race) all rank as the first run.
func TestPPRStrengthsKept(t *testing.T) {
	src := fx.Demo(t)
	first, weighed := rankWeighed(t, src, graph.RelFilter{})
	if n := src.StrengthsRead(); n != weighed || n == 0 {
		t.Fatalf("first run: %d strengths read, %d nodes weighed", n, weighed)
	}
	arcsRead := src.ArcsRead()
	if arcsRead == 0 {
		t.Fatal("first run: no arcs read")
	}
	if again := rankJSON(t, src, graph.RelFilter{}); again != first {
		t.Errorf("second run:\n%s\nfirst:\n%s", again, first)
	}
	if n := src.StrengthsRead(); n != weighed {
		t.Errorf("second run: %d strengths read in all, want %d (none more)", n, weighed)
	}
	if n := src.ArcsRead(); n != arcsRead {
		t.Errorf("second run: %d nodes' arcs read in all, want %d (none more)", n, arcsRead)
	}
	if fresh := rankJSON(t, fx.Demo(t), graph.RelFilter{}); fresh != first {
		t.Errorf("on another source:\n%s\nkept:\n%s", fresh, first)
	}

	filter := graph.RelFilter{Where: []graph.RelCond{{Key: "weight", Op: graph.OpGE, Value: 0.5}}}
	filtered, fw := rankWeighed(t, src, filter)
	if n := src.StrengthsRead(); n != weighed+fw {
		t.Errorf("filtered run: %d strengths read in all, want %d + %d", n, weighed, fw)
	}
	if fresh := rankJSON(t, fx.Demo(t), filter); fresh != filtered {
		t.Errorf("filtered, on another source:\n%s\nkept:\n%s", fresh, filtered)
	}

	var wg sync.WaitGroup
	shared := fx.Demo(t)
	for range 4 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for range 3 {
				res, err := ppr.Retrieve(context.Background(), neo4jdb.NewNeighbourhood(shared), pprQuery, ppr.DefaultParams())
				if err != nil {
					t.Error(err)
					return
				}
				if b, _ := json.Marshal(res); string(b) != first {
					t.Errorf("a concurrent run:\n%s\nwant\n%s", b, first)
				}
			}
		}()
	}
	wg.Wait()

	d := fx.Driver(t)
	fx.Cypher(t, d, "MATCH ({id: 'N2006'})-[r:RELATES]-() SET r.weight = 0.3", nil)
	before := src.StrengthsRead()
	after, aw := rankWeighed(t, src, graph.RelFilter{})
	if n := src.StrengthsRead(); n != before+aw {
		t.Errorf("after a write: %d strengths read in all, want %d + %d", n, before, aw)
	}
	if after == first {
		t.Error("after a write: the same ranking as before it (the write should change N2006's strength and the scores)")
	}
	if fresh := rankJSON(t, neo4jdb.NewSource(d, "", ""), graph.RelFilter{}); fresh != after {
		t.Errorf("after a write, on another source:\n%s\nkept:\n%s", fresh, after)
	}
}

// TestEmbeddingsBound: the exact cosine's read of every node's embedding
// stops one past its bound: the demo graph's 57 nodes are read whole under
// a bound of 57 and refused under 56, naming the property and the bound.
func TestEmbeddingsBound(t *testing.T) {
	src := fx.Demo(t)
	ctx := context.Background()
	got, err := src.EmbeddingsUpTo(ctx, "embedding", 57)
	if err != nil || len(got) != 57 {
		t.Fatalf("bound 57: %d nodes, %v", len(got), err)
	}
	_, err = src.EmbeddingsUpTo(ctx, "embedding", 56)
	var tm *neo4jdb.TooManyEmbeddingsError
	if !errors.As(err, &tm) || tm.Max != 56 || !strings.Contains(err.Error(), `every node's "embedding", and the graph has more than 56 nodes`) {
		t.Fatalf("bound 56: %v", err)
	}
}
