package naive_test

import (
	"context"
	"math/rand"
	"testing"

	"github.com/memoria-graph/memoria/graph/inmem"
	"github.com/memoria-graph/memoria/retriever"
	"github.com/memoria-graph/memoria/retriever/activation"
	"github.com/memoria-graph/memoria/retriever/activation/oninmem"
	"github.com/memoria-graph/memoria/testkit/naive"
	"github.com/memoria-graph/memoria/testkit/randgraph"
)

// TestMemoryEngineAgainstNaive is the property test of the normative rules
// for the default backend, with no server: on 200 random power-law
// multigraphs (hubs, parallel and self-loop edges, missing weights,
// untagged and duplicate-tagged edges, MENTIONS relationships beside
// RELATES ones) and random seeds, tags and configs, the memory engine
// under the real orchestrator gives exactly the naive implementation's
// paths, energies (bit for bit) and level fates. The naive side scans every
// edge for every frontier node and claims by repeated maximum, sharing no
// code with the engine or the traversal state.
func TestMemoryEngineAgainstNaive(t *testing.T) {
	r := rand.New(rand.NewSource(7))
	paths := 0
	for iter := range 200 {
		opt := randgraph.Random(r, 10, 120)
		g := randgraph.Generate(r, opt)
		eng, err := inmem.New(g, "random")
		if err != nil {
			t.Fatalf("iter %d: %v", iter, err)
		}
		ng := naive.FromAPOC(g)
		cfg := activation.DefaultParams()
		cfg.MaxDepth = 1 + r.Intn(6)
		cfg.MinActivation = []float64{0, 0.001, 0.005, 0.05}[r.Intn(4)]
		cfg.TagSimFloor = []float64{0, 0.15, 0.5, 1}[r.Intn(4)]
		cfg.MaxBranches = 1 + r.Intn(4)
		var tags []string
		for range r.Intn(4) {
			tags = append(tags, opt.Tags[r.Intn(len(opt.Tags))])
		}
		tags = retriever.NormalizeTags(tags)
		id, _ := g.Nodes[r.Intn(len(g.Nodes))].Properties["id"].(string)
		seed := retriever.Seed{NodeID: id, Score: []float64{1, 0.5, r.Float64()*0.99 + 0.01}[r.Intn(3)]}

		rt, err := activation.New(oninmem.New(eng), cfg, activation.DefaultOptions())
		if err != nil {
			t.Fatal(err)
		}
		got, levels, err := naive.Run(context.Background(), rt, seed, tags)
		if err != nil {
			t.Fatal(err)
		}
		paths += len(got.Paths)
		if msg := naive.Diff(got, levels, naive.Explore(ng, seed, tags, cfg)); msg != "" {
			t.Fatalf("iter %d seed %+v tags %v cfg %+v: %s", iter, seed, tags, cfg, msg)
		}
	} // Guard against a vacuous run: the graphs and thresholds above are
	// chosen so that most explorations keep something.
	if paths < 200 {
		t.Fatalf("only %d paths over 200 explorations: the property test is not exercising the traversal", paths)
	}
}
