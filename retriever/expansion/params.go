package expansion

import (
	"errors"
	"fmt"
	"maps"
	"math"
	"slices"
	"strconv"
	"strings"

	"github.com/memoria-graph/memoria/retriever"
)

// Params are the expansion's parameters (docs/RETRIEVERS.md, "Typed
// expansion").
type Params struct {
	// MaxHops is H, the number of hops from the seeds: 1 to 3.
	MaxHops int
	// ExpansionFactor is f, in (0, 1]: every expanded score is damped by it.
	ExpansionFactor float64
	// DepthDecay is δ, in (0, 1]: an expanded score h hops out is
	// multiplied by δ^h.
	DepthDecay float64
	// TopK is K, how many hits are kept: at least 1.
	TopK int
	// TypeWeights weighs each relationship type, in [−1, 1]; a type not in
	// it, or weighed 0, is not followed.
	TypeWeights map[string]float64
}

// Limits of the parameters.
const (
	MinHops = 1
	MaxHops = 3
)

// DefaultTypeWeights is the type-weight table: the specification's eight
// types plus RELATES, the type Activation Energy follows, at 1.0.
func DefaultTypeWeights() map[string]float64 {
	return map[string]float64{
		"FIXES": 1.0, "SUPPORTS": 0.9, "FOLLOWS": 0.8, "RELATED": 0.7, "SIMILAR_TO": 0.6,
		"PART_OF": 0.5, "CAUSES": 0.4, "CONTRADICTS": -0.5, "RELATES": 1.0,
	}
}

// DefaultParams are H = 1, f = 0.6, δ = 0.8, K = 10 and the default table.
func DefaultParams() Params {
	return Params{MaxHops: 1, ExpansionFactor: 0.6, DepthDecay: 0.8, TopK: 10, TypeWeights: DefaultTypeWeights()}
}

// Clone returns p with its own copy of the table.
func (p Params) Clone() Params {
	p.TypeWeights = maps.Clone(p.TypeWeights)
	return p
}

// Validate names every parameter out of its range.
func (p Params) Validate() error {
	var errs []error
	if p.MaxHops < MinHops || p.MaxHops > MaxHops {
		errs = append(errs, fmt.Errorf("max hops must be %d to %d, got %d", MinHops, MaxHops, p.MaxHops))
	}
	if !inUnit(p.ExpansionFactor) {
		errs = append(errs, fmt.Errorf("expansion factor must be in (0, 1], got %v", p.ExpansionFactor))
	}
	if !inUnit(p.DepthDecay) {
		errs = append(errs, fmt.Errorf("depth decay must be in (0, 1], got %v", p.DepthDecay))
	}
	if p.TopK < 1 {
		errs = append(errs, fmt.Errorf("top k must be at least 1, got %d", p.TopK))
	}
	for _, t := range slices.Sorted(maps.Keys(p.TypeWeights)) {
		if err := checkTypeWeight(t, p.TypeWeights[t]); err != nil {
			errs = append(errs, err)
		}
	}
	return errors.Join(errs...)
}

func inUnit(x float64) bool { return !math.IsNaN(x) && x > 0 && x <= 1 }

func checkTypeWeight(t string, w float64) error {
	if strings.TrimSpace(t) == "" {
		return errors.New("a type weight names no type")
	}
	if math.IsNaN(w) || w < -1 || w > 1 {
		return fmt.Errorf("type weight of %s must be in [-1, 1], got %v", strconv.Quote(t), w)
	}
	return nil
}

// ParseTypeWeight reads a `TYPE=X` setting (the --type-weight flag).
func ParseTypeWeight(s string) (string, float64, error) {
	t, v, ok := strings.Cut(s, "=")
	t = strings.TrimSpace(t)
	if !ok || t == "" {
		return "", 0, fmt.Errorf("%s is not TYPE=WEIGHT", strconv.Quote(s))
	}
	w, err := strconv.ParseFloat(strings.TrimSpace(v), 64)
	if err != nil {
		return "", 0, fmt.Errorf("%s: the weight is not a number", strconv.Quote(s))
	}
	if err := checkTypeWeight(t, w); err != nil {
		return "", 0, err
	}
	return t, w, nil
}

// Fields are the parameters as a ranking reports them: the table sorted by
// type.
func (p Params) Fields() retriever.Fields {
	table := make(retriever.Fields, 0, len(p.TypeWeights))
	for _, t := range slices.Sorted(maps.Keys(p.TypeWeights)) {
		table = append(table, retriever.Field{Name: t, Value: p.TypeWeights[t]})
	}
	return retriever.Fields{
		{Name: "max_hops", Value: p.MaxHops},
		{Name: "expansion_factor", Value: p.ExpansionFactor},
		{Name: "depth_decay", Value: p.DepthDecay},
		{Name: "top_k", Value: p.TopK},
		{Name: "type_weights", Value: table},
	}
}
