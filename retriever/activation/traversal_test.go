package activation

import (
	"fmt"
	"math"
	"slices"
	"strings"
	"testing"

	"github.com/memoria-graph/memoria/graph"
)

func node(id string) graph.Node {
	return graph.Node{ID: id, Labels: []string{"Test"}, Properties: map[string]any{"id": id}}
}

func cand(parent, nbr string, t float64) Candidate {
	return Candidate{ParentID: parent, NeighborNode: node(nbr), Edge: graph.Edge{SourceID: parent, TargetID: nbr, Type: graph.Relates}, TransferEnergy: t}
}

// oneHop returns a frontier node reached from seed S with energy t.
func oneHop(id string, t float64) frontierNode {
	p := Path{}.Extend(StepFromCandidate(node("S"), cand("S", id, t)))
	return frontierNode{NodeID: id, Activation: t, Path: p, Node: node(id)}
}

func fates(up frontierUpdate) []string {
	var out []string
	for _, o := range up.Outcomes {
		s := o.Candidate.ParentID + ">" + o.Candidate.NeighborNode.ID + ":" + string(o.Fate)
		if o.ClaimedBy != "" {
			s += "(" + o.ClaimedBy + ")"
		}
		out = append(out, s)
	}
	return out
}

// TestSelectNextFrontier is docs/EXPORTS.md test A.1 with max_branches 2.
//
// Frontier A (from S, T 0.6), B (from S, T 0.5), C (from S, T 0.4).
// Candidates: A→X 0.5, A→Y 0.4, A→Z 0.3; B→X 0.45, B→W 0.2; C none.
// Claim order (T desc): A→X 0.5 kept; B→X 0.45 claimed by A (X taken);
// A→Y 0.4 kept; A→Z 0.3 branch_limit (A has 2); B→W 0.2 kept (B lost X but
// keeps its next candidate). Next frontier in frontier order then T desc:
// X, Y (from A), W (from B). C kept nothing and its path S→C completes with
// no_candidates. Newly visited X, Y, W.
func TestSelectNextFrontier(t *testing.T) {
	st := newTraversalState(2, node("S"))
	frontier := []frontierNode{oneHop("A", 0.6), oneHop("B", 0.5), oneHop("C", 0.4)}
	up := st.SelectNextFrontier(frontier, groupByParent([]Candidate{
		cand("A", "X", 0.5), cand("A", "Y", 0.4), cand("A", "Z", 0.3), cand("B", "X", 0.45), cand("B", "W", 0.2),
	}), Expansion{})
	wantFates := []string{"A>X:kept", "B>X:claimed(A)", "A>Y:kept", "A>Z:branch_limit", "B>W:kept"}
	if got := fates(up); !slices.Equal(got, wantFates) {
		t.Errorf("fates = %v, want %v", got, wantFates)
	}
	var next []string
	for _, f := range up.Next {
		next = append(next, f.NodeID)
	}
	if !slices.Equal(next, []string{"X", "Y", "W"}) {
		t.Errorf("next frontier = %v, want [X Y W]", next)
	}
	if !slices.Equal(up.NewlyVisited, []string{"X", "Y", "W"}) {
		t.Errorf("newly visited = %v", up.NewlyVisited)
	}
	for _, id := range []string{"S", "X", "Y", "W"} {
		if _, ok := st.Visited()[id]; !ok {
			t.Errorf("%s not visited", id)
		}
	}
	if _, ok := st.Visited()["Z"]; ok {
		t.Error("Z (branch_limit) marked visited")
	}
	if len(up.Completed) != 1 || !slices.Equal(up.Completed[0].NodeIDs(), []string{"S", "C"}) || up.Completed[0].EndReason != EndNoCandidates {
		t.Errorf("completed = %+v, want S→C ending no_candidates", up.Completed)
	}
	x := up.Next[0]
	if !slices.Equal(x.Path.NodeIDs(), []string{"S", "A", "X"}) || x.Activation != 0.5 {
		t.Errorf("X path %v activation %v, want S,A,X and 0.5", x.Path.NodeIDs(), x.Activation)
	}
	if x.Path.MaxTransferEnergy != 0.6 || x.Path.MinTransferEnergy != 0.5 {
		t.Errorf("X path max/min = %v/%v, want 0.6/0.5", x.Path.MaxTransferEnergy, x.Path.MinTransferEnergy)
	}
}

