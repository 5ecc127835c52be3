package render

import (
	"strings"
	"testing"

	"github.com/memoria-graph/memoria/retriever/eval"
)

// TestBar: x / full of width cells in eighths, rounded, padded: 0.5 of 20
// is 10 cells; 0.8052 is 16.104 cells, 128.8 eighths, so 16 cells and one
// eighth (▏); nothing and a zero scale give blanks; above full is full.
func TestBar(t *testing.T) {
	for _, k := range []struct {
		x, full float64
		want    string
	}{
		{0.5, 1, strings.Repeat("█", 10) + strings.Repeat(" ", 10)},
		{0.8052, 1, strings.Repeat("█", 16) + "▏" + strings.Repeat(" ", 3)},
		{0, 1, strings.Repeat(" ", 20)},
		{3, 0, strings.Repeat(" ", 20)},
		{2, 1, strings.Repeat("█", 20)},
	} {
		if got := Bar(k.x, k.full, 20); got != k.want {
			t.Errorf("Bar(%v, %v) = %q, want %q", k.x, k.full, got, k.want)
		}
	}
}

// TestMetricSweepText: two points at K = 10: recall 0.5 and 0.75, nDCG
// 0.25 and 0.5, context 500 and 1000, the second the current value. On
// the default width, 100, the bars get (100 − 35 − 4 digits of 1000) / 3
// = 20 cells; each column's lower value is one cell and its higher the
// full 20 (RangeBar), and the bounds stand under the heading.
func TestMetricSweepText(t *testing.T) {
	ms := MetricSweep{Retriever: "ppr", Param: "damping", Queries: 8, Ks: []int{10}, Metrics: eval.Metrics([]int{10}),
		Points: []MetricPoint{
			{Value: 0.3, Means: []float64{0.25, 0.5, 0.25, 0.5, 0.4}, MeanHits: 8, MeanContextChars: 500},
			{Value: 0.5, Current: true, Means: []float64{0.3, 0.75, 0.5, 0.5, 0.45}, MeanHits: 9.5, MeanContextChars: 1000},
		}}
	got := MetricSweepText(ms)
	one := "█" + strings.Repeat(" ", 19)
	full := strings.Repeat("█", 20)
	for _, want := range []string{
		"metric sweep of ppr's damping over 8 queries: recall@10 and nDCG@10 beside the context an agent gets (mean characters)\n",
		"            0.5000 to 0.7500             0.2500 to 0.5000             500 to 1000\n",
		"0.3         " + one + " 0.5000  " + one + " 0.2500  " + one + " 500\n",
		"0.5         " + full + " 0.7500  " + full + " 0.5000  " + full + " 1000 ←\n",
		"damping     P@10       recall@10  nDCG@10    MRR        MAP        hits\n",
		"0.5         0.3000     0.7500     0.5000     0.5000     0.4500     9.5\n",
	} {
		if !strings.Contains(got, want) {
			t.Errorf("missing %q in\n%s", want, got)
		}
	}
	if csv := MetricSweepCSV(ms); !strings.HasPrefix(csv, "param,value,P@10,recall@10,nDCG@10,MRR,MAP,mean_hits,mean_context_chars\ndamping,0.3,0.25,0.5,0.25,0.5,0.4,8,500\n") {
		t.Errorf("csv:\n%s", csv)
	}
}

// TestMetricSweepThirdDecimal: recall 0.0047, 0.0058 and 0.0072 (issue
// 34's WordNet sweep, drawn on 0–1 as the same eighth of a cell at every
// value) on their own range, 20 cells: 1 cell at 0.0047; 1 + 0.0011/0.0025
// × 19 = 9.36 cells, 74.9 eighths, so 9 cells and 3 eighths (▍) at
// 0.0058; the full 20 at 0.0072. The bounds are printed; a width of 160
// gives (160 − 39) / 3 = 40 cells instead.
func TestMetricSweepThirdDecimal(t *testing.T) {
	ms := MetricSweep{Retriever: "ppr", Param: "damping", Queries: 8, Ks: []int{10}, Metrics: eval.Metrics([]int{10})}
	for i, r := range []float64{0.0047, 0.0058, 0.0072} {
		ms.Points = append(ms.Points, MetricPoint{Value: float64(i + 1), Means: []float64{0, r, 0.5, 0, 0}, MeanContextChars: 1000})
	}
	got := MetricSweepText(ms)
	for _, want := range []string{
		"0.0047 to 0.0072",
		"1           █" + strings.Repeat(" ", 19) + " 0.0047",
		"2           " + strings.Repeat("█", 9) + "▍" + strings.Repeat(" ", 10) + " 0.0058",
		"3           " + strings.Repeat("█", 20) + " 0.0072",
	} {
		if !strings.Contains(got, want) {
			t.Errorf("missing %q in\n%s", want, got)
		}
	}
	ms.Width = 160
	if got := MetricSweepText(ms); !strings.Contains(got, "3           "+strings.Repeat("█", 40)+" 0.0072") {
		t.Errorf("width 160: want 40-cell bars:\n%s", got)
	}
}
