package activation_test

import (
	"context"
	"encoding/json"
	"errors"
	"math"
	"math/rand"
	"runtime"
	"slices"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/memoria-graph/memoria/graph"
	"github.com/memoria-graph/memoria/retriever"
	"github.com/memoria-graph/memoria/retriever/activation"
	"github.com/memoria-graph/memoria/testkit/naive"
	"github.com/memoria-graph/memoria/testkit/randgraph"
)

func w(x float64) *float64 { return &x }

// chain builds S-A (w 0.9), A-B (w 0.8), B-C (w 0.7), S-D (w 0.3), all
// untagged, plus an isolated node Z. Degrees: S 2, A 2, B 2, C 1, D 1.
func chain() *naive.Graph {
	g := &naive.Graph{}
	for _, id := range []string{"S", "A", "B", "C", "D", "Z"} {
		g.Nodes = append(g.Nodes, naive.Node{ID: id, HasID: true, Labels: []string{"Event"}, Props: map[string]any{"id": id}})
	}
	add := func(a, b int, x float64) {
		g.Edges = append(g.Edges, naive.Edge{From: a, To: b, Type: "RELATES", Weight: w(x)})
	}
	add(0, 1, 0.9)
	add(1, 2, 0.8)
	add(2, 3, 0.7)
	add(0, 4, 0.3)
	return g
}

func mustNew(t *testing.T, b activation.Backend, cfg activation.Params) *activation.Retriever {
	return mustNewRetries(t, b, cfg, activation.DefaultOptions().MaxRetries)
}

// mustNewRetries is mustNew with retries retries, 1 ms apart.
func mustNewRetries(t *testing.T, b activation.Backend, cfg activation.Params, retries int) *activation.Retriever {
	t.Helper()
	g, err := activation.New(b, cfg, activation.Options{MaxRetries: retries, Backoff: func(int) time.Duration { return time.Millisecond }})
	if err != nil {
		t.Fatal(err)
	}
	return g
}

func ids(r activation.Result) []string {
	var out []string
	for _, p := range r.Paths {
		out = append(out, strings.Join(p.NodeIDs(), ">"))
	}
	return out
}

// TestExploreChain runs a whole exploration by hand.
//
// Seed S, R 1, no tags (tag_sim 1), defaults (min 0.005, 3 branches):
// depth 1: S (d 2) → A: 1 × 0.9/√2 = 0.63640; → D: 1 × 0.3/√2 = 0.21213.
// depth 2: A (d 2) → B: 0.63640 × 0.8/√2 = 0.36; D (d 1) has only S, visited:
// S→D completes (no_candidates).
// depth 3: B (d 2) → C: 0.36 × 0.7/√2 = 0.17819.
// depth 4: C (d 1) has only B, visited: S→A→B→C completes.
// Frontier empty after 4 levels < MAX_DEPTH 5: frontier_exhausted,
// max_depth_reached 3. Tree order: A (0.636) before D (0.212).
func TestExploreChain(t *testing.T) {
	g := mustNew(t, naive.Backend{G: chain()}, activation.DefaultParams())
	res, err := g.ExploreAll(context.Background(), []retriever.Seed{{NodeID: "S", Score: 1}}, nil)
	if err != nil {
		t.Fatal(err)
	}
	r := res[0]
	if got := ids(r); !slices.Equal(got, []string{"S>A>B>C", "S>D"}) {
		t.Fatalf("paths %v", got)
	}
	if r.TerminatedReason != activation.TerminatedFrontierExhausted || r.MaxDepthReached != 3 {
		t.Errorf("reason %s depth %d, want frontier_exhausted 3", r.TerminatedReason, r.MaxDepthReached)
	}
	want := []float64{0.9 / math.Sqrt2, 0.36, 0.36 * 0.7 / math.Sqrt2}
	for i, s := range r.Paths[0].Steps {
		if math.Abs(s.TransferEnergy-want[i]) > 1e-12 {
			t.Errorf("step %d T = %v, want %v", i, s.TransferEnergy, want[i])
		}
	}
	if r.Paths[0].EndReason != activation.EndNoCandidates {
		t.Errorf("end reason %q", r.Paths[0].EndReason)
	}
}

