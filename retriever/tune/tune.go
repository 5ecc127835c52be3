// Package tune chooses a retriever's setting on held-out queries
// (docs/EVALUATION.md, "Tuning on held-out queries"): a grid of settings
// (the product of each parameter's values, or coordinate ascent from the
// defaults when the product is too large), K-fold cross-validation over
// per-query figures that each setting's one run over the query set gives,
// and the held-out comparison of the chosen settings with the defaults
// (retriever/eval's paired randomization test and bootstrap interval).
//
// It is pure: the caller runs the retriever (Measure) and this package only
// chooses among the figures; a query is never run again for a fold.
package tune

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"strconv"
	"strings"

	"github.com/memoria-graph/memoria/retriever/eval"
)

// DefaultMaxPoints is the most settings of a product grid (--max-points):
// a larger product is searched by coordinate ascent instead.
const DefaultMaxPoints = 200

// DefaultFolds and DefaultSplitSeed are the cross-validation's defaults
// (--folds, --seed-split).
const (
	DefaultFolds     = 5
	DefaultSplitSeed = 34
)

// The searches: every setting of the product, or coordinate ascent.
const (
	SearchProduct = "product"
	SearchAscent  = "coordinate ascent"
)

// Param is one parameter tuned: its name (the flag, or "weight:NAME"),
// the values tried (ascending, each once) and the index in Values of its
// default, the value the run starts from and compares with.
type Param struct {
	Name    string
	Values  []float64
	Default int
}

// Setting is one value of each parameter, as an index into its Values, in
// the order of the parameters.
type Setting []int

// Figures are what one setting's run over the query set gave, query by
// query in the order of the set: the metric's value and the characters of
// the llm context.
type Figures struct {
	Values  []float64
	Context []float64
}

// Measure runs each of settings over every query once and returns their
// figures in the same order. The search calls it only with settings it has
// not measured before.
type Measure func(settings []Setting) ([]Figures, error)

// Config is a tuning problem.
type Config struct {
	Params []Param
	// Queries is the number of queries; Folds the queries of each fold (by
	// index), every query in exactly one (Split).
	Queries int
	Folds   [][]int
	// MaxPoints is the most settings of a product grid (DefaultMaxPoints
	// when 0); a larger product is searched by coordinate ascent.
	MaxPoints int
	// Budget, when above 0, is the most mean context characters a setting
	// may give: only the settings within it are chosen (--budget-chars).
	Budget float64
}

// Fold is one fold's choice: its queries (indexes), the setting chosen on
// the other folds (an index into Result.Settings), its mean there (Train)
// and its mean on the fold's own queries (HeldOut).
type Fold struct {
	Queries []int
	Chosen  int
	Train   float64
	HeldOut float64
}

// HeldOut compares the chosen settings with the defaults on the held-out
// queries: each query's figure at the setting its fold chose (Tuned is
// their mean) against its figure at the defaults (Default), the mean
// difference, the paired randomization test's p (eval.RandomizationTest,
// eval.Permutations rounds, eval.Seed) and the 95% bootstrap interval of
// the difference (eval.BootstrapCI, eval.Resamples, eval.BootstrapSeed).
type HeldOut struct {
	Tuned, Default, Diff, P float64
	CI                      [2]float64
}

// Result is a tuning's outcome.
type Result struct {
	// Search is SearchProduct or SearchAscent; Rounds the full rounds of
	// coordinate ascent of the choice on all queries (0 for a product).
	Search string
	Rounds int
	// Settings are every setting measured, in the order measured, with
	// their Figures; Default is the index of the defaults among them.
	Settings []Setting
	Figures  []Figures
	Default  int
	Folds    []Fold
	// Chosen is the setting chosen on all queries (an index into
	// Settings): the one to use.
	Chosen  int
	HeldOut HeldOut
}

// BudgetError says that no setting measured keeps the mean context within
// the budget on some queries: the least mean context there was Least.
type BudgetError struct {
	Budget, Least float64
	// Fold is the fold whose training queries were searched (from 1), 0
	// for all queries.
	Fold int
}

func (e *BudgetError) Error() string {
	on := "all queries"
	if e.Fold > 0 {
		on = fmt.Sprintf("the training queries of fold %d", e.Fold)
	}
	return fmt.Sprintf("no setting tried keeps the mean context within %s characters on %s (the least: %s)",
		strconv.FormatFloat(e.Budget, 'g', -1, 64), on, strconv.FormatFloat(e.Least, 'f', 1, 64))
}

