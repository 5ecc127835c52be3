package cli

import (
	"encoding/json"
	"math"
	"testing"
)

// TestEvalSeedingNeo4jEqualsEmbedded: `eval --seeding both` of the demo
// query set (each line a question beside its seeds) on Neo4j, the gather
// through its fulltext index, gives every row the embedded engine gives:
// the same names, the same means (to 1e-9: the gathered R may differ in
// the seventh digit, Lucene's float32 BM25, which moves no rank) and the
// same places of the relevant nodes (seeded, found, cut, unreached).
func TestEvalSeedingNeo4jEqualsEmbedded(t *testing.T) {
	srv, _ := freshServer(t)
	mustLoad(t, srv)
	args := []string{"eval", "--queries", "../../testdata/demo-queries.jsonl", "--seeding", "both", "--retrievers", "expansion,ppr", "--format", "json"}
	code, emb, errs := run(t, args...)
	if code != 0 {
		t.Fatalf("embedded: exit %d: %s", code, errs)
	}
	code, neo, errs := runIn(t, serverSession(srv), append(args, "--uri", srv.URI)...)
	if code != 0 {
		t.Fatalf("Neo4j: exit %d: %s", code, errs)
	}
	var a, b struct {
		Runs []whereRow `json:"runs"`
	}
	if err := json.Unmarshal([]byte(emb), &a); err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal([]byte(neo), &b); err != nil {
		t.Fatal(err)
	}
	if len(a.Runs) != 4 || len(b.Runs) != len(a.Runs) {
		t.Fatalf("rows: embedded %d, Neo4j %d", len(a.Runs), len(b.Runs))
	}
	for i := range a.Runs {
		x, y := a.Runs[i], b.Runs[i]
		if x.Retriever != y.Retriever || x.Seeded != y.Seeded || x.Found != y.Found || !sameCounts(x.Lost, y.Lost) {
			t.Errorf("row %d: embedded %+v, Neo4j %+v", i, x, y)
		}
		for m, v := range x.Mean {
			if math.Abs(v-y.Mean[m]) > 1e-9 {
				t.Errorf("%s %s: embedded %v, Neo4j %v", x.Retriever, m, v, y.Mean[m])
			}
		}
	}
	if a.Runs[2].Retriever != "expansion@gathered" || a.Runs[2].Seeded+a.Runs[2].Found == 0 {
		t.Errorf("the gathered rows prove nothing: %+v", a.Runs[2])
	}
}
