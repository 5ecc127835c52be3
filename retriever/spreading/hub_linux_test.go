package spreading_test

import (
	"context"
	"runtime"
	"strconv"
	"syscall"
	"testing"
	"time"

	"github.com/memoria-graph/memoria/retriever"
	"github.com/memoria-graph/memoria/retriever/spreading"
)

// threadCPU is the CPU time the calling thread has used (Linux's
// RUSAGE_THREAD): unlike the wall clock, it does not grow when other
// processes share the cores.
func threadCPU(t *testing.T) time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(1 /* RUSAGE_THREAD */, &ru); err != nil {
		t.Fatal(err)
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// TestHubCostIsLinear: spreading from the hub of a star, every node kept
// (K above the nodes), reads each leaf's relationship twice (from the hub,
// then back) and builds a hit per node, each leaf's route one of the
// hub's relationships: work that grows with the leaves. A star of 20,000
// leaves must so cost about 8 times the CPU time of one of 2,500; the
// bound is 20 times, the least of three runs of each, measured on the
// test's own thread (threadCPU). Before a hub's arcs were numbered once
// (spreading.nth) and the routes' relationships kept in a set (relsOf),
// each was found by scanning those before it, n²/2 steps twice over: 64
// times the steps, measured 40 to 60 times the time.
func TestHubCostIsLinear(t *testing.T) {
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	cost := func(leaves int) time.Duration {
		rels := make([]rel, leaves)
		for i := range rels {
			rels[i] = rel{Spec: "H-RELATES->L" + strconv.Itoa(i), Weight: 0.5}
		}
		g := build(t, nil, rels...)
		p := spreading.DefaultParams()
		p.TopK = 1000000
		q := retriever.Query{Seeds: []retriever.Seed{{NodeID: "H", Score: 1}}}
		var least time.Duration
		for i := range 3 {
			runtime.GC()
			start := threadCPU(t)
			r, err := spreading.Retrieve(context.Background(), g, q, p)
			d := threadCPU(t) - start
			if err != nil {
				t.Fatal(err)
			}
			if i == 0 || d < least {
				least = d
			}
			if len(r.Hits) != leaves+1 {
				t.Fatalf("%d hits on a star of %d leaves, want %d", len(r.Hits), leaves, leaves+1)
			}
		}
		return least
	}
	small, large := cost(2500), cost(20000)
	t.Logf("a star of 2,500 leaves: %v of CPU; of 20,000: %v (%.1f times)", small, large, float64(large)/float64(small))
	if float64(large) > 20*float64(small) {
		t.Errorf("a star of 20,000 leaves cost %v of CPU, one of 2,500 %v: %.1f times, want about 8 (at most 20)",
			large, small, float64(large)/float64(small))
	}
}
