package tui

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/charmbracelet/bubbles/key"
	tea "github.com/charmbracelet/bubbletea"
	"github.com/memoria-graph/memoria/keymap"
	"github.com/memoria-graph/memoria/render"
	"github.com/memoria-graph/memoria/retriever"
	"github.com/memoria-graph/memoria/retriever/activation"
	"github.com/memoria-graph/memoria/retriever/activation/sweep"
	"github.com/memoria-graph/memoria/tui/common"
	"github.com/memoria-graph/memoria/tui/components/cmptable"
	"github.com/memoria-graph/memoria/tui/components/detail"
	"github.com/memoria-graph/memoria/tui/components/params"
	"github.com/memoria-graph/memoria/tui/components/ranklist"
	"github.com/memoria-graph/memoria/tui/components/seeds"
	"github.com/memoria-graph/memoria/tui/components/status"
	"github.com/memoria-graph/memoria/tui/components/tags"
	"github.com/memoria-graph/memoria/tui/components/tree"
	"github.com/memoria-graph/memoria/tui/overlays/helpview"
	"github.com/memoria-graph/memoria/tui/overlays/picker"
	"github.com/memoria-graph/memoria/tui/overlays/query"
	"github.com/memoria-graph/memoria/tui/overlays/statsview"
	"github.com/memoria-graph/memoria/tui/overlays/sweepview"
	"github.com/memoria-graph/memoria/tui/overlays/whypanel"
)

// focus names the pane that receives keys.
type focus int

const (
	focusSeeds focus = iota
	focusTags
	focusParams
	focusTree
	focusDetail
	focusCount
)

// component is what every pane provides. The root moves the keyboard with
// Focus and Blur and feeds data through methods (SetTrees, the detail pane's Show...);
// what every pane shares (styles, keymap, naming, marks, metrics) is their
// Common, not handed round by the root. The panes are still in this
// package, so the compiler does not yet stop the root from reading a
// pane's fields (docs/ARCHITECTURE.md, "The explorer's components").
type component interface {
	Update(tea.Msg) tea.Cmd
	View() string
	SetSize(w, h int)
	// Focus gives the pane the keyboard; Blur takes it away. Blur may
	// return a command (a status message about input left unfinished).
	Focus() tea.Cmd
	Blur() tea.Cmd
	// ShortHelp is what the status line's help shows while the pane has
	// the keyboard.
	ShortHelp() []key.Binding
}

// Model is the root model: it keeps the focus, the overlay stack and which
// retriever's results are shown, routes keys by focus and background
// replies by run slot (runner), and lays the components out. Everything
// the components share is in Common, embedded here and in each of them.
type Model struct {
	*Common

	seeds  *seeds.Picker
	tags   *tags.Input
	params *params.Thresholds
	// The results views: Activation Energy's tree, the chosen ranking
	// retriever's list with every ranking retriever's parameters panel
	// (rank.go), the compare table with the retrievers it compares
	// (compare.go); detail shows the selected row of the one shown.
	tree   *tree.Pane
	ranked *ranklist.List
	cmp    *cmptable.Table
	detail *detail.Pane
	status *status.Bar

	focus focus
	// overlays is the stack of open overlays, the top last: the order
	// they were opened in is their priority, for keys and drawing alike
	// (overlay.go). ov holds the overlays, open or not.
	overlays []overlay
	ov       overlaySet
	lay      layout

	// runs holds each retriever's run slot and what runs them (run.go).
	runs *runner
	// retriever is the chosen retriever, whose parameters, results and
	// detail are shown; view shows its results, or the compare view's
	// (show sets both).
	retriever string
	view      resultView
	// compared holds the retrievers of the compare view, in column order
	// (two or more; nil: the view is closed); combiners the parameters of
	// the retrievers that combine the others compared (fusion), by name:
	// what each combines is set to the other compared retrievers when it
	// runs (combinerParams).
	compared  []string
	combiners map[string]retriever.Settings
}

