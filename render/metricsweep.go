package render

import (
	"cmp"
	"encoding/json"
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"

	"github.com/memoria-graph/memoria/retriever"
	"github.com/memoria-graph/memoria/retriever/eval"
)

// MetricSweep is `memoria sweep --queries` (docs/EVALUATION.md, "Metric
// sweeps"): one retriever run over a query set at each value of one
// parameter, each point measured as `memoria eval` measures a run.
type MetricSweep struct {
	Retriever string
	Param     string
	Queries   int
	Ks        []int
	// Metrics are the metrics of every point's Means, in order
	// (eval.Metrics(Ks)).
	Metrics []eval.Metric
	Points  []MetricPoint
	// Width is the width the text form fills (its three bar charts share
	// what the numbers leave); DefaultChartWidth when 0.
	Width int
	// Seeding is how the queries were seeded: "given" (their seeds) or
	// "gathered" (found from their questions, which the text says).
	Seeding string
}

// MetricPoint is one value of a metric sweep.
type MetricPoint struct {
	Value float64
	// Current: the value the parameter's flag (or default) gives.
	Current bool
	// Means are the metrics' means over the queries, in MetricSweep.Metrics'
	// order; MeanHits and MeanContextChars the cost.
	Means            []float64
	MeanHits         float64
	MeanContextChars float64
}

// metricSweepJSON is the wire form: metrics by name.
type metricSweepJSON struct {
	Retriever string            `json:"retriever"`
	Param     string            `json:"param"`
	Queries   int               `json:"queries"`
	Seeding   string            `json:"seeding,omitempty"`
	K         []int             `json:"k"`
	Points    []metricPointJSON `json:"points"`
}

type metricPointJSON struct {
	Value            float64          `json:"value"`
	Current          bool             `json:"current"`
	Metrics          retriever.Fields `json:"metrics"`
	MeanHits         float64          `json:"mean_hits"`
	MeanContextChars float64          `json:"mean_context_chars"`
}

// MetricSweepJSON is ms as one JSON object: {"retriever", "param",
// "queries", "k", "points": [{"value", "current", "metrics": {"P@5": …},
// "mean_hits", "mean_context_chars"}]}, points ascending, each point's
// metrics in ms.Metrics' order, as eval's JSON keeps them (a map wrote
// them alphabetically).
func MetricSweepJSON(ms MetricSweep) ([]byte, error) {
	out := metricSweepJSON{Retriever: ms.Retriever, Param: ms.Param, Queries: ms.Queries, Seeding: ms.Seeding, K: ms.Ks, Points: []metricPointJSON{}}
	for _, p := range ms.Points {
		pj := metricPointJSON{Value: p.Value, Current: p.Current, Metrics: retriever.Fields{}, MeanHits: p.MeanHits, MeanContextChars: p.MeanContextChars}
		for i, m := range ms.Metrics {
			pj.Metrics = append(pj.Metrics, retriever.Field{Name: m.Name(), Value: p.Means[i]})
		}
		out.Points = append(out.Points, pj)
	}
	b, err := json.Marshal(out)
	return append(b, '\n'), err
}

// SweepValue is a swept parameter's value as the text tables write it: a
// whole number in full (2147483647, where 6 significant digits wrote
// 2.14748e+09), up to PlainMax; any other in 6 significant digits.
func SweepValue(v float64) string {
	if v == math.Trunc(v) && math.Abs(v) < PlainMax {
		return strconv.FormatFloat(v, 'f', -1, 64)
	}
	return strconv.FormatFloat(v, 'g', 6, 64)
}

// MetricSweepCSV is ms as CSV: param, value, every metric by name, then
// mean_hits and mean_context_chars; one row per value, ascending.
func MetricSweepCSV(ms MetricSweep) string {
	var b strings.Builder
	b.WriteString("param,value")
	for _, m := range ms.Metrics {
		b.WriteString("," + m.Name())
	}
	b.WriteString(",mean_hits,mean_context_chars\n")
	g := func(x float64) string { return strconv.FormatFloat(x, 'g', -1, 64) }
	for _, p := range ms.Points {
		b.WriteString(ms.Param + "," + g(p.Value))
		for _, x := range p.Means {
			b.WriteString("," + g(x))
		}
		b.WriteString("," + g(p.MeanHits) + "," + g(p.MeanContextChars) + "\n")
	}
	return b.String()
}

// GatheredNote is what a report says after its number of queries when
// their seeds were gathered from their questions ("" otherwise).
func GatheredNote(seeding string) string {
	if seeding == "gathered" {
		return " (seeds gathered from their questions)"
	}
	return ""
}

// DefaultChartWidth is the width a chart fills when the caller gives none
// (the CLI when stdout is not a terminal and $COLUMNS is unset).
const DefaultChartWidth = 100

// minBarWidth is the fewest cells a bar of MetricSweepText gets, however
// narrow the width.
const minBarWidth = 10

// Bar is x on a scale from 0 to full as a bar of at most width cells, in
// eighths of a cell, padded to width: ████▌.
func Bar(x, full float64, width int) string {
	cells := 0.0
	if full > 0 && x > 0 {
		cells = math.Min(x/full, 1) * float64(width)
	}
	eighths := int(math.Round(cells * 8))
	s := strings.Repeat("█", eighths/8)
	if r := eighths % 8; r > 0 {
		s += string([]rune("▏▎▍▌▋▊▉")[r-1])
	}
	return s + strings.Repeat(" ", width-len([]rune(s)))
}