// TestExploreMaxDepth: with MAX_DEPTH 2 the chain stops at B with the
// frontier still alive: S→A→B ends at max depth, reason max_depth.
func TestExploreMaxDepth(t *testing.T) {
	cfg := activation.DefaultParams()
	cfg.MaxDepth = 2
	res, err := mustNew(t, naive.Backend{G: chain()}, cfg).ExploreAll(context.Background(), []retriever.Seed{{NodeID: "S", Score: 1}}, nil)
	if err != nil {
		t.Fatal(err)
	}
	r := res[0]
	if got := ids(r); !slices.Equal(got, []string{"S>A>B", "S>D"}) {
		t.Fatalf("paths %v", got)
	}
	if r.TerminatedReason != activation.TerminatedMaxDepth || r.MaxDepthReached != 2 || r.Paths[0].EndReason != activation.EndMaxDepth {
		t.Errorf("reason %s depth %d end %s", r.TerminatedReason, r.MaxDepthReached, r.Paths[0].EndReason)
	}
}

// TestSeedNotFoundAndIsolated: an unknown seed is a result, not an error;
// an isolated seed has no paths and exhausts its frontier at once.
func TestSeedNotFoundAndIsolated(t *testing.T) {
	res, err := mustNew(t, naive.Backend{G: chain()}, activation.DefaultParams()).ExploreAll(context.Background(),
		[]retriever.Seed{{NodeID: "nope", Score: 1}, {NodeID: "Z", Score: 1}}, nil)
	if err != nil {
		t.Fatal(err)
	}
	if res[0].TerminatedReason != activation.TerminatedSeedNotFound || res[0].SeedNode != nil || len(res[0].Paths) != 0 {
		t.Errorf("unknown seed: %+v", res[0])
	}
	if res[1].TerminatedReason != activation.TerminatedFrontierExhausted || len(res[1].Paths) != 0 || res[1].MaxDepthReached != 0 {
		t.Errorf("isolated seed: %+v", res[1])
	}
}

// TestStreamOrder: each seed's events come as seed, then levels 1, 2, …
// in order, then its result last; the channel then closes. The query tags
// " x " and "x" normalise to one tag.
func TestStreamOrder(t *testing.T) {
	ch, err := mustNew(t, naive.Backend{G: chain()}, activation.DefaultParams()).Explore(context.Background(),
		[]retriever.Seed{{NodeID: "S", Score: 1}, {NodeID: "A", Score: 0.5}}, []string{" x ", "x"})
	if err != nil {
		t.Fatal(err)
	}
	seen := map[int][]string{}
	for ev := range ch {
		var s string
		switch ev.Kind {
		case activation.EventSeed:
			s = "seed"
		case activation.EventLevel:
			s = "L" + string(rune('0'+ev.Level.Depth))
		case activation.EventResult:
			s = "result"
		}
		seen[ev.SeedIndex] = append(seen[ev.SeedIndex], s)
	}
	// Tag x is on no edge, so every edge has tag_sim 0.15. S: L1 S→A
	// 0.9/√2 × 0.15 = 0.09546, S→D 0.3/√2 × 0.15 = 0.03182; L2 A→B
	// 0.09546 × 0.8/√2 × 0.15 = 0.00810; L3 B→C 0.00810 × 0.7/√2 × 0.15 =
	// 0.00060 < 0.005, nothing kept, frontier empty: three levels.
	if got := seen[0]; !slices.Equal(got, []string{"seed", "L1", "L2", "L3", "result"}) {
		t.Errorf("seed 0 events %v", got)
	}
	if got := seen[1]; got[0] != "seed" || got[len(got)-1] != "result" {
		t.Errorf("seed 1 events %v", got)
	}
}

// flaky fails its first n calls with err, then defers to the graph.
type flaky struct {
	naive.Backend
	n     atomic.Int32
	err   error
	calls atomic.Int32
}

