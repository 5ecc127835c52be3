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

// TestMetricSweepText: two points at K = 10: recall 0.5 and 0.75 (10 and
// 15 cells), nDCG 0.25 and 0.5 (5 and 10), context 500 and 1000 (10 and
// 20 cells of the largest, 1000); the second is the current value.
func TestMetricSweepText(t *testing.T) {
	ms := MetricSweep{Retriever: "ppr", Param: "damping", Queries: 8, Ks: []int{10}, Metrics: eval.Metrics([]int{10}),
		Points: []MetricPoint{
			{Value: 0.3, Means: []float64{0.25, 0.5, 0.25, 0.5, 0.4}, MeanHits: 8, MeanContextChars: 500},
			{Value: 0.5, Current: true, Means: []float64{0.3, 0.75, 0.5, 0.5, 0.45}, MeanHits: 9.5, MeanContextChars: 1000},
		}}
	got := MetricSweepText(ms)
	for _, want := range []string{
		"metric sweep of ppr's damping over 8 queries: recall@10 and nDCG@10 beside the context an agent gets (mean characters)\n",
		"0.3         " + strings.Repeat("█", 10) + strings.Repeat(" ", 10) + " 0.5000  " + strings.Repeat("█", 5) + strings.Repeat(" ", 15) + " 0.2500  " + strings.Repeat("█", 10) + strings.Repeat(" ", 10) + " 500\n",
		"0.5         " + strings.Repeat("█", 15) + strings.Repeat(" ", 5) + " 0.7500  " + strings.Repeat("█", 10) + strings.Repeat(" ", 10) + " 0.5000  " + strings.Repeat("█", 20) + " 1000 ←\n",
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
