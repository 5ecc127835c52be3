// Package neo4jfix is what the Neo4j-backed tests of graph/neo4jdb,
// graph/neo4jload and retriever/activation/onneo4j share: the shared test
// server (testkit/neo4jtest) with a fixture graph loaded on it,
// direct Cypher for graphs the loader would refuse, and the helpers that
// expand and explore on it.
//
// Tests on the shared server run one after another (none calls
// t.Parallel): they replace its data. With NEO4J_URI set they need
// MEMORIA_TEST_ALLOW_WIPE=1 (neo4jtest.Server.WipeAllowed), and the package
// takes turns on that server with other test processes (neo4jtest.Shared).
//
// It imports neither graph/neo4jload nor retriever/activation/onneo4j, so
// that their own (internal) tests can use it: the loader is passed to New,
// the expansion to Open.
//
// Typical use:
//
//	func TestMain(m *testing.M) { neo4jtest.Main(m) }
//
//	var fx = neo4jfix.New(func(ctx context.Context, src *neo4jdb.Source, g *apoc.Graph) (neo4jload.LoadStats, error) {
//		return neo4jload.Load(ctx, src, g, neo4jload.LoadOptions{Wipe: true})
//	})
//
//	func TestSomething(t *testing.T) {
//		src := fx.Demo(t) // the demo graph, loaded once for the package
//		...
//	}
package neo4jfix

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/neo4j/neo4j-go-driver/v5/neo4j"

	"github.com/memoria-graph/memoria/graph"
	"github.com/memoria-graph/memoria/graph/apoc"
	"github.com/memoria-graph/memoria/graph/neo4jdb"
	"github.com/memoria-graph/memoria/retriever"
	"github.com/memoria-graph/memoria/retriever/activation"
	"github.com/memoria-graph/memoria/testkit/neo4jtest"
)

// Loader replaces whatever the database behind src holds with g (a wiping
// neo4jload.Load) and returns what it reports.
type Loader[S any] func(ctx context.Context, src *neo4jdb.Source, g *apoc.Graph) (S, error)

// Fixture is a test package's hold on the shared server: its loader, and
// which graph the server holds, so that the demo graph is loaded once and
// not again until a test changes the data.
type Fixture[S any] struct {
	load   Loader[S]
	loaded string // "demo", or "" for anything else
}

// New returns the fixture of a test package (one per package, in a
// package variable) that loads graphs with load.
func New[S any](load Loader[S]) *Fixture[S] { return &Fixture[S]{load: load} }

// Driver returns a driver for the shared server (closed after the test),
// failing the test when the server may not be wiped.
func (f *Fixture[S]) Driver(t testing.TB) neo4j.DriverWithContext {
	t.Helper()
	srv := neo4jtest.Shared(t)
	if err := srv.WipeAllowed(); err != nil {
		t.Fatal(err)
	}
	return srv.Driver(t)
}

// Demo makes sure the shared server holds exactly the demo graph
// (testdata/demo.jsonl) and returns a Source on it. Its driver is closed
// after the test.
func (f *Fixture[S]) Demo(t testing.TB) *neo4jdb.Source {
	t.Helper()
	d := f.Driver(t)
	if f.loaded != "demo" {
		f.Load(t, d, DemoGraph(t))
		f.loaded = "demo"
	}
	return neo4jdb.NewSource(d, "", "")
}

// Graph wipes the shared server, loads g and returns a Source on it.
func (f *Fixture[S]) Graph(t testing.TB, g *apoc.Graph) *neo4jdb.Source {
	t.Helper()
	d := f.Driver(t)
	f.Load(t, d, g)
	return neo4jdb.NewSource(d, "", "")
}

// Load replaces the data of d's database with g and returns what the
// loader reports.
func (f *Fixture[S]) Load(t testing.TB, d neo4j.DriverWithContext, g *apoc.Graph) S {
	t.Helper()
	f.loaded = ""
	st, err := f.load(context.Background(), neo4jdb.NewSource(d, "", ""), g)
	if err != nil {
		t.Fatalf("Load: %v", err)
	}
	return st
}

// Cypher runs a write query directly (to build graphs Load would reject);
// the server no longer counts as holding the demo graph.
func (f *Fixture[S]) Cypher(t testing.TB, d neo4j.DriverWithContext, q string, params map[string]any) []*neo4j.Record {
	t.Helper()
	f.loaded = ""
	res, err := neo4j.ExecuteQuery(context.Background(), d, q, params, neo4j.EagerResultTransformer)
	if err != nil {
		t.Fatalf("%s: %v", q, err)
	}
	return res.Records
}

// Changed records that a test changed the server's data some other way,
// so the next Demo loads the demo graph again.
func (f *Fixture[S]) Changed() { f.loaded = "" }

// HoldsDemo records that a test loaded the demo graph itself.
func (f *Fixture[S]) HoldsDemo() { f.loaded = "demo" }