func (f *flaky) Open(context.Context) (activation.Expander, func(context.Context) error, error) {
	return f, func(context.Context) error { return nil }, nil
}

func (f *flaky) FetchSeed(ctx context.Context, id string) (graph.Node, bool, error) {
	f.calls.Add(1)
	if f.n.Add(-1) >= 0 {
		return graph.Node{}, false, f.err
	}
	return f.Backend.FetchSeed(ctx, id)
}

// TestRetries: MaxRetries 2 survives two transient failures (3 attempts),
// MaxRetries 1 does not and the seed ends in error naming the cause; a
// non-transient error is not retried at all (1 call).
func TestRetries(t *testing.T) {
	cause := errors.New("connection reset")
	for _, c := range []struct {
		retries  int
		err      error
		reason   activation.Termination
		attempts int32
	}{
		{2, graph.Transient(cause), activation.TerminatedFrontierExhausted, 3},
		{1, graph.Transient(cause), activation.TerminatedError, 2},
		{3, cause, activation.TerminatedError, 1},
	} {
		f := &flaky{Backend: naive.Backend{G: chain()}, err: c.err}
		f.n.Store(2)
		res, err := mustNewRetries(t, f, activation.DefaultParams(), c.retries).ExploreAll(context.Background(), []retriever.Seed{{NodeID: "S", Score: 1}}, nil)
		if err != nil {
			t.Fatal(err)
		}
		if res[0].TerminatedReason != c.reason || f.calls.Load() != c.attempts {
			t.Errorf("retries %d: reason %s after %d calls, want %s after %d", c.retries, res[0].TerminatedReason, f.calls.Load(), c.reason, c.attempts)
		}
		if c.reason == activation.TerminatedError && !strings.Contains(res[0].Error, "connection reset") {
			t.Errorf("error %q does not name the cause", res[0].Error)
		}
	}
}

// perSeed fails every call for seed BAD and serves the others.
type perSeed struct{ naive.Backend }

func (p perSeed) Open(context.Context) (activation.Expander, func(context.Context) error, error) {
	return p, func(context.Context) error { return nil }, nil
}

func (p perSeed) FetchSeed(ctx context.Context, id string) (graph.Node, bool, error) {
	if id == "BAD" {
		return graph.Node{}, false, errors.New("boom")
	}
	return p.Backend.FetchSeed(ctx, id)
}

// TestFailingSeedDoesNotStopOthers: seed BAD ends in error, seed S still
// returns its two paths.
func TestFailingSeedDoesNotStopOthers(t *testing.T) {
	res, err := mustNew(t, perSeed{naive.Backend{G: chain()}}, activation.DefaultParams()).ExploreAll(context.Background(),
		[]retriever.Seed{{NodeID: "BAD", Score: 1}, {NodeID: "S", Score: 1}}, nil)
	if err != nil {
		t.Fatal(err)
	}
	if res[0].TerminatedReason != activation.TerminatedError || res[0].Error != "boom" {
		t.Errorf("BAD: %+v", res[0])
	}
	if len(res[1].Paths) != 2 {
		t.Errorf("S: %d paths, want 2", len(res[1].Paths))
	}
}

// blocking blocks every expansion until its context ends.
type blocking struct{ naive.Backend }

func (b blocking) Open(context.Context) (activation.Expander, func(context.Context) error, error) {
	return b, func(context.Context) error { return nil }, nil
}

func (blocking) ExpandFrontier(ctx context.Context, _ activation.ExpandRequest) ([]activation.Candidate, error) {
	<-ctx.Done()
	return nil, ctx.Err()
}

