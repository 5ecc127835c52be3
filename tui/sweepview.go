package tui

import (
	"context"
	"fmt"
	"time"

	"github.com/charmbracelet/bubbles/key"
	"github.com/charmbracelet/bubbles/viewport"
	tea "github.com/charmbracelet/bubbletea"
	"github.com/memoria-graph/memoria/internal/textsafe"
	"github.com/memoria-graph/memoria/keymap"
	"github.com/memoria-graph/memoria/render"
	"github.com/memoria-graph/memoria/retriever"
	"github.com/memoria-graph/memoria/retriever/activation"
	"github.com/memoria-graph/memoria/retriever/activation/sweep"
)

// sweepMsg is one update of sweep id: a snapshot of the sweep so far
// (text, the chart and table; line, the progress line), or the last one
// (final), with the sweep's error if it failed or was stopped. Further
// updates come on ch.
type sweepMsg struct {
	id    int
	ch    <-chan sweepMsg
	param sweep.Param
	text  string
	line  string
	final bool
	err   error
}

// sweepView is the overlay that sweeps one threshold for the current seeds
// and tags (docs/ALGORITHM.md, "Sweeps and breakpoints"): the charts of
// paths, nodes reached and summed energy with the current value marked, the
// table of points, each node's bands with its nearest critical values, and
// the non-monotone places (render.SweepText). The sweep runs in a goroutine
// on the run's backend (on Neo4j, the snapshot) with an id and a context,
// and streams: the current value's point first, then the grid, then the
// breakpoints outward from the current value, each snapshot rendered in the
// goroutine and handed over on a channel that keeps only the latest, so a
// slow screen never holds the sweep back. esc stops a running sweep and
// keeps what has arrived; esc again (or s) closes the view. A stale update
// (another sweep started, or the view closed) is dropped.
type sweepView struct {
	km      keymap.KeyMap
	st      *Styles
	vp      viewport.Model
	id      int
	cancel  context.CancelFunc
	param   sweep.Param
	running bool
	stopped bool   // esc stopped it before it finished
	text    string // the latest snapshot's text (render.SweepText)
	line    string // the latest progress line
}

func newSweepView(km keymap.KeyMap, st *Styles) *sweepView {
	return &sweepView{km: km, st: st, vp: newOverlayViewport(km)}
}

// sweepParams maps the thresholds panel's rows to the swept parameter.
var sweepParams = [paramCount]sweep.Param{
	paramDepth: sweep.MaxDepth, paramMinAct: sweep.MinActivation, paramFloor: sweep.TagSimFloor, paramBranches: sweep.MaxBranches,
}

// sweepBudget bounds the explorer's search for breakpoints; the view
// streams meanwhile and esc stops it sooner.
const sweepBudget = 30 * time.Second

// sweepRedraw is the least time between two rendered snapshots: a sweep
// sends one per stretch of breakpoints, often far more than a screen needs.
const sweepRedraw = 80 * time.Millisecond

// start starts the sweep of param over its default range
// (sweep.DefaultRange; for MIN_ACTIVATION with the exact breakpoints) from
// cfg, for copies of seeds and tags, and returns the command that waits
// for its first update. The caller opens the view.
func (v *sweepView) start(parent context.Context, backend activation.Backend, opts activation.Options, cfg activation.Params,
	param sweep.Param, seeds []retriever.Seed, tags []string) tea.Cmd {
	v.stop()
	v.id++
	v.running, v.stopped, v.param, v.text = true, false, param, ""
	v.line = fmt.Sprintf("sweeping %s for %s… (esc stops it and keeps what has arrived)", param, plural(len(seeds), "seed"))
	ctx, cancel := context.WithCancel(parent)
	v.cancel = cancel
	v.vp.SetContent(v.st.Running.Render(v.line))
	v.vp.GotoTop()
	id := v.id
	seeds, tags = append([]retriever.Seed(nil), seeds...), append([]string(nil), tags...)
	ch := make(chan sweepMsg, 1)
	scfg := sweep.Config{Backend: safeBackend{backend}, Params: cfg, Options: opts,
		Seeds: seeds, Tags: tags, Param: param, Breakpoints: param == sweep.MinActivation, Budget: sweepBudget}
	// The sweep starts in the command, not in Update: its goroutine then
	// outlives the command and streams on ch.
	return safeCmd(func() tea.Msg {
		go runSweep(ctx, ch, sweepMsg{id: id, ch: ch, param: param}, scfg)
		return waitSweep(ch)()
	})
}

