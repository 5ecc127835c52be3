package render

import (
	"fmt"
	"math"
	"strings"
	"testing"

	"github.com/memoria-graph/memoria/retriever"
	"github.com/memoria-graph/memoria/retriever/activation"
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
	res := func(p activation.Path) []activation.Result {
		return []activation.Result{{Seed: retriever.Seed{NodeID: "S", Score: 1}, Paths: []activation.Path{p}}}
	}
	return sweep.FromResults(sweep.MinActivation, 0.005, []sweep.PointResults{
		{Value: 0.001, Results: res(idPath("S", "X", "Z"))},
		{Value: 0.003, Results: res(idPath("S", "X")), Breakpoint: true},
		{Value: 0.01, Results: res(idPath("S", "A", "X", "Z"))},
	}, 0.001, math.Inf(1))
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

// TestSweepTextWith: a further series is charted after the sweep's own,
// on the same columns and with the same mark (sweepFixture's current point
// is the second, 0.003); one whose values do not match the points one for
// one is left out, and without series the text is SweepText's.
func TestSweepTextWith(t *testing.T) {
	s := sweepFixture()
	got := SweepTextWith(s, 0, SweepSeries{Name: "recall@10", Values: []float64{0.5, 0.25, 1}},
		SweepSeries{Name: "short", Values: []float64{1}})
	at := strings.Index(got, "\nrecall@10\n")
	if at < 0 || at < strings.Index(got, "\nsummed energy\n") || strings.Contains(got, "\nshort\n") {
		t.Fatalf("recall@10 not charted after summed energy, or short charted:\n%s", got)
	}
	chart := got[at:]
	chart = chart[:strings.Index(chart, "^ min-activation 0.003")]
	for _, label := range []string{"1.00", "0.25"} { // the top and the bottom of the axis
		if !strings.Contains(chart, label) {
			t.Errorf("the recall chart lacks the label %s:\n%s", label, chart)
		}
	}
	if strings.Count(got, "^ min-activation 0.003") != 4 {
		t.Errorf("want the current value marked under each of the 4 charts:\n%s", got)
	}
	if SweepTextWith(s, DefaultChartWidth) != SweepText(s) {
		t.Error("SweepTextWith without series differs from SweepText")
	}
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

// TestSweepTextPartlyExact: sweepFixture with only [0.003, 0.01) exact
// (a budget stopped the search below 0.003). The header says which part is
// exact and why it stopped; Z's band [0.001, 0.003) starts where the sweep
// is not exact, so it is written over its points (0.001…0.001), while X's
// band, from 0.001 to the last point, is written 0.001…0.01; A's [0.01, 0.01]
// ends at the range's top, outside the exact part, so it is 0.01.
func TestSweepTextPartlyExact(t *testing.T) {
	s := sweepFixture()
	s.ExactFrom, s.ExactUntil, s.Stopped = 0.003, 0.01, "time budget"
	got := SweepText(s)
	for _, line := range []string{
		"exact in 0.003…0.01; grid only elsewhere (stopped: time budget)\n",
		"  S → Z: 0.001 0.01\n",
		"  S → X: 0.001…0.01\n",
		"  S → A: 0.01\n",
	} {
		if !strings.Contains(got, line) {
			t.Errorf("SweepText lacks %q:\n%s", line, got)
		}
	}
	if strings.Contains(got, "whole range") {
		t.Errorf("a partly exact sweep says it is exact over the whole range:\n%s", got)
	}
}

// TestSweepChartLogColumns: 200 points, the values 0.0001 × 1000^(i/199)
// (a log grid from 0.0001 to 0.1) with i paths at point i, current 0.005.
// On 72 columns the chart's columns are evenly spaced in log value: column
// c stands at 0.0001 × 1000^(c/71), so 0.005 = 0.0001 × 50 falls at c =
// 71 × log(50)/log(1000) = 40.2: column 40, whose value 0.0001 × 1000^(40/71)
// = 0.004899 is shown by the highest point at or below it, i = floor(199 ×
// 40/71) = 112 (point 112 is 0.004880 ≤ 0.004899 < 0.005053, point 113).
func TestSweepChartLogColumns(t *testing.T) {
	var pts []sweep.PointResults
	for i := range 200 {
		v := 0.0001 * math.Pow(1000, float64(i)/199)
		var paths []activation.Path
		for k := range i {
			paths = append(paths, idPath("S", fmt.Sprintf("N%03d", k)))
		}
		pts = append(pts, sweep.PointResults{Value: v, Results: []activation.Result{{Seed: retriever.Seed{NodeID: "S", Score: 1}, Paths: paths}}})
	}
	s := sweep.FromResults(sweep.MinActivation, 0.005, pts, 0.0001, math.Inf(1))
	pick, curCol, scale := chartColumnsOf(s, nearest(s), 72)
	if len(pick) != 72 || curCol != 40 || pick[40] != 112 || pick[0] != 0 || pick[71] != 199 {
		t.Fatalf("%d columns, current at %d, column 40 shows point %d (first %d, last %d); want 72, 40, 112, 0, 199",
			len(pick), curCol, pick[40], pick[0], pick[71])
	}
	if !strings.Contains(scale, "log scale") {
		t.Errorf("scale %q", scale)
	}
	// On the default 100 columns, the widest labels, summed energy's up to
	// 19.9 (0.1 a path, 2 decimals: " 19.90 ┤", the axis at rune 7), leave
	// 93.
	got := SweepText(s)
	if !strings.Contains(got, "x: min-activation from 0.0001 (left) to 0.1 (right), 93 columns on a log scale") {
		t.Errorf("x axis line missing:\n%s", got[:min(len(got), 2000)])
	}
}

// TestSweepChartFillsWidth: sweepFixture's 3 points on a chart of width w
// share its columns in order, each over an equal run: the widest labels
// (summed energy's, " 0.300 ┤": 3 decimals for 3 significant digits of
// 0.3, the axis at rune 7) leave w − 7 columns, and that chart's lines are
// w runes wide; at 60 and 140 columns alike. The explorer's 150-column
// pane draws a 12-point sweep 150 wide, not 12.
func TestSweepChartFillsWidth(t *testing.T) {
	for _, w := range []int{60, 140} {
		got := SweepTextWith(sweepFixture(), w)
		widest := 0
		for _, line := range strings.Split(got[:strings.Index(got, "\nx: ")], "\n") {
			if strings.ContainsAny(line, "┤┼") {
				widest = max(widest, len([]rune(line)))
			}
		}
		if widest != w {
			t.Errorf("width %d: the widest chart line is %d runes:\n%s", w, widest, got)
		}
		if want := fmt.Sprintf("%d columns, the points in order, each over an equal run of them", w-7); !strings.Contains(got, want) {
			t.Errorf("width %d: want %q in\n%s", w, want, got)
		}
	}
}

// TestSweepChartThirdDecimal: a series whose values differ in the third
// decimal (recall 0.0047, 0.0058, 0.0072, as issue 34 found) is drawn on
// its own range: the axis runs from the lowest to the highest, both
// labelled (0.0047… and 0.0072…), and the line climbs
// through the chart's rows rather than lying flat at the bottom of 0–1.
func TestSweepChartThirdDecimal(t *testing.T) {
	got := SweepTextWith(sweepFixture(), 80, SweepSeries{Name: "recall@10", Values: []float64{0.0047, 0.0058, 0.0072}})
	chart := got[strings.Index(got, "\nrecall@10\n"):]
	chart = chart[:strings.Index(chart, "^ min-activation")]
	lines := strings.Split(strings.Trim(chart, "\n"), "\n")[1:7]
	if !strings.HasPrefix(strings.TrimSpace(lines[0]), "0.0072") || !strings.HasPrefix(strings.TrimSpace(lines[5]), "0.0047") {
		t.Fatalf("want 6 rows labelled 0.0072 at the top and 0.0047 at the bottom:\n%s", chart)
	}
	for i, l := range lines {
		if !strings.ContainsAny(l[strings.IndexAny(l, "┤┼")+3:], "─╭╮╰╯│") {
			t.Errorf("row %d draws nothing: the line does not climb through every row:\n%s", i, chart)
		}
	}
}
