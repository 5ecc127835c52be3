package cli

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/neo4j/neo4j-go-driver/v5/neo4j"

	"github.com/memoria-graph/memoria/graph"
	"github.com/memoria-graph/memoria/graph/inmem"
	"github.com/memoria-graph/memoria/graph/neo4jdb"
	"github.com/memoria-graph/memoria/render"
	"github.com/memoria-graph/memoria/testkit/neo4jfix"
	"github.com/memoria-graph/memoria/testkit/neo4jtest"
)

// schemaCase is a fixture the Neo4j mapping tests read: its name, preset
// and file, seeds in it, the query flags its runs add and the node
// property filter it is read through (--node-where's KEY=VALUE, "" for
// none).
type schemaCase struct {
	name, preset, file string
	seeds              []string
	extra              []string
	where              string
}

// graphitiNow is the --now the Graphiti cases are read at.
const graphitiNow = "2026-06-01T00:00:00Z"

// flags are the mapping's flags every command of the case takes.
func (c schemaCase) flags() []string {
	out := []string{"--schema", c.preset}
	if c.preset == graph.SchemaGraphiti {
		out = append(out, "--now", graphitiNow)
	}
	if c.where != "" {
		out = append(out, "--node-where", c.where)
	}
	return out
}

// schema is the case's mapping at now.
func (c schemaCase) schema(now time.Time) graph.Schema {
	sc, _ := graph.Preset(c.preset)
	sc.Now = now
	if c.where != "" {
		sc.NodeWhereKey, sc.NodeWhereValue, _ = strings.Cut(c.where, "=")
	}
	return sc
}

// The Graphiti fixture's nodes the cases seed.
const (
	graphitiAlice = "a1f0c6e2-0000-4000-8000-000000000001"
	graphitiFast  = "a1f0c6e2-0000-4000-8000-000000000003"
	graphitiCarol = "a1f0c6e2-0000-4000-8000-000000000006"
)

// schemaCases are the fixtures the Neo4j mapping tests read: Graphiti's
// whole, then each of its two groups (group_id; the edge across them is
// in neither).
var schemaCases = []schemaCase{
	{"lightrag", "lightrag", "../../testdata/lightrag.jsonl", []string{"Alice", "Bob `) MATCH (n) DETACH DELETE n //=0.7"},
		[]string{"--tags", "inventory,stockout"}, ""},
	{"graphiti", "graphiti", "../../testdata/graphiti.jsonl", []string{graphitiAlice, graphitiFast + "=0.6"}, nil, ""},
	{"graphiti-g1", "graphiti", "../../testdata/graphiti.jsonl", []string{graphitiAlice, graphitiFast + "=0.6"}, nil, "group_id=g1"},
	{"graphiti-g2", "graphiti", "../../testdata/graphiti.jsonl", []string{graphitiCarol}, nil, "group_id=g2"},
}

// neo4jSchemaRuns are the commands compared on both engines under a
// mapping.
var neo4jSchemaRuns = [][]string{
	{"explore", "--retriever", "activation", "--format", "ranking"},
	{"explore", "--format", "json"},
	{"explore", "--retriever", "expansion", "--format", "ranking", "--max-hops", "2"},
	{"explore", "--retriever", "spreading", "--format", "ranking"},
	{"explore", "--retriever", "ppr", "--format", "ranking"},
	{"explore", "--retriever", "fusion", "--format", "ranking"},
	{"explore", "--retriever", "expansion", "--format", "tree"},
}

// sameOnBoth runs args on the embedded engine (--graph file) and on
// Neo4j, and reports where they differ; it returns the embedded output.
func sameOnBoth(t *testing.T, srv *neo4jtest.Server, file string, args []string) string {
	t.Helper()
	code, embedded, errs := run(t, append(slices.Clone(args), "--graph", file)...)
	if code != 0 {
		t.Fatalf("%v embedded: exit %d: %s", args, code, errs)
	}
	code, onNeo4j, errs := runIn(t, serverSession(srv), append(slices.Clone(args), "--uri", srv.URI)...)
	if code != 0 {
		t.Fatalf("%v on Neo4j: exit %d: %s", args, code, errs)
	}
	if comparable(onNeo4j) != comparable(embedded) {
		t.Errorf("%v differs: %s", args, firstDifference(comparable(onNeo4j), comparable(embedded)))
	}
	return embedded
}

