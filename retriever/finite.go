package retriever

import (
	"fmt"
	"math"
	"reflect"
	"strconv"
)

// CheckFinite says which number of the ranking is not finite, if one is:
// a seed's score, a hit's score, one of its terms, a weight or a factor of
// its route or its feeders, a number anywhere in its detail, or in the
// ranking's parameters or statistics. Every retriever's arithmetic is
// meant to stay finite (Activation Energy and spreading activation refuse
// what would overflow, naming where; the typed expansion does not yet);
// this is the guard of what writes or measures a ranking (the renderers,
// eval, fusion), which refuse such a ranking with this error rather than
// print NaN or +Inf, which JSON cannot hold and no order ranks
// (docs/RETRIEVERS.md, "The query and the ranking").
func (r Ranking) CheckFinite() error {
	if err := checkFinite(r); err != nil {
		return fmt.Errorf("%s's ranking: %w", r.Retriever, err)
	}
	return nil
}

func checkFinite(r Ranking) error {
	for _, s := range r.Seeds {
		if !finite(s.Score) {
			return fmt.Errorf("seed %s: score %v is not a finite number", strconv.Quote(s.NodeID), s.Score)
		}
	}
	for _, h := range r.Hits {
		hit := fmt.Sprintf("hit %s (rank %d)", strconv.Quote(h.NodeID), h.Rank)
		if !finite(h.Score) {
			return fmt.Errorf("%s: score %v is not a finite number", hit, h.Score)
		}
		for _, t := range h.Terms {
			if !finite(t.Value) {
				return fmt.Errorf("%s: term %s is %v, not a finite number", hit, strconv.Quote(t.Name), t.Value)
			}
		}
		for i, hops := range [][]Hop{h.Route, h.Feeders} {
			what := []string{"route", "feeder"}[i]
			for _, x := range hops {
				if !finite(x.Weight) || !finite(x.Factor) {
					return fmt.Errorf("%s: %s hop %s → %s (%s): weight %v, factor %v: not both finite numbers", hit, what,
						strconv.Quote(x.From), strconv.Quote(x.To), strconv.Quote(x.Type), x.Weight, x.Factor)
				}
			}
		}
		if err := fieldsFinite(h.Detail); err != nil {
			return fmt.Errorf("%s: detail %w", hit, err)
		}
	}
	if err := fieldsFinite(r.Params); err != nil {
		return fmt.Errorf("parameter %w", err)
	}
	if err := fieldsFinite(r.Stats); err != nil {
		return fmt.Errorf("statistic %w", err)
	}
	return nil
}

// fieldsFinite names the first field of f holding a number that is not
// finite, at any depth (a list, a record, nested fields).
func fieldsFinite(f Fields) error {
	for _, x := range f {
		if v, ok := firstNonFinite(reflect.ValueOf(x.Value)); ok {
			return fmt.Errorf("%s holds %v, not a finite number", strconv.Quote(x.Name), v)
		}
	}
	return nil
}

// firstNonFinite finds a float in v, at any depth, that is not finite.
func firstNonFinite(v reflect.Value) (float64, bool) {
	switch v.Kind() {
	case reflect.Float32, reflect.Float64:
		if f := v.Float(); !finite(f) {
			return f, true
		}
	case reflect.Interface, reflect.Pointer:
		if !v.IsNil() {
			return firstNonFinite(v.Elem())
		}
	case reflect.Slice, reflect.Array:
		for i := range v.Len() {
			if f, ok := firstNonFinite(v.Index(i)); ok {
				return f, true
			}
		}
	case reflect.Struct:
		for i := range v.NumField() {
			if f, ok := firstNonFinite(v.Field(i)); ok {
				return f, true
			}
		}
	case reflect.Map:
		for it := v.MapRange(); it.Next(); {
			if f, ok := firstNonFinite(it.Value()); ok {
				return f, true
			}
		}
	}
	return 0, false
}

// finite says whether x is neither infinite nor NaN.
func finite(x float64) bool { return !math.IsNaN(x) && !math.IsInf(x, 0) }
