package sweep

import (
	"context"
	"encoding/json"
	"fmt"
	"math"
	"math/rand"
	"slices"
	"strings"
	"testing"

	"github.com/memoria-graph/memoria/graph/apoc"
	"github.com/memoria-graph/memoria/graph/inmem"
	"github.com/memoria-graph/memoria/retriever"
	"github.com/memoria-graph/memoria/retriever/activation"
	"github.com/memoria-graph/memoria/retriever/activation/oninmem"
	"github.com/memoria-graph/memoria/testkit/randgraph"
)

// nonMonotoneGraph is the worked example of docs/ALGORITHM.md "Sweeps and
// breakpoints": S–A (w 1), A–X (w 1), S–X (w 0.04), X–Z (w 0.2), no tags.
const nonMonotoneGraph = `{"type":"node","id":"0","labels":["Event"],"properties":{"id":"S"}}
{"type":"node","id":"1","labels":["Event"],"properties":{"id":"A"}}
{"type":"node","id":"2","labels":["Event"],"properties":{"id":"X"}}
{"type":"node","id":"3","labels":["Event"],"properties":{"id":"Z"}}
{"type":"relationship","id":"0","label":"RELATES","properties":{"weight":1},"start":{"id":"0","labels":["Event"]},"end":{"id":"1","labels":["Event"]}}
{"type":"relationship","id":"1","label":"RELATES","properties":{"weight":1},"start":{"id":"1","labels":["Event"]},"end":{"id":"2","labels":["Event"]}}
{"type":"relationship","id":"2","label":"RELATES","properties":{"weight":0.04},"start":{"id":"0","labels":["Event"]},"end":{"id":"2","labels":["Event"]}}
{"type":"relationship","id":"3","label":"RELATES","properties":{"weight":0.2},"start":{"id":"2","labels":["Event"]},"end":{"id":"3","labels":["Event"]}}
`

func load(t testing.TB, jsonl string) activation.Backend {
	t.Helper()
	g, err := inmem.Load(strings.NewReader(jsonl), "test")
	if err != nil {
		t.Fatal(err)
	}
	return oninmem.New(g)
}

func near(a, b float64) bool { return math.Abs(a-b) <= 1e-9*math.Max(1, math.Abs(b)) }

// TestNonMonotoneMinActivation sweeps MIN_ACTIVATION over 0.001, 0.01, 0.03
// and 0.1 with breakpoints on nonMonotoneGraph, seed S (R 1), no query tags
// (tag_sim 1), MAX_DEPTH 5, MAX_BRANCHES 3.
//
// Working (rule 1, T = R × w / √d × tag_sim; d(S) = 2, d(A) = 2, d(X) = 3):
//
//	T(S→A) = 1 × 1 / √2        = 0.7071
//	T(S→X) = 1 × 0.04 / √2     = 0.02828
//	T(A→X) = 0.7071 × 1 / √2   = 0.5       (X at depth 2)
//	T(X→Z) = 0.5 × 0.2 / √3    = 0.05774   (X at depth 2, R 0.5)
//	T(X→Z) = 0.02828 × 0.2 / √3 = 0.003266 (X at depth 1, R 0.02828)
//
// m < 0.003266: X is kept at depth 1, Z under it at depth 2: Z in.
// 0.003266 ≤ m < 0.02828: X at depth 1 again (it is visited, so A cannot
// reach it a level later), and X→Z (0.003266) is not above m: Z out.
// 0.02828 ≤ m < 0.05774: S→X is not above m, X comes at depth 2 under A with
// R 0.5, and X→Z (0.05774) is kept: Z in. m ≥ 0.05774: Z out.
//
// Breakpoints (values where the result changes, within [0.001, 0.1]):
// 0.003266 (Z leaves), 0.02828 (X moves under A, Z back), 0.05774 (Z
// leaves); 0.7071 and 0.5 lie above 0.1. The current value 0.005 is a point
// too. Points: 0.001, 0.003266, 0.005, 0.01, 0.02828, 0.03, 0.05774, 0.1;
// Z in at 0.001, 0.02828, 0.03: bands [0.001, 0.003266) and [0.02828,
// 0.05774). Scanning from 0.1 down: out, out, in (0.03), in (0.02828), out
// (0.01): the flip is in at 0.02828, out at 0.01.
func TestNonMonotoneMinActivation(t *testing.T) {
	s, err := Run(context.Background(), Config{
		Backend: load(t, nonMonotoneGraph), Params: activation.DefaultParams(), Options: activation.DefaultOptions(),
		Seeds: []retriever.Seed{{NodeID: "S", Score: 1}}, Param: MinActivation,
		Values: []float64{0.1, 0.03, 0.01, 0.001}, Breakpoints: true,
	})
	if err != nil {
		t.Fatal(err)
	}
	want := []float64{0.001, 0.04 / math.Sqrt2 * 0.2 / math.Sqrt(3), 0.005, 0.01, 0.04 / math.Sqrt2, 0.03, 0.5 * 0.2 / math.Sqrt(3), 0.1}
	wantBreak := []bool{false, true, false, false, true, false, true, false}
	if len(s.Points) != len(want) {
		t.Fatalf("%d points, want %d: %+v", len(s.Points), len(want), values(s))
	}
	for i, p := range s.Points {
		if !near(p.Value, want[i]) || p.Breakpoint != wantBreak[i] {
			t.Errorf("point %d = %v (breakpoint %v), want %v (%v)", i, p.Value, p.Breakpoint, want[i], wantBreak[i])
		}
	}
	if !s.Exact() || s.Stopped != "" {
		t.Errorf("Exact %v, Stopped %q; want true, \"\"", s.Exact(), s.Stopped)
	}
	var z *NodeBands
	for _, nb := range s.Bands() {
		if nb.NodeID == "Z" {
			z = &nb
		}
	}
	if z == nil {
		t.Fatal("Z has no bands")
	}
	if len(z.Bands) != 2 || z.Bands[0].From != 0.001 || !near(*z.Bands[0].Until, want[1]) ||
		!near(z.Bands[1].From, want[4]) || z.Bands[1].To != 0.03 || !near(*z.Bands[1].Until, want[6]) {
		t.Errorf("Z bands = %+v, want [0.001, 0.003266) and [0.02828, 0.05774)", z.Bands)
	}
	if z.Flip == nil || !near(z.Flip.In, want[4]) || z.Flip.Out != 0.01 {
		t.Errorf("Z flip = %+v, want in at 0.02828, out at 0.01", z.Flip)
	}
}

