package onneo4j

import (
	"context"
	"fmt"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/neo4j/neo4j-go-driver/v5/neo4j"

	"github.com/memoria-graph/memoria/graph/apoc"
	"github.com/memoria-graph/memoria/graph/neo4jdb"
	"github.com/memoria-graph/memoria/graph/neo4jload"
	"github.com/memoria-graph/memoria/internal/testkit/neo4jtest"
	"github.com/memoria-graph/memoria/retriever"
	"github.com/memoria-graph/memoria/retriever/activation"
)

// Tests on the shared server run one after another (none calls t.Parallel):
// they replace its data. With NEO4J_URI set, they need
// MEMORIA_TEST_ALLOW_WIPE=1 (neo4jtest.Server.WipeAllowed), and the package
// takes turns on that server with other test processes (neo4jtest.Shared).
func TestMain(m *testing.M) { neo4jtest.Main(m) }

const demoPath = "../../../testdata/demo.jsonl"

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
		loadInto(t, d, demoGraph(t))
		loaded = "demo"
	}
	return neo4jdb.NewSource(d, "", "")
}

// graphSource wipes the shared server, loads g and returns a Source on it.
func graphSource(t testing.TB, g *apoc.Graph) *neo4jdb.Source {
	t.Helper()
	d := sharedDriver(t)
	loadInto(t, d, g)
	return neo4jdb.NewSource(d, "", "")
}

func loadInto(t testing.TB, d neo4j.DriverWithContext, g *apoc.Graph) neo4jload.LoadStats {
	t.Helper()
	loaded = ""
	st, err := neo4jload.Load(context.Background(), neo4jdb.NewSource(d, "", ""), g, neo4jload.LoadOptions{Wipe: true})
	if err != nil {
		t.Fatalf("Load: %v", err)
	}
	return st
}

// openConn opens an expander (one read session) on src, released after
// the test.
func openConn(t testing.TB, src *neo4jdb.Source) *neo4jExpander {
	t.Helper()
	c, release, err := New(src).Open(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = release(context.Background()) })
	return c.(*neo4jExpander)
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

func expand(t testing.TB, c *neo4jExpander, req activation.ExpandRequest) []activation.Candidate {
	t.Helper()
	cands, err := c.ExpandFrontier(context.Background(), req)
	if err != nil {
		t.Fatalf("ExpandFrontier: %v", err)
	}
	return cands
}

// find returns the candidates from parent to neighbour.
func find(cands []activation.Candidate, parent, neighbor string) []activation.Candidate {
	var out []activation.Candidate
	for _, c := range cands {
		if c.ParentID == parent && c.NeighborNode.ID == neighbor {
			out = append(out, c)
		}
	}
	return out
}

func one(t testing.TB, cands []activation.Candidate, parent, neighbor string) activation.Candidate {
	t.Helper()
	got := find(cands, parent, neighbor)
	if len(got) != 1 {
		t.Fatalf("want one candidate %s -> %s, got %d among %s", parent, neighbor, len(got), candList(cands))
	}
	return got[0]
}

func candList(cands []activation.Candidate) string {
	var b strings.Builder
	for _, c := range cands {
		fmt.Fprintf(&b, "\n  %s -> %s d=%d ts=%v T=%v", c.ParentID, c.NeighborNode.ID, c.Degree, c.TagSim, c.TransferEnergy)
	}
	return b.String()
}

func pathIDs(res activation.Result) []string {
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