// sameOnBothCase is sameOnBoth for a fixture: base under its mapping
// with its extra flags and seeds (MEMORIA_SHOW=1 logs the output).
func sameOnBothCase(t *testing.T, srv *neo4jtest.Server, c schemaCase, base []string) {
	t.Helper()
	args := slices.Concat(base, c.flags(), c.extra)
	for _, s := range c.seeds {
		args = append(args, "--seed", s)
	}
	out := sameOnBoth(t, srv, c.file, args)
	if os.Getenv("MEMORIA_SHOW") != "" {
		t.Logf("%v:\n%s", args, out)
	}
}

// eachFixture runs f on each fixture of schemaCases stored alone, as it
// is, on the shared server.
func eachFixture(t *testing.T, f func(*testing.T, *neo4jtest.Server, neo4j.DriverWithContext, schemaCase)) {
	srv, d := freshServer(t)
	for _, c := range schemaCases {
		t.Run(c.name, func(t *testing.T) {
			srv.Wipe(t)
			neo4jfix.StoreAsIs(t, d, c.file)
			f(t, srv, d, c)
		})
	}
}

// TestSchemaOnNeo4jEqualEmbedded: the LightRAG and Graphiti fixtures,
// stored in Neo4j as they are, read under their preset give every
// retriever the output the embedded engine gives on the same file, and the
// graph on the server is whole afterwards (the hostile names stayed
// names). That includes what reads through Activation Energy's snapshot
// (sweeps, a trace, why, the HTML page): its degree over the traversed
// types, the mapped weight and tags, Graphiti's invalidated facts left
// out.
func TestSchemaOnNeo4jEqualEmbedded(t *testing.T) {
	eachFixture(t, func(t *testing.T, srv *neo4jtest.Server, d neo4j.DriverWithContext, c schemaCase) {
		nodes, rels := counts(t, d)
		for _, base := range slices.Concat(neo4jSchemaRuns, neo4jSnapshotRuns) {
			if base[0] == "why" && c.preset != "lightrag" {
				continue // the node named is LightRAG's
			}
			sameOnBothCase(t, srv, c, base)
		}
		args := slices.Concat([]string{"explore", "--format", "html", "--seed", c.seeds[0], "--uri", srv.URI}, c.flags(), c.extra)
		if code, out, errs := runIn(t, serverSession(srv), args...); code != 0 || !strings.Contains(out, "<html") {
			t.Errorf("%v: exit %d: %s", args, code, errs)
		}
		if n, r := counts(t, d); n != nodes || r != rels {
			t.Errorf("after the runs: %d nodes, %d relationships; stored %d and %d", n, r, nodes, rels)
		}
	})
}

// neo4jSnapshotRuns are the commands that read Neo4j through Activation
// Energy's snapshot, compared on both engines under a mapping.
var neo4jSnapshotRuns = [][]string{
	{"sweep", "--param", "min-activation"},
	{"sweep", "--param", "tag-sim-floor", "--format", "json"},
	{"explore", "--format", "json", "--trace"},
	{"explore", "--format", "json", "--trace", "--rel-where", "weight>=1.5"},
	{"why", "--node", "FAST-200"},
}

