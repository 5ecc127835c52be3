package params

import (
	"context"
	"fmt"
	"strconv"
	"strings"

	"github.com/memoria-graph/memoria/graph"
	"github.com/memoria-graph/memoria/internal/textsafe"
	"github.com/memoria-graph/memoria/render"
	"github.com/memoria-graph/memoria/retriever"
)

// SpecSet is a ranking retriever's parameters as the explorer's panel
// shows them, made from its table (retriever.Spec, docs/ARCHITECTURE.md
// "Adding a retriever"): one row per parameter, then one per entry of its
// table parameter (the expansion's type weights, by type). It is a value:
// Step and Parse return changed copies, the settings never change in
// place.
type SpecSet struct {
	p    retriever.Settings
	keys []string // the table's keys, sorted: the rows after the parameters
}

var _ Set = SpecSet{}

func NewSpecSet(p retriever.Settings) SpecSet { return SpecSet{p: p, keys: p.TableKeys()} }

func (s SpecSet) params() []retriever.Param { return s.p.Spec().Params }

// row is row i's parameter, or its table key (ok false).
func (s SpecSet) row(i int) (pm retriever.Param, key string, ok bool) {
	if ps := s.params(); i < len(ps) {
		return ps[i], "", true
	}
	return retriever.Param{}, s.keys[i-len(s.params())], false
}

func (s SpecSet) Rows() int { return len(s.params()) + len(s.keys) }

func (s SpecSet) Name(i int) string {
	if pm, key, ok := s.row(i); ok {
		return pm.Label
	} else {
		return textsafe.Escape(key)
	}
}

func (s SpecSet) Range(i int) string {
	if pm, _, ok := s.row(i); ok {
		return pm.Range
	}
	return s.p.TableRange()
}

func (s SpecSet) Value(i int) string {
	pm, key, ok := s.row(i)
	if !ok {
		return render.Num(s.p.TableGet(key))
	}
	v := pm.Get(s.p)
	switch {
	case pm.Choices != nil:
		return pm.Format(v)
	case pm.Whole:
		return strconv.Itoa(int(v))
	}
	return render.Num(v)
}

func (s SpecSet) Step(i, dir int) Set {
	pm, key, ok := s.row(i)
	if !ok {
		return SpecSet{p: s.p.WithTable(key, s.p.TableStep(key, dir)), keys: s.keys}
	}
	v := pm.Get(s.p)
	if pm.Choices != nil {
		v = float64((int(v) + dir + len(pm.Choices)) % len(pm.Choices))
	} else {
		v = pm.Step(v, dir)
	}
	return SpecSet{p: s.p.With(pm.Flag, v), keys: s.keys}
}

// Parse sets row i to raw, checked by the retriever's validation.
func (s SpecSet) Parse(i int, raw string) (Set, error) {
	raw = strings.TrimSpace(raw)
	pm, key, ok := s.row(i)
	var t retriever.Settings
	if !ok {
		v, err := strconv.ParseFloat(raw, 64)
		if err != nil {
			return s, fmt.Errorf("%q is not a number", raw)
		}
		t = s.p.WithTable(key, v)
	} else {
		v, err := pm.Parse(raw)
		switch {
		case err != nil && pm.Choices != nil:
			return s, fmt.Errorf("%q is not one of %s", raw, strings.Join(pm.Choices, ", "))
		case err != nil && pm.Whole:
			return s, fmt.Errorf("%q is not a whole number", raw)
		case err != nil:
			return s, fmt.Errorf("%q is not a number", raw)
		}
		t = s.p.With(pm.Flag, v)
	}
	if err := t.Validate(); err != nil {
		return s, err
	}
	return SpecSet{p: t, keys: s.keys}, nil
}

func (s SpecSet) Equal(o Set) bool {
	x, ok := o.(SpecSet)
	return ok && s.p.Equal(x.p)
}

func (s SpecSet) Settings() retriever.Settings { return s.p }

func (s SpecSet) Run(ctx context.Context, nb graph.Neighbourhood, q retriever.Query) (retriever.Ranking, error) {
	return s.p.Run(ctx, retriever.Env{Neighbourhood: nb}, q)
}
