package signals

import (
	"errors"
	"fmt"
	"math"
	"strconv"
	"strings"
	"time"

	"github.com/memoria-graph/memoria/retriever"
)

// Weights are the weights of the three signals: w_sem, w_time and w_sal,
// each in [0, 1], summing to 1 within WeightsTolerance.
type Weights struct {
	Sem      float64
	Time     float64
	Salience float64
}

// WeightsTolerance is how far from 1 the weights may sum.
const WeightsTolerance = 1e-9

// Cap is one granularity cap: at most N hits with the label.
type Cap struct {
	Label string
	N     int
}

// Params are the rerank's parameters (docs/RETRIEVERS.md, "Reranking by
// signals").
type Params struct {
	Weights Weights
	// Lambda is λ, at least 0: recency = exp(−λ × days).
	Lambda float64
	// Now is the instant days are counted to; it must be set (the
	// rerank reads no clock).
	Now time.Time
	// QueryVector, when not nil, is the query's embedding: sem is its
	// cosine with a node's embedding (retriever.Similarity).
	QueryVector []float64
	// PerLabelTop are the granularity caps, applied after ranking; a
	// label at most once.
	PerLabelTop []Cap
}

// DefaultParams are docs/RETRIEVERS.md's: weights 0.3, 0.3, 0.4, λ = 0.02, no query
// vector, no caps. Now is left zero: the caller sets it.
func DefaultParams() Params {
	return Params{Weights: Weights{Sem: 0.3, Time: 0.3, Salience: 0.4}, Lambda: 0.02}
}

// Validate names every parameter out of its range.
func (p Params) Validate() error {
	var errs []error
	if err := p.Weights.Validate(); err != nil {
		errs = append(errs, err)
	}
	if err := ValidateLambda(p.Lambda); err != nil {
		errs = append(errs, err)
	}
	if p.Now.IsZero() {
		errs = append(errs, errors.New("now must be set (the rerank reads no clock)"))
	}
	if p.QueryVector != nil {
		if err := retriever.CheckQueryVector(p.QueryVector); err != nil {
			errs = append(errs, err)
		}
	}
	if err := validateCaps(p.PerLabelTop); err != nil {
		errs = append(errs, err)
	}
	return errors.Join(errs...)
}

// Validate checks that each weight is a number in [0, 1] and that they
// sum to 1 within WeightsTolerance (added w_sem + w_time + w_sal).
func (w Weights) Validate() error {
	for _, x := range []struct {
		name string
		v    float64
	}{{"w_sem", w.Sem}, {"w_time", w.Time}, {"w_sal", w.Salience}} {
		if math.IsNaN(x.v) || x.v < 0 || x.v > 1 {
			return fmt.Errorf("weight %s must be in [0, 1], got %v", x.name, x.v)
		}
	}
	if sum := w.Sem + w.Time + w.Salience; math.Abs(sum-1) > WeightsTolerance {
		return fmt.Errorf("the weights must sum to 1 (within %g), got %v + %v + %v = %v", WeightsTolerance, w.Sem, w.Time, w.Salience, sum)
	}
	return nil
}

// ValidateLambda checks λ: a finite number of at least 0.
func ValidateLambda(l float64) error {
	if math.IsNaN(l) || math.IsInf(l, 0) || l < 0 {
		return fmt.Errorf("the recency lambda must be a finite number of at least 0, got %v", l)
	}
	return nil
}

func validateCaps(caps []Cap) error {
	seen := map[string]bool{}
	for _, c := range caps {
		switch {
		case c.Label == "":
			return errors.New("a per-label cap has an empty label")
		case c.N < 1:
			return fmt.Errorf("the cap of label %s must be at least 1, got %d", strconv.Quote(c.Label), c.N)
		case seen[c.Label]:
			return fmt.Errorf("label %s is capped twice", strconv.Quote(c.Label))
		}
		seen[c.Label] = true
	}
	return nil
}

// ParseWeights reads "w_sem,w_time,w_sal": three numbers, each in [0, 1],
// summing to 1 within WeightsTolerance.
func ParseWeights(v string) (Weights, error) {
	parts := strings.Split(v, ",")
	if len(parts) != 3 {
		return Weights{}, fmt.Errorf("want three numbers w_sem,w_time,w_sal, got %d in %s", len(parts), strconv.Quote(v))
	}
	var f [3]float64
	for i, s := range parts {
		x, err := strconv.ParseFloat(strings.TrimSpace(s), 64)
		if err != nil {
			return Weights{}, fmt.Errorf("%s is not a number", strconv.Quote(s))
		}
		f[i] = x
	}
	w := Weights{Sem: f[0], Time: f[1], Salience: f[2]}
	return w, w.Validate()
}

// ParseCaps reads "Label=N,...": each label (taken as written, up to the
// last '=') at most once, N an integer of at least 1. A label cannot hold
// a comma.
func ParseCaps(v string) ([]Cap, error) {
	var caps []Cap
	for _, item := range strings.Split(v, ",") {
		i := strings.LastIndexByte(item, '=')
		if i < 0 {
			return nil, fmt.Errorf("%s is not Label=N", strconv.Quote(item))
		}
		n, err := strconv.Atoi(item[i+1:])
		if err != nil {
			return nil, fmt.Errorf("%s: %s is not a whole number", strconv.Quote(item), strconv.Quote(item[i+1:]))
		}
		caps = append(caps, Cap{Label: item[:i], N: n})
	}
	return caps, validateCaps(caps)
}

// Fields are the parameters as a reranked ranking adds them to the
// retriever's, each name starting rerank: rerank ("signals"), the
// weights, λ, now (RFC 3339, UTC), the query vector's length (0 without
// one) and the caps (label: N, in the order given).
func (p Params) Fields() retriever.Fields {
	caps := retriever.Fields{}
	for _, c := range p.PerLabelTop {
		caps = append(caps, retriever.Field{Name: c.Label, Value: c.N})
	}
	return retriever.Fields{
		{Name: "rerank", Value: Name},
		{Name: "rerank_w_sem", Value: p.Weights.Sem},
		{Name: "rerank_w_time", Value: p.Weights.Time},
		{Name: "rerank_w_sal", Value: p.Weights.Salience},
		{Name: "rerank_recency_lambda", Value: p.Lambda},
		{Name: "rerank_now", Value: p.Now.UTC().Format(time.RFC3339Nano)},
		{Name: "rerank_query_vector_dims", Value: len(p.QueryVector)},
		{Name: "rerank_per_label_top", Value: caps},
	}
}
