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

// MinThreshold is the least push threshold ε × W(u) (ε for a dangling
// node) a run accepts: the least normal float64, 2⁻¹⁰²². Below it the
// threshold is subnormal or 0, a residual there can stop shrinking (d × a
// subnormal rounds back up to it, d × 0 is 0 and 0 ≥ 0), and the push
// would never end: an ε below it is refused by Validate, a node whose ε ×
// W(u) falls below it fails the run, naming the node and its heaviest
// relationship (docs/RETRIEVERS.md, "Personalized PageRank", rule 5).
const MinThreshold = 0x1p-1022

// MaxPushes bounds the pushes of one run. Above the least normal
// threshold every push gives up mass and the push ends, but with d near
// 1 or a threshold near MinThreshold only after more pushes than any
// answer is worth (d = 1 − 10⁻¹⁶ loses 10⁻¹⁶ of the residual per push):
// a run that reaches MaxPushes fails, naming it. The default run on the
// 1M-edge benchmark graph makes 3,249 (docs/PERFORMANCE.md).
const MaxPushes = 1 << 24

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
	} else if p.Epsilon < MinThreshold {
		errs = append(errs, fmt.Errorf("epsilon must be at least %v, the least normal float (ppr.MinThreshold, %s): below it the push would never end, got %v",
			MinThreshold, minThresholdAt, p.Epsilon))
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

// Where the limits are declared, for the refusals that name them (a test
// keeps them true).
const (
	minThresholdAt = "retriever/ppr/params.go:31"
	maxPushesAt    = "retriever/ppr/params.go:39"
)

// maxPushes is MaxPushes, lowered by the package's tests to reach it
// quickly.
var maxPushes = MaxPushes
