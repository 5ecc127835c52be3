package tune

import (
	"errors"
	"math"
	"slices"
	"testing"

	"github.com/memoria-graph/memoria/retriever/eval"
)

// table is a Measure over per-setting figures given by f (a setting's
// values → its per-query metric values and context sizes), counting how
// often each setting is measured.
type table struct {
	f     func(Setting) Figures
	times map[string]int
	calls int
}

func (tb *table) measure(ss []Setting) ([]Figures, error) {
	tb.calls++
	out := make([]Figures, len(ss))
	for i, s := range ss {
		tb.times[key(s)]++
		out[i] = tb.f(s)
	}
	return out, nil
}

func newTable(f func(Setting) Figures) *table { return &table{f: f, times: map[string]int{}} }

func flat(n int, v float64) []float64 {
	out := make([]float64, n)
	for i := range out {
		out[i] = v
	}
	return out
}

// byHand runs TestCrossValidationByHand's case (its doc comment gives the
// figures), counting the measures.
func byHand(t *testing.T) (Result, *table) {
	t.Helper()
	figs := map[int][]float64{
		0: {1, 0.5, 0.75, 0.25, 0.25, 0.75},
		1: {0.5, 0.5, 0.5, 0.5, 0.5, 0.5},
		2: {0.5, 0.75, 1, 0.25, 0.75, 0.5},
	}
	tb := newTable(func(s Setting) Figures { return Figures{Values: figs[s[0]], Context: flat(6, 100)} })
	res, err := Run(Config{Params: []Param{{Name: "p", Values: []float64{1, 2, 3}, Default: 1}}, Queries: 6,
		Folds: [][]int{{0, 1, 2}, {3, 4, 5}}}, tb.measure)
	if err != nil {
		t.Fatal(err)
	}
	return res, tb
}

// TestCrossValidationByHand works issue 34's case: 6 queries q1..q6, 2
// folds (A = q1 q2 q3, B = q4 q5 q6), one parameter of 3 values (1, 2, 3;
// the default 2). The per-query figures:
//
//	value 1: 1     0.5   0.75  | 0.25  0.25  0.75
//	value 2: 0.5   0.5   0.5   | 0.5   0.5   0.5     (the default)
//	value 3: 0.5   0.75  1     | 0.25  0.75  0.5
//
// Fold A held out, trained on q4..q6: sums 1.25, 1.5, 1.5 (means 0.41667,
// 0.5, 0.5): values 2 and 3 tie, and 2 is nearer the default (0 steps
// against 1): it chooses 2, train 0.5, held out (q1..q3 at 2) 0.5.
// Fold B held out, trained on q1..q3: sums 2.25, 1.5, 2.25 (0.75, 0.5,
// 0.75): values 1 and 3 tie, both 1 step from the default, and the smaller
// wins: it chooses 1, train 0.75, held out (q4..q6 at 1) 1.25/3 = 0.41667.
//
// Held out, tuned per query 0.5 0.5 0.5 0.25 0.25 0.75, mean 2.75/6 =
// 0.458333; the defaults' 0.5; diff −0.25/6 = −0.041667. The paired
// differences 0 0 0 −0.25 −0.25 0.25 have |Σ| = 0.25, and every sign
// assignment of the three non-zero ones sums to ±0.25 or ±0.75, so every
// round reaches it: p = 1. On all queries: sums 3.5, 3, 3.75, so 3 is
// chosen (means 0.58333, 0.5, 0.625).
func TestCrossValidationByHand(t *testing.T) {
	res, tb := byHand(t)
	if res.Search != SearchProduct || len(res.Settings) != 3 || tb.calls != 1 {
		t.Fatalf("search %q, %d settings in %d calls; want the product's 3 in one", res.Search, len(res.Settings), tb.calls)
	}
	for k, n := range tb.times {
		if n != 1 {
			t.Errorf("setting %s measured %d times, want once", k, n)
		}
	}
	value := func(i int) int { return res.Settings[i][0] }
	if value(res.Default) != 1 {
		t.Errorf("default is value index %d, want 1", value(res.Default))
	}
	want := []struct {
		chosen         int
		train, heldOut float64
	}{{1, 0.5, 0.5}, {0, 0.75, 1.25 / 3}}
	for f, w := range want {
		got := res.Folds[f]
		if value(got.Chosen) != w.chosen || !near(got.Train, w.train) || !near(got.HeldOut, w.heldOut) {
			t.Errorf("fold %d: chose value index %d, train %v, held out %v; want %d, %v, %v", f+1, value(got.Chosen), got.Train, got.HeldOut, w.chosen, w.train, w.heldOut)
		}
	}
	h := res.HeldOut
	if !near(h.Tuned, 2.75/6) || !near(h.Default, 0.5) || !near(h.Diff, -0.25/6) || h.P != 1 {
		t.Errorf("held out %+v; want tuned 0.458333, default 0.5, diff -0.041667, p 1", h)
	}
	ci := eval.BootstrapCI([][]float64{{0, 0, 0, -0.25, -0.25, 0.25}}, eval.Resamples, eval.BootstrapSeed)[0]
	if h.CI != ci || !(h.CI[0] < h.Diff && h.Diff < h.CI[1]) {
		t.Errorf("CI %v; want eval.BootstrapCI of the differences, %v, around the diff", h.CI, ci)
	}
	if value(res.Chosen) != 2 {
		t.Errorf("chosen on all queries: value index %d, want 2 (value 3)", value(res.Chosen))
	}
}

