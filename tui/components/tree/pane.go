// Package tree is Activation Energy's tree pane (docs/EXPLORER.md) and the
// run's types the explorer's root and runner share with it: one tree per
// seed, grown level by level from the run's events (Trees, SeedTree, Node),
// and the run it is compared with (Baseline: the nodes that entered, moved
// and left). The pane keeps its own fields; the root reads it through its
// methods (SelectedKey, SelectedNode, SelectedLoser, SelectedGhost,
// SelectionMoved, Explain, Position) and hands it the trees (SetTrees).
package tree

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
	"github.com/memoria-graph/memoria/tui/theme"
)

// Pane shows one result tree per seed, growing level by level. Rows are
// rendered once per change (cached) and handed to a bubbles viewport, so
// View costs only the visible lines.
type Pane struct {
	*common.Common
	trees   *Trees
	builder rowBuilder
	rows    []Row
	sels    []int // indices of the selectable rows
	cursor  int   // index into sels
	want    RowKey
	// off is the first row on screen: only the visible rows are drawn
	// (View), so a change costs the rows that changed plus one screen.
	off     int
	w, h    int
	focused bool
	// detailKey is the row the detail pane was last shown for
	// (syncDetail keeps its scroll while it stays).
	detailKey RowKey
	built     int // trees version the rows were built from (-1: stale)

	// Search in the results: the input while typing, the query (matched
	// case-insensitively against each row's text) once entered.
	search    textinput.Model
	searching bool
	query     string
}

func NewPane(c *common.Common) *Pane {
	return &Pane{Common: c, built: -1,
		builder: rowBuilder{st: c.St, folded: map[RowKey]bool{}, names: c.Names, stats: c.Stats, marks: c.Marks},
		search:  c.St.NewInput("/ ", "search the results")}
}

// Typing reports whether the search input takes the keys.
func (t *Pane) Typing() bool { return t.searching }

