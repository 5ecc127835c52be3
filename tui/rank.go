package tui

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"

	tea "github.com/charmbracelet/bubbletea"
	"github.com/memoria-graph/memoria/graph"
	"github.com/memoria-graph/memoria/internal/textsafe"
	"github.com/memoria-graph/memoria/render"
	"github.com/memoria-graph/memoria/retriever"
	"github.com/memoria-graph/memoria/retriever/activation"
	"github.com/memoria-graph/memoria/retriever/registry"
	"github.com/memoria-graph/memoria/tui/common"
	"github.com/memoria-graph/memoria/tui/components/params"
	"github.com/memoria-graph/memoria/tui/components/status"
)

// Retrievers are the retrievers the explorer runs on their own, in the
// order the Retriever key cycles through them (the default first): the
// registry's (retriever/registry) that combine no others.
func Retrievers() []string { return registry.Single() }

// CompareRetrievers are the retrievers the compare view takes: every one
// of the registry, those that combine others (fusion) combining the others
// compared (they have no view of their own).
func CompareRetrievers() []string { return registry.Names() }

// combining says whether name combines the other retrievers compared.
func combining(name string) bool {
	spec, ok := registry.Lookup(name)
	if !ok {
		return false
	}
	_, _, ok = spec.Combines(spec.Defaults())
	return ok
}

// Messages of a ranking retriever's run and of the detail's context read.
type (
	// rankingMsg is the whole answer of one expansion run.
	rankingMsg struct {
		ref     runRef
		ranking retriever.Ranking
		err     error
	}
	// hitContextMsg is the 1-hop context of one hit, read for the
	// detail pane (seq: the read it answers).
	hitContextMsg struct {
		seq   int
		node  string
		hops  []retriever.ContextHop
		found bool
		err   error
	}
)

// rankingCmd runs a ranking retriever inside the command, on a copy of
// the query and its parameters (a params.Set never changes in place).
func rankingCmd(ctx context.Context, ref runRef, nb graph.Neighbourhood, q retriever.Query, p params.Set) tea.Cmd {
	return common.SafeCmd(func() tea.Msg {
		r, err := p.Run(ctx, nb, q)
		return rankingMsg{ref: ref, ranking: r, err: err}
	})
}

// hitContextCmd reads a hit's 1-hop context inside the command, with the
// retriever's parameters p (retriever.Settings.Context: the expansion's
// "expand with context").
func hitContextCmd(ctx context.Context, seq int, nb graph.Neighbourhood, id string, p retriever.Settings) tea.Cmd {
	return common.SafeCmd(func() tea.Msg {
		hops, found, err := p.Context(ctx, nb, id)
		return hitContextMsg{seq: seq, node: id, hops: hops, found: found, err: err}
	})
}

// rankVersions is every ranking retriever's parameter version, by name.
func (m *Model) rankVersions() string {
	var b strings.Builder
	for _, name := range Retrievers() {
		if p := m.ranked.Panel(name); p != nil {
			fmt.Fprintf(&b, "%s=%d;", name, p.Version())
		}
	}
	return b.String()
}

// hitContextRead is the read of the selected hit's context: its sequence
// number (each read takes the next; an answer of another is dropped), what
// it is for, and how to cancel it.
type hitContextRead struct {
	seq    int
	run    runRef
	node   string
	cancel context.CancelFunc
}

func (r *hitContextRead) stop() {
	if r.cancel != nil {
		r.cancel()
		r.cancel = nil
	}
}

// restartRanking cancels the chosen ranking retriever's run in flight and
// starts one with copies of the current seeds, tags and its parameters;
// the whole ranking comes back in one message.
func (m *Model) restartRanking() tea.Cmd { return m.startRanking(m.retriever) }

