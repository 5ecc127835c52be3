package tui

import (
	"context"
	"os"
	"strings"
	"testing"

	"github.com/memoria-graph/memoria/render"
	"github.com/memoria-graph/memoria/retriever"
	"github.com/memoria-graph/memoria/retriever/activation/sweep"
	"github.com/memoria-graph/memoria/retriever/eval"
	"github.com/memoria-graph/memoria/retriever/spreading"
	"github.com/memoria-graph/memoria/tui/overlays/sweepview"
)

// TestSweepOverlay: s on the MIN_ACTIVATION row sweeps it for scenario A's
// seed and tags over the default log grid with the exact breakpoints, in a
// command; the overlay then shows exactly what `memoria sweep` prints for
// the same inputs (render.SweepText of a fresh sweep.Run), the current value
// 0.005 marked under each chart, its charts as wide as the overlay, and
// esc closes it. A sweep closed before it
// finished is dropped when its result arrives.
func TestSweepOverlay(t *testing.T) {
	h := demoHarness(t)
	h.focusPane(focusParams)
	h.keys("j", "s")
	if !h.m.isOpen(h.m.ov.sweep) || !h.m.ov.sweep.Running() {
		t.Fatal("s did not start a sweep")
	}
	h.settle()
	from, to, steps := sweep.DefaultRange(sweep.MinActivation)
	values, err := sweep.Grid(sweep.MinActivation, from, to, steps)
	if err != nil {
		t.Fatal(err)
	}
	want, err := sweep.Run(context.Background(), sweep.Config{Backend: h.src, Params: h.m.params.Config(), Options: h.m.runs.opts,
		Seeds: []retriever.Seed{demoSeed}, Tags: demoTags, Param: sweep.MinActivation, Values: values, Breakpoints: true, Budget: sweepview.Budget})
	if err != nil {
		t.Fatal(err)
	}
	// The charts fill the overlay's width (sized before the sweep starts).
	width, _ := h.m.St.Inner(h.m.lay.full())
	if got := h.m.ov.sweep.Text(); got != render.SweepTextWith(want, width) || !strings.Contains(got, "^ min-activation 0.005") || width == render.DefaultChartWidth {
		t.Fatalf("overlay text at width %d:\n%s\nwant:\n%s", width, got, render.SweepTextWith(want, width))
	}
	if st := h.lastStatus().Text; !strings.HasPrefix(st, "swept ") || !strings.Contains(st, "exact over the whole range") {
		t.Fatalf("status %q", st)
	}
	if v := h.m.View(); !strings.Contains(v, "Sweep min-activation") || !strings.Contains(v, "sweep min-activation:") {
		t.Fatalf("overlay not on screen:\n%s", v)
	}
	h.keys("esc")
	if h.m.isOpen(h.m.ov.sweep) || strings.Contains(h.m.View(), "Sweep min-activation") {
		t.Fatal("esc did not close the sweep")
	}
	// A sweep stopped (esc) stays open with what has arrived; esc again
	// closes it, and its result, arriving later, is dropped.
	h.keys("s")
	stale := h.m.ov.sweep.ID()
	h.keys("esc")
	if !h.m.isOpen(h.m.ov.sweep) || h.m.ov.sweep.Running() || !strings.Contains(h.m.ov.sweep.Title(), "(stopped)") {
		t.Fatalf("esc on a running sweep: open %v, running %v, title %q; want open, stopped", h.m.isOpen(h.m.ov.sweep), h.m.ov.sweep.Running(), h.m.ov.sweep.Title())
	}
	h.keys("esc")
	h.settle()
	h.m.Update(sweepview.Msg{ID: stale, Param: sweep.MinActivation, Text: "stale", Final: true})
	if h.m.isOpen(h.m.ov.sweep) || h.m.ov.sweep.Text() == "stale" {
		t.Fatal("a closed sweep's result was shown")
	}
}