// TestSchemaOnNeo4jInvalidAt: Graphiti's invalidated facts are absent on
// Neo4j exactly when they are on the embedded engine, for each --now and
// with --include-invalid (the fixture's invalid_at are strings, one
// in the form APOC exports a datetime in: "…Z[UTC]"); and a stored
// datetime value is read as one.
func TestSchemaOnNeo4jInvalidAt(t *testing.T) {
	srv, d := freshServer(t)
	file := "../../testdata/graphiti.jsonl"
	neo4jfix.StoreAsIs(t, d, file)
	base := []string{"explore", "--retriever", "expansion", "--max-hops", "3", "--format", "tree", "--schema", "graphiti",
		"--seed", "a1f0c6e2-0000-4000-8000-000000000001"}
	var outs []string
	for _, extra := range [][]string{
		{"--now", "2026-01-15T00:00:00Z"},
		{"--now", "2026-02-01T00:00:00Z"},
		{"--now", "2027-06-01T00:00:00Z"},
		{"--now", "2027-06-01T00:00:00Z", "--include-invalid"},
	} {
		outs = append(outs, sameOnBoth(t, srv, file, append(slices.Clone(base), extra...)))
	}
	if outs[0] == outs[1] || outs[1] == outs[2] {
		t.Errorf("--now changed nothing:\n%s", strings.Join(outs, "\n"))
	}
	// The same facts as Neo4j datetimes, as Graphiti stores them.
	if _, err := neo4j.ExecuteQuery(context.Background(), d, "MATCH ()-[r]->() WHERE r.invalid_at IS NOT NULL SET r.invalid_at = datetime(r.invalid_at)",
		nil, neo4j.EagerResultTransformer); err != nil {
		t.Fatal(err)
	}
	for i, now := range []string{"2026-01-15T00:00:00Z", "2026-02-01T00:00:00Z", "2027-06-01T00:00:00Z"} {
		code, out, errs := runIn(t, serverSession(srv), append(slices.Clone(base), "--now", now, "--uri", srv.URI)...)
		if code != 0 || comparable(out) != comparable(outs[i]) {
			t.Errorf("datetimes, --now %s: exit %d %s\n%s\nwant\n%s", now, code, errs, out, outs[i])
		}
	}
}

// TestSchemaOnNeo4jHostileNames: the LightRAG fixture with its id
// property, traversed type, weight and tags properties, label and the
// node property filtered on (file_path, one base node moved to another
// file) and its value renamed to names with backticks, quotes, spaces and
// Cypher in them reads the same on both engines under the mapping that
// names them, the node the filter leaves out is absent, and the server's
// graph is whole afterwards.
func TestSchemaOnNeo4jHostileNames(t *testing.T) {
	names := map[string]string{
		`"entity_id"`: `"ent` + "`" + `ity id) RETURN 1 //"`,
		`"DIRECTED"`:  `"DIR` + "`" + `]-() DETACH DELETE n //"`,
		`"weight"`:    `"we ight` + "`" + `"`,
		`"keywords"`:  `"key` + "`" + `words}) SET n.x = 1 //"`,
		`"base"`:      `"ba` + "`" + `se:X"`,
		`"file_path"`: `"file` + "`" + ` path}) DETACH DELETE n //"`,
		`"notes.txt"`: `"notes' OR true = true // \" ` + "`" + `x=1"`,
	}
	text := readFile(t, "../../testdata/lightrag.jsonl")
	text = strings.Replace(text, `"Buffer inventory against demand spikes.","source_id":"chunk-3","file_path":"notes.txt"`,
		`"Buffer inventory against demand spikes.","source_id":"chunk-3","file_path":"elsewhere.txt"`, 1)
	for from, to := range names {
		text = strings.ReplaceAll(text, from, to)
	}
	file := filepath.Join(t.TempDir(), "hostile.jsonl")
	if err := os.WriteFile(file, []byte(text), 0o600); err != nil {
		t.Fatal(err)
	}
	unq := func(s string) string { v, _ := strconv.Unquote(s); return v }
	srv, d := freshServer(t)
	neo4jfix.StoreAsIs(t, d, file)
	nodes, rels := counts(t, d)
	mapping := []string{"--schema", "lightrag", "--id-property", unq(names[`"entity_id"`]), "--traverse-types", unq(names[`"DIRECTED"`]),
		"--weight-property", unq(names[`"weight"`]), "--tags-property", unq(names[`"keywords"`]), "--node-label", unq(names[`"base"`]),
		"--node-where", unq(names[`"file_path"`]) + "=" + unq(names[`"notes.txt"`])}
	flags := append(slices.Clone(mapping), "--seed", "Alice", "--tags", "inventory")
	for _, base := range neo4jSchemaRuns {
		if base[len(base)-1] == "tree" {
			continue // a tree names a node's first label: Neo4j orders labels its own way
		}
		out := sameOnBoth(t, srv, file, append(slices.Clone(base), flags...))
		if strings.Contains(out, "Safety stock") || !strings.Contains(out, "FAST-200") {
			t.Errorf("%v: the filter should leave Safety stock out and keep FAST-200:\n%s", base, out)
		}
	}
	// stats reads the whole mapped graph: the label, the filter, the types, the tags.
	stats := sameOnBoth(t, srv, file, append([]string{"stats", "--format", "json"}, mapping...))
	if !strings.Contains(stats, `"nodes":5,`) {
		t.Errorf("stats: want the 5 nodes of the label in notes.txt:\n%s", stats)
	}
	// The debug and check Cypher name them as quoted identifiers.
	for _, run := range [][]string{{"explore", "--format", "check"}, {"explore", "--retriever", "spreading", "--format", "cypher"}} {
		args := slices.Concat(run, flags, []string{"--uri", srv.URI, "--cypher-form", "driver"})
		code, script, errs := runIn(t, serverSession(srv), args...)
		if code != 0 || script == "" {
			t.Fatalf("%v: exit %d: %s", args, code, errs)
		}
		runDriverScript(t, d, args, script, true)
	}
	if n, r := counts(t, d); n != nodes || r != rels {
		t.Errorf("after the runs: %d nodes, %d relationships; stored %d and %d", n, r, nodes, rels)
	}
}