// TestCancelStopsPromptlyWithoutLeaks: cancelling while five seeds are
// blocked closes the stream and leaves no goroutine behind,
// even though the consumer reads nothing before cancelling.
func TestCancelStopsPromptlyWithoutLeaks(t *testing.T) {
	before := runtime.NumGoroutine()
	ctx, cancel := context.WithCancel(context.Background())
	seeds := []retriever.Seed{{NodeID: "S", Score: 1}, {NodeID: "A", Score: 1}, {NodeID: "B", Score: 1}, {NodeID: "C", Score: 1}, {NodeID: "D", Score: 1}}
	ch, err := mustNew(t, blocking{naive.Backend{G: chain()}}, activation.DefaultParams()).Explore(ctx, seeds, nil)
	if err != nil {
		t.Fatal(err)
	}
	time.Sleep(20 * time.Millisecond)
	cancel()
	// Generous bound: it only proves cancel does not hang, on a loaded CI box.
	deadline := time.After(10 * time.Second)
	for open := true; open; {
		select {
		case ev, ok := <-ch:
			open = ok
			if ok && ev.Kind == activation.EventResult && ev.Result.TerminatedReason != activation.TerminatedCancelled {
				t.Errorf("result after cancel: %s", ev.Result.TerminatedReason)
			}
		case <-deadline:
			t.Fatal("stream not closed within 10s of cancel")
		}
	}
	for i := 0; runtime.NumGoroutine() > before && i < 100; i++ {
		time.Sleep(10 * time.Millisecond)
	}
	if n := runtime.NumGoroutine(); n > before {
		t.Fatalf("%d goroutines after cancel, %d before", n, before)
	}
}

// TestInvalidInput: bad seeds and bad configs are refused before any work.
func TestInvalidInput(t *testing.T) {
	if _, err := activation.New(naive.Backend{G: chain()}, activation.Params{}, activation.DefaultOptions()); err == nil {
		t.Error("zero config accepted")
	}
	if _, err := activation.New(naive.Backend{G: chain()}, activation.DefaultParams(), activation.Options{MaxRetries: -1}); err == nil {
		t.Error("negative retries accepted")
	}
	g := mustNew(t, naive.Backend{G: chain()}, activation.DefaultParams())
	if _, err := g.Explore(context.Background(), []retriever.Seed{{NodeID: "S", Score: 0}}, nil); err == nil || !strings.Contains(err.Error(), "score") {
		t.Errorf("score 0 accepted: %v", err)
	}
}

// randomGraph is a small randgraph graph (4 to 17 nodes: self-loops,
// parallel edges, MENTIONS relationships, missing and integer weights,
// missing, empty and duplicated tags) in which some nodes lose their id
// property, converted for naive. It returns the ids the nodes had, stripped
// ones included, and the tag vocabulary.
func randomGraph(r *rand.Rand) (*naive.Graph, []string, []string) {
	opt := randgraph.Random(r, 4, 17)
	ag := randgraph.Generate(r, opt)
	ids := make([]string, len(ag.Nodes))
	for i, n := range ag.Nodes {
		ids[i] = n.Properties["id"].(string)
		if r.Intn(15) == 0 {
			delete(n.Properties, "id")
		}
	}
	return naive.FromAPOC(ag), ids, opt.Tags
}

// TestAgainstNaive is the property test of the normative rules: on 500
// random graphs, seeds, tags and configs, the orchestrator and traversal
// state give exactly the paths, energies and level fates of the naive
// implementation (which shares no traversal code).
func TestAgainstNaive(t *testing.T) {
	r := rand.New(rand.NewSource(2))
	paths := 0
	for iter := range 500 {
		g, nodeIDs, vocab := randomGraph(r)
		cfg := activation.DefaultParams()
		cfg.MaxDepth = 1 + r.Intn(5)
		cfg.MaxBranches = 1 + r.Intn(3)
		cfg.MinActivation = []float64{0, 0.005, 0.05, 0.2}[r.Intn(4)]
		cfg.TagSimFloor = float64(r.Intn(5)) / 4
		var q []string
		for range r.Intn(3) {
			q = append(q, vocab[r.Intn(len(vocab))])
		}
		q = retriever.NormalizeTags(q)
		// One draw in len+1 is an id no node has; a stripped node's is another.
		id := "nope"
		if k := r.Intn(len(nodeIDs) + 1); k < len(nodeIDs) {
			id = nodeIDs[k]
		}
		seed := retriever.Seed{NodeID: id, Score: float64(1+r.Intn(4)) / 4}

		want := naive.Explore(g, seed, q, cfg)
		got, levels, err := naive.Run(context.Background(), mustNew(t, naive.Backend{G: g}, cfg), seed, q)
		if err != nil {
			t.Fatal(err)
		}
		paths += len(got.Paths)
		if msg := naive.Diff(got, levels, want); msg != "" {
			t.Fatalf("iter %d seed %v cfg %+v tags %v: %s", iter, seed, cfg, q, msg)
		}
	}
	// Guard against a vacuous run.
	if paths < 500 {
		t.Fatalf("only %d paths over 500 explorations", paths)
	}
}

