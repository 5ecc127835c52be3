package tui

import (
	"context"
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/memoria-graph/memoria/graph"
	"github.com/memoria-graph/memoria/render"
	"github.com/memoria-graph/memoria/retriever"
)

// paramRow is one row of a rowSet: a number (or, with choices, one of a
// few words) read from and written into a retriever's parameters P.
type paramRow[P any] struct {
	name  string // as the panel shows it
	rng   string // its range, as the panel shows it
	whole bool   // a whole number
	// choices, when set, are the words the row takes (get and set use
	// their index); Step cycles through them.
	choices []string
	get     func(P) float64
	set     func(*P, float64)
	// step is the value one step from v in direction dir (±1), within the
	// range; nil for a choice.
	step func(v float64, dir int) float64
}

// rowSet is a paramSet made of a table of rows over a retriever's
// parameters P (a value type; rows change only its plain fields, so copies
// never share what they change), with the retriever's own validation,
// equality and run.
type rowSet[P any] struct {
	p        P
	rows     []paramRow[P]
	validate func(P) error
	equal    func(a, b P) bool
	run      func(context.Context, graph.Neighbourhood, retriever.Query, P) (retriever.Ranking, error)
}

func (s rowSet[P]) Rows() int          { return len(s.rows) }
func (s rowSet[P]) Name(i int) string  { return s.rows[i].name }
func (s rowSet[P]) Range(i int) string { return s.rows[i].rng }

func (s rowSet[P]) Value(i int) string {
	r := s.rows[i]
	v := r.get(s.p)
	switch {
	case r.choices != nil:
		return r.choices[int(v)]
	case r.whole:
		return strconv.Itoa(int(v))
	}
	return render.Num(v)
}

func (s rowSet[P]) Step(i, dir int) paramSet {
	r := s.rows[i]
	v := r.get(s.p)
	if r.choices != nil {
		v = float64((int(v) + dir + len(r.choices)) % len(r.choices))
	} else {
		v = r.step(v, dir)
	}
	r.set(&s.p, v)
	return s
}

// Parse sets row i to raw, checked by the retriever's validation.
func (s rowSet[P]) Parse(i int, raw string) (paramSet, error) {
	r := s.rows[i]
	var v float64
	switch {
	case r.choices != nil:
		k := slices.Index(r.choices, strings.TrimSpace(raw))
		if k < 0 {
			return s, fmt.Errorf("%q is not one of %s", raw, strings.Join(r.choices, ", "))
		}
		v = float64(k)
	case r.whole:
		n, err := strconv.Atoi(strings.TrimSpace(raw))
		if err != nil {
			return s, fmt.Errorf("%q is not a whole number", raw)
		}
		v = float64(n)
	default:
		f, err := strconv.ParseFloat(strings.TrimSpace(raw), 64)
		if err != nil {
			return s, fmt.Errorf("%q is not a number", raw)
		}
		v = f
	}
	t := s
	r.set(&t.p, v)
	if err := t.validate(t.p); err != nil {
		return s, err
	}
	return t, nil
}

func (s rowSet[P]) Equal(o paramSet) bool {
	x, ok := o.(rowSet[P])
	return ok && s.equal(x.p, s.p)
}

func (s rowSet[P]) Raw() any { return s.p }

func (s rowSet[P]) Run(ctx context.Context, nb graph.Neighbourhood, q retriever.Query) (retriever.Ranking, error) {
	return s.run(ctx, nb, q, s.p)
}

// stepBy is a step of size d within [lo, hi] (stepLinear's rule).
func stepBy(d, lo, hi float64) func(float64, int) float64 {
	return func(v float64, dir int) float64 { return stepLinear(v, d, dir, lo, hi) }
}

// stepWhole is a step of 1 within [lo, hi].
func stepWhole(lo, hi int) func(float64, int) float64 {
	return func(v float64, dir int) float64 { return float64(clampInt(int(v)+dir, lo, hi)) }
}
