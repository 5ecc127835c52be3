package tui

import (
	"fmt"
	"strings"

	"github.com/charmbracelet/bubbles/key"
	"github.com/charmbracelet/bubbles/textinput"
	tea "github.com/charmbracelet/bubbletea"
	"github.com/charmbracelet/x/ansi"
	"github.com/memoria-graph/memoria/internal/textsafe"
	"github.com/memoria-graph/memoria/keymap"
	"github.com/memoria-graph/memoria/retriever/activation"
	"github.com/memoria-graph/memoria/tui/common"
)

// treePane shows one result tree per seed, growing level by level. Rows are
// rendered once per change (cached) and handed to a bubbles viewport, so
// View costs only the visible lines.
type treePane struct {
	*Common
	trees   *resultTrees
	builder rowBuilder
	rows    []treeRow
	sels    []int // indices of the selectable rows
	cursor  int   // index into sels
	want    rowKey
	// off is the first row on screen: only the visible rows are drawn
	// (View), so a change costs the rows that changed plus one screen.
	off     int
	w, h    int
	focused bool
	// detailKey is the row the detail pane was last shown for
	// (syncDetail keeps its scroll while it stays).
	detailKey rowKey
	built     int // trees version the rows were built from (-1: stale)

	// Search in the results: the input while typing, the query (matched
	// case-insensitively against each row's text) once entered.
	search    textinput.Model
	searching bool
	query     string
}

func newTreePane(c *Common) *treePane {
	return &treePane{Common: c, built: -1,
		builder: rowBuilder{st: c.St, folded: map[rowKey]bool{}, names: c.Names, stats: c.Stats, marks: c.Marks},
		search:  c.St.NewInput("/ ", "search the results")}
}

// Typing reports whether the search input takes the keys.
func (t *treePane) Typing() bool { return t.searching }

// SetSize sets the inner size of the pane.
func (t *treePane) SetSize(w, h int) {
	if w == t.w && h == t.h {
		return
	}
	t.w, t.h = w, h
	t.search.Width = max(1, w-4)
	t.built = -1
	t.refresh()
}

// listHeight is the rows' height: one line goes to the search input while
// it is open.
func (t *treePane) listHeight() int {
	h := t.h
	if t.searching {
		h--
	}
	if t.summary() != "" {
		h--
	}
	head, foot := t.Judged.View(t.St, t.w, t.h)
	return max(0, h-len(head)-len(foot))
}

// summary is the diff's summary line against the baseline ("" without one):
// it stays above the rows, unscrolled.
func (t *treePane) summary() string {
	if t.trees == nil {
		return ""
	}
	return t.trees.summary
}

// Focus gives the tree the keyboard.
func (t *treePane) Focus() tea.Cmd {
	t.focused = true
	t.setContent()
	return nil
}

// Blur takes the keyboard away.
func (t *treePane) Blur() tea.Cmd {
	t.focused = false
	t.endSearch(false)
	return nil
}

// SetTrees shows the trees of a new run; the selection stays on the same
// node when the new trees have it.
func (t *treePane) SetTrees(rt *resultTrees) {
	t.trees = rt
	t.builder.reset()
	t.built = -1
	t.refresh()
}

// Rebuild renders every row again: the naming or the graph's metrics
// (Common's names, stats) changed, and cached rows show them the old way.
func (t *treePane) Rebuild() {
	t.builder.reset()
	t.built = -1
	t.refresh()
}

// MarksChanged re-renders after a mark or the judgement changed: only the
// rows of nodes whose mark changed are rendered again (rowInputs.mark).
func (t *treePane) MarksChanged() {
	t.built = -1
	t.refresh()
}

// Changed re-renders after the trees received events.
func (t *treePane) Changed() { t.refresh() }

// ToggleExplain shows or hides the losing candidates.
func (t *treePane) ToggleExplain() bool {
	t.builder.explain = !t.builder.explain
	t.built = -1
	t.refresh()
	return t.builder.explain
}

// Explain reports whether losing candidates are shown.
func (t *treePane) Explain() bool { return t.builder.explain }

