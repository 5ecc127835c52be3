package spreading

import (
	"errors"
	"fmt"
	"math"

	"github.com/memoria-graph/memoria/retriever"
)

// Initial says what each seed found starts with.
type Initial string

const (
	// InitialOne: every seed starts at 1.
	InitialOne Initial = "one"
	// InitialScore: every seed starts at its R.
	InitialScore Initial = "score"
)

// Params are spreading activation's parameters (docs/RETRIEVERS.md,
// "Spreading activation").
type Params struct {
	// Pulses is P, how many times activation spreads: 1 to 6.
	Pulses int
	// Decay is D, in (0, 1]: each relationship passes Δ × w × D.
	Decay float64
	// Threshold is θ, in [0, 1): a node fires at pulse p when its
	// Δₚ₋₁ is at least θ, and is a candidate when its activation is.
	Threshold float64
	// Alpha is α, in [0, 1]: the weight of semantic similarity in the
	// final score, 1 − α that of normalised activation.
	Alpha float64
	// EntityPenaltyAbove is E, at least 1: a node counting more than E
	// entities has its score multiplied by E / its count.
	EntityPenaltyAbove float64
	// TopK is K, how many hits are kept: at least 1.
	TopK int
	// Initial is what a seed starts with: one or score.
	Initial Initial
	// QueryVector, when not nil, is the query's embedding: semantic
	// similarity is its cosine with a node's embedding property.
	QueryVector []float64
}

// Limits of the parameters.
const (
	MinPulses = 1
	MaxPulses = 6
)

// DefaultParams are P = 2, D = 0.7, θ = 0.05, α = 0.7, E = 20, K = 10,
// seeds starting at 1, no query vector.
func DefaultParams() Params {
	return Params{Pulses: 2, Decay: 0.7, Threshold: 0.05, Alpha: 0.7, EntityPenaltyAbove: 20, TopK: 10, Initial: InitialOne}
}

// Validate names every parameter out of its range.
func (p Params) Validate() error {
	var errs []error
	if p.Pulses < MinPulses || p.Pulses > MaxPulses {
		errs = append(errs, fmt.Errorf("pulses must be %d to %d, got %d", MinPulses, MaxPulses, p.Pulses))
	}
	if math.IsNaN(p.Decay) || p.Decay <= 0 || p.Decay > 1 {
		errs = append(errs, fmt.Errorf("decay must be in (0, 1], got %v", p.Decay))
	}
	if math.IsNaN(p.Threshold) || p.Threshold < 0 || p.Threshold >= 1 {
		errs = append(errs, fmt.Errorf("threshold must be in [0, 1), got %v", p.Threshold))
	}
	if math.IsNaN(p.Alpha) || p.Alpha < 0 || p.Alpha > 1 {
		errs = append(errs, fmt.Errorf("alpha must be in [0, 1], got %v", p.Alpha))
	}
	if math.IsNaN(p.EntityPenaltyAbove) || math.IsInf(p.EntityPenaltyAbove, 0) || p.EntityPenaltyAbove < 1 {
		errs = append(errs, fmt.Errorf("entity penalty above must be a finite number of at least 1, got %v", p.EntityPenaltyAbove))
	}
	if p.TopK < 1 {
		errs = append(errs, fmt.Errorf("top k must be at least 1, got %d", p.TopK))
	}
	if p.Initial != InitialOne && p.Initial != InitialScore {
		errs = append(errs, fmt.Errorf("initial must be one or score, got %q", string(p.Initial)))
	}
	if p.QueryVector != nil {
		if err := retriever.CheckQueryVector(p.QueryVector); err != nil {
			errs = append(errs, err)
		}
	}
	return errors.Join(errs...)
}

// ParseQueryVector reads a query vector (retriever.ParseQueryVector).
func ParseQueryVector(data []byte) ([]float64, error) { return retriever.ParseQueryVector(data) }

// Fields are the parameters as a ranking reports them; query_vector_dims
// is the query vector's length, 0 without one.
func (p Params) Fields() retriever.Fields {
	return retriever.Fields{
		{Name: "pulses", Value: p.Pulses},
		{Name: "decay", Value: p.Decay},
		{Name: "threshold", Value: p.Threshold},
		{Name: "alpha", Value: p.Alpha},
		{Name: "entity_penalty_above", Value: p.EntityPenaltyAbove},
		{Name: "top_k", Value: p.TopK},
		{Name: "initial", Value: string(p.Initial)},
		{Name: "query_vector_dims", Value: len(p.QueryVector)},
	}
}