// TestSchemaOnNeo4jRefusals: --cypher seed (the specification's text,
// memoria's shape) and a mapping the graph does not fit say so, naming
// them, instead of finding nothing.
func TestSchemaOnNeo4jRefusals(t *testing.T) {
	srv, d := freshServer(t)
	neo4jfix.StoreAsIs(t, d, "../../testdata/lightrag.jsonl")
	for _, c := range []struct {
		args []string
		code int
		want string
	}{
		{[]string{"explore", "--seed", "Alice", "--cypher", "seed"}, 2, "--cypher seed runs the specification's queries, which read memoria's own shape"},
		{[]string{"explore", "--seed", "Alice", "--node-label", "Nope"}, 1, "schema lightrag: 0 of 7 nodes have the label Nope"},
		{[]string{"explore", "--seed", "Alice", "--id-property", "name"}, 1, "schema lightrag: 0 of 6 nodes with the label base have name"},
		{[]string{"explore", "--seed", "Alice", "--node-where", "file_path=nowhere.txt"}, 1,
			`schema lightrag: 0 of 6 nodes with the label base have file_path "nowhere.txt" (--node-where picks the nodes by a property)`},
		{[]string{"explore", "--seed", "Alice", "--node-where", "entity_type=person", "--id-property", "name"}, 1,
			`schema lightrag: 0 of 2 nodes with the label base and entity_type "person" have name`},
		{[]string{"explore", "--seed", "Alice", "--traverse-types", "DIRECTED,KNOWS"}, 1, "schema lightrag: 0 of 6 relationships have the type KNOWS"},
	} {
		code, _, errs := runIn(t, serverSession(srv), append(slices.Clone(c.args), "--schema", "lightrag", "--uri", srv.URI)...)
		if code != c.code || !strings.Contains(errs, c.want) {
			t.Errorf("%v: exit %d, want %d with %q: %s", c.args, code, c.code, c.want, errs)
		}
	}
}

