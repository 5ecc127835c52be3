package render

import (
	"cmp"
	"fmt"
	"math"
	"strconv"
	"strings"

	"github.com/guptarohit/asciigraph"

	"github.com/memoria-graph/memoria/internal/textsafe"
	"github.com/memoria-graph/memoria/retriever/activation"
	"github.com/memoria-graph/memoria/retriever/activation/sweep"
)

// SweepPointJSON is one line of `memoria sweep --format json`: the
// parameter, its value, and the results exactly as `explore --format json`
// writes them, in seed order. Breakpoint marks a value the sweep added (an
// exact MIN_ACTIVATION breakpoint) rather than one asked for.
type SweepPointJSON struct {
	Param      string              `json:"param"`
	Value      float64             `json:"value"`
	Breakpoint bool                `json:"breakpoint,omitempty"`
	Results    []activation.Result `json:"results"`
}

// SweepPoint is the JSON line of one point and its results (from
// sweep.Sweep.Replay, which streams them).
func SweepPoint(param sweep.Param, p sweep.Point, results []activation.Result) SweepPointJSON {
	res := make([]activation.Result, len(results))
	for j, r := range results {
		res[j] = Untraced(r) // as explore --format json prints them
	}
	return SweepPointJSON{Param: string(param), Value: p.Value, Breakpoint: p.Breakpoint, Results: res}
}

// SweepCSV writes one row per point under a header: param, value,
// breakpoint (true when the sweep added the value), paths, nodes_reached and
// summed_energy (sweep.Totals), numbers in full precision.
func SweepCSV(s *sweep.Sweep) string {
	var b strings.Builder
	b.WriteString("param,value,breakpoint,paths,nodes_reached,summed_energy\n")
	for _, p := range s.Points {
		t := p.Totals
		fmt.Fprintf(&b, "%s,%s,%t,%d,%d,%s\n", s.Param, strconv.FormatFloat(p.Value, 'g', -1, 64), p.Breakpoint,
			t.Paths, t.Nodes, strconv.FormatFloat(t.Energy, 'g', -1, 64))
	}
	return b.String()
}

// SweepExactness says which part of a MIN_ACTIVATION sweep is exact: "exact
// over the whole range: …", "exact in 0.0021…0.0113; grid only elsewhere
// (stopped: time budget)", or "grid only" (no breakpoints asked); "" for
// another parameter.
func SweepExactness(s *sweep.Sweep) string {
	part := SweepExactPart(s)
	switch {
	case part == "":
		return ""
	case s.Exact():
		return part + ": the result at any value is the one of the highest point at or below it"
	}
	if s.Stopped != "" {
		part += " (stopped: " + textsafe.Escape(s.Stopped) + ")"
	}
	return part
}

// SweepExactPart is SweepExactness without the explanation and the reason
// it stopped, for a status line: "exact over the whole range", "exact in
// 0.0021…0.0113; grid only elsewhere", "grid only: breakpoints not
// searched", or "".
func SweepExactPart(s *sweep.Sweep) string {
	switch {
	case s.Param != sweep.MinActivation:
		return ""
	case s.Exact():
		return "exact over the whole range"
	case s.HasExact():
		return "exact in " + Num(s.ExactFrom) + "…" + Num(s.ExactTo()) + "; grid only elsewhere"
	}
	return "grid only: breakpoints not searched"
}

// minChartColumns is the fewest columns a sweep chart gets, however
// narrow the width.
const minChartColumns = 16

// SweepText draws a sweep for people: three charts (paths, nodes reached
// and summed energy against the points, in ascending order, the point
// nearest the current value marked with ^; each chart's y axis from the
// lowest to the highest value shown, its bounds labelled), the table of
// points (the current one marked *, breakpoints b), each node's bands (the
// values where it is in its seed's result: [from, until) for an exact
// MIN_ACTIVATION sweep, else from…to over the points), and every
// non-monotone place. The charts fill DefaultChartWidth columns.
func SweepText(s *sweep.Sweep) string { return SweepTextWith(s, DefaultChartWidth) }

// SweepSeries is a further series a sweep's text charts: a name and one
// value per point, in the order of the sweep's Points.
type SweepSeries struct {
	Name   string
	Values []float64
}

