package sweepview

import (
	"bytes"
	"context"
	"os"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	tea "github.com/charmbracelet/bubbletea"
	"github.com/memoria-graph/memoria/graph/inmem"
	"github.com/memoria-graph/memoria/keymap"
	"github.com/memoria-graph/memoria/retriever"
	"github.com/memoria-graph/memoria/retriever/activation"
	"github.com/memoria-graph/memoria/retriever/activation/oninmem"
	"github.com/memoria-graph/memoria/retriever/activation/sweep"
	"github.com/memoria-graph/memoria/retriever/eval"
	"github.com/memoria-graph/memoria/testkit/randgraph"
	"github.com/memoria-graph/memoria/tui/common"
	"github.com/memoria-graph/memoria/tui/theme"
)

// gatedBackend lets free explorations open, then holds every further Open
// until its context ends: a sweep that never finishes on its own.
type gatedBackend struct {
	activation.Backend
	free *atomic.Int64
}

func (g gatedBackend) Open(ctx context.Context) (activation.Expander, func(context.Context) error, error) {
	if g.free.Add(-1) < 0 {
		<-ctx.Done()
		return nil, nil, ctx.Err()
	}
	return g.Backend.Open(ctx)
}

// TestSweepStreamsAndStops: on a generated graph of 20,000 nodes and
// 200,000 relationships, a MIN_ACTIVATION sweep whose backend stops
// answering after 24 explorations (three seeds at the current value and
// some of the grid) has already shown a chart with the current value
// marked and a "sweeping…" progress line while it still runs; esc then
// stops it, keeps the chart that had arrived and says so, and esc again
// closes the view.
func TestSweepStreamsAndStops(t *testing.T) {
	g, err := inmem.Load(bytes.NewReader(randgraph.Scale(20_000, 200_000, 2.5, 3)), "scale")
	if err != nil {
		t.Fatal(err)
	}
	free := &atomic.Int64{}
	free.Store(24)
	st := theme.NewStyles(nil, true)
	v := New(&common.Common{KM: keymap.Default(), St: &st}, QuerySet{})
	v.vp.Width, v.vp.Height = 100, 40
	seeds := []retriever.Seed{{NodeID: "N000011", Score: 0.95}, {NodeID: "N007824", Score: 0.9}, {NodeID: "N015637", Score: 0.85}}
	cmd := v.Start(context.Background(), gatedBackend{oninmem.New(g), free}, activation.DefaultOptions(), activation.DefaultParams(),
		sweep.MinActivation, seeds, []string{randgraph.ScaleTag(0), randgraph.ScaleTag(3)}, nil)
	// Apply updates until none comes for half a second: the sweep is held.
	results := make(chan tea.Msg, 1)
	wait := func(c tea.Cmd) { go func() { results <- c() }() }
	wait(cmd)
	for held := false; !held; {
		select {
		case msg := <-results:
			m, ok := msg.(Msg)
			if !ok || m.Final {
				t.Fatalf("the sweep ended before it was held: %#v", msg)
			}
			wait(v.update(m))
		case <-time.After(500 * time.Millisecond):
			held = true
		}
	}
	if !v.running || !strings.Contains(v.text, "paths") || !strings.Contains(v.text, "^ min-activation 0.005") || !strings.HasPrefix(v.line, "sweeping…") {
		t.Fatalf("while running: running %v, line %q, text:\n%s", v.running, v.line, v.text)
	}
	shown := v.text
	if done, _ := v.Update(tea.KeyMsg{Type: tea.KeyEsc}); done {
		t.Fatal("esc on a running sweep closed the view; want it stopped and kept open")
	}
	select {
	case msg := <-results:
		m, ok := msg.(Msg)
		if !ok || !m.Final || m.err == nil {
			t.Fatalf("after esc: %#v, want the final update with the cancellation", msg)
		}
		v.update(m)
	case <-time.After(5 * time.Second):
		t.Fatal("esc did not stop the sweep")
	}
	if v.running || v.text != shown || !strings.HasPrefix(v.line, "stopped: sweeping…") || !strings.Contains(v.Title(), "(stopped)") {
		t.Fatalf("after esc: running %v, line %q, title %q, chart kept %v", v.running, v.line, v.Title(), v.text == shown)
	}
	if done, _ := v.Update(tea.KeyMsg{Type: tea.KeyEsc}); !done {
		t.Fatal("esc on a stopped sweep did not close it")
	}
}

// demoSet is the demo query set (testdata/demo-queries.jsonl, 8 queries)
// over the demo graph, 4 folds.
func demoSet(t *testing.T) (QuerySet, activation.Backend) {
	t.Helper()
	f, err := os.Open("../../../testdata/demo.jsonl")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	g, err := inmem.Load(f, "demo")
	if err != nil {
		t.Fatal(err)
	}
	qf, err := os.Open("../../../testdata/demo-queries.jsonl")
	if err != nil {
		t.Fatal(err)
	}
	defer qf.Close()
	qs, err := eval.ParseQueries(qf)
	if err != nil {
		t.Fatal(err)
	}
	b := oninmem.New(g)
	return QuerySet{Name: "demo-queries.jsonl", Queries: qs, Metric: eval.Metric{Kind: eval.KindNDCG, K: 10}, Folds: 4, SplitSeed: 34, Backend: b}, b
}

