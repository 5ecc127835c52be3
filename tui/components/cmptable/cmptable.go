// Package cmptable is the compare view's results pane (docs/EXPLORER.md,
// "Compare view"): the union of the compared retrievers' top K, one row per
// node with its rank under each column, sortable. The root hands it the
// columns and rows (Set; Rows builds them from retriever/overlap's union)
// and reads the selection and the table through its methods.
package cmptable

import (
	"fmt"
	"slices"
	"strings"

	"github.com/charmbracelet/bubbles/key"
	tea "github.com/charmbracelet/bubbletea"
	"github.com/memoria-graph/memoria/graph"
	"github.com/memoria-graph/memoria/internal/textsafe"
	"github.com/memoria-graph/memoria/render"
	"github.com/memoria-graph/memoria/retriever"
	"github.com/memoria-graph/memoria/retriever/overlap"
	"github.com/memoria-graph/memoria/tui/common"
	"github.com/memoria-graph/memoria/tui/theme"
)

// Column states of the compare table.
const (
	ColNone    = iota // no seeds: nothing to rank
	ColRunning        // its run is in flight
	ColFailed         // its run failed
	ColIn             // its ranking is in
)

// Column is one retriever's column: its name and its run's state.
type Column struct {
	Name  string
	State int
}

// Row is one node of the union: its rank and hit under each column
// (0 and nil where the column's top K does not hold it, or its ranking is
// not in yet), and its place in the union order.
type Row struct {
	ID    string
	Node  graph.Node
	Ranks []int
	Hits  []*retriever.Hit
	// Only: exactly one column holds it, and every column's ranking is
	// in (while one runs, "only" would be a guess).
	Only  bool
	Order int
}

// Rows turns overlap's union into the table's rows: each node's
// rank and hit under every column (the columns not in have none).
func Rows(cols []Column, res overlap.Result, rankings []retriever.Ranking, k int) []Row {
	colOf := make(map[string]int, len(cols))
	all := true
	for i, c := range cols {
		colOf[c.Name] = i
		all = all && c.State != ColRunning && c.State != ColFailed
	}
	// Each ranking's hits by id, within its top k.
	byID := make([]map[string]*retriever.Hit, len(rankings))
	for j, r := range rankings {
		hits := r.Hits
		if k > 0 && len(hits) > k {
			hits = hits[:k]
		}
		byID[j] = make(map[string]*retriever.Hit, len(hits))
		for i := range hits {
			byID[j][hits[i].NodeID] = &hits[i]
		}
	}
	rows := make([]Row, len(res.Nodes))
	for i, n := range res.Nodes {
		row := Row{ID: n.NodeID, Ranks: make([]int, len(cols)), Hits: make([]*retriever.Hit, len(cols)), Order: i}
		for j, lr := range n.Ranks {
			c := colOf[lr.List]
			row.Ranks[c] = lr.Rank
			if h := byID[j][n.NodeID]; h != nil {
				row.Hits[c] = h
				if row.Node.ID == "" {
					row.Node = h.Node
				}
			}
		}
		_, one := n.OnlyIn()
		row.Only = one && all && len(cols) > 1
		rows[i] = row
	}
	return rows
}

// Table is the compare view's results pane: the table.
type Table struct {
	*common.Common
	cols []Column
	k    int
	rows []Row // in the order shown
	err  string
	// sortBy is the column the rows are sorted by: 0 the union order, 1
	// the node id, 2+i retriever column i's rank (nodes it lacks last,
	// then the union order).
	sortBy      int
	cursor, off int
	w, h        int
	focused     bool
}

// New is the table, empty.
func New(c *common.Common) *Table {
	return &Table{Common: c}
}