// SweepTextWith is SweepText with its charts filling width columns (the
// y axis's labels included; DefaultChartWidth when 0) and more series
// charted after paths, nodes reached and summed energy, on the same columns
// with the same mark (the explorer's recall and nDCG against its relevance
// marks). A series whose values do not match the points one for one is
// left out.
func SweepTextWith(s *sweep.Sweep, width int, more ...SweepSeries) string {
	var b strings.Builder
	n := len(s.Points)
	if n == 0 {
		return "no points\n"
	}
	nbreak := 0
	for _, p := range s.Points {
		if p.Breakpoint {
			nbreak++
		}
	}
	fmt.Fprintf(&b, "sweep %s: %d values", s.Param, n)
	if s.HasExact() || nbreak > 0 {
		fmt.Fprintf(&b, " (%d asked, %d breakpoints)", n-nbreak, nbreak)
	}
	fmt.Fprintf(&b, ", current %s\n", Num(s.Current))
	if ex := SweepExactness(s); ex != "" {
		b.WriteString(ex + "\n")
	}
	cur := nearest(s)
	totals := make([]sweep.Totals, n)
	for i, p := range s.Points {
		totals[i] = p.Totals
	}
	type chart struct {
		name string
		get  func(i int) float64 // the value at point i
	}
	series := []chart{
		{"paths", func(i int) float64 { return float64(totals[i].Paths) }},
		{"nodes reached", func(i int) float64 { return float64(totals[i].Nodes) }},
		{"summed energy", func(i int) float64 { return totals[i].Energy }},
	}
	for _, m := range more {
		if len(m.Values) == n {
			series = append(series, chart{textsafe.Escape(m.Name), func(i int) float64 { return m.Values[i] }})
		}
	}
	// The columns are what the widest y-axis labels leave of the width
	// (asciigraph draws the first point on the axis's own column).
	labels := 0
	for _, sr := range series {
		data := make([]float64, n)
		for i := range data {
			data[i] = sr.get(i)
		}
		if n == 1 {
			data = append(data, data[0]) // asciigraph draws a line; one point is a flat one
		}
		labels = max(labels, axisColumn(plot(data)))
	}
	pick, curCol, scale := chartColumnsOf(s, cur, max(minChartColumns, cmp.Or(width, DefaultChartWidth)-labels))
	cols := len(pick)
	for _, sr := range series {
		data := make([]float64, cols)
		for c, i := range pick {
			data[c] = sr.get(i)
		}
		b.WriteString("\n" + sr.name + "\n")
		chart := plot(data)
		b.WriteString(chart + "\n")
		fmt.Fprintf(&b, "%s^ %s %s\n", strings.Repeat(" ", axisColumn(chart)+curCol), s.Param, Num(s.Points[cur].Value))
	}
	fmt.Fprintf(&b, "\nx: %s from %s (left) to %s (right), %s", s.Param, Num(s.Points[0].Value), Num(s.Points[n-1].Value), scale)
	b.WriteString("\n\n")
	fmt.Fprintf(&b, "  %-14s %6s %6s %10s\n", s.Param, "paths", "nodes", "energy")
	for i, p := range s.Points {
		mark := " "
		if i == cur {
			mark = "*"
		}
		bp := ""
		if p.Breakpoint {
			bp = "  b"
		}
		fmt.Fprintf(&b, "%s %-14s %6d %6d %10s%s\n", mark, Num(p.Value), totals[i].Paths, totals[i].Nodes, Num(totals[i].Energy), bp)
	}
	b.WriteString("(* nearest the current value; b a breakpoint: the result differs just below it)\n")
	bands := s.Bands()
	if len(bands) == 0 {
		return b.String()
	}
	b.WriteString("\nbands (the values at which each node is in its seed's result):\n")
	var flips []string
	for _, nb := range bands {
		parts := make([]string, len(nb.Bands))
		for i, bd := range nb.Bands {
			parts[i] = bandText(s, bd)
		}
		who := DisplayID(nb.SeedID) + " → " + DisplayID(nb.NodeID)
		fmt.Fprintf(&b, "  %s: %s%s\n", who, strings.Join(parts, " "), aroundCurrent(s, nb))
		if nb.Flip != nil {
			flips = append(flips, fmt.Sprintf("  %s: in at %s, out at %s (a looser %s removes it)", who, Num(nb.Flip.In), Num(nb.Flip.Out), s.Param))
		}
	}
	if len(flips) == 0 {
		b.WriteString("\nmonotone: loosening the threshold never removed a node\n")
	} else {
		b.WriteString("\nnon-monotone (docs/ALGORITHM.md, \"Sweeps and breakpoints\"):\n" + strings.Join(flips, "\n") + "\n")
	}
	return b.String()
}

// aroundCurrent says, for a node in the result at the current value, the
// nearest values around it where the node leaves, each where the sweep is
// exact: "  (in at 0.005: leaves at 0.0069 and below 0.0031)". Empty
// otherwise.
func aroundCurrent(s *sweep.Sweep, nb sweep.NodeBands) string {
	if !exactAt(s, s.Current) {
		return ""
	}
	for _, bd := range nb.Bands {
		if s.Current < bd.From || (bd.Until != nil && s.Current >= *bd.Until) || (bd.Until == nil && s.Current > bd.To) {
			continue
		}
		var edges []string
		if bd.Until != nil && exactAt(s, *bd.Until) {
			edges = append(edges, "leaves at "+Num(*bd.Until))
		}
		if bd.From > s.Points[0].Value && bd.From > s.ExactFrom && exactAt(s, bd.From) {
			edges = append(edges, "leaves below "+Num(bd.From))
		}
		if len(edges) == 0 {
			return ""
		}
		return "  (in at " + Num(s.Current) + ": " + strings.Join(edges, " and ") + ")"
	}
	return ""
}

