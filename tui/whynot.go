package tui

import (
	"context"
	"errors"

	"github.com/charmbracelet/bubbles/key"
	"github.com/charmbracelet/bubbles/spinner"
	"github.com/charmbracelet/bubbles/viewport"
	tea "github.com/charmbracelet/bubbletea"
	"github.com/charmbracelet/lipgloss"
	"github.com/memoria-graph/memoria/internal/textsafe"
	"github.com/memoria-graph/memoria/render"
	"github.com/memoria-graph/memoria/retriever/activation/why"
	"github.com/memoria-graph/memoria/retriever/rankwhy"
	"github.com/memoria-graph/memoria/tui/common"
)

// whyPanel is the "why (not)" panel (docs/ALGORITHM.md, "Why not X"), an
// overlay: w on a row of the results tree or of the node list asks why
// that node is or is not in the result for the current seeds, tags and
// thresholds. The answer is computed in a command (why.Explain runs the
// retriever and reads the graph), under a question id and a cancellable
// context; an answer to a question no longer asked is dropped (the root
// drops every answer once the panel is closed). While the question runs
// the panel shows it with a spinner, which ticks through its own command
// (whyTickMsg) and stops with the question. On top, the panel takes the
// keyboard: esc or w closes it and cancels a question still running,
// arrows scroll.
type whyPanel struct {
	*Common
	seq    int                // id of the current question
	cancel context.CancelFunc // set while the question runs
	node   string
	answer *why.Answer
	// ranked is the compare view's answer: each retriever's verdict
	// (asked through start and rankWhyCmd).
	ranked []rankwhy.Answer
	err    error
	vp     viewport.Model
	spin   spinner.Model // a new one per question: ticks of an earlier one are ignored
}

// running reports whether the panel waits for its question's answer.
func (w *whyPanel) running() bool { return w.cancel != nil }

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

func newWhyPanel(c *Common) *whyPanel {
	return &whyPanel{Common: c, vp: newOverlayViewport(c.KM)}
}

// whyDoneMsg carries the answer to question id.
type whyDoneMsg struct {
	id     int
	answer why.Answer
	// ranked and rankedAsked carry the compare view's answer instead.
	ranked      []rankwhy.Answer
	rankedAsked bool
	err         error
}

// whyCmd asks the question inside the command, never in Update, with
// copies of everything it needs.
func whyCmd(ctx context.Context, id int, cfg why.Config) tea.Cmd {
	return common.SafeCmd(func() tea.Msg {
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
		if n, ok := m.seeds.Current(); ok {
			return n.ID, true
		}
	}
	return "", false
}

// askWhy asks about the selected node and opens the panel on top.
func (m *Model) askWhy() tea.Cmd {
	node, ok := m.whyTarget()
	if !ok {
		return common.NotifyErr(errors.New("nothing selected: pick a node in the results or the node list"))
	}
	seeds := m.seeds.Seeds()
	if len(seeds) == 0 {
		return common.NotifyErr(errors.New("why needs seeds: pick one in the node list first"))
	}
	cfg := why.Config{Backend: safeBackend{m.runs.backend}, Params: m.params.Config(), Options: m.runs.opts,
		Seeds: seeds, Tags: m.tags.Tags(), NodeID: node} // Seeds and Tags return copies
	cmd := m.ov.why.ask(m.Ctx, cfg)
	m.push(m.ov.why)
	return cmd
}

// ask cancels the question running, if any, and starts one about
// cfg.NodeID under a new id.
func (w *whyPanel) ask(parent context.Context, cfg why.Config) tea.Cmd {
	return w.start(parent, cfg.NodeID, func(ctx context.Context, id int) tea.Cmd { return whyCmd(ctx, id, cfg) })
}

// start cancels the question running, if any, and starts the one ask
// builds (its command, under ctx and the new id) about node.
func (w *whyPanel) start(parent context.Context, node string, ask func(ctx context.Context, id int) tea.Cmd) tea.Cmd {
	w.Close()
	w.seq++
	ctx, cancel := context.WithCancel(parent)
	w.cancel, w.node, w.answer, w.ranked, w.err = cancel, node, nil, nil, nil
	w.spin = spinner.New(spinner.WithSpinner(spinner.MiniDot))
	w.setContent()
	return tea.Batch(ask(ctx, w.seq), whyTick(w.spin.Tick))
}

// Update takes the panel's keys (esc or w closes it, arrows scroll), the
// wheel, its answers and its spinner's ticks.
func (w *whyPanel) Update(msg tea.Msg) (bool, tea.Cmd) {
	switch msg := msg.(type) {
	case whyDoneMsg:
		w.done(msg)
		return false, nil
	case whyTickMsg:
		return false, w.tick(msg)
	case tea.KeyMsg:
		if key.Matches(msg, w.KM.Cancel) || key.Matches(msg, w.KM.WhyNot) {
			return true, nil
		}
	}
	var cmd tea.Cmd
	w.vp, cmd = w.vp.Update(msg)
	return false, cmd
}

// tick advances the spinner while the question runs; a tick that comes
// after (the answer is in, or the panel closed) ends the ticking.
func (w *whyPanel) tick(msg whyTickMsg) tea.Cmd {
	if !w.running() {
		return nil
	}
	var cmd tea.Cmd
	w.spin, cmd = w.spin.Update(msg.TickMsg)
	w.setContent()
	return whyTick(cmd)
}

// Close cancels the question, if it still runs.
func (w *whyPanel) Close() {
	if w.cancel != nil {
		w.cancel()
		w.cancel = nil
	}
}

// done shows an answer, unless its question is no longer the one asked.
func (w *whyPanel) done(msg whyDoneMsg) {
	if msg.id != w.seq {
		return
	}
	w.Close() // releases the question's context
	switch {
	case msg.err != nil:
		w.err = msg.err
	case msg.rankedAsked:
		w.ranked = msg.ranked
		if w.ranked == nil {
			w.ranked = []rankwhy.Answer{}
		}
	default:
		a := msg.answer
		w.answer = &a
	}
	w.setContent()
}

// SetSize sizes the viewport and wraps the text again.
func (w *whyPanel) SetSize(width, height int) {
	w.vp.Width, w.vp.Height = width, height
	w.setContent()
}

// setContent renders the question's state into the viewport: the
// answer through render.WhyText (ids escaped there), an error or a wait
// message through textsafe.
func (w *whyPanel) setContent() {
	var text string
	switch {
	case w.err != nil:
		if t, ok := noNodeText(w.err); ok {
			text = t
		} else {
			text = "why " + render.DisplayID(w.node) + " failed: " + textsafe.Escape(w.err.Error())
		}
	case w.ranked != nil:
		text = rankedWhyText(w.node, w.ranked)
	case w.answer != nil:
		text = render.WhyText(*w.answer)
	default:
		text = w.spin.View() + " why not " + render.DisplayID(w.node) + "? reading the graph… (esc cancels)"
	}
	w.vp.SetContent(lipgloss.NewStyle().Width(max(1, w.vp.Width)).Render(text))
}

func (w *whyPanel) Title() string {
	return "Why (not) " + render.DisplayID(w.node) + " · esc or w to close, ↑/↓ to scroll"
}

func (w *whyPanel) View() string { return w.vp.View() }

func (w *whyPanel) ShortHelp() []key.Binding { return []key.Binding{closeHelp("esc/w"), scrollHelp} }