// runSweep runs the sweep in its own goroutine and publishes its snapshots
// on ch, rendered, keeping only the latest; the last is marked final. It
// ends when the sweep does (the context's cancellation included), and never
// blocks on a reader.
func runSweep(ctx context.Context, ch chan sweepMsg, base sweepMsg, cfg sweep.Config) {
	defer close(ch)
	publish := func(msg sweepMsg) {
		for {
			select {
			case ch <- msg:
				return
			default:
			}
			select {
			case <-ch: // a snapshot nobody took yet: the new one replaces it
			default:
			}
		}
	}
	final := base
	final.final = true
	defer func() {
		if r := recover(); r != nil {
			final.err = fmt.Errorf("internal error in the sweep: %v", r)
			publish(final)
		}
	}()
	from, to, steps := sweep.DefaultRange(cfg.Param)
	values, err := sweep.Grid(cfg.Param, from, to, steps)
	if err != nil {
		final.err = err
		publish(final)
		return
	}
	cfg.Values = values
	var last time.Time
	cfg.Progress = func(s *sweep.Sweep) {
		if !s.Done && len(s.Points) > 1 && time.Since(last) < sweepRedraw {
			return
		}
		last = time.Now()
		msg := base
		msg.text, msg.line, msg.final = render.SweepText(s), sweepLine(s), s.Done
		if s.Done {
			final = msg
		}
		publish(msg)
	}
	if _, err := sweep.Run(ctx, cfg); err != nil {
		final.err = err
		publish(final)
	}
}

// sweepLine is the progress line above the charts.
func sweepLine(s *sweep.Sweep) string {
	state := "sweeping…"
	if s.Done {
		state = "swept"
	}
	line := fmt.Sprintf("%s %s points · %s explorations · %s", state, thousands(len(s.Points)), thousands(s.Explorations), fmtDur(s.Elapsed))
	if ex := render.SweepExactPart(s); ex != "" {
		line += " · " + ex
	}
	if !s.Done {
		line += " (esc stops it and keeps what has arrived)"
	}
	return line
}

// waitSweep waits for the next update of a sweep.
func waitSweep(ch <-chan sweepMsg) tea.Cmd {
	return safeCmd(func() tea.Msg {
		msg, ok := <-ch
		if !ok {
			return nil
		}
		return msg
	})
}

// Update takes the view's keys and the wheel, and its sweep's updates;
// done when a key closes the view.
func (v *sweepView) Update(msg tea.Msg) (bool, tea.Cmd) {
	switch msg := msg.(type) {
	case sweepMsg:
		return false, v.update(msg)
	case tea.KeyMsg:
		return v.key(msg)
	}
	var cmd tea.Cmd
	v.vp, cmd = v.vp.Update(msg)
	return false, cmd
}

// update shows a sweep's snapshot and waits for the next; a stale one
// (another sweep started, or the view closed) is dropped, and its
// goroutine, cancelled, ends on its own.
func (v *sweepView) update(msg sweepMsg) tea.Cmd {
	if msg.id != v.id {
		return nil
	}
	if msg.text != "" {
		v.text, v.line = msg.text, msg.line
		v.show()
	}
	if !msg.final {
		return waitSweep(msg.ch)
	}
	v.stop() // releases the sweep's context
	switch {
	case msg.err != nil && v.stopped:
		v.line = "stopped: " + v.line
		v.show()
		return notify(fmt.Sprintf("stopped the sweep of %s: what had arrived stays", msg.param))
	case msg.err != nil:
		v.vp.SetContent(v.st.Error.Render("sweep failed: " + textsafe.Escape(msg.err.Error())))
		return notifyErr(fmt.Errorf("sweep of %s: %w", msg.param, msg.err))
	}
	return notify(v.line)
}

// show puts the latest snapshot in the viewport, keeping the scroll.
func (v *sweepView) show() {
	off := v.vp.YOffset
	v.vp.SetContent(v.st.Running.Render(v.line) + "\n\n" + v.text)
	v.vp.SetYOffset(off)
}

// stop cancels a sweep in flight.
func (v *sweepView) stop() {
	if v.cancel != nil {
		v.cancel()
		v.cancel = nil
	}
	v.running = false
}

// Close stops the sweep as the view closes.
func (v *sweepView) Close() {
	v.stop()
	v.id++ // whatever is still in flight is stale
}

// key scrolls the view; esc stops a running sweep (keeping what arrived)
// or closes the view (done), and the sweep key closes it.
func (v *sweepView) key(msg tea.KeyMsg) (bool, tea.Cmd) {
	switch {
	case key.Matches(msg, v.km.Cancel) && v.running:
		v.stopped = true
		v.stop()
		return false, nil
	case key.Matches(msg, v.km.Cancel) || key.Matches(msg, v.km.Sweep):
		return true, nil
	}
	var cmd tea.Cmd
	v.vp, cmd = v.vp.Update(msg)
	return false, cmd
}

func (v *sweepView) View() string { return v.vp.View() }

func (v *sweepView) SetSize(w, h int) { v.vp.Width, v.vp.Height = w, h }

func (v *sweepView) ShortHelp() []key.Binding {
	if v.running {
		return []key.Binding{key.NewBinding(key.WithKeys("esc"), key.WithHelp("esc", "stop")), scrollHelp}
	}
	return []key.Binding{closeHelp("esc/s"), scrollHelp}
}

// Title is the overlay's frame title.
func (v *sweepView) Title() string {
	t := "Sweep " + string(v.param)
	switch {
	case v.running:
		return t + " (running) · esc to stop, ↑/↓ to scroll"
	case v.stopped:
		t += " (stopped)"
	}
	return t + " · esc to close, ↑/↓ to scroll"
}
