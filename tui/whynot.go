package tui

import (
	"context"
	"errors"
	"fmt"

	"github.com/charmbracelet/bubbles/key"
	"github.com/charmbracelet/bubbles/spinner"
	"github.com/charmbracelet/bubbles/viewport"
	tea "github.com/charmbracelet/bubbletea"
	"github.com/charmbracelet/lipgloss"
	"github.com/memoria-graph/memoria/internal/textsafe"
	"github.com/memoria-graph/memoria/keymap"
	"github.com/memoria-graph/memoria/render"
	"github.com/memoria-graph/memoria/retriever/activation/why"
)

// whyPanel is the "why (not)" panel (docs/ALGORITHM.md, "Why not X"): w on
// a row of the results tree or of the node list asks why that node is or
// is not in the result for the current seeds, tags and thresholds. The
// answer is computed in a command (why.Explain runs the retriever and reads
// the graph), under a question id and a cancellable context; an answer to
// a question no longer asked is dropped. While the question runs the panel
// shows it with a spinner, which ticks through its own command
// (whyTickMsg) and stops with the question. While open, the panel takes
// the keyboard (esc or w closes it and cancels a question still running,
// arrows scroll, q quits).
type whyPanel struct {
	open   bool
	seq    int // id of the current question
	cancel context.CancelFunc
	node   string
	answer *why.Answer
	err    error
	vp     viewport.Model
	spin   spinner.Model // a new one per question: ticks of an earlier one are ignored
}

// running reports whether the panel waits for its question's answer.
func (w *whyPanel) running() bool { return w.open && w.answer == nil && w.err == nil }

// whyTickMsg is a tick of the panel's spinner.
type whyTickMsg struct{ spinner.TickMsg }

// whyTick turns a spinner command into one whose message is a whyTickMsg.
func whyTick(cmd tea.Cmd) tea.Cmd {
	if cmd == nil {
		return nil
	}
	return func() tea.Msg {
		if t, ok := cmd().(spinner.TickMsg); ok {
			return whyTickMsg{t}
		}
		return nil
	}
}

func newWhyPanel(km keymap.KeyMap) whyPanel {
	vp := viewport.New(0, 0)
	vp.KeyMap = viewport.KeyMap{Up: km.Up, Down: km.Down, PageUp: km.PageUp, PageDown: km.PageDown}
	return whyPanel{vp: vp}
}

// whyDoneMsg carries the answer to question id.
type whyDoneMsg struct {
	id     int
	answer why.Answer
	err    error
}

// whyCmd asks the question inside the command, never in Update, with
// copies of everything it needs.
func whyCmd(ctx context.Context, id int, cfg why.Config) tea.Cmd {
	return safeCmd(func() tea.Msg {
		a, err := why.Explain(ctx, cfg)
		return whyDoneMsg{id: id, answer: a, err: err}
	})
}

// whyTarget is the node the question is about: on the results tree the
// selected row's node (for a losing candidate or a near miss, the
// neighbour it would have reached), on the node list the node under the
// cursor.
func (m *Model) whyTarget() (string, bool) {
	switch m.focus {
	case focusTree:
		if g, _, ok := m.tree.selectedGhost(); ok {
			return g.step.ToNode.ID, true // a node that left: why is it not here now?
		}
		if o, ok := m.tree.selectedLoser(); ok {
			return o.Candidate.NeighborNode.ID, true
		}
		if n, _ := m.tree.selectedNode(); n != nil {
			return n.node.ID, true
		}
	case focusSeeds:
		if n, ok := m.seeds.current(); ok {
			return n.ID, true
		}
	}
	return "", false
}