// Split deals queries 0..n−1 into k folds by a shuffle seeded with seed (a
// PCG): the shuffled order's i-th query goes to fold i mod k, so the folds'
// sizes differ by at most one; each fold lists its queries ascending. The
// same n, k and seed always give the same folds.
func Split(n, k int, seed uint64) [][]int {
	order := make([]int, n)
	for i := range order {
		order[i] = i
	}
	r := rand.New(rand.NewPCG(seed, 0x853c49e6748fea9b))
	r.Shuffle(n, func(i, j int) { order[i], order[j] = order[j], order[i] })
	folds := make([][]int, k)
	for i, q := range order {
		folds[i%k] = append(folds[i%k], q)
	}
	for _, f := range folds {
		slices.Sort(f)
	}
	return folds
}

// Points is the number of settings of the product of params' values, or
// limit+1 when that is more than limit.
func Points(params []Param, limit int) int {
	n := 1
	for _, p := range params {
		n *= len(p.Values)
		if n > limit {
			return limit + 1
		}
	}
	return n
}

// Run tunes: it measures the grid (the product when it has at most
// MaxPoints settings, else the settings coordinate ascent visits), chooses
// a setting for each fold on the other folds, compares the held-out
// figures with the defaults', and chooses the setting on all queries.
//
// A setting is chosen by this order: within the budget first (when there
// is one); then the higher mean metric; then nearer the defaults, in grid
// steps (the sum over the parameters of how far the setting's value is
// from the default's in the parameter's ascending values, neighbours one
// step apart: |index − default index|); then the smaller values, compared
// parameter by parameter in the order given. Among settings over the
// budget the smaller mean context comes first (then nearer, then smaller),
// so that coordinate ascent from defaults over the budget moves into it.
func Run(c Config, measure Measure) (Result, error) {
	if len(c.Params) == 0 {
		return Result{}, fmt.Errorf("no parameter to tune")
	}
	maxPoints := c.MaxPoints
	if maxPoints <= 0 {
		maxPoints = DefaultMaxPoints
	}
	t := &tuner{c: c, measure: measure, index: map[string]int{}}
	def := make(Setting, len(c.Params))
	for i, p := range c.Params {
		def[i] = p.Default
	}
	all := make([]int, c.Queries)
	for i := range all {
		all[i] = i
	}
	var res Result
	var choose func(train []int) (int, int, error)
	if Points(c.Params, maxPoints) <= maxPoints {
		res.Search = SearchProduct
		if _, err := t.get(product(c.Params)...); err != nil {
			return Result{}, err
		}
		choose = func(train []int) (int, int, error) {
			best := 0
			for s := 1; s < len(t.settings); s++ {
				if t.better(s, best, train) {
					best = s
				}
			}
			return best, 0, nil
		}
	} else {
		res.Search = SearchAscent
		choose = func(train []int) (int, int, error) { return t.ascend(def, train) }
	}
	d, err := t.get(def)
	if err != nil {
		return Result{}, err
	}
	res.Default = d[0]
	tuned := make([]float64, c.Queries)
	for f, held := range c.Folds {
		train := without(all, held)
		s, _, err := choose(train)
		if err != nil {
			return Result{}, err
		}
		if err := t.fits(s, train, f+1); err != nil {
			return Result{}, err
		}
		res.Folds = append(res.Folds, Fold{Queries: held, Chosen: s, Train: mean(t.figures[s].Values, train), HeldOut: mean(t.figures[s].Values, held)})
		for _, q := range held {
			tuned[q] = t.figures[s].Values[q]
		}
	}
	if res.Chosen, res.Rounds, err = choose(all); err != nil {
		return Result{}, err
	}
	if err := t.fits(res.Chosen, all, 0); err != nil {
		return Result{}, err
	}
	base := t.figures[res.Default].Values
	diff := make([]float64, c.Queries)
	for q := range diff {
		diff[q] = tuned[q] - base[q]
	}
	res.HeldOut = HeldOut{Tuned: mean(tuned, all), Default: mean(base, all),
		P:  eval.RandomizationTest(base, tuned, eval.Permutations, eval.Seed),
		CI: eval.BootstrapCI([][]float64{diff}, eval.Resamples, eval.BootstrapSeed)[0]}
	res.HeldOut.Diff = res.HeldOut.Tuned - res.HeldOut.Default
	res.Settings, res.Figures = t.settings, t.figures
	return res, nil
}

// tuner holds the settings measured so far.
type tuner struct {
	c        Config
	measure  Measure
	settings []Setting
	figures  []Figures
	index    map[string]int // a setting's key → its index
}

func key(s Setting) string {
	var b strings.Builder
	for _, i := range s {
		b.WriteString(strconv.Itoa(i) + ",")
	}
	return b.String()
}

