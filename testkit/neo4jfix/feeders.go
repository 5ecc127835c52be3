package neo4jfix

import (
	"context"
	"slices"
	"strings"
	"testing"

	"github.com/neo4j/neo4j-go-driver/v5/neo4j"

	"github.com/memoria-graph/memoria/render"
	"github.com/memoria-graph/memoria/retriever"
)

// FeedersOnNeo4j runs, in a read transaction on d, the debug query
// render.HitCypher gives each hit of onNeo4j that has feeders (what
// --format cypher prints: render.FeedersCypher, every relationship pinned
// by its element id), and fails unless it returns exactly one row: the
// hit, then for each feeder in order its relationship (the element id
// the feeder carries, of its type, between the hit and the feeder) and the
// feeder's node. The same hit's query from the embedded ranking (pinned by
// properties) returns that row among its own: a relationship with equal
// properties beside it may add rows. It returns how many hits' queries
// ran.
func FeedersOnNeo4j(t *testing.T, d neo4j.DriverWithContext, label string, onNeo4j, embedded retriever.Ranking) int {
	t.Helper()
	byID := map[string]retriever.Hit{}
	for _, h := range embedded.Hits {
		byID[h.NodeID] = h
	}
	ran := 0
	for _, h := range onNeo4j.Hits {
		if len(h.Feeders) == 0 {
			continue
		}
		q, ok := render.HitCypher(h)
		if !ok || !q.Feeders || len(q.Unpinned) > 0 {
			t.Fatalf("%s: %s's query %+v: not a pinned feeders query", label, h.NodeID, q)
		}
		rows := readRows(t, d, q.Query, q.Params)
		if len(rows) != 1 {
			t.Fatalf("%s: %s's feeders query returned %d rows, want 1\n%s\n%v", label, h.NodeID, len(rows), q.Query, q.Params)
		}
		want := rowOf(t, label, h, rows[0])
		ran++
		e, ok := byID[h.NodeID]
		if !ok || len(e.Feeders) != len(h.Feeders) {
			continue
		}
		eq, _ := render.HitCypher(e)
		if len(eq.Unpinned) > 0 || !strings.Contains(eq.Query, "properties(r0) = $r0") {
			t.Fatalf("%s: %s's embedded query %s (unpinned %v)", label, h.NodeID, eq.Query, eq.Unpinned)
		}
		found := false
		for _, row := range readRows(t, d, eq.Query, eq.Params) {
			found = found || rowOf(t, label, e, row) == want
		}
		if !found {
			t.Errorf("%s: %s's embedded feeders query does not return the Neo4j row %s\n%s", label, h.NodeID, want, eq.Query)
		}
	}
	return ran
}

// rowOf checks a feeders query's row against hit h (the hit's node, then
// each feeder's relationship and node, the relationship of the feeder's
// type joining the two) and returns its element ids, joined.
func rowOf(t *testing.T, label string, h retriever.Hit, row *neo4j.Record) string {
	t.Helper()
	if len(row.Values) != 1+2*len(h.Feeders) {
		t.Fatalf("%s: %s's row has %d columns, want %d", label, h.NodeID, len(row.Values), 1+2*len(h.Feeders))
	}
	hn, ok := row.Values[0].(neo4j.Node)
	if !ok || hn.Props["id"] != h.NodeID {
		t.Fatalf("%s: %s's row starts with %v", label, h.NodeID, row.Values[0])
	}
	ids := []string{hn.ElementId}
	for i, f := range h.Feeders {
		rel, ok1 := row.Values[1+2*i].(neo4j.Relationship)
		fn, ok2 := row.Values[2+2*i].(neo4j.Node)
		if !ok1 || !ok2 || fn.Props["id"] != f.From || rel.Type != f.Type {
			t.Fatalf("%s: %s's feeder %d: row holds %v, %v; want a %s to %s", label, h.NodeID, i, row.Values[1+2*i], row.Values[2+2*i], f.Type, f.From)
		}
		if f.Edge.ElementID != "" && rel.ElementId != f.Edge.ElementID {
			t.Errorf("%s: %s's feeder %d is relationship %s, the ranking's %s", label, h.NodeID, i, rel.ElementId, f.Edge.ElementID)
		}
		ends := []string{rel.StartElementId, rel.EndElementId}
		slices.Sort(ends)
		want := []string{hn.ElementId, fn.ElementId}
		slices.Sort(want)
		if !slices.Equal(ends, want) {
			t.Errorf("%s: %s's feeder %d: relationship %s joins %v, not the hit and %s", label, h.NodeID, i, rel.ElementId, ends, f.From)
		}
		ids = append(ids, rel.ElementId, fn.ElementId)
	}
	return strings.Join(ids, " ")
}

// readRows runs query with params in a read transaction on d.
func readRows(t *testing.T, d neo4j.DriverWithContext, query string, params map[string]any) []*neo4j.Record {
	t.Helper()
	ctx := context.Background()
	s := d.NewSession(ctx, neo4j.SessionConfig{AccessMode: neo4j.AccessModeRead})
	defer s.Close(ctx)
	rows, err := neo4j.ExecuteRead(ctx, s, func(tx neo4j.ManagedTransaction) ([]*neo4j.Record, error) {
		res, err := tx.Run(ctx, query, params)
		if err != nil {
			return nil, err
		}
		return res.Collect(ctx)
	})
	if err != nil {
		t.Fatalf("%v\n%s", err, query)
	}
	return rows
}
