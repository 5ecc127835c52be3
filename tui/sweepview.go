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

// sweepDoneMsg carries a finished sweep (or its error) for sweep id.
type sweepDoneMsg struct {
	id      int
	param   sweep.Param
	text    string
	points  int
	elapsed time.Duration
	err     error
}

// sweepView is the overlay that sweeps one threshold for the current seeds
// and tags (docs/ALGORITHM.md, "Sweeps and breakpoints"): the charts of
// paths, nodes reached and summed energy with the current value marked, the
// table of points, each node's bands with its nearest critical values, and
// the non-monotone places (render.SweepText). The sweep runs in a command
// on the run's backend (on Neo4j, the snapshot), with an id and a context:
// closing the view or starting another sweep cancels it, and a stale result
// is dropped.
type sweepView struct {
	km      keymap.KeyMap
	st      *Styles
	vp      viewport.Model
	open    bool
	id      int
	cancel  context.CancelFunc
	param   sweep.Param
	running bool
	text    string // the finished sweep's text (render.SweepText)
}

func newSweepView(km keymap.KeyMap, st *Styles) *sweepView {
	vp := viewport.New(0, 0)
	vp.KeyMap = viewport.KeyMap{Up: km.Up, Down: km.Down, PageUp: km.PageUp, PageDown: km.PageDown}
	return &sweepView{km: km, st: st, vp: vp}
}

// sweepParams maps the thresholds panel's rows to the swept parameter.
var sweepParams = [paramCount]sweep.Param{
	paramDepth: sweep.MaxDepth, paramMinAct: sweep.MinActivation, paramFloor: sweep.TagSimFloor, paramBranches: sweep.MaxBranches,
}

// start opens the view and returns the command that sweeps param over its
// default range (sweep.DefaultRange; for MIN_ACTIVATION with the exact
// breakpoints) from cfg, for copies of seeds and tags.
func (v *sweepView) start(parent context.Context, backend activation.Backend, opts activation.Options, cfg activation.Params,
	param sweep.Param, seeds []retriever.Seed, tags []string) tea.Cmd {
	v.stop()
	v.id++
	v.open, v.running, v.param, v.text = true, true, param, ""
	ctx, cancel := context.WithCancel(parent)
	v.cancel = cancel
	v.vp.SetContent(v.st.Running.Render(fmt.Sprintf("sweeping %s for %s… (esc closes and stops it)", param, plural(len(seeds), "seed"))))
	v.vp.GotoTop()
	id := v.id
	seeds, tags = append([]retriever.Seed(nil), seeds...), append([]string(nil), tags...)
	return safeCmd(func() tea.Msg {
		start := time.Now()
		from, to, steps := sweep.DefaultRange(param)
		values, err := sweep.Grid(param, from, to, steps)
		if err != nil {
			return sweepDoneMsg{id: id, param: param, err: err}
		}
		s, err := sweep.Run(ctx, sweep.Config{Backend: safeBackend{backend}, Params: cfg, Options: opts, Seeds: seeds, Tags: tags,
			Param: param, Values: values, Breakpoints: param == sweep.MinActivation})
		if err != nil {
			return sweepDoneMsg{id: id, param: param, err: err}
		}
		return sweepDoneMsg{id: id, param: param, text: render.SweepText(s), points: len(s.Points), elapsed: time.Since(start)}
	})
}

// done shows a finished sweep; a stale one (another sweep started, or the
// view closed) is dropped.
func (v *sweepView) done(msg sweepDoneMsg) tea.Cmd {
	if msg.id != v.id || !v.open {
		return nil
	}
	v.stop() // releases the sweep's context
	if msg.err != nil {
		v.vp.SetContent(v.st.Error.Render("sweep failed: " + textsafe.Escape(msg.err.Error())))
		return notifyErr(fmt.Errorf("sweep of %s: %w", msg.param, msg.err))
	}
	v.text = msg.text
	v.vp.SetContent(msg.text)
	return notify(fmt.Sprintf("swept %s: %d points in %s", msg.param, msg.points, fmtDur(msg.elapsed)))
}

// stop cancels a sweep in flight.
func (v *sweepView) stop() {
	if v.cancel != nil {
		v.cancel()
		v.cancel = nil
	}
	v.running = false
}

// close hides the view and stops its sweep.
func (v *sweepView) close() {
	v.stop()
	v.open = false
	v.id++ // whatever is still in flight is stale
}

// key scrolls the view; esc or the sweep key closes it.
func (v *sweepView) key(msg tea.KeyMsg) tea.Cmd {
	if key.Matches(msg, v.km.Cancel) || key.Matches(msg, v.km.Sweep) {
		v.close()
		return nil
	}
	var cmd tea.Cmd
	v.vp, cmd = v.vp.Update(msg)
	return cmd
}

// title is the overlay's frame title.
func (v *sweepView) title() string {
	t := "Sweep " + string(v.param)
	if v.running {
		t += " (running)"
	}
	return t + " · esc to close, ↑/↓ to scroll"
}
