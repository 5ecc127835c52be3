// Package sweepview is the explorer's sweep overlay (s on the thresholds
// panel, docs/EXPLORER.md "Sweep"): one threshold swept for the current
// seeds and tags in a goroutine, streamed, charted, stopped with esc. The
// root starts it (Start) and hands it its messages (Msg); it reads nothing
// of the root and the root none of its fields.
package sweepview

import (
	"context"
	"fmt"
	"strings"
	"time"

	"github.com/charmbracelet/bubbles/key"
	"github.com/charmbracelet/bubbles/viewport"
	tea "github.com/charmbracelet/bubbletea"
	"github.com/charmbracelet/x/ansi"
	"github.com/memoria-graph/memoria/internal/textsafe"
	"github.com/memoria-graph/memoria/keymap"
	"github.com/memoria-graph/memoria/render"
	"github.com/memoria-graph/memoria/retriever"
	"github.com/memoria-graph/memoria/retriever/activation"
	"github.com/memoria-graph/memoria/retriever/activation/sweep"
	"github.com/memoria-graph/memoria/retriever/eval"
	"github.com/memoria-graph/memoria/tui/common"
)

// Msg is one update of sweep id: a snapshot of the sweep so far
// (text, the chart and table; line, the progress line), or the last one
// (final), with the sweep's error if it failed or was stopped. Further
// updates come on ch.
type Msg struct {
	ID    int
	ch    <-chan Msg
	Param sweep.Param
	Text  string
	line  string
	Final bool
	err   error
	// scores are each point's recall and nDCG against the relevance
	// marks, on the last update of a sweep started with marks.
	scores []Score
	// heldOut is the query set's tuning, on the last update of a sweep
	// started with one (QuerySet).
	heldOut *render.Tune
}

// Score is one point's ranking measured against the relevance marks
// (marks.go): recall@common.MarkK and nDCG@common.MarkK of Activation Energy's run at
// that value projected as a ranking (activation.Ranking).
type Score struct {
	Value, Recall, NDCG float64
}

// Model is the overlay that sweeps one threshold for the current seeds
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
// (another sweep started, or the view closed) is dropped. With a query set
// (--queries) the same goroutine then draws the held-out curve over it,
// which heads the view (heldout.go); StartHeldOut draws it alone, for a
// ranking retriever's parameter.
type Model struct {
	*common.Common
	vp      viewport.Model
	id      int
	cancel  context.CancelFunc
	running bool
	stopped bool   // esc stopped it before it finished
	text    string // the latest snapshot's text (render.SweepText)
	line    string // the latest progress line
	// scores are the points' recall and nDCG against the marks the sweep
	// started with (none without marks).
	scores []Score
	// set is the query set every sweep also measures (QuerySet), and
	// heldOut the latest sweep's tuning over it.
	set     QuerySet
	heldOut *render.Tune
	// label is the swept parameter's name in the title; settingAt is the
	// setting of the swept retriever at a value of it (ApplyMsg), the
	// others as the sweep started.
	label     string
	settingAt func(v float64) (ApplyMsg, error)
}

// ApplyMsg asks the root to take the value a held-out curve chose on all
// queries (enter on it): Activation Energy's thresholds Params, or, when
// Retriever names a ranking retriever, its Settings; the swept parameter
// at that value, the others as the sweep had them. Chosen names it.
type ApplyMsg struct {
	Retriever string
	Params    activation.Params
	Settings  retriever.Settings
	Chosen    string
}

// New is the overlay; set, when Active, is the query set every sweep also
// measures (its held-out curve).
func New(c *common.Common, set QuerySet) *Model {
	return &Model{Common: c, vp: common.NewViewport(c.KM), set: set}
}

// HasQueries reports whether a query set is measured: then a sweep needs
// no seeds.
func (v *Model) HasQueries() bool { return v.set.Active() }

// Budget bounds the explorer's search for breakpoints; the view
// streams meanwhile and esc stops it sooner.
const Budget = 30 * time.Second

// sweepRedraw is the least time between two rendered snapshots: a sweep
// sends one per stretch of breakpoints, often far more than a screen needs.
const sweepRedraw = 80 * time.Millisecond

