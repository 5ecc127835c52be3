package activation

import (
	"errors"
	"fmt"
	"math"
	"time"
)

// Params holds the algorithm's thresholds (docs/ALGORITHM.md); how a run
// talks to its graph is in Options. The zero value is not valid; start
// from DefaultParams.
type Params struct {
	MaxDepth      int     `json:"max_depth"`
	MinActivation float64 `json:"min_activation"`
	TagSimFloor   float64 `json:"tag_sim_floor"`
	MaxBranches   int     `json:"max_branches"`
}

// Bounds of the configuration, checked by Validate.
const (
	MinMaxDepth = 1
	MaxMaxDepth = 12
	// MaxMaxRetries caps retries: the last backoff is then 0.05 s × 2^9 = 25.6 s.
	MaxMaxRetries = 10
)

// DefaultParams returns the seed's defaults: MAX_DEPTH 5, MIN_ACTIVATION
// 0.005, TAG_SIM_FLOOR 0.15, MAX_BRANCHES 3.
func DefaultParams() Params {
	return Params{MaxDepth: 5, MinActivation: 0.005, TagSimFloor: 0.15, MaxBranches: 3}
}

// Options are a run's settings that are not the algorithm's: how often a
// failed query is retried and how long to pause in between. (Which database
// a run reads is the graph source's business.)
type Options struct {
	// MaxRetries is how many times a query failing with a transient error
	// is tried again (0 to MaxMaxRetries).
	MaxRetries int
	// Backoff is the pause before retry attempt (0-based); nil means
	// retry.Backoff, 0.05 s × 2^attempt.
	Backoff func(attempt int) time.Duration
	// NearMisses is how many near misses a traced level keeps per frontier
	// node (docs/ALGORITHM.md rule 6); 0 means DefaultNearMisses. Only
	// expanders that are Tracers report them.
	NearMisses int
}

// MaxNearMisses bounds Options.NearMisses.
const MaxNearMisses = 100

// DefaultOptions returns 3 retries with the default backoff.
func DefaultOptions() Options { return Options{MaxRetries: 3} }

// Validate reports an out-of-range retry count.
func (o Options) Validate() error {
	if o.NearMisses < 0 || o.NearMisses > MaxNearMisses {
		return fmt.Errorf("near_misses must be between 0 and %d, got %d", MaxNearMisses, o.NearMisses)
	}
	if o.MaxRetries < 0 || o.MaxRetries > MaxMaxRetries {
		return fmt.Errorf("max_retries must be between 0 and %d, got %d", MaxMaxRetries, o.MaxRetries)
	}
	return nil
}

// Validate reports every field that is out of range, each naming the field and
// its value.
func (c Params) Validate() error {
	var errs []error
	if c.MaxDepth < MinMaxDepth || c.MaxDepth > MaxMaxDepth {
		errs = append(errs, fmt.Errorf("max_depth must be between %d and %d, got %d", MinMaxDepth, MaxMaxDepth, c.MaxDepth))
	}
	if math.IsNaN(c.MinActivation) || math.IsInf(c.MinActivation, 0) || c.MinActivation < 0 {
		errs = append(errs, fmt.Errorf("min_activation must be a finite number >= 0, got %v", c.MinActivation))
	}
	if math.IsNaN(c.TagSimFloor) || c.TagSimFloor < 0 || c.TagSimFloor > 1 {
		errs = append(errs, fmt.Errorf("tag_sim_floor must be between 0 and 1, got %v", c.TagSimFloor))
	}
	if c.MaxBranches < 1 {
		errs = append(errs, fmt.Errorf("max_branches must be at least 1, got %d", c.MaxBranches))
	}
	return errors.Join(errs...)
}
