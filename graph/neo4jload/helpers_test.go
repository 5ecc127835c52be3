package neo4jload

import (
	"context"
	"testing"

	"github.com/memoria-graph/memoria/graph/apoc"
	"github.com/memoria-graph/memoria/graph/neo4jdb"
	"github.com/memoria-graph/memoria/testkit/neo4jfix"
	"github.com/memoria-graph/memoria/testkit/neo4jtest"
)

// The tests that need a server share it as testkit/neo4jfix says.
func TestMain(m *testing.M) { neo4jtest.Main(m) }

// fx is the shared server, loaded with Load (fx.Load returns its
// LoadStats).
var fx = neo4jfix.New(func(ctx context.Context, src *neo4jdb.Source, g *apoc.Graph) (LoadStats, error) {
	return Load(ctx, src, g, LoadOptions{Wipe: true})
})

// Query tags of scenario A (docs/DEMO_GRAPH.md).
var tagsA = []string{"demand_forecasting", "stockout", "safety_stock", "inventory_policy"}
