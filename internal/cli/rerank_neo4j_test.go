package cli

import (
	"context"
	"testing"

	"github.com/neo4j/neo4j-go-driver/v5/neo4j"
)

// TestRerankOnNeo4j: after `memoria load`, compare --rerank signals of the
// five retrievers over Neo4j prints exactly what it prints on the embedded
// demo graph (every retriever's hits carry their node's properties on
// Neo4j too). Then Neo4j temporal values and a salience are set on some
// nodes, and the reranked expansion from N2006 reads them as plainProps
// gives them (--now 2026-03-10T00:00:00Z):
//
//	N2003 updated_at datetime 2026-03-09T01:00+01:00[Europe/Paris]: 1 day
//	N2004 updated_at date 2026-03-08: 2 days
//	N2007 last_accessed localdatetime 2026-03-07T00:00 (UTC): 3 days
//	N2005 updated_at 1772928000 (epoch seconds, 2026-03-08T00:00Z): 2 days; salience 0.9
//	N2006 updated_at datetime 2026-03-20T00:00Z: after now, 0 days
func TestRerankOnNeo4j(t *testing.T) {
	srv, d := freshServer(t)
	mustLoad(t, srv)
	sameOnNeo4j(t, srv, []string{"compare", "--retrievers", "activation,expansion,spreading,ppr,fusion", "--seed", "N2006=0.85",
		"--seed", "T3000=0.9", "--top-k", "6", "--rerank", "signals", "--now", rerankNow}, "json")
	for _, q := range []string{
		`MATCH (n {id: "N2003"}) SET n.updated_at = datetime("2026-03-09T01:00:00+01:00[Europe/Paris]")`,
		`MATCH (n {id: "N2004"}) SET n.updated_at = date("2026-03-08")`,
		`MATCH (n {id: "N2007"}) SET n.last_accessed = localdatetime("2026-03-07T00:00:00")`,
		`MATCH (n {id: "N2005"}) SET n.updated_at = 1772928000, n.salience = 0.9`,
		`MATCH (n {id: "N2006"}) SET n.updated_at = datetime("2026-03-20T00:00:00Z")`,
	} {
		if _, err := neo4j.ExecuteQuery(context.Background(), d, q, nil, neo4j.EagerResultTransformer); err != nil {
			t.Fatal(err)
		}
	}
	code, out, errs := runIn(t, serverSession(srv), "explore", "--retriever", "expansion", "--seed", "N2006=0.85", "--uri", srv.URI,
		"--rerank", "signals", "--now", rerankNow)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errs)
	}
	want := map[string]struct {
		from string
		days float64
	}{"N2003": {"updated_at", 1}, "N2004": {"updated_at", 2}, "N2007": {"last_accessed", 3}, "N2005": {"updated_at", 2}, "N2006": {"updated_at", 0}}
	r := decodeReranked(t, out)
	for _, h := range r.Hits {
		w := want[h.NodeID]
		if h.Detail["recency_from"] != w.from || h.Detail["days"] != w.days {
			t.Errorf("%s: recency from %v, %v days; want %s, %v", h.NodeID, h.Detail["recency_from"], h.Detail["days"], w.from, w.days)
		}
		delete(want, h.NodeID)
	}
	if len(want) != 0 {
		t.Errorf("hits missing: %v", want)
	}
	if n5 := r.Hits[0]; n5.NodeID != "N2005" || n5.Detail["salience"] != 0.9 {
		t.Errorf("first hit %s (salience %v), want N2005 with 0.9", n5.NodeID, n5.Detail["salience"])
	}
}