// refresh rebuilds the rows if the trees changed, then the viewport content.
func (t *treePane) refresh() {
	version := 0
	if t.trees != nil {
		version = t.trees.version
	}
	if t.built == version && t.rows != nil {
		t.setContent()
		return
	}
	t.builder.width = max(0, t.w-2)
	t.rows = t.builder.build(t.trees)
	t.built = version
	t.sels = t.sels[:0]
	t.cursor = 0
	for i, r := range t.rows {
		if r.selectable {
			if r.key == t.want {
				t.cursor = len(t.sels)
			}
			t.sels = append(t.sels, i)
		}
	}
	t.setContent()
}

// setContent scrolls so the selected row and its annotation line are in
// view; View draws the rows.
func (t *treePane) setContent() {
	h := t.listHeight()
	if len(t.sels) > 0 {
		sel := t.sels[t.cursor]
		if sel < t.off {
			t.off = sel
		} else if sel+1 >= t.off+h {
			t.off = sel + 2 - h
		}
	}
	t.clampOffset()
}

// clampOffset keeps the first visible row within the rows.
func (t *treePane) clampOffset() {
	t.off = max(0, min(t.off, len(t.rows)-t.listHeight()))
}

// line draws row i: the selected row marked, a search match highlighted.
func (t *treePane) line(i int) string {
	r := t.rows[i]
	if len(t.sels) > 0 && i == t.sels[t.cursor] {
		return t.St.Selected.Render(glyphSelected + " " + r.plain)
	}
	if lo, hi, ok := t.match(r); ok {
		// A match: the glyph in the gutter (seen without colour too),
		// the matched text in the search style, the rest plain.
		return glyphMatch + " " + r.plain[:lo] + t.St.Match.Render(r.plain[lo:hi]) + r.plain[hi:]
	}
	return "  " + r.styled
}

// Update handles keys (when focused) and the mouse wheel.
func (t *treePane) Update(msg tea.Msg) tea.Cmd {
	switch msg := msg.(type) {
	case tea.MouseMsg:
		if msg.Action == tea.MouseActionPress {
			switch msg.Button {
			case tea.MouseButtonWheelUp:
				t.off -= common.MouseWheelRows
			case tea.MouseButtonWheelDown:
				t.off += common.MouseWheelRows
			}
			t.clampOffset()
		}
		return nil
	case tea.KeyMsg:
		if !t.focused {
			return nil
		}
		if t.searching {
			return t.searchKey(msg)
		}
		cmd, _ := keymap.Dispatch(t, msg, t.commands(), common.Notify)
		return cmd
	}
	return nil
}

// treeCommand is a key of the tree; its refusals are notes, not errors.
type treeCommand = keymap.Command[*treePane, tea.Cmd]

// losersHidden refuses the loser jumps while the losers are not shown.
func losersHidden(t *treePane, _ key.Binding) string {
	if !t.builder.explain {
		return "no losers shown: " + t.KM.Explain.Help().Key + " shows them"
	}
	return ""
}

// noSearch refuses the match jumps before a search.
func noSearch(t *treePane, _ key.Binding) string {
	if t.query == "" {
		return "no search: " + t.KM.Search.Help().Key + " searches the results"
	}
	return ""
}

// noBaseline refuses the change jumps while no run is compared with.
func noBaseline(t *treePane, _ key.Binding) string {
	if t.trees == nil || t.trees.base == nil {
		return "no baseline yet: the next run is compared with this one (" + t.KM.Pin.Help().Key + " pins it)"
	}
	return ""
}

