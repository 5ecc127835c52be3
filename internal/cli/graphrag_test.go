package cli

import (
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/parquet-go/parquet-go"

	"github.com/memoria-graph/memoria/graph/apoc"
	pg "github.com/memoria-graph/memoria/testkit/parquetgraph"
)

// dulceFolder is GraphRAG's example output (testdata/graphrag/README.md).
const dulceFolder = "../../testdata/graphrag/dulce"

func readRows[T any](t *testing.T, name string) []T {
	t.Helper()
	rows, err := parquet.ReadFile[T](filepath.Join(dulceFolder, name))
	if err != nil {
		t.Fatal(err)
	}
	return rows
}

// dulceByHand is GraphRAG's example output written in memoria's own shape
// by the test's own reading (parquet-go's row reader into the structs of
// testkit/parquetgraph, not graph/graphrag): each entity a node keyed by
// `id`, its title, labelled by its type; a title a relationship names that
// no entity has, a node with that id; each relationship a RELATES from
// its source's node to its target's with weight the relationship's weight
// divided by scale; each community a node Community keyed by its title
// and each text unit a node TextUnit keyed by its id, linked by
// IN_COMMUNITY from each entity of its entity_ids and by MENTIONS to each.
// That is the graphrag preset's reading as docs/EXPORTS.md states it.
func dulceByHand(t *testing.T, scale float64) *apoc.Graph {
	t.Helper()
	g := &apoc.Graph{}
	node := map[string]string{}   // title → internal id
	entity := map[string]string{} // entity id → internal id
	add := func(id string, labels ...string) string {
		if labels == nil {
			labels = []string{}
		}
		in := strconv.Itoa(len(g.Nodes))
		g.Nodes = append(g.Nodes, apoc.Node{InternalID: in, Labels: labels, Properties: map[string]any{"id": id}})
		node[id] = in
		return in
	}
	for _, e := range readRows[pg.Entity](t, "entities.parquet") {
		entity[*e.ID] = add(*e.Title, *e.Type)
	}
	end := func(title string) string {
		if in, ok := node[title]; ok {
			return in
		}
		return add(title)
	}
	rel := func(typ, start, end string, props map[string]any) {
		g.Rels = append(g.Rels, apoc.Relationship{InternalID: strconv.Itoa(len(g.Rels)), Type: typ, Start: start, End: end, Properties: props})
	}
	for _, r := range readRows[pg.Relationship](t, "relationships.parquet") {
		rel("RELATES", end(*r.Source), end(*r.Target), map[string]any{"weight": *r.Weight / scale})
	}
	for _, c := range readRows[pg.Community](t, "communities.parquet") {
		k := add(*c.Title, "Community")
		for _, id := range c.EntityIDs {
			rel("IN_COMMUNITY", entity[id], k, map[string]any{})
		}
	}
	for _, u := range readRows[pg.TextUnit](t, "text_units.parquet") {
		k := add(*u.ID, "TextUnit")
		for _, id := range u.EntityIDs {
			rel("MENTIONS", k, entity[id], map[string]any{})
		}
	}
	return g
}

// TestGraphRAGRetrievers: on GraphRAG's own output folder, read as it is
// (the graphrag preset chosen for the folder), every retriever ranks
// exactly as on the same graph written by hand as APOC JSON lines in
// memoria's shape (dulceByHand), seeds "ALEX MERCER" and "ELEVATOR" (a
// title the entities lack); and with --weight-scale max exactly as on
// that graph with every weight divided by 21, the largest (relationship
// row 3, ALEX MERCER - JORDAN HAYES, weight 21.0).
func TestGraphRAGRetrievers(t *testing.T) {
	for _, sc := range []struct {
		flag  string
		scale float64
	}{{"none", 1}, {"max", 21}} {
		plain := writeAPOC(t, dulceByHand(t, sc.scale))
		for _, r := range schemaRetrievers {
			args := []string{"explore", "--retriever", r, "--format", "ranking", "--seed", "ALEX MERCER", "--seed", "ELEVATOR=0.7"}
			code, want, errs := run(t, append(args, "--graph", plain)...)
			if code != 0 {
				t.Fatalf("%s on memoria's shape: exit %d: %s", r, code, errs)
			}
			code, got, errs := run(t, append(args, "--graph", dulceFolder, "--weight-scale", sc.flag)...)
			if code != 0 {
				t.Fatalf("%s on the folder: exit %d: %s", r, code, errs)
			}
			if got != want {
				t.Errorf("%s --weight-scale %s: on the folder\n%s\nby hand\n%s", r, sc.flag, got, want)
			}
			if !strings.Contains(got, `"rank":3`) {
				t.Errorf("%s: want at least three hits: %s", r, got)
			}
			if !strings.Contains(errs, "read as --schema graphrag: it holds GraphRAG's entities.parquet, relationships.parquet, communities.parquet, text_units.parquet") {
				t.Errorf("stderr does not say which preset and why: %s", errs)
			}
			if !strings.Contains(errs, "2 of 107 relationships in relationships.parquet name 2 titles entities.parquet lacks") {
				t.Errorf("stderr does not count the titles the entities lack: %s", errs)
			}
		}
	}
}