// overlaySet is every overlay the root keeps for the explorer's life,
// open or not.
type overlaySet struct {
	helpView  *helpview.Model  // the full help (tui/overlays/helpview)
	why       *whypanel.Panel  // the why-not panel (tui/overlays/whypanel)
	sweep     *sweepview.Model // the sweep (tui/overlays/sweepview)
	statsView *statsview.Model // the graph's metrics (tui/overlays/statsview)
	picker    *picker.Model    // picks the retrievers shown (tui/overlays/picker)
	query     *query.Model     // the query line (tui/overlays/query)
}

// newModel builds the root model; opts must already be completed.
func newModel(ctx context.Context, opts Options, st *Styles) *Model {
	km := keymap.Default()
	c := &Common{Ctx: ctx, Source: opts.Source, KM: km, St: st, Out: opts.Out, OutDir: opts.OutDir, Now: opts.Now,
		Names: &naming{}, Stats: newGraphStats(), Marks: common.NewMarkSet(opts.Marks), Judged: &judgement{},
		Form: render.FormBrowser, Cypher: render.CypherFor(opts.Mapping)}
	m := &Model{
		Common: c,
		seeds:  seeds.New(c, opts.Source, opts.MaxSeeds, opts.Seeds),
		tags:   tags.New(c, opts.Source, opts.Tags),
		params: params.NewThresholds(c, opts.Params),
		ranked: ranklist.New(c),
		cmp:    cmptable.New(c), compared: slices.Clone(opts.Compare), combiners: map[string]retriever.Settings{},
		tree:   tree.NewPane(c),
		detail: detail.New(c, validityKeys(opts.Mapping)),
		status: status.New(st, opts.Source.Describe(), filterNote(opts.Filter), mappingNote(opts.Mapping), opts.Notice),
		ov: overlaySet{helpView: helpview.New(km, st, mappingNote(opts.Mapping)), why: whypanel.New(c), sweep: sweepview.New(c, heldOutSet(opts.Queries)),
			statsView: statsview.New(c, opts.Source.Describe()), picker: picker.New(km, st, pickerRows()),
			query: query.New(km, st, queryConfig(ctx, opts))},
		focus: focusSeeds,
		runs: newRunner(opts.Backend, opts.RunOptions, opts.Neighbourhood, opts.Unfiltered, opts.Filter,
			tree.BaselineOf(opts.Pinned, "pinned", opts.PinnedParams, opts.PinnedTags),
			tree.BaselineOf(opts.Saved, "saved", opts.Params, opts.Tags)),
	}
	for name, p := range opts.settings {
		if combining(name) {
			m.combiners[name] = p
		} else {
			m.ranked.SetPanel(name, params.NewTable(c, params.NewSpecSet(p)))
		}
	}
	m.show(opts.Retriever, m.compared)
	m.seeds.Focus()
	m.resize(80, 24)
	return m
}

// Init loads the node list and the tags, and starts a run when seeds were
// given.
func (m *Model) Init() tea.Cmd {
	cmds := []tea.Cmd{m.seeds.Init(), m.tags.Init(), nameKeysCmd(m.Ctx, m.Source), m.graphStats().start(m.Ctx, m.Source)}
	if m.status.Notice() != "" {
		cmds = append(cmds, common.Notify(m.status.Notice()))
	}
	if len(m.seeds.Seeds()) > 0 {
		cmds = append(cmds, m.restart())
	}
	return tea.Batch(cmds...)
}

// actRun is Activation Energy's run slot.
func (m *Model) actRun() *runSlot { return m.runs.slots[activation.Name] }

// slot is the chosen retriever's run slot.
func (m *Model) slot() *runSlot { return m.runs.slots[m.retriever] }

// ranks reports whether the chosen retriever is a ranking one (every one
// but Activation Energy).
func (m *Model) ranks() bool { return m.retriever != activation.Name }

// rankPanel is the chosen ranking retriever's parameters panel.
func (m *Model) rankPanel() *params.Table { return m.ranked.Panel(m.retriever) }

// restart re-runs the chosen retriever with the current seeds, tags and
// its parameters (the other retriever's run is left as it is).
func (m *Model) restart() tea.Cmd { return m.view.restart() }

