package neo4jdb_test

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/neo4j/neo4j-go-driver/v5/neo4j"

	"github.com/memoria-graph/memoria/graph/apoc"
	"github.com/memoria-graph/memoria/graph/neo4jdb"
	"github.com/memoria-graph/memoria/graph/neo4jload"
	"github.com/memoria-graph/memoria/internal/testkit/neo4jtest"
	"github.com/memoria-graph/memoria/retriever"
	"github.com/memoria-graph/memoria/retriever/activation"
	"github.com/memoria-graph/memoria/retriever/activation/onneo4j"
)

// The tests that need a server are in package neo4jdb_test: they load
// graphs with graph/neo4jload and expand with
// retriever/activation/onneo4j, which both import neo4jdb.
//
// Tests on the shared server run one after another (none calls t.Parallel):
// they replace its data. With NEO4J_URI set, they need
// MEMORIA_TEST_ALLOW_WIPE=1 (neo4jtest.Server.WipeAllowed), and the package
// takes turns on that server with other test processes (neo4jtest.Shared).
func TestMain(m *testing.M) { neo4jtest.Main(m) }

const demoPath = "../../testdata/demo.jsonl"

// loaded names what the shared server holds ("demo" or "" for anything else).
var loaded string

func demoGraph(t testing.TB) *apoc.Graph {
	t.Helper()
	g, err := apoc.ParseFile(demoPath)
	if err != nil {
		t.Fatal(err)
	}
	return g
}

// sharedDriver returns a driver for the shared server (closed after the
// test), failing the test when the server may not be wiped.
func sharedDriver(t testing.TB) neo4j.DriverWithContext {
	t.Helper()
	srv := neo4jtest.Shared(t)
	if err := srv.WipeAllowed(); err != nil {
		t.Fatal(err)
	}
	return srv.Driver(t)
}

// demoSource makes sure the shared server holds exactly the demo graph and
// returns a Source on it. Its driver is closed after the test.
func demoSource(t testing.TB) *neo4jdb.Source {
	t.Helper()
	d := sharedDriver(t)
	if loaded != "demo" {
		loaded = ""
		if _, err := neo4jload.Load(context.Background(), neo4jdb.NewSource(d, "", ""), demoGraph(t), neo4jload.LoadOptions{Wipe: true}); err != nil {
			t.Fatalf("Load: %v", err)
		}
		loaded = "demo"
	}
	return neo4jdb.NewSource(d, "", "")
}

// cypher runs a write query directly (to build graphs Load would reject).
func cypher(t testing.TB, d neo4j.DriverWithContext, q string, params map[string]any) []*neo4j.Record {
	t.Helper()
	loaded = ""
	res, err := neo4j.ExecuteQuery(context.Background(), d, q, params, neo4j.EagerResultTransformer)
	if err != nil {
		t.Fatalf("%s: %v", q, err)
	}
	return res.Records
}

// openConn opens the Neo4j expansion (one read session) on src, released
// after the test.
func openConn(t testing.TB, src *neo4jdb.Source) activation.Expander {
	t.Helper()
	c, release, err := onneo4j.New(src).Open(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = release(context.Background()) })
	return c
}

// expandReq builds a request whose visited set is the frontier plus extra.
func expandReq(frontier map[string]float64, visited []string, tags []string, minAct, floor float64) activation.ExpandRequest {
	req := activation.ExpandRequest{Visited: map[string]struct{}{}, QueryTags: retriever.NormalizeTags(tags), MinActivation: minAct, TagSimFloor: floor}
	for id, r := range frontier {
		req.Frontier = append(req.Frontier, activation.FrontierInput{NodeID: id, Activation: r})
		req.Visited[id] = struct{}{}
	}
	for _, id := range visited {
		req.Visited[id] = struct{}{}
	}
	return req
}

func expand(t testing.TB, c activation.Expander, req activation.ExpandRequest) []activation.Candidate {
	t.Helper()
	cands, err := c.ExpandFrontier(context.Background(), req)
	if err != nil {
		t.Fatalf("ExpandFrontier: %v", err)
	}
	return cands
}

func candList(cands []activation.Candidate) string {
	var b strings.Builder
	for _, c := range cands {
		fmt.Fprintf(&b, "\n  %s -> %s d=%d ts=%v T=%v", c.ParentID, c.NeighborNode.ID, c.Degree, c.TagSim, c.TransferEnergy)
	}
	return b.String()
}

// sameSlot reports whether a and b tie on ExpandQuery's ORDER BY keys.
func sameSlot(a, b activation.Candidate) bool {
	return a.ParentID == b.ParentID && a.TransferEnergy == b.TransferEnergy && a.NeighborNode.ID == b.NeighborNode.ID
}

// exploreWithLevels explores seeds on backend and collects, per seed, the
// result and the level events.
func exploreWithLevels(t testing.TB, backend activation.Backend, cfg activation.Params, seeds []retriever.Seed, tags []string) ([]activation.Result, [][]activation.LevelEvent) {
	t.Helper()
	g, err := activation.New(backend, cfg, activation.DefaultOptions())
	if err != nil {
		t.Fatal(err)
	}
	ch, err := g.Explore(context.Background(), seeds, tags)
	if err != nil {
		t.Fatal(err)
	}
	results := make([]activation.Result, len(seeds))
	levels := make([][]activation.LevelEvent, len(seeds))
	for ev := range ch {
		switch ev.Kind {
		case activation.EventLevel:
			levels[ev.SeedIndex] = append(levels[ev.SeedIndex], *ev.Level)
		case activation.EventResult:
			results[ev.SeedIndex] = *ev.Result
		}
	}
	return results, levels
}