// TestGraphRAGStatsExport: stats counts 56 nodes (39 entities, 2 titles
// they lack, 10 communities, 5 text units) and 215 relationships (107
// RELATES, 49 IN_COMMUNITY, 59 MENTIONS: the lengths of the entity_ids
// lists); export writes it as JSON lines, Cypher and GraphML, and the
// GraphML and JSON lines read back under --schema graphrag to the same
// counts.
func TestGraphRAGStatsExport(t *testing.T) {
	counts := []string{`"nodes":56`, `"relationships":215`, `{"type":"IN_COMMUNITY","count":49}`, `{"type":"MENTIONS","count":59}`, `{"type":"RELATES","count":107}`}
	stats := func(args ...string) {
		t.Helper()
		code, out, errs := run(t, append([]string{"stats", "--format", "json"}, args...)...)
		if code != 0 {
			t.Fatalf("%v: exit %d: %s", args, code, errs)
		}
		flat := strings.Join(strings.Fields(out), "")
		for _, want := range counts {
			if !strings.Contains(flat, want) {
				t.Errorf("%v: stats lack %s: %s", args, want, out)
			}
		}
	}
	stats("--graph", dulceFolder)
	for _, f := range []string{"jsonl", "cypher", "graphml"} {
		code, out, errs := run(t, "export", "--graph", dulceFolder, "--format", f)
		if code != 0 || !strings.Contains(out, "PARANORMAL MILITARY SQUAD") {
			t.Fatalf("export --format %s: exit %d: %s", f, code, errs)
		}
		if f == "cypher" {
			continue
		}
		p := writeFile(t, "dulce."+f, out)
		stats("--graph", p, "--schema", "graphrag")
	}
}

// TestGraphRAGQuery: --query on the folder gathers by the graphrag
// preset's fields (title, description): "Paranormal Military Squad" is
// the title of an entity, found exact, R 1.
func TestGraphRAGQuery(t *testing.T) {
	code, out, errs := run(t, "explore", "--graph", dulceFolder, "--query", "Paranormal Military Squad", "--retriever", "ppr", "--format", "ranking")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errs)
	}
	if !strings.Contains(errs, `"PARANORMAL MILITARY SQUAD" (R 1)`) || !strings.Contains(out, `"rank":1,"node_id":"PARANORMAL MILITARY SQUAD"`) {
		t.Errorf("stdout %s\nstderr %s", out, errs)
	}
}

// writeTables writes GraphRAG tables into a new folder.
func writeTables(t *testing.T, ents []pg.Entity, rels []pg.Relationship) string {
	t.Helper()
	dir := t.TempDir()
	if err := pg.Write(filepath.Join(dir, "entities.parquet"), ents, 0, 0); err != nil {
		t.Fatal(err)
	}
	if err := pg.Write(filepath.Join(dir, "relationships.parquet"), rels, 0, 0); err != nil {
		t.Fatal(err)
	}
	return dir
}