// TestSchemaOnNeo4jRefusalsAsEmbedded: a graph the mapping does not fit
// in its values (a weight that is not a number, tags neither a string nor
// a list of strings, an id that is not a non-empty string, a stored
// RELATES not traversed, a weight or tags property no traversed
// relationship has) is refused by Neo4j on opening, with the embedded
// engine's counts and words (written by hand below): the one difference
// is the name of the element given as the first, the file's id there, the
// element id here (the least one; the locator finds it, with its value).
// Graphiti's invalidated facts are left out of the counts on both.
func TestSchemaOnNeo4jRefusalsAsEmbedded(t *testing.T) {
	lr, gr := readFile(t, "../../testdata/lightrag.jsonl"), readFile(t, "../../testdata/graphiti.jsonl")
	one := func(text, old, new string) string {
		t.Helper()
		if strings.Count(text, old) != 1 {
			t.Fatalf("%q is not in the fixture once", old)
		}
		return strings.Replace(text, old, new, 1)
	}
	for _, c := range []struct {
		name, text string
		flags      []string
		embedded   string
		// locator returns the element id (e) and value (v) Neo4j names as
		// the first; "" when the message names none.
		locator string
	}{
		{"weight", one(lr, `"weight":3.0`, `"weight":"heavy"`), nil,
			`schema lightrag: weight is not a number on 1 of 5 relationships of type DIRECTED (the first: relationship 2 has string "heavy")`,
			`MATCH ()-[r]->() WHERE r.weight = 'heavy' RETURN elementId(r) AS e, r.weight AS v`},
		{"weight, every one", lr, []string{"--weight-property", "description"},
			`schema lightrag: description is not a number on 5 of 5 relationships of type DIRECTED (the first: relationship 0 has string "Alice manages the Leeds DC.")`,
			`MATCH (:base)-[r:DIRECTED]->(:base) RETURN elementId(r) AS e, r.description AS v ORDER BY e LIMIT 1`},
		{"tags", one(lr, `"keywords":"stocks, inventory"`, `"keywords":[7, 8]`), nil,
			`schema lightrag: keywords is neither a string nor a list of strings on 1 of 5 relationships of type DIRECTED (the first: relationship 1 has a list containing integer 7)`,
			`MATCH ()-[r]->() WHERE r.keywords = [7, 8] RETURN elementId(r) AS e, r.keywords AS v`},
		{"id", one(lr, `"entity_id":"Safety stock"`, `"entity_id":42`), nil,
			`schema lightrag: entity_id is not a non-empty string on 1 of 6 nodes with the label base (the first: node 4 has integer 42)`,
			`MATCH (n) WHERE n.entity_id = 42 RETURN elementId(n) AS e, n.entity_id AS v`},
		{"RELATES", strings.TrimSuffix(lr, "\n") + "\n" + `{"type":"relationship","id":"7","label":"RELATES","properties":{},"start":{"id":"0"},"end":{"id":"2"}}` + "\n", nil,
			`schema lightrag: 1 relationships have the type RELATES, which the mapping does not traverse: memoria's retrievers know the traversed types by that name (add RELATES to --traverse-types)`, ""},
		{"no weight", lr, []string{"--weight-property", "nope"},
			`schema lightrag: 0 of 5 relationships of type DIRECTED have nope (--weight-property '' says the graph has no weight)`, ""},
		{"no tags", lr, []string{"--tags-property", "nope"},
			`schema lightrag: 0 of 5 relationships of type DIRECTED have nope (--tags-property '' says the graph has no tags)`, ""},
		{"graphiti", gr, []string{"--weight-property", "fact", "--now", "2026-06-01T00:00:00Z"},
			`schema graphiti: fact is not a number on 5 of 5 relationships of type RELATES_TO (the first: relationship 0 has string "Alice works at the Leeds DC.")`,
			`MATCH (:Entity)-[r:RELATES_TO]->(:Entity) WHERE NOT coalesce(datetime(r.invalid_at) <= datetime('2026-06-01T00:00:00Z'), false)
			 RETURN elementId(r) AS e, r.fact AS v ORDER BY e LIMIT 1`},
	} {
		t.Run(c.name, func(t *testing.T) {
			file := filepath.Join(t.TempDir(), "g.jsonl")
			if err := os.WriteFile(file, []byte(c.text), 0o600); err != nil {
				t.Fatal(err)
			}
			args := append([]string{"explore", "--seed", "Alice", "--schema", "lightrag"}, c.flags...)
			if c.name == "graphiti" {
				args[4] = "graphiti"
			}
			code, _, errs := run(t, append(slices.Clone(args), "--graph", file)...)
			if code != 1 || !strings.Contains(errs, c.embedded) {
				t.Fatalf("embedded: exit %d, want 1 with %q: %s", code, c.embedded, errs)
			}
			srv, d := freshServer(t)
			neo4jfix.StoreAsIs(t, d, file)
			want := c.embedded
			if c.locator != "" {
				res, err := neo4j.ExecuteQuery(context.Background(), d, c.locator, nil, neo4j.EagerResultTransformer)
				if err != nil || len(res.Records) != 1 {
					t.Fatalf("locator: %v, %d rows", err, len(res.Records))
				}
				e, _ := res.Records[0].Get("e")
				v, _ := res.Records[0].Get("v")
				cut := strings.Index(want, "(the first: ") + len("(the first: ")
				kind, _, _ := strings.Cut(want[cut:], " ")
				want = want[:cut] + kind + " " + graph.QuoteName(e.(string)) + " has " + neo4jdb.Describe(v) + ")"
			}
			code, _, errs = runIn(t, serverSession(srv), append(slices.Clone(args), "--uri", srv.URI)...)
			if code != 1 || !strings.Contains(errs, want) {
				t.Errorf("Neo4j: exit %d, want 1 with %q: %s", code, want, errs)
			}
		})
	}
}

