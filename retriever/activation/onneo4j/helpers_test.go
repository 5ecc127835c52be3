package onneo4j

import (
	"context"
	"runtime"
	"testing"
	"time"

	"github.com/memoria-graph/memoria/graph/apoc"
	"github.com/memoria-graph/memoria/graph/neo4jdb"
	"github.com/memoria-graph/memoria/graph/neo4jload"
	"github.com/memoria-graph/memoria/retriever/activation"
	"github.com/memoria-graph/memoria/testkit/neo4jfix"
	"github.com/memoria-graph/memoria/testkit/neo4jtest"
)

// The tests that need a server share it as testkit/neo4jfix says.
func TestMain(m *testing.M) { neo4jtest.Main(m) }

// fx is the shared server, loaded with neo4jload.
var fx = neo4jfix.New(func(ctx context.Context, src *neo4jdb.Source, g *apoc.Graph) (neo4jload.LoadStats, error) {
	return neo4jload.Load(ctx, src, g, neo4jload.LoadOptions{Wipe: true})
})

// openConn opens this package's expander (one read session) on src,
// released after the test.
func openConn(t testing.TB, src *neo4jdb.Source) *neo4jExpander {
	t.Helper()
	return neo4jfix.Open(t, New(src)).(*neo4jExpander)
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
		t.Fatalf("want one candidate %s -> %s, got %d among %s", parent, neighbor, len(got), neo4jfix.CandList(cands))
	}
	return got[0]
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