// TestGraphRAGHostileText: a title, a type and a description holding a
// right-to-left override (U+202E), a C1 CSI (U+009B), a raw ESC, a BEL
// and a newline, and a relationship naming such a title the entities lack,
// reach the terminal escaped (stats' hub line, the hub being that title of
// degree 3; explore's tree and rankings; the notes on stderr).
func TestGraphRAGHostileText(t *testing.T) {
	evil := "A\u202e\u009b31m\x1b[2J\nx"
	dir := writeTables(t, []pg.Entity{
		{Title: pg.S(evil), Type: pg.S("P\u202e\x1b[31m"), Description: pg.S("d\x1b]0;pwned\a</script><script>alert(1)</script>")},
		{Title: pg.S("B"), Type: pg.S("PERSON")},
		{Title: pg.S("C")},
	}, []pg.Relationship{
		{Source: pg.S("B"), Target: pg.S(evil), Weight: pg.F(0.9)},
		{Source: pg.S("B"), Target: pg.S("C"), Weight: pg.F(0.8)},
		{Source: pg.S("C"), Target: pg.S(evil), Weight: pg.F(0.7)},
		{Source: pg.S(evil), Target: pg.S("\x1b[41mghost\u202e"), Weight: pg.F(0.5)},
	})
	for _, args := range [][]string{
		{"stats", "--graph", dir},
		{"explore", "--graph", dir, "--seed", "B", "--format", "tree"},
		{"explore", "--graph", dir, "--seed", "B", "--format", "ranking", "--retriever", "ppr"},
		{"explore", "--graph", dir, "--seed", "B", "--format", "ranking", "--retriever", "expansion"},
		{"explore", "--graph", dir, "--seed", "B", "--format", "html"},
		{"compare", "--graph", dir, "--seed", "B", "--retrievers", "activation,ppr", "--format", "html"},
	} {
		code, out, errs := run(t, args...)
		if code != 0 {
			t.Fatalf("%v: exit %d: %s", args, code, errs)
		}
		for _, raw := range []string{"\u202e", "\u009b", "\x1b", "\a"} {
			if strings.Contains(out, raw) || strings.Contains(errs, raw) {
				t.Errorf("%v: %q reached the terminal raw:\n%s\n%s", args, raw, out, errs)
			}
		}
		if strings.Contains(out, "<script>alert") {
			t.Errorf("%v: the description's script reached the page raw", args)
		}
		if slices.Contains(args, "html") && !strings.Contains(out, `\u003cscript\u003ealert(1)`) {
			t.Errorf("%v: the page does not hold the description, escaped", args)
		}
		if !strings.Contains(out+errs, `\u202e`) && !strings.Contains(out+errs, `\u202E`) {
			t.Errorf("%v: the override is not shown escaped:\n%s\n%s", args, out, errs)
		}
		if !strings.Contains(errs, "1 of 4 relationships in relationships.parquet name 1 titles entities.parquet lacks") {
			t.Errorf("%v: stderr: %s", args, errs)
		}
	}
}

// TestGraphRAGRefusedByCLI: a folder whose entities.parquet is not
// parquet, and one whose relationships lack the target column, are
// refused naming the folder, the file and what is wrong, exit 1, nothing
// on stdout.
func TestGraphRAGRefusedByCLI(t *testing.T) {
	dir := writeTables(t, []pg.Entity{{Title: pg.S("A")}}, []pg.Relationship{{Source: pg.S("A"), Target: pg.S("A")}})
	if err := os.WriteFile(filepath.Join(dir, "entities.parquet"), []byte("title\nA\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	code, out, errs := run(t, "stats", "--graph", dir)
	if code != 1 || out != "" || !strings.Contains(errs, "memoria: loading "+dir+": entities.parquet: not a parquet file: ") {
		t.Errorf("not parquet: exit %d, stdout %q, stderr %q", code, out, errs)
	}
	dir = writeTables(t, []pg.Entity{{Title: pg.S("A")}}, nil)
	type noTarget struct {
		Source string `parquet:"source"`
	}
	if err := pg.Write(filepath.Join(dir, "relationships.parquet"), []noTarget{{"A"}}, 0, 0); err != nil {
		t.Fatal(err)
	}
	code, out, errs = run(t, "explore", "--graph", dir, "--seed", "A")
	if code != 1 || out != "" || !strings.Contains(errs, `relationships.parquet: no column "target", which memoria needs (the title of a relationship's second end): its columns are "source"`) {
		t.Errorf("no target: exit %d, stdout %q, stderr %q", code, out, errs)
	}
}

// TestGraphRAGProjectRoot: --graph names a GraphRAG project whose tables
// are in its output/ folder (where `graphrag index` writes them): it reads
// as the folder does (56 nodes), stderr naming output/entities.parquet.
func TestGraphRAGProjectRoot(t *testing.T) {
	root := t.TempDir()
	out := filepath.Join(root, "output")
	if err := os.Mkdir(out, 0o700); err != nil {
		t.Fatal(err)
	}
	for _, name := range []string{"entities.parquet", "relationships.parquet", "communities.parquet", "text_units.parquet"} {
		b, err := os.ReadFile(filepath.Join(dulceFolder, name))
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(out, name), b, 0o600); err != nil {
			t.Fatal(err)
		}
	}
	code, stdout, errs := run(t, "stats", "--graph", root, "--format", "json")
	if code != 0 || !strings.Contains(strings.Join(strings.Fields(stdout), ""), `"nodes":56`) {
		t.Fatalf("exit %d: %s\n%s", code, stdout, errs)
	}
	if !strings.Contains(errs, "it holds GraphRAG's output/entities.parquet, output/relationships.parquet, output/communities.parquet, output/text_units.parquet") {
		t.Errorf("stderr: %s", errs)
	}
}
