package onneo4j

import (
	"context"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/memoria-graph/memoria/retriever"
	"github.com/memoria-graph/memoria/retriever/activation"
	"github.com/memoria-graph/memoria/testkit/neo4jfix"
)

// batchIdle reports whether b's loop has ended and no exploration is
// registered.
func batchIdle(b *batcher) bool {
	b.mu.Lock()
	defer b.mu.Unlock()
	return !b.running && b.open == 0 && len(b.queue) == 0
}

// drainWithin reads ch to its end, failing the test if it is not closed
// within limit (a hang far beyond any deadline: the queries here take
// milliseconds).
func drainWithin(t *testing.T, ch <-chan activation.Event, limit time.Duration) []activation.Result {
	t.Helper()
	var res []activation.Result
	timer := time.NewTimer(limit)
	defer timer.Stop()
	for {
		select {
		case ev, ok := <-ch:
			if !ok {
				return res
			}
			if ev.Kind == activation.EventResult {
				res = append(res, *ev.Result)
			}
		case <-timer.C:
			t.Fatalf("the run's channel was not closed within %v", limit)
		}
	}
}

// TestBatchCancelAtEveryQuery: five demo seeds (those of
// TestSeedsShareEachLevel) explored through one backend, the run's context
// cancelled from the batcher's trace hook just as it sends its j-th query,
// for every j from 1 to one past the number of queries the whole run sends;
// at that moment a second run of the same seeds starts on the same backend
// (the explorer starting a new run while the old one is being cancelled).
// The cancelled run's channel closes (within 20 s; the queries take
// milliseconds), each of its results is cancelled or complete, the second
// run's results equal a run alone on a fresh backend, and afterwards the batcher has ended
// its loop with nothing registered; no goroutine is left once the source
// is closed. Run on the plain fast path and on a Snapshot filled by a
// shallower run first (so that some levels are replayed locally and only
// some explorations send).
func TestBatchCancelAtEveryQuery(t *testing.T) {
	seeds := []retriever.Seed{{NodeID: "N2006", Score: 1}, {NodeID: "N2003", Score: 0.5}, {NodeID: "T3000", Score: 0.7}, {NodeID: "P5001", Score: 0.6}, {NodeID: "N2010", Score: 0.9}, {NodeID: "NOPE", Score: 1}}
	tags := []string{"campaign", "stockout"}
	cfg := activation.DefaultParams()
	cfg.MinActivation = 0.001
	src := fx.Demo(t)
	for _, snap := range []bool{false, true} {
		var want []activation.Result
		if snap { // a Snapshot is a Tracer: exact path ends
			want, _ = neo4jfix.ExploreWithLevels(t, NewSnapshot(src), cfg, seeds, tags)
		} else {
			want, _ = neo4jfix.ExploreWithLevels(t, New(src), cfg, seeds, tags)
		}
		var queries atomic.Int64
		count := New(src)
		count.trace = func(q string, p map[string]any) {
			if _, ok := p["requests"]; ok {
				queries.Add(1)
			}
		}
		neo4jfix.ExploreWithLevels(t, count, cfg, seeds, tags)
		total := int(queries.Load())
		for j := 1; j <= total+1; j++ {
			check := goroutineBaseline(t)
			src := fx.Demo(t)
			n := New(src)
			var backend activation.Backend = n
			if snap {
				s := NewSnapshot(src)
				n = s.fast
				shallow := cfg
				shallow.MaxDepth = 2
				neo4jfix.ExploreWithLevels(t, s, shallow, seeds, tags)
				backend = s
			}
			ctx, cancel := context.WithCancel(context.Background())
			second := make(chan []activation.Result, 1)
			var sent atomic.Int64
			var once sync.Once
			n.trace = func(q string, p map[string]any) {
				if _, ok := p["requests"]; ok && int(sent.Add(1)) == j {
					once.Do(func() {
						cancel()
						go func() {
							r, _ := neo4jfix.ExploreWithLevels(t, backend, cfg, seeds, tags)
							second <- r
						}()
					})
				}
			}
			r, err := activation.New(backend, cfg, activation.DefaultOptions())
			if err != nil {
				t.Fatal(err)
			}
			ch, err := r.Explore(ctx, seeds, tags)
			if err != nil {
				t.Fatal(err)
			}
			got := drainWithin(t, ch, 20*time.Second)
			for _, res := range got {
				if res.Error != "" {
					t.Errorf("snapshot %v, cancelled at query %d: seed %s: %s", snap, j, res.Seed.NodeID, res.Error)
				}
			}
			once.Do(func() { second <- want }) // never cancelled: j is past the end
			cancel()
			var again []activation.Result
			select {
			case again = <-second:
			case <-time.After(20 * time.Second):
				t.Fatalf("snapshot %v, cancelled at query %d: the second run did not end within 20 s", snap, j)
			}
			for i := range seeds {
				if msg := compareResults(again[i], want[i], nil, nil); msg != "" {
					t.Errorf("snapshot %v, cancelled at query %d: second run, seed %s: %s", snap, j, seeds[i].NodeID, msg)
				}
			}
			if !batchIdle(n.batch) {
				t.Errorf("snapshot %v, cancelled at query %d: the batcher is not idle after both runs", snap, j)
			}
			if err := src.Close(context.Background()); err != nil {
				t.Error(err)
			}
			check()
		}
	}
}
