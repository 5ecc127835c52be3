// Package whypanel is the explorer's "why (not)" panel, the overlay w
// opens (docs/ALGORITHM.md, "Why not X"; docs/EXPLORER.md): the answer of
// Activation Energy's why-not (Ask) or the compare view's verdicts of each
// retriever (Start with the question's command), asked in a command under
// a question id and a cancellable context, a stale answer dropped. The
// root reads it through its methods and hands it its messages (DoneMsg,
// TickMsg).
package whypanel

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/charmbracelet/bubbles/key"
	"github.com/charmbracelet/bubbles/spinner"
	"github.com/charmbracelet/bubbles/viewport"
	tea "github.com/charmbracelet/bubbletea"
	"github.com/charmbracelet/lipgloss"
	"github.com/memoria-graph/memoria/internal/textsafe"
	"github.com/memoria-graph/memoria/keymap"
	"github.com/memoria-graph/memoria/render"
	"github.com/memoria-graph/memoria/retriever/activation/why"
	"github.com/memoria-graph/memoria/retriever/rankwhy"
	"github.com/memoria-graph/memoria/tui/common"
)

// Panel is the "why (not)" panel (docs/ALGORITHM.md, "Why not X"), an
// overlay: w on a row of the results tree or of the node list asks why
// that node is or is not in the result for the current seeds, tags and
// thresholds. The answer is computed in a command (why.Explain runs the
// retriever and reads the graph), under a question id and a cancellable
// context; an answer to a question no longer asked is dropped (the root
// drops every answer once the panel is closed). While the question runs
// the panel shows it with a spinner, which ticks through its own command
// (TickMsg) and stops with the question. On top, the panel takes the
// keyboard: esc or w closes it and cancels a question still running,
// arrows scroll.
type Panel struct {
	*common.Common
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
	// gathered says whether a node was gathered (SetGathered), and
	// gatheredText is its answer for the current question.
	gathered     func(nodeID string) string
	gatheredText string
}

// running reports whether the panel waits for its question's answer.
func (w *Panel) running() bool { return w.cancel != nil }

// TickMsg is a tick of the panel's spinner.
type TickMsg struct{ spinner.TickMsg }

// whyTick turns a spinner command into one whose message is a TickMsg.
func whyTick(cmd tea.Cmd) tea.Cmd {
	if cmd == nil {
		return nil
	}
	return func() tea.Msg {
		if t, ok := cmd().(spinner.TickMsg); ok {
			return TickMsg{t}
		}
		return nil
	}
}

func New(c *common.Common) *Panel {
	return &Panel{Common: c, vp: common.NewViewport(c.KM)}
}

// DoneMsg carries the answer to question id.
type DoneMsg struct {
	ID     int
	Answer why.Answer
	// Ranked and RankedAsked carry the compare view's answer instead.
	Ranked      []rankwhy.Answer
	RankedAsked bool
	Err         error
	// Gathered says first whether the node was gathered by the question
	// the seeds came from ("" when they did not come from one).
	Gathered string
}

// SetGathered sets how the panel's later questions say whether their node
// was gathered (the query line's AppliedMsg.Gathered); nil when the seeds
// no longer come from a question. It runs in the question's command.
func (w *Panel) SetGathered(f func(nodeID string) string) { w.gathered = f }

// whyCmd asks the question inside the command, never in Update, with
// copies of everything it needs.
func whyCmd(ctx context.Context, id int, cfg why.Config) tea.Cmd {
	return common.SafeCmd(func() tea.Msg {
		a, err := why.Explain(ctx, cfg)
		return DoneMsg{ID: id, Answer: a, Err: err}
	})
}

// Ask cancels the question running, if any, and starts one about
// cfg.NodeID under a new id.
func (w *Panel) Ask(parent context.Context, cfg why.Config) tea.Cmd {
	return w.Start(parent, cfg.NodeID, func(ctx context.Context, id int) tea.Cmd { return whyCmd(ctx, id, cfg) })
}

// Start cancels the question running, if any, and starts the one ask
// builds (its command, under ctx and the new id) about node.
func (w *Panel) Start(parent context.Context, node string, ask func(ctx context.Context, id int) tea.Cmd) tea.Cmd {
	w.Close()
	w.seq++
	ctx, cancel := context.WithCancel(parent)
	w.cancel, w.node, w.answer, w.ranked, w.err = cancel, node, nil, nil, nil
	w.spin = spinner.New(spinner.WithSpinner(spinner.MiniDot))
	w.gatheredText = ""
	w.setContent()
	cmd := ask(ctx, w.seq)
	if g, inner := w.gathered, cmd; g != nil && inner != nil {
		cmd = common.SafeCmd(func() tea.Msg {
			msg := inner()
			if d, ok := msg.(DoneMsg); ok {
				d.Gathered = g(node)
				return d
			}
			return msg
		})
	}
	return tea.Batch(cmd, whyTick(w.spin.Tick))
}

