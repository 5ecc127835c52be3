package activation

import (
	"slices"
	"strconv"
	"strings"

	"github.com/memoria-graph/memoria/retriever"
)

// PathKey names a path by its node ids, so the same route in two results
// has the same key whatever its numbers. Each id is quoted (ids are
// untrusted data and may hold any separator), so two different routes never
// share a key.
func PathKey(p Path) string {
	var b strings.Builder
	for i, id := range p.NodeIDs() {
		if i > 0 {
			b.WriteByte(',')
		}
		b.WriteString(strconv.Quote(id))
	}
	return b.String()
}

// Placement is where a node sits in a result's tree: its parent (the node
// before it on its path) and its depth in hops from the seed. Each node is
// reached at most once per seed (docs/ALGORITHM.md, rule 3: a visited node
// is never a candidate again), so a node has one placement per result.
type Placement struct {
	Parent string `json:"parent"`
	Depth  int    `json:"depth"`
}

// Move is a node that both results reached, at a different parent or depth.
type Move struct {
	NodeID string    `json:"node_id"`
	From   Placement `json:"from"`
	To     Placement `json:"to"`
}

// ResultDiff is the difference between two results of the same seed: the
// baseline A and the new result B.
type ResultDiff struct {
	Seed retriever.Seed `json:"seed"`
	// Entered lists B's paths that A does not have (by node ids), in B's
	// order; Left lists A's paths that B does not have, in A's order.
	Entered []Path `json:"entered"`
	Left    []Path `json:"left"`
	// Moved lists the nodes both reached at a different parent or depth,
	// by node id.
	Moved []Move `json:"moved"`
	// NodesA and NodesB count the nodes each result reached (every node on
	// a path but the seed); Jaccard is |A∩B| / |A∪B| over those sets, 1 when
	// both are empty.
	NodesA  int     `json:"nodes_a"`
	NodesB  int     `json:"nodes_b"`
	Jaccard float64 `json:"jaccard"`
	// both counts the nodes both results reached (for CombineDiffs).
	both int
}

// Empty reports whether the two results had the same paths and placements.
func (d ResultDiff) Empty() bool {
	return len(d.Entered) == 0 && len(d.Left) == 0 && len(d.Moved) == 0
}

// Placements maps every node a result reached (every node on a path but
// the seed) to its parent and depth.
func Placements(r Result) map[string]Placement {
	out := make(map[string]Placement)
	for _, p := range r.Paths {
		for i, s := range p.Steps {
			out[s.ToNode.ID] = Placement{Parent: s.FromNode.ID, Depth: i + 1}
		}
	}
	return out
}

// Diff compares result b with the baseline a. The caller pairs results of
// the same seed; Diff takes the seed from b.
//
// Paths are compared by their node ids (PathKey): a path whose numbers
// changed but whose route did not is the same path. A node "moved" when both
// results reached it and its parent or its depth differs.
func Diff(a, b Result) ResultDiff {
	d := ResultDiff{Seed: b.Seed, Entered: []Path{}, Left: []Path{}, Moved: []Move{}}
	inA := make(map[string]bool, len(a.Paths))
	for _, p := range a.Paths {
		inA[PathKey(p)] = true
	}
	inB := make(map[string]bool, len(b.Paths))
	for _, p := range b.Paths {
		k := PathKey(p)
		inB[k] = true
		if !inA[k] {
			d.Entered = append(d.Entered, p)
		}
	}
	for _, p := range a.Paths {
		if !inB[PathKey(p)] {
			d.Left = append(d.Left, p)
		}
	}
	pa, pb := Placements(a), Placements(b)
	d.NodesA, d.NodesB = len(pa), len(pb)
	both := 0
	for id, to := range pb {
		from, ok := pa[id]
		if !ok {
			continue
		}
		both++
		if from != to {
			d.Moved = append(d.Moved, Move{NodeID: id, From: from, To: to})
		}
	}
	slices.SortFunc(d.Moved, func(x, y Move) int { return strings.Compare(x.NodeID, y.NodeID) })
	d.both = both
	d.setJaccard()
	return d
}

func (d *ResultDiff) setJaccard() {
	d.Jaccard = 1
	if union := d.NodesA + d.NodesB - d.both; union > 0 {
		d.Jaccard = float64(d.both) / float64(union)
	}
}

// CombineDiffs adds up the diffs of several seeds into one (the explorer's
// summary line over a run): the paths and moves of all, the node counts
// summed, and the Jaccard index over the seeds' node sets taken apart (a
// node reached from two seeds counts once per seed). The seed is left
// empty. Only diffs made by Diff can be combined.
func CombineDiffs(ds []ResultDiff) ResultDiff {
	c := ResultDiff{Entered: []Path{}, Left: []Path{}, Moved: []Move{}}
	for _, d := range ds {
		c.Entered = append(c.Entered, d.Entered...)
		c.Left = append(c.Left, d.Left...)
		c.Moved = append(c.Moved, d.Moved...)
		c.NodesA += d.NodesA
		c.NodesB += d.NodesB
		c.both += d.both
	}
	c.setJaccard()
	return c
}
