package cli

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/memoria-graph/memoria/graph"
	"github.com/memoria-graph/memoria/graph/neo4jdb"
	"github.com/memoria-graph/memoria/retriever"
	"github.com/memoria-graph/memoria/retriever/activation"
	"github.com/memoria-graph/memoria/testkit/neo4jtest"
	"github.com/neo4j/neo4j-go-driver/v5/neo4j"
)

// overflowGraph is S —1e308→ A —1e308→ B: T(S→A) = 1 × 1e308 / √1 × 1 =
// 1e308, still a double, and T(A→B) = 1e308 × 1e308 / √2 × 1 overflows,
// so seed S ends in error (docs/ALGORITHM.md rule 1). Seed Z has no edge
// and succeeds with no path.
const overflowGraph = `{"type":"node","id":"0","labels":["Event"],"properties":{"id":"S"}}
{"type":"node","id":"1","labels":["Event"],"properties":{"id":"A"}}
{"type":"node","id":"2","labels":["Event"],"properties":{"id":"B"}}
{"type":"node","id":"3","labels":["Event"],"properties":{"id":"Z"}}
{"type":"relationship","id":"0","label":"RELATES","properties":{"weight":1e308},"start":{"id":"0","labels":["Event"]},"end":{"id":"1","labels":["Event"]}}
{"type":"relationship","id":"1","label":"RELATES","properties":{"weight":1e308},"start":{"id":"1","labels":["Event"]},"end":{"id":"2","labels":["Event"]}}
`

// TestExploreFailedSeedExitsOne: with seeds S (fails: its T overflows at
// depth 2) and Z (succeeds, no path), every format prints both results,
// marks S as failed, and explore exits 1 saying "1 of 2 seeds ended in
// error" and naming the edge.
//
// Expected marks: json and tree carry terminated_reason "error" / a header
// ending "error"; llm starts with `Seed S FAILED`; d3 has "failed_seeds";
// cypher has a comment naming the failed seed.
// Why: docs/EXPORTS.md "Failed seeds" — a partial answer says so in every
// format, and the exit code lets a script tell.
func TestExploreFailedSeedExitsOne(t *testing.T) {
	p := filepath.Join(t.TempDir(), "overflow.jsonl")
	if err := os.WriteFile(p, []byte(overflowGraph), 0o644); err != nil {
		t.Fatal(err)
	}
	marks := map[string]string{
		"json":   `"terminated_reason":"error"`,
		"tree":   "seed S R=1: 0 paths, max depth 0, error",
		"llm":    `Seed S FAILED (error: "edge \"A\" → \"B\" (RELATES)`,
		"d3":     `"failed_seeds": [`,
		"cypher": `// Seed S FAILED (error: "edge \"A\" → \"B\" (RELATES)`,
	}
	for format, mark := range marks {
		code, out, errs := run(t, "explore", "--graph", p, "--seed", "S", "--seed", "Z", "--format", format)
		if code != 1 {
			t.Errorf("%s: exit %d, want 1 (stderr %s)", format, code, errs)
		}
		if !strings.Contains(out, mark) {
			t.Errorf("%s: output lacks %q:\n%s", format, mark, out)
		}
		if !strings.Contains(errs, "explore: 1 of 2 seeds ended in error") || !strings.Contains(errs, `edge "A" → "B" (RELATES)`) {
			t.Errorf("%s: stderr %q", format, errs)
		}
	}
	if code, _, errs := run(t, "explore", "--graph", p, "--seed", "Z"); code != 0 {
		t.Errorf("a seed without failure: exit %d (%s)", code, errs)
	}
}

