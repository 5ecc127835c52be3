package rankwhy_test

import (
	"bytes"
	"context"
	"fmt"
	"math/rand"
	"slices"
	"testing"

	"github.com/memoria-graph/memoria/graph"
	"github.com/memoria-graph/memoria/graph/apoc"
	"github.com/memoria-graph/memoria/graph/inmem"
	"github.com/memoria-graph/memoria/retriever"
	"github.com/memoria-graph/memoria/retriever/registry"
	"github.com/memoria-graph/memoria/testkit/randgraph"
)

// TestProbeIsTheWholeRanking: a ranking retriever asked, through its
// query's Probe, which of a set of nodes its whole ranking holds answers
// (Ranking.Probed) exactly the nodes of the set that it ranks when run
// again at its whole-ranking K (Spec.WholeK), the rule the why-not uses:
// eval reads "cut" from the answer instead of that second run. On 30
// random graphs, every node probed, K = 3, from 1 to 3 random seeds; the
// hits themselves do not change with the probe.
func TestProbeIsTheWholeRanking(t *testing.T) {
	ctx := context.Background()
	r := rand.New(rand.NewSource(11))
	for i := range 30 {
		g := randgraph.Generate(r, randgraph.Random(r, 20, 60))
		var b bytes.Buffer
		if err := apoc.Write(&b, g); err != nil {
			t.Fatal(err)
		}
		ig, err := inmem.Load(&b, "random")
		if err != nil {
			t.Fatal(err)
		}
		nb := ig.Filtered(graph.RelFilter{})
		var ids []string
		for _, n := range g.Nodes {
			if id, ok := n.Properties["id"].(string); ok {
				ids = append(ids, id)
			}
		}
		q := retriever.Query{}
		for _, k := range r.Perm(len(ids))[:1+r.Intn(3)] {
			q.Seeds = append(q.Seeds, retriever.Seed{NodeID: ids[k], Score: 1})
		}
		for _, name := range []string{"expansion", "spreading", "ppr"} {
			spec, _ := registry.Lookup(name)
			p := spec.Defaults().WithTopK(3)
			env := retriever.Env{Neighbourhood: nb}
			plain, err := p.Run(ctx, env, q)
			if err != nil {
				t.Fatal(err)
			}
			pq := q
			pq.Probe = ids
			probed, err := p.Run(ctx, env, pq)
			if err != nil {
				t.Fatal(err)
			}
			whole, err := p.WithTopK(spec.WholeK(plain, len(q.Seeds), 3)).Run(ctx, env, q)
			if err != nil {
				t.Fatal(err)
			}
			var want []string
			for _, h := range whole.Hits {
				want = append(want, h.NodeID)
			}
			slices.Sort(want)
			if want == nil {
				want = []string{}
			}
			if !slices.Equal(probed.Probed, want) {
				t.Errorf("graph %d, %s: probed %v, the whole ranking %v", i, name, probed.Probed, want)
			}
			if plain.Probed != nil || fmt.Sprint(plain.Hits) != fmt.Sprint(probed.Hits) {
				t.Errorf("graph %d, %s: the probe changed the run", i, name)
			}
		}
	}
}