// startRanking cancels ranking retriever name's run in flight and starts
// one with copies of the current seeds, tags and its parameters; in the
// compare view its column shows it running, else the results pane does.
func (m *Model) startRanking(name string) tea.Cmd {
	s := m.runs.slots[name]
	s.stop()
	s.id++
	s.seedsV, s.tagsV, s.started = m.seeds.Version(), m.tags.Version(), true
	s.params, s.ranking, s.err = m.ranked.Panel(name).Params(), nil, nil
	seeds := m.seeds.Seeds()
	if m.comparing() {
		if len(seeds) == 0 || m.runs.nb == nil {
			m.cmpRefresh()
			return nil
		}
		ctx, cancel := context.WithCancel(m.Ctx)
		s.cancel, s.loading = cancel, true
		m.cmpRefresh()
		return rankingCmd(ctx, s.ref(), m.runs.nb, retriever.Query{Seeds: seeds, Tags: m.tags.Tags()}, s.params)
	}
	if len(seeds) == 0 || m.runs.nb == nil {
		m.ranked.SetRanking(nil, false, "")
		return m.syncHit()
	}
	ctx, cancel := context.WithCancel(m.Ctx)
	s.cancel, s.loading = cancel, true
	m.ranked.SetRanking(nil, true, "")
	q := retriever.Query{Seeds: seeds, Tags: m.tags.Tags()} // both copies
	return tea.Batch(m.syncHit(), rankingCmd(ctx, s.ref(), m.runs.nb, q, s.params))
}

func (msg rankingMsg) run() runRef { return msg.ref }

// apply shows the answer of a ranking retriever's current run (runner.route
// dropped any other): in its compare column, or in the results pane when
// it is the chosen one (a run of a retriever not shown keeps its answer in
// its slot, shown when it is chosen again).
func (msg rankingMsg) apply(m *Model, s *runSlot) tea.Cmd {
	if msg.ref.retriever == activation.Name {
		return nil // Activation Energy's run answers by events
	}
	s.stop()
	if m.comparing() && slices.Contains(m.compared, msg.ref.retriever) {
		// The table follows: its column is rebuilt, the others stay.
		if msg.err != nil {
			s.err = msg.err
			m.cmpRefresh()
			return common.NotifyErr(fmt.Errorf("%s: %w", msg.ref.retriever, msg.err))
		}
		r := msg.ranking
		s.ranking = &r
		m.cmpRefresh()
		return nil
	}
	if msg.err != nil {
		s.err = msg.err
		if msg.ref.retriever != m.retriever {
			return common.NotifyErr(fmt.Errorf("%s: %w", msg.ref.retriever, msg.err))
		}
		m.ranked.SetRanking(nil, false, msg.err.Error())
		return tea.Batch(m.syncHit(), common.NotifyErr(fmt.Errorf("%s: %w", msg.ref.retriever, msg.err)))
	}
	r := msg.ranking
	s.ranking = &r
	if msg.ref.retriever != m.retriever {
		return nil
	}
	m.ranked.SetRanking(&r, false, "")
	return m.syncHit()
}

// syncHit shows the selected hit in the detail pane and, for a hit not
// shown yet, reads its context in a command (the read before it is
// cancelled and its answer dropped).
func (m *Model) syncHit() tea.Cmd {
	if !m.ranks() || m.comparing() {
		return nil
	}
	s := m.slot()
	hit, ok := m.ranked.Selected()
	if !ok {
		m.runs.hitCtx.stop()
		m.runs.hitCtx.run, m.runs.hitCtx.node = runRef{}, ""
		m.detail.Show(nil)
		return nil
	}
	if m.runs.hitCtx.run == s.ref() && m.runs.hitCtx.node == hit.NodeID && m.detailHit() != nil {
		return nil
	}
	m.runs.hitCtx.stop()
	m.runs.hitCtx.seq++
	m.runs.hitCtx.run, m.runs.hitCtx.node = s.ref(), hit.NodeID
	m.detail.Show(&hitSubject{hit: hit, loading: true})
	ctx, cancel := context.WithCancel(m.Ctx)
	m.runs.hitCtx.cancel = cancel
	cr := s.params.Settings()
	if !cr.HasContext() {
		h := *m.detailHit()
		h.loading, h.noContext = false, true
		m.detail.Set(&h)
		return nil
	}
	return hitContextCmd(ctx, m.runs.hitCtx.seq, m.runs.nb, hit.NodeID, cr)
}

// applyHitContext shows the context of the current read; an answer of an
// earlier read is dropped.
func (m *Model) applyHitContext(msg hitContextMsg) {
	if msg.seq != m.runs.hitCtx.seq || m.detailHit() == nil || m.detailHit().hit.NodeID != msg.node {
		return
	}
	m.runs.hitCtx.stop()
	h := *m.detailHit()
	h.loading, h.hops, h.found, h.err = false, msg.hops, msg.found, ""
	if msg.err != nil {
		h.err = msg.err.Error()
	}
	m.detail.Set(&h)
}

