package activation

import (
	"math"
	"testing"

	"github.com/memoria-graph/memoria/graph"
	"github.com/memoria-graph/memoria/retriever"
)

// pathOf builds a path through ids, every hop with T = 0.1.
func pathOf(ids ...string) Path {
	var p Path
	for i := 1; i < len(ids); i++ {
		p = p.Extend(Step{FromNode: graph.Node{ID: ids[i-1]}, ToNode: graph.Node{ID: ids[i]}, TransferEnergy: 0.1})
	}
	return p
}

func resultOf(paths ...Path) Result {
	return Result{Seed: retriever.Seed{NodeID: "S", Score: 1}, Paths: paths}
}

// TestDiff compares two hand-built results of seed S.
//
//	A: S→X→Y, S→Z, S→W          reached {X, Y, Z, W}       (4 nodes)
//	B: S→X, S→Z→Y, S→V          reached {X, Z, Y, V}       (4 nodes)
//
// Paths are completed root-to-leaf paths, compared by node ids: entered
// S→X, S→Z→Y, S→V (in B's order); left S→X→Y, S→Z (it grew into S→Z→Y, so
// the path that ended at Z is gone) and S→W (in A's order). Y moved: parent X depth 2 in A, parent Z depth 2
// in B. X and Z kept their placements. Jaccard: A∩B = {X, Y, Z} (3), A∪B =
// {X, Y, Z, W, V} (5): 3/5 = 0.6.
func TestDiff(t *testing.T) {
	a := resultOf(pathOf("S", "X", "Y"), pathOf("S", "Z"), pathOf("S", "W"))
	b := resultOf(pathOf("S", "X"), pathOf("S", "Z", "Y"), pathOf("S", "V"))
	d := Diff(a, b)
	keys := func(ps []Path) []string {
		var out []string
		for _, p := range ps {
			out = append(out, PathKey(p))
		}
		return out
	}
	wantEntered := []string{`"S","X"`, `"S","Z","Y"`, `"S","V"`}
	wantLeft := []string{`"S","X","Y"`, `"S","Z"`, `"S","W"`}
	if got := keys(d.Entered); !equalStrings(got, wantEntered) {
		t.Errorf("entered = %q, want %q", got, wantEntered)
	}
	if got := keys(d.Left); !equalStrings(got, wantLeft) {
		t.Errorf("left = %q, want %q", got, wantLeft)
	}
	wantMove := Move{NodeID: "Y", From: Placement{Parent: "X", Depth: 2}, To: Placement{Parent: "Z", Depth: 2}}
	if len(d.Moved) != 1 || d.Moved[0] != wantMove {
		t.Errorf("moved = %+v, want [%+v]", d.Moved, wantMove)
	}
	if d.NodesA != 4 || d.NodesB != 4 || math.Abs(d.Jaccard-0.6) > 1e-15 {
		t.Errorf("nodes %d → %d, Jaccard %v; want 4 → 4, 0.6", d.NodesA, d.NodesB, d.Jaccard)
	}
	if d.Empty() {
		t.Error("Empty() = true for results that differ")
	}
}

// TestDiffSame: a result compared with itself has no change and Jaccard 1;
// two results without paths (nothing reached) have Jaccard 1 by definition
// (0/0 taken as "the same set").
func TestDiffSame(t *testing.T) {
	a := resultOf(pathOf("S", "X", "Y"), pathOf("S", "Z"))
	if d := Diff(a, a); !d.Empty() || d.Jaccard != 1 || d.NodesA != 3 || d.NodesB != 3 {
		t.Errorf("Diff(a, a) = %+v, want empty, Jaccard 1, 3 → 3 nodes", d)
	}
	if d := Diff(resultOf(), resultOf()); !d.Empty() || d.Jaccard != 1 || d.NodesA != 0 {
		t.Errorf("Diff of two empty results = %+v, want empty with Jaccard 1", d)
	}
	// A depth change alone is a move: S→X→Y against S→Y... Y at depth 2
	// under X, then depth 1 under S.
	d := Diff(resultOf(pathOf("S", "X", "Y")), resultOf(pathOf("S", "X"), pathOf("S", "Y")))
	if len(d.Moved) != 1 || d.Moved[0].From.Depth != 2 || d.Moved[0].To.Depth != 1 || d.Moved[0].To.Parent != "S" {
		t.Errorf("moved = %+v, want Y from X@2 to S@1", d.Moved)
	}
}

// TestPathKeyQuotes: ids holding the separator cannot make two different
// routes collide: ["a,b"] + ["c"] is not ["a"] + ["b,c"].
func TestPathKeyQuotes(t *testing.T) {
	if PathKey(pathOf("a,b", "c")) == PathKey(pathOf("a", "b,c")) {
		t.Error("PathKey collides on ids that hold a comma")
	}
}

func equalStrings(a, b []string) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

// TestCombineDiffs adds up two seeds' diffs. Seed S as in TestDiff (4 → 4
// nodes, 3 in both, 3 entered, 3 left, 1 moved); a second seed whose run did
// not change (S→X→Y both times: 2 → 2 nodes, 2 in both, nothing entered or
// left). Combined: 3 entered, 3 left, 1 moved, nodes 6 → 6; the Jaccard
// index is over the seeds' node sets taken apart: in both 3 + 2 = 5, union
// NodesA + NodesB − both = 6 + 6 − 5 = 7, so 5/7.
func TestCombineDiffs(t *testing.T) {
	a := resultOf(pathOf("S", "X", "Y"), pathOf("S", "Z"), pathOf("S", "W"))
	b := resultOf(pathOf("S", "X"), pathOf("S", "Z", "Y"), pathOf("S", "V"))
	same := resultOf(pathOf("S", "X", "Y"))
	c := CombineDiffs([]ResultDiff{Diff(a, b), Diff(same, same)})
	if len(c.Entered) != 3 || len(c.Left) != 3 || len(c.Moved) != 1 || c.NodesA != 6 || c.NodesB != 6 {
		t.Fatalf("combined: +%d −%d ~%d, nodes %d → %d; want +3 −3 ~1, 6 → 6",
			len(c.Entered), len(c.Left), len(c.Moved), c.NodesA, c.NodesB)
	}
	if math.Abs(c.Jaccard-5.0/7) > 1e-15 {
		t.Fatalf("Jaccard = %v, want 5/7", c.Jaccard)
	}
	if e := CombineDiffs(nil); e.Jaccard != 1 || !e.Empty() {
		t.Fatalf("no diffs: %+v", e)
	}
}