// TestCancelDuringBackoff: a transient failure starts a backoff of an hour;
// cancelling the context ends the wait at once: the event channel closes,
// any result delivered says cancelled, and there was exactly one call (no
// retry was attempted).
func TestCancelDuringBackoff(t *testing.T) {
	f := &flaky{Backend: naive.Backend{G: chain()}, err: graph.Transient(errors.New("reset"))}
	f.n.Store(100)
	g, err := activation.New(f, activation.DefaultParams(), activation.Options{MaxRetries: 3, Backoff: func(int) time.Duration { return time.Hour }})
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	ch, err := g.Explore(ctx, []retriever.Seed{{NodeID: "S", Score: 1}}, nil)
	if err != nil {
		t.Fatal(err)
	}
	for f.calls.Load() == 0 {
		time.Sleep(time.Millisecond)
	}
	cancel()
	deadline := time.After(10 * time.Second)
	for {
		select {
		case ev, ok := <-ch:
			if !ok {
				if n := f.calls.Load(); n != 1 {
					t.Errorf("%d calls, want 1", n)
				}
				return
			}
			if ev.Kind == activation.EventResult && ev.Result.TerminatedReason != activation.TerminatedCancelled {
				t.Errorf("reason %s, want cancelled", ev.Result.TerminatedReason)
			}
		case <-deadline:
			t.Fatal("cancel did not end the backoff")
		}
	}
}

// TestOverflowingEnergyIsAnError: S —1e308→ A —1e308→ B. With R = 1 and
// no query tags (tag_sim 1): T(S→A) = 1 × 1e308 / √1 × 1 = 1e308, still a
// double; T(A→B) = 1e308 × 1e308 / √2 × 1 overflows to +Inf. The seed must
// end in error naming the edge A → B and the arithmetic, keep no path
// (S→A was still growing), and the result must still encode as JSON.
func TestOverflowingEnergyIsAnError(t *testing.T) {
	g := &naive.Graph{}
	for _, id := range []string{"S", "A", "B"} {
		g.Nodes = append(g.Nodes, naive.Node{ID: id, HasID: true, Labels: []string{"Event"}, Props: map[string]any{"id": id}})
	}
	g.Edges = append(g.Edges, naive.Edge{From: 0, To: 1, Type: "RELATES", Weight: w(1e308)}, naive.Edge{From: 1, To: 2, Type: "RELATES", Weight: w(1e308)})
	res, _, err := naive.Run(context.Background(), mustNew(t, naive.Backend{G: g}, activation.DefaultParams()), retriever.Seed{NodeID: "S", Score: 1}, nil)
	if err != nil {
		t.Fatal(err)
	}
	if res.TerminatedReason != activation.TerminatedError || !strings.Contains(res.Error, `edge "A" → "B" (RELATES)`) ||
		!strings.Contains(res.Error, "1e+308 × 1e+308 / √2 × 1 is not a finite number") || len(res.Paths) != 0 {
		t.Fatalf("reason %s, error %q, %d paths", res.TerminatedReason, res.Error, len(res.Paths))
	}
	if _, err := json.Marshal(res); err != nil {
		t.Fatalf("the result does not encode: %v", err)
	}
}
