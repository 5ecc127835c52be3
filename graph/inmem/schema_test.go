package inmem

import (
	"os"
	"reflect"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/memoria-graph/memoria/graph"
	"github.com/memoria-graph/memoria/graph/apoc"
)

// TestMappedTagsStringAsStored: a mapped tags string that is its tags
// joined by the separator ("manages,operations") is kept only as tag ids
// (fTagsJoined) and one that is not ("stocks, inventory": a space after
// the comma) as stored; both read back exactly as loaded, through the
// properties shown and exported and through a filter's condition, and
// their tags are split alike.
func TestMappedTagsStringAsStored(t *testing.T) {
	s, _ := graph.Preset(graph.SchemaLightRAG)
	g, err := LoadFileSchema("../../testdata/lightrag.jsonl", s, nil)
	if err != nil {
		t.Fatal(err)
	}
	f, err := os.Open("../../testdata/lightrag.jsonl")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	a, _, err := apoc.ParseReport(f, apoc.MappedRules)
	if err != nil {
		t.Fatal(err)
	}
	stored := map[string]map[string]any{}
	for _, r := range a.Rels {
		stored[r.InternalID] = r.Properties
	}
	joined, tags1 := 0, []string(nil)
	for e := int32(0); e < int32(len(g.relStart)); e++ {
		id := g.relInternalID(e)
		if id == "1" {
			tags1 = g.relTags(e)
		}
		want := stored[id]
		if got := g.relProps(e); !reflect.DeepEqual(got, want) {
			t.Errorf("relationship %s: properties %v, stored %v", id, got, want)
		}
		kw, _ := want["keywords"].(string)
		if g.trav[g.relType[e]] && kw != "" {
			if v, ok := g.relProp(e, "keywords"); !ok || v != kw {
				t.Errorf("relationship %s: the filter reads keywords %v, stored %q", id, v, kw)
			}
			f := &graph.RelFilter{Where: []graph.RelCond{{Key: "keywords", Op: graph.OpEQ, Value: kw}}}
			if !g.Keeps(f, e) {
				t.Errorf("relationship %s: keywords=%q does not keep it", id, kw)
			}
		}
		if g.relFlags[e]&fTagsJoined != 0 {
			joined++
			if _, inExtra := g.extra[e]["keywords"]; inExtra {
				t.Errorf("relationship %s: joined tags kept in extra too", id)
			}
		}
	}
	// Relationships 0 ("manages,operations"), 2 ("stockout,inventory,demand"),
	// 3 ("safety stock,inventory") and 4 ("supplies") are joined; 1 ("stocks,
	// inventory") is not; 5 touches Carol (left out), 6 is not traversed.
	if joined != 4 {
		t.Errorf("%d relationships with joined tags, want 4", joined)
	}
	if !reflect.DeepEqual(tags1, []string{"stocks", "inventory"}) {
		t.Errorf("relationship 1's tags %v", tags1)
	}
}

// TestMappedLoadRelationshipsFirst: a file that lists its relationships
// before their nodes (APOC puts nodes first, a hand-made file may not)
// loads under a mapping exactly as in the usual order: the relationships
// are held until their nodes arrive, then translated in file order, so
// the graph, its export and the notes of what was left out are the same.
func TestMappedLoadRelationshipsFirst(t *testing.T) {
	for _, c := range []struct{ file, preset string }{
		{"../../testdata/lightrag.jsonl", graph.SchemaLightRAG},
		{"../../testdata/graphiti.jsonl", graph.SchemaGraphiti},
	} {
		text, err := os.ReadFile(c.file)
		if err != nil {
			t.Fatal(err)
		}
		var nodes, rels []string
		for _, l := range strings.Split(strings.TrimSpace(string(text)), "\n") {
			if strings.Contains(l, `"type":"node"`) {
				nodes = append(nodes, l)
			} else {
				rels = append(rels, l)
			}
		}
		// A relationship, then the nodes, then the other relationships.
		reordered := strings.Join(slices.Concat(rels[:1], nodes, rels[1:]), "\n")
		s, _ := graph.Preset(c.preset)
		s.Now = time.Date(2026, 6, 1, 0, 0, 0, 0, time.UTC)
		want, err := LoadSchema(strings.NewReader(string(text)), "g", 0, s, nil)
		if err != nil {
			t.Fatal(err)
		}
		got, err := LoadSchema(strings.NewReader(reordered), "g", 0, s, nil)
		if err != nil {
			t.Fatal(err)
		}
		if !reflect.DeepEqual(got.APOC(), want.APOC()) || !reflect.DeepEqual(got.Notes(), want.Notes()) ||
			!reflect.DeepEqual(got.degree, want.degree) || len(want.Notes()) == 0 {
			t.Errorf("%s: relationships first:\n%v\n%v\nin order:\n%v\n%v", c.file, got.APOC(), got.Notes(), want.APOC(), want.Notes())
		}
	}
}
