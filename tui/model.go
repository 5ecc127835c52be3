package tui

import (
	"context"
	"errors"
	"fmt"
	"io"
	"time"

	"github.com/charmbracelet/bubbles/help"
	"github.com/charmbracelet/bubbles/key"
	tea "github.com/charmbracelet/bubbletea"
	"github.com/memoria-graph/memoria/graph"
	"github.com/memoria-graph/memoria/keymap"
	"github.com/memoria-graph/memoria/render"
	"github.com/memoria-graph/memoria/retriever"
	"github.com/memoria-graph/memoria/retriever/activation"
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

// component is what every pane provides. The root never touches a pane's
// fields: it moves the keyboard with Focus and Blur, and feeds data through
// methods (SetTrees, SetSubject...).
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

// Model is the root model: it routes keys by focus, owns the run (its
// runSlot) and lays the panes out.
type Model struct {
	ctx     context.Context
	source  graph.Source
	km      keymap.KeyMap
	st      *Styles
	backend activation.Backend
	runOpts activation.Options
	out     io.Writer
	outDir  string
	now     func() time.Time
	notice  string // shown on the status line when the explorer opens

	// held reads the snapshot's counters when the backend is one (else
	// nil).
	held func() snapshotState

	seeds  *seedPicker
	names  *naming // which property names nodes in every pane
	tags   *tagInput
	params *paramsPanel
	tree   *treePane
	detail *detailPane
	status *statusBar
	help   help.Model

	focus focus
	// overlays is the stack of open overlays, the top last: the order
	// they were opened in is their priority, for keys and drawing alike
	// (overlay.go). helpView, why and sweep are the overlays, open or not.
	overlays []overlay
	helpView *helpView  // the full help
	why      *whyPanel  // the why-not panel (whynot.go)
	sweep    *sweepView // the sweep (sweepview.go)
	w, h     int
	lay      layout

	// run is the retriever's run: the one in flight or the last one
	// (run.go).
	run *runSlot
	// Versions of the inputs the current run was started from.
	seedsV, tagsV int
	selKey        rowKey
	// prev is the last complete run before the current one, pinned the run
	// the analyst pinned: each run is compared with pinned, else prev.
	prev, pinned *baseline
	// form is how copies are written (Neo4j Browser, cypher-shell, driver).
	form render.CypherForm
}

// newModel builds the root model; opts must already be completed.
func newModel(ctx context.Context, opts Options, st *Styles) *Model {
	km := keymap.Default()
	m := &Model{
		ctx: ctx, source: opts.Source, km: km, st: st, backend: opts.Backend, runOpts: opts.RunOptions, out: opts.Out, outDir: opts.OutDir, now: opts.Now,
		notice: opts.Notice, held: heldFunc(opts.Backend),
		seeds:    newSeedPicker(ctx, km, st, opts.Source, opts.MaxSeeds, opts.Seeds),
		tags:     newTagInput(ctx, km, st, opts.Source, opts.Tags),
		params:   newParamsPanel(km, st, opts.Params),
		tree:     newTreePane(km, st),
		detail:   newDetailPane(km, st),
		status:   &statusBar{st: st, backend: opts.Source.Describe()},
		help:     newHelp(st),
		helpView: newHelpView(km, st),
		why:      newWhyPanel(km),
		sweep:    newSweepView(km, st),
		focus:    focusSeeds,
		run:      &runSlot{},
		form:     render.FormBrowser,
	}
	m.pinned = baselineOf(opts.Pinned, "pinned", opts.PinnedParams, opts.PinnedTags)
	m.prev = baselineOf(opts.Saved, "saved", opts.Params, opts.Tags)
	m.seeds.Focus()
	m.shareNaming()
	m.resize(80, 24)
	return m
}

// Init loads the node list and the tags, and starts a run when seeds were
// given.
func (m *Model) Init() tea.Cmd {
	cmds := []tea.Cmd{m.seeds.Init(), m.tags.Init(), nameKeysCmd(m.ctx, m.source)}
	if m.notice != "" {
		cmds = append(cmds, notify(m.notice))
	}
	if len(m.seeds.Seeds()) > 0 {
		cmds = append(cmds, m.restart())
	}
	return tea.Batch(cmds...)
}

// restart cancels the run in flight and starts one with the current seeds,
// tags and thresholds. Explore runs inside the returned command.
func (m *Model) restart() tea.Cmd {
	m.stopRun()
	m.run.id++
	m.seedsV, m.tagsV = m.seeds.Version(), m.tags.Version()
	seeds, tags, cfg := m.seeds.Seeds(), m.tags.Tags(), m.params.Config()
	m.run.cfg, m.run.tags = cfg, retriever.NormalizeTags(tags)
	if b := newBaseline(m.run.trees, "previous"); b != nil {
		m.prev = b // the run being replaced, when it was complete
	}
	if len(seeds) == 0 {
		m.run.trees = nil
		m.afterTreeChange(true)
		return nil
	}
	ctx, cancel := context.WithCancel(m.ctx)
	m.run.cancel = cancel
	m.run.trees = newResultTrees(seeds)
	m.run.trees.cfg, m.run.trees.tags = cfg, m.run.tags
	m.run.trees.setBase(m.baseline())
	m.afterTreeChange(true)
	return startRunCmd(ctx, m.run.id, m.backend, m.held, cfg, m.runOpts, seeds, tags)
}

// startSweep sweeps the threshold selected in the thresholds panel for the
// current seeds, tags and other thresholds.
func (m *Model) startSweep() tea.Cmd {
	seeds := m.seeds.Seeds()
	if len(seeds) == 0 {
		return notifyErr(errors.New("nothing to sweep: pick a seed first"))
	}
	param := sweepParams[m.params.Selected()]
	cmd := m.sweep.start(m.ctx, m.backend, m.runOpts, m.params.Config(), param, seeds, m.tags.Tags())
	m.push(m.sweep)
	return cmd
}

// stopRun cancels the run in flight, if any.
func (m *Model) stopRun() { m.run.stop() }

// quit cancels all work in flight (the run, a question, a sweep) and ends
// the program.
func (m *Model) quit() tea.Cmd {
	m.closeOverlays()
	m.stopRun()
	return tea.Quit
}

func (m *Model) afterTreeChange(newRun bool) {
	if newRun {
		m.tree.SetTrees(m.run.trees)
	} else {
		m.tree.Changed()
	}
	m.syncDetail()
}

// syncDetail shows the selected node in the detail pane, keeping its scroll
// position while the selection stays on the same row.
func (m *Model) syncDetail() {
	k, _ := m.tree.selectedKey()
	if k != m.selKey {
		m.selKey = k
		m.detail.Show(m.subject())
		return
	}
	m.detail.SetSubject(m.subject())
}

// Update routes messages: run messages by run id, an overlay's messages to
// that overlay, keys to the top overlay if one is open, else by focus.
func (m *Model) Update(msg tea.Msg) (tea.Model, tea.Cmd) {
	switch msg := msg.(type) {
	case tea.WindowSizeMsg:
		m.resize(msg.Width, msg.Height)
	case runStartedMsg:
		if !m.run.current(msg.id) {
			return m, nil
		}
		if msg.err != nil {
			for _, st := range m.run.trees.seeds {
				st.state, st.err = seedFailed, msg.err.Error()
			}
			m.run.trees.version++
			m.afterTreeChange(false)
			return m, notifyErr(msg.err)
		}
		m.run.ch, m.run.heldBefore = msg.ch, msg.held
		return m, nextEventCmd(msg.id, msg.ch, m.held)
	case runEventMsg:
		if !m.run.current(msg.id) || m.run.ch == nil {
			return m, nil // a superseded run: never shown
		}
		m.run.trees.apply(msg.ev)
		m.afterTreeChange(false)
		return m, nextEventCmd(msg.id, m.run.ch, m.held)
	case runClosedMsg:
		if m.run.current(msg.id) {
			m.stopRun()
			if m.held != nil {
				return m, notify(snapshotStatus(m.run.heldBefore, msg.held, m.now(), m.km.Reread.Help().Key))
			}
		}
	case whyDoneMsg, whyTickMsg:
		return m, m.toOverlay(m.why, msg)
	case sweepMsg:
		return m, m.toOverlay(m.sweep, msg)
	case snapshotResetMsg:
		return m, m.restart()
	case nodesLoadedMsg, filterTickMsg:
		return m, m.seeds.Update(msg)
	case tagsLoadedMsg:
		return m, m.tags.Update(msg)
	case nameKeysMsg:
		if msg.err != nil {
			return m, notifyErr(fmt.Errorf("listing the nodes' properties to name them by: %w", msg.err))
		}
		m.names.setKeys(msg.keys)
	case statusMsg, errMsg:
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
		return m.tree.Typing()
	case focusParams:
		return m.params.Typing()
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
	km := m.km
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
		switch {
		case key.Matches(msg, km.Quit):
			return m.quit()
		case key.Matches(msg, km.Help):
			m.openHelp()
			return nil
		case key.Matches(msg, km.NameBy):
			return m.changeNaming()
		case key.Matches(msg, km.Explain):
			m.tree.ToggleExplain()
			m.syncDetail()
			return nil
		case key.Matches(msg, km.Pin):
			return m.togglePin()
		case key.Matches(msg, km.SaveExperiment):
			return m.saveExperiment()
		case key.Matches(msg, km.Sweep):
			return m.startSweep()
		case key.Matches(msg, km.CopyCheck):
			return m.copyCheck()
		case key.Matches(msg, km.CopyForm):
			return m.cycleForm()
		case key.Matches(msg, km.WhyNot) && (m.focus == focusTree || m.focus == focusSeeds):
			return m.askWhy()
		case key.Matches(msg, km.CopyPath):
			return m.copyPath()
		case key.Matches(msg, km.CopyAll):
			return m.copyAll()
		case key.Matches(msg, km.ExportD3):
			return m.export("d3")
		case key.Matches(msg, km.ExportLLM):
			return m.export("llm")
		case key.Matches(msg, km.Reread):
			if s, ok := m.backend.(snapshotter); ok {
				// The run in flight is stopped first: it must neither refill
				// the snapshot after the reset nor report against it.
				m.stopRun()
				m.run.id++
				return resetSnapshotCmd(s)
			}
			return notify("nothing to re-read: this graph is in memory")
		}
	}
	cfg := m.params.Config()
	cmd := m.focused().Update(msg)
	switch m.focus {
	case focusTree:
		m.syncDetail()
	case focusTags:
		m.resize(m.w, m.h) // the chips may need more or fewer lines
	}
	if m.params.Config() != cfg {
		return tea.Batch(cmd, m.restart())
	}
	return m.restartIfInputsChanged(cmd)
}

// restartIfInputsChanged adds a restart to cmd when the seeds or the tags
// changed since the current run started (a key, or leaving a pane with a
// score typed, changed them).
func (m *Model) restartIfInputsChanged(cmd tea.Cmd) tea.Cmd {
	if m.seeds.Version() != m.seedsV || m.tags.Version() != m.tagsV {
		return tea.Batch(cmd, m.restart())
	}
	return cmd
}
