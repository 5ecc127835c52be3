package tui

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"

	tea "github.com/charmbracelet/bubbletea"
	"github.com/memoria-graph/memoria/graph"
	"github.com/memoria-graph/memoria/render"
	"github.com/memoria-graph/memoria/retriever"
	"github.com/memoria-graph/memoria/retriever/activation"
	"github.com/memoria-graph/memoria/retriever/activation/why"
	"github.com/memoria-graph/memoria/retriever/rankwhy"
	"github.com/memoria-graph/memoria/retriever/registry"
	"github.com/memoria-graph/memoria/tui/common"
	"github.com/memoria-graph/memoria/tui/overlays/picker"
	"github.com/memoria-graph/memoria/tui/overlays/whypanel"
)

// pickerRows are the picker's rows: every retriever of the registry, with
// the purpose of those that combine the others.
func pickerRows() []picker.Retriever {
	var rows []picker.Retriever
	for _, name := range CompareRetrievers() {
		r := picker.Retriever{Name: name, Combining: combining(name)}
		if spec, ok := registry.Lookup(name); ok && r.Combining {
			r.Purpose = spec.Purpose
		}
		rows = append(rows, r)
	}
	return rows
}

// openPicker puts the retriever picker on top, the retrievers shown now
// ticked.
func (m *Model) openPicker() tea.Cmd {
	shown := m.compared
	if !m.comparing() {
		shown = []string{m.retriever}
	}
	var off error
	if m.runs.nb == nil {
		off = errOnlyActivation
	}
	m.ov.picker.Open(shown, off)
	m.push(m.ov.picker)
	return nil
}

// applyPicked opens the compare view with names (two or more), or shows
// the one retriever named alone.
func (m *Model) applyPicked(names []string) tea.Cmd {
	blur := m.focused().Blur()
	if len(names) < 2 { // never a combining retriever alone: the picker refuses it
		m.show(names[0], nil)
		focus := m.focused().Focus()
		m.showChosen()
		return m.restartIfInputsChanged(tea.Batch(blur, focus, common.Notify("retriever: "+m.retriever)))
	}
	chosen := m.retriever
	if !slices.Contains(names, chosen) {
		chosen = firstWithParams(names)
	}
	m.show(chosen, names)
	for _, n := range names {
		if combining(n) {
			// What it combines changed with the columns: it runs again.
			m.runs.slots[n].seedsV = -1
		}
	}
	m.runs.hitCtx.stop()
	m.runs.hitCtx.run, m.runs.hitCtx.node = runRef{}, ""
	focus := m.focused().Focus()
	m.cmpRefresh()
	note := common.Notify(fmt.Sprintf("comparing %s (%s: parameters of the next one)", strings.Join(names, ", "), m.KM.Retriever.Help().Key))
	return m.restartIfInputsChanged(tea.Batch(blur, focus, note))
}

// showChosen shows the chosen retriever's results and detail, as when x
// switches to it.
func (m *Model) showChosen() tea.Cmd {
	if m.ranks() {
		m.showSlotRanking()
		return m.syncHit()
	}
	m.runs.hitCtx.stop()
	m.runs.hitCtx.run, m.runs.hitCtx.node = runRef{}, ""
	m.tree.SelectionMoved() // the detail pane shows the selection from its top
	m.detail.Show(subjectOf(m.subject()))
	return nil
}

// nextCompared makes the next compared retriever's parameters the ones
// shown (x in the compare view); the table stays.
func (m *Model) nextCompared() tea.Cmd {
	blur := m.focused().Blur()
	i := slices.Index(m.compared, m.retriever)
	for range m.compared {
		i = (i + 1) % len(m.compared)
		if !combining(m.compared[i]) {
			break
		}
	}
	m.show(m.compared[i], m.compared)
	focus := m.focused().Focus()
	return tea.Batch(blur, focus, common.Notify("parameters: "+m.retriever))
}

// newWhyJob is a job with copies of the current query (seeds already
// copied by the caller, tags), thresholds and every retriever's
// parameters, about node; the caller adds the retrievers asked and their K.
func (m *Model) newWhyJob(seeds []retriever.Seed, node string) whyJob {
	j := whyJob{nb: m.runs.nb, unfiltered: m.runs.unfiltered, filter: m.runs.filter, backend: safeBackend{m.runs.backend}, act: m.params.Config(), opts: m.runs.opts,
		q: retriever.Query{Seeds: seeds, Tags: m.tags.Tags()}, params: map[string]retriever.Settings{}, k: map[string]int{}, node: node}
	for name, p := range m.ranked.Panels() {
		j.params[name] = p.Params().Settings()
	}
	for name := range m.combiners {
		j.params[name] = m.combinerParams(name)
	}
	return j
}

