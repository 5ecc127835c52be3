// Package retriever holds what every retriever shares: the query (the seeds
// a vector search found, each with its score R, and the query tags), their
// validation, and the ranked list of hits a retriever returns (Ranking, Hit,
// Hop: docs/RETRIEVERS.md). Each retriever is a package beside the others
// under retriever/ and keeps its own detailed types (Activation Energy's
// paths and steps are in retriever/activation). Nothing here touches a graph
// engine or a terminal (docs/ARCHITECTURE.md).
package retriever

import (
	"errors"
	"fmt"
	"math"
	"strings"
)

// Seed is one seed from the upstream vector search; Score is R(seed).
type Seed struct {
	NodeID string  `json:"node_id"`
	Score  float64 `json:"score"`
}

// ValidateScore checks that a seed score is a finite number in (0, 1]
// (docs/ALGORITHM.md, "Ranges"). It is the one check of a score: the CLI's
// flags, the explorer's score editor and ValidateSeeds all call it.
func ValidateScore(score float64) error {
	if math.IsNaN(score) || math.IsInf(score, 0) || score <= 0 || score > 1 {
		return fmt.Errorf("score must be a finite number in (0, 1], got %v", score)
	}
	return nil
}

// ValidateSeeds checks that there is at least one seed and that every seed
// has an id and a valid score.
func ValidateSeeds(seeds []Seed) error {
	var errs []error
	if len(seeds) == 0 {
		errs = append(errs, errors.New("at least one seed is required"))
	}
	for i, s := range seeds {
		if strings.TrimSpace(s.NodeID) == "" {
			errs = append(errs, fmt.Errorf("seed %d has an empty node id", i+1))
		}
		if err := ValidateScore(s.Score); err != nil {
			errs = append(errs, fmt.Errorf("seed %q: %w", s.NodeID, err))
		}
	}
	return errors.Join(errs...)
}

// NormalizeTags trims each query tag, drops empty ones and removes
// duplicates, keeping the first occurrence's position. Matching stays
// case-sensitive (docs/ALGORITHM.md, rule 2).
func NormalizeTags(tags []string) []string {
	out := make([]string, 0, len(tags))
	seen := make(map[string]struct{}, len(tags))
	for _, t := range tags {
		t = strings.TrimSpace(t)
		if t == "" {
			continue
		}
		if _, dup := seen[t]; dup {
			continue
		}
		seen[t] = struct{}{}
		out = append(out, t)
	}
	return out
}