// DemoGraph parses testdata/demo.jsonl of the module.
func DemoGraph(t testing.TB) *apoc.Graph {
	t.Helper()
	g, err := apoc.ParseFile(filepath.Join(moduleRoot(t), "testdata", "demo.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	return g
}

// moduleRoot is the nearest directory above the working directory (a test
// package's own) that holds go.mod.
func moduleRoot(t testing.TB) string {
	t.Helper()
	dir, err := os.Getwd()
	if err != nil {
		t.Fatal(err)
	}
	for {
		if _, err := os.Stat(filepath.Join(dir, "go.mod")); err == nil {
			return dir
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			t.Fatal("neo4jfix: no go.mod above the working directory")
		}
		dir = parent
	}
}

// Open opens an expander of backend (one read session on Neo4j), released
// after the test.
func Open(t testing.TB, backend activation.Backend) activation.Expander {
	t.Helper()
	c, release, err := backend.Open(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = release(context.Background()) })
	return c
}

// ExpandReq builds a request whose visited set is the frontier plus
// visited.
func ExpandReq(frontier map[string]float64, visited []string, tags []string, minAct, floor float64) activation.ExpandRequest {
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

// Expand expands req on c, failing the test on an error.
func Expand(t testing.TB, c activation.Expander, req activation.ExpandRequest) []activation.Candidate {
	t.Helper()
	cands, err := c.ExpandFrontier(context.Background(), req)
	if err != nil {
		t.Fatalf("ExpandFrontier: %v", err)
	}
	return cands
}

// CandList shows candidates one a line, for failure messages.
func CandList(cands []activation.Candidate) string {
	var b strings.Builder
	for _, c := range cands {
		fmt.Fprintf(&b, "\n  %s -> %s d=%d ts=%v T=%v", c.ParentID, c.NeighborNode.ID, c.Degree, c.TagSim, c.TransferEnergy)
	}
	return b.String()
}

// SameSlot reports whether a and b tie on the level query's ORDER BY keys
// (parent, T, neighbour).
func SameSlot(a, b activation.Candidate) bool {
	return a.ParentID == b.ParentID && a.TransferEnergy == b.TransferEnergy && a.NeighborNode.ID == b.NeighborNode.ID
}

// PathIDs is each path of res as its node ids joined by " > ".
func PathIDs(res activation.Result) []string {
	var out []string
	for _, p := range res.Paths {
		out = append(out, strings.Join(p.NodeIDs(), " > "))
	}
	return out
}

// ExploreWithLevels explores seeds on backend and collects, per seed, the
// result and the level events.
func ExploreWithLevels(t testing.TB, backend activation.Backend, cfg activation.Params, seeds []retriever.Seed, tags []string) ([]activation.Result, [][]activation.LevelEvent) {
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

// Scans are the plan operators that read every node, or every node of a
// label: what memoria's indexed queries must never plan.
var Scans = []string{"AllNodesScan", "NodeByLabelScan"}

// PlanOperators EXPLAINs query with params on d (nothing runs) and returns
// the names of its plan's operators, "@neo4j" suffixes cut.
func PlanOperators(t testing.TB, d neo4j.DriverWithContext, query string, params map[string]any) []string {
	t.Helper()
	ctx := context.Background()
	s := d.NewSession(ctx, neo4j.SessionConfig{AccessMode: neo4j.AccessModeRead})
	defer s.Close(ctx)
	res, err := s.Run(ctx, "EXPLAIN "+query, params)
	if err != nil {
		t.Fatalf("EXPLAIN %s: %v", query, err)
	}
	sum, err := res.Consume(ctx)
	if err != nil {
		t.Fatalf("EXPLAIN %s: %v", query, err)
	}
	var ops []string
	var walk func(p neo4j.Plan)
	walk = func(p neo4j.Plan) {
		op, _, _ := strings.Cut(p.Operator(), "@")
		ops = append(ops, op)
		for _, c := range p.Children() {
			walk(c)
		}
	}
	walk(sum.Plan())
	return ops
}

// HasScan reports whether ops (PlanOperators) hold one of Scans.
func HasScan(ops []string) bool {
	for _, op := range ops {
		for _, s := range Scans {
			if op == s {
				return true
			}
		}
	}
	return false
}

// Sent is one query a neighbourhood read sent, as its trace gives it.
type Sent struct {
	Query  string
	Params map[string]any
}

// Plans counts the queries NeighbourhoodPlans saw, by kind.
type Plans struct {
	Around, Lookups, Details, Strengths, Arcs, Facts int
}

// NeighbourhoodPlans EXPLAINs every query of sent on d, failing the test
// when one plans a scan (Scans) or is the scan fallback
// (neo4jdb.NodesScanQuery), and counts them: Around queries, seed lookups,
// Details queries, and RELATES Strengths, Arcs and Facts queries. As a control it checks
// that the scan fallback's query does plan an AllNodesScan (the check can
// fail).
func NeighbourhoodPlans(t testing.TB, d neo4j.DriverWithContext, sent []Sent) Plans {
	t.Helper()
	var n Plans
	for _, s := range sent {
		switch s.Query {
		case neo4jdb.AroundQuery:
			n.Around++
		case neo4jdb.NodeDetailsQuery, neo4jdb.RelDetailsQuery:
			n.Details++
		case neo4jdb.StrengthsQuery(graph.Relates):
			n.Strengths++
		case neo4jdb.ArcsQuery(graph.Relates):
			n.Arcs++
		case neo4jdb.FactsQuery(graph.Relates):
			n.Facts++
		case neo4jdb.NodesScanQuery:
			t.Errorf("the scan fallback ran for %v", s.Params)
		default:
			n.Lookups++
		}
		if ops := PlanOperators(t, d, s.Query, s.Params); HasScan(ops) {
			t.Errorf("%s plans a scan: %v", s.Query, ops)
		}
	}
	if ops := PlanOperators(t, d, neo4jdb.NodesScanQuery, map[string]any{"ids": []string{"N2006"}}); !slices.Contains(ops, "AllNodesScan") {
		t.Errorf("control: the scan query plans %v", ops)
	}
	return n
}
