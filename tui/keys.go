package tui

import (
	"errors"
	"fmt"

	"github.com/charmbracelet/bubbles/key"
	tea "github.com/charmbracelet/bubbletea"
	"github.com/memoria-graph/memoria/keymap"
	"github.com/memoria-graph/memoria/tui/common"
)

// rootCommand is a key the root takes before the focused pane (when no
// text is being typed): its binding, where it applies, why it is refused
// (keymap.Command), and what it does.
type rootCommand = keymap.Command[*Model, tea.Cmd]

// errOnlyActivation is the refusal of every key that needs the ranking
// retrievers on a source that cannot serve them (Options.Neighbourhood
// nil: no graph reads but Activation Energy's).
var errOnlyActivation = errors.New("only activation can run here: this source offers no graph reads for the other retrievers")

// needsReads refuses a key that needs the ranking retrievers' graph reads.
func needsReads(m *Model, _ key.Binding) string {
	if m.runs.nb == nil {
		return errOnlyActivation.Error()
	}
	return ""
}

// oneShown refuses, in the compare view, a key of one retriever's results.
func oneShown(m *Model, b key.Binding) string {
	if m.comparing() {
		return fmt.Sprintf("%s (%s) works with one retriever shown; %s picks one", b.Help().Key, b.Help().Desc, m.KM.PickRetrievers.Help().Key)
	}
	return ""
}

// activationOnly refuses a key of Activation Energy's results while
// another retriever's are shown (or the compare view).
func activationOnly(m *Model, b key.Binding) string {
	if why := oneShown(m, b); why != "" {
		return why
	}
	if m.ranks() {
		return fmt.Sprintf("%s (%s) works with the activation retriever; %s switches", b.Help().Key, b.Help().Desc, m.KM.Retriever.Help().Key)
	}
	return ""
}

// sweepable refuses s where activationOnly would, but with a ranking
// retriever shown and a query set, whose parameter's held-out curve it
// draws.
func sweepable(m *Model, b key.Binding) string {
	if m.ranks() && !m.comparing() && m.ov.sweep.HasQueries() {
		return ""
	}
	return activationOnly(m, b)
}

// focusIn is a Command's When: the key applies while one of fs has the
// keyboard.
func focusIn(fs ...focus) func(*Model) bool {
	return func(m *Model) bool {
		for _, f := range fs {
			if m.focus == f {
				return true
			}
		}
		return false
	}
}

// rootCommands are the root's keys, in the order they are tried (the
// first that matches and applies takes the key). w means two things: in
// the compare view, on the table or the detail, it asks every compared
// retriever (askCompareWhy); on the seeds or Activation Energy's tree it
// asks Activation Energy (askWhy).
func (m *Model) rootCommands() []rootCommand {
	km := m.KM
	only := func(b key.Binding, run func(*Model) tea.Cmd) rootCommand {
		return rootCommand{Binding: b, Disabled: activationOnly, Run: run}
	}
	do := func(b key.Binding, run func(*Model) tea.Cmd) rootCommand { return rootCommand{Binding: b, Run: run} }
	return []rootCommand{
		do(km.ExportPage, (*Model).exportPage),
		{Binding: km.WhyNot, When: func(m *Model) bool { return m.comparing() && focusIn(focusTree, focusDetail)(m) }, Run: (*Model).askCompareWhy},
		{Binding: km.WhyNot, When: focusIn(focusTree, focusSeeds), Disabled: activationOnly, Run: (*Model).askWhy},
		{Binding: km.CopyPath, Disabled: oneShown, Run: (*Model).copyShown},
		{Binding: km.CopyAll, Disabled: oneShown, Run: (*Model).copyAllShown},
		only(km.Explain, (*Model).toggleExplain),
		only(km.Pin, (*Model).togglePin),
		only(km.SaveExperiment, (*Model).saveExperiment),
		{Binding: km.Sweep, Disabled: sweepable, Run: (*Model).startSweep},
		only(km.CopyCheck, (*Model).copyCheck),
		only(km.ExportD3, func(m *Model) tea.Cmd { return m.export("d3") }),
		only(km.ExportLLM, func(m *Model) tea.Cmd { return m.export("llm") }),
		only(km.Reread, (*Model).reread),
		{Binding: km.Mark, When: focusIn(focusTree, focusSeeds), Run: (*Model).toggleMark},
		{Binding: km.Retriever, Disabled: needsReads, Run: (*Model).switchRetriever},
		{Binding: km.PickRetrievers, Disabled: needsReads, Run: (*Model).openPicker},
		do(km.Quit, (*Model).quit),
		do(km.Help, (*Model).openHelp),
		do(km.NameBy, (*Model).changeNaming),
		do(km.Stats, (*Model).openStats),
		{Binding: km.Ask, Disabled: noGather, Run: (*Model).openQuery},
		do(km.CopyForm, (*Model).cycleForm),
	}
}

// refuse shows a command's reason for refusing on the status line.
func refuse(reason string) tea.Cmd { return common.NotifyErr(errors.New(reason)) }

// commandKey gives msg to the root's commands; ok is false when none took
// it.
func (m *Model) commandKey(msg tea.KeyMsg) (tea.Cmd, bool) {
	return keymap.Dispatch(m, msg, m.rootCommands(), refuse)
}

// copyShown copies the selected path's Cypher (Activation Energy) or the
// selected hit's (a ranking retriever).
func (m *Model) copyShown() tea.Cmd {
	if m.ranks() {
		return m.copyRoute()
	}
	return m.copyPath()
}

// copyAllShown copies every path's Cypher, or every hit's route.
func (m *Model) copyAllShown() tea.Cmd {
	if m.ranks() {
		return m.copyAllRoutes()
	}
	return m.copyAll()
}

// toggleExplain shows or hides the losing candidates.
func (m *Model) toggleExplain() tea.Cmd {
	m.tree.ToggleExplain()
	m.syncDetail()
	return nil
}

// reread forgets the Neo4j snapshot and runs again (a graph in memory has
// nothing to re-read).
func (m *Model) reread() tea.Cmd {
	if s, ok := m.runs.backend.(snapshotter); ok {
		// The run in flight is stopped first: it must neither refill the
		// snapshot after the reset nor report against it.
		m.actRun().stop()
		m.actRun().id++
		return resetSnapshotCmd(s)
	}
	return common.Notify("nothing to re-read: this graph is in memory")
}
