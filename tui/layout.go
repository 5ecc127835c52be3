package tui

import (
	"fmt"
	"strings"

	"github.com/charmbracelet/bubbles/key"
	"github.com/charmbracelet/lipgloss"
	"github.com/charmbracelet/x/ansi"
	"github.com/memoria-graph/memoria/tui/components/status"
)

// rect is a pane's place on the screen (outer size, frame included).
type rect struct{ x, y, w, h int }

func (r rect) contains(x, y int) bool {
	return x >= r.x && x < r.x+r.w && y >= r.y && y < r.y+r.h
}

// layout is where each pane goes; wide puts the detail pane beside the tree
// instead of under it.
type layout struct {
	seeds, tags, params, tree, detail rect
	wide                              bool
}

// full is the size of the whole body, which the overlays (help, why, sweep)
// cover: the seed column and the tree, and the detail pane when it sits
// beside the tree.
func (l layout) full() (w, h int) {
	w = l.seeds.w + l.tree.w
	if l.wide {
		w += l.detail.w
	}
	return w, l.seeds.h + l.tags.h + l.params.h
}

// Minimum size the layout is designed for. A smaller window shows only
// tooSmallView, which says so: cut panes would hide seeds and results
// without a word.
const (
	minWidth  = 80
	minHeight = 24
	statusH   = 2 // run line and message line
	helpH     = 1
	// wideWidth is the width from which the detail pane sits beside the
	// tree rather than under it.
	wideWidth = 160
)

// resize lays the panes out for a w×h terminal and gives each its inner
// size, computed from the pane frame (Styles.inner).
func (m *Model) resize(w, h int) {
	m.W, m.H = w, h
	w, h = max(w, minWidth), max(h, minHeight)
	bodyH := h - statusH - helpH
	// The seed column widens with the window (a quarter of it, 34 to 64
	// cells), so ids and texts of a big graph are readable on a wide
	// screen: 34 up to 139 columns, 40 at 160, 64 from 256.
	leftW := max(34, min(64, w/4))
	var l layout
	paramsH := 4 + m.St.Pane.GetVerticalFrameSize() + 1
	iw, _ := m.St.Inner(leftW, 0)
	tagsH := 2 + m.tags.ChipLines(iw) + m.St.Pane.GetVerticalFrameSize() + 1
	l.params = rect{0, bodyH - paramsH, leftW, paramsH}
	l.tags = rect{0, bodyH - paramsH - tagsH, leftW, tagsH}
	l.seeds = rect{0, 0, leftW, bodyH - paramsH - tagsH}
	rightW := w - leftW
	if w >= wideWidth {
		l.wide = true
		detailW := max(36, rightW*2/5)
		l.tree = rect{leftW, 0, rightW - detailW, bodyH}
		l.detail = rect{leftW + rightW - detailW, 0, detailW, bodyH}
	} else {
		treeH := bodyH * 3 / 5
		l.tree = rect{leftW, 0, rightW, treeH}
		l.detail = rect{leftW, treeH, rightW, bodyH - treeH}
	}
	m.lay = l
	for _, p := range []struct {
		f focus
		r rect
	}{{focusSeeds, l.seeds}, {focusTags, l.tags}, {focusParams, l.params}, {focusTree, l.tree}, {focusDetail, l.detail}} {
		iw, ih := m.St.Inner(p.r.w, p.r.h)
		m.pane(p.f).SetSize(max(0, iw), max(0, ih))
	}
	// The other retriever's panes take the same places: sized now, they
	// are ready when it is chosen.
	iw, ih := m.St.Inner(l.params.w, l.params.h)
	m.params.SetSize(max(0, iw), max(0, ih))
	for _, p := range m.ranked.Panels() {
		p.SetSize(max(0, iw), max(0, ih))
	}
	iw, ih = m.St.Inner(l.tree.w, l.tree.h)
	m.tree.SetSize(max(0, iw), max(0, ih))
	m.ranked.SetSize(max(0, iw), max(0, ih))
	m.cmp.SetSize(max(0, iw), max(0, ih))
	m.status.SetSize(w, statusH) // and the help line's width
	iw, ih = m.St.Inner(l.full())
	for _, o := range m.overlays {
		o.SetSize(iw, ih) // a closed one is sized when it opens (push)
	}
}

// View lays out the panes, the status bar and the help line. It does no I/O
// and renders only the visible rows of the tree (cached).
func (m *Model) View() string {
	if m.tooSmall() {
		return tooSmallView(m.St, m.W, m.H)
	}
	l := m.lay
	var body string
	if o := m.top(); o != nil {
		fullW, fullH := l.full()
		body = m.St.Box(o.Title(), o.View(), fullW, fullH, true) // only the top one shows
	} else {
		left := lipgloss.JoinVertical(lipgloss.Left,
			m.box(focusSeeds, m.seeds.Title(), l.seeds),
			m.box(focusTags, m.tags.Title(), l.tags),
			m.box(focusParams, m.paramsTitle(), l.params),
		)
		treeBox := m.box(focusTree, m.treeTitle(), l.tree)
		detailBox := m.box(focusDetail, "Detail", l.detail)
		var right string
		if l.wide {
			right = lipgloss.JoinHorizontal(lipgloss.Top, treeBox, detailBox)
		} else {
			right = lipgloss.JoinVertical(lipgloss.Left, treeBox, detailBox)
		}
		body = lipgloss.JoinHorizontal(lipgloss.Top, left, right)
	}
	helpLine := ansi.Truncate(m.status.HelpView(m.shortHelp()), max(m.W, minWidth), "…")
	return lipgloss.JoinVertical(lipgloss.Left, body, m.statusView(), helpLine)
}

// statusView renders the status bar from the state the root and the tree
// pane own; for the expansion, its run's state and statistics.
func (m *Model) statusView() string { return m.view.status() }

// paramsTitle names the parameters pane after the chosen retriever.
func (m *Model) paramsTitle() string { return m.view.paramsTitle() }

// shortHelp is the help line's keys: the top overlay's, else the focused
// pane's and the global ones that work there.
func (m *Model) shortHelp() []key.Binding {
	if o := m.top(); o != nil {
		return m.overlayHelp(o)
	}
	return status.HelpKeys(m.KM, m.focused().ShortHelp(), m.typing())
}

func (m *Model) box(f focus, title string, r rect) string {
	return m.St.Box(title, m.pane(f).View(), r.w, r.h, m.focus == f)
}

func (m *Model) treeTitle() string { return m.view.title() }

// tooSmall reports whether the window is below the smallest size that works
// (a size of 0×0 means none was reported yet: the layout's own 80×24).
func (m *Model) tooSmall() bool {
	return (m.W > 0 || m.H > 0) && (m.W < minWidth || m.H < minHeight)
}

// tooSmallView is the one screen shown in a window below minWidth ×
// minHeight: the size needed, the size there is, and how to leave. It fills
// the w×h window exactly, each line cut to w cells.
func tooSmallView(st *Styles, w, h int) string {
	msg := []string{
		st.Error.Render("Window too small"),
		fmt.Sprintf("memoria needs %d×%d;", minWidth, minHeight),
		fmt.Sprintf("this one is %d×%d.", w, h),
		"Enlarge it, or press q to quit.",
	}
	lines := make([]string, max(h, 1))
	for i := range lines {
		if i < len(msg) {
			lines[i] = fit(msg[i], w)
		} else {
			lines[i] = fit("", w)
		}
	}
	return strings.Join(lines, "\n")
}
