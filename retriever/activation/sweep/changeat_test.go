package sweep

import (
	"context"
	"fmt"
	"math"
	"strings"
	"testing"
	"time"

	"github.com/memoria-graph/memoria/retriever"
	"github.com/memoria-graph/memoria/retriever/activation"
)

// graphOf writes an APOC graph of the nodes named and the RELATES
// relationships "A-B:w" given.
func graphOf(nodes string, rels ...string) string {
	var b strings.Builder
	ids := map[string]int{}
	for i, n := range strings.Fields(nodes) {
		ids[n] = i
		fmt.Fprintf(&b, `{"type":"node","id":"%d","labels":["Event"],"properties":{"id":"%s"}}`+"\n", i, n)
	}
	for i, r := range rels {
		var from, to string
		var w float64
		ends, weight, _ := strings.Cut(r, ":")
		from, to, _ = strings.Cut(ends, "-")
		fmt.Sscan(weight, &w)
		fmt.Fprintf(&b, `{"type":"relationship","id":"%d","label":"RELATES","properties":{"weight":%g},"start":{"id":"%d","labels":["Event"]},"end":{"id":"%d","labels":["Event"]}}`+"\n",
			i, w, ids[from], ids[to])
	}
	return b.String()
}

// sweepS sweeps MIN_ACTIVATION with breakpoints from the current value 0.01
// to 0.4 on g, seed S (R 1), no tags, one worker.
func sweepS(t *testing.T, g string) *Sweep {
	t.Helper()
	ps := activation.DefaultParams()
	ps.MinActivation = 0.01
	s, err := Run(context.Background(), Config{Backend: load(t, g), Params: ps, Options: activation.DefaultOptions(),
		Seeds: []retriever.Seed{{NodeID: "S", Score: 1}}, Param: MinActivation, Values: []float64{0.01, 0.4},
		Breakpoints: true, Workers: 1})
	if err != nil {
		t.Fatal(err)
	}
	if !s.Exact() {
		t.Fatalf("not exact: [%v, %v), stopped %q", s.ExactFrom, s.ExactUntil, s.Stopped)
	}
	return s
}

// TestStepSkipsLosingCandidates: a candidate that loses its neighbour to
// another parent is not a step of its own (changeAt). The graph S–A (w 1),
// S–B (w 0.8), A–C (w 1), B–C (w 0.5), B–D (w 1); d(S) = 2, d(A) = 2,
// d(B) = 3 (rule 1, T = R × w / √d):
//
//	T(S→A) = 1 / √2           = 0.7071
//	T(S→B) = 0.8 / √2         = 0.5657
//	T(A→C) = 0.7071 × 1 / √2  = 0.5      (kept: C)
//	T(B→D) = 0.5657 × 1 / √3  = 0.3266   (kept: D)
//	T(B→C) = 0.5657 × 0.5 / √3 = 0.1633  (claimed: A took C first)
//
// C's and D's neighbours are all visited, so there is no third level. From
// 0.01 the result is the same until D drops at 0.3266 (B→C dropping at
// 0.1633 changes nothing: it claimed nothing, and B still kept D). Runs:
// 0.01 (the current value; its step holds to 0.3266), 0.4 (asked; holds to
// 0.5), 0.3266 (the breakpoint, its step cut at 0.4): 3. A step that ended
// at every candidate's T ran a fourth at 0.1633, for the same result.
// Points: 0.01, 0.3266 (a breakpoint), 0.4.
func TestStepSkipsLosingCandidates(t *testing.T) {
	s := sweepS(t, graphOf("S A B C D", "S-A:1", "S-B:0.8", "A-C:1", "B-C:0.5", "B-D:1"))
	bd := 0.8 / math.Sqrt2 / math.Sqrt(3)
	want := []float64{0.01, bd, 0.4}
	if len(s.Points) != 3 || !near(s.Points[0].Value, want[0]) || !near(s.Points[1].Value, want[1]) || !near(s.Points[2].Value, want[2]) ||
		!s.Points[1].Breakpoint {
		t.Fatalf("points %v, want %v with %v a breakpoint", values(s), want, bd)
	}
	if s.Explorations != 3 {
		t.Errorf("%d explorations, want 3 (0.01, 0.4 and %v)", s.Explorations, bd)
	}
}