func values(s *Sweep) []float64 {
	var out []float64
	for _, p := range s.Points {
		out = append(out, p.Value)
	}
	return out
}

// randomCase is a random graph (testkit/randgraph, 15 to 60 nodes) on the
// memory engine with up to 3 seeds drawn from its nodes and 0 to 2 query
// tags.
func randomCase(t *testing.T, r *rand.Rand) (activation.Backend, []retriever.Seed, []string) {
	t.Helper()
	opt := randgraph.Random(r, 15, 60)
	g := randgraph.Generate(r, opt)
	var b strings.Builder
	if err := apoc.Write(&b, g); err != nil {
		t.Fatal(err)
	}
	be := load(t, b.String())
	var seeds []retriever.Seed
	for range 1 + r.Intn(3) {
		n := g.Nodes[r.Intn(len(g.Nodes))]
		id, _ := n.Properties["id"].(string)
		if id == "" {
			continue
		}
		seeds = append(seeds, retriever.Seed{NodeID: id, Score: 0.3 + 0.7*r.Float64()})
	}
	if len(seeds) == 0 {
		seeds = []retriever.Seed{{NodeID: "missing", Score: 1}}
	}
	var tags []string
	for range r.Intn(3) {
		tags = append(tags, opt.Tags[r.Intn(len(opt.Tags))])
	}
	return be, seeds, tags
}