// TestExploreServerKilledExitsOne: on a real Neo4j holding the demo graph,
// the source is connected, then the server is killed, then two seeds
// (N2006 and N2003) are explored with no retries. Each seed's first query
// finds no server, so both end in error; explore prints both results
// (json, terminated_reason "error") and returns the error that Main turns
// into exit code 1 (TestExploreFailedSeedExitsOne checks that mapping),
// saying "2 of 2 seeds ended in error".
func TestExploreServerKilledExitsOne(t *testing.T) {
	srv := neo4jtest.New(t, neo4jtest.Own())
	mustLoad(t, srv)
	ctx := context.Background()
	src, err := neo4jdb.Connect(ctx, neo4jdb.Settings{URI: srv.URI, Username: srv.Username, Password: srv.Password})
	if err != nil {
		t.Fatal(err)
	}
	defer src.Close(ctx)
	backend, err := backendFor(src, graph.RelFilter{})
	if err != nil {
		t.Fatal(err)
	}
	r, err := activation.New(backend, activation.DefaultParams(), activation.Options{})
	if err != nil {
		t.Fatal(err)
	}
	if err := srv.Kill(); err != nil {
		t.Fatal(err)
	}
	var out bytes.Buffer
	err = explore(ctx, r, []retriever.Seed{{NodeID: "N2006", Score: 0.85}, {NodeID: "N2003", Score: 1}}, nil, exploreOutput{format: "json"}, &out)
	if err == nil || !strings.Contains(err.Error(), "explore: 2 of 2 seeds ended in error") {
		t.Fatalf("explore returned %v", err)
	}
	if n := strings.Count(out.String(), `"terminated_reason":"error"`); n != 2 {
		t.Errorf("%d results marked error, want 2:\n%s", n, out.String())
	}
}

// TestParseSeedTakesIDsAsWritten: the text after the last '=' is a score
// only when it is a decimal number; ids keep their spaces.
//
// Expected: "N2006=0.85" → (N2006, 0.85); "id=with=eq" → ("id=with=eq", 1)
// (the suffix "eq" is no number); "a=1=0.5" → ("a=1", 0.5); " N2006 " →
// (" N2006 ", 1) — spaces kept; "x=.5" → (x, 0.5); "x=2e-1" → (x, 0.2);
// "k=v=inf" → ("k=v=inf", 1) (inf is not written as a decimal).
// Why: ids are data (docs/ARCHITECTURE.md, untrusted text); a seed id that
// contains '=' or spaces must still be reachable.
func TestParseSeedTakesIDsAsWritten(t *testing.T) {
	for in, want := range map[string]retriever.Seed{
		"N2006=0.85": {NodeID: "N2006", Score: 0.85},
		"id=with=eq": {NodeID: "id=with=eq", Score: 1},
		"a=1=0.5":    {NodeID: "a=1", Score: 0.5},
		" N2006 ":    {NodeID: " N2006 ", Score: 1},
		"x=.5":       {NodeID: "x", Score: 0.5},
		"x=2e-1":     {NodeID: "x", Score: 0.2},
		"k=v=inf":    {NodeID: "k=v=inf", Score: 1},
	} {
		got, err := ParseSeed(in)
		if err != nil || got != want {
			t.Errorf("ParseSeed(%q) = %+v, %v; want %+v", in, got, err, want)
		}
	}
}

// TestExploreCypherFastAndSeed: on a real Neo4j holding the demo graph plus
// an unindexed (:Orphan {id: "O1"}), `explore --cypher fast` (the default)
// and `--cypher seed` print byte-identical JSON for scenario A
// (docs/DEMO_GRAPH.md); the fast path says once on stderr that Orphan has
// no id index, with the statement that adds it; the seed's Cypher says
// nothing (it scans anyway). --cypher on a file is a usage error.
func TestExploreCypherFastAndSeed(t *testing.T) {
	srv, d := freshServer(t)
	mustLoad(t, srv)
	if _, err := neo4j.ExecuteQuery(context.Background(), d, `CREATE (:Orphan {id: "O1"})`, nil, neo4j.EagerResultTransformer); err != nil {
		t.Fatal(err)
	}
	args := append(slices.Clone(scenarioA), "--uri", srv.URI)
	code, fast, errs := runIn(t, serverSession(srv), args...)
	if code != 0 || strings.Count(errs, "CREATE INDEX idx_orphan_id IF NOT EXISTS FOR (n:Orphan) ON (n.id)") != 1 {
		t.Fatalf("fast: exit %d, stderr %q", code, errs)
	}
	code, seed, errs := runIn(t, serverSession(srv), append(args, "--cypher", "seed")...)
	if code != 0 || errs != "" {
		t.Fatalf("seed: exit %d, stderr %q", code, errs)
	}
	if fast != seed || !strings.Contains(fast, `"terminated_reason":"frontier_exhausted"`) {
		t.Errorf("fast and seed differ:\n%s\n%s", fast, seed)
	}
	if code, _, errs := run(t, "explore", "--seed", "N2006", "--cypher", "seed"); code != 2 || !strings.Contains(errs, "--cypher seed applies to Neo4j only") {
		t.Errorf("--cypher on the demo graph: exit %d, %q", code, errs)
	}
}

