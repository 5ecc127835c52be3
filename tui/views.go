package tui

import (
	"errors"
	"fmt"
	"strings"

	"github.com/memoria-graph/memoria/internal/textsafe"
	"github.com/memoria-graph/memoria/tui/common"
	"github.com/memoria-graph/memoria/tui/components/cmptable"
	"github.com/memoria-graph/memoria/tui/components/tree"

	tea "github.com/charmbracelet/bubbletea"
	"github.com/memoria-graph/memoria/render/subgraph"
	"github.com/memoria-graph/memoria/retriever"
	"github.com/memoria-graph/memoria/retriever/activation"
	"github.com/memoria-graph/memoria/retriever/overlap"
)

// resultView is one of the three ways the results are shown: Activation
// Energy's tree (treeView), the chosen ranking retriever's list
// (rankingView), the compare table (compareView). The root keeps the one
// shown (Model.view, set by show) and asks it, rather than asking which
// one it is.
type resultView interface {
	// results is its results pane, params the parameters panel beside
	// it (the chosen retriever's).
	results() component
	params() paramsPane
	// restart runs again what it shows; restartIfInputsChanged only
	// when the seeds or tags changed since its last run.
	restart() tea.Cmd
	restartIfInputsChanged(cmd tea.Cmd) tea.Cmd
	// follow shows the selection of its results pane in the detail pane
	// (after a key or the wheel moved it).
	follow() tea.Cmd
	// typing reports whether its results pane takes text (the tree's
	// search).
	typing() bool
	// title, paramsTitle and status are the results pane's title, the
	// parameters pane's and the status line.
	title() string
	paramsTitle() string
	status() string
	// markTarget is the node the mark key is about on its results pane
	// (the selected row's).
	markTarget() (string, bool)
	// page is what the HTML page of the view draws (made from copies
	// taken now, built in a command) and how the status line names it.
	page() (build func() (subgraph.Graph, error), what string, err error)
}

// paramsPane is a parameters panel: the thresholds, or a ranking
// retriever's table.
type paramsPane interface {
	component
	Typing() bool
}

// show makes retriever the chosen one and compared the retrievers of the
// compare view (fewer than two: none), and keeps the view that shows them.
func (m *Model) show(retriever string, compared []string) {
	m.retriever, m.compared = retriever, compared
	switch {
	case m.comparing():
		m.view = compareView{m}
	case m.ranks():
		m.view = rankingView{m}
	default:
		m.view = treeView{m}
	}
}

// showsTree reports whether Activation Energy's tree is the view shown.
func (m *Model) showsTree() bool {
	_, ok := m.view.(treeView)
	return ok
}

// chosenParams is the chosen retriever's parameters panel.
func (m *Model) chosenParams() paramsPane {
	if m.ranks() {
		return m.rankPanel()
	}
	return m.params
}

// treeView shows Activation Energy's run as a tree of paths.
type treeView struct{ m *Model }

func (v treeView) results() component  { return v.m.tree }
func (v treeView) params() paramsPane  { return v.m.params }
func (v treeView) restart() tea.Cmd    { return v.m.restartActivation() }
func (v treeView) typing() bool        { return v.m.tree.Typing() }
func (v treeView) paramsTitle() string { return "Thresholds" }
func (v treeView) restartIfInputsChanged(cmd tea.Cmd) tea.Cmd {
	return v.m.restartSlotIfChanged(cmd)
}

func (v treeView) follow() tea.Cmd {
	v.m.syncDetail()
	return nil
}

func (v treeView) status() string {
	return v.m.status.Line(tree.Status(v.m.St, v.m.actRun().trees, v.m.tree.Explain()))
}

func (v treeView) title() string {
	m := v.m
	parts := []string{"Results"}
	if m.actRun().trees != nil {
		parts = append(parts, fmt.Sprintf("run %d", m.actRun().id))
		if p := m.tree.Position(); p != "" {
			parts = append(parts, p)
		}
		if len(m.actRun().tags) > 0 {
			parts = append(parts, "tags "+textsafe.Escape(strings.Join(m.actRun().tags, ",")))
		}
	}
	if m.tree.Explain() {
		parts = append(parts, "explain")
	}
	return strings.Join(parts, " · ")
}

func (v treeView) markTarget() (string, bool) { return v.m.whyTarget() }

