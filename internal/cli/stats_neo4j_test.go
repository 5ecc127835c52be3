package cli

import (
	"strings"
	"testing"
)

// TestStatsNeo4jMatchesEmbedded: after `memoria load` of the demo graph,
// `memoria stats --uri` prints in JSON exactly what it prints for the
// embedded demo graph: the counts and percentiles are exact aggregations,
// and the default sample (1000) holds all 44 nodes of degree ≥ 2, so the
// clustering is exact too. With --sample 5 the text says it comes from a
// sample of 5 of those 44.
func TestStatsNeo4jMatchesEmbedded(t *testing.T) {
	srv, _ := freshServer(t)
	mustLoad(t, srv)
	code, want, errs := run(t, "stats", "--format", "json")
	if code != 0 {
		t.Fatalf("embedded: exit %d: %s", code, errs)
	}
	code, got, errs := runIn(t, serverSession(srv), "stats", "--uri", srv.URI, "--format", "json")
	if code != 0 || got != want {
		t.Fatalf("Neo4j: exit %d (%s)\n%s\nembedded\n%s", code, errs, got, want)
	}
	code, got, errs = runIn(t, serverSession(srv), "stats", "--uri", srv.URI, "--sample", "5", "--sample-seed", "7")
	if code != 0 || !strings.Contains(got, "clustering from a sample of 5 nodes of the 44 of degree ≥ 2, seed 7") ||
		!strings.Contains(got, "degree p50/p90/p99     2 / 4 / 5 ") {
		t.Errorf("sampled: exit %d (%s)\n%s", code, errs, got)
	}
}
