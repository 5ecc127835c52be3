package cli

import (
	"io"
	"strings"
	"testing"

	"github.com/memoria-graph/memoria/render"
	"github.com/memoria-graph/memoria/retriever/activation/onneo4j"
	"github.com/memoria-graph/memoria/retriever/activation/sweep"
	"github.com/memoria-graph/memoria/tui"
	"github.com/memoria-graph/memoria/tui/overlays/sweepview"
)

// TestUIHeldOutNeo4jEqualsEmbedded: the explorer opened on Neo4j with the
// demo query set measures it on the fast path (not the explorer's
// snapshot, which would keep every query's neighbourhoods), and its
// held-out report of MIN_ACTIVATION (26 values × 8 queries, 4 folds) is,
// to the character, the embedded engine's; so is that of ppr's damping
// through the explorer's graph reads.
func TestUIHeldOutNeo4jEqualsEmbedded(t *testing.T) {
	srv, _ := freshServer(t)
	mustLoad(t, srv)
	flags := []string{"--queries", demoQueries, "--folds", "4"}
	s := serverSession(srv)
	env := Env{Stdout: io.Discard, Stderr: io.Discard, Getenv: func(k string) string { return s.vars[k] }}
	neo := uiOptionsIn(t, env, append([]string{"--uri", srv.URI}, flags...)...)
	if _, fast := neo.Queries.Backend.(*onneo4j.Neo4j); !fast {
		t.Fatalf("the query set runs on %T, want the fast path *onneo4j.Neo4j", neo.Queries.Backend)
	}
	emb := uiOptions(t, flags...)
	var texts [2]string
	for i, o := range []struct {
		name string
		set  sweepview.QuerySet
	}{{"embedded", emb.Queries}, {"Neo4j", neo.Queries}} {
		tr, failed, first, err := activationHeldOut(t, o.set, emb, sweep.MinActivation, 100)
		if err != nil || failed != 0 {
			t.Fatalf("%s: %v (%d failed: %s)", o.name, err, failed, first)
		}
		texts[i] = render.TuneText(tr)
	}
	if texts[0] != texts[1] {
		t.Errorf("embedded:\n%s\nNeo4j:\n%s", texts[0], texts[1])
	}
	// ppr's damping through the explorer's graph reads on each engine.
	for i, o := range []tui.Options{emb, neo} {
		target, err := sweepview.RankingTarget(o.Neighbourhood, o.Settings["ppr"], "damping")
		if err != nil {
			t.Fatal(err)
		}
		tr, failed, _, err := sweepview.HeldOut(t.Context(), o.Queries, target, 100, nil)
		if err != nil || failed != 0 {
			t.Fatal(err, failed)
		}
		texts[i] = render.TuneText(tr)
	}
	if texts[0] != texts[1] || !strings.Contains(texts[0], "held-out curve of damping") {
		t.Errorf("ppr's damping, embedded:\n%s\nNeo4j:\n%s", texts[0], texts[1])
	}
}
