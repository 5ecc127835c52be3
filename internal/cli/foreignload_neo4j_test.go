package cli

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// TestForeignGraphsLoadIntoNeo4j: issue 33's round trip. `memoria export
// --format jsonl` of GraphRAG's real output folder (testdata/graphrag/dulce,
// read as --schema graphrag: nodes keyed by title) and of LightRAG's real
// GraphML (testdata/graphml/lightrag-lollms.graphml, read as --schema
// lightrag: nodes keyed by entity_id, filled from the GraphML node id) writes
// each node's key as its id too, so `memoria load` takes the file; the
// database then holds as many nodes and relationships as the file has
// lines of each (56 and 215 for dulce: 39 entities, 2 titles only
// relationships name, 10 communities, 5 text units; 107 RELATES, 49
// IN_COMMUNITY, 59 MENTIONS), and each of the four retrievers ranks on Neo4j
// under the same schema exactly as on the embedded engine reading the
// original file (the ranking JSON, scores in full precision). Without the
// id the load refuses the export (every node needs an id property).
func TestForeignGraphsLoadIntoNeo4j(t *testing.T) {
	srv, d := freshServer(t)
	cases := []struct {
		name, file string
		seed       string
		neo4j      []string // the schema flags that read the loaded graph
	}{
		{"graphrag", "../../testdata/graphrag/dulce", "ALEX MERCER=0.9", []string{"--schema", "graphrag"}},
		// GraphML has no label base nor type DIRECTED: the flags say what
		// the GraphML reader chose by itself (internal/cli/graphmlsource.go).
		{"lightrag", "../../testdata/graphml/lightrag-lollms.graphml", `"GPT4ALL"=0.9`,
			[]string{"--schema", "lightrag", "--traverse-types", "RELATES", "--node-label", ""}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			code, out, errs := run(t, "export", "--graph", c.file, "--format", "jsonl")
			if code != 0 {
				t.Fatalf("export: exit %d: %s", code, errs)
			}
			if !strings.Contains(errs, "written as its id too") {
				t.Errorf("export says nothing of the id it wrote: %s", errs)
			}
			path := filepath.Join(t.TempDir(), c.name+".jsonl")
			if err := os.WriteFile(path, []byte(out), 0o600); err != nil {
				t.Fatal(err)
			}
			code, _, errs = runIn(t, serverSession(srv), "load", path, "--uri", srv.URI, "--wipe", "--yes")
			if code != 0 {
				t.Fatalf("load: exit %d: %s", code, errs)
			}
			wantNodes := int64(strings.Count(out, `{"type":"node"`))
			wantRels := int64(strings.Count(out, `{"type":"relationship"`))
			if c.name == "graphrag" && (wantNodes != 56 || wantRels != 215) {
				t.Errorf("the export holds %d nodes, %d relationships; want 56, 215", wantNodes, wantRels)
			}
			if n, r := counts(t, d); n != wantNodes || r != wantRels {
				t.Errorf("Neo4j holds %d nodes, %d relationships; the file %d, %d", n, r, wantNodes, wantRels)
			}
			for _, ret := range []string{"activation", "expansion", "spreading", "ppr"} {
				args := []string{"explore", "--retriever", ret, "--seed", c.seed, "--format", "ranking"}
				code, embedded, errs := run(t, append(slices.Clone(args), "--graph", c.file)...)
				if code != 0 {
					t.Fatalf("%s embedded: exit %d: %s", ret, code, errs)
				}
				code, onNeo4j, errs := runIn(t, serverSession(srv), append(append(slices.Clone(args), c.neo4j...), "--uri", srv.URI)...)
				if code != 0 {
					t.Fatalf("%s on Neo4j: exit %d: %s", ret, code, errs)
				}
				if onNeo4j != embedded || strings.Count(embedded, `"node_id"`) < 3 {
					t.Errorf("%s: Neo4j ranks\n%s\nthe embedded engine\n%s", ret, onNeo4j, embedded)
				}
			}
		})
	}
}
