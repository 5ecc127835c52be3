package retriever

import (
	"errors"
	"fmt"
	"math"
	"strings"
)

// Config holds the retriever's thresholds. The zero value is not valid; start
// from DefaultConfig.
type Config struct {
	MaxDepth      int     `json:"max_depth"`
	MinActivation float64 `json:"min_activation"`
	TagSimFloor   float64 `json:"tag_sim_floor"`
	MaxBranches   int     `json:"max_branches"`
	MaxRetries    int     `json:"max_retries"`
	// Database names the Neo4j database each exploration opens its session
	// on; "" means the backend's default. The memory engine has none.
	Database string `json:"database"`
}

// Bounds of the configuration, checked by Validate.
const (
	MinMaxDepth = 1
	MaxMaxDepth = 12
	// MaxMaxRetries caps retries: the last backoff is then 0.05 s × 2^9 = 25.6 s.
	MaxMaxRetries = 10
)

// DefaultConfig returns the seed's defaults: MAX_DEPTH 5, MIN_ACTIVATION
// 0.005, TAG_SIM_FLOOR 0.15, MAX_BRANCHES 3, and 3 retries.
func DefaultConfig() Config {
	return Config{MaxDepth: 5, MinActivation: 0.005, TagSimFloor: 0.15, MaxBranches: 3, MaxRetries: 3}
}

// Validate reports every field that is out of range, each naming the field and
// its value.
func (c Config) Validate() error {
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
	if c.MaxRetries < 0 || c.MaxRetries > MaxMaxRetries {
		errs = append(errs, fmt.Errorf("max_retries must be between 0 and %d, got %d", MaxMaxRetries, c.MaxRetries))
	}
	return errors.Join(errs...)
}

// ValidateSeeds checks that every seed has an id and a finite score in (0, 1].
func ValidateSeeds(seeds []SeedInput) error {
	var errs []error
	if len(seeds) == 0 {
		errs = append(errs, errors.New("at least one seed is required"))
	}
	for i, s := range seeds {
		if strings.TrimSpace(s.NodeID) == "" {
			errs = append(errs, fmt.Errorf("seed %d has an empty node id", i+1))
		}
		if math.IsNaN(s.Score) || math.IsInf(s.Score, 0) || s.Score <= 0 || s.Score > 1 {
			errs = append(errs, fmt.Errorf("seed %q: score must be a finite number in (0, 1], got %v", s.NodeID, s.Score))
		}
	}
	return errors.Join(errs...)
}