// TestExploreTraceScenarioA: docs/DEMO_GRAPH.md scenario A (N2006, R 0.85,
// its four tags) with --trace. Worked by hand for N2005 (reached at level 1
// with T = 0.069328125, d(N2005) = 3: N2006 visited, N2007 and N2012):
//
//	N2005→N2007: w 0.4, tags {supplier, lead_time}, none shared: tag_sim
//	0.15; T = 0.069328125 × 0.4 / √3 × 0.15 = 0.0024016 ≤ 0.005
//	N2005→N2012: no weight (0.01), tag_sim 0.15 + 0.85 × 1/5 = 0.32;
//	T = 0.069328125 × 0.01 / √3 × 0.32 = 0.00012809
//
// so level 2 lists both as below_threshold (best first), the parents entry
// of N2005 is {degree 3, below_threshold 2, visited 1}, and the path
// N2006→N2005 ends below_threshold with the tree saying "best N2007
// T=0.002402, 48% of 0.005" (0.0024016 / 0.005 = 48%). Without --trace the
// JSON is as before: end_reason no_candidates, no near_miss, no levels.
func TestExploreTraceScenarioA(t *testing.T) {
	code, out, errs := run(t, append(slices.Clone(scenarioA), "--trace")...)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errs)
	}
	var res struct {
		Levels []struct {
			Depth      int
			Candidates []struct {
				ParentID       string  `json:"parent_id"`
				NeighborID     string  `json:"neighbor_id"`
				TransferEnergy float64 `json:"transfer_energy"`
				Fate           string
			}
			Parents map[string]struct {
				Degree  int64 `json:"degree"`
				Below   int   `json:"below_threshold"`
				Visited int   `json:"visited"`
			}
		}
	}
	if err := json.Unmarshal([]byte(out), &res); err != nil {
		t.Fatalf("%v: %s", err, out)
	}
	if len(res.Levels) < 2 {
		t.Fatalf("%d levels", len(res.Levels))
	}
	var below []string
	for _, c := range res.Levels[1].Candidates {
		if c.ParentID == "N2005" && c.Fate == "below_threshold" {
			below = append(below, fmt.Sprintf("%s %.7f", c.NeighborID, c.TransferEnergy))
		}
	}
	if want := []string{"N2007 0.0024016", "N2012 0.0001281"}; !slices.Equal(below, want) {
		t.Errorf("N2005's near misses %v, want %v", below, want)
	}
	if p := res.Levels[1].Parents["N2005"]; p.Degree != 3 || p.Below != 2 || p.Visited != 1 {
		t.Errorf("N2005's tally %+v", p)
	}
	_, plain, _ := run(t, scenarioA...)
	if strings.Contains(plain, "levels") || strings.Contains(plain, "near_miss") || strings.Contains(plain, "below_threshold") ||
		strings.Count(plain, `"end_reason":"no_candidates"`) != 3 {
		t.Errorf("plain JSON changed: %s", plain)
	}
	_, tree, _ := run(t, append(slices.Clone(scenarioA), "--format", "tree")...)
	if !strings.Contains(tree, "[end: below threshold: best N2007 T=0.002402, 48% of 0.005]") {
		t.Errorf("tree:\n%s", tree)
	}
	if code, _, errs := run(t, append(slices.Clone(scenarioA), "--trace", "--format", "tree")...); code != 2 || !strings.Contains(errs, "--trace needs --format json") {
		t.Errorf("--trace with tree: exit %d %q", code, errs)
	}
}
