package tui

import (
	"context"
	"fmt"
	"time"

	"github.com/charmbracelet/bubbles/key"
	"github.com/charmbracelet/bubbles/viewport"
	tea "github.com/charmbracelet/bubbletea"
	"github.com/memoria-graph/memoria/internal/textsafe"
	"github.com/memoria-graph/memoria/render"
	"github.com/memoria-graph/memoria/retriever"
	"github.com/memoria-graph/memoria/retriever/activation"
	"github.com/memoria-graph/memoria/retriever/activation/sweep"
	"github.com/memoria-graph/memoria/retriever/eval"
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
	// scores are each point's recall and nDCG against the relevance
	// marks, on the last update of a sweep started with marks.
	scores []sweepScore
}

// sweepScore is one point's ranking measured against the relevance marks
// (marks.go): recall@markK and nDCG@markK of Activation Energy's run at
// that value projected as a ranking (activation.Ranking).
type sweepScore struct {
	value, recall, ndcg float64
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
	*Common
	vp      viewport.Model
	id      int
	cancel  context.CancelFunc
	param   sweep.Param
	running bool
	stopped bool   // esc stopped it before it finished
	text    string // the latest snapshot's text (render.SweepText)
	line    string // the latest progress line
	// scores are the points' recall and nDCG against the marks the sweep
	// started with (none without marks).
	scores []sweepScore
}

func newSweepView(c *Common) *sweepView {
	return &sweepView{Common: c, vp: newOverlayViewport(c.km)}
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
// for its first update. The caller opens the view. With relevance marks
// (a copy, node id → grade), once the sweep is done each point's ranking
// is measured against them in the same goroutine and recall and nDCG are
// charted beside paths and nodes.
func (v *sweepView) start(parent context.Context, backend activation.Backend, opts activation.Options, cfg activation.Params,
	param sweep.Param, seeds []retriever.Seed, tags []string, marks map[string]int) tea.Cmd {
	v.stop()
	v.id++
	v.running, v.stopped, v.param, v.text, v.scores = true, false, param, "", nil
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
	width := v.vp.Width // the charts fill the pane
	// The sweep starts in the command, not in Update: its goroutine then
	// outlives the command and streams on ch.
	return safeCmd(func() tea.Msg {
		go runSweep(ctx, ch, sweepMsg{id: id, ch: ch, param: param}, scfg, marks, width)
		return waitSweep(ch)()
	})
}

// runSweep runs the sweep in its own goroutine and publishes its snapshots
// on ch, rendered, keeping only the latest; the last is marked final. With
// marks, the last comes after each point is measured against them
// (scoreSweep). It ends when the sweep does (the context's cancellation
// included), and never blocks on a reader. The charts fill width columns.
func runSweep(ctx context.Context, ch chan sweepMsg, base sweepMsg, cfg sweep.Config, marks map[string]int, width int) {
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
		msg.text, msg.line, msg.final = render.SweepTextWith(s, width), sweepLine(s), s.Done
		if s.Done {
			final = msg
			if len(marks) > 0 {
				msg.final = false // the scores follow
				msg.line += fmt.Sprintf(" · measuring each point against %s…", plural(len(marks), "mark"))
			}
		}
		publish(msg)
	}
	s, err := sweep.Run(ctx, cfg)
	if err == nil && len(marks) > 0 {
		final, err = scoreSweep(ctx, s, cfg, marks, final, width)
	}
	if err != nil {
		final.err = err
		publish(final)
		return
	}
	if len(marks) > 0 {
		publish(final)
	}
}

// scoreSweep measures each point of the finished sweep s against the marks:
// the point's results (Sweep.Replay, which explores again only where a
// seed's result changes) projected as a ranking (activation.Ranking), its
// recall@markK and nDCG@markK (retriever/eval). final, the sweep's last
// update, comes back with the scores and with recall and nDCG charted
// after the sweep's own charts (render.SweepTextWith).
func scoreSweep(ctx context.Context, s *sweep.Sweep, cfg sweep.Config, marks map[string]int, final sweepMsg, width int) (sweepMsg, error) {
	tags := retriever.NormalizeTags(cfg.Tags)
	scores := make([]sweepScore, 0, len(s.Points))
	err := s.Replay(ctx, func(p sweep.Point, results []activation.Result) error {
		params, err := s.Param.Set(cfg.Params, p.Value)
		if err != nil {
			return err
		}
		hits := activation.Ranking(results, params, tags).Hits
		ids := make([]string, len(hits))
		for i, h := range hits {
			ids[i] = h.NodeID
		}
		scores = append(scores, sweepScore{value: p.Value, recall: eval.Recall(ids, marks, markK), ndcg: eval.NDCG(ids, marks, markK)})
		return nil
	})
	if err != nil {
		return final, fmt.Errorf("measuring the points against the marks: %w", err)
	}
	recall, ndcg := make([]float64, len(scores)), make([]float64, len(scores))
	for i, sc := range scores {
		recall[i], ndcg[i] = sc.recall, sc.ndcg
	}
	final.final, final.scores = true, scores
	final.text = render.SweepTextWith(s, width,
		render.SweepSeries{Name: fmt.Sprintf("recall@%d against %s", markK, plural(len(marks), "mark")), Values: recall},
		render.SweepSeries{Name: fmt.Sprintf("nDCG@%d", markK), Values: ndcg})
	final.line += fmt.Sprintf(" · recall@%d and nDCG@%d against %s charted", markK, markK, plural(len(marks), "mark"))
	return final, nil
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
		v.text, v.line, v.scores = msg.text, msg.line, msg.scores
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