// SetSize sets the inner size of the pane.
func (t *Pane) SetSize(w, h int) {
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
func (t *Pane) listHeight() int {
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
func (t *Pane) summary() string {
	if t.trees == nil {
		return ""
	}
	return t.trees.Summary
}

// Focus gives the tree the keyboard.
func (t *Pane) Focus() tea.Cmd {
	t.focused = true
	t.setContent()
	return nil
}

// Blur takes the keyboard away.
func (t *Pane) Blur() tea.Cmd {
	t.focused = false
	t.endSearch(false)
	return nil
}

// SetTrees shows the trees of a new run; the selection stays on the same
// node when the new trees have it.
func (t *Pane) SetTrees(rt *Trees) {
	t.trees = rt
	t.builder.reset()
	t.built = -1
	t.refresh()
}

// Rebuild renders every row again: the naming or the graph's metrics
// (Common's names, stats) changed, and cached rows show them the old way.
func (t *Pane) Rebuild() {
	t.builder.reset()
	t.built = -1
	t.refresh()
}

// MarksChanged re-renders after a mark or the judgement changed: only the
// rows of nodes whose mark changed are rendered again (rowInputs.mark).
func (t *Pane) MarksChanged() {
	t.built = -1
	t.refresh()
}

// Changed re-renders after the trees received events.
func (t *Pane) Changed() { t.refresh() }

// ToggleExplain shows or hides the losing candidates.
func (t *Pane) ToggleExplain() bool {
	t.builder.explain = !t.builder.explain
	t.built = -1
	t.refresh()
	return t.builder.explain
}

// Explain reports whether losing candidates are shown.
func (t *Pane) Explain() bool { return t.builder.explain }

// refresh rebuilds the rows if the trees changed, then the viewport content.
func (t *Pane) refresh() {
	version := 0
	if t.trees != nil {
		version = t.trees.Version
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
			if r.Key == t.want {
				t.cursor = len(t.sels)
			}
			t.sels = append(t.sels, i)
		}
	}
	t.setContent()
}

// setContent scrolls so the selected row and its annotation line are in
// view; View draws the rows.
func (t *Pane) setContent() {
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
func (t *Pane) clampOffset() {
	t.off = max(0, min(t.off, len(t.rows)-t.listHeight()))
}

// line draws row i: the selected row marked, a search match highlighted.
func (t *Pane) line(i int) string {
	r := t.rows[i]
	if len(t.sels) > 0 && i == t.sels[t.cursor] {
		return t.St.Selected.Render(theme.GlyphSelected + " " + r.Plain)
	}
	if lo, hi, ok := t.match(r); ok {
		// A match: the glyph in the gutter (seen without colour too),
		// the matched text in the search style, the rest plain.
		return theme.GlyphMatch + " " + r.Plain[:lo] + t.St.Match.Render(r.Plain[lo:hi]) + r.Plain[hi:]
	}
	return "  " + r.Styled
}

// Update handles keys (when focused) and the mouse wheel.
func (t *Pane) Update(msg tea.Msg) tea.Cmd {
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
type treeCommand = keymap.Command[*Pane, tea.Cmd]

// losersHidden refuses the loser jumps while the losers are not shown.
func losersHidden(t *Pane, _ key.Binding) string {
	if !t.builder.explain {
		return "no losers shown: " + t.KM.Explain.Help().Key + " shows them"
	}
	return ""
}

// noSearch refuses the match jumps before a search.
func noSearch(t *Pane, _ key.Binding) string {
	if t.query == "" {
		return "no search: " + t.KM.Search.Help().Key + " searches the results"
	}
	return ""
}

// noBaseline refuses the change jumps while no run is compared with.
func noBaseline(t *Pane, _ key.Binding) string {
	if t.trees == nil || t.trees.base == nil {
		return "no baseline yet: the next run is compared with this one (" + t.KM.Pin.Help().Key + " pins it)"
	}
	return ""
}

// commands are the tree's keys (search typing aside: searchKey).
func (t *Pane) commands() []treeCommand {
	km := t.KM
	isEnd := func(r Row) bool { return r.end }
	isLoser := func(r Row) bool { return r.Key.Loser >= 0 }
	isChange := func(r Row) bool { return r.change }
	changes := func(d int) func(*Pane) tea.Cmd {
		return func(t *Pane) tea.Cmd {
			return t.jumpTo(d, isChange, "no change since the "+t.trees.base.Label+" run")
		}
	}
	moves := func(d func(*Pane) int) func(*Pane) tea.Cmd {
		return func(t *Pane) tea.Cmd { t.move(d(t)); return nil }
	}
	page := func(t *Pane) int { return max(1, t.h/2) }
	all := func(t *Pane) int { return len(t.sels) }
	return []treeCommand{
		{Binding: km.Search, Run: (*Pane).startSearch},
		{Binding: km.NextMatch, Disabled: noSearch, Run: func(t *Pane) tea.Cmd { return t.jumpMatch(1) }},
		{Binding: km.PrevMatch, Disabled: noSearch, Run: func(t *Pane) tea.Cmd { return t.jumpMatch(-1) }},
		{Binding: km.NextEnd, Run: func(t *Pane) tea.Cmd { return t.jumpTo(1, isEnd, "no path end") }},
		{Binding: km.PrevEnd, Run: func(t *Pane) tea.Cmd { return t.jumpTo(-1, isEnd, "no path end") }},
		{Binding: km.NextLoser, Disabled: losersHidden, Run: func(t *Pane) tea.Cmd { return t.jumpTo(1, isLoser, "no losing candidate") }},
		{Binding: km.PrevLoser, Disabled: losersHidden, Run: func(t *Pane) tea.Cmd { return t.jumpTo(-1, isLoser, "no losing candidate") }},
		{Binding: km.NextChange, Disabled: noBaseline, Run: changes(1)},
		{Binding: km.PrevChange, Disabled: noBaseline, Run: changes(-1)},
		{Binding: km.CollapseAll, Run: func(t *Pane) tea.Cmd { t.foldAll(); return nil }},
		{Binding: km.ExpandAll, Run: (*Pane).unfoldAll},
		{Binding: km.Up, Run: moves(func(*Pane) int { return -1 })},
		{Binding: km.Down, Run: moves(func(*Pane) int { return 1 })},
		{Binding: km.PageUp, Run: moves(func(t *Pane) int { return -page(t) })},
		{Binding: km.PageDown, Run: moves(page)},
		{Binding: km.Top, Run: moves(func(t *Pane) int { return -all(t) })},
		{Binding: km.Bottom, Run: moves(all)},
		{Binding: km.Toggle, Run: func(t *Pane) tea.Cmd {
			k, _ := t.SelectedKey()
			t.fold(!t.builder.folded[k])
			return nil
		}},
		{Binding: km.Expand, Run: func(t *Pane) tea.Cmd { t.fold(false); return nil }},
		{Binding: km.Collapse, Run: func(t *Pane) tea.Cmd { t.collapse(); return nil }},
	}
}

// startSearch opens the search input on the last query.
func (t *Pane) startSearch() tea.Cmd {
	t.searching = true
	t.search.SetValue(t.query)
	t.search.CursorEnd()
	t.setContent()
	return t.search.Focus()
}

// unfoldAll unfolds every node.
func (t *Pane) unfoldAll() tea.Cmd {
	clear(t.builder.folded)
	t.built = -1
	t.refresh()
	return nil
}

func (t *Pane) move(d int) {
	if len(t.sels) == 0 {
		return
	}
	t.cursor = max(0, min(len(t.sels)-1, t.cursor+d))
	t.want = t.rows[t.sels[t.cursor]].Key
	t.setContent()
}

func (t *Pane) fold(f bool) {
	k, ok := t.SelectedKey()
	if !ok || k.Loser >= 0 || k.Ghost {
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
func (t *Pane) collapse() {
	n, st := t.SelectedNode()
	k, ok := t.SelectedKey()
	if !ok {
		return
	}
	if n != nil && k.Loser < 0 && !t.builder.folded[k] && st.hasRowsBelow(n, t.builder.explain) {
		t.fold(true)
		return
	}
	var parentID string
	switch {
	case k.Loser >= 0:
		parentID = k.ID
	case n != nil && n.Parent != nil:
		parentID = n.Parent.Node.ID
	default:
		return
	}
	t.want = RowKey{Seed: st.Seed.NodeID, ID: parentID, Loser: -1}
	t.built = -1
	t.refresh()
}

func (t *Pane) SelectedKey() (RowKey, bool) {
	if len(t.sels) == 0 {
		return RowKey{}, false
	}
	return t.rows[t.sels[t.cursor]].Key, true
}

// SelectedNode returns the selected node (for a loser row, its parent) and
// its seed's tree.
func (t *Pane) SelectedNode() (*Node, *SeedTree) {
	k, ok := t.SelectedKey()
	if !ok || t.trees == nil {
		return nil, nil
	}
	for _, st := range t.trees.Seeds {
		if st.Seed.NodeID == k.Seed {
			return st.Nodes[k.ID], st
		}
	}
	return nil, nil
}

// SelectedLoser returns the losing candidate on the selected row, if any.
func (t *Pane) SelectedLoser() (activation.Outcome, bool) {
	k, ok := t.SelectedKey()
	n, _ := t.SelectedNode()
	if !ok || n == nil || k.Loser < 0 || k.Loser >= len(n.Losers) {
		return activation.Outcome{}, false
	}
	return n.Losers[k.Loser], true
}

// SelectedGhost returns the node that left on the selected row, if any,
// with its seed's tree.
func (t *Pane) SelectedGhost() (Ghost, *SeedTree, bool) {
	k, ok := t.SelectedKey()
	if !ok || !k.Ghost || t.trees == nil {
		return Ghost{}, nil, false
	}
	for _, st := range t.trees.Seeds {
		if st.Seed.NodeID != k.Seed || st.Base == nil {
			continue
		}
		for _, gs := range st.Base.ghosts {
			for _, g := range gs {
				if g.Step.ToNode.ID == k.ID {
					return g, st, true
				}
			}
		}
	}
	return Ghost{}, nil, false
}

// View renders the visible rows, and the search input while it is open.
func (t *Pane) View() string {
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
func (t *Pane) ShortHelp() []key.Binding {
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
func (t *Pane) Position() string {
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
func (t *Pane) searchKey(msg tea.KeyMsg) tea.Cmd {
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
func (t *Pane) endSearch(drop bool) {
	if drop {
		t.query = ""
	}
	t.searching = false
	t.search.Blur()
	t.setContent()
}

// match reports where the query is in r's text (byte offsets into
// r.plain), matching case-insensitively.
func (t *Pane) match(r Row) (lo, hi int, ok bool) {
	if t.query == "" || !r.selectable {
		return 0, 0, false
	}
	lp, lq := strings.ToLower(r.Plain), strings.ToLower(t.query)
	i := strings.Index(lp, lq)
	if i < 0 {
		return 0, 0, false
	}
	if len(lp) != len(r.Plain) { // lower-casing changed the bytes: mark the whole row
		return 0, len(r.Plain), true
	}
	return i, i + len(lq), true
}

func (t *Pane) matchesAny() bool {
	for _, ri := range t.sels {
		if _, _, ok := t.match(t.rows[ri]); ok {
			return true
		}
	}
	return false
}

// jumpMatch moves to the next (d = 1) or previous (d = -1) match,
// wrapping around.
func (t *Pane) jumpMatch(d int) tea.Cmd {
	return t.jumpTo(d, func(r Row) bool { _, _, ok := t.match(r); return ok }, "no row matches "+t.query)
}

// jumpMatchFrom selects the first match at or after the selection
// (wrapping), if any.
func (t *Pane) jumpMatchFrom() {
	n := len(t.sels)
	for i := range n {
		c := (t.cursor + i) % n
		if _, _, ok := t.match(t.rows[t.sels[c]]); ok {
			t.cursor = c
			t.want = t.rows[t.sels[c]].Key
			return
		}
	}
}

// jumpTo selects the next selectable row after (d = 1) or before (d = -1)
// the selection for which ok holds, wrapping around; when there is none
// it says so (none) on the status line.
func (t *Pane) jumpTo(d int, ok func(Row) bool, none string) tea.Cmd {
	n := len(t.sels)
	for i := 1; i <= n; i++ {
		c := ((t.cursor+d*i)%n + n) % n
		if ok(t.rows[t.sels[c]]) {
			t.cursor = c
			t.want = t.rows[t.sels[c]].Key
			t.setContent()
			return nil
		}
	}
	return common.Notify(none)
}

// foldAll folds every node that has rows below it, the seeds included: one
// row per seed, each unfolded a level at a time with enter.
func (t *Pane) foldAll() {
	if t.trees == nil {
		return
	}
	for _, st := range t.trees.Seeds {
		for _, n := range st.Nodes {
			if st.hasRowsBelow(n, t.builder.explain) {
				t.builder.folded[RowKey{Seed: st.Seed.NodeID, ID: n.Node.ID, Loser: -1}] = true
			}
		}
	}
	if k, ok := t.SelectedKey(); ok {
		t.want = RowKey{Seed: k.Seed, ID: k.Seed, Loser: -1} // the selection's seed: its row stays
	}
	t.built = -1
	t.refresh()
}

// SelectionMoved reports whether the selection is on another row than when
// it was last asked (the detail pane then shows the new row from its top,
// else keeps its scroll), and remembers the row.
func (t *Pane) SelectionMoved() bool {
	k, _ := t.SelectedKey()
	moved := k != t.detailKey
	t.detailKey = k
	return moved
}

// Focused reports whether the tree has the keyboard.
func (t *Pane) Focused() bool { return t.focused }

// Query is the search's query ("" for none).
func (t *Pane) Query() string { return t.query }

// Rows are the rendered rows, every one (not only those on screen).
func (t *Pane) Rows() []Row { return t.rows }

// Selectable are the rows the cursor can be on, in order.
func (t *Pane) Selectable() []Row {
	out := make([]Row, len(t.sels))
	for i, ri := range t.sels {
		out[i] = t.rows[ri]
	}
	return out
}

// Select puts the cursor on the i-th selectable row (Selectable).
func (t *Pane) Select(i int) {
	if i < 0 || i >= len(t.sels) {
		return
	}
	t.cursor = i
	t.want = t.rows[t.sels[i]].Key
	t.setContent()
}

// SetFolded folds or unfolds the row k.
func (t *Pane) SetFolded(k RowKey, folded bool) {
	if folded {
		t.builder.folded[k] = true
	} else {
		delete(t.builder.folded, k)
	}
	t.built = -1
	t.refresh()
}

// FreshRows renders the trees again from nothing (no cached rows), with the
// pane's width, explain switch, folds and naming: the incremental rows
// (Rows) must equal them.
func (t *Pane) FreshRows() []Row {
	b := &t.builder
	fresh := rowBuilder{st: b.st, width: b.width, explain: b.explain, folded: b.folded, names: b.names}
	return fresh.build(t.trees)
}
