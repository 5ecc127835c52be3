package tree

import (
	"maps"
	"slices"
	"time"

	"github.com/memoria-graph/memoria/graph"
	"github.com/memoria-graph/memoria/render"
	"github.com/memoria-graph/memoria/retriever"
	"github.com/memoria-graph/memoria/retriever/activation"
)

// State is where one seed's exploration stands.
type State int

const (
	SeedPending State = iota
	SeedRunning
	SeedDone
	SeedNotFound
	SeedCancelled
	SeedFailed
)

// Node is a node of one seed's result tree. Each node appears once per seed
// (the traversal visits it once).
type Node struct {
	Node     graph.Node
	Depth    int
	Parent   *Node
	Step     *activation.Step // the edge that reached it; nil for the seed
	Children []*Node          // kept neighbours, in kept order
	Losers   []activation.Outcome
	// End is the path's End reason (retriever.End*) when a path ends here,
	// and nearMiss the best hop below the threshold when it ended there.
	End      activation.EndReason
	NearMiss *activation.Step
}

// Path returns the Path from the seed to n (empty for the seed itself).
func (n *Node) Path() activation.Path {
	var steps []activation.Step
	for c := n; c != nil && c.Step != nil; c = c.Parent {
		steps = append(steps, *c.Step)
	}
	var p activation.Path
	for i := len(steps) - 1; i >= 0; i-- {
		p = p.Extend(steps[i])
	}
	p.EndReason, p.NearMiss = n.End, n.NearMiss
	return p
}

// SeedTree is one seed's tree, grown from its events.
type SeedTree struct {
	Seed    retriever.Seed
	State   State
	Root    *Node
	Nodes   map[string]*Node
	Depth   int // deepest level seen
	Elapsed time.Duration
	Result  *activation.Result
	Err     string
	// Base is this seed's part of the baseline the run is compared with
	// (nil without one).
	Base *SeedBase
}

// Trees holds one tree per seed of the current run.
type Trees struct {
	Seeds []*SeedTree
	// Version changes whenever the trees change, so views know to re-render.
	Version int
	// base is the run the trees are compared with (nil: none), and summary
	// the diff's one-line summary over the seeds that finished.
	base    *Baseline
	Summary string
	// Cfg and tags are the run's thresholds and normalised query tags (a
	// baseline made of this run keeps them).
	Cfg  activation.Params
	Tags []string
}

func NewTrees(seeds []retriever.Seed) *Trees {
	rt := &Trees{}
	for _, s := range seeds {
		rt.Seeds = append(rt.Seeds, &SeedTree{Seed: s, State: SeedRunning, Nodes: map[string]*Node{}})
	}
	return rt
}

// Apply folds one event into the trees.
func (rt *Trees) Apply(ev activation.Event) {
	if ev.SeedIndex < 0 || ev.SeedIndex >= len(rt.Seeds) {
		return
	}
	st := rt.Seeds[ev.SeedIndex]
	st.Elapsed = ev.Elapsed
	rt.Version++
	switch ev.Kind {
	case activation.EventSeed:
		if ev.SeedNode != nil {
			st.Root = &Node{Node: *ev.SeedNode}
			st.Nodes[ev.SeedNode.ID] = st.Root
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

func (st *SeedTree) applyLevel(lv activation.LevelEvent) {
	st.Depth = max(st.Depth, lv.Depth)
	for _, o := range lv.Outcomes {
		parent := st.Nodes[o.Candidate.ParentID]
		if parent == nil {
			continue
		}
		if o.Fate != activation.FateKept {
			parent.Losers = append(parent.Losers, o)
			continue
		}
		if _, dup := st.Nodes[o.Candidate.NeighborNode.ID]; dup {
			continue
		}
		step := activation.StepFromCandidate(parent.Node, o.Candidate)
		child := &Node{Node: o.Candidate.NeighborNode, Depth: lv.Depth, Parent: parent, Step: &step}
		parent.Children = append(parent.Children, child)
		st.Nodes[child.Node.ID] = child
	}
	// Near misses join their parent's losers, dimmed like them in the
	// explain view (docs/ALGORITHM.md rule 6).
	for _, c := range lv.NearMisses {
		if parent := st.Nodes[c.ParentID]; parent != nil {
			parent.Losers = append(parent.Losers, activation.Outcome{Candidate: c, Fate: activation.FateBelowThreshold})
		}
	}
	for _, p := range lv.Completed {
		st.markEnd(p)
	}
}

func (st *SeedTree) markEnd(p activation.Path) {
	ids := p.NodeIDs()
	if len(ids) == 0 {
		return
	}
	if n := st.Nodes[ids[len(ids)-1]]; n != nil {
		n.End, n.NearMiss = p.EndReason, p.NearMiss
	}
}

func (st *SeedTree) applyResult(res activation.Result) {
	st.Result = &res
	for _, p := range res.Paths {
		st.markEnd(p)
	}
	switch res.TerminatedReason {
	case activation.TerminatedSeedNotFound:
		st.State = SeedNotFound
	case activation.TerminatedCancelled:
		st.State = SeedCancelled
	case activation.TerminatedError:
		st.State, st.Err = SeedFailed, res.Error
	default:
		st.State = SeedDone
	}
}

// Results returns the finished seeds' Results, in seed order.
func (rt *Trees) Results() []activation.Result {
	if rt == nil {
		return nil
	}
	var out []activation.Result
	for _, st := range rt.Seeds {
		if st.Result != nil {
			out = append(out, *st.Result)
		}
	}
	return out
}

// FateText says why a candidate lost.
func FateText(o activation.Outcome, minActivation float64) string {
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

// Losers are the candidates the trees hold that were not kept (their
// parents' Losers: lost a branch or a claim, or near misses), one level
// event per finished seed in results' order, which is all the page reads
// of the levels (render/subgraph draws them dashed).
func (rt *Trees) Losers() [][]activation.LevelEvent {
	var out [][]activation.LevelEvent
	for _, st := range rt.Seeds {
		if st.Result == nil {
			continue
		}
		var lv activation.LevelEvent
		for _, id := range slices.Sorted(maps.Keys(st.Nodes)) {
			lv.Outcomes = append(lv.Outcomes, st.Nodes[id].Losers...)
		}
		out = append(out, []activation.LevelEvent{lv})
	}
	return out
}
