package tree

import (
	"fmt"

	"github.com/memoria-graph/memoria/render"
	"github.com/memoria-graph/memoria/retriever"
	"github.com/memoria-graph/memoria/retriever/activation"
	"github.com/memoria-graph/memoria/tui/theme"
)

// Baseline is a finished run that the current one is compared with: the
// previous complete run, or one the analyst pinned (until unpinned). Its
// results are copies, by seed node id.
type Baseline struct {
	Label   string // "previous" or "pinned": the summary line says "vs <label>"
	Results map[string]activation.Result
	// Cfg and tags are the thresholds and (normalised) query tags the run
	// had: a node that left is explained, and checked, with them.
	Cfg  activation.Params
	Tags []string
}

// NewBaseline keeps the results of rt's seeds as a baseline; nil when some
// seed has not finished well (a run cut short by a new key, or one that
// failed, is no baseline: its missing paths would show as changes that are
// not).
func NewBaseline(rt *Trees, label string) *Baseline {
	if rt == nil || len(rt.Seeds) == 0 {
		return nil
	}
	b := &Baseline{Label: label, Results: make(map[string]activation.Result, len(rt.Seeds)), Cfg: rt.Cfg, Tags: rt.Tags}
	for _, st := range rt.Seeds {
		if st.Result == nil || st.State != SeedDone {
			return nil
		}
		b.Results[st.Seed.NodeID] = *st.Result
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

// Ghost is a node the baseline reached that the current run did not: shown
// dimmed where it was, under its baseline parent.
type Ghost struct {
	Step  activation.Step // the baseline's hop to it
	Depth int
	// Route are the baseline's hops from the seed to it, step last: the
	// detail pane says when each of their facts held (docs/EXPLORER.md,
	// "Detail").
	Route []activation.Step
}

// SeedBase is one seed's baseline, ready for the tree: where each node was
// and, once the seed's run is done, the nodes that left grouped by their
// baseline parent.
type SeedBase struct {
	From       *Baseline
	placements map[string]activation.Placement
	steps      map[string]activation.Step
	Result     activation.Result
	ghosts     map[string][]Ghost // by parent id, in the baseline's path order
}

func newSeedBase(res activation.Result) *SeedBase {
	b := &SeedBase{placements: activation.Placements(res), steps: map[string]activation.Step{}, Result: res}
	for _, p := range res.Paths {
		for _, s := range p.Steps {
			b.steps[s.ToNode.ID] = s
		}
	}
	return b
}

// SetBase compares every seed's tree with b (nil: no baseline).
func (rt *Trees) SetBase(b *Baseline) {
	rt.base = b
	for _, st := range rt.Seeds {
		st.Base = nil
		if b == nil {
			continue
		}
		res, ok := b.Results[st.Seed.NodeID]
		if !ok {
			res = activation.Result{Seed: st.Seed} // a new seed: everything entered
		}
		st.Base = newSeedBase(res)
		st.Base.From = b
		st.findGhosts()
	}
	rt.Version++
	rt.summarize()
}

// changeOf says how n differs from the baseline.
func (st *SeedTree) changeOf(n *Node) (change, activation.Placement) {
	if st.Base == nil || n.Parent == nil {
		return changeNone, activation.Placement{}
	}
	was, ok := st.Base.placements[n.Node.ID]
	switch {
	case !ok:
		return changeEntered, was
	case was.Parent != n.Parent.Node.ID || was.Depth != n.Depth:
		return changeMoved, was
	}
	return changeNone, was
}

// findGhosts lists, once the seed's run is done, the nodes the baseline
// reached that this run did not, under their baseline parents. Until then
// a node not reached yet is not a node that left.
func (st *SeedTree) findGhosts() {
	if st.Base == nil {
		return
	}
	st.Base.ghosts = nil
	if st.State != SeedDone {
		return
	}
	st.Base.ghosts = map[string][]Ghost{}
	seen := map[string]bool{} // paths share their first hops
	for _, p := range st.Base.Result.Paths {
		for i, s := range p.Steps {
			id := s.ToNode.ID
			if _, here := st.Nodes[id]; here || seen[id] {
				continue
			}
			seen[id] = true
			st.Base.ghosts[s.FromNode.ID] = append(st.Base.ghosts[s.FromNode.ID], Ghost{Step: s, Depth: i + 1, Route: p.Steps[: i+1 : i+1]})
		}
	}
}

// summarize computes the summary line over the seeds that finished:
// `vs pinned: +2 paths −1 · 1 moved · nodes 14 → 15 (Jaccard 0.81)`.
func (rt *Trees) summarize() {
	rt.Summary = ""
	if rt.base == nil {
		return
	}
	var diffs []activation.ResultDiff
	pending := false
	for _, st := range rt.Seeds {
		if st.Result == nil || st.Base == nil {
			pending = true
			continue
		}
		diffs = append(diffs, activation.Diff(st.Base.Result, *st.Result))
	}
	if len(diffs) == 0 {
		return
	}
	rt.Summary = render.DiffSummary(rt.base.Label, activation.CombineDiffs(diffs))
	if pending {
		rt.Summary += " (so far)"
	}
}

// ChangeText says how the selected node differs from the baseline, for the
// detail pane ("" when it does not or there is none).
func ChangeText(st *SeedTree, n *Node) string {
	switch ch, was := st.changeOf(n); ch { // a change implies a baseline
	case changeEntered:
		return theme.GlyphEntered + " entered: the " + st.Base.From.Label + " run did not reach it"
	case changeMoved:
		return fmt.Sprintf("%s moved: the %s run reached it under %s at depth %d", theme.GlyphMoved, st.Base.From.Label, was.Parent, was.Depth)
	}
	return ""
}

// ghostsBelow counts the nodes that left under id, and under them.
func (st *SeedTree) ghostsBelow(id string) int {
	if st.Base == nil {
		return 0
	}
	c := 0
	for _, g := range st.Base.ghosts[id] {
		c += 1 + st.ghostsBelow(g.Step.ToNode.ID)
	}
	return c
}

// hasRowsBelow reports whether n has rows under it to fold: children,
// nodes that left, or (explain) losers.
func (st *SeedTree) hasRowsBelow(n *Node, explain bool) bool {
	return len(n.Children) > 0 || st.ghostsBelow(n.Node.ID) > 0 || (explain && len(n.Losers) > 0)
}

// BaselineOf makes a baseline of saved results (an experiment file's), run
// with cfg and tags.
func BaselineOf(results []activation.Result, label string, cfg activation.Params, tags []string) *Baseline {
	if len(results) == 0 {
		return nil
	}
	b := &Baseline{Label: label, Results: make(map[string]activation.Result, len(results)), Cfg: cfg, Tags: retriever.NormalizeTags(tags)}
	for _, r := range results {
		b.Results[r.Seed.NodeID] = r
	}
	return b
}

// ResultsFor lists the baseline's results in the order of seeds (nil for
// no baseline).
func (b *Baseline) ResultsFor(seeds []retriever.Seed) []activation.Result {
	if b == nil {
		return nil
	}
	out := make([]activation.Result, 0, len(b.Results))
	for _, s := range seeds {
		if r, ok := b.Results[s.NodeID]; ok {
			out = append(out, r)
		}
	}
	return out
}