// drain applies a sweep's updates to v until the final one.
func drain(t *testing.T, v *Model, cmd tea.Cmd) {
	t.Helper()
	for cmd != nil {
		msg, ok := cmd().(Msg)
		if !ok {
			t.Fatalf("not a sweep update: %#v", msg)
		}
		final := msg.Final
		cmd = v.update(msg)
		if final {
			return
		}
	}
}

// TestHeldOutCurveInOverlay: opened with the demo query set, a sweep of
// MAX_BRANCHES with no seeds measures the set alone: the view heads with
// tune's report of the 8 queries in 4 folds (the defaults' 3 give 0.5710,
// 4 is chosen on all queries and gives 0.5857, as the command corpus's
// tune-curve case prints) and the held-out curve, and the progress line
// gives the comparison. With a seed the same report heads the view, and
// the sweep of that seed follows it.
func TestHeldOutCurveInOverlay(t *testing.T) {
	set, backend := demoSet(t)
	st := theme.NewStyles(nil, true)
	v := New(&common.Common{KM: keymap.Default(), St: &st}, set)
	v.SetSize(100, 40)
	if !v.HasQueries() || !strings.Contains(v.Title(), "held out over 8 queries") {
		t.Fatalf("has queries %v, title %q", v.HasQueries(), v.Title())
	}
	drain(t, v, v.Start(context.Background(), backend, activation.DefaultOptions(), activation.DefaultParams(), sweep.MaxBranches, nil, nil, nil))
	h := v.HeldOut()
	if v.Running() || h == nil {
		t.Fatalf("running %v, held out %v; line %q, text:\n%s", v.Running(), h, v.line, v.text)
	}
	for _, want := range []string{"tune activation over 8 queries on nDCG@10, 4 folds (split seed 34)",
		"flags: --retriever activation --max-branches 4", "held-out curve of max-branches, nDCG@10 over 4 folds"} {
		if !strings.HasPrefix(v.text, "tune activation") || !strings.Contains(v.text, want) {
			t.Errorf("missing %q at the head of\n%s", want, v.text)
		}
	}
	if !strings.Contains(v.line, "held out over the 8 queries of demo-queries.jsonl: nDCG@10 tuned 0.5857, defaults 0.5710") ||
		!strings.Contains(v.line, "chosen on all: max-branches 4") {
		t.Errorf("line %q", v.line)
	}
	if strings.Contains(v.text, "The sweep of the current seeds") {
		t.Errorf("a sweep of seeds without seeds:\n%s", v.text)
	}
	drain(t, v, v.Start(context.Background(), backend, activation.DefaultOptions(), activation.DefaultParams(), sweep.MaxBranches,
		[]retriever.Seed{{NodeID: "N2006", Score: 0.85}}, nil, nil))
	head, sweepPart, ok := strings.Cut(v.text, "The sweep of the current seeds:")
	if !ok || !strings.Contains(head, "held-out curve of max-branches") || !strings.Contains(sweepPart, "paths") {
		t.Errorf("with a seed, want the report then the sweep; got\n%s", v.text)
	}
}

// TestHeldOutStops: esc while the query set is measured stops it (its
// backend holds every run after the first 5 until cancelled), the view says
// it was stopped, and nothing of a tuning is shown.
func TestHeldOutStops(t *testing.T) {
	set, backend := demoSet(t)
	free := &atomic.Int64{}
	free.Store(5)
	set.Backend = gatedBackend{backend, free}
	st := theme.NewStyles(nil, true)
	v := New(&common.Common{KM: keymap.Default(), St: &st}, set)
	v.SetSize(100, 40)
	cmd := v.Start(context.Background(), backend, activation.DefaultOptions(), activation.DefaultParams(), sweep.MaxBranches, nil, nil, nil)
	msg := cmd().(Msg)
	if msg.Final || !strings.Contains(msg.line, "held out: measuring the 8 queries of demo-queries.jsonl at each value of max-branches") {
		t.Fatalf("first update %+v", msg)
	}
	next := v.update(msg)
	if done, _ := v.Update(tea.KeyMsg{Type: tea.KeyEsc}); done {
		t.Fatal("esc closed a running view")
	}
	drain(t, v, next)
	if v.Running() || v.HeldOut() != nil || !strings.HasPrefix(v.line, "stopped: held out: measuring the 8 queries") || strings.Contains(v.line, "esc stops it") {
		t.Errorf("after esc: running %v, held out %v, line %q", v.Running(), v.HeldOut() != nil, v.line)
	}
}

// TestHeldOutPanicIsAnError: a retriever that panics on one query, in a
// worker goroutine no command's recovery reaches, ends the held-out
// measure with an error naming it, and the process goes on.
func TestHeldOutPanicIsAnError(t *testing.T) {
	set, _ := demoSet(t)
	target := Target{Retriever: "broken", Param: "p", Values: []float64{1, 2}, Current: 1,
		at: func(float64) (func(context.Context, eval.Query) ([]string, string, string, error), error) {
			return func(_ context.Context, q eval.Query) ([]string, string, string, error) {
				if q.ID == "reorder-points" {
					panic("index out of range")
				}
				return nil, "", "", nil
			}, nil
		}}
	_, _, _, err := HeldOut(context.Background(), set, target, 100, nil)
	if err == nil || !strings.Contains(err.Error(), "internal error: index out of range") {
		t.Fatalf("err %v, want the panic as an internal error", err)
	}
}