func jsonOf(t *testing.T, v any) string {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// fresh explores once with p set to v and returns the results as `explore
// --format json` prints them (untraced: coarse end reasons, no near miss).
func fresh(t *testing.T, be activation.Backend, base activation.Params, p Param, v float64, seeds []retriever.Seed, tags []string) []activation.Result {
	t.Helper()
	ps, err := p.Set(base, v)
	if err != nil {
		t.Fatal(err)
	}
	rt, err := activation.New(be, ps, activation.DefaultOptions())
	if err != nil {
		t.Fatal(err)
	}
	res, err := rt.ExploreAll(context.Background(), seeds, tags)
	if err != nil {
		t.Fatal(err)
	}
	for i, r := range res {
		paths := make([]activation.Path, len(r.Paths))
		for k, pt := range r.Paths {
			pt.EndReason, pt.NearMiss = pt.EndReason.Coarse(), nil
			paths[k] = pt
		}
		res[i].Paths = paths
	}
	return res
}

// replayed returns every point's results (Sweep.Replay).
func replayed(t *testing.T, s *Sweep) [][]activation.Result {
	t.Helper()
	var out [][]activation.Result
	if err := s.Replay(context.Background(), func(_ Point, res []activation.Result) error {
		out = append(out, slices.Clone(res))
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	if len(out) != len(s.Points) {
		t.Fatalf("Replay gave %d points, the sweep has %d", len(out), len(s.Points))
	}
	return out
}

// checkExactPart: for MIN_ACTIVATION, within the sweep's exact part, a
// fresh exploration at a value m drawn between two points (and at the next
// double below each point) gives the results of the highest point ≤ m, and
// each breakpoint's results differ from the point's below it. A point's
// totals are its results' totals.
func checkExactPart(t *testing.T, r *rand.Rand, s *Sweep, res [][]activation.Result, be activation.Backend, base activation.Params, seeds []retriever.Seed, tags []string, what string) {
	t.Helper()
	js := make([]string, len(res)) // each point's results as JSON, once
	for i := range res {
		js[i] = jsonOf(t, res[i])
	}
	for i, pt := range s.Points {
		if got := TotalsOf(res[i]); got.Paths != pt.Totals.Paths || got.Nodes != pt.Totals.Nodes || !near(got.Energy, pt.Totals.Energy) {
			t.Fatalf("%s: point %v totals %+v, its results give %+v", what, pt.Value, pt.Totals, got)
		}
		if i == 0 {
			continue
		}
		lo, hi := s.Points[i-1].Value, pt.Value
		if pt.Breakpoint && js[i] == js[i-1] {
			t.Fatalf("%s: breakpoint %v has the results of the point below it, %v", what, hi, lo)
		}
		if lo < s.ExactFrom || hi >= s.ExactUntil {
			continue
		}
		want := js[i-1]
		for _, m := range []float64{lo + (hi-lo)*r.Float64(), math.Nextafter(hi, 0)} {
			if m < lo || m >= hi { // a draw may round to hi
				continue
			}
			if got := jsonOf(t, fresh(t, be, base, MinActivation, m, seeds, tags)); got != want {
				t.Fatalf("%s: min-activation %v (between points %v and %v, exact part [%v, %v)) gives another result than %v", what, m, lo, hi, s.ExactFrom, s.ExactUntil, lo)
			}
		}
	}
}

// TestPointsEqualFreshExplores: on 8 random graphs, for each of the four
// parameters over its default range (MIN_ACTIVATION with breakpoints), every
// point's results (Replay) equal, as JSON, a fresh exploration with that
// value and the other thresholds at their defaults, and the current value
// is a point.
//
// And the breakpoints are exact: the MIN_ACTIVATION sweep is exact over the
// whole range (no budget), and within it no value between two points gives
// another result than the lower point (checkExactPart).
func TestPointsEqualFreshExplores(t *testing.T) {
	r := rand.New(rand.NewSource(10))
	base := activation.DefaultParams()
	for iter := range 8 {
		be, seeds, tags := randomCase(t, r)
		for _, p := range Params {
			from, to, steps := DefaultRange(p)
			vals, err := Grid(p, from, to, steps)
			if err != nil {
				t.Fatal(err)
			}
			s, err := Run(context.Background(), Config{Backend: be, Params: base, Options: activation.DefaultOptions(),
				Seeds: seeds, Tags: tags, Param: p, Values: vals, Breakpoints: true})
			if err != nil {
				t.Fatal(err)
			}
			if !slices.ContainsFunc(s.Points, func(pt Point) bool { return pt.Value == p.Get(base) }) {
				t.Fatalf("graph %d, %s: the current value %v is not a point", iter, p, p.Get(base))
			}
			res := replayed(t, s)
			for i, pt := range s.Points {
				if got, want := jsonOf(t, res[i]), jsonOf(t, fresh(t, be, base, p, pt.Value, seeds, tags)); got != want {
					t.Fatalf("graph %d, %s = %v: sweep point differs from a fresh explore:\n got %s\nwant %s", iter, p, pt.Value, got, want)
				}
			}
			if p != MinActivation {
				continue
			}
			if !s.Exact() || s.Stopped != "" {
				t.Fatalf("graph %d: min-activation sweep not exact (exact part [%v, %v), stopped %q)", iter, s.ExactFrom, s.ExactUntil, s.Stopped)
			}
			checkExactPart(t, r, s, res, be, base, seeds, tags, fmt.Sprintf("graph %d", iter))
		}
	}
}

// TestBudgetKeepsExactPartExact: on 30 random graphs, a MIN_ACTIVATION sweep
// over the default range whose point budget runs out (MaxPoints 1 to 12) is
// still right where it says it is: its exact part holds the current value,
// lies in the range, every breakpoint an unbounded sweep finds inside that
// part is a point of it too (and no other breakpoint), every point equals a
// fresh exploration, and it says why it stopped.
func TestBudgetKeepsExactPartExact(t *testing.T) {
	r := rand.New(rand.NewSource(11))
	base := activation.DefaultParams()
	from, to, steps := DefaultRange(MinActivation)
	vals, err := Grid(MinActivation, from, to, steps)
	if err != nil {
		t.Fatal(err)
	}
	stoppedEarly := 0
	for iter := range 30 {
		be, seeds, tags := randomCase(t, r)
		cfg := Config{Backend: be, Params: base, Options: activation.DefaultOptions(), Seeds: seeds, Tags: tags,
			Param: MinActivation, Values: vals, Breakpoints: true}
		full, err := Run(context.Background(), cfg)
		if err != nil {
			t.Fatal(err)
		}
		cfg.MaxPoints = 1 + r.Intn(12)
		s, err := Run(context.Background(), cfg)
		if err != nil {
			t.Fatal(err)
		}
		what := fmt.Sprintf("graph %d, MaxPoints %d", iter, cfg.MaxPoints)
		if !s.HasExact() || s.ExactFrom > base.MinActivation || s.ExactUntil <= base.MinActivation || s.ExactFrom < from {
			t.Fatalf("%s: exact part [%v, %v) does not hold the current value in the range", what, s.ExactFrom, s.ExactUntil)
		}
		if !s.Exact() {
			stoppedEarly++
			if s.Stopped != "point limit" {
				t.Fatalf("%s: not exact, Stopped %q", what, s.Stopped)
			}
		}
		var wantBreaks, gotBreaks []float64
		for _, pt := range full.Points {
			if pt.Breakpoint && pt.Value > s.ExactFrom && pt.Value < s.ExactUntil {
				wantBreaks = append(wantBreaks, pt.Value)
			}
		}
		for _, pt := range s.Points {
			if pt.Breakpoint {
				gotBreaks = append(gotBreaks, pt.Value)
			}
		}
		if jsonOf(t, gotBreaks) != jsonOf(t, wantBreaks) {
			t.Fatalf("%s: breakpoints %v, the unbounded sweep has %v in [%v, %v)", what, gotBreaks, wantBreaks, s.ExactFrom, s.ExactUntil)
		}
		res := replayed(t, s)
		for i, pt := range s.Points {
			if got, want := jsonOf(t, res[i]), jsonOf(t, fresh(t, be, base, MinActivation, pt.Value, seeds, tags)); got != want {
				t.Fatalf("%s: point %v differs from a fresh explore", what, pt.Value)
			}
		}
		checkExactPart(t, r, s, res, be, base, seeds, tags, what)
	}
	if stoppedEarly < 5 {
		t.Fatalf("only %d of 30 budgets ran out: the test does not exercise a cut sweep", stoppedEarly)
	}
}

// TestProgressStreams: Progress receives snapshots before the end (at least
// one per value asked, the current value's first, plus the end), the
// first holding nothing below the current value (only it and values asked
// that its runs already cover); each snapshot's points are
// ascending, and each is a point of the finished sweep with the same
// totals (the exact part only grows, so a breakpoint once shown stays); the
// last call is the finished sweep. Snapshots are taken on a sweep cut by a
// point budget too, on 8 random graphs.
func TestProgressStreams(t *testing.T) {
	r := rand.New(rand.NewSource(12))
	for iter := range 8 {
		be, seeds, tags := randomCase(t, r)
		from, to, steps := DefaultRange(MinActivation)
		vals, _ := Grid(MinActivation, from, to, steps)
		var snaps []*Sweep
		s, err := Run(context.Background(), Config{Backend: be, Params: activation.DefaultParams(), Options: activation.DefaultOptions(),
			Seeds: seeds, Tags: tags, Param: MinActivation, Values: vals, Breakpoints: true, MaxPoints: 1 + iter*3,
			Progress: func(s *Sweep) { snaps = append(snaps, s) }})
		if err != nil {
			t.Fatal(err)
		}
		checkSnapshots(t, snaps, s, len(vals))
	}
}

// checkSnapshots checks the snapshots of a MIN_ACTIVATION sweep s at the
// default 0.005 over asked values (TestProgressStreams).
func checkSnapshots(t *testing.T, snaps []*Sweep, s *Sweep, asked int) {
	t.Helper()
	if len(snaps) < asked+2 {
		t.Fatalf("%d snapshots, want at least one per value asked plus the current value and the end (%d)", len(snaps), asked+2)
	}
	if first := snaps[0]; len(first.Points) == 0 || first.Points[0].Value != 0.005 || first.Done {
		t.Fatalf("first snapshot: %+v (done %v), want the current value 0.005 first", first.Points, first.Done)
	}
	if last := snaps[len(snaps)-1]; !last.Done || last != s {
		t.Fatal("the last snapshot is not the finished sweep")
	}
	for i, sn := range snaps[:len(snaps)-1] {
		if sn.Done {
			t.Fatalf("snapshot %d says done", i)
		}
		for k := 1; k < len(sn.Points); k++ {
			if sn.Points[k-1].Value >= sn.Points[k].Value {
				t.Fatalf("snapshot %d: points not ascending", i)
			}
		}
		for _, p := range sn.Points {
			k := slices.IndexFunc(s.Points, func(q Point) bool { return q.Value == p.Value })
			if k < 0 || s.Points[k] != p {
				t.Fatalf("snapshot %d: point %+v is not in the finished sweep as it is", i, p)
			}
		}
	}
}

// TestGrid: a min-activation grid from 0.001 to 0.1 in 5 steps is
// logarithmic: 0.001 × 100^(k/4) = 0.001, 0.00316 (3.162e-3 at 3
// significant digits), 0.01, 0.0316, 0.1; a max-branches grid from 1 to 10
// in 4 steps is 1, 4, 7, 10; integer duplicates are dropped (max-depth 1 to 2
// in 5 steps: 1, 1.25→1, 1.5→2, 1.75→2, 2 gives 1, 2).
func TestGrid(t *testing.T) {
	for _, c := range []struct {
		p     Param
		from  float64
		to    float64
		steps int
		want  []float64
	}{
		{MinActivation, 0.001, 0.1, 5, []float64{0.001, 0.00316, 0.01, 0.0316, 0.1}},
		{MaxBranches, 1, 10, 4, []float64{1, 4, 7, 10}},
		{MaxDepth, 1, 2, 5, []float64{1, 2}},
		{TagSimFloor, 0, 1, 3, []float64{0, 0.5, 1}},
	} {
		got, err := Grid(c.p, c.from, c.to, c.steps)
		if err != nil || jsonOf(t, got) != jsonOf(t, c.want) {
			t.Errorf("Grid(%s, %v, %v, %d) = %v, %v; want %v", c.p, c.from, c.to, c.steps, got, err, c.want)
		}
	}
	for _, c := range []struct {
		p        Param
		from, to float64
		steps    int
		msg      string
	}{
		{MinActivation, 0, 0.1, 5, "--from must be above 0"},
		{TagSimFloor, 1, 0, 5, "--from 1 is above --to 0"},
		{MaxBranches, 1, 5, 0, "--steps must be between 1 and 10000"},
	} {
		if _, err := Grid(c.p, c.from, c.to, c.steps); err == nil || !strings.Contains(err.Error(), c.msg) {
			t.Errorf("Grid(%s, %v, %v, %d) error %v, want %q", c.p, c.from, c.to, c.steps, err, c.msg)
		}
	}
	if _, err := MaxBranches.Set(activation.DefaultParams(), 2.5); err == nil || !strings.Contains(err.Error(), "max-branches takes whole numbers, got 2.5") {
		t.Errorf("MaxBranches.Set(2.5) error %v", err)
	}
	if _, err := MaxDepth.Set(activation.DefaultParams(), 13); err == nil || !strings.Contains(err.Error(), "max_depth must be between 1 and 12, got 13") {
		t.Errorf("MaxDepth.Set(13) error %v", err)
	}
}

// TestTotals on the worked example of docs/ALGORITHM.md... built by hand:
// paths S→A→B and S→A→C share the hop S→A. Paths 2; nodes reached A, B, C
// = 3; summed energy 0.5 + 0.1 + 0.05 = 0.65 (S→A counted once).
func TestTotals(t *testing.T) {
	step := func(from, to string, tt float64) activation.Step {
		s := activation.Step{TransferEnergy: tt}
		s.FromNode.ID, s.ToNode.ID = from, to
		return s
	}
	p1 := activation.Path{}.Extend(step("S", "A", 0.5)).Extend(step("A", "B", 0.1))
	p2 := activation.Path{}.Extend(step("S", "A", 0.5)).Extend(step("A", "C", 0.05))
	got := TotalsOf([]activation.Result{{Paths: []activation.Path{p1, p2}}})
	if got.Paths != 2 || got.Nodes != 3 || !near(got.Energy, 0.65) {
		t.Errorf("TotalsOf = %+v, want 2 paths, 3 nodes, energy 0.65", got)
	}
}
