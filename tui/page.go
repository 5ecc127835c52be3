package tui

import (
	"errors"
	"fmt"
	"maps"
	"slices"

	tea "github.com/charmbracelet/bubbletea"

	"github.com/memoria-graph/memoria/internal/overlap"
	"github.com/memoria-graph/memoria/render/subgraph"
	"github.com/memoria-graph/memoria/retriever"
	"github.com/memoria-graph/memoria/retriever/activation"
)

// exportPage writes the self-contained HTML page (render/subgraph) of what
// is on screen and names its path on the status line: the compare view's
// rankings (each retriever's hits in its colour), the shown ranking
// retriever's hits, or Activation Energy's paths. The page is built and
// written in a command, from copies taken here.
func (m *Model) exportPage() tea.Cmd {
	var page func() (subgraph.Graph, error)
	var what string
	switch {
	case m.comparing():
		var names []string
		var rankings []retriever.Ranking
		for _, name := range m.cmp.shown {
			if r, state := m.columnRanking(name); state == colIn {
				names, rankings = append(names, name), append(rankings, *r)
			}
		}
		if len(rankings) == 0 {
			return notifyErr(errors.New("no column is in yet: the page shows the rankings once they are"))
		}
		what = plural(len(rankings), "ranking") + " compared"
		page = func() (subgraph.Graph, error) {
			res, err := overlap.Compare(names, rankings, tableK(rankings))
			return subgraph.FromCompare(rankings, res), err
		}
	case m.ranks():
		s := m.slot()
		if s.ranking == nil {
			return notifyErr(fmt.Errorf("no %s ranking yet: pick a seed", m.retriever))
		}
		r := *s.ranking
		what = m.retriever + "'s " + plural(len(r.Hits), "hit")
		page = func() (subgraph.Graph, error) { return subgraph.FromRanking(r, 0), nil }
	default:
		run := m.actRun()
		res := run.trees.results()
		if len(res) == 0 {
			return notifyErr(errors.New("no results to draw yet: pick a seed"))
		}
		cfg, tags, filter, losers := run.cfg, run.tags, m.runs.filter, run.trees.losers()
		what = plural(len(res), "seed") + " of " + activation.Name
		page = func() (subgraph.Graph, error) {
			return subgraph.FromActivation(subgraph.ActivationRun{Results: res, Levels: losers, Params: cfg, Tags: tags, Filter: filter}), nil
		}
	}
	dir, stamp := m.outDir, m.now().Format("20060102-150405")
	return safeCmd(func() tea.Msg {
		g, err := page()
		if err != nil {
			return errMsg{err}
		}
		data, err := subgraph.HTML(g)
		if err != nil {
			return errMsg{err}
		}
		path, err := writeNew(dir, "memoria-page-"+stamp+".html", data)
		if err != nil {
			return errMsg{fmt.Errorf("writing the page: %w", err)}
		}
		return statusMsg{text: fmt.Sprintf("wrote %s (%d bytes, %s; open it in a browser, it needs no network)", path, len(data), what)}
	})
}

// losers are the candidates the trees hold that were not kept (their
// parents' losers: lost a branch or a claim, or near misses), one level
// event per finished seed in results' order, which is all the page reads
// of the levels (render/subgraph draws them dashed).
func (rt *resultTrees) losers() [][]activation.LevelEvent {
	var out [][]activation.LevelEvent
	for _, st := range rt.seeds {
		if st.result == nil {
			continue
		}
		var lv activation.LevelEvent
		for _, id := range slices.Sorted(maps.Keys(st.nodes)) {
			lv.Outcomes = append(lv.Outcomes, st.nodes[id].losers...)
		}
		out = append(out, []activation.LevelEvent{lv})
	}
	return out
}
