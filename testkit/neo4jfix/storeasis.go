package neo4jfix

import (
	"context"
	"os"
	"testing"

	"github.com/neo4j/neo4j-go-driver/v5/neo4j"

	"github.com/memoria-graph/memoria/graph/apoc"
	"github.com/memoria-graph/memoria/internal/cypherlit"
)

// StoreAsIs writes the APOC file into the (empty) database exactly as it
// is, whatever its shape (memoria load keys nodes by id, which a LightRAG
// or Graphiti graph has not): each node with its labels and properties,
// each relationship with its type and properties. Labels and types are
// quoted identifiers, properties parameters. The schema mapping tests
// (LightRAG and Graphiti fixtures) store their graphs with it.
func StoreAsIs(t *testing.T, d neo4j.DriverWithContext, file string) {
	t.Helper()
	f, err := os.Open(file)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	g, _, err := apoc.ParseReport(f, apoc.MappedRules)
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	exec := func(q string, params map[string]any) {
		t.Helper()
		if _, err := neo4j.ExecuteQuery(ctx, d, q, params, neo4j.EagerResultTransformer); err != nil {
			t.Fatalf("%s: %v", q, err)
		}
	}
	for _, n := range g.Nodes {
		labels := ""
		for _, l := range n.Labels {
			labels += ":" + cypherlit.QuoteName(l)
		}
		props := map[string]any{}
		for k, v := range n.Properties {
			props[k] = v
		}
		exec("CREATE (n"+labels+") SET n = $props, n.`__memoria_key` = $key", map[string]any{"props": props, "key": n.InternalID})
	}
	for _, r := range g.Rels {
		props := map[string]any{}
		for k, v := range r.Properties {
			props[k] = v
		}
		exec("MATCH (a {`__memoria_key`: $start}), (b {`__memoria_key`: $end}) CREATE (a)-[r:"+cypherlit.QuoteName(r.Type)+"]->(b) SET r = $props",
			map[string]any{"start": r.Start, "end": r.End, "props": props})
	}
	exec("MATCH (n) REMOVE n.`__memoria_key`", nil)
}