// restartActivation cancels Activation Energy's run in flight and starts
// one with the current seeds, tags and thresholds. Explore runs inside the
// returned command.
func (m *Model) restartActivation() tea.Cmd {
	s := m.actRun()
	s.stop()
	s.id++
	s.seedsV, s.tagsV, s.started = m.seeds.Version(), m.tags.Version(), true
	s.ranking, s.err = nil, nil // its projection as a ranking (compare view), made when it ends
	defer m.refreshIfComparing()
	seeds, tags, cfg := m.seeds.Seeds(), m.tags.Tags(), m.params.Config()
	m.actRun().cfg, m.actRun().tags = cfg, retriever.NormalizeTags(tags)
	if b := tree.NewBaseline(m.actRun().trees, "previous"); b != nil {
		m.runs.prev = b // the run being replaced, when it was complete
	}
	if len(seeds) == 0 {
		m.actRun().trees = nil
		m.afterTreeChange(true)
		return nil
	}
	ctx, cancel := context.WithCancel(m.Ctx)
	m.actRun().cancel = cancel
	m.actRun().trees = tree.NewTrees(seeds)
	m.actRun().trees.Cfg, m.actRun().trees.Tags = cfg, m.actRun().tags
	m.actRun().trees.SetBase(m.baseline())
	m.afterTreeChange(true)
	return startRunCmd(ctx, m.actRun().ref(), m.runs.backend, m.runs.held, cfg, m.runs.opts, seeds, tags)
}

// sweepParams maps the thresholds panel's rows to the swept parameter.
var sweepParams = [params.RowCount]sweep.Param{
	params.RowDepth: sweep.MaxDepth, params.RowMinAct: sweep.MinActivation, params.RowFloor: sweep.TagSimFloor, params.RowBranches: sweep.MaxBranches,
}

// startSweep sweeps the threshold selected in the thresholds panel for the
// current seeds, tags and other thresholds.
func (m *Model) startSweep() tea.Cmd {
	if m.ranks() {
		return m.startHeldOut()
	}
	seeds := m.seeds.Seeds()
	if len(seeds) == 0 && !m.ov.sweep.HasQueries() {
		return common.NotifyErr(errors.New("nothing to sweep: pick a seed first (or open the explorer with --queries for the held-out curve)"))
	}
	param := sweepParams[m.params.Selected()]
	m.push(m.ov.sweep) // first: the charts fill the overlay's width
	return m.ov.sweep.Start(m.Ctx, safeBackend{m.runs.backend}, m.runs.opts, m.params.Config(), param, seeds, m.tags.Tags(), m.Marks.Snapshot())
}

// startHeldOut draws the held-out curve of the ranking retriever's
// parameter selected in its panel over the query set (sweepable let the
// key through): a row with a grid (retriever.Param.Grid), not a table
// entry.
func (m *Model) startHeldOut() tea.Cmd {
	panel := m.ranked.Panel(m.retriever)
	p := panel.Params().Settings()
	row, params := panel.Selected(), p.Spec().Params
	if m.runs.nb == nil || row >= len(params) || params[row].Grid.Steps == 0 {
		return common.NotifyErr(fmt.Errorf("s draws the held-out curve of a numeric parameter of %s: select one with a grid (%s)", m.retriever, gridded(params)))
	}
	target, err := sweepview.RankingTarget(m.runs.nb, p, params[row].Flag)
	if err != nil {
		return common.NotifyErr(err)
	}
	m.push(m.ov.sweep) // first: the charts fill the overlay's width
	return m.ov.sweep.StartHeldOut(m.Ctx, target, p)
}

// gridded names the parameters of params that have a grid.
func gridded(params []retriever.Param) string {
	var names []string
	for _, p := range params {
		if p.Grid.Steps > 0 {
			names = append(names, p.Label)
		}
	}
	return strings.Join(names, ", ")
}

// applySwept sets the value the sweep's held-out curve chose: Activation
// Energy's thresholds, or a ranking retriever's parameters, and re-runs
// that retriever when they changed.
func (m *Model) applySwept(msg sweepview.ApplyMsg) tea.Cmd {
	if msg.Retriever != activation.Name {
		panel := m.ranked.Panel(msg.Retriever)
		if panel == nil {
			return nil
		}
		before := panel.Version()
		panel.Replace(params.NewSpecSet(msg.Settings))
		if panel.Version() == before {
			return common.Notify(msg.Chosen + ": already set")
		}
		return tea.Batch(common.Notify("set "+msg.Chosen), m.restartRanking(), m.recombine())
	}
	if msg.Params == m.params.Config() {
		return common.Notify(msg.Chosen + ": already set")
	}
	if err := m.params.SetConfig(msg.Params); err != nil {
		return common.NotifyErr(err)
	}
	return tea.Batch(common.Notify("set "+msg.Chosen), m.restartActivation(), m.recombine())
}

