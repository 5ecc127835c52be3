package onneo4j

import (
	"fmt"
	"math/rand"
	"testing"

	"github.com/memoria-graph/memoria/graph/inmem"
	"github.com/memoria-graph/memoria/retriever"
	"github.com/memoria-graph/memoria/retriever/activation"
	"github.com/memoria-graph/memoria/retriever/activation/oninmem"
	"github.com/memoria-graph/memoria/testkit/neo4jfix"
	"github.com/memoria-graph/memoria/testkit/randgraph"
)

// TestSnapshotReplaysExactly: on 8 random graphs (testkit/randgraph, as
// in TestEnginesAgree: hubs, parallel edges, self-loops, missing and integer
// weights, untagged edges, unlabelled nodes), 6 random explorations each
// run on the fast path (the server answers every level) and through one
// Snapshot kept across the 6 (so later runs are replayed, wholly or in
// part, from what earlier ones read). Every result and every level event
// must be identical (compareResults: paths, energies, fates, candidates in
// order), and identical to the memory engine's with the traces (near
// misses, tallies, exact path ends: both are activation.Tracers). Then the first exploration is run again through the snapshot: it
// must read nothing from the server (Stats().Fetched unchanged) and still
// equal the server's answer.
func TestSnapshotReplaysExactly(t *testing.T) {
	var replayed, explorations int
	for i := 0; i < 8; i++ {
		r := rand.New(rand.NewSource(int64(5000 + i)))
		opt := randgraph.Random(r, 15, 150)
		g := randgraph.Generate(r, opt)
		src := fx.Graph(t, g)
		mem, err := inmem.New(g, "random")
		if err != nil {
			t.Fatal(err)
		}
		snap := NewSnapshot(src)
		type run struct {
			cfg   activation.Params
			seeds []retriever.Seed
			tags  []string
		}
		var runs []run
		for k := 0; k < 6; k++ {
			cfg, seeds, tags := randomExploration(r, g, opt)
			runs = append(runs, run{cfg, seeds, tags})
		}
		runs = append(runs, runs[0])
		for k, ru := range runs {
			before := snap.Stats().Fetched
			want, wl := neo4jfix.ExploreWithLevels(t, New(src), ru.cfg, ru.seeds, ru.tags)
			got, gl := neo4jfix.ExploreWithLevels(t, snap, ru.cfg, ru.seeds, ru.tags)
			mw, mwl := neo4jfix.ExploreWithLevels(t, oninmem.New(mem), ru.cfg, ru.seeds, ru.tags)
			where := fmt.Sprintf("graph %d run %d cfg %+v seeds %v tags %q", i, k, ru.cfg, ru.seeds, ru.tags)
			for s := range ru.seeds {
				if want[s].Error != "" {
					t.Fatalf("%s: server: %s", where, want[s].Error)
				}
				if msg := compareResults(got[s], mw[s], gl[s], mwl[s]); msg != "" {
					t.Fatalf("%s, seed %s: snapshot and memory engine differ (with traces): %s", where, ru.seeds[s].NodeID, msg)
				}
				cg, cgl := coarse(got, gl)
				if msg := compareResults(cg[s], want[s], cgl[s], wl[s]); msg != "" {
					t.Fatalf("%s, seed %s: snapshot and server differ: %s", where, ru.seeds[s].NodeID, msg)
				}
			}
			explorations++
			if snap.Stats().Fetched == before {
				replayed++
			}
			if k == len(runs)-1 && snap.Stats().Fetched != before {
				t.Errorf("%s: the repeated first run read %d nodes from the server", where, snap.Stats().Fetched-before)
			}
		}
	}
	t.Logf("%d explorations, %d replayed wholly from the snapshot", explorations, replayed)
	if replayed < 8 {
		t.Errorf("only %d explorations were replayed wholly", replayed)
	}
}

// TestSnapshotDemoThresholdStep is the analyst's experiment on the demo
// graph (docs/DEMO_GRAPH.md scenario A, seed N2006 R 0.85, its four tags):
// explore at MIN_ACTIVATION 0.002, then step to 0.005 and back to 0.002.
// The first run reads the frontier nodes from the server; the two steps are
// replayed with no read (Fetched unchanged) and equal the server's answers:
// at 0.005 the three paths of scenario A (N2006→N2003→N2001→N2010,
// N2006→N2004→N2008, N2006→N2005).
func TestSnapshotDemoThresholdStep(t *testing.T) {
	src := fx.Demo(t)
	snap := NewSnapshot(src)
	seeds := []retriever.Seed{{NodeID: "N2006", Score: 0.85}}
	cfg := activation.DefaultParams()
	cfg.MinActivation = 0.002
	neo4jfix.ExploreWithLevels(t, snap, cfg, seeds, tagsA)
	read := snap.Stats().Fetched
	if read == 0 {
		t.Fatal("the first run read nothing")
	}
	for _, min := range []float64{0.005, 0.002} {
		cfg.MinActivation = min
		got, gl := coarse(neo4jfix.ExploreWithLevels(t, snap, cfg, seeds, tagsA))
		want, wl := neo4jfix.ExploreWithLevels(t, New(src), cfg, seeds, tagsA)
		if msg := compareResults(got[0], want[0], gl[0], wl[0]); msg != "" {
			t.Errorf("MIN_ACTIVATION %v: %s", min, msg)
		}
		if n := snap.Stats().Fetched; n != read {
			t.Errorf("MIN_ACTIVATION %v read %d more nodes", min, n-read)
		}
		if min == 0.005 && len(got[0].Paths) != 3 {
			t.Errorf("MIN_ACTIVATION 0.005: %d paths, want 3", len(got[0].Paths))
		}
	}
}

// TestSnapshotResetDuringRuns: five seeds of the demo graph explored at
// once through one snapshot, eight times, while another goroutine resets it
// again and again (the explorer's R key during a run). No exploration may
// fail or differ from the server's answer (the replay never loses a node
// from under it), and under -race nothing races.
func TestSnapshotResetDuringRuns(t *testing.T) {
	src := fx.Demo(t)
	snap := NewSnapshot(src)
	seeds := []retriever.Seed{{NodeID: "N2006", Score: 0.85}, {NodeID: "T3000", Score: 0.9}, {NodeID: "N2002", Score: 0.8},
		{NodeID: "T4020", Score: 1}, {NodeID: "T4003", Score: 1}}
	cfg := activation.DefaultParams()
	want, wl := neo4jfix.ExploreWithLevels(t, New(src), cfg, seeds, tagsA)
	stop := make(chan struct{})
	done := make(chan struct{})
	go func() {
		defer close(done)
		for {
			select {
			case <-stop:
				return
			default:
				snap.Reset()
			}
		}
	}()
	for run := 0; run < 8; run++ {
		got, gl := coarse(neo4jfix.ExploreWithLevels(t, snap, cfg, seeds, tagsA))
		for k := range seeds {
			if msg := compareResults(got[k], want[k], gl[k], wl[k]); msg != "" || got[k].Error != "" {
				t.Fatalf("run %d seed %s: %s %s", run, seeds[k].NodeID, got[k].Error, msg)
			}
		}
	}
	close(stop)
	<-done
}
