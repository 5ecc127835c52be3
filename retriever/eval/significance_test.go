package eval

import (
	"math"
	"testing"
)

// TestHolm: issue 34's example worked by hand (Holm's doc comment): p
// 0.01, 0.04, 0.03 → 0.03, 0.06, 0.06; a single p is its own; 1 caps.
func TestHolm(t *testing.T) {
	for _, c := range []struct{ in, want []float64 }{
		{[]float64{0.01, 0.04, 0.03}, []float64{0.03, 0.06, 0.06}},
		{[]float64{0.2}, []float64{0.2}},
		{[]float64{0.6, 0.5}, []float64{1, 1}},
		{[]float64{0.001, 0.02, 0.04, 0.5}, []float64{0.004, 0.06, 0.08, 0.5}},
	} {
		got := Holm(c.in)
		for i := range got {
			if math.Abs(got[i]-c.want[i]) > 1e-12 {
				t.Errorf("Holm(%v) = %v, want %v", c.in, got, c.want)
				break
			}
		}
	}
}

// TestBootstrapCI: a series that is constant has the interval [c, c]; one
// of 0s and 1s in equal number has its mean 0.5 inside a symmetric-ish
// interval within [0, 1], narrower with more queries; the same seed gives
// the same bits; no queries give [0, 0].
func TestBootstrapCI(t *testing.T) {
	ci := BootstrapCI([][]float64{{0.3, 0.3, 0.3}}, Resamples, BootstrapSeed)
	if ci[0] != [2]float64{0.3, 0.3} {
		t.Errorf("constant: %v", ci)
	}
	few := make([]float64, 10)
	many := make([]float64, 1000)
	for i := range few {
		few[i] = float64(i % 2)
	}
	for i := range many {
		many[i] = float64(i % 2)
	}
	a := append(BootstrapCI([][]float64{few}, Resamples, BootstrapSeed), BootstrapCI([][]float64{many}, Resamples, BootstrapSeed)...)
	if !(a[0][0] < 0.5 && a[0][1] > 0.5 && a[0][0] >= 0 && a[0][1] <= 1) || !(a[1][0] < 0.5 && a[1][1] > 0.5) ||
		a[1][1]-a[1][0] >= a[0][1]-a[0][0] {
		t.Errorf("intervals %v", a)
	}
	// For 1,000 Bernoulli(½) queries the mean's standard error is
	// √(0.25/1000) = 0.0158: the 95% interval is about ±1.96 × 0.0158 =
	// ±0.031.
	if w := a[1][1] - a[1][0]; w < 0.05 || w > 0.075 {
		t.Errorf("width for 1,000 queries %v, want about 0.062", w)
	}
	if b := BootstrapCI([][]float64{few}, Resamples, BootstrapSeed); b[0] != a[0] {
		t.Error("not reproducible")
	}
	if z := BootstrapCI([][]float64{{}}, Resamples, BootstrapSeed); z[0] != [2]float64{} {
		t.Errorf("no queries: %v", z)
	}
}