// TestClaimTieBreaks: equal T on a contested neighbour goes to the lower
// parent id (rule 4), and a parent whose only candidate was claimed
// completes with all_claimed.
//
// P1→N 0.3 and P2→N 0.3 tie; P1 < P2 so P1 keeps N and P2, with nothing
// else, ends its path S→P2 as all_claimed.
func TestClaimTieBreaks(t *testing.T) {
	st := newTraversalState(3, node("S"))
	frontier := []frontierNode{oneHop("P2", 0.5), oneHop("P1", 0.5)}
	up := st.SelectNextFrontier(frontier, groupByParent([]Candidate{cand("P2", "N", 0.3), cand("P1", "N", 0.3)}), Expansion{})
	if got := fates(up); !slices.Equal(got, []string{"P1>N:kept", "P2>N:claimed(P1)"}) {
		t.Errorf("fates = %v", got)
	}
	if len(up.Completed) != 1 || up.Completed[0].EndReason != EndAllClaimed || !slices.Equal(up.Completed[0].NodeIDs(), []string{"S", "P2"}) {
		t.Errorf("completed = %+v, want S→P2 all_claimed", up.Completed)
	}
}

// TestSeedFrontierWithNoCandidates: the seed's own frontier node has an
// empty path, so keeping nothing completes no path (docs/EXPORTS.md test A.2).
func TestSeedFrontierWithNoCandidates(t *testing.T) {
	st := newTraversalState(3, node("S"))
	up := st.SelectNextFrontier(st.InitialFrontier(1), nil, Expansion{})
	if len(up.Completed) != 0 || len(up.Next) != 0 {
		t.Fatalf("got completed %v next %v, want none", up.Completed, up.Next)
	}
}

// TestVisitedCandidatesIgnored: a candidate for an already visited node
// (here the seed) is dropped even if a connector returns it.
func TestVisitedCandidatesIgnored(t *testing.T) {
	st := newTraversalState(3, node("S"))
	f := []frontierNode{oneHop("A", 0.5)}
	st.visited["A"] = struct{}{}
	up := st.SelectNextFrontier(f, groupByParent([]Candidate{cand("A", "S", 0.4), cand("A", "B", 0.1)}), Expansion{})
	if got := fates(up); !slices.Equal(got, []string{"A>B:kept"}) {
		t.Errorf("fates = %v, want only A>B kept", got)
	}
}

// TestFinalizeRemaining is docs/EXPORTS.md test A.3: every non-empty frontier path
// completes at max depth; the bare seed does not.
func TestFinalizeRemaining(t *testing.T) {
	st := newTraversalState(3, node("S"))
	f := append(st.InitialFrontier(1), oneHop("A", 0.5), oneHop("B", 0.4))
	got := finalizeRemaining(f)
	if len(got) != 2 || !slices.Equal(got[0].NodeIDs(), []string{"S", "A"}) || !slices.Equal(got[1].NodeIDs(), []string{"S", "B"}) {
		t.Fatalf("finalized %v", got)
	}
	for _, p := range got {
		if p.EndReason != EndMaxDepth {
			t.Errorf("end reason %q, want max_depth", p.EndReason)
		}
	}
}

// TestSortPathsTreeOrder: paths come out as a depth-first walk with
// siblings by T descending, as docs/ALGORITHM.md "Worked example" lists paths A, B, C.
//
// Completion order C (S→N5), B (S→N4→N8), A (S→N3→N1); first-hop T are
// N3 0.3 > N4 0.2 > N5 0.1, so tree order is A, B, C.
func TestSortPathsTreeOrder(t *testing.T) {
	mk := func(ids []string, ts []float64) Path {
		var p Path
		for i := range ts {
			p = p.Extend(StepFromCandidate(node(ids[i]), cand(ids[i], ids[i+1], ts[i])))
		}
		return p
	}
	ps := []Path{
		mk([]string{"S", "N5"}, []float64{0.1}),
		mk([]string{"S", "N4", "N8"}, []float64{0.2, 0.05}),
		mk([]string{"S", "N3", "N1"}, []float64{0.3, 0.1}),
	}
	sortPathsTreeOrder(ps)
	var got []string
	for _, p := range ps {
		got = append(got, p.NodeIDs()[1])
	}
	if !slices.Equal(got, []string{"N3", "N4", "N5"}) {
		t.Fatalf("order %v, want N3 N4 N5", got)
	}
}

// TestParallelEdgeTie: two parallel edges A→X with the same T (w 0.5 with
// tags [a] and w 0.5 with tags [b]: equal energy under no query tags) are
// ordered by their properties' JSON, whatever order the connector gave:
// "tags":["a"],"weight":0.5 < "tags":["b"],"weight":0.5, so the kept
// hop records the [a] edge and the [b] one is claimed by A itself.
func TestParallelEdgeTie(t *testing.T) {
	mk := func(tag string) Candidate {
		c := cand("A", "X", 0.25)
		c.Edge.Properties = map[string]any{"weight": 0.5, "tags": []any{tag}}
		return c
	}
	for _, order := range [][]Candidate{{mk("a"), mk("b")}, {mk("b"), mk("a")}} {
		st := newTraversalState(3, node("S"))
		up := st.SelectNextFrontier([]frontierNode{oneHop("A", 0.5)}, groupByParent(order), Expansion{})
		kept := up.Outcomes[0]
		if kept.Fate != FateKept || kept.Candidate.Edge.Properties["tags"].([]any)[0] != "a" {
			t.Fatalf("kept %+v", kept)
		}
		if up.Outcomes[1].Fate != FateClaimed || up.Outcomes[1].ClaimedBy != "A" {
			t.Fatalf("second %+v", up.Outcomes[1])
		}
	}
}

