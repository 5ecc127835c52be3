package oninmem

import (
	"context"
	"errors"
	"reflect"
	"testing"

	"github.com/memoria-graph/memoria/graph/inmem"
	"github.com/memoria-graph/memoria/retriever"
	"github.com/memoria-graph/memoria/retriever/activation"
)

// exploreGraph is the graph of TestExplore. Internal ids: 0 S, 1 A, 2 B,
// 3 C, 4 D, 5 E, 6 F, 7 H, 8 J, 9 X (no id). RELATES edges with weights:
//
//	S–A 1   S–B 0.5  S–C 0.5  S–D 0.25
//	A–E 1   A–F 0.5  A–X 1
//	B–E 1   B–B 1 (self-loop)  B–X 1
//	E–H 1   E–J 0.25
//
// Degrees: S, A, B (the self-loop once) and E have 4 (√4 = 2); C, D, F, H
// and J have 1; X has 2. All numbers below are exact in binary.
func exploreGraph(t *testing.T) *inmem.Graph {
	return load(t,
		nd("0", "S"), nd("1", "A"), nd("2", "B"), nd("3", "C"), nd("4", "D"),
		nd("5", "E"), nd("6", "F"), nd("7", "H"), nd("8", "J"), nd("9", ""),
		rl("0", "0", "1", `"weight":1.0`), rl("1", "0", "2", `"weight":0.5`),
		rl("2", "0", "3", `"weight":0.5`), rl("3", "0", "4", `"weight":0.25`),
		rl("4", "1", "5", `"weight":1.0`), rl("5", "1", "6", `"weight":0.5`), rl("6", "1", "9", `"weight":1.0`),
		rl("7", "2", "5", `"weight":1.0`), rl("8", "2", "2", `"weight":1.0`), rl("9", "2", "9", `"weight":1.0`),
		rl("10", "5", "7", `"weight":1.0`), rl("11", "5", "8", `"weight":0.25`),
	)
}

func exploreConfig() activation.Params {
	return activation.Params{MaxDepth: 3, MinActivation: 0.05, TagSimFloor: 0.15, MaxBranches: 3}
}

type fate struct {
	edge      string // parent>neighbour
	t         float64
	fate      activation.Fate
	claimedBy string
}

type pathSummary struct {
	ids    []string
	energy []float64
	end    activation.EndReason
}

func summarizePaths(ps []activation.Path) []pathSummary {
	out := []pathSummary{}
	for _, p := range ps {
		s := pathSummary{ids: p.NodeIDs(), end: p.EndReason}
		for _, st := range p.Steps {
			s.energy = append(s.energy, st.TransferEnergy)
		}
		out = append(out, s)
	}
	return out
}

// TestExplore runs the whole retriever over the engine from seed S
// (R = 1), no query tags (tag_sim = 1), MaxDepth 3, MinActivation 0.05,
// MaxBranches 3.
//
// Level 1, from S (d 4, T = w/2): A 0.5, B 0.25, C 0.25, D 0.125. Claim
// order is T descending then neighbour id: A, B, C kept; D hits the branch
// limit.
//
// Level 2, frontier A (0.5), B (0.25), C (0.25); visited S A B C.
// A (d 4): E 0.5×1/2 = 0.25, F 0.5×0.5/2 = 0.125 (X has no id, S visited).
// B (d 4): E 0.25×1/2 = 0.125 (the self-loop leads to B, visited).
// C (d 1): only S, visited: no candidates.
// Claim order: A→E 0.25, then the tie at 0.125 by parent id: A→F, B→E.
// A keeps E and F; E is claimed by A, so B had candidates but kept none:
// its path [S B] ends all_claimed; [S C] ends all_visited (C's one
// neighbour, S, is visited: the engine traces, docs/ALGORITHM.md rule 6).
//
// Level 3, frontier E (0.25), F (0.125). E (d 4): H 0.25×1/2 = 0.125,
// J 0.25×0.25/2 = 0.03125 < 0.05 (not a candidate). F (d 1): A visited.
// E keeps H; [S A F] ends all_visited. MaxDepth is reached with H on the
// frontier: [S A E H] ends max_depth.
//
// Paths in tree order: A's subtree first (0.5), E before F, then B and C
// (0.25 each) by id.
func TestExplore(t *testing.T) {
	g := exploreGraph(t)
	rt, err := activation.New(New(g), exploreConfig(), activation.DefaultOptions())
	if err != nil {
		t.Fatal(err)
	}
	ch, err := rt.Explore(context.Background(), []retriever.Seed{{NodeID: "S", Score: 1}}, nil)
	if err != nil {
		t.Fatal(err)
	}
	var levels [][]fate
	var completed [][]pathSummary
	var sizes []int
	var res *activation.Result
	for ev := range ch {
		switch ev.Kind {
		case activation.EventLevel:
			var fs []fate
			for _, o := range ev.Level.Outcomes {
				c := o.Candidate
				fs = append(fs, fate{c.ParentID + ">" + c.NeighborNode.ID, c.TransferEnergy, o.Fate, o.ClaimedBy})
			}
			levels = append(levels, fs)
			completed = append(completed, summarizePaths(ev.Level.Completed))
			sizes = append(sizes, ev.Level.FrontierSize)
		case activation.EventResult:
			res = ev.Result
		}
	}
	wantLevels := [][]fate{
		{{"S>A", 0.5, activation.FateKept, ""}, {"S>B", 0.25, activation.FateKept, ""}, {"S>C", 0.25, activation.FateKept, ""}, {"S>D", 0.125, activation.FateBranchLimit, ""}},
		{{"A>E", 0.25, activation.FateKept, ""}, {"A>F", 0.125, activation.FateKept, ""}, {"B>E", 0.125, activation.FateClaimed, "A"}},
		{{"E>H", 0.125, activation.FateKept, ""}},
	}
	if !reflect.DeepEqual(levels, wantLevels) {
		t.Errorf("levels:\n got %v\nwant %v", levels, wantLevels)
	}
	wantCompleted := [][]pathSummary{
		{},
		{{[]string{"S", "B"}, []float64{0.25}, activation.EndAllClaimed}, {[]string{"S", "C"}, []float64{0.25}, activation.EndAllVisited}},
		{{[]string{"S", "A", "F"}, []float64{0.5, 0.125}, activation.EndAllVisited}},
	}
	if !reflect.DeepEqual(completed, wantCompleted) {
		t.Errorf("completed per level:\n got %v\nwant %v", completed, wantCompleted)
	}
	if !reflect.DeepEqual(sizes, []int{3, 2, 1}) {
		t.Errorf("frontier sizes %v", sizes)
	}
	if res == nil {
		t.Fatal("no result")
	}
	wantPaths := []pathSummary{
		{[]string{"S", "A", "E", "H"}, []float64{0.5, 0.25, 0.125}, activation.EndMaxDepth},
		{[]string{"S", "A", "F"}, []float64{0.5, 0.125}, activation.EndAllVisited},
		{[]string{"S", "B"}, []float64{0.25}, activation.EndAllClaimed},
		{[]string{"S", "C"}, []float64{0.25}, activation.EndAllVisited},
	}
	if got := summarizePaths(res.Paths); !reflect.DeepEqual(got, wantPaths) {
		t.Errorf("paths:\n got %v\nwant %v", got, wantPaths)
	}
	if res.TerminatedReason != activation.TerminatedMaxDepth || res.MaxDepthReached != 3 || res.SeedNode.ID != "S" {
		t.Errorf("result %s depth %d", res.TerminatedReason, res.MaxDepthReached)
	}
	p := res.Paths[0]
	if p.MaxTransferEnergy != 0.5 || p.MinTransferEnergy != 0.125 || p.Steps[1].Degree != 4 || p.Steps[1].Activation != 0.5 {
		t.Errorf("path A: %+v", p)
	}
}