// commands are the tree's keys (search typing aside: searchKey).
func (t *treePane) commands() []treeCommand {
	km := t.KM
	isEnd := func(r treeRow) bool { return r.end }
	isLoser := func(r treeRow) bool { return r.key.loser >= 0 }
	isChange := func(r treeRow) bool { return r.change }
	changes := func(d int) func(*treePane) tea.Cmd {
		return func(t *treePane) tea.Cmd {
			return t.jumpTo(d, isChange, "no change since the "+t.trees.base.label+" run")
		}
	}
	moves := func(d func(*treePane) int) func(*treePane) tea.Cmd {
		return func(t *treePane) tea.Cmd { t.move(d(t)); return nil }
	}
	page := func(t *treePane) int { return max(1, t.h/2) }
	all := func(t *treePane) int { return len(t.sels) }
	return []treeCommand{
		{Binding: km.Search, Run: (*treePane).startSearch},
		{Binding: km.NextMatch, Disabled: noSearch, Run: func(t *treePane) tea.Cmd { return t.jumpMatch(1) }},
		{Binding: km.PrevMatch, Disabled: noSearch, Run: func(t *treePane) tea.Cmd { return t.jumpMatch(-1) }},
		{Binding: km.NextEnd, Run: func(t *treePane) tea.Cmd { return t.jumpTo(1, isEnd, "no path end") }},
		{Binding: km.PrevEnd, Run: func(t *treePane) tea.Cmd { return t.jumpTo(-1, isEnd, "no path end") }},
		{Binding: km.NextLoser, Disabled: losersHidden, Run: func(t *treePane) tea.Cmd { return t.jumpTo(1, isLoser, "no losing candidate") }},
		{Binding: km.PrevLoser, Disabled: losersHidden, Run: func(t *treePane) tea.Cmd { return t.jumpTo(-1, isLoser, "no losing candidate") }},
		{Binding: km.NextChange, Disabled: noBaseline, Run: changes(1)},
		{Binding: km.PrevChange, Disabled: noBaseline, Run: changes(-1)},
		{Binding: km.CollapseAll, Run: func(t *treePane) tea.Cmd { t.foldAll(); return nil }},
		{Binding: km.ExpandAll, Run: (*treePane).unfoldAll},
		{Binding: km.Up, Run: moves(func(*treePane) int { return -1 })},
		{Binding: km.Down, Run: moves(func(*treePane) int { return 1 })},
		{Binding: km.PageUp, Run: moves(func(t *treePane) int { return -page(t) })},
		{Binding: km.PageDown, Run: moves(page)},
		{Binding: km.Top, Run: moves(func(t *treePane) int { return -all(t) })},
		{Binding: km.Bottom, Run: moves(all)},
		{Binding: km.Toggle, Run: func(t *treePane) tea.Cmd {
			k, _ := t.selectedKey()
			t.fold(!t.builder.folded[k])
			return nil
		}},
		{Binding: km.Expand, Run: func(t *treePane) tea.Cmd { t.fold(false); return nil }},
		{Binding: km.Collapse, Run: func(t *treePane) tea.Cmd { t.collapse(); return nil }},
	}
}

// startSearch opens the search input on the last query.
func (t *treePane) startSearch() tea.Cmd {
	t.searching = true
	t.search.SetValue(t.query)
	t.search.CursorEnd()
	t.setContent()
	return t.search.Focus()
}

// unfoldAll unfolds every node.
func (t *treePane) unfoldAll() tea.Cmd {
	clear(t.builder.folded)
	t.built = -1
	t.refresh()
	return nil
}

func (t *treePane) move(d int) {
	if len(t.sels) == 0 {
		return
	}
	t.cursor = max(0, min(len(t.sels)-1, t.cursor+d))
	t.want = t.rows[t.sels[t.cursor]].key
	t.setContent()
}

func (t *treePane) fold(f bool) {
	k, ok := t.selectedKey()
	if !ok || k.loser >= 0 || k.ghost {
		return
	}
	if f {
		t.builder.folded[k] = true
	} else {
		delete(t.builder.folded, k)
	}
	t.built = -1
	t.refresh()
}

// collapse folds the selected node, or when it is folded or a leaf, moves
// to its parent.
func (t *treePane) collapse() {
	n, st := t.selectedNode()
	k, ok := t.selectedKey()
	if !ok {
		return
	}
	if n != nil && k.loser < 0 && !t.builder.folded[k] && st.hasRowsBelow(n, t.builder.explain) {
		t.fold(true)
		return
	}
	var parentID string
	switch {
	case k.loser >= 0:
		parentID = k.id
	case n != nil && n.parent != nil:
		parentID = n.parent.node.ID
	default:
		return
	}
	t.want = rowKey{seed: st.seed.NodeID, id: parentID, loser: -1}
	t.built = -1
	t.refresh()
}

