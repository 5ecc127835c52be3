package tree

import (
	"fmt"
	"slices"
	"strings"

	"github.com/charmbracelet/x/ansi"
	"github.com/memoria-graph/memoria/graph"
	"github.com/memoria-graph/memoria/internal/textsafe"
	"github.com/memoria-graph/memoria/render"
	"github.com/memoria-graph/memoria/retriever/activation"
	"github.com/memoria-graph/memoria/tui/common"
	"github.com/memoria-graph/memoria/tui/theme"
)

// treeTextWidth is the most runes of a node's text in a tree row.
const treeTextWidth = 48

// RowKey identifies a selectable row across re-renders and runs: the seed's
// node id, the node's id, and for a losing candidate its index among its
// parent's losers (-1 for node rows).
type RowKey struct {
	Seed  string
	ID    string
	Loser int
	Ghost bool // a node that left: the baseline reached it, this run did not
}

// Row is one rendered line of the result tree. plain is the text without
// styles (used to draw the selected row), styled the same text with styles.
type Row struct {
	Plain, Styled string
	Key           RowKey
	selectable    bool
	end           bool // a path ends at this node (NextEnd jumps here)
	change        bool // entered, moved or left since the baseline (NextChange jumps here)
}

// rowBuilder renders the trees into rows; it knows nothing of the cursor.
type rowBuilder struct {
	st      *theme.Styles
	width   int
	explain bool
	folded  map[RowKey]bool
	names   *common.Naming  // which property names a node (tui/common)
	stats   common.Stats    // which nodes are hubs (common.Stats); nil: none
	marks   *common.MarkSet // the relevance marks (tui/common); nil: none
	rows    []Row
	// minActivation is the run's threshold, for how close near misses came.
	minActivation float64
	// cache holds each non-root node's rendered rows with the inputs they
	// were rendered from, so a level event re-renders only the nodes it
	// touched (and those whose tree guides changed); the rest are copied.
	// It is dropped when the trees are replaced (reset).
	cache map[*Node]*nodeRows
}

// nodeRows is a node's cached rendering: head is its own row and its
// annotation (one or two rows), tail its losing candidates' rows (after its
// children's rows). in is what they were rendered from.
type nodeRows struct {
	in         rowInputs
	head, tail []Row
}

// rowInputs is everything a non-root node's rows depend on besides the node
// itself, whose id, labels, text and step never change once it is in a
// tree. Two equal inputs render the same rows.
type rowInputs struct {
	lead, cont      string
	width           int
	explain, folded bool
	// children, nodes that left (ghosts) and losers shown below the node
	kids, ghosts, losers int
	below                int // rows hidden under a folded node
	// how the node differs from the baseline, and where it was
	change        change
	was           activation.Placement
	end           activation.EndReason
	nearMiss      *activation.Step
	minActivation float64
	hub           bool // the node is a hub (common.Stats)
	mark          int  // the node's relevance mark (common.MarkSet)
}

// reset drops the cached rows (new trees, or a change of width).
func (b *rowBuilder) reset() { b.cache = nil }

// seg is a piece of a line with its style; plain and styled forms are built
// together so both stay in step.
type seg struct {
	text  string
	style func(...string) string
}

// add appends a row made of segs. Every segment's text is escaped
// (textsafe.Escape) here, so ids, labels, node texts and errors from the
// graph never reach the terminal raw.
func (b *rowBuilder) add(key RowKey, selectable bool, segs ...seg) {
	var p, s strings.Builder
	for _, sg := range segs {
		text := textsafe.Escape(sg.text)
		p.WriteString(text)
		if sg.style != nil && text != "" {
			s.WriteString(sg.style(text))
		} else {
			s.WriteString(text)
		}
	}
	plain, styled := p.String(), s.String()
	if w := b.width; w > 0 && ansi.StringWidth(plain) > w {
		plain = ansi.Truncate(plain, w, "…")
		styled = ansi.Truncate(styled, w, "…")
	}
	b.rows = append(b.rows, Row{Plain: plain, Styled: styled, Key: key, selectable: selectable})
}

