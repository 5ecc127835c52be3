package neo4jgraph

import (
	"context"
	"fmt"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/neo4j/neo4j-go-driver/v5/neo4j"

	"github.com/memoria-graph/memoria/internal/neo4jtest"
	"github.com/memoria-graph/memoria/retriever"
	"github.com/memoria-graph/memoria/retriever/apoc"
)

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
func demoSource(t testing.TB) *Source {
	t.Helper()
	d := sharedDriver(t)
	if loaded != "demo" {
		loadInto(t, d, demoGraph(t))
		loaded = "demo"
	}
	return NewSource(d, "", "")
}

// graphSource wipes the shared server, loads g and returns a Source on it.
func graphSource(t testing.TB, g *apoc.Graph) *Source {
	t.Helper()
	d := sharedDriver(t)
	loadInto(t, d, g)
	return NewSource(d, "", "")
}

func loadInto(t testing.TB, d neo4j.DriverWithContext, g *apoc.Graph) LoadStats {
	t.Helper()
	loaded = ""
	st, err := Load(context.Background(), d, "", g, LoadOptions{Wipe: true})
	if err != nil {
		t.Fatalf("Load: %v", err)
	}
	return st
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

// openConn opens a connector on src, released after the test.
func openConn(t testing.TB, src *Source) *connector {
	t.Helper()
	c, release, err := src.Open(context.Background(), "")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = release(context.Background()) })
	return c.(*connector)
}

// expandReq builds a request whose visited set is the frontier plus extra.
func expandReq(frontier map[string]float64, visited []string, tags []string, minAct, floor float64) retriever.ExpandRequest {
	req := retriever.ExpandRequest{Visited: map[string]struct{}{}, QueryTags: retriever.NormalizeTags(tags), MinActivation: minAct, TagSimFloor: floor}
	for id, r := range frontier {
		req.Frontier = append(req.Frontier, retriever.FrontierInput{NodeID: id, Activation: r})
		req.Visited[id] = struct{}{}
	}
	for _, id := range visited {
		req.Visited[id] = struct{}{}
	}
	return req
}

func expand(t testing.TB, c *connector, req retriever.ExpandRequest) []retriever.ExpansionCandidate {
	t.Helper()
	cands, err := c.ExpandFrontier(context.Background(), req)
	if err != nil {
		t.Fatalf("ExpandFrontier: %v", err)
	}
	return cands
}

// find returns the candidates from parent to neighbour.
func find(cands []retriever.ExpansionCandidate, parent, neighbor string) []retriever.ExpansionCandidate {
	var out []retriever.ExpansionCandidate
	for _, c := range cands {
		if c.ParentID == parent && c.NeighborNode.ID == neighbor {
			out = append(out, c)
		}
	}
	return out
}

func one(t testing.TB, cands []retriever.ExpansionCandidate, parent, neighbor string) retriever.ExpansionCandidate {
	t.Helper()
	got := find(cands, parent, neighbor)
	if len(got) != 1 {
		t.Fatalf("want one candidate %s -> %s, got %d among %s", parent, neighbor, len(got), candList(cands))
	}
	return got[0]
}

func candList(cands []retriever.ExpansionCandidate) string {
	var b strings.Builder
	for _, c := range cands {
		fmt.Fprintf(&b, "\n  %s -> %s d=%d ts=%v T=%v", c.ParentID, c.NeighborNode.ID, c.Degree, c.TagSim, c.TransferEnergy)
	}
	return b.String()
}

func pathIDs(res retriever.RetrievalResult) []string {
	var out []string
	for _, p := range res.Paths {
		out = append(out, strings.Join(p.NodeIDs(), " > "))
	}
	return out
}

// goroutineBaseline returns a check that, after the test's drivers are
// closed, the number of goroutines is back to what it was (polling, as the
// driver's goroutines end asynchronously).
func goroutineBaseline(t *testing.T) func() {
	t.Helper()
	before := runtime.NumGoroutine()
	return func() {
		t.Helper()
		deadline := time.Now().Add(10 * time.Second)
		for {
			now := runtime.NumGoroutine()
			if now <= before {
				return
			}
			if time.Now().After(deadline) {
				buf := make([]byte, 1<<20)
				buf = buf[:runtime.Stack(buf, true)]
				t.Errorf("goroutines leaked: %d before, %d after\n%s", before, now, buf)
				return
			}
			time.Sleep(20 * time.Millisecond)
		}
	}
}

// levelEvents collects, per seed, the level events of an exploration.
func exploreWithLevels(t testing.TB, backend retriever.Backend, cfg retriever.Config, seeds []retriever.SeedInput, tags []string) ([]retriever.RetrievalResult, [][]retriever.LevelEvent) {
	t.Helper()
	g, err := retriever.New(backend, cfg)
	if err != nil {
		t.Fatal(err)
	}
	ch, err := g.Explore(context.Background(), seeds, tags)
	if err != nil {
		t.Fatal(err)
	}
	results := make([]retriever.RetrievalResult, len(seeds))
	levels := make([][]retriever.LevelEvent, len(seeds))
	for ev := range ch {
		switch ev.Kind {
		case retriever.EventLevel:
			levels[ev.SeedIndex] = append(levels[ev.SeedIndex], *ev.Level)
		case retriever.EventResult:
			results[ev.SeedIndex] = *ev.Result
		}
	}
	return results, levels
}
