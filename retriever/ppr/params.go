package ppr

import (
	"errors"
	"fmt"
	"math"

	"github.com/memoria-graph/memoria/retriever"
)

// Params are personalized PageRank's parameters (docs/RETRIEVERS.md,
// "Personalized PageRank").
type Params struct {
	// Damping is d, in (0, 1): the probability that the walk follows a
	// relationship rather than restart at the seeds.
	Damping float64
	// Epsilon is ε, in (0, 1): the push stops when every node's residual
	// is below ε × its total RELATES weight (ε for a dangling node).
	Epsilon float64
	// TopK is K, how many hits are kept: at least 1.
	TopK int
}

// DefaultParams are d = 0.5 (as HippoRAG 2), ε = 1e-6 and K = 10.
func DefaultParams() Params { return Params{Damping: 0.5, Epsilon: 1e-6, TopK: 10} }

// Validate names every parameter out of its range.
func (p Params) Validate() error {
	var errs []error
	if math.IsNaN(p.Damping) || p.Damping <= 0 || p.Damping >= 1 {
		errs = append(errs, fmt.Errorf("damping must be in (0, 1), got %v", p.Damping))
	}
	if math.IsNaN(p.Epsilon) || p.Epsilon <= 0 || p.Epsilon >= 1 {
		errs = append(errs, fmt.Errorf("epsilon must be in (0, 1), got %v", p.Epsilon))
	}
	if p.TopK < 1 {
		errs = append(errs, fmt.Errorf("top k must be at least 1, got %d", p.TopK))
	}
	return errors.Join(errs...)
}

// Fields are the parameters as a ranking reports them.
func (p Params) Fields() retriever.Fields {
	return retriever.Fields{
		{Name: "damping", Value: p.Damping},
		{Name: "epsilon", Value: p.Epsilon},
		{Name: "top_k", Value: p.TopK},
	}
}