func (t *treePane) selectedKey() (rowKey, bool) {
	if len(t.sels) == 0 {
		return rowKey{}, false
	}
	return t.rows[t.sels[t.cursor]].key, true
}

// selectedNode returns the selected node (for a loser row, its parent) and
// its seed's tree.
func (t *treePane) selectedNode() (*tnode, *seedTree) {
	k, ok := t.selectedKey()
	if !ok || t.trees == nil {
		return nil, nil
	}
	for _, st := range t.trees.seeds {
		if st.seed.NodeID == k.seed {
			return st.nodes[k.id], st
		}
	}
	return nil, nil
}

// selectedLoser returns the losing candidate on the selected row, if any.
func (t *treePane) selectedLoser() (activation.Outcome, bool) {
	k, ok := t.selectedKey()
	n, _ := t.selectedNode()
	if !ok || n == nil || k.loser < 0 || k.loser >= len(n.losers) {
		return activation.Outcome{}, false
	}
	return n.losers[k.loser], true
}

// selectedGhost returns the node that left on the selected row, if any,
// with its seed's tree.
func (t *treePane) selectedGhost() (ghost, *seedTree, bool) {
	k, ok := t.selectedKey()
	if !ok || !k.ghost || t.trees == nil {
		return ghost{}, nil, false
	}
	for _, st := range t.trees.seeds {
		if st.seed.NodeID != k.seed || st.base == nil {
			continue
		}
		for _, gs := range st.base.ghosts {
			for _, g := range gs {
				if g.step.ToNode.ID == k.id {
					return g, st, true
				}
			}
		}
	}
	return ghost{}, nil, false
}

// View renders the visible rows, and the search input while it is open.
func (t *treePane) View() string {
	var lines []string
	if len(t.rows) == 0 {
		lines = []string{t.St.Dim.Render("no results yet: pick a seed (tab to the seed list, space to toggle)")}
	} else {
		for i := t.off; i < min(len(t.rows), t.off+t.listHeight()); i++ {
			lines = append(lines, t.line(i))
		}
	}
	h := t.listHeight()
	out := t.St.R.NewStyle().Width(t.w).Height(h).MaxHeight(h).MaxWidth(t.w).Render(strings.Join(lines, "\n"))
	if head, foot := t.Judged.View(t.St, t.w, t.h); len(head) > 0 {
		out = strings.Join(append(append(head, out), foot...), "\n")
	}
	if sum := t.summary(); sum != "" && t.h > 1 {
		out = t.St.Info.Render(ansi.Truncate(sum, t.w, "…")) + "\n" + out
	}
	if t.searching {
		return out + "\n" + t.search.View()
	}
	return out
}

// ShortHelp lists the tree's main keys.
func (t *treePane) ShortHelp() []key.Binding {
	if t.searching {
		return []key.Binding{t.KM.Submit, t.KM.Cancel}
	}
	keys := []key.Binding{t.KM.Up, t.KM.Down, t.KM.Toggle, t.KM.Collapse, t.KM.Explain, t.KM.Search}
	// The jumps to a match and to a change only once they would work
	// (their commands' refusals: noSearch, noBaseline).
	keys = append(keys, keymap.Usable(t, t.commands(), t.KM.NextMatch, t.KM.PrevMatch, t.KM.NextChange)...)
	return append(keys, t.KM.NextEnd, t.KM.CollapseAll, t.KM.ExpandAll, t.KM.WhyNot, t.KM.Mark, t.KM.Pin, t.KM.CopyPath)
}

// Position is where the selection is among the selectable rows, for the
// pane's title ("row 12 of 1,675"), and the search's place when a query is
// set ("/stock 3 of 17"); "" with no rows.
func (t *treePane) Position() string {
	if len(t.sels) == 0 {
		return ""
	}
	pos := fmt.Sprintf("row %s of %s", common.Thousands(t.cursor+1), common.Thousands(len(t.sels)))
	if t.query != "" {
		n, at := 0, 0
		for i, ri := range t.sels {
			if _, _, ok := t.match(t.rows[ri]); ok {
				n++
				if i <= t.cursor {
					at = n
				}
			}
		}
		pos += fmt.Sprintf(" · /%s %d of %d", textsafe.Escape(t.query), at, n)
	}
	return pos
}

