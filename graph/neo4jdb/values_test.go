package neo4jdb_test

import (
	"context"
	"encoding/json"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/neo4j/neo4j-go-driver/v5/neo4j"
	"github.com/neo4j/neo4j-go-driver/v5/neo4j/dbtype"

	"github.com/memoria-graph/memoria/graph/neo4jdb"
	"github.com/memoria-graph/memoria/retriever"
	"github.com/memoria-graph/memoria/retriever/activation"
	"github.com/memoria-graph/memoria/retriever/activation/onneo4j"
	"github.com/memoria-graph/memoria/testkit/neo4jfix"
)

// TestPlainValueIsToString: for temporal values and points of every kind
// (negative and fractional durations, named zones, years outside
// 0000-9999, coordinates Java writes in scientific notation), plainValue of
// the value the driver returns is exactly what the server's toString()
// writes, which is what APOC's export writes; lists are converted element
// by element. With export, points are refused and temporals converted alike.
// (plainValue is unexported: export_test.go makes it PlainValue here.)
func TestPlainValueIsToString(t *testing.T) {
	d := fx.Driver(t)
	exprs := []string{
		"date('2026-03-02')", "date('-0005-01-01')", "date('+12345-01-01')",
		"datetime('2026-03-02T09:14:00Z')", "datetime('2026-03-02T09:14:00+01:00')", "datetime('2026-03-02T09:14:00.25-05:30')",
		"datetime('2026-03-02T09:14:00.5+01:00[Europe/Berlin]')", "datetime('2026-07-02T09:14:00[Europe/Berlin]')", "datetime('2026-03-02T09:14:00[UTC]')",
		"localdatetime('2026-03-02T09:14')", "localdatetime('2026-03-02T09:14:05.000000001')",
		"localtime('09:14')", "localtime('09:14:05.120')", "time('09:14Z')", "time('09:14:00-05:30')", "time('23:59:59.999+14:00')",
		"duration('P1DT2H')", "duration('P14M3DT4H5M6.5S')", "duration('PT0S')", "duration('-PT1.5S')", "duration('PT-0.5S')",
		"duration({seconds: -90})", "duration('P1Y')", "duration('PT36H')", "duration({days: -1, hours: 2})", "duration('PT0.000000001S')",
		"duration({months: -14, seconds: -3601, nanoseconds: -5})", "duration('P2W')",
		"point({x: 1, y: 2})", "point({x: 1.5, y: 2, z: 3})", "point({longitude: 12.5, latitude: 56.25})",
		"point({longitude: 12.5, latitude: 56.25, height: 100})", "point({x: 1e20, y: 0.1})", "point({x: -0.0001, y: 12345678.5})",
	}
	for _, e := range exprs {
		res, err := neo4j.ExecuteQuery(context.Background(), d, "WITH "+e+" AS v RETURN v, toString(v) AS s", nil, neo4j.EagerResultTransformer)
		if err != nil {
			t.Fatalf("%s: %v", e, err)
		}
		v, _ := res.Records[0].Get("v")
		want, _ := res.Records[0].Get("s")
		got, err := neo4jdb.PlainValue(v, false)
		if err != nil || got != want {
			t.Errorf("%s (%T): plainValue %#v, %v; toString %q", e, v, got, err, want)
		}
		_, isPoint := v.(dbtype.Point2D)
		if _, p3 := v.(dbtype.Point3D); p3 {
			isPoint = true
		}
		if got, err := neo4jdb.PlainValue(v, true); isPoint != (err != nil) || !isPoint && got != want {
			t.Errorf("%s: export %#v, %v", e, got, err)
		}
	}
	res, err := neo4j.ExecuteQuery(context.Background(), d, "RETURN [date('2026-03-02'), date('2026-03-03')] AS v", nil, neo4j.EagerResultTransformer)
	if err != nil {
		t.Fatal(err)
	}
	v, _ := res.Records[0].Get("v")
	if got, _ := neo4jdb.PlainValue(v, false); !slices.Equal(got.([]any), []any{"2026-03-02", "2026-03-03"}) {
		t.Errorf("list of dates: %#v", got)
	}
}

// temporalGraph is P and Q (Events; P has a date, a datetime, a duration and
// a list of dates) joined by two RELATES edges P→Q with weight 0.5, tags
// [x], a datetime with an offset and a duration, which differ only by the
// date property on: 2026-03-03 and 2026-03-02, created in the given order.
func temporalGraph(t *testing.T, d neo4j.DriverWithContext, onDates ...string) {
	t.Helper()
	fx.Cypher(t, d, "MATCH (n) DETACH DELETE n", nil)
	fx.Cypher(t, d, `CREATE (:Event {id: 'P', born: date('2026-03-02'), at: datetime('2026-03-02T09:14:00Z'),
		took: duration('P1DT2H'), days: [date('2026-03-02'), date('2026-03-04')]}),
		(:Event {id: 'Q', seen: localdatetime('2026-03-02T09:14'), opens: time('09:14Z'), where: point({x: 1, y: 2})})`, nil)
	for _, on := range onDates {
		fx.Cypher(t, d, `MATCH (p {id: 'P'}), (q {id: 'Q'})
			CREATE (p)-[:RELATES {weight: 0.5, tags: ['x'], on: date($on), at: datetime('2026-03-02T09:14:00+01:00'), took: duration('PT36H')}]->(q)`,
			map[string]any{"on": on})
	}
}