// Start starts the sweep of param over its default range
// (sweep.DefaultRange; for MIN_ACTIVATION with the exact breakpoints) from
// cfg, for copies of seeds and tags, and returns the command that waits
// for its first update. The caller opens the view. With relevance marks
// (a copy, node id → grade), once the sweep is done each point's ranking
// is measured against them in the same goroutine and recall and nDCG are
// charted beside paths and nodes. With a query set (New), every query is
// then measured at each value of the grid, and the held-out curve and the
// value chosen by cross-validation head the view (heldOutPart); with no
// seeds that is all it does.
func (v *Model) Start(parent context.Context, backend activation.Backend, opts activation.Options, cfg activation.Params,
	param sweep.Param, seeds []retriever.Seed, tags []string, marks map[string]int) tea.Cmd {
	line := fmt.Sprintf("sweeping %s for %s… (esc stops it and keeps what has arrived)", param, common.Plural(len(seeds), "seed"))
	if len(seeds) == 0 {
		line = fmt.Sprintf("measuring %s at each value of %s… (esc stops it)", queriesText(len(v.set.Queries)), param)
	}
	var target *Target
	if v.set.Active() {
		t, err := ActivationTarget(v.set.Backend, opts, cfg, param)
		if err != nil {
			return common.NotifyErr(err)
		}
		target = &t
	}
	ctx, id, ch := v.begin(parent, string(param), line, func(x float64) (ApplyMsg, error) {
		p, err := param.Set(cfg, x)
		return ApplyMsg{Retriever: activation.Name, Params: p}, err
	})
	seeds, tags = append([]retriever.Seed(nil), seeds...), append([]string(nil), tags...)
	scfg := sweep.Config{Backend: backend, Params: cfg, Options: opts,
		Seeds: seeds, Tags: tags, Param: param, Breakpoints: param == sweep.MinActivation, Budget: Budget}
	width, set := v.vp.Width, v.set // the charts fill the pane
	// The sweep starts in the command, not in Update: its goroutine then
	// outlives the command and streams on ch.
	return common.SafeCmd(func() tea.Msg {
		go runSweep(ctx, ch, Msg{ID: id, ch: ch, Param: param}, scfg, marks, set, target, width)
		return waitSweep(ch)()
	})
}

// StartHeldOut measures the query set at each value of a ranking
// retriever's parameter (target, from its settings p) and draws the
// held-out curve, as Start does after a sweep of seeds (there is none
// here), and returns the command that waits for its first update; enter
// then gives p with the value chosen. The caller opens the view.
func (v *Model) StartHeldOut(parent context.Context, target Target, p retriever.Settings) tea.Cmd {
	line := fmt.Sprintf("measuring %s at each value of %s's %s… (esc stops it)", queriesText(len(v.set.Queries)), target.Retriever, target.Param)
	ctx, id, ch := v.begin(parent, target.Param, line, func(x float64) (ApplyMsg, error) {
		ps := p.With(target.Param, x)
		return ApplyMsg{Retriever: target.Retriever, Settings: ps}, ps.Validate()
	})
	width, set := v.vp.Width, v.set
	return common.SafeCmd(func() tea.Msg {
		go runSweep(ctx, ch, Msg{ID: id, ch: ch}, sweep.Config{}, nil, set, &target, width)
		return waitSweep(ch)()
	})
}

// begin stops any sweep in flight and starts the state of a new one
// (label in the title, line the progress, settingAt what enter applies):
// its context, id and channel.
func (v *Model) begin(parent context.Context, label, line string, settingAt func(float64) (ApplyMsg, error)) (context.Context, int, chan Msg) {
	v.stop()
	v.id++
	v.running, v.stopped, v.text, v.scores, v.heldOut = true, false, "", nil, nil
	v.label, v.line, v.settingAt = label, line, settingAt
	ctx, cancel := context.WithCancel(parent)
	v.cancel = cancel
	v.vp.SetContent(v.St.Running.Render(v.line))
	v.vp.GotoTop()
	return ctx, v.id, make(chan Msg, 1)
}

