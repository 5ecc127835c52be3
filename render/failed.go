package render

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/memoria-graph/memoria/retriever/activation"
)

// FailedSeed is a seed whose exploration ended in error, and the error.
type FailedSeed struct {
	ID    string `json:"id"`
	Error string `json:"error"`
}

// FailedSeeds returns the results that ended in error, in order: every
// format marks them (docs/EXPORTS.md, "Failed seeds"), so that a reader
// (a person, a script, an agent) can tell a partial answer from a whole one.
func FailedSeeds(results ...activation.Result) []FailedSeed {
	var out []FailedSeed
	for _, r := range results {
		if r.TerminatedReason == activation.TerminatedError {
			out = append(out, FailedSeed{ID: r.Seed.NodeID, Error: r.Error})
		}
	}
	return out
}

// FailedSeedText is one line per failed seed, the same sentence in every
// text format: `Seed N1 FAILED (error: "…"): its paths are missing or
// incomplete.` with the id written by DisplayID and the error Go-quoted,
// so neither can break the line. prefix starts each line ("// " makes
// them Cypher comments).
func FailedSeedText(prefix string, failed []FailedSeed) string {
	var b strings.Builder
	for _, f := range failed {
		fmt.Fprintf(&b, "%sSeed %s FAILED (error: %s): its paths are missing or incomplete.\n", prefix, DisplayID(f.ID), strconv.Quote(f.Error))
	}
	return b.String()
}
