package tui

import (
	"strings"

	"github.com/charmbracelet/bubbles/key"
	"github.com/charmbracelet/bubbles/viewport"
	tea "github.com/charmbracelet/bubbletea"
	"github.com/memoria-graph/memoria/keymap"
	"github.com/memoria-graph/memoria/retriever/activation"
)

// treePane shows one result tree per seed, growing level by level. Rows are
// rendered once per change (cached) and handed to a bubbles viewport, so
// View costs only the visible lines.
type treePane struct {
	km      keymap.KeyMap
	st      *Styles
	trees   *resultTrees
	builder rowBuilder
	rows    []treeRow
	sels    []int // indices of the selectable rows
	cursor  int   // index into sels
	want    rowKey
	vp      viewport.Model
	w, h    int
	focused bool
	built   int // trees version the rows were built from (-1: stale)
}

func newTreePane(km keymap.KeyMap, st *Styles) *treePane {
	vp := viewport.New(0, 0)
	vp.MouseWheelEnabled = true
	vp.KeyMap = viewport.KeyMap{} // keys are handled here, to move the cursor
	return &treePane{km: km, st: st, vp: vp, built: -1,
		builder: rowBuilder{st: st, folded: map[rowKey]bool{}}}
}

// SetSize sets the inner size of the pane.
func (t *treePane) SetSize(w, h int) {
	if w == t.w && h == t.h {
		return
	}
	t.w, t.h = w, h
	t.vp.Width, t.vp.Height = w, h
	t.built = -1
	t.refresh()
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
	return nil
}

// SetTrees shows the trees of a new run; the selection stays on the same
// node when the new trees have it.
func (t *treePane) SetTrees(rt *resultTrees) {
	t.trees = rt
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

// setContent writes the rows, with the selected one marked, to the viewport
// and scrolls so the selection is visible.
func (t *treePane) setContent() {
	if len(t.rows) == 0 {
		t.vp.SetContent(t.st.Dim.Render("no results yet: pick a seed (tab to the seed list, space to toggle)"))
		return
	}
	sel := -1
	if len(t.sels) > 0 {
		sel = t.sels[t.cursor]
	}
	var b strings.Builder
	for i, r := range t.rows {
		if i > 0 {
			b.WriteByte('\n')
		}
		if i == sel {
			b.WriteString(t.st.Selected.Render(glyphSelected + " " + r.plain))
			continue
		}
		b.WriteString("  ")
		b.WriteString(r.styled)
	}
	t.vp.SetContent(b.String())
	if sel >= 0 {
		// keep the selected row and its annotation line in view
		if sel < t.vp.YOffset {
			t.vp.SetYOffset(sel)
		} else if sel+1 >= t.vp.YOffset+t.vp.Height {
			t.vp.SetYOffset(sel + 2 - t.vp.Height)
		}
	}
}

// Update handles keys (when focused) and the mouse wheel.
func (t *treePane) Update(msg tea.Msg) tea.Cmd {
	switch msg := msg.(type) {
	case tea.MouseMsg:
		var cmd tea.Cmd
		t.vp, cmd = t.vp.Update(msg)
		return cmd
	case tea.KeyMsg:
		if !t.focused {
			return nil
		}
		switch {
		case key.Matches(msg, t.km.Up):
			t.move(-1)
		case key.Matches(msg, t.km.Down):
			t.move(1)
		case key.Matches(msg, t.km.PageUp):
			t.move(-max(1, t.h/2))
		case key.Matches(msg, t.km.PageDown):
			t.move(max(1, t.h/2))
		case key.Matches(msg, t.km.Top):
			t.move(-len(t.sels))
		case key.Matches(msg, t.km.Bottom):
			t.move(len(t.sels))
		case key.Matches(msg, t.km.Toggle):
			k, _ := t.selectedKey()
			t.fold(!t.builder.folded[k])
		case key.Matches(msg, t.km.Expand):
			t.fold(false)
		case key.Matches(msg, t.km.Collapse):
			t.collapse()
		}
	}
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
	if !ok || k.loser >= 0 {
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
	if n != nil && k.loser < 0 && !t.builder.folded[k] && (len(n.children) > 0 || (t.builder.explain && len(n.losers) > 0)) {
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

// View renders the visible rows.
func (t *treePane) View() string { return t.vp.View() }

// ShortHelp lists the tree's main keys.
func (t *treePane) ShortHelp() []key.Binding {
	return []key.Binding{t.km.Up, t.km.Down, t.km.Toggle, t.km.Collapse, t.km.Explain, t.km.CopyPath}
}