// TestSortTiedEdges: SortTiedEdges reorders, within each run of
// candidates with equal parent, T and neighbour, by EdgeKey (the
// JSON of the edge's properties, keys sorted), stably, and moves nothing
// across runs. Input: A→B T 0.5 with notes "c", "a", "b"; A→C T 0.5 with
// note "z" (another neighbour: its own run); A→B T 0.4 with "y", "x" (other
// T: its own run); B→B T 0.5 "b" (other parent). Expected: a b c | z | x y
// | b, and two candidates with equal keys keep their order (the second
// "a", told apart by its weight pointer).
func TestSortTiedEdges(t *testing.T) {
	w1, w2 := 1.0, 1.0
	c := func(parent, nb string, te float64, note string, w *float64) Candidate {
		return Candidate{ParentID: parent, NeighborNode: graph.Node{ID: nb}, TransferEnergy: te,
			Edge: graph.Edge{Properties: map[string]any{"note": note, "weight": 0.5}, Weight: w}}
	}
	cands := []Candidate{
		c("A", "B", 0.5, "c", nil), c("A", "B", 0.5, "a", &w1), c("A", "B", 0.5, "b", nil), c("A", "B", 0.5, "a", &w2),
		c("A", "C", 0.5, "z", nil),
		c("A", "B", 0.4, "y", nil), c("A", "B", 0.4, "x", nil),
		c("B", "B", 0.5, "b", nil),
	}
	SortTiedEdges(cands)
	var got []string
	for _, cd := range cands {
		got = append(got, fmt.Sprintf("%s>%s %v %s", cd.ParentID, cd.NeighborNode.ID, cd.TransferEnergy, cd.Edge.Properties["note"]))
	}
	want := []string{"A>B 0.5 a", "A>B 0.5 a", "A>B 0.5 b", "A>B 0.5 c", "A>C 0.5 z", "A>B 0.4 x", "A>B 0.4 y", "B>B 0.5 b"}
	if !slices.Equal(got, want) {
		t.Errorf("got %q\nwant %q", got, want)
	}
	if cands[0].Edge.Weight != &w1 || cands[1].Edge.Weight != &w2 {
		t.Error("equal keys did not keep their order")
	}
}

// TestEdgeKey: graph.CanonicalProps of the properties (keys in order); a
// []string and a []any of the same strings give the same key (engines hold
// lists either way), and a NaN weight still yields a key that tells edges
// apart. (graph's TestCanonicalProps pins the rule itself.)
//
//	{weight: 0.5, tags: [a b]} → {"tags":["a","b"],"weight":0.5}
func TestEdgeKey(t *testing.T) {
	a := graph.Edge{Properties: map[string]any{"weight": 0.5, "tags": []string{"a", "b"}}}
	b := graph.Edge{Properties: map[string]any{"tags": []any{"a", "b"}, "weight": 0.5}}
	if got := EdgeKey(a); got != `{"tags":["a","b"],"weight":0.5}` || EdgeKey(b) != got {
		t.Errorf("EdgeKey = %q and %q", got, EdgeKey(b))
	}
	n1 := graph.Edge{Properties: map[string]any{"weight": math.NaN(), "note": "x"}}
	n2 := graph.Edge{Properties: map[string]any{"weight": math.NaN(), "note": "y"}}
	if EdgeKey(n1) == EdgeKey(n2) || EdgeKey(n1) != `{"note":"x","weight":NaN}` {
		t.Errorf("NaN keys %q and %q", EdgeKey(n1), EdgeKey(n2))
	}
}

// TestGroupByParentKeepsOrder: contiguous parents (A A B) and interleaved
// ones (A B A, the copying path) both group each parent's candidates in
// their input order: A → [X, Y], B → [Z].
func TestGroupByParentKeepsOrder(t *testing.T) {
	for _, in := range [][]Candidate{
		{cand("A", "X", 0.3), cand("A", "Y", 0.2), cand("B", "Z", 0.1)},
		{cand("A", "X", 0.3), cand("B", "Z", 0.1), cand("A", "Y", 0.2)},
	} {
		g := groupByParent(in)
		var got []string
		for _, p := range []string{"A", "B"} {
			for _, c := range g[p] {
				got = append(got, p+"→"+c.NeighborNode.ID)
			}
		}
		if len(g) != 2 || strings.Join(got, " ") != "A→X A→Y B→Z" {
			t.Errorf("groups of %d parents: %v, want A→X A→Y B→Z", len(g), got)
		}
	}
}