// heldOutSet is the query set with its backend made safe (safeBackend):
// a panic there is an error of the sweep, not the explorer's end.
func heldOutSet(set sweepview.QuerySet) sweepview.QuerySet {
	if set.Backend != nil {
		set.Backend = safeBackend{set.Backend}
	}
	return set
}

// stopRun cancels every retriever's run in flight and the read of a
// hit's context, if any.
func (m *Model) stopRun() { m.runs.stop() }

// quit cancels all work in flight (the run, a question, a sweep) and ends
// the program.
func (m *Model) quit() tea.Cmd {
	m.closeOverlays()
	m.stopRun()
	m.graphStats().stop()
	m.judgement().stop()
	return tea.Quit
}

func (m *Model) afterTreeChange(newRun bool) {
	if newRun {
		m.tree.SetTrees(m.actRun().trees)
	} else {
		m.tree.Changed()
	}
	m.syncDetail()
}

// syncDetail shows the selected node in the detail pane, keeping its scroll
// position while the selection stays on the same row. While the expansion
// is chosen the pane is its hit's (syncHit): Activation Energy's events
// leave it alone.
func (m *Model) syncDetail() {
	if !m.showsTree() {
		return
	}
	if m.tree.SelectionMoved() {
		m.detail.Show(subjectOf(m.subject()))
		return
	}
	m.detail.Set(subjectOf(m.subject()))
}

// Update routes messages: run messages by run id, an overlay's messages to
// that overlay, keys to the top overlay if one is open, else by focus.
// Then, when the detail pane shows a node whose degree is not known yet,
// it starts its lookup (wantDegree), and when the results shown or the
// relevance marks changed, it judges the results against the marks
// (judge).
func (m *Model) Update(msg tea.Msg) (tea.Model, tea.Cmd) {
	_, cmd := m.update(msg)
	return m, tea.Batch(cmd, m.wantDegree(), m.judge())
}

func (m *Model) update(msg tea.Msg) (tea.Model, tea.Cmd) {
	switch msg := msg.(type) {
	case statsMsg:
		if m.graphStats().apply(msg) {
			m.statsArrived()
			if msg.err != nil {
				return m, common.NotifyErr(fmt.Errorf("computing the graph's metrics: %w", msg.err))
			}
		}
	case degreesMsg:
		if m.graphStats().applyDegrees(msg) {
			m.tree.Rebuild() // a hub beyond the metrics' list
		}
		m.detail.Redraw()
	case tea.WindowSizeMsg:
		m.resize(msg.Width, msg.Height)
	case runReply:
		return m, m.runs.route(m, msg)
	case whypanel.DoneMsg, whypanel.TickMsg:
		return m, m.toOverlay(m.ov.why, msg)
	case sweepview.Msg:
		return m, m.toOverlay(m.ov.sweep, msg)
	case sweepview.ApplyMsg:
		return m, m.applySwept(msg)
	case snapshotResetMsg:
		return m, m.restartActivation()
	case query.Msg:
		return m, m.toOverlay(m.ov.query, msg)
	case query.AppliedMsg:
		return m, m.applyQuery(msg)
	case picker.PickedMsg:
		return m, m.applyPicked(msg.Names)
	case picker.RefusedMsg:
		return m, common.NotifyErr(msg.Err)
	case hitContextMsg:
		m.applyHitContext(msg)
	case marksWhyMsg:
		return m, m.applyMarksWhy(msg)
	case seeds.NodesLoadedMsg, seeds.FilterTickMsg:
		return m, m.seeds.Update(msg)
	case tags.LoadedMsg:
		return m, m.tags.Update(msg)
	case nameKeysMsg:
		if msg.err != nil {
			return m, common.NotifyErr(fmt.Errorf("listing the nodes' properties to name them by: %w", msg.err))
		}
		m.Names.SetKeys(msg.keys)
	case common.StatusMsg, common.ErrMsg:
		return m, m.status.Update(msg)
	case tea.MouseMsg:
		return m, m.mouse(msg)
	case tea.KeyMsg:
		return m, m.key(msg)
	}
	return m, nil
}