// TestSchemaOnNeo4jCatalogEqualEmbedded: under each preset, the node
// list and its search (ListNodes with and without a filter, paged), the
// name keys and the tag list read from the fixtures stored in Neo4j as
// they are equal the embedded engine's on the same files.
func TestSchemaOnNeo4jCatalogEqualEmbedded(t *testing.T) {
	ctx := context.Background()
	eachFixture(t, func(t *testing.T, _ *neo4jtest.Server, d neo4j.DriverWithContext, c schemaCase) {
		for _, now := range []string{"2026-01-15T00:00:00Z", "2027-06-01T00:00:00Z"} {
			at, _ := time.Parse(time.RFC3339, now)
			sc := c.schema(at)
			g, err := inmem.LoadFileSchema(c.file, sc, nil)
			if err != nil {
				t.Fatal(err)
			}
			src := neo4jdb.NewSource(d, "", "")
			if err := src.SetSchema(sc); err != nil {
				t.Fatal(err)
			}
			same := func(what string, f func(graph.Source) (any, error)) {
				t.Helper()
				want, err := f(g)
				if err != nil {
					t.Fatalf("%s embedded: %v", what, err)
				}
				got, err := f(src)
				if err != nil {
					t.Fatalf("%s on Neo4j: %v", what, err)
				}
				if !reflect.DeepEqual(got, want) {
					t.Errorf("--now %s, %s on Neo4j:\n%v\nembedded:\n%v", now, what, got, want)
				}
			}
			for _, filter := range []string{"", "a", "stock", "deleted", "ali", c.seeds[0][:3]} {
				for _, page := range [][2]int{{0, 0}, {0, 2}, {2, 2}, {1, 100}} {
					same(fmt.Sprintf("ListNodes(%q, %d, %d)", filter, page[0], page[1]), func(s graph.Source) (any, error) {
						nodes, more, err := s.ListNodes(ctx, filter, page[0], page[1])
						return fmt.Sprint(nodes, more), err
					})
				}
			}
			same("NameKeys", func(s graph.Source) (any, error) { return s.NameKeys(ctx) })
			same("Tags", func(s graph.Source) (any, error) { return s.Tags(ctx) })
		}
	})
}

// TestSchemaOnNeo4jStatsExport: `stats` on Neo4j under
// each preset gives the embedded engine's figures on the same file, and
// `export` writes the graph the mapping keeps: read back under the same
// preset it has the same stats, and nothing more is left out.
func TestSchemaOnNeo4jStatsExport(t *testing.T) {
	eachFixture(t, func(t *testing.T, srv *neo4jtest.Server, _ neo4j.DriverWithContext, c schemaCase) {
		flags := c.flags()
		sameOnBoth(t, srv, c.file, append([]string{"stats", "--format", "json"}, flags...))
		code, exported, errs := runIn(t, serverSession(srv), append([]string{"export", "--uri", srv.URI}, flags...)...)
		if code != 0 {
			t.Fatalf("export: exit %d: %s", code, errs)
		}
		file := filepath.Join(t.TempDir(), "export.jsonl")
		if err := os.WriteFile(file, []byte(exported), 0o600); err != nil {
			t.Fatal(err)
		}
		args := append([]string{"stats", "--format", "json"}, flags...)
		_, want, _ := run(t, append(slices.Clone(args), "--graph", c.file)...)
		code, got, errs := run(t, append(slices.Clone(args), "--graph", file)...)
		if code != 0 || got != want || strings.Contains(errs, "left out") {
			t.Errorf("the export read back: exit %d %s\n%s\nwant\n%s", code, errs, got, want)
		}
	})
}