// build renders every seed's tree.
func (b *rowBuilder) build(rt *Trees) []Row {
	b.rows = b.rows[:0]
	if rt == nil {
		return b.rows
	}
	b.minActivation = rt.Cfg.MinActivation
	for i, st := range rt.Seeds {
		if i > 0 {
			b.add(RowKey{Loser: -1}, false)
		}
		b.seed(st)
	}
	return b.rows
}

func (b *rowBuilder) seed(st *SeedTree) {
	s := b.st
	key := RowKey{Seed: st.Seed.NodeID, ID: st.Seed.NodeID, Loser: -1}
	if st.Root == nil {
		b.add(key, true, seg{"· ", nil}, seg{st.Seed.NodeID, s.Tree.ID.Render}, seg{"  " + seedStatus(st), b.stateStyle(st)})
		if st.Err != "" {
			b.add(RowKey{Loser: -1}, false, seg{"  " + st.Err, s.Tree.Error.Render})
		}
		return
	}
	b.node(st, st.Root, "", "", true)
}

func (b *rowBuilder) stateStyle(st *SeedTree) func(...string) string {
	switch st.State {
	case SeedRunning:
		return b.st.Tree.Running.Render
	case SeedFailed, SeedNotFound:
		return b.st.Tree.Error.Render
	}
	return b.st.Tree.Dim.Render
}

// node renders n and, unless folded, its children; lead is the prefix of
// n's own line, cont the prefix of the lines below it.
func (b *rowBuilder) node(st *SeedTree, n *Node, lead, cont string, isRoot bool) {
	key := RowKey{Seed: st.Seed.NodeID, ID: n.Node.ID, Loser: -1}
	folded := b.folded[key]
	nLosers := 0
	if b.explain {
		nLosers = len(n.Losers)
	}
	var ghosts []Ghost
	if st.Base != nil {
		ghosts = st.Base.ghosts[n.Node.ID]
	}
	ch, was := st.changeOf(n)
	hasKids := len(n.Children)+len(ghosts)+nLosers > 0
	in := rowInputs{lead: lead, cont: cont, width: b.width, explain: b.explain, folded: folded,
		kids: len(n.Children), ghosts: len(ghosts), losers: nLosers, end: n.End, nearMiss: n.NearMiss,
		minActivation: b.minActivation, change: ch, was: was, hub: b.stats != nil && b.stats.IsHub(n.Node.ID), mark: b.marks.Grade(n.Node.ID)}
	if folded && hasKids {
		in.below = countBelow(st, n, b.explain)
	}
	var c *nodeRows
	if isRoot {
		// The seed's annotation holds its run state (depth, time): always
		// rendered afresh.
		c = b.render(st, n, key, in, hasKids, true)
	} else {
		if b.cache == nil {
			b.cache = make(map[*Node]*nodeRows)
		}
		if c = b.cache[n]; c == nil || c.in != in {
			c = b.render(st, n, key, in, hasKids, false)
			b.cache[n] = c
		}
	}
	b.rows = append(b.rows, c.head...)
	if folded {
		return
	}
	total := len(n.Children) + len(ghosts) + nLosers
	for i, k := range n.Children {
		last := i == total-1
		b.node(st, k, cont+branch(last, "─"), cont+indent(last), false)
	}
	for i, g := range ghosts {
		b.ghost(st, g, cont, len(n.Children)+i == total-1)
	}
	b.rows = append(b.rows, c.tail...)
}

// render renders n's rows from in: its head and the tail of its losers.
func (b *rowBuilder) render(st *SeedTree, n *Node, key RowKey, in rowInputs, hasKids, isRoot bool) *nodeRows {
	c := &nodeRows{in: in}
	start := len(b.rows)
	b.head(st, n, key, in, hasKids, isRoot)
	c.head = slices.Clone(b.rows[start:])
	b.rows = b.rows[:start]
	b.losers(st, n, in.cont, in.losers, in.kids+in.ghosts)
	c.tail = slices.Clone(b.rows[start:])
	b.rows = b.rows[:start]
	return c
}

