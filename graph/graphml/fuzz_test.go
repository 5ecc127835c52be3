package graphml

import (
	"fmt"
	"os"
	"strings"
	"testing"

	"github.com/memoria-graph/memoria/graph/apoc"
)

// FuzzDecode: whatever the bytes, Decode returns (no panic, no hang) and
// either refuses them or hands over a graph the APOC checker accepts
// again (apoc.Check by the same rules: Decode checks each element as
// Check does), with as many elements as it reports.
//
//	go test -fuzz FuzzDecode ./graph/graphml/
func FuzzDecode(f *testing.F) {
	if raw, err := os.ReadFile(lightragFile); err == nil {
		f.Add(string(raw[:4000]))
	}
	f.Add(billionLaughs())
	f.Add(keys + `<node id="a"><data key="t">x</data></node><node id="b"/><edge source="a" target="b"><data key="w">0.5</data></edge></graph></graphml>`)
	f.Add(`<graphml><desc>memoria export</desc><key id="d0" for="node" attr.name="labels"/><key id="d1" for="edge" attr.name="label"/>` +
		`<key id="d2" for="node" attr.name="id"><desc>id</desc></key><graph><node id="n0"><data key="d0">:A</data><data key="d2">x</data></node>` +
		`<edge source="n0" target="n0"><data key="d1">RELATES</data></edge></graph></graphml>`)
	defer func(s int) { partSize = s }(partSize)
	partSize = 16
	f.Fuzz(func(t *testing.T, doc string) {
		g, rep, err := decodeAll(doc, apoc.MappedRules, Options{IDProperty: "entity_id"})
		want, werr := serial(doc, Options{IDProperty: "entity_id"})
		if (err == nil) != (werr == nil) || err == nil && fmt.Sprint(g) != fmt.Sprint(want) {
			t.Fatalf("in parts: %v; in one reading: %v", err, werr)
		}
		if err != nil {
			if strings.TrimSpace(err.Error()) == "" {
				t.Fatal("an empty error")
			}
			return
		}
		if rep.Nodes != len(g.Nodes) || rep.Relationships != len(g.Rels) {
			t.Fatalf("report %+v for %d nodes, %d relationships", rep, len(g.Nodes), len(g.Rels))
		}
		if _, err := apoc.Check(g, apoc.MappedRules); err != nil {
			t.Fatalf("accepted, but the checker refuses the graph: %v", err)
		}
	})
}
