package sweepview

import (
	"bytes"
	"context"
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
	v := New(&common.Common{KM: keymap.Default(), St: &st})
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
