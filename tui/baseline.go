package tui

import (
	"errors"
	"fmt"

	tea "github.com/charmbracelet/bubbletea"
	"github.com/memoria-graph/memoria/render"
	"github.com/memoria-graph/memoria/retriever/activation"
	"github.com/memoria-graph/memoria/tui/common"
)

// baseline is a finished run that the current one is compared with: the
// previous complete run, or one the analyst pinned (until unpinned). Its
// results are copies, by seed node id.
type baseline struct {
	label   string // "previous" or "pinned": the summary line says "vs <label>"
	results map[string]activation.Result
	// cfg and tags are the thresholds and (normalised) query tags the run
	// had: a node that left is explained, and checked, with them.
	cfg  activation.Params
	tags []string
}

// newBaseline keeps the results of rt's seeds as a baseline; nil when some
// seed has not finished well (a run cut short by a new key, or one that
// failed, is no baseline: its missing paths would show as changes that are
// not).
func newBaseline(rt *resultTrees, label string) *baseline {
	if rt == nil || len(rt.seeds) == 0 {
		return nil
	}
	b := &baseline{label: label, results: make(map[string]activation.Result, len(rt.seeds)), cfg: rt.cfg, tags: rt.tags}
	for _, st := range rt.seeds {
		if st.result == nil || st.state != seedDone {
			return nil
		}
		b.results[st.seed.NodeID] = *st.result
	}
	return b
}

// change is how a node of the current tree differs from the baseline.
type change int

const (
	changeNone    change = iota
	changeEntered        // the baseline did not reach it
	changeMoved          // the baseline reached it under another parent or at another depth
)

// ghost is a node the baseline reached that the current run did not: shown
// dimmed where it was, under its baseline parent.
type ghost struct {
	step  activation.Step // the baseline's hop to it
	depth int
	// route are the baseline's hops from the seed to it, step last: the
	// detail pane says when each of their facts held (docs/EXPLORER.md,
	// "Detail").
	route []activation.Step
}

// seedBase is one seed's baseline, ready for the tree: where each node was
// and, once the seed's run is done, the nodes that left grouped by their
// baseline parent.
type seedBase struct {
	from       *baseline
	placements map[string]activation.Placement
	steps      map[string]activation.Step
	result     activation.Result
	ghosts     map[string][]ghost // by parent id, in the baseline's path order
}

func newSeedBase(res activation.Result) *seedBase {
	b := &seedBase{placements: activation.Placements(res), steps: map[string]activation.Step{}, result: res}
	for _, p := range res.Paths {
		for _, s := range p.Steps {
			b.steps[s.ToNode.ID] = s
		}
	}
	return b
}

// setBase compares every seed's tree with b (nil: no baseline).
func (rt *resultTrees) setBase(b *baseline) {
	rt.base = b
	for _, st := range rt.seeds {
		st.base = nil
		if b == nil {
			continue
		}
		res, ok := b.results[st.seed.NodeID]
		if !ok {
			res = activation.Result{Seed: st.seed} // a new seed: everything entered
		}
		st.base = newSeedBase(res)
		st.base.from = b
		st.findGhosts()
	}
	rt.version++
	rt.summarize()
}

// changeOf says how n differs from the baseline.
func (st *seedTree) changeOf(n *tnode) (change, activation.Placement) {
	if st.base == nil || n.parent == nil {
		return changeNone, activation.Placement{}
	}
	was, ok := st.base.placements[n.node.ID]
	switch {
	case !ok:
		return changeEntered, was
	case was.Parent != n.parent.node.ID || was.Depth != n.depth:
		return changeMoved, was
	}
	return changeNone, was
}

// findGhosts lists, once the seed's run is done, the nodes the baseline
// reached that this run did not, under their baseline parents. Until then
// a node not reached yet is not a node that left.
func (st *seedTree) findGhosts() {
	if st.base == nil {
		return
	}
	st.base.ghosts = nil
	if st.state != seedDone {
		return
	}
	st.base.ghosts = map[string][]ghost{}
	seen := map[string]bool{} // paths share their first hops
	for _, p := range st.base.result.Paths {
		for i, s := range p.Steps {
			id := s.ToNode.ID
			if _, here := st.nodes[id]; here || seen[id] {
				continue
			}
			seen[id] = true
			st.base.ghosts[s.FromNode.ID] = append(st.base.ghosts[s.FromNode.ID], ghost{step: s, depth: i + 1, route: p.Steps[: i+1 : i+1]})
		}
	}
}

// summarize computes the summary line over the seeds that finished:
// `vs pinned: +2 paths −1 · 1 moved · nodes 14 → 15 (Jaccard 0.81)`.
func (rt *resultTrees) summarize() {
	rt.summary = ""
	if rt.base == nil {
		return
	}
	var diffs []activation.ResultDiff
	pending := false
	for _, st := range rt.seeds {
		if st.result == nil || st.base == nil {
			pending = true
			continue
		}
		diffs = append(diffs, activation.Diff(st.base.result, *st.result))
	}
	if len(diffs) == 0 {
		return
	}
	rt.summary = render.DiffSummary(rt.base.label, activation.CombineDiffs(diffs))
	if pending {
		rt.summary += " (so far)"
	}
}

// baseline is what the current run is compared with: the pinned run, else
// the previous complete one (nil before the second run).
func (m *Model) baseline() *baseline {
	if m.runs.pinned != nil {
		return m.runs.pinned
	}
	return m.runs.prev
}

// togglePin pins the current run as the baseline of the runs that follow,
// or, when one is pinned, unpins it (runs compare with the previous run
// again).
func (m *Model) togglePin() tea.Cmd {
	if m.runs.pinned != nil {
		m.runs.pinned = nil
		if m.actRun().trees != nil {
			m.actRun().trees.setBase(m.baseline())
			m.afterTreeChange(false)
		}
		return common.Notify("unpinned: each run is compared with the previous one")
	}
	b := newBaseline(m.actRun().trees, "pinned")
	if b == nil {
		return common.NotifyErr(errors.New("nothing to pin: wait until every seed's run has finished"))
	}
	m.runs.pinned = b
	m.actRun().trees.setBase(b)
	m.afterTreeChange(false)
	return common.Notify(fmt.Sprintf("pinned run %d: later runs are compared with it (%s unpins)", m.actRun().id, m.KM.Pin.Help().Key))
}

// changeText says how the selected node differs from the baseline, for the
// detail pane ("" when it does not or there is none).
func changeText(st *seedTree, n *tnode) string {
	switch ch, was := st.changeOf(n); ch { // a change implies a baseline
	case changeEntered:
		return glyphEntered + " entered: the " + st.base.from.label + " run did not reach it"
	case changeMoved:
		return fmt.Sprintf("%s moved: the %s run reached it under %s at depth %d", glyphMoved, st.base.from.label, was.Parent, was.Depth)
	}
	return ""
}

// ghostsBelow counts the nodes that left under id, and under them.
func (st *seedTree) ghostsBelow(id string) int {
	if st.base == nil {
		return 0
	}
	c := 0
	for _, g := range st.base.ghosts[id] {
		c += 1 + st.ghostsBelow(g.step.ToNode.ID)
	}
	return c
}

// hasRowsBelow reports whether n has rows under it to fold: children,
// nodes that left, or (explain) losers.
func (st *seedTree) hasRowsBelow(n *tnode, explain bool) bool {
	return len(n.children) > 0 || st.ghostsBelow(n.node.ID) > 0 || (explain && len(n.losers) > 0)
}
