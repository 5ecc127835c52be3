package cli

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"io"
	"os"
	"path/filepath"
	"runtime"
	"runtime/metrics"
	"sync"
	"testing"
	"time"

	"github.com/memoria-graph/memoria/render"
	"github.com/memoria-graph/memoria/retriever/activation/sweep"
	"github.com/memoria-graph/memoria/testkit/randgraph"
	"github.com/memoria-graph/memoria/tui"
	"github.com/memoria-graph/memoria/tui/overlays/sweepview"
)

// BenchmarkHeldOut1M is the explorer's held-out curve (memoria --queries,
// sweepview.HeldOut) against `memoria tune --retriever activation --param
// P` over the same query set, on the 1M-edge scale graph (100,000 nodes,
// randgraph.Scale) with 200 queries (randgraph.ScaleQueries), in one run
// so that their ratio is of one machine state, for max-branches (its
// default grid, 10 values) and min-activation (25 log points and the
// current value). Per parameter:
//
//   - tune: the whole command in process, the load of the file included;
//   - load: `explore --seed S --format json`, S the first query's first
//     seed: the cheapest whole command that reads the graph and builds the
//     backend tune builds (stats adds clustering and percentiles, export
//     writes 214 MB), one Activation Energy run beyond it;
//   - explorer: what the explorer does once it has the graph, HeldOut
//     over the set with the explorer's options, built from the same flags
//     outside the timed loop.
//
// The target is explorer ≤ 1.1 × (tune − load) (docs/PERFORMANCE.md, "The
// explorer's held-out curve on the 1M-edge graph"). Each sub-benchmark
// also reports the peaks of the heap while it ran (peakHeap), the
// explorer's with its graph, loaded before, in them.
func BenchmarkHeldOut1M(b *testing.B) {
	dir := b.TempDir()
	graph := filepath.Join(dir, "scale.jsonl")
	if err := os.WriteFile(graph, randgraph.Scale(100_000, 1_000_000, 2.5, 1), 0o644); err != nil {
		b.Fatal(err)
	}
	data := randgraph.ScaleQueries(200, 7)
	queries := filepath.Join(dir, "q.jsonl")
	if err := os.WriteFile(queries, data, 0o644); err != nil {
		b.Fatal(err)
	}
	var first struct {
		Seeds []struct {
			NodeID string `json:"node_id"`
		} `json:"seeds"`
	}
	line, _, _ := bufio.NewReader(bytes.NewReader(data)).ReadLine()
	if err := json.Unmarshal(line, &first); err != nil || len(first.Seeds) == 0 {
		b.Fatalf("the first query's seed: %v in %s", err, line)
	}
	env := Env{Stdout: io.Discard, Stderr: io.Discard, Getenv: func(string) string { return "" }}
	for _, param := range []sweep.Param{sweep.MaxBranches, sweep.MinActivation} {
		b.Run("tune-"+string(param), func(b *testing.B) {
			args := []string{"tune", "--graph", graph, "--queries", queries, "--retriever", "activation", "--param", string(param)}
			defer peakHeap(b)()
			for b.Loop() {
				if code := Main(context.Background(), args, env); code != 0 {
					b.Fatalf("exit %d", code)
				}
			}
		})
		b.Run("load-"+string(param), func(b *testing.B) {
			args := []string{"explore", "--graph", graph, "--seed", first.Seeds[0].NodeID, "--format", "json"}
			defer peakHeap(b)()
			for b.Loop() {
				if code := Main(context.Background(), args, env); code != 0 {
					b.Fatalf("exit %d", code)
				}
			}
		})
		b.Run("explorer-"+string(param), func(b *testing.B) {
			opts, closeSource := benchUIOptions(b, "--graph", graph, "--queries", queries)
			defer closeSource()
			if !opts.Queries.Active() || len(opts.Queries.Queries) != 200 {
				b.Fatalf("the query set did not reach the explorer: %d queries", len(opts.Queries.Queries))
			}
			target, err := sweepview.ActivationTarget(opts.Queries.Backend, opts.RunOptions, opts.Params, param)
			if err != nil {
				b.Fatal(err)
			}
			defer peakHeap(b)()
			for b.Loop() {
				_, failed, _, err := sweepview.HeldOut(context.Background(), opts.Queries, target, render.DefaultChartWidth, nil)
				if err != nil || failed != 0 {
					b.Fatalf("%v (%d failed)", err, failed)
				}
			}
		})
	}
}

// benchUIOptions are the explorer's options from its flags args, as
// uiOptions builds them for a test, with the source given in args, and
// the function that closes the source. Not b.Cleanup: the testing package
// keeps a benchmark's cleanups reachable after they ran, and with them the
// graph, which the next run's heap would count.
func benchUIOptions(b *testing.B, args ...string) (tui.Options, func()) {
	b.Helper()
	var u uiFlags
	env := Env{Stdout: io.Discard, Stderr: io.Discard, Getenv: func(string) string { return "" }}
	if err := parseCommand(env, "memoria", uiUsage, args, &u); err != nil {
		b.Fatal(err)
	}
	src, err := u.q.open(context.Background(), env)
	if err != nil {
		b.Fatal(err)
	}
	closeSource := func() { src.Close(context.Background()) }
	opts, err := u.options(context.Background(), src)
	if err != nil {
		closeSource()
		b.Fatal(err)
	}
	return opts, closeSource
}

// peakHeap collects, then samples the heap every 10 ms until the
// returned function is called, which reports the largest samples:
// peak-heap-MB of the heap's objects (live and not yet swept, what the
// process holds; with GOGC=100 up to about twice the live heap) and
// peak-live-MB of the live heap as the last collection marked it, and
// base-live-MB, the live heap when it started (the explorer's graph).
func peakHeap(b *testing.B) func() {
	runtime.GC()
	s := []metrics.Sample{{Name: "/memory/classes/heap/objects:bytes"}, {Name: "/gc/heap/live:bytes"}}
	metrics.Read(s)
	base := s[1].Value.Uint64()
	var heap, live uint64
	sample := func() {
		metrics.Read(s)
		heap, live = max(heap, s[0].Value.Uint64()), max(live, s[1].Value.Uint64())
	}
	stop := make(chan struct{})
	var wg sync.WaitGroup
	wg.Go(func() {
		t := time.NewTicker(10 * time.Millisecond)
		defer t.Stop()
		for {
			sample()
			select {
			case <-stop:
				return
			case <-t.C:
			}
		}
	})
	return func() {
		close(stop)
		wg.Wait()
		sample()
		b.ReportMetric(float64(heap)/(1<<20), "peak-heap-MB")
		b.ReportMetric(float64(live)/(1<<20), "peak-live-MB")
		b.ReportMetric(float64(base)/(1<<20), "base-live-MB")
	}
}