// searchKey handles a key while the search input is open: enter keeps the
// query, esc drops it, anything else edits it and moves to the first
// match at or after the selection (the search is incremental).
func (t *treePane) searchKey(msg tea.KeyMsg) tea.Cmd {
	switch {
	case key.Matches(msg, t.KM.Submit):
		t.endSearch(false)
		if t.query != "" && !t.matchesAny() {
			return common.Notify("no row matches " + t.query)
		}
		return nil
	case key.Matches(msg, t.KM.Cancel):
		t.endSearch(true)
		return nil
	}
	var cmd tea.Cmd
	t.search, cmd = t.search.Update(msg)
	if q := t.search.Value(); q != t.query {
		t.query = q
		if t.query != "" {
			t.jumpMatchFrom()
		}
		t.setContent()
	}
	return cmd
}

// endSearch closes the search input; drop also forgets the query.
func (t *treePane) endSearch(drop bool) {
	if drop {
		t.query = ""
	}
	t.searching = false
	t.search.Blur()
	t.setContent()
}

// match reports where the query is in r's text (byte offsets into
// r.plain), matching case-insensitively.
func (t *treePane) match(r treeRow) (lo, hi int, ok bool) {
	if t.query == "" || !r.selectable {
		return 0, 0, false
	}
	lp, lq := strings.ToLower(r.plain), strings.ToLower(t.query)
	i := strings.Index(lp, lq)
	if i < 0 {
		return 0, 0, false
	}
	if len(lp) != len(r.plain) { // lower-casing changed the bytes: mark the whole row
		return 0, len(r.plain), true
	}
	return i, i + len(lq), true
}

func (t *treePane) matchesAny() bool {
	for _, ri := range t.sels {
		if _, _, ok := t.match(t.rows[ri]); ok {
			return true
		}
	}
	return false
}

// jumpMatch moves to the next (d = 1) or previous (d = -1) match,
// wrapping around.
func (t *treePane) jumpMatch(d int) tea.Cmd {
	return t.jumpTo(d, func(r treeRow) bool { _, _, ok := t.match(r); return ok }, "no row matches "+t.query)
}

// jumpMatchFrom selects the first match at or after the selection
// (wrapping), if any.
func (t *treePane) jumpMatchFrom() {
	n := len(t.sels)
	for i := range n {
		c := (t.cursor + i) % n
		if _, _, ok := t.match(t.rows[t.sels[c]]); ok {
			t.cursor = c
			t.want = t.rows[t.sels[c]].key
			return
		}
	}
}

// jumpTo selects the next selectable row after (d = 1) or before (d = -1)
// the selection for which ok holds, wrapping around; when there is none
// it says so (none) on the status line.
func (t *treePane) jumpTo(d int, ok func(treeRow) bool, none string) tea.Cmd {
	n := len(t.sels)
	for i := 1; i <= n; i++ {
		c := ((t.cursor+d*i)%n + n) % n
		if ok(t.rows[t.sels[c]]) {
			t.cursor = c
			t.want = t.rows[t.sels[c]].key
			t.setContent()
			return nil
		}
	}
	return common.Notify(none)
}

// foldAll folds every node that has rows below it, the seeds included: one
// row per seed, each unfolded a level at a time with enter.
func (t *treePane) foldAll() {
	if t.trees == nil {
		return
	}
	for _, st := range t.trees.seeds {
		for _, n := range st.nodes {
			if st.hasRowsBelow(n, t.builder.explain) {
				t.builder.folded[rowKey{seed: st.seed.NodeID, id: n.node.ID, loser: -1}] = true
			}
		}
	}
	if k, ok := t.selectedKey(); ok {
		t.want = rowKey{seed: k.seed, id: k.seed, loser: -1} // the selection's seed: its row stays
	}
	t.built = -1
	t.refresh()
}
