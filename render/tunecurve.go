package render

import (
	"cmp"
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"

	"github.com/memoria-graph/memoria/retriever/tune"
)

// CurveText is the held-out curve (docs/EVALUATION.md, "The held-out
// curve") of each parameter with more than one value ("" when none has):
// with one such parameter, a line per value of it, ascending; with
// several, a curve per parameter through the setting chosen on all
// queries (the others held at their chosen values: settings every search
// measured, coordinate ascent's last round included). Each line has the
// setting's mean over the queries, each held out once (tune.Curve), as a
// bar on the range of those means (RangeBar, the bounds printed), the
// folds' means as a whisker on the range of every fold's mean (├ the
// lowest fold, ┤ the highest, ● the mean; the bounds printed), the folds
// that chose the setting, and ← the defaults, * chosen on all queries. It
// fills t.Width columns.
//
//	held-out curve of damping, nDCG@10 over 2 folds: each value's mean over the queries, each held out once; the whisker spans the folds' means
//	damping       held out, 0.3750 to 0.5000   folds' means, 0.2500 to 0.7500
//	0.3           █           0.3750           ├─────●─────┤                   chosen by fold 1
//	0.5           ██████████  0.5000           ●                               chosen by fold 2 ← *
func (t Tune) CurveText() string {
	var varying []int
	for j, p := range t.Params {
		if len(p.Values) > 1 {
			varying = append(varying, j)
		}
	}
	chosen := t.Result.Settings[t.Result.Chosen]
	var parts []string
	for _, j := range varying {
		var line []int // the settings through the chosen one along j, by j's value
		for _, i := range t.order() {
			s := t.Result.Settings[i]
			if !slices.ContainsFunc(varying, func(k int) bool { return k != j && s[k] != chosen[k] }) {
				line = append(line, i)
			}
		}
		held := ""
		if len(varying) > 1 {
			var others []string
			for _, k := range varying {
				if k != j {
					others = append(others, t.Params[k].Name+"="+strconv.FormatFloat(t.Params[k].Values[chosen[k]], 'g', -1, 64))
				}
			}
			held = " (" + strings.Join(others, ", ") + " as chosen on all queries)"
		}
		parts = append(parts, t.curveOf(j, line, held))
	}
	return strings.Join(parts, "\n")
}

// curveOf is CurveText's curve of parameter j over the settings order
// (ascending in j), held saying where the other parameters are held.
func (t Tune) curveOf(j int, order []int, held string) string {
	r := t.Result
	curve := tune.Curve(r)
	var means []float64
	lo, hi := math.Inf(1), math.Inf(-1)
	for _, i := range order {
		means = append(means, curve[i].Mean)
		lo, hi = min(lo, curve[i].Lo), max(hi, curve[i].Hi)
	}
	mLo, mHi := span(means)
	name := t.Params[j].Name
	vw := max(12, len(name))
	chosen := make([]string, len(order))
	cw := 0
	for k, i := range order {
		if by := curve[i].ChosenBy; len(by) > 0 {
			nums := make([]string, len(by))
			for n, f := range by {
				nums[n] = strconv.Itoa(f)
			}
			chosen[k] = "chosen by fold " + strings.Join(nums, ", ")
			if len(by) > 1 {
				chosen[k] = "chosen by folds " + strings.Join(nums, ", ")
			}
		}
		cw = max(cw, len(chosen[k]))
	}
	// A line: the value, the bar, a space and its number (6), the
	// whisker, the choice and the marks (4), with two spaces between.
	rest := cmp.Or(t.Width, DefaultChartWidth) - vw - 2 - 1 - 6 - 2 - 2 - cw - 4
	bw := max(minCurveWidth, rest/2)
	ww := max(minCurveWidth, rest-bw)
	var b strings.Builder
	fmt.Fprintf(&b, "held-out curve of %s%s, %s over %s: each value's mean over the queries, each held out once; the whisker spans the folds' means\n",
		name, held, t.Metric, countOf(len(r.Folds), "fold"))
	fmt.Fprintf(&b, "%-*s  %-*s  %s\n", vw, name, bw+1+6, fmt.Sprintf("held out, %.4f to %.4f", mLo, mHi),
		fmt.Sprintf("folds' means, %.4f to %.4f", lo, hi))
	for k, i := range order {
		c := curve[i]
		line := fmt.Sprintf("%-*s  %s %.4f  %s  %-*s", vw, SweepValue(t.Params[j].Values[r.Settings[i][j]]),
			RangeBar(c.Mean, mLo, mHi, bw), c.Mean, whisker(c, lo, hi, ww), cw, chosen[k])
		if i == r.Default {
			line += " ←"
		}
		if i == r.Chosen {
			line += " *"
		}
		b.WriteString(strings.TrimRight(line, " ") + "\n")
	}
	return b.String()
}

// minCurveWidth is the fewest cells the held-out curve's bar and whisker
// each get: fewer than the metric sweep's, so that a curve fits an
// 80-column terminal's overlay beside the folds' choices.
const minCurveWidth = 6

// whisker draws a curve point's folds on [lo, hi] in width cells: ├ at its
// lowest fold's mean, ┤ at its highest, ─ between, ● at its mean
// (● alone when the folds agree), padded to width.
func whisker(c tune.CurvePoint, lo, hi float64, width int) string {
	at := func(x float64) int {
		if !(hi > lo) {
			return 0
		}
		return min(width-1, max(0, int(math.Round((x-lo)/(hi-lo)*float64(width-1)))))
	}
	cells := slices.Repeat([]rune{' '}, width)
	a, z := at(c.Lo), at(c.Hi)
	for x := a; x <= z; x++ {
		cells[x] = '─'
	}
	if z > a {
		cells[a], cells[z] = '├', '┤'
	}
	cells[at(c.Mean)] = '●'
	return string(cells)
}
