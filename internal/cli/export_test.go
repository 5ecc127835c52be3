package cli

import (
	"bytes"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/memoria-graph/memoria/testkit/golden"

	"github.com/memoria-graph/memoria/graph/apoc"
)

const demoCypherPath = "../../testdata/demo.cypher"

// TestExportJSONLRoundTrip: `memoria export` (jsonl is the default) of the
// demo graph, and `memoria export --graph FILE` of that output, parse back
// to exactly the graph apoc.Parse reads from testdata/demo.jsonl: the same
// 57 nodes and 69 relationships in file order, with the same internal ids,
// labels and typed property values (apoc.Write keeps floats floats and ints
// ints, so DeepEqual holds).
func TestExportJSONLRoundTrip(t *testing.T) {
	want, err := apoc.Parse(bytes.NewReader(demo(t)))
	if err != nil {
		t.Fatal(err)
	}
	code, out, errs := run(t, "export")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errs)
	}
	got, err := apoc.Parse(strings.NewReader(out))
	if err != nil {
		t.Fatal(err)
	}
	if len(got.Nodes) != 57 || len(got.Rels) != 69 || !reflect.DeepEqual(got, want) {
		t.Fatalf("export of the demo graph differs from it (%d nodes, %d rels)", len(got.Nodes), len(got.Rels))
	}
	p := filepath.Join(t.TempDir(), "demo.jsonl")
	if err := os.WriteFile(p, []byte(out), 0o644); err != nil {
		t.Fatal(err)
	}
	code, out2, errs := run(t, "export", "--graph", p, "--format", "jsonl")
	if code != 0 || out2 != out {
		t.Fatalf("export --graph of the export: exit %d, same output %v, stderr %s", code, out2 == out, errs)
	}
}

// TestDemoCypherUpToDate: testdata/demo.cypher is exactly what `memoria
// export --format cypher` prints for the embedded demo graph (regenerate
// with go test ./internal/cli -run TestDemoCypherUpToDate -update). It holds
// the six label indexes of docs/ALGORITHM.md "Indexes" (with the label UserPreference
// spelled in full), 57 node CREATEs and 69 relationship MATCH ... CREATEs,
// one per line.
func TestDemoCypherUpToDate(t *testing.T) {
	code, out, errs := run(t, "export", "--format", "cypher")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errs)
	}
	golden.Check(t, demoCypherPath, out)
	var idx, nodes, rels int
	for _, l := range strings.Split(out, "\n") {
		switch {
		case strings.HasPrefix(l, "CREATE INDEX "):
			idx++
		case strings.HasPrefix(l, "CREATE ("):
			nodes++
		case strings.HasPrefix(l, "MATCH (a:"):
			rels++
		}
	}
	if idx != 6 || nodes != 57 || rels != 69 || !strings.Contains(out, "CREATE INDEX idx_userpreference_id IF NOT EXISTS FOR (n:UserPreference) ON (n.id);") {
		t.Errorf("%d indexes, %d node and %d relationship statements; want 6, 57, 69", idx, nodes, rels)
	}
}

// TestExportUsageErrors: an unknown format, two sources and a stray
// argument exit 2 naming the mistake; a missing --graph file exits 1
// naming the file. Nothing goes to stdout.
func TestExportUsageErrors(t *testing.T) {
	for _, c := range []struct {
		args []string
		code int
		want string
	}{
		{[]string{"export", "--format", "xml"}, 2, `"xml"`},
		{[]string{"export", "--graph", "x.jsonl", "--uri", "bolt://h:1"}, 2, "choose one"},
		{[]string{"export", "demo.jsonl"}, 2, `"demo.jsonl"`},
		{[]string{"export", "--uri", "http://h:7474"}, 2, `scheme "http"`},
		{[]string{"export", "--graph", filepath.Join(t.TempDir(), "missing.jsonl")}, 1, "missing.jsonl"},
	} {
		code, out, errs := run(t, c.args...)
		if code != c.code || !strings.Contains(errs, c.want) || out != "" {
			t.Errorf("%v: exit %d, stdout %q, stderr %q; want %d and %q", c.args, code, out, errs, c.code, c.want)
		}
	}
}

// TestExportHelp: export --help and load --help name their flags, exit 0.
func TestExportHelp(t *testing.T) {
	code, out, _ := run(t, "export", "--help")
	for _, f := range []string{"-format", "-graph", "-uri", "-username", "-database", "cypher-shell"} {
		if code != 0 || !strings.Contains(out, f) {
			t.Errorf("export --help (exit %d) lacks %s", code, f)
		}
	}
	code, out, _ = run(t, "load", "--help")
	for _, f := range []string{"-batch", "-wipe", "-yes", "-uri", "-username", "-database", "NEO4J_PASSWORD"} {
		if code != 0 || !strings.Contains(out, f) {
			t.Errorf("load --help (exit %d) lacks %s", code, f)
		}
	}
}