// exactAt reports whether the sweep is exact at v.
func exactAt(s *sweep.Sweep, v float64) bool {
	return s.HasExact() && v >= s.ExactFrom && v < s.ExactUntil
}

// bandText writes a band: [from, until) where the sweep is exact at both
// ends, else from…to (the points where the node is in).
func bandText(s *sweep.Sweep, bd sweep.Band) string {
	if exactAt(s, bd.From) && (bd.Until == nil || exactAt(s, *bd.Until)) && (bd.Until != nil || s.Exact()) {
		if bd.Until != nil {
			return "[" + Num(bd.From) + ", " + Num(*bd.Until) + ")"
		}
		return "[" + Num(bd.From) + ", " + Num(bd.To) + "]"
	}
	if bd.From == bd.To {
		return Num(bd.From)
	}
	return Num(bd.From) + "…" + Num(bd.To)
}

// plot is one sweep chart of data (asciigraph, 5 rows, its y axis from
// the lowest value to the highest with their labels).
func plot(data []float64) string {
	return asciigraph.Plot(data, asciigraph.Height(5), asciigraph.Precision(precision(data)))
}

// axisColumn is the column of a chart's y axis (where asciigraph draws
// point 0), read from its first line.
func axisColumn(chart string) int {
	first := strings.SplitN(chart, "\n", 2)[0]
	for i, r := range []rune(first) {
		if r == '┤' || r == '┼' {
			return i
		}
	}
	return 0
}

// chartColumnsOf picks the point each of a chart's chartColumns columns
// shows. Up to chartColumns points share the columns in their order, each
// over an equal run of them (⌊c × n / chartColumns⌋ for column c), so that
// the chart fills its width; more are drawn over chartColumns columns
// evenly spaced in value (in log terms for MIN_ACTIVATION), each showing the
// highest point at or below its value (the result there where the sweep is
// exact). It returns the picks, the column nearest the current value (the
// middle of its point's run) and the x axis's description.
func chartColumnsOf(s *sweep.Sweep, cur, chartColumns int) (pick []int, curCol int, scale string) {
	n := len(s.Points)
	if n <= chartColumns {
		pick = make([]int, chartColumns)
		first, last := -1, 0
		for c := range pick {
			pick[c] = c * n / chartColumns
			if pick[c] == cur {
				last = c
				if first < 0 {
					first = c
				}
			}
		}
		if n == 1 {
			return pick, (first + last) / 2, fmt.Sprintf("%d columns, the one point across them", chartColumns)
		}
		return pick, (first + last) / 2, fmt.Sprintf("%d columns, the points in order, each over an equal run of them", chartColumns)
	}
	lo, hi := s.Points[0].Value, s.Points[n-1].Value
	logScale := s.Param == sweep.MinActivation && lo > 0
	at := func(c int) float64 {
		f := float64(c) / float64(chartColumns-1)
		if logScale {
			return lo * math.Pow(hi/lo, f)
		}
		return lo + (hi-lo)*f
	}
	pick = make([]int, chartColumns)
	i := 0
	for c := range pick {
		x := at(c)
		if c == chartColumns-1 {
			x = hi
		}
		for i+1 < n && s.Points[i+1].Value <= x {
			i++
		}
		pick[c] = i
	}
	best := math.Inf(1)
	for c := range pick {
		d := math.Abs(at(c) - s.Current)
		if logScale && s.Current > 0 {
			d = math.Abs(math.Log(at(c) / s.Current))
		}
		if d < best {
			curCol, best = c, d
		}
	}
	scale = fmt.Sprintf("%d columns evenly spaced in value, each the highest of the %d points at or below it", chartColumns, n)
	if logScale {
		scale = fmt.Sprintf("%d columns on a log scale, each the highest of the %d points at or below its value", chartColumns, n)
	}
	return pick, curCol, scale
}

// nearest is the index of the point whose value is nearest the current one
// (in log terms for MIN_ACTIVATION when both are above 0).
func nearest(s *sweep.Sweep) int {
	best, bestD := 0, math.Inf(1)
	for i, p := range s.Points {
		d := math.Abs(p.Value - s.Current)
		if s.Param == sweep.MinActivation && p.Value > 0 && s.Current > 0 {
			d = math.Abs(math.Log(p.Value / s.Current))
		}
		if d < bestD {
			best, bestD = i, d
		}
	}
	return best
}

// precision is the number of decimals the chart's labels need: 0 for whole
// numbers, else enough for 3 significant digits of the largest value.
func precision(data []float64) uint {
	whole, top := true, 0.0
	for _, v := range data {
		whole = whole && v == math.Trunc(v)
		top = max(top, math.Abs(v))
	}
	if whole {
		return 0
	}
	if top == 0 {
		return 2
	}
	return uint(max(2, 3-int(math.Floor(math.Log10(top)))-1))
}