// TestSchemaOnNeo4jDebugCypher: under each preset, the debug Cypher
// (--format cypher of every retriever: paths, routes, feeders) and the
// check Cypher (--format check) printed from either engine run on the
// server, written with the mapped names, and return their paths: a path's
// query one row at least (exactly one when the path came from Neo4j and
// is pinned by element id), a feeders query its hit with every feeder's
// relationship, a check query a row per hop with same = true. The
// Browser form's parameter map is valid Cypher too.
func TestSchemaOnNeo4jDebugCypher(t *testing.T) {
	eachFixture(t, func(t *testing.T, srv *neo4jtest.Server, d neo4j.DriverWithContext, c schemaCase) {
		base := slices.Concat(c.flags(), c.extra)
		for _, s := range c.seeds {
			base = append(base, "--seed", s)
		}
		for _, engine := range [][]string{{"--graph", c.file}, {"--uri", srv.URI}} {
			for _, run := range [][]string{
				{"explore", "--format", "cypher"},
				{"explore", "--format", "check"},
				{"explore", "--retriever", "expansion", "--format", "cypher"},
				{"explore", "--retriever", "spreading", "--format", "cypher"},
				{"explore", "--retriever", "ppr", "--format", "cypher"},
			} {
				args := slices.Concat(run, base, engine)
				code, script, errs := runIn(t, serverSession(srv), append(slices.Clone(args), "--cypher-form", "driver")...)
				if code != 0 {
					t.Fatalf("%v: exit %d: %s", args, code, errs)
				}
				n := runDriverScript(t, d, args, script, engine[0] == "--uri")
				code, browser, errs := runIn(t, serverSession(srv), args...)
				if code != 0 {
					t.Fatalf("%v: exit %d: %s", args, code, errs)
				}
				if qs := pasteForm(t, d, browser, ":params "); len(qs) != n {
					t.Errorf("%v: %d Browser queries, %d driver ones", args, len(qs), n)
				}
			}
		}
	})
}

// runDriverScript runs each query of a driver-form script
// (checkMappedQuery) and returns their number; an empty script fails.
func runDriverScript(t *testing.T, d neo4j.DriverWithContext, args []string, script string, fromNeo4j bool) int {
	t.Helper()
	if strings.TrimSpace(script) == "" {
		t.Fatalf("%v: no query", args)
	}
	lines := strings.Split(strings.TrimSpace(script), "\n")
	for _, line := range lines {
		var dq render.DriverQuery
		if err := json.Unmarshal([]byte(line), &dq); err != nil {
			t.Fatalf("%v: %v\n%s", args, err, line)
		}
		checkMappedQuery(t, d, args, dq, fromNeo4j)
	}
	return len(lines)
}

// checkMappedQuery runs one debug or check query and checks what it
// returns (TestSchemaOnNeo4jDebugCypher).
func checkMappedQuery(t *testing.T, d neo4j.DriverWithContext, args []string, dq render.DriverQuery, fromNeo4j bool) {
	t.Helper()
	res, err := neo4j.ExecuteQuery(context.Background(), d, dq.Query, dq.Parameters, neo4j.EagerResultTransformer,
		neo4j.ExecuteQueryWithReadersRouting())
	if err != nil {
		t.Fatalf("%v: %v\n%s", args, err, dq.Query)
	}
	rows := res.Records
	if len(rows) == 0 {
		t.Errorf("%v: no row\n%s\n%v", args, dq.Query, dq.Parameters)
		return
	}
	switch {
	case slices.Contains(args, "check"):
		for _, rec := range rows {
			if same, _ := rec.AsMap()["same"].(bool); !same {
				t.Errorf("%v: hop %v", args, rec.AsMap())
			}
		}
	case strings.HasPrefix(dq.Query, "MATCH p = "):
		if fromNeo4j && len(rows) != 1 {
			t.Errorf("%v: %d rows, want 1\n%s", args, len(rows), dq.Query)
		}
	default: // feeders: the hit, then a relationship and a node per feeder
		for i, v := range rows[0].Values {
			if v == nil {
				t.Errorf("%v: column %s is null\n%s\n%v", args, rows[0].Keys[i], dq.Query, dq.Parameters)
			}
		}
	}
}