// switchRetriever chooses the next retriever: its parameters, results and
// detail are shown, and it runs when the seeds or tags changed since its
// last run (the other's run is kept as it is). Its key is refused where
// only Activation Energy can run (needsReads).
func (m *Model) switchRetriever() tea.Cmd {
	if m.comparing() {
		return m.nextCompared()
	}
	blur := m.focused().Blur()
	names := Retrievers()
	i := slices.Index(names, m.retriever)
	m.show(names[(i+1)%len(names)], nil)
	focus := m.focused().Focus()
	var sync tea.Cmd
	if m.ranks() {
		m.showSlotRanking()
		sync = m.syncHit()
	} else {
		m.runs.hitCtx.stop()
		m.runs.hitCtx.run, m.runs.hitCtx.node = runRef{}, ""
		m.tree.SelectionMoved() // the detail pane shows the selection from its top
		m.detail.Show(subjectOf(m.subject()))
	}
	note := common.Notify(fmt.Sprintf("retriever: %s (%s switches)", m.retriever, m.KM.Retriever.Help().Key))
	return m.restartIfInputsChanged(tea.Batch(blur, focus, sync, note))
}

// showSlotRanking shows the chosen ranking retriever's last answer (or
// that it is loading, or its error) in the results pane.
func (m *Model) showSlotRanking() {
	s := m.slot()
	errText := ""
	if s.err != nil {
		errText = s.err.Error()
	}
	m.ranked.SetRanking(s.ranking, s.loading, errText)
}

// copyRoute copies the selected hit's debug Cypher, the query `--format
// cypher` prints for it (render.HitCypher): the hit and its feeders when
// the retriever names them (spreading activation), else its route; in the
// copy form.
func (m *Model) copyRoute() tea.Cmd {
	hit, ok := m.ranked.Selected()
	if !ok {
		return common.NotifyErr(errors.New("nothing selected: pick a hit in the results first"))
	}
	q, ok := m.Cypher.HitCypher(hit)
	if !ok {
		return common.NotifyErr(fmt.Errorf("%s is an initial hit (a seed scored by its R): it has no route to copy", hit.NodeID))
	}
	if q.Feeders {
		return copyCmd(m.Out, q.In(m.Form), fmt.Sprintf("Cypher for %s and its %s (%s)%s", hit.NodeID,
			common.Plural(len(hit.Feeders), "feeder"), strings.Join(q.NodeIDs[1:], ", "), m.formNote()))
	}
	ids := []string{hit.Route[0].From}
	for _, h := range hit.Route {
		ids = append(ids, h.To)
	}
	return copyCmd(m.Out, q.In(m.Form),
		fmt.Sprintf("Cypher for route %s (%d nodes)%s", arrowPath(ids), len(ids), m.formNote()))
}

// copyAllRoutes copies every hit's debug Cypher (render.RankingCypher: its
// feeders' query, or its route's) as one script.
func (m *Model) copyAllRoutes() tea.Cmd {
	s := m.slot()
	if s.ranking == nil {
		return common.NotifyErr(errors.New("no ranking to copy yet: pick a seed"))
	}
	qs := m.Cypher.RankingCypher(*s.ranking)
	if len(qs) == 0 {
		return common.NotifyErr(errors.New("no expanded hits: initial hits have no route"))
	}
	fed := 0
	for _, q := range qs {
		if q.Feeders {
			fed++
		}
	}
	what := common.Plural(len(qs), "route")
	switch {
	case fed == len(qs):
		what = common.Plural(fed, "hit") + " with feeders"
	case fed > 0:
		what = common.Plural(fed, "hit") + " with feeders and " + common.Plural(len(qs)-fed, "route")
	}
	return copyCmd(m.Out, render.Script(qs, m.Form), fmt.Sprintf("Cypher for all %s%s", what, m.formNote()))
}

