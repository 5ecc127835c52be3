package oninmem

import (
	"context"
	"errors"
	"fmt"
	"reflect"
	"strings"
	"sync"
	"testing"

	"github.com/memoria-graph/memoria/graph"
	"github.com/memoria-graph/memoria/graph/apoc"
	"github.com/memoria-graph/memoria/graph/inmem"
	"github.com/memoria-graph/memoria/retriever/activation"
)

// nd is a node line: internal id, then application id ("" for none).
func nd(internal, id string) string {
	if id == "" {
		return fmt.Sprintf(`{"type":"node","id":"%s","labels":["Orphan"]}`, internal)
	}
	return fmt.Sprintf(`{"type":"node","id":"%s","labels":["Memory"],"properties":{"id":"%s","text":"text of %s"}}`, internal, id, id)
}

// rl is a RELATES line; props is a JSON object body such as `"weight":0.5`.
func rl(internal, start, end, props string) string { return rt(internal, "RELATES", start, end, props) }

// rt is a relationship line of any type.
func rt(internal, typ, start, end, props string) string {
	return fmt.Sprintf(`{"type":"relationship","id":"%s","label":"%s","properties":{%s},"start":{"id":"%s"},"end":{"id":"%s"}}`,
		internal, typ, props, start, end)
}

// load builds the graph of the lines through inmem.New, from the graph
// apoc reads by GraphRules: some tests need a node without id, which a
// file may not hold (docs/EXPORTS.md) but a graph read from a database may.
// (TestAgainstReference covers inmem.Load.)
func load(t testing.TB, ls ...string) *inmem.Graph {
	t.Helper()
	ag, _, err := apoc.ParseReport(strings.NewReader(strings.Join(ls, "\n")), apoc.GraphRules)
	if err != nil {
		t.Fatal(err)
	}
	g, err := inmem.New(ag, "test")
	if err != nil {
		t.Fatal(err)
	}
	return g
}

func visited(ids ...string) map[string]struct{} {
	m := make(map[string]struct{}, len(ids))
	for _, id := range ids {
		m[id] = struct{}{}
	}
	return m
}

func expand(t *testing.T, g *inmem.Graph, req activation.ExpandRequest) []activation.Candidate {
	t.Helper()
	got, err := New(g).ExpandFrontier(context.Background(), req)
	if err != nil {
		t.Fatal(err)
	}
	return got
}

func fptr(f float64) *float64 { return &f }

// summary is a candidate reduced to what most tests check.
type summary struct {
	parent, nbr string
	t           float64
	deg         int64
}

func summarize(cs []activation.Candidate) []summary {
	out := make([]summary, len(cs))
	for i, c := range cs {
		out[i] = summary{c.ParentID, c.NeighborNode.ID, c.TransferEnergy, c.Degree}
	}
	return out
}

