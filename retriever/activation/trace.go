package activation

import (
	"cmp"
	"context"
	"strings"

	"github.com/memoria-graph/memoria/retriever"
)

// DefaultNearMisses is how many near misses a traced level keeps per
// frontier node when Options.NearMisses is 0.
const DefaultNearMisses = 3

// Tracer is an Expander that can also account for every neighbour of a
// frontier node (docs/ALGORITHM.md rule 6, "Every candidate accounted
// for"): besides the candidates ExpandFrontier returns (the algorithm sees
// only those), its near misses and how many neighbours were below the
// threshold or already visited. The memory engine and the Neo4j snapshot
// (which reads each frontier node's whole neighbourhood in the level's one
// round trip) are Tracers; without one, path ends are only as exact as
// EndNoCandidates.
type Tracer interface {
	Expander
	// ExpandTrace returns what ExpandFrontier returns, as
	// Expansion.Candidates, with the rest of the level accounted for.
	ExpandTrace(ctx context.Context, req ExpandRequest, nearMisses int) (Expansion, error)
}

// Expansion is a traced level.
type Expansion struct {
	// Candidates is exactly ExpandFrontier's answer.
	Candidates []Candidate
	// NearMisses are, per frontier node, its best unvisited neighbours whose
	// best edge stays at or below MIN_ACTIVATION (at most the requested
	// number), each by that best edge, ordered as PickNearMisses orders them.
	NearMisses []Candidate
	// Tallies counts, per frontier node id, what its neighbours were.
	Tallies map[string]Tally
}

// Tally accounts for one frontier node's RELATES neighbours that have an id.
type Tally struct {
	// Degree is the node's RELATES degree (rule 1's d).
	Degree int64 `json:"degree"`
	// Below counts the distinct unvisited neighbours whose best edge is at
	// or below MIN_ACTIVATION (the near misses shown among them).
	Below int `json:"below_threshold"`
	// Visited counts the distinct neighbours skipped because they were
	// already visited (the node itself, over a self-loop, included).
	Visited int `json:"visited"`
}

// PickNearMisses turns one frontier node's below-threshold rows into its
// near misses: one row per neighbour (its best edge: highest T, ties by
// EdgeKey), neighbours that also have an above-threshold edge left out
// (they are candidates), ordered by T descending then neighbour id; it
// returns the first k and how many distinct neighbours there were. Engines
// share it so that their traces agree.
func PickNearMisses(below []Candidate, above map[string]bool, k int) ([]Candidate, int) {
	picked, n := PickNearMissesOf(len(below), func(i int) string { return below[i].NeighborNode.ID },
		func(i int) float64 { return below[i].TransferEnergy }, func(i int) string { return EdgeKey(below[i].Edge) }, above, k)
	out := make([]Candidate, len(picked))
	for i, at := range picked {
		out[i] = below[at]
	}
	return out, n
}

// PickNearMissesOf is PickNearMisses over n rows an engine holds in its
// own form, read through neighbour (the neighbour's id), t (the transfer
// energy) and key (the edge's EdgeKey, asked for only between two rows of
// one neighbour with the same T, which is rare: building it is the
// expensive part): it returns the indexes of the rows picked, in order, so
// that the engine builds only those k as Candidates, and the number of
// distinct neighbours.
func PickNearMissesOf(n int, neighbour func(int) string, t func(int) float64, key func(int) string, above map[string]bool, k int) ([]int, int) {
	type best struct {
		at  int
		key string // "" until a tie needs it
	}
	var bests []best
	slot := make(map[string]int, n) // a neighbour's place in bests
	for i := range n {
		id := neighbour(i)
		if above[id] {
			continue
		}
		j, ok := slot[id]
		if !ok {
			slot[id] = len(bests)
			bests = append(bests, best{at: i})
			continue
		}
		b := &bests[j]
		ti, tb := t(i), t(b.at)
		if ti < tb {
			continue
		}
		if ti == tb {
			if b.key == "" {
				b.key = key(b.at)
			}
			ki := key(i)
			if ki >= b.key {
				continue
			}
			b.at, b.key = i, ki
			continue
		}
		b.at, b.key = i, ""
	}
	// The first k by T descending, then neighbour id (the neighbours are
	// distinct, so the order is total), without sorting every neighbour
	// of a hub to keep the first 3.
	out := make([]int, len(bests))
	for i, b := range bests {
		out[i] = b.at
	}
	out = retriever.Best(out, k, func(a, b int) int {
		if c := cmp.Compare(t(b), t(a)); c != 0 {
			return c
		}
		return strings.Compare(neighbour(a), neighbour(b))
	})
	return out, len(bests)
}