// Set shows new rows, sorted as chosen, the cursor kept on the same node
// when it is still there.
func (p *Table) Set(cols []Column, k int, rows []Row, err string) {
	was, _ := p.Selected()
	p.cols, p.k, p.rows, p.err = cols, k, rows, err
	p.sortBy = min(p.sortBy, len(cols)+1)
	p.sort()
	p.cursor = 0
	for i := range p.rows {
		if p.rows[i].ID == was.ID {
			p.cursor = i
			break
		}
	}
}

// sort orders the rows by the chosen column, ties by the union order.
func (p *Table) sort() {
	by := p.sortBy
	slices.SortFunc(p.rows, func(a, b Row) int {
		switch {
		case by == 1 && a.ID != b.ID:
			return strings.Compare(a.ID, b.ID)
		case by >= 2:
			ra, rb := a.Ranks[by-2], b.Ranks[by-2]
			if ra == 0 {
				ra = int(^uint(0) >> 1)
			}
			if rb == 0 {
				rb = int(^uint(0) >> 1)
			}
			if ra != rb {
				return ra - rb
			}
		}
		return a.Order - b.Order
	})
}

// SortName is the column the table is sorted by, as the title says it.
func (p *Table) SortName() string {
	switch {
	case p.sortBy == 0:
		return "union order"
	case p.sortBy == 1:
		return "node id"
	}
	return textsafe.Escape(p.cols[p.sortBy-2].Name)
}

// Selected is the row under the cursor.
func (p *Table) Selected() (Row, bool) {
	if len(p.rows) == 0 {
		return Row{}, false
	}
	return p.rows[min(p.cursor, len(p.rows)-1)], true
}

// Position is "3/12": the selected row of how many.
func (p *Table) Position() string {
	if len(p.rows) == 0 {
		return ""
	}
	return fmt.Sprintf("%d/%d", p.cursor+1, len(p.rows))
}

func (p *Table) SetSize(w, h int) { p.w, p.h = w, h }

// Update moves the cursor and sorts (o) when focused; the wheel anywhere.
func (p *Table) Update(msg tea.Msg) tea.Cmd {
	if k, ok := msg.(tea.KeyMsg); ok && p.focused && key.Matches(k, p.KM.SortColumn) {
		sel, _ := p.Selected()
		p.sortBy = (p.sortBy + 1) % (len(p.cols) + 2)
		p.sort()
		for i := range p.rows {
			if p.rows[i].ID == sel.ID {
				p.cursor = i
			}
		}
		return common.Notify("compare table sorted by " + p.SortName())
	}
	if len(p.rows) > 0 {
		common.MoveCursor(p.KM, msg, p.focused, &p.cursor, len(p.rows), max(1, p.h-2))
	}
	return nil
}

// Glyphs of the compare table.
const (
	GlyphOnly   = "◇" // a node only one retriever found
	GlyphAbsent = "·" // not in this retriever's top K
	glyphSorted = "▼" // the column the rows are sorted by
)

// cellW is the width of each retriever's column: room for "#10 0.1234"
// when the pane allows, never under 6 cells.
func (p *Table) cellW() int {
	if len(p.cols) == 0 {
		return 0
	}
	return max(6, min(11, (p.w-16)/len(p.cols)))
}

// header is the table's first line: the node column and each retriever's
// name, the sorted one marked.
func (p *Table) header() string {
	cw := p.cellW()
	node := "node"
	if p.sortBy == 1 {
		node += glyphSorted
	}
	var b strings.Builder
	for i, c := range p.cols {
		name := textsafe.Escape(c.Name)
		if p.sortBy == i+2 {
			name = ansiFit(name, cw-2) + glyphSorted
		}
		b.WriteString(" " + theme.Fit(name, cw-1))
	}
	nameW := max(4, p.w-2-len(p.cols)*cw)
	return p.St.Title.Render(theme.Fit("  "+theme.Fit(node, nameW)+b.String(), p.w))
}

// ansiFit cuts s to w cells (with …) without padding it.
func ansiFit(s string, w int) string { return strings.TrimRight(theme.Fit(s, w), " ") }

