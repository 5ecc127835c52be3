package inmem

import (
	"context"
	"fmt"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/memoria-graph/memoria/graph"
	"github.com/memoria-graph/memoria/graph/apoc"
)

const findPath = "../../testdata/findnodes.jsonl"

func listIDs(t *testing.T, g *Graph, filter string, offset, limit int) ([]string, bool) {
	t.Helper()
	ns, more, err := g.ListNodes(context.Background(), filter, offset, limit)
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, n := range ns {
		out = append(out, n.ID)
	}
	return out, more
}

// TestListNodesRanked ranks testdata/findnodes.jsonl for "dog" by hand
// (fields lower-cased; length in runes):
//
//	exact:       dog (its id, 3), n02084071 (name "dog", 3): tie, by id
//	word-prefix: n01111114 ("🐕 dog", 5), n03218198 ("dogsled", 7),
//	             n02110341 ("coach dog", a synonym, 9),
//	             n02087122 and n02103406 ("hunting dog", "working dog", 11: by id)
//	substring:   n07697537 (title "hotdog", 6), n10023039 ("underdog", 8)
//
// n09999999 says "dog" 61 times, but only in a description of more than
// graph.ShortProp runes, which is not searched. Pages of 4 cut that order;
// other filters find a node by a synonym ("hound"), a non-ASCII name
// ("STRASSE" is not "straße", "Straße" is), a list element ("sku-200",
// word-prefix on "sku-200" beats the name "fast-200 policy").
func TestListNodesRanked(t *testing.T) {
	g, err := LoadFile(findPath)
	if err != nil {
		t.Fatal(err)
	}
	want := []string{"dog", "n02084071", "n01111114", "n03218198", "n02110341", "n02087122", "n02103406", "n07697537", "n10023039"}
	if got, more := listIDs(t, g, " DOG ", 0, 0); !slices.Equal(got, want) || more {
		t.Errorf("dog: %q (more %v), want %q", got, more, want)
	}
	if got, more := listIDs(t, g, "dog", 4, 4); !slices.Equal(got, want[4:8]) || !more {
		t.Errorf("dog page 2: %q (more %v), want %q and more", got, more, want[4:8])
	}
	if got, more := listIDs(t, g, "dog", 8, 4); !slices.Equal(got, want[8:]) || more {
		t.Errorf("dog last page: %q (more %v), want %q", got, more, want[8:])
	}
	for _, c := range []struct {
		filter string
		want   []string
	}{
		{"hound", []string{"n02087122"}},
		{"STRASSE", nil},
		{"Straße", []string{"n01111111"}},
		{"СОБАКА", []string{"n01111113"}},
		{"200", []string{"n01111112"}},
		{"no such thing", nil},
	} {
		if got, _ := listIDs(t, g, c.filter, 0, 0); !slices.Equal(got, c.want) {
			t.Errorf("%q: %q, want %q", c.filter, got, c.want)
		}
	}
	// The summary carries the short strings a pane can name a node by.
	ns, _, _ := g.ListNodes(context.Background(), "hound", 0, 1)
	if len(ns) != 1 || !reflect.DeepEqual(ns[0].Props, map[string]string{"name": "hunting dog", "text": "a dog used in hunting game"}) {
		t.Errorf("hound summary: %+v", ns)
	}
	keys, err := g.NameKeys(context.Background())
	// text on all 14 nodes, name on 12, title and description on 1 each.
	if wantKeys := []string{"text", "name", "description", "title"}; err != nil || !slices.Equal(keys, wantKeys) {
		t.Errorf("NameKeys = %q, %v; want %q", keys, err, wantKeys)
	}
}

// bigGraph builds n nodes like a lexical graph's: an id, a name of one or
// two words, a gloss and synonyms.
func bigGraph(b *testing.B, n int) *Graph {
	b.Helper()
	words := []string{"dog", "cat", "house", "stock", "safety", "river", "bank", "light", "paper", "stone", "water", "fire"}
	var sb strings.Builder
	for i := 0; i < n; i++ {
		w1, w2 := words[i%len(words)], words[(i/len(words))%len(words)]
		fmt.Fprintf(&sb, `{"type":"node","id":"%d","labels":["Synset"],"properties":{"id":"n%08d","name":"%s %s %d","text":"a gloss about %s and %s, number %d","synonyms":["%s%d","%s-%s"]}}`+"\n",
			i, i, w1, w2, i, w2, w1, i, w2, i, w1, w2)
	}
	g, err := Load(strings.NewReader(sb.String()), "big")
	if err != nil {
		b.Fatal(err)
	}
	return g
}

// BenchmarkListNodesFilter ranks a 117,659-node graph for a common word
// (every twelfth node's name starts with it) and takes a first page; each
// iteration uses a new filter so that the cache of the last ranking is not
// what is measured. The index is built before the timer starts.
func BenchmarkListNodesFilter(b *testing.B) {
	g := bigGraph(b, 117659)
	ctx := context.Background()
	if _, _, err := g.ListNodes(ctx, "warm", 0, 50); err != nil {
		b.Fatal(err)
	}
	filters := []string{"dog", "stock", "Rive", "n0001"}
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		if _, _, err := g.ListNodes(ctx, filters[i%len(filters)], 0, 50); err != nil {
			b.Fatal(err)
		}
	}
}

// TestFindIndexIgnoresNodesWithoutID: a node without an id is never
// listed, by a filter either.
func TestFindIndexIgnoresNodesWithoutID(t *testing.T) {
	ag := &apoc.Graph{Nodes: []apoc.Node{
		{InternalID: "0", Properties: map[string]any{"name": "dog"}},
		{InternalID: "1", Properties: map[string]any{"id": "a", "name": "dog"}},
	}}
	g, err := New(ag, "t")
	if err != nil {
		t.Fatal(err)
	}
	if got, _ := listIDs(t, g, "dog", 0, 0); !slices.Equal(got, []string{"a"}) {
		t.Errorf("got %q, want [a]", got)
	}
	if _, ok := any(g).(graph.Catalog); !ok {
		t.Error("not a Catalog")
	}
}