// runSweep runs the sweep in its own goroutine and publishes its snapshots
// on ch, rendered, keeping only the latest; the last is marked final. With
// marks, the last comes after each point is measured against them
// (scoreSweep); with a target over the query set, after the held-out
// curve (heldOutPart), which runs alone when there are no seeds. It ends when the sweep does
// (the context's cancellation included), and never blocks on a reader.
// The charts fill width columns.
func runSweep(ctx context.Context, ch chan Msg, base Msg, cfg sweep.Config, marks map[string]int, set QuerySet, target *Target, width int) {
	defer close(ch)
	publish := func(msg Msg) {
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
	defer func() {
		if r := recover(); r != nil {
			final.err = fmt.Errorf("internal error in the sweep: %v", r)
		}
		final.Final = true
		publish(final)
	}()
	var err error
	if len(cfg.Seeds) > 0 {
		final, err = sweepSeeds(ctx, publish, base, cfg, marks, width)
	}
	if err == nil && target != nil {
		final, err = heldOutPart(ctx, publish, final, *target, set, width)
	}
	final.err = err
}

// sweepSeeds sweeps cfg's parameter for its seeds, publishing each
// snapshot (never final), and returns the last, measured against the marks
// when there are any.
func sweepSeeds(ctx context.Context, publish func(Msg), base Msg, cfg sweep.Config, marks map[string]int, width int) (Msg, error) {
	final := base
	from, to, steps := sweep.DefaultRange(cfg.Param)
	values, err := sweep.Grid(cfg.Param, from, to, steps)
	if err != nil {
		return final, err
	}
	cfg.Values = values
	var last time.Time
	cfg.Progress = func(s *sweep.Sweep) {
		if !s.Done && len(s.Points) > 1 && time.Since(last) < sweepRedraw {
			return
		}
		last = time.Now()
		msg := base
		msg.Text, msg.line = render.SweepTextWith(s, width), sweepLine(s)
		if s.Done {
			final = msg
			if len(marks) > 0 {
				msg.line += fmt.Sprintf(" · measuring each point against %s…", common.Plural(len(marks), "mark"))
			}
		}
		publish(msg)
	}
	s, err := sweep.Run(ctx, cfg)
	if err == nil && len(marks) > 0 {
		final, err = scoreSweep(ctx, s, cfg, marks, final, width)
	}
	return final, err
}

// scoreSweep measures each point of the finished sweep s against the marks:
// the point's results (Sweep.Replay, which explores again only where a
// seed's result changes) projected as a ranking (activation.Ranking), its
// recall@common.MarkK and nDCG@common.MarkK (retriever/eval). final, the sweep's last
// update, comes back with the scores and with recall and nDCG charted
// after the sweep's own charts (render.SweepTextWith).
func scoreSweep(ctx context.Context, s *sweep.Sweep, cfg sweep.Config, marks map[string]int, final Msg, width int) (Msg, error) {
	tags := retriever.NormalizeTags(cfg.Tags)
	scores := make([]Score, 0, len(s.Points))
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
		scores = append(scores, Score{Value: p.Value, Recall: eval.Recall(ids, marks, common.MarkK), NDCG: eval.NDCG(ids, marks, common.MarkK)})
		return nil
	})
	if err != nil {
		return final, fmt.Errorf("measuring the points against the marks: %w", err)
	}
	recall, ndcg := make([]float64, len(scores)), make([]float64, len(scores))
	for i, sc := range scores {
		recall[i], ndcg[i] = sc.Recall, sc.NDCG
	}
	final.scores = scores
	final.Text = render.SweepTextWith(s, width,
		render.SweepSeries{Name: fmt.Sprintf("recall@%d against %s", common.MarkK, common.Plural(len(marks), "mark")), Values: recall},
		render.SweepSeries{Name: fmt.Sprintf("nDCG@%d", common.MarkK), Values: ndcg})
	final.line += fmt.Sprintf(" · recall@%d and nDCG@%d against %s charted", common.MarkK, common.MarkK, common.Plural(len(marks), "mark"))
	return final, nil
}

// sweepLine is the progress line above the charts.
func sweepLine(s *sweep.Sweep) string {
	state := "sweeping…"
	if s.Done {
		state = "swept"
	}
	line := fmt.Sprintf("%s %s points · %s explorations · %s", state, common.Thousands(len(s.Points)), common.Thousands(s.Explorations), common.FmtDur(s.Elapsed))
	if ex := render.SweepExactPart(s); ex != "" {
		line += " · " + ex
	}
	if !s.Done {
		line += " (esc stops it and keeps what has arrived)"
	}
	return line
}

// waitSweep waits for the next update of a sweep.
func waitSweep(ch <-chan Msg) tea.Cmd {
	return common.SafeCmd(func() tea.Msg {
		msg, ok := <-ch
		if !ok {
			return nil
		}
		return msg
	})
}

