package tui

import (
	"context"
	"strings"
	"testing"

	"github.com/memoria-graph/memoria/render"
	"github.com/memoria-graph/memoria/retriever"
	"github.com/memoria-graph/memoria/retriever/activation/sweep"
	"github.com/memoria-graph/memoria/tui/overlays/sweepview"
)

// TestSweepOverlay: s on the MIN_ACTIVATION row sweeps it for scenario A's
// seed and tags over the default log grid with the exact breakpoints, in a
// command; the overlay then shows exactly what `memoria sweep` prints for
// the same inputs (render.SweepText of a fresh sweep.Run), the current value
// 0.005 marked under each chart, and esc closes it. A sweep closed before it
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
	if got := h.m.ov.sweep.Text(); got != render.SweepText(want) || !strings.Contains(got, "^ min-activation 0.005") {
		t.Fatalf("overlay text:\n%s\nwant:\n%s", got, render.SweepText(want))
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
