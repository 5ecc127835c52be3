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

// varying is the index of the one parameter of t with more than one value,
// or −1 when none or several do.
func (t Tune) varying() int {
	at := -1
	for i, p := range t.Params {
		if len(p.Values) > 1 {
			if at >= 0 {
				return -1
			}
			at = i
		}
	}
	return at
}

// CurveText is the held-out curve (docs/EVALUATION.md, "The held-out
// curve") when exactly one parameter varies, else "": a line per value of
// it, ascending, with its mean over the queries, each held out once
// (tune.Curve), as a bar on the range of those means (RangeBar, the bounds
// printed), the folds' means as a whisker on the range of every fold's
// mean (├ the lowest fold, ┤ the highest, ● the mean; the bounds printed),
// the folds that chose the value, and ← the defaults, * chosen on all
// queries. It fills t.Width columns.
//
//	held-out curve of damping, nDCG@10 over 2 folds: each value's mean over the queries, each held out once; the whisker spans the folds' means
//	damping       held out, 0.3750 to 0.5000   folds' means, 0.2500 to 0.7500
//	0.3           █           0.3750           ├─────●─────┤                   chosen by fold 1
//	0.5           ██████████  0.5000           ●                               chosen by fold 2 ← *
func (t Tune) CurveText() string {
	j := t.varying()
	if j < 0 {
		return ""
	}
	r := t.Result
	curve := tune.Curve(r)
	order := t.order()
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
	// A line: the value, the bar and its number (7), the whisker, the
	// choice and the marks (4), with two spaces between.
	rest := cmp.Or(t.Width, DefaultChartWidth) - vw - 2 - 1 - 7 - 2 - 2 - cw - 4
	bw := max(minBarWidth, rest/2)
	ww := max(minBarWidth, rest-bw)
	var b strings.Builder
	fmt.Fprintf(&b, "held-out curve of %s, %s over %s: each value's mean over the queries, each held out once; the whisker spans the folds' means\n",
		name, t.Metric, countOf(len(r.Folds), "fold"))
	fmt.Fprintf(&b, "%-*s  %-*s  %s\n", vw, name, bw+1+7, fmt.Sprintf("held out, %.4f to %.4f", mLo, mHi),
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
