package tui

import (
	"context"
	"fmt"
	"slices"
	"strings"

	"github.com/charmbracelet/bubbles/key"
	tea "github.com/charmbracelet/bubbletea"
	"github.com/charmbracelet/lipgloss"
	"github.com/memoria-graph/memoria/graph"
	"github.com/memoria-graph/memoria/internal/textsafe"
	"github.com/memoria-graph/memoria/render"
	"github.com/memoria-graph/memoria/retriever"
	"github.com/memoria-graph/memoria/retriever/activation"
	"github.com/memoria-graph/memoria/retriever/overlap"
	"github.com/memoria-graph/memoria/tui/common"
)

// The compare view (docs/EXPLORER.md, "Compare view"): with two or more
// retrievers picked (X, or `memoria --retrievers A,B`), the results pane is
// a table of the union of their top K (retriever/overlap: rows in its union
// order, a column per retriever with the node's rank there), and the
// detail pane shows the selected node's provenance under each retriever
// side by side. Each retriever keeps its own run slot: a parameter change
// re-runs only its own (its column shows ⟳ until the answer is in), and the
// table is rebuilt from the slots whenever an answer arrives.

// comparing reports whether the compare view is open.
func (m *Model) comparing() bool { return len(m.cmp.shown) >= 2 }

// Column states of the compare table.
const (
	colNone    = iota // no seeds: nothing to rank
	colRunning        // its run is in flight
	colFailed         // its run failed
	colIn             // its ranking is in
)

// cmpColumn is one retriever's column: its name and its run's state.
type cmpColumn struct {
	name  string
	state int
}

// cmpRow is one node of the union: its rank and hit under each column
// (0 and nil where the column's top K does not hold it, or its ranking is
// not in yet), and its place in the union order.
type cmpRow struct {
	id    string
	node  graph.Node
	ranks []int
	hits  []*retriever.Hit
	// only: exactly one column holds it, and every column's ranking is
	// in (while one runs, "only" would be a guess).
	only  bool
	order int
}

// columnRanking is retriever name's ranking for the table and its state.
// Activation Energy's is its finished run projected as a ranking
// (activation.Ranking), computed once per run.
func (m *Model) columnRanking(name string) (*retriever.Ranking, int) {
	s := m.runs.slots[name]
	if name == activation.Name {
		switch {
		case s.err != nil:
			return nil, colFailed
		case s.cancel != nil:
			return nil, colRunning
		case !s.started || s.trees == nil:
			return nil, colNone
		}
		if s.ranking == nil {
			r := activation.Ranking(s.trees.results(), s.cfg, s.tags)
			s.ranking = &r
		}
		return s.ranking, colIn
	}
	switch {
	case s.loading:
		return nil, colRunning
	case s.err != nil:
		return nil, colFailed
	case s.ranking == nil:
		return nil, colNone
	}
	return s.ranking, colIn
}

// tableK is the compare table's K: the largest top_k of the rankings in
// (each ranking retriever's ranking is already cut to its own K; Activation
// Energy's, which has none, is cut to this one); 0 (every hit) when none
// has a K.
func tableK(rs []retriever.Ranking) int {
	k := 0
	for _, r := range rs {
		for _, p := range r.Params {
			if n, ok := p.Value.(int); ok && p.Name == "top_k" {
				k = max(k, n)
			}
		}
	}
	return k
}

// cmpRefresh rebuilds the table from the compared retrievers' slots and
// shows the selected row in the detail pane. The union and the ranks come
// from retriever/overlap over the rankings that are in.
func (m *Model) cmpRefresh() {
	cols := make([]cmpColumn, len(m.cmp.shown))
	var names []string
	var rankings []retriever.Ranking
	for i, name := range m.cmp.shown {
		r, state := m.columnRanking(name)
		cols[i] = cmpColumn{name: name, state: state}
		if state == colIn {
			names, rankings = append(names, name), append(rankings, *r)
		}
	}
	k := tableK(rankings)
	res, err := overlap.Compare(names, rankings, k)
	if err != nil {
		m.cmp.set(cols, k, nil, err.Error())
		m.syncCompareDetail()
		return
	}
	m.cmp.set(cols, k, compareRows(cols, res, rankings, k), "")
	m.syncCompareDetail()
}