// TestStepEndsWhereAParentLosesItsLastCandidate: the same graph without
// B–D. d(B) = 2, so T(B→C) = 0.5657 × 0.5 / √2 = 0.2, claimed by A→C
// (0.5). B kept nothing: its path S→B ends all_claimed while B→C is a
// candidate (m < 0.2), no_candidates once it is not (m ≥ 0.2; rule 6), so
// 0.2 is a breakpoint although the candidate that drops there lost.
// Points: 0.01, 0.2 (a breakpoint), 0.4; runs at 0.01, 0.4 and 0.2.
func TestStepEndsWhereAParentLosesItsLastCandidate(t *testing.T) {
	s := sweepS(t, graphOf("S A B C", "S-A:1", "S-B:0.8", "A-C:1", "B-C:0.5"))
	if len(s.Points) != 3 || !near(s.Points[1].Value, 0.2) || !s.Points[1].Breakpoint {
		t.Fatalf("points %v, want 0.01, 0.2 (a breakpoint), 0.4", values(s))
	}
	var ends []string
	if err := s.Replay(context.Background(), func(p Point, rs []activation.Result) error {
		for _, path := range rs[0].Paths {
			if len(path.Steps) == 1 && path.Steps[0].ToNode.ID == "B" {
				ends = append(ends, string(path.EndReason.Coarse()))
			}
		}
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	if strings.Join(ends, " ") != "all_claimed no_candidates no_candidates" {
		t.Errorf("S→B ends %v at the three points, want all_claimed, no_candidates, no_candidates", ends)
	}
	if s.Explorations != 3 {
		t.Errorf("%d explorations, want 3", s.Explorations)
	}
}

// TestBudgetSparesTheDecade: a time budget spent at once (1 ns) still
// leaves [current/Decade, current×Decade] exact. nonMonotoneGraph, seed S,
// the default current value 0.005, values 0.0001 and 0.1: the decade is
// [0.0005, 0.05], which holds the breakpoints 0.003266 and 0.02828
// (TestNonMonotoneMinActivation's working), so both are points, and the
// exact part reaches from 0.0005 or lower to above 0.05. Without the
// decade the first run of the search is refused: the exact part is the
// current value's step alone, [0.005, 0.02828).
func TestBudgetSparesTheDecade(t *testing.T) {
	s, err := Run(context.Background(), Config{
		Backend: load(t, nonMonotoneGraph), Params: activation.DefaultParams(), Options: activation.DefaultOptions(),
		Seeds: []retriever.Seed{{NodeID: "S", Score: 1}}, Param: MinActivation,
		Values: []float64{0.0001, 0.1}, Breakpoints: true, Budget: time.Nanosecond,
	})
	if err != nil {
		t.Fatal(err)
	}
	if s.ExactFrom > 0.0005 || s.ExactUntil <= 0.05 {
		t.Fatalf("exact part [%v, %v), stopped %q; want it to hold [0.0005, 0.05]", s.ExactFrom, s.ExactUntil, s.Stopped)
	}
	var breaks []float64
	for _, p := range s.Points {
		if p.Breakpoint && p.Value < 0.05 {
			breaks = append(breaks, p.Value)
		}
	}
	if len(breaks) != 2 || !near(breaks[0], 0.04/math.Sqrt2*0.2/math.Sqrt(3)) || !near(breaks[1], 0.04/math.Sqrt2) {
		t.Errorf("breakpoints below 0.05: %v, want 0.003266 and 0.02828", breaks)
	}
}