// Update takes the view's keys and the wheel, and its sweep's updates;
// done when a key closes the view.
func (v *Model) Update(msg tea.Msg) (bool, tea.Cmd) {
	switch msg := msg.(type) {
	case Msg:
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
func (v *Model) update(msg Msg) tea.Cmd {
	if msg.ID != v.id {
		return nil
	}
	if msg.Text != "" || msg.line != "" {
		v.text, v.line, v.scores, v.heldOut = msg.Text, msg.line, msg.scores, msg.heldOut
		v.show()
	}
	if !msg.Final {
		return waitSweep(msg.ch)
	}
	v.stop() // releases the sweep's context
	switch {
	case msg.err != nil && v.stopped:
		if i := strings.Index(v.line, " (esc stops it"); i >= 0 {
			v.line = v.line[:i] // it has stopped
		}
		v.line = "stopped: " + v.line
		v.show()
		return common.Notify(fmt.Sprintf("stopped the sweep of %s: what had arrived stays", v.label))
	case msg.err != nil:
		v.vp.SetContent(v.St.Error.Render("sweep failed: " + textsafe.Escape(msg.err.Error())))
		return common.NotifyErr(fmt.Errorf("sweep of %s: %w", v.label, msg.err))
	}
	return common.Notify(v.line)
}

// show puts the latest snapshot in the viewport, keeping the scroll; a
// line wider than the pane (a long heading, the progress line) wraps
// there, the charts being as wide as the pane already.
func (v *Model) show() {
	off := v.vp.YOffset
	w := max(v.vp.Width, 20)
	v.vp.SetContent(v.St.Running.Render(ansi.Wrap(v.line, w, "")) + "\n\n" + ansi.Wrap(v.text, w, ""))
	v.vp.SetYOffset(off)
}

// stop cancels a sweep in flight.
func (v *Model) stop() {
	if v.cancel != nil {
		v.cancel()
		v.cancel = nil
	}
	v.running = false
}

// Close stops the sweep as the view closes.
func (v *Model) Close() {
	v.stop()
	v.id++ // whatever is still in flight is stale
}

// key scrolls the view; esc stops a running sweep (keeping what arrived)
// or closes the view (done), and the sweep key closes it; enter, once the
// held-out curve is in, closes it and sets the swept parameter to the
// value chosen on all queries (apply).
func (v *Model) key(msg tea.KeyMsg) (bool, tea.Cmd) {
	switch {
	case key.Matches(msg, v.KM.Cancel) && v.running:
		v.stopped = true
		v.stop()
		return false, nil
	case key.Matches(msg, v.KM.Cancel) || key.Matches(msg, v.KM.Sweep):
		return true, nil
	case key.Matches(msg, v.KM.Submit) && v.heldOut != nil && !v.running:
		return true, v.apply()
	}
	var cmd tea.Cmd
	v.vp, cmd = v.vp.Update(msg)
	return false, cmd
}

// apply is the command that sets the swept parameter to the value the
// held-out tuning chose on all queries.
func (v *Model) apply() tea.Cmd {
	t := v.heldOut
	value := t.Params[0].Values[t.Result.Settings[t.Result.Chosen][0]]
	msg, err := v.settingAt(value)
	if err != nil {
		return common.NotifyErr(err)
	}
	msg.Chosen = fmt.Sprintf("%s %s, chosen on %s by %s", v.label, render.SweepValue(value), queriesText(len(t.Queries)), t.Metric)
	return func() tea.Msg { return msg }
}

func (v *Model) View() string { return v.vp.View() }

func (v *Model) SetSize(w, h int) { v.vp.Width, v.vp.Height = w, h }

func (v *Model) ShortHelp() []key.Binding {
	if v.running {
		return []key.Binding{key.NewBinding(key.WithKeys("esc"), key.WithHelp("esc", "stop")), keymap.ScrollHelp}
	}
	if v.heldOut != nil {
		return []key.Binding{keymap.CloseHelp("esc/s"), key.NewBinding(key.WithKeys("enter"), key.WithHelp("enter", "use the chosen value")), keymap.ScrollHelp}
	}
	return []key.Binding{keymap.CloseHelp("esc/s"), keymap.ScrollHelp}
}

// Title is the overlay's frame title.
func (v *Model) Title() string {
	t := "Sweep " + v.label
	if v.set.Active() {
		t += " · held out over " + queriesText(len(v.set.Queries))
	}
	if v.heldOut != nil && !v.running {
		return t + " · enter uses the chosen value, esc closes, ↑/↓ scroll"
	}
	switch {
	case v.running:
		return t + " (running) · esc to stop, ↑/↓ to scroll"
	case v.stopped:
		t += " (stopped)"
	}
	return t + " · esc to close, ↑/↓ to scroll"
}

// Running reports whether a sweep is in flight; ID is the current
// sweep's (a Msg of another is stale).
func (v *Model) Running() bool { return v.running }
func (v *Model) ID() int       { return v.id }

// Text is the latest snapshot's text (render.SweepText), Line its
// progress line, Scores the points' recall and nDCG against the marks.
func (v *Model) Text() string    { return v.text }
func (v *Model) Line() string    { return v.line }
func (v *Model) Scores() []Score { return v.scores }

// HeldOut is the latest sweep's tuning over the query set (nil before it
// is done, or without one).
func (v *Model) HeldOut() *render.Tune { return v.heldOut }