// compareRows turns overlap's union into the table's rows: each node's
// rank and hit under every column (the columns not in have none).
func compareRows(cols []cmpColumn, res overlap.Result, rankings []retriever.Ranking, k int) []cmpRow {
	colOf := make(map[string]int, len(cols))
	all := true
	for i, c := range cols {
		colOf[c.name] = i
		all = all && c.state != colRunning && c.state != colFailed
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
	rows := make([]cmpRow, len(res.Nodes))
	for i, n := range res.Nodes {
		row := cmpRow{id: n.NodeID, ranks: make([]int, len(cols)), hits: make([]*retriever.Hit, len(cols)), order: i}
		for j, lr := range n.Ranks {
			c := colOf[lr.List]
			row.ranks[c] = lr.Rank
			if h := byID[j][n.NodeID]; h != nil {
				row.hits[c] = h
				if row.node.ID == "" {
					row.node = h.Node
				}
			}
		}
		_, one := n.OnlyIn()
		row.only = one && all && len(cols) > 1
		rows[i] = row
	}
	return rows
}

// cmpPane is the compare view's results pane: the table.
type cmpPane struct {
	*Common
	// shown holds the retrievers compared, in column order (two or
	// more; nil: the view is closed).
	shown []string
	// combiners are the parameters of the retrievers that combine the
	// others compared (fusion), by name; what each combines is set to the
	// other compared retrievers when it runs (combinerParams).
	combiners map[string]retriever.Settings
	cols      []cmpColumn
	k         int
	rows      []cmpRow // in the order shown
	err       string
	// sortBy is the column the rows are sorted by: 0 the union order, 1
	// the node id, 2+i retriever column i's rank (nodes it lacks last,
	// then the union order).
	sortBy      int
	cursor, off int
	w, h        int
	focusFlag
}

func newCmpPane(c *Common, shown []string) *cmpPane {
	return &cmpPane{Common: c, shown: slices.Clone(shown), combiners: map[string]retriever.Settings{}}
}

// set shows new rows, sorted as chosen, the cursor kept on the same node
// when it is still there.
func (p *cmpPane) set(cols []cmpColumn, k int, rows []cmpRow, err string) {
	was, _ := p.Selected()
	p.cols, p.k, p.rows, p.err = cols, k, rows, err
	p.sortBy = min(p.sortBy, len(cols)+1)
	p.sort()
	p.cursor = 0
	for i := range p.rows {
		if p.rows[i].id == was.id {
			p.cursor = i
			break
		}
	}
}

// sort orders the rows by the chosen column, ties by the union order.
func (p *cmpPane) sort() {
	by := p.sortBy
	slices.SortFunc(p.rows, func(a, b cmpRow) int {
		switch {
		case by == 1 && a.id != b.id:
			return strings.Compare(a.id, b.id)
		case by >= 2:
			ra, rb := a.ranks[by-2], b.ranks[by-2]
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
		return a.order - b.order
	})
}

// sortName is the column the table is sorted by, as the title says it.
func (p *cmpPane) sortName() string {
	switch {
	case p.sortBy == 0:
		return "union order"
	case p.sortBy == 1:
		return "node id"
	}
	return textsafe.Escape(p.cols[p.sortBy-2].name)
}

// Selected is the row under the cursor.
func (p *cmpPane) Selected() (cmpRow, bool) {
	if len(p.rows) == 0 {
		return cmpRow{}, false
	}
	return p.rows[min(p.cursor, len(p.rows)-1)], true
}

// Position is "3/12": the selected row of how many.
func (p *cmpPane) Position() string {
	if len(p.rows) == 0 {
		return ""
	}
	return fmt.Sprintf("%d/%d", p.cursor+1, len(p.rows))
}

func (p *cmpPane) SetSize(w, h int) { p.w, p.h = w, h }

// Update moves the cursor and sorts (o) when focused; the wheel anywhere.
func (p *cmpPane) Update(msg tea.Msg) tea.Cmd {
	if k, ok := msg.(tea.KeyMsg); ok && p.focused && key.Matches(k, p.KM.SortColumn) {
		sel, _ := p.Selected()
		p.sortBy = (p.sortBy + 1) % (len(p.cols) + 2)
		p.sort()
		for i := range p.rows {
			if p.rows[i].id == sel.id {
				p.cursor = i
			}
		}
		return common.Notify("compare table sorted by " + p.sortName())
	}
	if len(p.rows) > 0 {
		common.MoveCursor(p.KM, msg, p.focused, &p.cursor, len(p.rows), max(1, p.h-2))
	}
	return nil
}

// Glyphs of the compare table.
const (
	glyphOnly   = "◇" // a node only one retriever found
	glyphAbsent = "·" // not in this retriever's top K
	glyphSorted = "▼" // the column the rows are sorted by
)

// cellW is the width of each retriever's column: room for "#10 0.1234"
// when the pane allows, never under 6 cells.
func (p *cmpPane) cellW() int {
	if len(p.cols) == 0 {
		return 0
	}
	return max(6, min(11, (p.w-16)/len(p.cols)))
}

// header is the table's first line: the node column and each retriever's
// name, the sorted one marked.
func (p *cmpPane) header() string {
	cw := p.cellW()
	node := "node"
	if p.sortBy == 1 {
		node += glyphSorted
	}
	var b strings.Builder
	for i, c := range p.cols {
		name := textsafe.Escape(c.name)
		if p.sortBy == i+2 {
			name = ansiFit(name, cw-2) + glyphSorted
		}
		b.WriteString(" " + fit(name, cw-1))
	}
	nameW := max(4, p.w-2-len(p.cols)*cw)
	return p.St.Title.Render(fit("  "+fit(node, nameW)+b.String(), p.w))
}

// ansiFit cuts s to w cells (with …) without padding it.
func ansiFit(s string, w int) string { return strings.TrimRight(fit(s, w), " ") }

// cell is row r's cell under column c: its rank (with its score on the
// selected row), · when the column's top K lacks it, ⟳ while the column
// runs, ✗ when it failed.
func (p *cmpPane) cell(r cmpRow, c int, selected bool) string {
	switch p.cols[c].state {
	case colRunning:
		return "⟳"
	case colFailed:
		return "✗"
	}
	if r.ranks[c] == 0 {
		return glyphAbsent
	}
	s := fmt.Sprintf("#%d", r.ranks[c])
	if selected && r.hits[c] != nil {
		s += " " + render.Num(r.hits[c].Score)
	}
	return s
}

// row renders row r: the only-one mark, the node (named as P says,
// escaped, hubs marked), then a cell per retriever.
func (p *cmpPane) row(r cmpRow, selected bool) string {
	cw := p.cellW()
	nameW := max(4, p.w-2-len(p.cols)*cw)
	mark := " "
	if r.only {
		mark = glyphOnly
	}
	name := textsafe.Escape(p.Names.NodeLead(r.node))
	if r.node.ID == "" {
		name = render.DisplayID(r.id)
	}
	if p.Stats != nil && p.Stats.IsHub(r.id) {
		name += " " + p.St.HubMark
	}
	if g := p.Marks.Grade(r.id); g > 0 {
		name = common.MarkGlyph(g) + " " + name
	}
	if l := r.node.Label(); l != "" {
		name += " " + textsafe.Escape(l)
	}
	var b strings.Builder
	b.WriteString(mark + " " + fit(name, nameW-2))
	for c := range p.cols {
		b.WriteString(" " + fit(p.cell(r, c, selected), cw-1))
	}
	return b.String()
}

// View renders the header and the rows that fit, the selected one kept on
// screen. Only the visible rows are rendered, whatever the union's size.
func (p *cmpPane) View() string {
	switch {
	case p.err != "":
		return p.St.Error.Render(fit(textsafe.Escape(oneLine(p.err)), p.w))
	case len(p.rows) == 0:
		for _, c := range p.cols {
			if c.state == colRunning {
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
			lines = append(lines, p.St.Selected.Render(fit(glyphSelected+p.row(p.rows[i], true), p.w)))
			continue
		}
		lines = append(lines, fit(" "+p.row(p.rows[i], false), p.w))
	}
	return strings.Join(lines, "\n")
}

// ShortHelp lists the table's keys.
func (p *cmpPane) ShortHelp() []key.Binding {
	return []key.Binding{p.KM.Up, p.KM.Down, p.KM.SortColumn, p.KM.WhyNot, p.KM.Mark, p.KM.PickRetrievers}
}

// cmpSubject is what the detail pane shows in the compare view: the
// selected row under each column.
type cmpSubject struct {
	row  cmpRow
	cols []cmpColumn
	k    int
}

// syncCompareDetail shows the selected row in the detail pane (from the
// top for a new node, keeping the scroll for the same one).
func (m *Model) syncCompareDetail() {
	r, ok := m.cmp.Selected()
	if !ok {
		m.detail.Show(nil)
		return
	}
	s := &cmpSubject{row: r, cols: m.cmp.cols, k: m.cmp.k}
	if m.detailCmp() != nil && m.detailCmp().row.id == r.id {
		m.detail.Set(s)
		return
	}
	m.detail.Show(s)
}

// minSideW is the narrowest column the detail pane puts side by side;
// narrower, the retrievers' provenance is stacked.
const minSideW = 24

// compareLines is the selected node's provenance under each retriever, in
// columns side by side when each gets minSideW cells, else one after
// another: its rank and score, how it was reached, its score multiplied
// out and the retriever's own detail, or why the column lacks it. Graph
// text is escaped (textsafe, DisplayID inside render's texts).
func compareLines(st *Styles, names *naming, s cmpSubject, w int) []string {
	head := []string{nodeHead(st, names, s.row.node), st.Dim.Render(fmt.Sprintf("under each retriever (top %d; w: why a retriever lacks it)", s.k))}
	if s.row.node.ID == "" {
		head[0] = render.DisplayID(s.row.id)
	}
	n := len(s.cols)
	if n == 0 {
		return head
	}
	side := (w-(n-1))/n >= minSideW
	colW := w
	if side {
		colW = (w - (n - 1)) / n
	}
	blocks := make([]string, n)
	for c := range s.cols {
		blocks[c] = strings.Join(compareBlock(st, s, c, colW), "\n")
	}
	out := head
	if side {
		parts := make([]string, 0, 2*n-1)
		for c, b := range blocks {
			if c > 0 {
				parts = append(parts, " ")
			}
			parts = append(parts, lipgloss.NewStyle().Width(colW).Render(b))
		}
		out = append(append(out, ""), strings.Split(lipgloss.JoinHorizontal(lipgloss.Top, parts...), "\n")...)
	} else {
		for _, b := range blocks {
			out = append(out, "")
			out = append(out, strings.Split(b, "\n")...)
		}
	}
	return append(out, propertyLines(st, st.R.NewStyle().Width(w).Render, s.row.node)...)
}

// compareBlock is column c's part of the detail, wrapped to w.
func compareBlock(st *Styles, s cmpSubject, c, w int) []string {
	wrap := st.R.NewStyle().Width(w).Render
	col := s.cols[c]
	out := []string{st.Title.Render(fit(textsafe.Escape(col.name), w))}
	switch col.state {
	case colRunning:
		return append(out, st.Running.Render("⟳ running"))
	case colFailed:
		return append(out, st.Error.Render("✗ failed"))
	case colNone:
		return append(out, st.Dim.Render("no seeds"))
	}
	h := s.row.hits[c]
	if h == nil {
		return append(out, wrap(st.Dim.Render(fmt.Sprintf("%s not in its top %d", glyphAbsent, s.k))))
	}
	plain, _ := render.Formula(*h)
	out = append(out,
		st.Metric.Render(fmt.Sprintf("#%d · %s", s.row.ranks[c], render.Num(h.Score))),
		wrap(st.Dim.Render(string(h.Origin))),
	)
	if h.Origin != retriever.OriginInitial {
		out = append(out, wrap(st.Key.Render("reached ")+render.HowReached(*h)))
	}
	out = append(out, wrap("score = "+plain))
	for _, f := range h.Feeders {
		out = append(out, wrap("fed by "+render.FeederText(f)))
	}
	for _, f := range h.Detail {
		out = append(out, wrap(st.Key.Render(textsafe.Escape(f.Name))+" "+render.FieldValue(f.Value)))
	}
	return out
}

// refreshIfComparing rebuilds the table when the compare view is open.
func (m *Model) refreshIfComparing() {
	if m.comparing() {
		m.cmpRefresh()
	}
}

// restartCompared starts the compared retrievers' runs: every one, or
// (staleOnly) those whose last run had other seeds or tags, or that never
// ran while there are seeds. Each is its own slot's run.
func (m *Model) restartCompared(staleOnly bool) tea.Cmd {
	var cmds []tea.Cmd
	seeds := len(m.seeds.Seeds())
	for _, name := range m.cmp.shown {
		s := m.runs.slots[name]
		stale := s.seedsV != m.seeds.Version() || s.tagsV != m.tags.Version() || (!s.started && seeds > 0)
		if staleOnly && !stale {
			continue
		}
		switch {
		case name == activation.Name:
			cmds = append(cmds, m.restartActivation())
		case combining(name):
			cmds = append(cmds, m.startCombiner(name))
		default:
			cmds = append(cmds, m.startRanking(name))
		}
	}
	m.cmpRefresh()
	return tea.Batch(cmds...)
}

// compareStatus is the status line in the compare view: each column's
// state, and how many nodes only one retriever found.
func (m *Model) compareStatus() []string {
	var parts []string
	for _, c := range m.cmp.cols {
		name := textsafe.Escape(c.name)
		switch c.state {
		case colRunning:
			parts = append(parts, m.St.Running.Render("⟳ "+name))
		case colFailed:
			parts = append(parts, m.St.Error.Render("✗ "+name))
		case colIn:
			parts = append(parts, m.St.OK.Render("✓ "+name))
		default:
			parts = append(parts, m.St.Dim.Render(name))
		}
	}
	only := 0
	for _, r := range m.cmp.rows {
		if r.only {
			only++
		}
	}
	return append(parts, m.St.Dim.Render(fmt.Sprintf("%d nodes · %d found by one only (%s)", len(m.cmp.rows), only, glyphOnly)))
}

// combinerParams is the parameters of name, a retriever that combines
// others' rankings, in the compare view: it combines the other retrievers
// compared, in column order.
func (m *Model) combinerParams(name string) retriever.Settings {
	var others []string
	for _, n := range m.cmp.shown {
		if !combining(n) {
			others = append(others, n)
		}
	}
	return m.cmp.combiners[name].WithCombined(others)
}

// recombine re-runs the combining retrievers the compare view has: a
// parameter change of a retriever they combine changes what they combine.
func (m *Model) recombine() tea.Cmd {
	if !m.comparing() {
		return nil
	}
	var cmds []tea.Cmd
	for _, n := range m.cmp.shown {
		if combining(n) {
			cmds = append(cmds, m.startCombiner(n))
		}
	}
	return tea.Batch(cmds...)
}

// startCombiner cancels the run in flight of name, a retriever that
// combines the others compared, and starts one: a command runs each
// retriever it combines (copies of the query and of every retriever's
// parameters, whyJob's runs) and combines their rankings, as `memoria
// explore --retriever fusion` does.
func (m *Model) startCombiner(name string) tea.Cmd {
	s := m.runs.slots[name]
	s.stop()
	s.id++
	s.seedsV, s.tagsV, s.started = m.seeds.Version(), m.tags.Version(), true
	s.ranking, s.err = nil, nil
	seeds := m.seeds.Seeds()
	p := m.combinerParams(name)
	combined, _, _ := p.Spec().Combines(p)
	if len(seeds) == 0 || m.runs.nb == nil || len(combined) == 0 {
		m.cmpRefresh()
		return nil
	}
	ctx, cancel := context.WithCancel(m.Ctx)
	s.cancel, s.loading = cancel, true
	m.cmpRefresh()
	j, ref := m.newWhyJob(seeds, ""), s.ref()
	return common.SafeCmd(func() tea.Msg {
		r, err := j.config().Run(ctx, name, 0)
		return rankingMsg{ref: ref, ranking: r, err: err}
	})
}
