package why

import (
	"context"
	"errors"

	"github.com/memoria-graph/memoria/retriever"
	"github.com/memoria-graph/memoria/retriever/activation"
)

// ReferenceExplain is the whole-ball Explain (reference_test.go), for the
// tests of package why_test that compare Explain with it.
var ReferenceExplain = referenceExplain

// PruneRounds is prune on a region read in any order, for the test of its
// bounds (TestPruneKeepsEveryBestRoute): the region of cfg (every seed of
// cfg must exist, none be the target), then, for each round, every node
// of the round not pruned yet read whole (their degrees and their
// neighbours'), and prune. After each prune, report gets the best T it
// had to reach (0 when it had no route) and the ids pruned so far.
func PruneRounds(ctx context.Context, cfg Config, rounds [][]string, report func(best float64, pruned map[string]bool)) error {
	exp, release, err := cfg.Backend.Open(ctx)
	if err != nil {
		return err
	}
	defer release(context.WithoutCancel(ctx))
	u, ok := exp.(activation.UnitWeigher)
	if !ok {
		return errors.New("the expander says nothing of its weights")
	}
	g := &region{maxDepth: cfg.Params.MaxDepth, tags: retriever.NormalizeTags(cfg.Tags), floor: cfg.Params.TagSimFloor, index: map[string]int32{}}
	if g.unit, err = u.UnitWeights(ctx); err != nil || !g.unit {
		return errors.Join(err, errors.New("not every weight lies in [0, 1]"))
	}
	var starts []int
	for i, s := range cfg.Seeds {
		g.node(s.NodeID)
		starts = append(starts, i)
	}
	g.target = g.node(cfg.NodeID)
	do := func(fn func() error) error { return fn() }
	for _, round := range rounds {
		var vs []int32
		for _, id := range round {
			if v := g.node(id); !g.nodes[v].pruned && !g.nodes[v].read {
				vs = append(vs, v)
			}
		}
		if err := g.read(ctx, exp, do, vs, activation.Near{}); err != nil {
			return err
		}
		best, err := g.search(ctx, cfg.Seeds, starts, lowerBoundBudget)
		if err != nil && !errors.Is(err, errBudget) {
			return err
		}
		if err := g.prune(ctx, cfg.Seeds, starts); err != nil {
			return err
		}
		t, pruned := 0.0, map[string]bool{}
		if best != nil {
			t = best.t
		}
		for _, n := range g.nodes {
			if n.pruned {
				pruned[n.id] = true
			}
		}
		report(t, pruned)
	}
	return nil
}