// askWhy opens the panel and starts the question for the selected node.
func (m *Model) askWhy() tea.Cmd {
	node, ok := m.whyTarget()
	if !ok {
		return notifyErr(errors.New("nothing selected: pick a node in the results or the node list"))
	}
	seeds := m.seeds.Seeds()
	if len(seeds) == 0 {
		return notifyErr(errors.New("why needs seeds: pick one in the node list first"))
	}
	m.closeWhy()
	w := &m.why
	w.seq++
	ctx, cancel := context.WithCancel(m.ctx)
	w.open, w.cancel, w.node, w.answer, w.err = true, cancel, node, nil, nil
	w.spin = spinner.New(spinner.WithSpinner(spinner.MiniDot))
	m.setWhyContent()
	cfg := why.Config{Backend: safeBackend{m.backend}, Params: m.params.Config(), Options: m.runOpts,
		Seeds: seeds, Tags: m.tags.Tags(), NodeID: node} // Seeds and Tags return copies
	return tea.Batch(whyCmd(ctx, w.seq, cfg), whyTick(w.spin.Tick))
}

// whySpin advances the spinner while the question runs; a tick that comes
// after (the answer is in, or the panel closed) ends the ticking.
func (m *Model) whySpin(msg whyTickMsg) tea.Cmd {
	if !m.why.running() {
		return nil
	}
	var cmd tea.Cmd
	m.why.spin, cmd = m.why.spin.Update(msg.TickMsg)
	m.setWhyContent()
	return whyTick(cmd)
}

// closeWhy closes the panel and cancels its question, if any.
func (m *Model) closeWhy() {
	if m.why.cancel != nil {
		m.why.cancel()
		m.why.cancel = nil
	}
	m.why.open = false
}

// whyDone shows an answer, unless its question is no longer the one asked.
func (m *Model) whyDone(msg whyDoneMsg) {
	if msg.id != m.why.seq || !m.why.open {
		return
	}
	if m.why.cancel != nil {
		m.why.cancel() // releases the question's context
		m.why.cancel = nil
	}
	if msg.err != nil {
		m.why.err = msg.err
	} else {
		a := msg.answer
		m.why.answer = &a
	}
	m.setWhyContent()
}

// whyKey handles a key while the panel is open.
func (m *Model) whyKey(msg tea.KeyMsg) tea.Cmd {
	switch {
	case key.Matches(msg, m.km.Cancel), key.Matches(msg, m.km.WhyNot):
		m.closeWhy()
		return nil
	case key.Matches(msg, m.km.Quit):
		m.closeWhy()
		m.stopRun()
		return tea.Quit
	}
	var cmd tea.Cmd
	m.why.vp, cmd = m.why.vp.Update(msg)
	return cmd
}

// resizeWhy gives the panel's viewport the inner size of a w×h box.
func (m *Model) resizeWhy(w, h int) {
	m.why.vp.Width, m.why.vp.Height = m.st.inner(w, h)
	m.setWhyContent()
}

// setWhyContent renders the question's state into the viewport: the
// answer through render.WhyText (ids escaped there), an error or a wait
// message through textsafe.
func (m *Model) setWhyContent() {
	w := &m.why
	var text string
	switch {
	case w.err != nil:
		var u why.UnknownNodeError
		if errors.As(w.err, &u) {
			text = fmt.Sprintf("%s: no node has this id", render.DisplayID(u.ID))
		} else {
			text = "why " + render.DisplayID(w.node) + " failed: " + textsafe.Escape(w.err.Error())
		}
	case w.answer != nil:
		text = render.WhyText(*w.answer)
	default:
		text = w.spin.View() + " why not " + render.DisplayID(w.node) + "? reading the graph… (esc cancels)"
	}
	w.vp.SetContent(lipgloss.NewStyle().Width(max(1, w.vp.Width)).Render(text))
}

// whyBox draws the open panel over the body.
func (m *Model) whyBox(w, h int) string {
	title := "Why (not) " + render.DisplayID(m.why.node) + " · esc or w to close, ↑/↓ to scroll"
	return m.st.Box(title, m.why.vp.View(), w, h, true)
}
