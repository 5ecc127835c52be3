package render

import (
	"math"
	"strings"
	"testing"

	"github.com/memoria-graph/memoria/retriever/eval"
)

// TestNumWidthBounded: a number shown for people is never wider than 16
// characters. Before, Num wrote every finite number in plain decimal, so
// R = 5e-324 took 326 characters and a weight of 1e308 309 digits on a
// tree's line.
//
// Expected: 5e-324 → "4.941e-324" (4 significant digits of the smallest
// double, 4.9406564584124654e-324); 1e308 → "1e+308"; 4.9406564584124654e-16 → "4.941e-16" (below
// PlainMin); 1.234e-9 → "0.000000001234" (PlainMin itself is plain, 14
// characters); 999949999999999 → "999900000000000" (4 digits, below
// PlainMax, 15 characters); 999950000000000 → "1e+15" (rounds to PlainMax);
// -1.5e20 → "-1.5e+20"; MaxFloat64, 1.7976931348623157e308 →
// "1.798e+308" (rounded up past the range of a double, still written).
func TestNumWidthBounded(t *testing.T) {
	cases := map[float64]string{5e-324: "4.941e-324", 1e308: "1e+308", 4.9406564584124654e-16: "4.941e-16",
		1.234e-9: "0.000000001234", 999949999999999: "999900000000000", 999950000000000: "1e+15", -1.5e20: "-1.5e+20",
		math.MaxFloat64: "1.798e+308", -math.SmallestNonzeroFloat64: "-4.941e-324"}
	for v, want := range cases {
		if got := Num(v); got != want || len(got) > 16 {
			t.Errorf("Num(%v) = %q, want %q", v, got, want)
		}
	}
	for _, digits := range []int{4, 5, 6} {
		for e := -324; e <= 308; e++ {
			v := 1.2345678 * math.Pow(10, float64(e))
			if v == 0 || math.IsInf(v, 0) {
				continue
			}
			if got := numDigits(v, digits); len(got) > 16 {
				t.Errorf("numDigits(%v, %d) = %q: %d characters", v, digits, got, len(got))
			}
		}
	}
}

// TestSweepValueWhole: the metric sweep's tables write a whole value in
// full. Before, 6 significant digits wrote top-k 2147483647 as
// 2.14748e+09, a value nobody typed and that does not tell apart
// 2147483647 from 2147480000.
//
// Expected: 2147483647 → "2147483647", 10 → "10", 0.3 → "0.3",
// 1.23456789e-7 → "1.23457e-07" (6 digits, not whole), 1e300 → "1e+300"
// (whole, but from PlainMax on: bounded).
func TestSweepValueWhole(t *testing.T) {
	for v, want := range map[float64]string{2147483647: "2147483647", 10: "10", 0.3: "0.3", 1.23456789e-7: "1.23457e-07", 1e300: "1e+300"} {
		if got := SweepValue(v); got != want {
			t.Errorf("SweepValue(%v) = %q, want %q", v, got, want)
		}
	}
}

// TestMetricSweepJSONKeepsOrder: each point's metrics are written in the
// sweep's order, eval.Metrics' (P@k, recall@k, nDCG@k for each k, then
// MRR and MAP), as eval's JSON writes them. Before, a map wrote them
// alphabetically (MAP, MRR, P@10, nDCG@10, recall@10).
func TestMetricSweepJSONKeepsOrder(t *testing.T) {
	ms := MetricSweep{Retriever: "ppr", Param: "damping", Queries: 1, Ks: []int{10}, Metrics: eval.Metrics([]int{10}),
		Points: []MetricPoint{{Value: 0.5, Current: true, Means: []float64{0.1, 0.2, 0.3, 0.4, 0.5}, MeanHits: 1, MeanContextChars: 2}}}
	b, err := MetricSweepJSON(ms)
	if err != nil {
		t.Fatal(err)
	}
	want := `"metrics":{"P@10":0.1,"recall@10":0.2,"nDCG@10":0.3,"MRR":0.4,"MAP":0.5}`
	if !strings.Contains(string(b), want) {
		t.Errorf("got %s, want it to hold %s", b, want)
	}
}