// ghost renders a node that left (the baseline reached it, this run did
// not) where it was, dimmed, and the nodes that left below it.
func (b *rowBuilder) ghost(st *SeedTree, g Ghost, cont string, last bool) {
	s := b.st
	id := g.Step.ToNode.ID
	segs := []seg{{cont + branch(last, "╌"), s.Tree.Dim.Render}, {theme.GlyphLeft + " " + b.names.NodeLead(g.Step.ToNode), s.Tree.Loser.Render}}
	if l := g.Step.ToNode.Label(); l != "" {
		segs = append(segs, seg{" " + l, s.Tree.Loser.Render})
	}
	segs = append(segs, seg{"  left · was T=" + render.Num(g.Step.TransferEnergy) + " at depth " + fmt.Sprint(g.Depth), s.Tree.Loser.Render})
	b.add(RowKey{Seed: st.Seed.NodeID, ID: id, Loser: -1, Ghost: true}, true, segs...)
	b.rows[len(b.rows)-1].change = true
	below := st.Base.ghosts[id]
	for i, k := range below {
		b.ghost(st, k, cont+indent(last), i == len(below)-1)
	}
}

// head renders n's own row and its annotation.
func (b *rowBuilder) head(st *SeedTree, n *Node, key RowKey, in rowInputs, hasKids, isRoot bool) {
	s := b.st
	lead, cont, folded := in.lead, in.cont, in.folded
	glyph := "· "
	switch {
	case hasKids && folded:
		glyph = theme.GlyphFolded + " "
	case hasKids:
		glyph = theme.GlyphUnfolded + " "
	}
	segs := []seg{{lead, s.Tree.Dim.Render}, {glyph, nil}}
	switch in.change {
	case changeEntered:
		segs = append(segs, seg{theme.GlyphEntered + " ", s.Tree.Entered.Render})
	case changeMoved:
		segs = append(segs, seg{theme.GlyphMoved + " ", s.Tree.Moved.Render})
	}
	if in.mark > 0 {
		segs = append(segs, seg{common.MarkGlyph(in.mark) + " ", s.Tree.Relevant.Render})
	}
	segs = append(segs, seg{b.names.NodeLead(n.Node), s.Tree.ID.Render})
	if in.hub {
		segs = append(segs, seg{" " + s.HubMark, s.Tree.Hub.Render})
	}
	if l := n.Node.Label(); l != "" {
		segs = append(segs, seg{" " + l, s.Tree.Label.Render})
	}
	if in.change == changeMoved {
		segs = append(segs, seg{fmt.Sprintf(" (was under %s at depth %d)", in.was.Parent, in.was.Depth), s.Tree.Moved.Render})
	}
	if t := shortText(n.Node); t != "" {
		segs = append(segs, seg{"  " + t, nil})
	}
	if hasKids && folded {
		segs = append(segs, seg{fmt.Sprintf("  (+%d)", in.below), s.Tree.Dim.Render})
	}
	b.add(key, true, segs...)
	b.rows[len(b.rows)-1].end = n.End != ""
	b.rows[len(b.rows)-1].change = in.change != changeNone

	bar := "  "
	if hasKids && !folded {
		bar = "│ "
	}
	meta := []seg{{cont + bar, s.Tree.Dim.Render}}
	if isRoot {
		meta = append(meta, seg{fmt.Sprintf("R=%s", render.Num(st.Seed.Score)), s.Tree.Metric.Render}, seg{" · " + seedStatus(st), b.stateStyle(st)})
	} else {
		meta = append(meta, seg{edgeMetrics(n.Step), s.Tree.Metric.Render})
	}
	meta[0].text = fitGuide(meta[0].text, segWidth(meta[1:]), b.width)
	if n.End != "" {
		end := seg{theme.GlyphEnd + " " + render.EndText(n.End, n.NearMiss, b.minActivation), s.Tree.End.Render}
		if b.width > 0 && segWidth(meta)+2+ansi.StringWidth(end.text) > b.width {
			b.add(RowKey{Loser: -1}, false, meta...) // no room: the end on its own line
			meta = []seg{meta[0]}
		} else {
			end.text = "  " + end.text
		}
		meta = append(meta, end)
	}
	b.add(RowKey{Loser: -1}, false, meta...)
}