func near(a, b float64) bool { return math.Abs(a-b) < 1e-12 }

// TestAscentFindsOptimum: x in 0..3, y in 0..2, defaults (0, 0), every
// query's figure 1 − ((x−2)² + (y−1)²)/10, its maximum at (2, 1). The
// product has 12 settings, over MaxPoints 11: coordinate ascent. Round 1:
// x with y = 0 (0.5, 0.8, 0.9, 0.8): x = 2; y with x = 2 (0.9, 1, 0.9): y =
// 1. Round 2: x with y = 1 (0.6, 0.9, 1, 0.9) keeps 2, y keeps 1: stop
// after 2 rounds at (2, 1), having measured 4 + 2 + 3 = 9 settings.
func TestAscentFindsOptimum(t *testing.T) {
	tb := newTable(func(s Setting) Figures {
		x, y := float64(s[0]), float64(s[1])
		return Figures{Values: flat(2, 1-((x-2)*(x-2)+(y-1)*(y-1))/10), Context: flat(2, 0)}
	})
	res, err := Run(Config{Params: []Param{{Name: "x", Values: []float64{0, 1, 2, 3}}, {Name: "y", Values: []float64{0, 1, 2}}},
		Queries: 2, Folds: [][]int{{0}, {1}}, MaxPoints: 11}, tb.measure)
	if err != nil {
		t.Fatal(err)
	}
	if res.Search != SearchAscent || res.Rounds != 2 || len(res.Settings) != 9 {
		t.Fatalf("search %q, %d rounds, %d settings; want coordinate ascent, 2 rounds, 9", res.Search, res.Rounds, len(res.Settings))
	}
	if got := res.Settings[res.Chosen]; !slices.Equal(got, Setting{2, 1}) {
		t.Errorf("chosen %v, want [2 1]", got)
	}
	for k, n := range tb.times {
		if n != 1 {
			t.Errorf("setting %s measured %d times, want once", k, n)
		}
	}
}

