package tui

import (
	"time"

	"github.com/memoria-graph/memoria/retriever"
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
	node     retriever.GraphNode
	depth    int
	parent   *tnode
	step     *retriever.GraphStep // the edge that reached it; nil for the seed
	children []*tnode             // kept neighbours, in kept order
	losers   []retriever.CandidateOutcome
	// end is the path's end reason (retriever.End*) when a path ends here.
	end string
}

// path returns the path from the seed to n (empty for the seed itself).
func (n *tnode) path() retriever.GraphPath {
	var steps []retriever.GraphStep
	for c := n; c != nil && c.step != nil; c = c.parent {
		steps = append(steps, *c.step)
	}
	var p retriever.GraphPath
	for i := len(steps) - 1; i >= 0; i-- {
		p = p.Extend(steps[i])
	}
	p.EndReason = n.end
	return p
}

// seedTree is one seed's tree, grown from its events.
type seedTree struct {
	seed    retriever.SeedInput
	state   seedState
	root    *tnode
	nodes   map[string]*tnode
	depth   int // deepest level seen
	elapsed time.Duration
	result  *retriever.RetrievalResult
	err     string
}

// resultTrees holds one tree per seed of the current run.
type resultTrees struct {
	seeds []*seedTree
	// version changes whenever the trees change, so views know to re-render.
	version int
}

func newResultTrees(seeds []retriever.SeedInput) *resultTrees {
	rt := &resultTrees{}
	for _, s := range seeds {
		rt.seeds = append(rt.seeds, &seedTree{seed: s, state: seedRunning, nodes: map[string]*tnode{}})
	}
	return rt
}

// apply folds one event into the trees.
func (rt *resultTrees) apply(ev retriever.Event) {
	if ev.SeedIndex < 0 || ev.SeedIndex >= len(rt.seeds) {
		return
	}
	st := rt.seeds[ev.SeedIndex]
	st.elapsed = ev.Elapsed
	rt.version++
	switch ev.Kind {
	case retriever.EventSeed:
		if ev.SeedNode != nil {
			st.root = &tnode{node: *ev.SeedNode}
			st.nodes[ev.SeedNode.ID] = st.root
		}
	case retriever.EventLevel:
		if ev.Level != nil {
			st.applyLevel(*ev.Level)
		}
	case retriever.EventResult:
		if ev.Result != nil {
			st.applyResult(*ev.Result)
		}
	}
}

func (st *seedTree) applyLevel(lv retriever.LevelEvent) {
	st.depth = max(st.depth, lv.Depth)
	for _, o := range lv.Outcomes {
		parent := st.nodes[o.Candidate.ParentID]
		if parent == nil {
			continue
		}
		if o.Fate != retriever.FateKept {
			parent.losers = append(parent.losers, o)
			continue
		}
		if _, dup := st.nodes[o.Candidate.NeighborNode.ID]; dup {
			continue
		}
		step := retriever.StepFromCandidate(parent.node, o.Candidate)
		child := &tnode{node: o.Candidate.NeighborNode, depth: lv.Depth, parent: parent, step: &step}
		parent.children = append(parent.children, child)
		st.nodes[child.node.ID] = child
	}
	for _, p := range lv.Completed {
		st.markEnd(p)
	}
}

func (st *seedTree) markEnd(p retriever.GraphPath) {
	ids := p.NodeIDs()
	if len(ids) == 0 {
		return
	}
	if n := st.nodes[ids[len(ids)-1]]; n != nil {
		n.end = p.EndReason
	}
}

func (st *seedTree) applyResult(res retriever.RetrievalResult) {
	st.result = &res
	for _, p := range res.Paths {
		st.markEnd(p)
	}
	switch res.TerminatedReason {
	case retriever.TerminatedSeedNotFound:
		st.state = seedNotFound
	case retriever.TerminatedCancelled:
		st.state = seedCancelled
	case retriever.TerminatedError:
		st.state, st.err = seedFailed, res.Error
	default:
		st.state = seedDone
	}
}

// results returns the finished seeds' results, in seed order.
func (rt *resultTrees) results() []retriever.RetrievalResult {
	if rt == nil {
		return nil
	}
	var out []retriever.RetrievalResult
	for _, st := range rt.seeds {
		if st.result != nil {
			out = append(out, *st.result)
		}
	}
	return out
}

// fateText says why a candidate lost.
func fateText(o retriever.CandidateOutcome) string {
	if o.Fate == retriever.FateClaimed {
		return "claimed by " + o.ClaimedBy
	}
	return string(o.Fate)
}
