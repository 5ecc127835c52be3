package render

import (
	"reflect"
	"strings"
	"testing"

	"github.com/memoria-graph/memoria/graph"
	"github.com/memoria-graph/memoria/retriever"
)

// TestCypherForMapping: under a mapping the debug query matches a node by
// its mapped id property on the mapping's label and a traversed
// relationship by the traversed types, names quoted; a name a terminal
// must not get raw becomes a parameter; memoria's own schema writes the
// package functions' queries.
func TestCypherForMapping(t *testing.T) {
	p := minimalResult().Paths[0]
	if got, want := CypherFor(graph.MemoriaSchema()).DebugCypher(p), DebugCypher(p); !reflect.DeepEqual(got, want) {
		t.Errorf("memoria's schema: %+v, want %+v", got, want)
	}
	if got, want := CypherFor(graph.Schema{}).DebugCypher(p), DebugCypher(p); !reflect.DeepEqual(got, want) {
		t.Errorf("the zero schema: %+v, want %+v", got, want)
	}
	sc, _ := graph.Preset(graph.SchemaLightRAG)
	sc.Traverse = []string{"DIRECTED", "has`tick"}
	q := CypherFor(sc).DebugCypher(p)
	if want := "MATCH p = (n0:base {entity_id: $id0})-[r0:DIRECTED|`has``tick`]-(n1:base {entity_id: $id1}) WHERE properties(r0) = $r0 RETURN p"; q.Query != want {
		t.Errorf("query %q, want %q", q.Query, want)
	}
	// The node property filter: its key quoted in the node's map, its
	// value a parameter, however hostile.
	sc.NodeWhereKey, sc.NodeWhereValue = "group`id", "g1' OR true //"
	q = CypherFor(sc).DebugCypher(p)
	if want := "MATCH p = (n0:base {entity_id: $id0, `group``id`: $schema_where})-[r0:DIRECTED|`has``tick`]-(n1:base {entity_id: $id1, `group``id`: $schema_where}) WHERE properties(r0) = $r0 RETURN p"; q.Query != want {
		t.Errorf("query %q, want %q", q.Query, want)
	}
	if q.Params["schema_where"] != sc.NodeWhereValue {
		t.Errorf("params %v", q.Params)
	}
	sc.NodeLabel, sc.IDProperty, sc.Traverse, sc.NodeWhereKey = "ba\x1bse", "id\u202e", []string{"DIR\x07"}, "gr\x1boup"
	q = CypherFor(sc).DebugCypher(p)
	want := "MATCH p = (n0)-[r0]-(n1) WHERE $schema_label IN labels(n0) AND n0[$schema_id] = $id0 AND n0[$schema_where_key] = $schema_where AND type(r0) IN $schema_traverse AND " +
		"$schema_label IN labels(n1) AND n1[$schema_id] = $id1 AND n1[$schema_where_key] = $schema_where AND properties(r0) = $r0 RETURN p"
	if q.Query != want {
		t.Errorf("query %q, want %q", q.Query, want)
	}
	if q.Params["schema_label"] != sc.NodeLabel || q.Params["schema_id"] != sc.IDProperty || !reflect.DeepEqual(q.Params["schema_traverse"], sc.Traverse) ||
		q.Params["schema_where_key"] != sc.NodeWhereKey || q.Params["schema_where"] != sc.NodeWhereValue {
		t.Errorf("params %v", q.Params)
	}
	if b := q.Browser(); strings.ContainsAny(b, "\x1b\u202e\x07") {
		t.Errorf("Browser form holds a raw control character: %q", b)
	}
	// A route's other types keep their names; RELATES is the traversed types.
	route := []retriever.Hop{{From: "a", To: "b", Type: graph.Relates}, {From: "b", To: "c", Type: "MENTIONS"}}
	sc, _ = graph.Preset(graph.SchemaGraphiti)
	if q := CypherFor(sc).DebugCypherRoute(route); !strings.Contains(q.Query, "-[r0:RELATES_TO]-") || !strings.Contains(q.Query, "-[r1:MENTIONS]-") ||
		!strings.Contains(q.Query, "(n2:Entity {uuid: $id2})") {
		t.Errorf("route query %q", q.Query)
	}
}
