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
// must not get raw becomes a parameter; the check query reads the mapped
// degree, weight, tags and ids; memoria's own schema writes the package
// functions' queries.
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
	// The check under LightRAG's preset reads the hop as the retrievers
	// do: the degree over DIRECTED to nodes labelled base, the weight 1.0
	// when missing, keywords split on the comma, the ids entity_id's;
	// nothing of memoria's own names is left. Under memoria's schema it is
	// the package function's query.
	sc, _ = graph.Preset(graph.SchemaLightRAG)
	check := CypherFor(sc).CheckCypher(p, 1, []string{"a"}, 0.1)
	for _, part := range []string{"COUNT { (a)-[x:DIRECTED]-(y) WHERE $schema_label IN labels(y) }",
		"split(r.keywords, $schema_sep)", "a.entity_id AS from_id, b.entity_id AS to_id", "coalesce(r.weight, $schema_default_weight) AS w"} {
		if !strings.Contains(check.Query, part) {
			t.Errorf("the LightRAG check lacks %q:\n%s", part, check.Query)
		}
	}
	for _, own := range []string{":RELATES", "r.tags", "a.id", "0.01"} {
		if strings.Contains(check.Query, own) {
			t.Errorf("the LightRAG check still holds %q:\n%s", own, check.Query)
		}
	}
	if check.Params["schema_default_weight"] != 1.0 || check.Params["schema_sep"] != "," || check.Params["schema_label"] != "base" {
		t.Errorf("the LightRAG check's params %v", check.Params)
	}
	if got, want := CypherFor(graph.MemoriaSchema()).CheckCypher(p, 1, []string{"a"}, 0.1), CheckCypher(p, 1, []string{"a"}, 0.1); !reflect.DeepEqual(got, want) {
		t.Errorf("memoria's schema, the check: %+v, want %+v", got, want)
	}
	// A route's other types keep their names; RELATES is the traversed types.
	route := []retriever.Hop{{From: "a", To: "b", Type: graph.Relates}, {From: "b", To: "c", Type: "MENTIONS"}}
	sc, _ = graph.Preset(graph.SchemaGraphiti)
	if q := CypherFor(sc).DebugCypherRoute(route); !strings.Contains(q.Query, "-[r0:RELATES_TO]-") || !strings.Contains(q.Query, "-[r1:MENTIONS]-") ||
		!strings.Contains(q.Query, "(n2:Entity {uuid: $id2})") {
		t.Errorf("route query %q", q.Query)
	}
}