// TestDegree: node A (internal 0) has a self-loop, A→B, the parallel B→A,
// A→X where X has no id, and A→C of type KNOWS. d(A) counts the self-loop
// once, both parallel edges and the edge to X, but not KNOWS: d = 4, so
// √d = 2 exactly. From A (R = 1, visited {A}, no query tags so tag_sim = 1,
// MinActivation 0):
//
//	A→B (w 0.5):  1 × 0.5  / 2 × 1 = 0.25
//	B→A (w 0.25): 1 × 0.25 / 2 × 1 = 0.125
//
// The self-loop leads to A, which is visited; X has no id; C is reached
// only by KNOWS. Every candidate is filled in full, the edge seen from A.
func TestDegree(t *testing.T) {
	g := load(t,
		nd("0", "A"), nd("1", "B"), nd("2", "C"), nd("3", ""),
		rl("10", "0", "0", `"weight":1.0`),
		rl("11", "0", "1", `"weight":0.5,"note":"ab"`),
		rl("12", "1", "0", `"weight":0.25,"tags":["t"]`),
		rl("13", "0", "3", `"weight":1.0`),
		rt("14", "KNOWS", "0", "2", `"weight":1.0`),
	)
	got := expand(t, g, activation.ExpandRequest{
		Frontier: []activation.FrontierInput{{NodeID: "A", Activation: 1}},
		Visited:  visited("A"),
	})
	a := func(id string) graph.Node {
		n, ok, err := g.Node(context.Background(), id)
		if !ok || err != nil {
			t.Fatalf("node %s: %v %v", id, ok, err)
		}
		return n
	}
	want := []activation.Candidate{
		{
			ParentID: "A", NeighborNode: a("B"),
			Edge: graph.Edge{SourceID: "A", TargetID: "B", Type: "RELATES",
				Properties: map[string]any{"weight": 0.5, "note": "ab"}, Weight: fptr(0.5)},
			Activation: 1, Degree: 4, TagSim: 1, TransferEnergy: 0.25,
		},
		{
			ParentID: "A", NeighborNode: a("B"),
			Edge: graph.Edge{SourceID: "A", TargetID: "B", Type: "RELATES",
				Properties: map[string]any{"weight": 0.25, "tags": []any{"t"}}, Weight: fptr(0.25), Tags: []string{"t"}},
			Activation: 1, Degree: 4, TagSim: 1, TransferEnergy: 0.125,
		},
	}
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("got  %#v\nwant %#v", got, want)
	}
	// d(B) = 2 (both parallel edges), d(X) = 1, d(C) = 0.
	for id, d := range map[string]int64{"A": 4, "B": 2, "C": 0} {
		u, _ := g.Lookup(id)
		if g.Degree(u) != d {
			t.Errorf("d(%s) = %d, want %d", id, g.Degree(u), d)
		}
	}
	if g.Degree(3) != 1 {
		t.Errorf("d(X) = %d, want 1", g.Degree(3))
	}
	if s := g.Stats(); s != (inmem.Stats{Nodes: 4, NodesWithoutID: 1, Relationships: 5, Relates: 4, Tags: 1}) {
		t.Errorf("stats %+v", s)
	}
}

// TestMissingWeight: an edge without weight uses 0.01. R = 1, d = 1, no
// query tags: T = 1 × 0.01 / 1 × 1 = 0.01, and Edge.Weight is nil.
func TestMissingWeight(t *testing.T) {
	g := load(t, nd("0", "A"), nd("1", "B"), rl("5", "0", "1", `"tags":["x"]`))
	got := expand(t, g, activation.ExpandRequest{
		Frontier: []activation.FrontierInput{{NodeID: "A", Activation: 1}}, Visited: visited("A"),
	})
	if len(got) != 1 || got[0].TransferEnergy != 0.01 || got[0].Edge.Weight != nil || activation.EffectiveWeight(got[0].Edge) != 0.01 {
		t.Fatalf("got %+v", got)
	}
}

// TestTagSim: query tags {a, c}, floor 0.25, R = 1, w = 1, d(A) = 4 so
// T = tag_sim / 2.
//
//	no tags property        → floor                               = 0.25  → T 0.125
//	tags []                 → floor                               = 0.25  → T 0.125
//	tags [a, a, b]          → distinct {a,b}: ∩ 1, ∪ 2+2−1 = 3
//	                          0.25 + 0.75 × 1 / 3 = 0.25 + 0.25   = 0.5   → T 0.25
//	tags [A, c]             → case-sensitive: ∩ {c} 1, ∪ 3        = 0.5   → T 0.25
//
// (The raw Cypher would count the duplicate "a" twice: 0.25 + 0.75 × 2/3
// = 0.75; rule 2 uses distinct tags.) The duplicate is kept in Edge.Tags.
// With no query tags every tag_sim is 1.
func TestTagSim(t *testing.T) {
	g := load(t, nd("0", "A"), nd("1", "B"), nd("2", "C"), nd("3", "D"), nd("4", "E"),
		rl("10", "0", "1", `"weight":1.0`),
		rl("11", "0", "2", `"weight":1.0,"tags":[]`),
		rl("12", "0", "3", `"weight":1.0,"tags":["a","a","b"]`),
		rl("13", "4", "0", `"weight":1.0,"tags":["A","c"]`),
	)
	req := activation.ExpandRequest{
		Frontier:    []activation.FrontierInput{{NodeID: "A", Activation: 1}},
		Visited:     visited("A"),
		QueryTags:   []string{"a", "c"},
		TagSimFloor: 0.25,
	}
	got := expand(t, g, req)
	sims := map[string]float64{}
	tags := map[string][]string{}
	for _, c := range got {
		if c.TransferEnergy != c.TagSim/2 {
			t.Errorf("%s: T %v, tag_sim %v", c.NeighborNode.ID, c.TransferEnergy, c.TagSim)
		}
		if ref := activation.TagSim(c.Edge.Tags, req.QueryTags, req.TagSimFloor); ref != c.TagSim {
			t.Errorf("%s: tag_sim %v, activation.TagSim %v", c.NeighborNode.ID, c.TagSim, ref)
		}
		sims[c.NeighborNode.ID] = c.TagSim
		tags[c.NeighborNode.ID] = c.Edge.Tags
	}
	if want := map[string]float64{"B": 0.25, "C": 0.25, "D": 0.5, "E": 0.5}; !reflect.DeepEqual(sims, want) {
		t.Errorf("tag_sim %v, want %v", sims, want)
	}
	if want := map[string][]string{"B": nil, "C": {}, "D": {"a", "a", "b"}, "E": {"A", "c"}}; !reflect.DeepEqual(tags, want) {
		t.Errorf("tags %#v, want %#v", tags, want)
	}
	req.QueryTags = nil
	for _, c := range expand(t, g, req) {
		if c.TagSim != 1 {
			t.Errorf("%s: tag_sim %v without query tags", c.NeighborNode.ID, c.TagSim)
		}
	}
}