// TestSweepHeldOutWithoutSeeds: opened with a query set and no seeds, s on
// the MAX_BRANCHES row does not ask for a seed: the overlay measures the
// set and heads with tune's report and the held-out curve (the demo set's
// values: TestHeldOutCurveInOverlay in the overlay's package), and enter
// then sets MAX_BRANCHES to the value chosen on all queries. Without a
// query set, s with no seeds says to pick one and opens nothing.
func TestSweepHeldOutWithoutSeeds(t *testing.T) {
	src := loadDemo(t)
	qs := demoQuerySet(t)
	h := newHarness(t, src, Options{Queries: sweepview.QuerySet{Name: "demo-queries.jsonl", Queries: qs,
		Metric: eval.Metric{Kind: eval.KindNDCG, K: 10}, Folds: 4, SplitSeed: 34, Backend: src}})
	h.focusPane(focusParams)
	h.keys("j", "j", "j", "s")
	if !h.m.isOpen(h.m.ov.sweep) {
		t.Fatalf("s with a query set and no seeds opened nothing; status %q", h.lastStatus().Text)
	}
	h.waitFor("the held-out curve", func() bool { return !h.m.ov.sweep.Running() })
	h.settle()
	if got := h.m.ov.sweep.Text(); !strings.HasPrefix(got, "tune activation over 8 queries") || !strings.Contains(got, "held-out curve of max-branches") {
		t.Fatalf("overlay text:\n%s", got)
	}
	if st := h.lastStatus().Text; !strings.Contains(st, "chosen on all: max-branches 4") {
		t.Errorf("status %q", st)
	}
	if !strings.Contains(h.m.ov.sweep.Title(), "enter uses the chosen value") {
		t.Errorf("title %q", h.m.ov.sweep.Title())
	}
	// enter closes the overlay and sets MAX_BRANCHES to the 4 chosen on
	// all queries (from the default 3), the other thresholds as they were.
	before := h.m.params.Config()
	h.keys("enter")
	h.settle()
	want := before
	want.MaxBranches = 4
	if h.m.isOpen(h.m.ov.sweep) || h.m.params.Config() != want || !strings.Contains(h.lastStatus().Text, "set max-branches 4, chosen on 8 queries by nDCG@10") {
		t.Errorf("enter: open %v, thresholds %+v (want %+v), status %q", h.m.isOpen(h.m.ov.sweep), h.m.params.Config(), want, h.lastStatus().Text)
	}
	plain := newHarness(t, loadDemo(t), Options{})
	plain.focusPane(focusParams)
	plain.keys("s")
	plain.settle()
	if plain.m.isOpen(plain.m.ov.sweep) || !strings.Contains(plain.lastStatus().Text, "pick a seed first") {
		t.Errorf("without seeds or queries: open %v, status %q", plain.m.isOpen(plain.m.ov.sweep), plain.lastStatus().Text)
	}
}

// demoQuerySet is testdata/demo-queries.jsonl.
func demoQuerySet(t *testing.T) []eval.Query {
	t.Helper()
	f, err := os.Open("../testdata/demo-queries.jsonl")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	qs, err := eval.ParseQueries(f)
	if err != nil {
		t.Fatal(err)
	}
	return qs
}

// TestSweepHeldOutRanking: with spreading activation shown and a query
// set, s on its PULSES row draws the held-out curve of its pulses over the
// set (what `memoria tune --retriever spreading --param pulses --folds 4`
// prints: 4 chosen on all queries, mean 0.6156 against the defaults'
// 0.5462; TestUIHeldOutRankingIsTune checks the two agree), and enter sets
// PULSES to 4 and re-runs spreading activation. On INITIAL, a word with no
// grid, s says which rows have one.
func TestSweepHeldOutRanking(t *testing.T) {
	src := loadDemo(t)
	h := newHarness(t, src, Options{Retriever: spreading.Name, Seeds: []retriever.Seed{demoSeed}, Queries: sweepview.QuerySet{Name: "demo-queries.jsonl",
		Queries: demoQuerySet(t), Metric: eval.Metric{Kind: eval.KindNDCG, K: 10}, Folds: 4, SplitSeed: 34, Backend: src}})
	h.settle()
	h.focusPane(focusParams)
	before := h.m.ranked.Panel(spreading.Name).Params().Settings().Get("pulses")
	h.keys("s")
	if !h.m.isOpen(h.m.ov.sweep) {
		t.Fatalf("s on PULSES opened nothing; status %q", h.lastStatus().Text)
	}
	h.waitFor("the held-out curve", func() bool { return !h.m.ov.sweep.Running() })
	h.settle()
	if text := h.m.ov.sweep.Text(); !strings.HasPrefix(text, "tune spreading over 8 queries on nDCG@10, 4 folds") ||
		!strings.Contains(text, "chosen on all queries: pulses=4 (mean 0.6156; the defaults' 0.5462)") ||
		!strings.Contains(h.m.ov.sweep.Title(), "Sweep pulses · held out over 8 queries") {
		t.Fatalf("title %q, text:\n%s", h.m.ov.sweep.Title(), text)
	}
	run := h.m.runs.slots[spreading.Name].id
	h.keys("enter")
	h.settle()
	if got := h.m.ranked.Panel(spreading.Name).Params().Settings().Get("pulses"); got != 4 || before == 4 || h.m.isOpen(h.m.ov.sweep) {
		t.Errorf("enter: pulses %v (before %v), want 4; open %v", got, before, h.m.isOpen(h.m.ov.sweep))
	}
	if h.m.runs.slots[spreading.Name].id == run {
		t.Error("spreading activation did not run again after PULSES changed")
	}
	if st := h.lastStatus().Text; !strings.Contains(st, "set pulses 4, chosen on 8 queries by nDCG@10") {
		t.Errorf("status %q", st)
	}
	h.focusPane(focusParams)
	h.keys("j", "j", "j", "j", "j", "j", "s") // INITIAL, after TOP_K: one of two words
	h.settle()
	if h.m.isOpen(h.m.ov.sweep) || !strings.Contains(h.lastStatus().Text, "select one with a grid (PULSES P, DECAY D, THRESHOLD θ, ALPHA α, PENALTY E, TOP_K K)") {
		t.Errorf("s on INITIAL: open %v, status %q", h.m.isOpen(h.m.ov.sweep), h.lastStatus().Text)
	}
}