// typing reports whether the focused pane is taking text (never under an
// overlay, which takes the keys and no text).
func (m *Model) typing() bool {
	if m.top() != nil {
		return false
	}
	switch m.focus {
	case focusSeeds:
		return m.seeds.Typing()
	case focusTags:
		return m.tags.Typing()
	case focusTree:
		return m.view.typing()
	case focusParams:
		return m.view.params().Typing()
	}
	return false
}

func (m *Model) key(msg tea.KeyMsg) tea.Cmd {
	if msg.Type == tea.KeyRunes && len(msg.Runes) > 1 && !msg.Paste && !m.typing() {
		// Terminals may deliver quickly typed keys in one read ("jjy"):
		// take them one at a time, as if typed slowly.
		cmds := make([]tea.Cmd, 0, len(msg.Runes))
		for _, r := range msg.Runes {
			cmds = append(cmds, m.key(tea.KeyMsg{Type: tea.KeyRunes, Runes: []rune{r}, Alt: msg.Alt}))
		}
		return tea.Batch(cmds...)
	}
	km := m.KM
	switch {
	case key.Matches(msg, km.ForceQuit):
		return m.quit()
	case m.tooSmall():
		// Nothing but the size is on the screen: keys typed blind would
		// change what the user cannot see. q still quits.
		if key.Matches(msg, km.Quit) {
			return m.quit()
		}
		return nil
	case m.top() != nil:
		return m.overlayKey(msg)
	case key.Matches(msg, km.NextPane):
		return m.restartIfInputsChanged(m.setFocus((m.focus + 1) % focusCount))
	case key.Matches(msg, km.PrevPane):
		return m.restartIfInputsChanged(m.setFocus((m.focus + focusCount - 1) % focusCount))
	}
	if !m.typing() {
		if cmd, ok := m.commandKey(msg); ok {
			return cmd
		}
	}
	return m.paneKey(msg)
}

// paneKey gives msg to the focused pane, then follows what it changed: the
// detail of the new selection, the tags' lines, and a re-run of the
// retriever whose parameters, seeds or tags changed.
func (m *Model) paneKey(msg tea.KeyMsg) tea.Cmd {
	cfg, versions := m.params.Config(), m.rankVersions()
	cmd := m.focused().Update(msg)
	switch m.focus {
	case focusTree:
		cmd = tea.Batch(cmd, m.view.follow())
	case focusTags:
		m.resize(m.W, m.H) // the chips may need more or fewer lines
	}
	// Each panel holds its own retriever's parameters: a change re-runs
	// that retriever only.
	// Fusion, in the compare view, fuses them: it follows.
	if m.params.Config() != cfg {
		return tea.Batch(cmd, m.restartActivation(), m.recombine())
	}
	if m.rankVersions() != versions {
		return tea.Batch(cmd, m.restartRanking(), m.recombine())
	}
	return m.restartIfInputsChanged(cmd)
}

// restartIfInputsChanged adds a restart to cmd when the seeds or the tags
// changed since the current run started (a key, or leaving a pane with a
// score typed, changed them).
func (m *Model) restartIfInputsChanged(cmd tea.Cmd) tea.Cmd {
	return m.view.restartIfInputsChanged(cmd)
}

// restartSlotIfChanged adds a restart of the chosen retriever to cmd when
// the seeds or tags changed since its run started, or it never ran and
// there are seeds.
func (m *Model) restartSlotIfChanged(cmd tea.Cmd) tea.Cmd {
	s := m.slot()
	changed := m.seeds.Version() != s.seedsV || m.tags.Version() != s.tagsV
	if changed || (!s.started && len(m.seeds.Seeds()) > 0) {
		return tea.Batch(cmd, m.restart())
	}
	return cmd
}

// filterNote is the status line's note of the relationship filter ("" for
// none): degrees still count what it removes (docs/RETRIEVERS.md,
// "Relationship filters").
func filterNote(filter string) string {
	if filter == "" {
		return ""
	}
	return "filter " + filter + " (d counts all)"
}
