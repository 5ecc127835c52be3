package randgraph

import (
	"fmt"
	"math/rand"
	"reflect"
	"testing"

	"github.com/memoria-graph/memoria/graph/apoc"
)

// TestGenerateValidAndVaried: 200 graphs are valid APOC graphs with string
// ids, and across them every awkward case the agreement tests rely on
// appears: hubs, parallel and identical parallel edges, self-loops, missing
// weights, integer weights, grid ties, untagged edges (missing and empty),
// duplicated tags, MENTIONS relationships, labelled and unlabelled nodes.
func TestGenerateValidAndVaried(t *testing.T) {
	seen := map[string]int{}
	for seed := int64(0); seed < 200; seed++ {
		r := rand.New(rand.NewSource(seed))
		g := Generate(r, Random(r, 20, 200))
		if err := apoc.Validate(g); err != nil {
			t.Fatalf("seed %d: %v", seed, err)
		}
		deg := map[string]int{}
		pairs := map[[2]string][]map[string]any{}
		for _, n := range g.Nodes {
			if _, ok := n.Properties["id"].(string); !ok {
				t.Fatalf("seed %d: node %s without string id", seed, n.InternalID)
			}
			if len(n.Labels) == 0 {
				seen["unlabelled"]++
			} else {
				seen["labelled"]++
			}
		}
		for _, rel := range g.Rels {
			if rel.Type != "RELATES" {
				seen["other type"]++
				continue
			}
			deg[rel.Start]++
			if rel.End != rel.Start {
				deg[rel.End]++
			} else {
				seen["self-loop"]++
			}
			key := [2]string{rel.Start, rel.End}
			if rel.Start > rel.End {
				key = [2]string{rel.End, rel.Start}
			}
			for _, p := range pairs[key] {
				seen["parallel"]++
				if reflect.DeepEqual(p, rel.Properties) {
					seen["identical parallel"]++
				}
			}
			pairs[key] = append(pairs[key], rel.Properties)
			switch w := rel.Properties["weight"].(type) {
			case nil:
				seen["missing weight"]++
			case int64:
				seen["integer weight"]++
			case float64:
				if w == 0.25 || w == 0.5 || w == 0.75 {
					seen["grid weight"]++
				}
			}
			tags, has := rel.Properties["tags"].([]any)
			switch {
			case !has:
				seen["no tags property"]++
			case len(tags) == 0:
				seen["empty tags"]++
			default:
				set := map[any]bool{}
				for _, tg := range tags {
					if set[tg] {
						seen["duplicate tag"]++
					}
					set[tg] = true
				}
			}
		}
		maxDeg := 0
		for _, d := range deg {
			maxDeg = max(maxDeg, d)
		}
		if len(g.Nodes) >= 100 && maxDeg >= 10 {
			seen["hub"]++
		}
	}
	for _, want := range []string{"labelled", "unlabelled", "other type", "self-loop", "parallel", "identical parallel",
		"missing weight", "integer weight", "grid weight", "no tags property", "empty tags", "duplicate tag", "hub"} {
		if seen[want] == 0 {
			t.Errorf("no %s in 200 graphs (%v)", want, seen)
		}
	}
	t.Logf("%v", seen)
}

// TestGenerateDeterministic: the same seed and options give the same graph.
func TestGenerateDeterministic(t *testing.T) {
	a := Generate(rand.New(rand.NewSource(7)), DefaultOptions(50))
	b := Generate(rand.New(rand.NewSource(7)), DefaultOptions(50))
	if !reflect.DeepEqual(a, b) {
		t.Fatal("same seed, different graphs")
	}
}

// TestShapes: on a hand-made graph, Shapes names the ends of a self-loop
// and of parallel relationships (either direction) of the type asked
// for, and nothing at a single relationship, at another type's shapes or
// at a node without an id.
func TestShapes(t *testing.T) {
	node := func(in, id string) apoc.Node {
		p := map[string]any{}
		if id != "" {
			p["id"] = id
		}
		return apoc.Node{InternalID: in, Properties: p}
	}
	rel := func(typ, a, b string) apoc.Relationship {
		return apoc.Relationship{Type: typ, Start: a, End: b}
	}
	g := &apoc.Graph{
		Nodes: []apoc.Node{node("0", "A"), node("1", "B"), node("2", "C"), node("3", "D"), node("4", "")},
		Rels: []apoc.Relationship{rel("RELATES", "0", "0"), rel("RELATES", "0", "1"), rel("RELATES", "1", "0"),
			rel("RELATES", "1", "2"), rel("OTHER", "3", "3"), rel("OTHER", "2", "3"), rel("OTHER", "2", "3"),
			rel("RELATES", "4", "4"), rel("RELATES", "3", "4"), rel("RELATES", "3", "4")},
	}
	self, par := Shapes(g, "RELATES")
	if fmt.Sprint(self) != "map[A:true]" || fmt.Sprint(par) != "map[A:true B:true]" {
		t.Errorf("self-loops %v, parallel %v; want A, and A and B", self, par)
	}
}