// TestExploreAll runs three seeds at once through ExploreAll.
//
// S (1.0): as in TestExplore.
// "nope": not in the graph: seed_not_found, no paths.
// D (0.5): level 1, D (d 1) → S: 0.5×0.25/1 = 0.125, kept. Level 2, S
// (R 0.125, d 4): A 0.125×1/2 = 0.0625 kept; B and C 0.125×0.5/2 = 0.03125
// are below 0.05. Level 3, A (R 0.0625, d 4): E 0.0625×1/2 = 0.03125 and
// F 0.015625 are below 0.05, so [D S A] ends below_threshold, its near miss
// A→E at 0.03125 (the better of the two), and the frontier is empty:
// frontier_exhausted at depth 2.
func TestExploreAll(t *testing.T) {
	g := exploreGraph(t)
	rt, err := activation.New(New(g), exploreConfig(), activation.DefaultOptions())
	if err != nil {
		t.Fatal(err)
	}
	res, err := rt.ExploreAll(context.Background(), []retriever.Seed{{NodeID: "S", Score: 1}, {NodeID: "nope", Score: 0.5}, {NodeID: "D", Score: 0.5}}, []string{" "})
	if err != nil {
		t.Fatal(err)
	}
	if len(res) != 3 {
		t.Fatalf("%d results", len(res))
	}
	if res[0].TerminatedReason != activation.TerminatedMaxDepth || len(res[0].Paths) != 4 {
		t.Errorf("S: %s, %d paths", res[0].TerminatedReason, len(res[0].Paths))
	}
	if res[1].TerminatedReason != activation.TerminatedSeedNotFound || len(res[1].Paths) != 0 || res[1].SeedNode != nil {
		t.Errorf("nope: %+v", res[1])
	}
	want := []pathSummary{{[]string{"D", "S", "A"}, []float64{0.125, 0.0625}, activation.EndBelowThreshold}}
	if got := summarizePaths(res[2].Paths); !reflect.DeepEqual(got, want) || res[2].TerminatedReason != activation.TerminatedFrontierExhausted || res[2].MaxDepthReached != 2 {
		t.Errorf("D: %s depth %d paths %v", res[2].TerminatedReason, res[2].MaxDepthReached, got)
	}
	if nm := res[2].Paths[0].NearMiss; nm == nil || nm.FromNode.ID != "A" || nm.ToNode.ID != "E" || nm.TransferEnergy != 0.03125 {
		t.Errorf("D: near miss %+v, want A→E at 0.03125", nm)
	}
}

// TestExploreCancelled: with a cancelled context the engine refuses to
// open, so ExploreAll returns context.Canceled, and any result it did
// deliver says cancelled and has no paths.
func TestExploreCancelled(t *testing.T) {
	rt, err := activation.New(New(exploreGraph(t)), exploreConfig(), activation.DefaultOptions())
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	for range 20 {
		res, err := rt.ExploreAll(ctx, []retriever.Seed{{NodeID: "S", Score: 1}}, nil)
		r := res[0]
		if !errors.Is(err, context.Canceled) || !(r.TerminatedReason == "" || r.TerminatedReason == activation.TerminatedCancelled) || len(r.Paths) != 0 {
			t.Fatalf("got %v, %+v", err, res)
		}
	}
}
