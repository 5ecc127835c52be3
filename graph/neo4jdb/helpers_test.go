package neo4jdb_test

import (
	"context"
	"testing"

	"github.com/memoria-graph/memoria/graph/apoc"
	"github.com/memoria-graph/memoria/graph/neo4jdb"
	"github.com/memoria-graph/memoria/graph/neo4jload"
	"github.com/memoria-graph/memoria/testkit/neo4jfix"
	"github.com/memoria-graph/memoria/testkit/neo4jtest"
)

// The tests that need a server are in package neo4jdb_test: they load
// graphs with graph/neo4jload and expand with
// retriever/activation/onneo4j, which both import neo4jdb. They share the
// server as testkit/neo4jfix says.
func TestMain(m *testing.M) { neo4jtest.Main(m) }

// fx is the shared server, loaded with neo4jload.
var fx = neo4jfix.New(func(ctx context.Context, src *neo4jdb.Source, g *apoc.Graph) (neo4jload.LoadStats, error) {
	return neo4jload.Load(ctx, src, g, neo4jload.LoadOptions{Wipe: true})
})
