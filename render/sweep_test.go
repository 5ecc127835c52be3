package render

import (
	"strings"
	"testing"

	"github.com/memoria-graph/memoria/retriever"
	"github.com/memoria-graph/memoria/retriever/activation/sweep"
)

// sweepFixture is an exact MIN_ACTIVATION sweep of seed S (R 1) built by
// hand, every hop with T = 0.1 (idPath), current value 0.005:
//
//	0.001            S→X→Z        2 hops: 1 path, 2 nodes, energy 0.2
//	0.003 (b)        S→X          1 path, 1 node, energy 0.1
//	0.01             S→A→X→Z      1 path, 3 nodes, energy 0.3
//
// Bands: A [0.01, 0.01]; X [0.001, 0.01]; Z [0.001, 0.003) and
// [0.01, 0.01]. Scanning from 0.01 down, A and Z are in at 0.01 and out at
// 0.003: both flip. The current 0.005 is nearest 0.003 in log terms (ratio 1.67
// against 2), so 0.003 is marked.
func sweepFixture() *sweep.Sweep {
	res := func(p retriever.Path) []retriever.Result {
		return []retriever.Result{{Seed: retriever.Seed{NodeID: "S", Score: 1}, Paths: []retriever.Path{p}}}
	}
	return &sweep.Sweep{Param: sweep.MinActivation, Current: 0.005, Exact: true, Points: []sweep.Point{
		{Value: 0.001, Results: res(idPath("S", "X", "Z"))},
		{Value: 0.003, Results: res(idPath("S", "X")), Breakpoint: true},
		{Value: 0.01, Results: res(idPath("S", "A", "X", "Z"))},
	}}
}

// TestSweepText draws sweepFixture (testdata/sweep_text.golden) and checks
// the hand-worked lines: the table rows, the bands and the flip.
func TestSweepText(t *testing.T) {
	got := SweepText(sweepFixture())
	for _, line := range []string{
		"sweep min-activation: 3 values (2 asked, 1 breakpoints), current 0.005\n",
		"  0.001               1      2        0.2\n",
		"* 0.003               1      1        0.1  b\n",
		"  0.01                1      3        0.3\n",
		"  S → A: [0.01, 0.01]\n",
		"  S → X: [0.001, 0.01]\n",
		"  S → Z: [0.001, 0.003) [0.01, 0.01]\n",
		"  S → A: in at 0.01, out at 0.003 (a looser min-activation removes it)\n",
		"  S → Z: in at 0.01, out at 0.003 (a looser min-activation removes it)\n",
	} {
		if !strings.Contains(got, line) {
			t.Errorf("SweepText lacks %q:\n%s", line, got)
		}
	}
	golden(t, "sweep_text", got)
}

// TestSweepCSV: one row per point with sweepFixture's totals.
func TestSweepCSV(t *testing.T) {
	want := `param,value,breakpoint,paths,nodes_reached,summed_energy
min-activation,0.001,false,1,2,0.2
min-activation,0.003,true,1,1,0.1
min-activation,0.01,false,1,3,0.30000000000000004
`
	if got := SweepCSV(sweepFixture()); got != want {
		t.Errorf("SweepCSV =\n%s\nwant\n%s", got, want)
	}
}

// TestSweepTextAroundCurrent: with the current value at 0.002, Z's band
// [0.001, 0.003) holds it, so its line says where Z leaves: at 0.003 (and
// not "below", since 0.001 is the first point); X's band [0.001, 0.01]
// reaches both ends of the sweep, so its line says nothing more.
func TestSweepTextAroundCurrent(t *testing.T) {
	s := sweepFixture()
	s.Current = 0.002
	got := SweepText(s)
	for _, line := range []string{
		"  S → Z: [0.001, 0.003) [0.01, 0.01]  (in at 0.002: leaves at 0.003)\n",
		"  S → X: [0.001, 0.01]\n",
	} {
		if !strings.Contains(got, line) {
			t.Errorf("SweepText lacks %q:\n%s", line, got)
		}
	}
}