// whyJob is what a compare-view why question reads, all copies: the graph,
// Activation Energy's backend and thresholds, the query, each ranking
// retriever's parameters, each retriever's K, and the retrievers asked.
type whyJob struct {
	nb graph.Neighbourhood
	// unfiltered and filter: the graph without the run's relationship
	// filter, and its description (nil and "" for none).
	unfiltered graph.Neighbourhood
	filter     string
	backend    activation.Backend
	act        activation.Params
	opts       activation.Options
	q          retriever.Query
	// params are every ranking retriever's parameters by name (a combining
	// one's combining the other retrievers compared).
	params map[string]retriever.Settings
	k      map[string]int
	names  []string
	node   string
}

// config is internal/rankwhy's view of the job: runs by name at a K (the
// ranking retrievers with their parameters, TopK set to the K; Activation
// Energy explored and projected, cut to the K), and Activation Energy's
// why-not.
func (j whyJob) config() rankwhy.Config {
	cfg := rankwhy.Config{Neighbourhood: j.nb, Query: j.q, Unfiltered: j.unfiltered, Filter: j.filter}
	cfg.Settings = func(name string) retriever.Settings { return j.params[name] }
	cfg.Run = func(ctx context.Context, name string, depth int) (retriever.Ranking, error) {
		if _, ok := registry.Lookup(name); ok {
			p := cfg.Settings(name)
			if depth > 0 {
				p = p.WithTopK(depth)
			}
			return p.Run(ctx, retriever.Env{Neighbourhood: j.nb, Rank: cfg.Run}, j.q)
		}
		switch name {
		case activation.Name:
			r, err := activation.New(j.backend, j.act, j.opts)
			if err != nil {
				return retriever.Ranking{}, err
			}
			results, err := r.ExploreAll(ctx, j.q.Seeds, j.q.Tags)
			if err != nil {
				return retriever.Ranking{}, err
			}
			rk := activation.Ranking(results, j.act, j.q.Tags)
			if depth > 0 && len(rk.Hits) > depth {
				rk.Hits = rk.Hits[:depth]
			}
			return rk, nil
		}
		return retriever.Ranking{}, fmt.Errorf("no retriever %q in the explorer", name)
	}
	cfg.Activation = func(ctx context.Context, nodeID string) (why.Answer, error) {
		return why.Explain(ctx, why.Config{Backend: j.backend, Params: j.act, Options: j.opts, Seeds: j.q.Seeds, Tags: j.q.Tags, NodeID: nodeID})
	}
	return cfg
}

// rankWhyCmd answers the job inside the command: for each retriever asked,
// its verdict on the node at its K (internal/rankwhy), in order.
func rankWhyCmd(ctx context.Context, id int, j whyJob) tea.Cmd {
	return common.SafeCmd(func() tea.Msg {
		e, err := rankwhy.New(ctx, j.config(), j.node)
		if err != nil {
			return whypanel.DoneMsg{ID: id, Err: err}
		}
		out := make([]rankwhy.Answer, 0, len(j.names))
		for _, name := range j.names {
			a, err := e.Explain(ctx, name, j.k[name])
			if err != nil {
				return whypanel.DoneMsg{ID: id, Err: fmt.Errorf("%s: %w", name, err)}
			}
			out = append(out, a)
		}
		return whypanel.DoneMsg{ID: id, Ranked: out, RankedAsked: true}
	})
}

// askCompareWhy asks, for the selected row's node, why each compared
// retriever whose top K lacks it does: Activation Energy's why-not, a
// ranking retriever's cut or unreached with its reason.
func (m *Model) askCompareWhy() tea.Cmd {
	r, ok := m.cmp.Selected()
	if !ok {
		return common.NotifyErr(errors.New("nothing selected: pick a row of the compare table"))
	}
	seeds := m.seeds.Seeds()
	if len(seeds) == 0 || m.runs.nb == nil {
		return common.NotifyErr(errors.New("why needs seeds: pick one in the node list first"))
	}
	j := m.newWhyJob(seeds, r.ID)
	for c, col := range m.cmp.Cols() {
		if r.Ranks[c] > 0 {
			continue
		}
		j.names = append(j.names, col.Name)
		j.k[col.Name] = m.cmp.K()
		if p, ok := j.params[col.Name]; ok {
			j.k[col.Name] = p.TopK()
		}
	}
	if len(j.names) == 0 {
		return common.Notify(fmt.Sprintf("every compared retriever has %s in its top %d", render.DisplayID(r.ID), m.cmp.K()))
	}
	cmd := m.ov.why.Start(m.Ctx, r.ID, func(ctx context.Context, id int) tea.Cmd { return rankWhyCmd(ctx, id, j) })
	m.push(m.ov.why)
	return cmd
}