// get returns the indexes of ss, measuring (in one call) those not yet
// measured.
func (t *tuner) get(ss ...Setting) ([]int, error) {
	var todo []Setting
	for _, s := range ss {
		k := key(s)
		if _, ok := t.index[k]; !ok {
			t.index[k] = -1
			todo = append(todo, slices.Clone(s))
		}
	}
	if len(todo) > 0 {
		figs, err := t.measure(todo)
		if err != nil {
			return nil, err
		}
		if len(figs) != len(todo) {
			return nil, fmt.Errorf("measured %d settings of %d", len(figs), len(todo))
		}
		for i, s := range todo {
			if len(figs[i].Values) != t.c.Queries || len(figs[i].Context) != t.c.Queries {
				return nil, fmt.Errorf("a setting's figures cover %d queries of %d", len(figs[i].Values), t.c.Queries)
			}
			t.index[key(s)] = len(t.settings)
			t.settings = append(t.settings, s)
			t.figures = append(t.figures, figs[i])
		}
	}
	out := make([]int, len(ss))
	for i, s := range ss {
		out[i] = t.index[key(s)]
	}
	return out, nil
}

// ascend is coordinate ascent from start on the queries train: each
// parameter in turn set to its best value with the others held (every
// value of its grid measured), until a full round changes nothing. It
// returns the setting reached and the full rounds made (the last one,
// which changed nothing, included). It ends: each move is to a setting
// strictly before the current one in the choice's order (better), which
// is a total order on a finite grid.
func (t *tuner) ascend(start Setting, train []int) (int, int, error) {
	cur := slices.Clone(start)
	for rounds := 1; ; rounds++ {
		changed := false
		for j, p := range t.c.Params {
			line := make([]Setting, len(p.Values))
			for v := range p.Values {
				line[v] = slices.Clone(cur)
				line[v][j] = v
			}
			idx, err := t.get(line...)
			if err != nil {
				return 0, 0, err
			}
			best := idx[cur[j]]
			for _, s := range idx {
				if t.better(s, best, train) {
					best = s
				}
			}
			if t.settings[best][j] != cur[j] {
				cur[j] = t.settings[best][j]
				changed = true
			}
		}
		if !changed {
			idx, err := t.get(cur)
			if err != nil {
				return 0, 0, err
			}
			return idx[0], rounds, nil
		}
	}
}

// better reports whether setting a comes before setting b on the queries
// train in the choice's order (Run).
func (t *tuner) better(a, b int, train []int) bool {
	if t.c.Budget > 0 {
		ca, cb := mean(t.figures[a].Context, train), mean(t.figures[b].Context, train)
		fa, fb := ca <= t.c.Budget, cb <= t.c.Budget
		switch {
		case fa != fb:
			return fa
		case !fa && ca != cb:
			return ca < cb
		}
		if !fa {
			return t.nearer(a, b)
		}
	}
	ma, mb := mean(t.figures[a].Values, train), mean(t.figures[b].Values, train)
	if ma != mb {
		return ma > mb
	}
	return t.nearer(a, b)
}

// nearer reports whether setting a is nearer the defaults than b in grid
// steps, or as near with smaller values (the first parameter that differs
// decides).
func (t *tuner) nearer(a, b int) bool {
	da, db := t.steps(t.settings[a]), t.steps(t.settings[b])
	if da != db {
		return da < db
	}
	return slices.Compare(t.settings[a], t.settings[b]) < 0
}

// steps is setting s's distance from the defaults in grid steps.
func (t *tuner) steps(s Setting) int {
	n := 0
	for i, p := range t.c.Params {
		n += max(s[i]-p.Default, p.Default-s[i])
	}
	return n
}

// fits refuses setting s when a budget is set and s's mean context on the
// queries train is over it (then none measured was within it).
func (t *tuner) fits(s int, train []int, fold int) error {
	if t.c.Budget <= 0 {
		return nil
	}
	least := mean(t.figures[s].Context, train)
	if least <= t.c.Budget {
		return nil
	}
	return &BudgetError{Budget: t.c.Budget, Least: least, Fold: fold}
}

// product is every setting of params' values, the last parameter varying
// fastest.
func product(params []Param) []Setting {
	out := []Setting{{}}
	for _, p := range params {
		var next []Setting
		for _, s := range out {
			for v := range p.Values {
				next = append(next, append(slices.Clone(s), v))
			}
		}
		out = next
	}
	return out
}

// without is all less the queries of held (both ascending).
func without(all, held []int) []int {
	var out []int
	for _, q := range all {
		if _, found := slices.BinarySearch(held, q); !found {
			out = append(out, q)
		}
	}
	return out
}

// mean is the mean of xs over the queries qs (0 for none), summed in the
// order of qs.
func mean(xs []float64, qs []int) float64 {
	if len(qs) == 0 {
		return 0
	}
	s := 0.0
	for _, q := range qs {
		s += xs[q]
	}
	return s / float64(len(qs))
}

// Mean is the mean of xs over the queries qs (0 for none): the figure a
// fold's Train and HeldOut are.
func Mean(xs []float64, qs []int) float64 { return mean(xs, qs) }
