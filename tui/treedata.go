package tui

import (
	"time"

	"github.com/memoria-graph/memoria/graph"
	"github.com/memoria-graph/memoria/render"
	"github.com/memoria-graph/memoria/retriever"
	"github.com/memoria-graph/memoria/retriever/activation"
)

// seedState is where one seed's exploration stands.
type seedState int

const (
	seedPending seedState = iota
	seedRunning
	seedDone
	seedNotFound
	seedCancelled
	seedFailed
)

// tnode is a node of one seed's result tree. Each node appears once per seed
// (the traversal visits it once).
type tnode struct {
	node     graph.Node
	depth    int
	parent   *tnode
	step     *activation.Step // the edge that reached it; nil for the seed
	children []*tnode         // kept neighbours, in kept order
	losers   []activation.Outcome
	// end is the path's end reason (retriever.End*) when a path ends here,
	// and nearMiss the best hop below the threshold when it ended there.
	end      activation.EndReason
	nearMiss *activation.Step
}

// path returns the path from the seed to n (empty for the seed itself).
func (n *tnode) path() activation.Path {
	var steps []activation.Step
	for c := n; c != nil && c.step != nil; c = c.parent {
		steps = append(steps, *c.step)
	}
	var p activation.Path
	for i := len(steps) - 1; i >= 0; i-- {
		p = p.Extend(steps[i])
	}
	p.EndReason, p.NearMiss = n.end, n.nearMiss
	return p
}

// seedTree is one seed's tree, grown from its events.
type seedTree struct {
	seed    retriever.Seed
	state   seedState
	root    *tnode
	nodes   map[string]*tnode
	depth   int // deepest level seen
	elapsed time.Duration
	result  *activation.Result
	err     string
	// base is this seed's part of the baseline the run is compared with
	// (nil without one).
	base *seedBase
}

// resultTrees holds one tree per seed of the current run.
type resultTrees struct {
	seeds []*seedTree
	// version changes whenever the trees change, so views know to re-render.
	version int
	// base is the run the trees are compared with (nil: none), and summary
	// the diff's one-line summary over the seeds that finished.
	base    *baseline
	summary string
	// cfg and tags are the run's thresholds and normalised query tags (a
	// baseline made of this run keeps them).
	cfg  activation.Params
	tags []string
}

func newResultTrees(seeds []retriever.Seed) *resultTrees {
	rt := &resultTrees{}
	for _, s := range seeds {
		rt.seeds = append(rt.seeds, &seedTree{seed: s, state: seedRunning, nodes: map[string]*tnode{}})
	}
	return rt
}

// apply folds one event into the trees.
func (rt *resultTrees) apply(ev activation.Event) {
	if ev.SeedIndex < 0 || ev.SeedIndex >= len(rt.seeds) {
		return
	}
	st := rt.seeds[ev.SeedIndex]
	st.elapsed = ev.Elapsed
	rt.version++
	switch ev.Kind {
	case activation.EventSeed:
		if ev.SeedNode != nil {
			st.root = &tnode{node: *ev.SeedNode}
			st.nodes[ev.SeedNode.ID] = st.root
		}
	case activation.EventLevel:
		if ev.Level != nil {
			st.applyLevel(*ev.Level)
		}
	case activation.EventResult:
		if ev.Result != nil {
			st.applyResult(*ev.Result)
			st.findGhosts()
			rt.summarize()
		}
	}
}

func (st *seedTree) applyLevel(lv activation.LevelEvent) {
	st.depth = max(st.depth, lv.Depth)
	for _, o := range lv.Outcomes {
		parent := st.nodes[o.Candidate.ParentID]
		if parent == nil {
			continue
		}
		if o.Fate != activation.FateKept {
			parent.losers = append(parent.losers, o)
			continue
		}
		if _, dup := st.nodes[o.Candidate.NeighborNode.ID]; dup {
			continue
		}
		step := activation.StepFromCandidate(parent.node, o.Candidate)
		child := &tnode{node: o.Candidate.NeighborNode, depth: lv.Depth, parent: parent, step: &step}
		parent.children = append(parent.children, child)
		st.nodes[child.node.ID] = child
	}
	// Near misses join their parent's losers, dimmed like them in the
	// explain view (docs/ALGORITHM.md rule 6).
	for _, c := range lv.NearMisses {
		if parent := st.nodes[c.ParentID]; parent != nil {
			parent.losers = append(parent.losers, activation.Outcome{Candidate: c, Fate: activation.FateBelowThreshold})
		}
	}
	for _, p := range lv.Completed {
		st.markEnd(p)
	}
}

func (st *seedTree) markEnd(p activation.Path) {
	ids := p.NodeIDs()
	if len(ids) == 0 {
		return
	}
	if n := st.nodes[ids[len(ids)-1]]; n != nil {
		n.end, n.nearMiss = p.EndReason, p.NearMiss
	}
}

func (st *seedTree) applyResult(res activation.Result) {
	st.result = &res
	for _, p := range res.Paths {
		st.markEnd(p)
	}
	switch res.TerminatedReason {
	case activation.TerminatedSeedNotFound:
		st.state = seedNotFound
	case activation.TerminatedCancelled:
		st.state = seedCancelled
	case activation.TerminatedError:
		st.state, st.err = seedFailed, res.Error
	default:
		st.state = seedDone
	}
}

// results returns the finished seeds' results, in seed order.
func (rt *resultTrees) results() []activation.Result {
	if rt == nil {
		return nil
	}
	var out []activation.Result
	for _, st := range rt.seeds {
		if st.result != nil {
			out = append(out, *st.result)
		}
	}
	return out
}

// fateText says why a candidate lost.
func fateText(o activation.Outcome, minActivation float64) string {
	switch o.Fate {
	case activation.FateClaimed:
		return "claimed by " + o.ClaimedBy
	case activation.FateBelowThreshold:
		if minActivation > 0 {
			return "below threshold (" + render.ShareOf(o.Candidate.TransferEnergy, minActivation) + ")"
		}
		return "below threshold"
	}
	return string(o.Fate)
}