// Update takes the panel's keys (esc or w closes it, arrows scroll), the
// wheel, its answers and its spinner's ticks.
func (w *Panel) Update(msg tea.Msg) (bool, tea.Cmd) {
	switch msg := msg.(type) {
	case DoneMsg:
		w.done(msg)
		return false, nil
	case TickMsg:
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
func (w *Panel) tick(msg TickMsg) tea.Cmd {
	if !w.running() {
		return nil
	}
	var cmd tea.Cmd
	w.spin, cmd = w.spin.Update(msg.TickMsg)
	w.setContent()
	return whyTick(cmd)
}

// Close cancels the question, if it still runs.
func (w *Panel) Close() {
	if w.cancel != nil {
		w.cancel()
		w.cancel = nil
	}
}

// done shows an answer, unless its question is no longer the one asked.
func (w *Panel) done(msg DoneMsg) {
	if msg.ID != w.seq {
		return
	}
	w.Close() // releases the question's context
	w.gatheredText = msg.Gathered
	switch {
	case msg.Err != nil:
		w.err = msg.Err
	case msg.RankedAsked:
		w.ranked = msg.Ranked
		if w.ranked == nil {
			w.ranked = []rankwhy.Answer{}
		}
	default:
		a := msg.Answer
		w.answer = &a
	}
	w.setContent()
}

// SetSize sizes the viewport and wraps the text again.
func (w *Panel) SetSize(width, height int) {
	w.vp.Width, w.vp.Height = width, height
	w.setContent()
}

// setContent renders the question's state into the viewport: the
// answer through render.WhyText (ids escaped there), an error or a wait
// message through textsafe.
func (w *Panel) setContent() {
	var text string
	switch {
	case w.err != nil:
		if t, ok := NoNodeText(w.err); ok {
			text = t
		} else {
			text = "why " + render.DisplayID(w.node) + " failed: " + textsafe.Escape(w.err.Error())
		}
	case w.ranked != nil:
		text = RankedText(w.node, w.ranked)
	case w.answer != nil:
		text = render.WhyText(*w.answer)
	default:
		text = w.spin.View() + " why not " + render.DisplayID(w.node) + "? reading the graph… (esc cancels)"
	}
	w.vp.SetContent(lipgloss.NewStyle().Width(max(1, w.vp.Width)).Render(w.gatheredText + text))
}

func (w *Panel) Title() string {
	return "Why (not) " + render.DisplayID(w.node) + " · esc or w to close, ↑/↓ to scroll"
}

func (w *Panel) View() string { return w.vp.View() }

func (w *Panel) ShortHelp() []key.Binding {
	return []key.Binding{keymap.CloseHelp("esc/w"), keymap.ScrollHelp}
}

// RankedText is the compare view's answer: each retriever's verdict
// (render.RankingWhyText, ids escaped there), one after another.
func RankedText(node string, as []rankwhy.Answer) string {
	if len(as) == 0 {
		return "every retriever has " + render.DisplayID(node)
	}
	parts := make([]string, len(as))
	for i, a := range as {
		parts[i] = render.RankingWhyText(a)
	}
	return strings.Join(parts, "\n")
}

// NoNodeText says a why question's node is not in the graph.
func NoNodeText(err error) (string, bool) {
	var u why.UnknownNodeError
	if errors.As(err, &u) {
		return fmt.Sprintf("%s: no node has this id", render.DisplayID(u.ID)), true
	}
	var n *rankwhy.NoNodeError
	if errors.As(err, &n) {
		return n.Error(), true // the id through render.DisplayID
	}
	return "", false
}

// What the root and the tests read of the panel.

// Running reports whether the panel waits for its question's answer.
func (w *Panel) Running() bool { return w.running() }

// Node is the node asked about; Seq the current question's id.
func (w *Panel) Node() string { return w.node }
func (w *Panel) Seq() int     { return w.seq }

// Answer is Activation Energy's answer (nil until in), Ranked the compare
// view's verdicts (nil until in), Err the question's failure.
func (w *Panel) Answer() *why.Answer      { return w.answer }
func (w *Panel) Ranked() []rankwhy.Answer { return w.ranked }
func (w *Panel) Err() error               { return w.err }

// Spinner is the question's spinner (a tick of an earlier one is ignored).
func (w *Panel) Spinner() spinner.Model { return w.spin }