func (v treeView) page() (func() (subgraph.Graph, error), string, error) {
	m := v.m
	run := m.actRun()
	res := run.trees.Results()
	if len(res) == 0 {
		return nil, "", errors.New("no results to draw yet: pick a seed")
	}
	cfg, tags, filter, losers := run.cfg, run.tags, m.runs.filter, run.trees.Losers()
	what := common.Plural(len(res), "seed") + " of " + activation.Name
	return func() (subgraph.Graph, error) {
		return subgraph.FromActivation(subgraph.ActivationRun{Results: res, Levels: losers, Params: cfg, Tags: tags, Filter: filter}), nil
	}, what, nil
}

// rankingView shows the chosen ranking retriever's hits.
type rankingView struct{ m *Model }

func (v rankingView) results() component  { return v.m.ranked }
func (v rankingView) params() paramsPane  { return v.m.rankPanel() }
func (v rankingView) restart() tea.Cmd    { return v.m.restartRanking() }
func (v rankingView) follow() tea.Cmd     { return v.m.syncHit() }
func (v rankingView) typing() bool        { return false }
func (v rankingView) paramsTitle() string { return "Parameters · " + v.m.retriever }
func (v rankingView) restartIfInputsChanged(cmd tea.Cmd) tea.Cmd {
	return v.m.restartSlotIfChanged(cmd)
}

func (v rankingView) status() string { return v.m.status.Line(rankingStatus(v.m.St, v.m.slot())) }

func (v rankingView) title() string {
	m := v.m
	parts := []string{"Results", m.retriever}
	if s := m.slot(); s.started {
		parts = append(parts, fmt.Sprintf("run %d", s.id))
	}
	if p := m.ranked.Position(); p != "" {
		parts = append(parts, p)
	}
	return strings.Join(parts, " · ")
}

func (v rankingView) markTarget() (string, bool) {
	if h, ok := v.m.ranked.Selected(); ok {
		return h.NodeID, true
	}
	return "", false
}

func (v rankingView) page() (func() (subgraph.Graph, error), string, error) {
	m := v.m
	s := m.slot()
	if s.ranking == nil {
		return nil, "", fmt.Errorf("no %s ranking yet: pick a seed", m.retriever)
	}
	r := *s.ranking
	what := m.retriever + "'s " + common.Plural(len(r.Hits), "hit")
	return func() (subgraph.Graph, error) { return subgraph.FromRanking(r, 0), nil }, what, nil
}

// compareView shows the compared retrievers' rankings side by side, and
// the parameters of the chosen one of them.
type compareView struct{ m *Model }

func (v compareView) results() component { return v.m.cmp }
func (v compareView) params() paramsPane { return v.m.chosenParams() }
func (v compareView) restart() tea.Cmd   { return v.m.restartCompared(false) }
func (v compareView) typing() bool       { return false }
func (v compareView) restartIfInputsChanged(cmd tea.Cmd) tea.Cmd {
	return tea.Batch(cmd, v.m.restartCompared(true))
}

func (v compareView) follow() tea.Cmd {
	v.m.syncCompareDetail()
	return nil
}

func (v compareView) paramsTitle() string {
	return "Parameters · " + v.m.retriever + " (" + v.m.KM.Retriever.Help().Key + ": next)"
}

func (v compareView) status() string { return v.m.status.Line(v.m.compareStatus()) }

func (v compareView) title() string {
	m := v.m
	parts := []string{"Results", "compare"}
	if m.cmp.K() > 0 {
		parts = append(parts, fmt.Sprintf("top %d", m.cmp.K()))
	}
	if p := m.cmp.Position(); p != "" {
		parts = append(parts, p)
	}
	return strings.Join(append(parts, "by "+m.cmp.SortName()), " · ")
}

func (v compareView) markTarget() (string, bool) {
	if r, ok := v.m.cmp.Selected(); ok {
		return r.ID, true
	}
	return "", false
}

func (v compareView) page() (func() (subgraph.Graph, error), string, error) {
	m := v.m
	var names []string
	var rankings []retriever.Ranking
	for _, name := range m.compared {
		if r, state := m.columnRanking(name); state == cmptable.ColIn {
			names, rankings = append(names, name), append(rankings, *r)
		}
	}
	if len(rankings) == 0 {
		return nil, "", errors.New("no column is in yet: the page shows the rankings once they are")
	}
	what := common.Plural(len(rankings), "ranking") + " compared"
	return func() (subgraph.Graph, error) {
		res, err := overlap.Compare(names, rankings, tableK(rankings))
		return subgraph.FromCompare(rankings, res), err
	}, what, nil
}