// RangeBar is x as a bar of width cells on the range [lo, hi] of the
// values shown: one cell at lo, the full width at hi, in between in
// proportion (in eighths of a cell): 1 + (x − lo)/(hi − lo) × (width − 1)
// cells. Values that differ in the third decimal are drawn apart however
// near they are; the chart prints lo and hi, so that the bars are not
// read as on 0–1. With hi = lo every bar is full (empty when x is 0).
func RangeBar(x, lo, hi float64, width int) string {
	if !(hi > lo) {
		return Bar(x, hi, width)
	}
	return Bar(1+(x-lo)/(hi-lo)*float64(width-1), float64(width), width)
}

// span is the lowest and highest of xs.
func span(xs []float64) (lo, hi float64) {
	lo, hi = math.Inf(1), math.Inf(-1)
	for _, x := range xs {
		lo, hi = min(lo, x), max(hi, x)
	}
	return lo, hi
}

// MetricSweepText is the text form: one line per value with bars of
// recall@K and nDCG@K (K the first cut-off) and of the mean context size,
// each on the range of its column's values (RangeBar: one cell at the
// lowest, the full width at the highest, the bounds printed under the
// heading), the three sharing ms.Width; the current value marked ←, then
// every metric's mean and the mean hits per value.
//
//	metric sweep of ppr's damping over 8 queries: recall@10 and nDCG@10 beside the context an agent gets (mean characters)
//	damping     recall@10                    nDCG@10                      context
//	            0.5250 to 0.5500             0.4410 to 0.4512             6710 to 6820
//	0.1         █                    0.5250  █                    0.4410  █                    6710
//	0.5         ████████████████████ 0.5500  ████████████████████ 0.4512  ████████████████████ 6820 ←
func MetricSweepText(ms MetricSweep) string {
	var b strings.Builder
	k := ms.Ks[0]
	rec := slices.Index(ms.Metrics, eval.Metric{Kind: eval.KindRecall, K: k})
	ndcg := slices.Index(ms.Metrics, eval.Metric{Kind: eval.KindNDCG, K: k})
	var recs, ndcgs, ctxs []float64
	for _, p := range ms.Points {
		recs, ndcgs, ctxs = append(recs, p.Means[rec]), append(ndcgs, p.Means[ndcg]), append(ctxs, p.MeanContextChars)
	}
	recLo, recHi := span(recs)
	ndcgLo, ndcgHi := span(ndcgs)
	ctxLo, ctxHi := span(ctxs)
	width := cmp.Or(ms.Width, DefaultChartWidth)
	// A line is the value (10), three bars each with its number after it
	// (7, 7 and the context's digits), the gaps (2 each) and the mark.
	digits := len(fmt.Sprintf("%.0f", ctxHi))
	vw := max(10, len(ms.Param)) // the value column, as wide as the heading
	w := max(minBarWidth, (width-vw-2-8-2-8-2-1-digits-2)/3)
	fmt.Fprintf(&b, "metric sweep of %s's %s over %d queries%s: recall@%d and nDCG@%d beside the context an agent gets (mean characters)\n",
		ms.Retriever, ms.Param, ms.Queries, GatheredNote(ms.Seeding), k, k)
	fmt.Fprintf(&b, "%-*s  %-*s  %-*s  %s\n", vw, ms.Param, w+7, fmt.Sprintf("recall@%d", k), w+7, fmt.Sprintf("nDCG@%d", k), "context")
	if len(ms.Points) > 0 {
		fmt.Fprintf(&b, "%-*s  %-*s  %-*s  %.0f to %.0f\n", vw, "", w+7, fmt.Sprintf("%.4f to %.4f", recLo, recHi),
			w+7, fmt.Sprintf("%.4f to %.4f", ndcgLo, ndcgHi), ctxLo, ctxHi)
	}
	for _, p := range ms.Points {
		line := fmt.Sprintf("%-*s  %s %.4f  %s %.4f  %s %.0f", vw, SweepValue(p.Value),
			RangeBar(p.Means[rec], recLo, recHi, w), p.Means[rec], RangeBar(p.Means[ndcg], ndcgLo, ndcgHi, w), p.Means[ndcg],
			RangeBar(p.MeanContextChars, ctxLo, ctxHi, w), p.MeanContextChars)
		if p.Current {
			line += " ←"
		}
		b.WriteString(line + "\n")
	}
	fmt.Fprintf(&b, "\n%-*s", vw, ms.Param)
	for _, m := range ms.Metrics {
		fmt.Fprintf(&b, "  %-9s", m.Name())
	}
	b.WriteString("  hits\n")
	for _, p := range ms.Points {
		fmt.Fprintf(&b, "%-*s", vw, SweepValue(p.Value))
		for _, x := range p.Means {
			fmt.Fprintf(&b, "  %-9.4f", x)
		}
		fmt.Fprintf(&b, "  %.1f\n", p.MeanHits)
	}
	b.WriteString("← the current value. Each bar is on its column's range, printed under the heading (one cell at the lowest, full at the highest).\n")
	b.WriteString("Where recall and nDCG stop rising while the context keeps growing is the value to choose.\n")
	return b.String()
}