// TestAscentStopsEarly: x, y in {0, 1}, defaults (0, 0), figures 0.5 at
// (0, 0), 0.25 at (1, 0) and (0, 1), 1 at (1, 1). Coordinate ascent
// (MaxPoints 3 < 4) tries x with y = 0 (0.5, 0.25) and y with x = 0 (0.5,
// 0.25): nothing changes in round 1, so it stops at (0, 0) having measured
// 3 settings, never (1, 1); the product (MaxPoints 4) finds (1, 1).
func TestAscentStopsEarly(t *testing.T) {
	f := func(s Setting) Figures {
		v := map[[2]int]float64{{0, 0}: 0.5, {1, 0}: 0.25, {0, 1}: 0.25, {1, 1}: 1}[[2]int{s[0], s[1]}]
		return Figures{Values: flat(2, v), Context: flat(2, 0)}
	}
	params := []Param{{Name: "x", Values: []float64{0, 1}}, {Name: "y", Values: []float64{0, 1}}}
	res, err := Run(Config{Params: params, Queries: 2, Folds: [][]int{{0}, {1}}, MaxPoints: 3}, newTable(f).measure)
	if err != nil {
		t.Fatal(err)
	}
	if res.Search != SearchAscent || res.Rounds != 1 || len(res.Settings) != 3 || !slices.Equal(res.Settings[res.Chosen], Setting{0, 0}) {
		t.Errorf("ascent: %q, %d rounds, %d settings, chose %v; want 1 round, 3 settings, [0 0]", res.Search, res.Rounds, len(res.Settings), res.Settings[res.Chosen])
	}
	res, err = Run(Config{Params: params, Queries: 2, Folds: [][]int{{0}, {1}}, MaxPoints: 4}, newTable(f).measure)
	if err != nil {
		t.Fatal(err)
	}
	if res.Search != SearchProduct || !slices.Equal(res.Settings[res.Chosen], Setting{1, 1}) {
		t.Errorf("product: %q, chose %v; want [1 1]", res.Search, res.Settings[res.Chosen])
	}
}

// TestBudget: values 1, 2, 3 (default 2) give every query 0.25, 0.5, 0.75
// and contexts of 100, 200, 300 characters. Within 250 characters value 3
// is out, and 2 is chosen everywhere though 3 scores more; within 50 none
// fits, and the refusal names the least mean context, 100.
func TestBudget(t *testing.T) {
	f := func(s Setting) Figures {
		return Figures{Values: flat(2, 0.25*float64(s[0]+1)), Context: flat(2, 100*float64(s[0]+1))}
	}
	c := Config{Params: []Param{{Name: "p", Values: []float64{1, 2, 3}, Default: 1}}, Queries: 2, Folds: [][]int{{0}, {1}}, Budget: 250}
	res, err := Run(c, newTable(f).measure)
	if err != nil {
		t.Fatal(err)
	}
	for _, fd := range res.Folds {
		if res.Settings[fd.Chosen][0] != 1 {
			t.Errorf("a fold chose %v, want value index 1", res.Settings[fd.Chosen])
		}
	}
	if res.Settings[res.Chosen][0] != 1 {
		t.Errorf("chose %v on all, want value index 1", res.Settings[res.Chosen])
	}
	c.Budget = 50
	_, err = Run(c, newTable(f).measure)
	var be *BudgetError
	if !errors.As(err, &be) || be.Least != 100 || be.Fold != 1 {
		t.Errorf("err %v; want a BudgetError of fold 1, least 100", err)
	}
}

// TestSplit: 7 queries in 3 folds: every query once, sizes 3, 2, 2 in some
// order, each fold ascending; the same seed gives the same folds, and
// another seed other folds.
func TestSplit(t *testing.T) {
	a := Split(7, 3, DefaultSplitSeed)
	var all []int
	var sizes []int
	for _, f := range a {
		if !slices.IsSorted(f) {
			t.Errorf("fold %v not ascending", f)
		}
		all = append(all, f...)
		sizes = append(sizes, len(f))
	}
	slices.Sort(all)
	slices.Sort(sizes)
	if !slices.Equal(all, []int{0, 1, 2, 3, 4, 5, 6}) || !slices.Equal(sizes, []int{2, 2, 3}) {
		t.Errorf("folds %v", a)
	}
	if b := Split(7, 3, DefaultSplitSeed); !slices.EqualFunc(a, b, slices.Equal) {
		t.Errorf("same seed, other folds: %v, %v", a, b)
	}
	if c := Split(7, 3, DefaultSplitSeed+1); slices.EqualFunc(a, c, slices.Equal) {
		t.Errorf("another seed gave the same folds %v", a)
	}
}