// rankingStatus is the status line's words for a ranking run: running, the
// error, or the seeds not found and the main statistics.
func rankingStatus(st *Styles, s *runSlot) []string {
	switch {
	case s.loading:
		return []string{st.Running.Render("⟳ " + s.name + " running")}
	case s.err != nil:
		return []string{st.Error.Render("✗ " + s.name + " error: " + textsafe.Escape(status.OneLine(s.err.Error())))}
	case s.ranking == nil:
		return []string{st.Dim.Render("no seeds")}
	}
	var parts []string
	for _, seed := range s.ranking.Seeds {
		if !seed.Found {
			parts = append(parts, st.Error.Render("✗ "+textsafe.Escape(seed.NodeID)+" not found"))
		}
	}
	var main retriever.Fields
	for _, name := range []string{"initial_count", "expanded_count", "new_results", "kept_results", "dropped_results", "expansion_rate"} {
		if v, ok := s.ranking.Stats.Get(name); ok {
			main = append(main, retriever.Field{Name: name, Value: v})
		}
	}
	return append(parts, st.OK.Render(render.FieldsText(main)))
}

// hitSubject is what the detail pane shows for a ranking's hit: the hit,
// and its 1-hop context once read (loading until then).
type hitSubject struct {
	hit retriever.Hit
	// noContext: the retriever reads no 1-hop context (only the
	// expansion does); its Detail is shown instead.
	noContext bool
	loading   bool
	hops      []retriever.ContextHop
	found     bool
	err       string
}

// hitLines explains a hit, wrapped to width w: its score multiplied out
// (render.Formula), how it was reached, its 1-hop context (which the
// ranking does not use) and its properties. Graph text is escaped.
func hitLines(st *Styles, names *naming, s hitSubject, w int, validity []string) []string {
	wrap := st.R.NewStyle().Width(w).Render
	h := s.hit
	plain, named := render.Formula(h)
	out := []string{
		nodeHead(st, names, h.Node) + st.Dim.Render(fmt.Sprintf(" · #%d · %s", h.Rank, h.Origin)),
		wrap(st.Metric.Render("score = " + plain)),
		wrap(st.Dim.Render(named)),
	}
	if h.Origin == retriever.OriginInitial {
		out = append(out, wrap(st.Dim.Render("a seed, scored by its own R: no route")))
	} else {
		out = append(out, wrap(st.Key.Render("reached ")+render.HowReached(h)))
	}
	hops := make([]routeHop, len(h.Route))
	for i, hop := range h.Route {
		hops[i] = routeHop{from: hop.From, to: hop.To, props: hop.Edge.Properties}
	}
	out = append(out, validityLines(st, wrap, validity, hops)...)
	if s.noContext {
		if len(h.Feeders) > 0 {
			out = append(out, "", st.Title.Render("Fed most by")+st.Dim.Render(" (what each relationship brought over the run)"))
			for _, f := range h.Feeders {
				out = append(out, wrap("– "+render.FeederText(f)))
			}
		}
		if len(h.Detail) > 0 {
			out = append(out, "", st.Title.Render("How the retriever scored it"))
			for _, f := range h.Detail {
				out = append(out, wrap(st.Key.Render(textsafe.Escape(f.Name))+" "+render.FieldValue(f.Value)))
			}
		}
		return append(out, propertyLines(st, wrap, h.Node)...)
	}
	out = append(out, "", st.Title.Render("Context: 1 hop around it")+st.Dim.Render(" (not part of the ranking)"))
	switch {
	case s.loading:
		out = append(out, st.Running.Render("⟳ reading its relationships…"))
	case s.err != "":
		out = append(out, wrap(st.Error.Render("✗ "+textsafe.Escape(status.OneLine(s.err)))))
	case !s.found:
		out = append(out, st.Dim.Render("the node is no longer in the graph"))
	case len(s.hops) == 0:
		out = append(out, st.Dim.Render("no relationships"))
	}
	for _, c := range s.hops {
		line := "– " + st.Key.Render(textsafe.Escape(c.Type)) + " – " + nodeHead(st, names, c.Other) + "  "
		switch {
		case c.Followed:
			line += st.Metric.Render(fmt.Sprintf("w %s × type %s = %s", render.Num(c.Weight), render.Num(c.TypeWeight), render.Num(c.Weight*c.TypeWeight)))
		case c.Edge.SourceID == c.Edge.TargetID:
			line += st.Dim.Render("self-loop: not followed")
		default:
			line += st.Dim.Render("w " + render.Num(c.Weight) + ", type not followed")
		}
		out = append(out, wrap(line))
	}
	return append(out, propertyLines(st, wrap, h.Node)...)
}
