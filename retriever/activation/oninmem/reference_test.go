package oninmem

import (
	"bytes"
	"context"
	"fmt"
	"math/rand"
	"reflect"
	"sync"
	"testing"

	"github.com/memoria-graph/memoria/graph/apoc"
	"github.com/memoria-graph/memoria/graph/inmem"
	"github.com/memoria-graph/memoria/retriever"
	"github.com/memoria-graph/memoria/retriever/activation"
	"github.com/memoria-graph/memoria/testkit/naive"
	"github.com/memoria-graph/memoria/testkit/randgraph"
)

// randomGraph is a randgraph graph of 40 to 80 nodes, dense enough (3 to 5
// attachments per node) for long candidate lists, with every awkward case
// randgraph makes (self-loops, parallel edges, MENTIONS, missing and integer
// weights, missing, empty and duplicated tags, extra properties). It returns
// the graph as APOC JSONL, for Load, and then, built in Go for New, the
// same graph in which a few nodes have lost their id property (they count in
// degrees but are never reached): a file may not hold such nodes
// (docs/EXPORTS.md), a graph from a database may.
func randomGraph(t *testing.T, r *rand.Rand) (*apoc.Graph, []byte) {
	t.Helper()
	opt := randgraph.Random(r, 40, 80)
	opt.Attach = 3 + r.Intn(3)
	g := randgraph.Generate(r, opt)
	var b bytes.Buffer
	if err := apoc.Write(&b, g); err != nil {
		t.Fatal(err)
	}
	for range 2 + r.Intn(len(g.Nodes)/10) {
		delete(g.Nodes[r.Intn(len(g.Nodes))].Properties, "id")
	}
	return g, b.Bytes()
}

// randomRequests draws frontiers of graph nodes (some without id, some
// unknown), visited sets and query tags from a vocabulary a little wider
// than the graph's.
func randomRequests(r *rand.Rand, g *apoc.Graph, count int) []activation.ExpandRequest {
	n := len(g.Nodes)
	id := func() string {
		if k := r.Intn(n + 5); k < n {
			if s, ok := g.Nodes[k].Properties["id"].(string); ok {
				return s
			}
		}
		return "unknown"
	}
	floors := []float64{0, 0.15, 0.5, 1}
	mins := []float64{0, 0.005, 0.05, 0.2}
	var reqs []activation.ExpandRequest
	for i := 0; i < count; i++ {
		req := activation.ExpandRequest{Visited: map[string]struct{}{}, TagSimFloor: floors[r.Intn(4)], MinActivation: mins[r.Intn(4)]}
		for k := r.Intn(6); k >= 0; k-- {
			req.Frontier = append(req.Frontier, activation.FrontierInput{NodeID: id(), Activation: r.Float64()})
		}
		for k := r.Intn(n); k > 0; k-- {
			req.Visited[id()] = struct{}{}
		}
		var q []string
		for k := r.Intn(4); k > 0; k-- {
			q = append(q, fmt.Sprintf("t%d", r.Intn(12)))
		}
		req.QueryTags = retriever.NormalizeTags(q)
		reqs = append(reqs, req)
	}
	return reqs
}

// TestAgainstReference compares ExpandFrontier, field by field and bit for
// bit, with the naive connector (naive.Backend, which scans every edge) on
// random graphs and requests, through both Load (the file, every node with
// its id) and New (the graph in which some nodes lost theirs), each against
// the naive connector on its own graph.
func TestAgainstReference(t *testing.T) {
	compared := 0
	for seed := int64(1); seed <= 20; seed++ {
		r := rand.New(rand.NewSource(seed))
		ag, text := randomGraph(t, r)
		full, err := apoc.Parse(bytes.NewReader(text))
		if err != nil {
			t.Fatal(err)
		}
		g1, err := inmem.Load(bytes.NewReader(text), "ref")
		if err != nil {
			t.Fatal(err)
		}
		g2, err := inmem.New(ag, "ref")
		if err != nil {
			t.Fatal(err)
		}
		graphs := []*inmem.Graph{g1, g2}
		refs := []naive.Backend{{G: naive.FromAPOC(full)}, {G: naive.FromAPOC(ag)}}
		for i, req := range randomRequests(r, ag, 50) {
			for k, g := range graphs {
				want, err := refs[k].ExpandFrontier(context.Background(), req)
				if err != nil {
					t.Fatal(err)
				}
				got, err := New(g).ExpandFrontier(context.Background(), req)
				if err != nil {
					t.Fatal(err)
				}
				if len(got) == 0 && len(want) == 0 {
					continue
				}
				compared += len(got)
				if !reflect.DeepEqual(got, want) {
					t.Fatalf("seed %d request %d graph %d %+v:\n got %+v\nwant %+v", seed, i, k+1, req, summarize(got), summarize(want))
				}
			}
		}
	}
	// Guard against a vacuous run.
	if compared < 10000 {
		t.Fatalf("only %d candidates compared", compared)
	}
}

// TestConcurrentUse runs the random requests from 8 goroutines at once on
// one graph (run with -race) and checks every answer against a sequential
// run.
func TestConcurrentUse(t *testing.T) {
	r := rand.New(rand.NewSource(5))
	ag, text := randomGraph(t, r)
	g, err := inmem.Load(bytes.NewReader(text), "conc")
	if err != nil {
		t.Fatal(err)
	}
	reqs := randomRequests(r, ag, 100)
	want := make([][]activation.Candidate, len(reqs))
	e := New(g) // one expansion, its scratch pool shared by every worker
	for i, req := range reqs {
		want[i], _ = e.ExpandFrontier(context.Background(), req)
	}
	var wg sync.WaitGroup
	for w := 0; w < 8; w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for k := range reqs {
				i := (k + w*13) % len(reqs)
				got, err := e.ExpandFrontier(context.Background(), reqs[i])
				if err != nil || !reflect.DeepEqual(got, want[i]) {
					t.Errorf("worker %d request %d differs", w, i)
					return
				}
				if _, _, err := g.ListNodes(context.Background(), "1", 0, 5); err != nil {
					t.Error(err)
				}
			}
		}()
	}
	wg.Wait()
}