// TestTemporalPropertiesAsStrings: node and edge properties read by the
// connector and the catalog hold temporal values as their ISO-8601 strings
// (date "2026-03-02", datetime "2026-03-02T09:14:00Z" and
// "2026-03-02T09:14:00+01:00", duration "P1DT2H", localdatetime
// "2026-03-02T09:14:00", time "09:14:00Z", lists element by element) and
// points as their Cypher text, so `explore --format json` shows them rather
// than {}; Source.ReadAPOC (export) gives the same strings. The two parallel
// edges P→Q tie on T and differ only by their date: they get different
// activation.EdgeKeys and come back ordered by them (on 2026-03-02 first)
// whichever was created first, and an exploration keeps the same one.
func TestTemporalPropertiesAsStrings(t *testing.T) {
	d := fx.Driver(t)
	ctx := context.Background()
	wantP := map[string]any{"id": "P", "born": "2026-03-02", "at": "2026-03-02T09:14:00Z", "took": "P1DT2H",
		"days": []any{"2026-03-02", "2026-03-04"}}
	wantQ := map[string]any{"id": "Q", "seen": "2026-03-02T09:14:00", "opens": "09:14:00Z", "where": "point({x: 1.0, y: 2.0, crs: 'cartesian'})"}
	for _, order := range [][]string{{"2026-03-03", "2026-03-02"}, {"2026-03-02", "2026-03-03"}} {
		temporalGraph(t, d, order...)
		src := neo4jdb.NewSource(d, "", "")
		node, ok, err := src.Node(ctx, "P")
		if err != nil || !ok || !reflect.DeepEqual(node.Properties, wantP) {
			t.Errorf("catalog node P: %v (%v, %v), want %v", node.Properties, ok, err, wantP)
		}
		cands := neo4jfix.Expand(t, neo4jfix.Open(t, onneo4j.New(src)), neo4jfix.ExpandReq(map[string]float64{"P": 1}, nil, []string{"x"}, 0, 0.15))
		if len(cands) != 2 || !neo4jfix.SameSlot(cands[0], cands[1]) {
			t.Fatalf("order %v: %s", order, neo4jfix.CandList(cands))
		}
		if !reflect.DeepEqual(cands[0].NeighborNode.Properties, wantQ) {
			t.Errorf("neighbour Q: %v, want %v", cands[0].NeighborNode.Properties, wantQ)
		}
		var ons []any
		for _, c := range cands {
			ons = append(ons, c.Edge.Properties["on"])
			if c.Edge.Properties["at"] != "2026-03-02T09:14:00+01:00" || c.Edge.Properties["took"] != "PT36H" {
				t.Errorf("edge properties %v", c.Edge.Properties)
			}
		}
		if !slices.Equal(ons, []any{"2026-03-02", "2026-03-03"}) {
			t.Errorf("order %v: edges come back as %v", order, ons)
		}
		if k0, k1 := activation.EdgeKey(cands[0].Edge), activation.EdgeKey(cands[1].Edge); k0 == k1 || !strings.Contains(k0, `"on":"2026-03-02"`) {
			t.Errorf("EdgeKeys %s and %s", k0, k1)
		}
		js, err := json.Marshal(cands[0])
		if err != nil || strings.Contains(string(js), "{}") || !strings.Contains(string(js), `"2026-03-02T09:14:00+01:00"`) {
			t.Errorf("JSON of a candidate: %s %v", js, err)
		}
		res, _ := neo4jfix.ExploreWithLevels(t, onneo4j.New(src), activation.DefaultParams(), []retriever.Seed{{NodeID: "P", Score: 1}}, []string{"x"})
		if len(res[0].Paths) != 1 || res[0].Paths[0].Steps[0].Edge.Properties["on"] != "2026-03-02" {
			t.Errorf("order %v: kept edge %v (%s)", order, res[0].Paths, res[0].Error)
		}
	}
	// ReadAPOC converts with the same function; the point is refused there.
	fx.Cypher(t, d, "MATCH (q {id: 'Q'}) REMOVE q.where", nil)
	g, err := neo4jdb.NewSource(d, "", "").ReadAPOC(ctx)
	if err != nil {
		t.Fatal(err)
	}
	for _, n := range g.Nodes {
		if n.Properties["id"] == "P" && !reflect.DeepEqual(n.Properties, wantP) {
			t.Errorf("ReadAPOC P: %v", n.Properties)
		}
	}
	for _, r := range g.Rels {
		if r.Properties["took"] != "PT36H" || r.Properties["at"] != "2026-03-02T09:14:00+01:00" {
			t.Errorf("ReadAPOC edge: %v", r.Properties)
		}
	}
	fx.Cypher(t, d, "MATCH (q {id: 'Q'}) SET q.where = point({x: 1, y: 2})", nil)
	if _, err := neo4jdb.NewSource(d, "", "").ReadAPOC(ctx); err == nil || !strings.Contains(err.Error(), "property where: points cannot be exported") {
		t.Errorf("ReadAPOC with a point: %v", err)
	}
}