// losers renders the first nLosers of n's losing candidates, after its
// children and ghosts (before rows above them).
func (b *rowBuilder) losers(st *SeedTree, n *Node, cont string, nLosers, before int) {
	s := b.st
	total := before + nLosers
	for i := 0; i < nLosers; i++ {
		o := n.Losers[i]
		last := before+i == total-1
		c := o.Candidate
		lseg := []seg{
			{cont + branch(last, "╌"), s.Tree.Dim.Render},
			{theme.GlyphLost + " " + b.names.NodeLead(c.NeighborNode), s.Tree.Loser.Render},
		}
		if l := c.NeighborNode.Label(); l != "" {
			lseg = append(lseg, seg{" " + l, s.Tree.Loser.Render})
		}
		lseg = append(lseg, seg{"  T=" + render.Num(c.TransferEnergy) + "  " + FateText(o, b.minActivation), s.Tree.Loser.Render})
		b.add(RowKey{Seed: st.Seed.NodeID, ID: n.Node.ID, Loser: i}, true, lseg...)
	}
}

// fitGuide shortens guide, the tree lines before an annotation, so that the
// numbers after it (need cells) fit in width: the guide is text and goes
// first, its leftmost columns replaced by "…", so a deep hop in a narrow
// pane still shows its whole `T=… w=… tag_sim=… d=…` (numbers are never
// cut while a guide could give way). width 0 means no limit.
func fitGuide(guide string, need, width int) string {
	if width <= 0 || ansi.StringWidth(guide)+need <= width {
		return guide
	}
	keep := width - need - 1 // one cell for the "…"
	r := []rune(guide)
	if keep <= 0 {
		return ""
	}
	if keep >= len(r) {
		return guide
	}
	return "…" + string(r[len(r)-keep:])
}

func segWidth(segs []seg) int {
	w := 0
	for _, sg := range segs {
		w += ansi.StringWidth(sg.text)
	}
	return w
}

func branch(last bool, line string) string {
	if last {
		return "└" + line + " "
	}
	return "├" + line + " "
}

func indent(last bool) string {
	if last {
		return "   "
	}
	return "│  "
}

// countBelow counts the rows hidden under a folded node: its children,
// their rows, its losers when shown, and the nodes that left below it.
func countBelow(st *SeedTree, n *Node, explain bool) int {
	c := len(n.Children) + st.ghostsBelow(n.Node.ID)
	if explain {
		c += len(n.Losers)
	}
	for _, k := range n.Children {
		c += countBelow(st, k, explain)
	}
	return c
}

// edgeMetrics is the edge annotation of a step: T, w, tag_sim and d.
func edgeMetrics(s *activation.Step) string {
	if s == nil {
		return ""
	}
	return fmt.Sprintf("T=%s w=%s tag_sim=%s d=%d",
		render.Num(s.TransferEnergy), render.Num(s.Weight), render.Num(s.TagSim), s.Degree)
}

// shortText is a node's display text on one line, cut to treeTextWidth
// runes: the same text, from the same properties (text, else title,
// description, name), as the CLI's tree (render.NodeText, render.Truncate).
func shortText(n graph.Node) string {
	t, _ := render.NodeText(n)
	return render.Truncate(t, treeTextWidth)
}

// seedStatus is a seed's run state in words.
func seedStatus(st *SeedTree) string {
	switch st.State {
	case SeedRunning:
		if st.Depth == 0 {
			return "running"
		}
		return fmt.Sprintf("running at depth %d", st.Depth)
	case SeedDone:
		n := 0
		if st.Result != nil {
			n = len(st.Result.Paths)
		}
		return fmt.Sprintf("done in %s, %s", common.FmtDur(st.Elapsed), common.Plural(n, "path"))
	case SeedNotFound:
		return "not found"
	case SeedCancelled:
		return "cancelled"
	case SeedFailed:
		return "error"
	}
	return "pending"
}