// Cell is row r's cell under column c: its rank (with its score on the
// selected row), · when the column's top K lacks it, ⟳ while the column
// runs, ✗ when it failed.
func (p *Table) Cell(r Row, c int, selected bool) string {
	switch p.cols[c].State {
	case ColRunning:
		return "⟳"
	case ColFailed:
		return "✗"
	}
	if r.Ranks[c] == 0 {
		return GlyphAbsent
	}
	s := fmt.Sprintf("#%d", r.Ranks[c])
	if selected && r.Hits[c] != nil {
		s += " " + render.Num(r.Hits[c].Score)
	}
	return s
}

// RowText renders row r: the only-one mark, the node (named as P says,
// escaped, hubs marked), then a cell per retriever.
func (p *Table) RowText(r Row, selected bool) string {
	cw := p.cellW()
	nameW := max(4, p.w-2-len(p.cols)*cw)
	mark := " "
	if r.Only {
		mark = GlyphOnly
	}
	name := textsafe.Escape(p.Names.NodeLead(r.Node))
	if r.Node.ID == "" {
		name = render.DisplayID(r.ID)
	}
	if p.Stats != nil && p.Stats.IsHub(r.ID) {
		name += " " + p.St.HubMark
	}
	if g := p.Marks.Grade(r.ID); g > 0 {
		name = common.MarkGlyph(g) + " " + name
	}
	if l := r.Node.Label(); l != "" {
		name += " " + textsafe.Escape(l)
	}
	var b strings.Builder
	b.WriteString(mark + " " + theme.Fit(name, nameW-2))
	for c := range p.cols {
		b.WriteString(" " + theme.Fit(p.Cell(r, c, selected), cw-1))
	}
	return b.String()
}

// View renders the header and the rows that fit, the selected one kept on
// screen. Only the visible rows are rendered, whatever the union's size.
func (p *Table) View() string {
	switch {
	case p.err != "":
		return p.St.Error.Render(theme.Fit(textsafe.Escape(common.FirstLines(p.err, 1)), p.w))
	case len(p.rows) == 0:
		for _, c := range p.cols {
			if c.State == ColRunning {
				return p.header() + "\n" + p.St.Running.Render("⟳ ranking…")
			}
		}
		return p.header() + "\n" + p.St.Dim.Render("pick a seed to compare the retrievers")
	}
	h := max(1, p.h-1)
	if p.cursor < p.off {
		p.off = p.cursor
	} else if p.cursor >= p.off+h {
		p.off = p.cursor - h + 1
	}
	p.off = max(0, min(p.off, len(p.rows)-h))
	lines := make([]string, 0, h+1)
	lines = append(lines, p.header())
	for i := p.off; i < min(len(p.rows), p.off+h); i++ {
		if i == p.cursor {
			lines = append(lines, p.St.Selected.Render(theme.Fit(theme.GlyphSelected+p.RowText(p.rows[i], true), p.w)))
			continue
		}
		lines = append(lines, theme.Fit(" "+p.RowText(p.rows[i], false), p.w))
	}
	return strings.Join(lines, "\n")
}

// ShortHelp lists the table's keys.
func (p *Table) ShortHelp() []key.Binding {
	return []key.Binding{p.KM.Up, p.KM.Down, p.KM.SortColumn, p.KM.WhyNot, p.KM.Mark, p.KM.PickRetrievers}
}

// Focus gives the table the keyboard; Blur takes it away.
func (p *Table) Focus() tea.Cmd {
	p.focused = true
	return nil
}

func (p *Table) Blur() tea.Cmd {
	p.focused = false
	return nil
}

// Focused reports whether the table has the keyboard.
func (p *Table) Focused() bool { return p.focused }

// Cols are the columns, K the table's cut, TableRows the rows in the
// order shown.
func (p *Table) Cols() []Column   { return p.cols }
func (p *Table) K() int           { return p.k }
func (p *Table) TableRows() []Row { return p.rows }