// TestStrictThreshold: R = 1, w = 0.5, d = 1, no query tags: T = 0.5
// exactly (all three numbers are powers of two). With MinActivation 0.5
// the edge is excluded (T > 0.5 is false); with the next float below 0.5 it
// is kept. Then R = 0.5, w = 0.5, d = 4: T = 0.25 / 2 = 0.125 exactly, so
// MinActivation 0.125 excludes it.
func TestStrictThreshold(t *testing.T) {
	g := load(t, nd("0", "A"), nd("1", "B"), rl("1", "0", "1", `"weight":0.5`),
		nd("2", "C"), nd("3", "D"), nd("4", "E"), nd("5", "F"), nd("6", "G"),
		rl("2", "2", "3", `"weight":0.5`), rl("3", "2", "4", `"weight":0.5`), rl("4", "2", "5", `"weight":0.5`), rl("5", "2", "6", `"weight":0.5`))
	req := func(id string, r, min float64) activation.ExpandRequest {
		return activation.ExpandRequest{Frontier: []activation.FrontierInput{{NodeID: id, Activation: r}}, Visited: visited(id), MinActivation: min}
	}
	if got := expand(t, g, req("A", 1, 0.5)); len(got) != 0 {
		t.Errorf("T = min kept: %+v", summarize(got))
	}
	if got := expand(t, g, req("A", 1, 0.49999999999999994)); len(got) != 1 || got[0].TransferEnergy != 0.5 {
		t.Errorf("T just above min: %+v", summarize(got))
	}
	if got := expand(t, g, req("C", 0.5, 0.125)); len(got) != 0 {
		t.Errorf("T = min kept: %+v", summarize(got))
	}
	if got := expand(t, g, req("C", 0.5, 0.1)); len(got) != 4 || got[0].TransferEnergy != 0.125 {
		t.Errorf("got %+v", summarize(got))
	}
}

// TestVisitedAndNoID: from A (d = 4: B, C, X without id, and a second edge
// to C), with B visited: B is excluded but still counts in d(A); X never
// becomes a candidate; both edges to C give one candidate each. w = 1,
// R = 1: T = 1/2 = 0.5. Visited ids that are not in the graph are ignored,
// and so are frontier ids that are not in the graph.
func TestVisitedAndNoID(t *testing.T) {
	g := load(t, nd("0", "A"), nd("1", "B"), nd("2", "C"), nd("3", ""),
		rl("1", "0", "1", `"weight":1.0`), rl("2", "0", "2", `"weight":1.0`), rl("3", "3", "0", `"weight":1.0`), rl("4", "2", "0", `"weight":1.0`))
	got := expand(t, g, activation.ExpandRequest{
		Frontier: []activation.FrontierInput{{NodeID: "missing", Activation: 1}, {NodeID: "A", Activation: 1}},
		Visited:  visited("A", "B", "elsewhere"),
	})
	want := []summary{{"A", "C", 0.5, 4}, {"A", "C", 0.5, 4}}
	if !reflect.DeepEqual(summarize(got), want) {
		t.Fatalf("got %+v, want %+v", summarize(got), want)
	}
	if got[0].Edge.Properties["weight"] != 1.0 {
		t.Errorf("first edge %+v", got[0].Edge)
	}
	if got := expand(t, g, activation.ExpandRequest{Frontier: []activation.FrontierInput{{NodeID: "nope", Activation: 1}}}); len(got) != 0 {
		t.Errorf("unknown frontier: %+v", got)
	}
}