// TestCurveByHand is the held-out curve of TestCrossValidationByHand's
// case (folds A = q1 q2 q3, B = q4 q5 q6):
//
//	value 1: A (1 + 0.5 + 0.75)/3 = 0.75,  B (0.25 + 0.25 + 0.75)/3 = 0.416667 → 3.5/6 = 0.583333, 0.416667 to 0.75
//	value 2: A 0.5,                        B 0.5                              → 3/6 = 0.5, 0.5 to 0.5
//	value 3: A (0.5 + 0.75 + 1)/3 = 0.75,  B (0.25 + 0.75 + 0.5)/3 = 0.5      → 3.75/6 = 0.625, 0.5 to 0.75
//
// Fold 1 (A held out) chose value 2, fold 2 (B) value 1; nobody chose 3.
func TestCurveByHand(t *testing.T) {
	res, _ := byHand(t)
	want := map[int]CurvePoint{
		0: {Mean: 3.5 / 6, Lo: 1.25 / 3, Hi: 0.75, ChosenBy: []int{2}},
		1: {Mean: 0.5, Lo: 0.5, Hi: 0.5, ChosenBy: []int{1}},
		2: {Mean: 3.75 / 6, Lo: 0.5, Hi: 0.75},
	}
	curve := Curve(res)
	if len(curve) != 3 {
		t.Fatalf("%d curve points, want 3", len(curve))
	}
	for i, p := range curve {
		w := want[res.Settings[i][0]]
		if !near(p.Mean, w.Mean) || !near(p.Lo, w.Lo) || !near(p.Hi, w.Hi) || !slices.Equal(p.ChosenBy, w.ChosenBy) {
			t.Errorf("value %v: %+v, want %+v", res.Settings[i][0]+1, p, w)
		}
	}
}

// TestCurveUnequalFolds: with folds of sizes 1 and 2 the curve is the mean
// of the queries, not of the fold means. Figures 0.9 | 0.3 0.6 at the one
// value: fold means 0.9 and 0.45 (whose mean, 0.675, it is not), the
// queries' mean 1.8/3 = 0.6, which is also the held-out figure of the
// defaults.
func TestCurveUnequalFolds(t *testing.T) {
	tb := newTable(func(Setting) Figures { return Figures{Values: []float64{0.9, 0.3, 0.6}, Context: flat(3, 1)} })
	res, err := Run(Config{Params: []Param{{Name: "p", Values: []float64{1}}}, Queries: 3, Folds: [][]int{{0}, {1, 2}}}, tb.measure)
	if err != nil {
		t.Fatal(err)
	}
	c := Curve(res)
	if len(c) != 1 || !near(c[0].Mean, 0.6) || !near(c[0].Lo, 0.45) || !near(c[0].Hi, 0.9) || !slices.Equal(c[0].ChosenBy, []int{1, 2}) {
		t.Errorf("curve %+v, want 0.6 (folds 0.45 to 0.9) chosen by folds 1 and 2", c)
	}
	if !near(res.HeldOut.Default, c[0].Mean) {
		t.Errorf("the defaults' held-out figure %v is not the curve's %v", res.HeldOut.Default, c[0].Mean)
	}
}

// TestCurveEmptyFold: a fold with no queries has no mean and does not pull
// a setting's lowest fold to 0. Figures 0.5 | 0.7 and a third, empty fold:
// mean 0.6, folds 0.5 to 0.7.
func TestCurveEmptyFold(t *testing.T) {
	r := Result{Settings: []Setting{{0}}, Figures: []Figures{{Values: []float64{0.5, 0.7}}},
		Folds: []Fold{{Queries: []int{0}}, {Queries: []int{1}}, {Chosen: 0}}}
	c := Curve(r)
	if !near(c[0].Mean, 0.6) || c[0].Lo != 0.5 || c[0].Hi != 0.7 || !slices.Equal(c[0].ChosenBy, []int{1, 2, 3}) {
		t.Errorf("curve %+v, want 0.6 from 0.5 to 0.7, chosen by folds 1, 2, 3", c[0])
	}
}
