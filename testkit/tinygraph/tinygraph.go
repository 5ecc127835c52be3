// Package tinygraph builds the small hand-worked graphs of the ranking
// retrievers' tests, and checks their rankings: one builder and one set of
// checks for every retriever's hand-worked cases.
package tinygraph

import (
	"fmt"
	"math"
	"strings"
	"testing"

	"github.com/memoria-graph/memoria/graph/apoc"
	"github.com/memoria-graph/memoria/graph/inmem"
	"github.com/memoria-graph/memoria/retriever"
)

// Rel is a relationship of a test graph, written "A-FIXES->X", with an
// optional weight (nil: no weight property) and other properties.
type Rel struct {
	Spec   string
	Weight any
	Props  map[string]any
}

// Build makes an embedded graph of the nodes the rels and props name
// (label Memory, id = the name, plus props[name]; a name starting with "~"
// has no id property) and the rels, in the order given.
func Build(t testing.TB, props map[string]map[string]any, rels ...Rel) *inmem.Graph {
	t.Helper()
	g := &apoc.Graph{}
	seen := map[string]string{}
	node := func(id string) string {
		if in, ok := seen[id]; ok {
			return in
		}
		in := fmt.Sprint("n", len(seen))
		seen[id] = in
		p := map[string]any{}
		if !strings.HasPrefix(id, "~") {
			p["id"] = id
		}
		for k, v := range props[id] {
			p[k] = v
		}
		g.Nodes = append(g.Nodes, apoc.Node{InternalID: in, Labels: []string{"Memory"}, Properties: p})
		return in
	}
	for id := range props {
		node(id)
	}
	for i, r := range rels {
		from, rest, _ := strings.Cut(r.Spec, "-")
		typ, to, _ := strings.Cut(rest, "->")
		p := map[string]any{}
		for k, v := range r.Props {
			p[k] = v
		}
		if r.Weight != nil {
			p["weight"] = r.Weight
		}
		g.Rels = append(g.Rels, apoc.Relationship{InternalID: fmt.Sprint("r", i), Type: typ, Start: node(from), End: node(to), Properties: p})
	}
	ig, err := inmem.New(g, "test")
	if err != nil {
		t.Fatal(err)
	}
	return ig
}

// Seeds is a query of (id, R) pairs.
func Seeds(pairs ...any) retriever.Query {
	var q retriever.Query
	for i := 0; i < len(pairs); i += 2 {
		q.Seeds = append(q.Seeds, retriever.Seed{NodeID: pairs[i].(string), Score: pairs[i+1].(float64)})
	}
	return q
}

// Close reports whether a and b agree to 1e-12, relative.
func Close(a, b float64) bool {
	return a == b || math.Abs(a-b) <= 1e-12*math.Max(math.Abs(a), math.Abs(b))
}

// Want checks the ranking's node ids, in rank order, their ranks, their
// scores to 1e-12 (relative) of the hand-worked values, and that each
// hit's terms multiply (or, with TermsAdd, add) out to its score.
func Want(t testing.TB, r retriever.Ranking, ids []string, scores []float64) {
	t.Helper()
	if fmt.Sprint(HitIDs(r)) != fmt.Sprint(ids) {
		t.Fatalf("hits %v, want %v", HitIDs(r), ids)
	}
	for i, h := range r.Hits {
		if !Close(h.Score, scores[i]) {
			t.Errorf("%s scores %v, want %v", h.NodeID, h.Score, scores[i])
		}
		out := 1.0
		if h.TermsAdd {
			out = 0
		}
		for _, x := range h.Terms {
			if h.TermsAdd {
				out += x.Value
			} else {
				out *= x.Value
			}
		}
		if !Close(out, h.Score) {
			t.Errorf("%s: terms %v come to %v, not %v", h.NodeID, h.Terms, out, h.Score)
		}
		if h.Rank != i+1 {
			t.Errorf("%s has rank %d, want %d", h.NodeID, h.Rank, i+1)
		}
	}
}

// HitIDs are the ranking's node ids in rank order.
func HitIDs(r retriever.Ranking) []string {
	out := []string{}
	for _, h := range r.Hits {
		out = append(out, h.NodeID)
	}
	return out
}

// Stat is the ranking's statistic name; the test fails without it.
func Stat(t testing.TB, r retriever.Ranking, name string) any {
	t.Helper()
	v, ok := r.Stats.Get(name)
	if !ok {
		t.Fatalf("no stat %s", name)
	}
	return v
}

// Hit is the ranking's hit of node id; the test fails without it.
func Hit(t testing.TB, r retriever.Ranking, id string) retriever.Hit {
	t.Helper()
	for _, h := range r.Hits {
		if h.NodeID == id {
			return h
		}
	}
	t.Fatalf("no hit %s", id)
	return retriever.Hit{}
}
