package tui

import (
	"context"
	"fmt"
	"strings"

	tea "github.com/charmbracelet/bubbletea"
	"github.com/charmbracelet/lipgloss"
	"github.com/memoria-graph/memoria/internal/textsafe"
	"github.com/memoria-graph/memoria/render"
	"github.com/memoria-graph/memoria/retriever"
	"github.com/memoria-graph/memoria/retriever/activation"
	"github.com/memoria-graph/memoria/retriever/overlap"
	"github.com/memoria-graph/memoria/tui/common"
	"github.com/memoria-graph/memoria/tui/components/cmptable"
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
func (m *Model) comparing() bool { return len(m.compared) >= 2 }

// columnRanking is retriever name's ranking for the table and its state.
// Activation Energy's is its finished run projected as a ranking
// (activation.Ranking), computed once per run.
func (m *Model) columnRanking(name string) (*retriever.Ranking, int) {
	s := m.runs.slots[name]
	if name == activation.Name {
		switch {
		case s.err != nil:
			return nil, cmptable.ColFailed
		case s.cancel != nil:
			return nil, cmptable.ColRunning
		case !s.started || s.trees == nil:
			return nil, cmptable.ColNone
		}
		if s.ranking == nil {
			r := activation.Ranking(s.trees.Results(), s.cfg, s.tags)
			s.ranking = &r
		}
		return s.ranking, cmptable.ColIn
	}
	switch {
	case s.loading:
		return nil, cmptable.ColRunning
	case s.err != nil:
		return nil, cmptable.ColFailed
	case s.ranking == nil:
		return nil, cmptable.ColNone
	}
	return s.ranking, cmptable.ColIn
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
	cols := make([]cmptable.Column, len(m.compared))
	var names []string
	var rankings []retriever.Ranking
	for i, name := range m.compared {
		r, state := m.columnRanking(name)
		cols[i] = cmptable.Column{Name: name, State: state}
		if state == cmptable.ColIn {
			names, rankings = append(names, name), append(rankings, *r)
		}
	}
	k := tableK(rankings)
	res, err := overlap.Compare(names, rankings, k)
	if err != nil {
		m.cmp.Set(cols, k, nil, err.Error())
		m.syncCompareDetail()
		return
	}
	m.cmp.Set(cols, k, cmptable.Rows(cols, res, rankings, k), "")
	m.syncCompareDetail()
}

// cmpSubject is what the detail pane shows in the compare view: the
// selected row under each column.
type cmpSubject struct {
	row  cmptable.Row
	cols []cmptable.Column
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
	s := &cmpSubject{row: r, cols: m.cmp.Cols(), k: m.cmp.K()}
	if m.detailCmp() != nil && m.detailCmp().row.ID == r.ID {
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
	head := []string{nodeHead(st, names, s.row.Node), st.Dim.Render(fmt.Sprintf("under each retriever (top %d; w: why a retriever lacks it)", s.k))}
	if s.row.Node.ID == "" {
		head[0] = render.DisplayID(s.row.ID)
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
	return append(out, propertyLines(st, st.R.NewStyle().Width(w).Render, s.row.Node)...)
}

// compareBlock is column c's part of the detail, wrapped to w.
func compareBlock(st *Styles, s cmpSubject, c, w int) []string {
	wrap := st.R.NewStyle().Width(w).Render
	col := s.cols[c]
	out := []string{st.Title.Render(fit(textsafe.Escape(col.Name), w))}
	switch col.State {
	case cmptable.ColRunning:
		return append(out, st.Running.Render("⟳ running"))
	case cmptable.ColFailed:
		return append(out, st.Error.Render("✗ failed"))
	case cmptable.ColNone:
		return append(out, st.Dim.Render("no seeds"))
	}
	h := s.row.Hits[c]
	if h == nil {
		return append(out, wrap(st.Dim.Render(fmt.Sprintf("%s not in its top %d", cmptable.GlyphAbsent, s.k))))
	}
	plain, _ := render.Formula(*h)
	out = append(out,
		st.Metric.Render(fmt.Sprintf("#%d · %s", s.row.Ranks[c], render.Num(h.Score))),
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
	for _, name := range m.compared {
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
	for _, c := range m.cmp.Cols() {
		name := textsafe.Escape(c.Name)
		switch c.State {
		case cmptable.ColRunning:
			parts = append(parts, m.St.Running.Render("⟳ "+name))
		case cmptable.ColFailed:
			parts = append(parts, m.St.Error.Render("✗ "+name))
		case cmptable.ColIn:
			parts = append(parts, m.St.OK.Render("✓ "+name))
		default:
			parts = append(parts, m.St.Dim.Render(name))
		}
	}
	only := 0
	for _, r := range m.cmp.TableRows() {
		if r.Only {
			only++
		}
	}
	return append(parts, m.St.Dim.Render(fmt.Sprintf("%d nodes · %d found by one only (%s)", len(m.cmp.TableRows()), only, cmptable.GlyphOnly)))
}

// combinerParams is the parameters of name, a retriever that combines
// others' rankings, in the compare view: it combines the other retrievers
// compared, in column order.
func (m *Model) combinerParams(name string) retriever.Settings {
	var others []string
	for _, n := range m.compared {
		if !combining(n) {
			others = append(others, n)
		}
	}
	return m.combiners[name].WithCombined(others)
}

// recombine re-runs the combining retrievers the compare view has: a
// parameter change of a retriever they combine changes what they combine.
func (m *Model) recombine() tea.Cmd {
	if !m.comparing() {
		return nil
	}
	var cmds []tea.Cmd
	for _, n := range m.compared {
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