// TestOrdering: the frontier comes as [P2, P1]; output is by parent id,
// then T descending, then neighbour id, then edge internal id. d(P1) = 4,
// R = 1, no tags: n3 (w 1) T = 0.5; n1 by edges "11" and "10" (w 0.5) and
// n2 (w 0.5) T = 0.25 each. d(P2) = 1: n4 (w 0.5) T = 0.5.
func TestOrdering(t *testing.T) {
	g := load(t, nd("0", "P1"), nd("1", "P2"), nd("2", "n1"), nd("3", "n2"), nd("4", "n3"), nd("5", "n4"),
		rl("11", "0", "2", `"weight":0.5,"k":"e11"`),
		rl("12", "3", "0", `"weight":0.5,"k":"e12"`),
		rl("10", "0", "2", `"weight":0.5,"k":"e10"`),
		rl("13", "0", "4", `"weight":1.0,"k":"e13"`),
		rl("14", "1", "5", `"weight":0.5,"k":"e14"`),
	)
	got := expand(t, g, activation.ExpandRequest{
		Frontier: []activation.FrontierInput{{NodeID: "P2", Activation: 1}, {NodeID: "P1", Activation: 1}},
		Visited:  visited("P1", "P2"),
	})
	var keys []string
	for _, c := range got {
		keys = append(keys, fmt.Sprintf("%s>%s:%v:%s", c.ParentID, c.NeighborNode.ID, c.TransferEnergy, c.Edge.Properties["k"]))
	}
	want := []string{"P1>n3:0.5:e13", "P1>n1:0.25:e10", "P1>n1:0.25:e11", "P1>n2:0.25:e12", "P2>n4:0.5:e14"}
	if !reflect.DeepEqual(keys, want) {
		t.Fatalf("got  %v\nwant %v", keys, want)
	}
}

// cancelAfter is a context whose Err is nil for the first n calls.
type cancelAfter struct {
	context.Context
	mu sync.Mutex
	n  int
}

func (c *cancelAfter) Err() error {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.n > 0 {
		c.n--
		return nil
	}
	return context.Canceled
}

// TestCancellation: a cancelled context stops ExpandFrontier before it
// starts, and also in the middle of a 10 000-edge scan (the context is
// checked at the start and every 4096 edges; here it turns cancelled
// after the first check).
func TestCancellation(t *testing.T) {
	ls := []string{nd("0", "hub")}
	for i := 1; i <= 10_000; i++ {
		ls = append(ls, nd(fmt.Sprint(i), fmt.Sprint("n", i)), rl(fmt.Sprint(i), "0", fmt.Sprint(i), `"weight":1.0`))
	}
	g := load(t, ls...)
	req := activation.ExpandRequest{Frontier: []activation.FrontierInput{{NodeID: "hub", Activation: 1}}, Visited: visited("hub")}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if got, err := New(g).ExpandFrontier(ctx, req); !errors.Is(err, context.Canceled) || got != nil {
		t.Errorf("cancelled: %d candidates, %v", len(got), err)
	}
	if got, err := New(g).ExpandFrontier(&cancelAfter{Context: context.Background(), n: 1}, req); !errors.Is(err, context.Canceled) || got != nil {
		t.Errorf("cancelled mid-scan: %d candidates, %v", len(got), err)
	}
	// The pooled scratch was cleaned up: a normal call sees all 10 000
	// (T = 1/100 = 0.01 each).
	if got := expand(t, g, req); len(got) != 10_000 || got[0].TransferEnergy != 0.01 {
		t.Errorf("after cancellation: %d candidates", len(got))
	}
	if _, _, err := New(g).Open(ctx); !errors.Is(err, context.Canceled) {
		t.Errorf("Open: %v", err)
	}
}
