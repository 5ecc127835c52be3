package cli

import (
	"bytes"
	"encoding/json"
	"math/rand"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/memoria-graph/memoria/graph"
	"github.com/memoria-graph/memoria/graph/apoc"
	"github.com/memoria-graph/memoria/testkit/randgraph"
)

// schemaRetrievers are the retrievers the mapping tests run.
var schemaRetrievers = []string{"activation", "expansion", "spreading", "ppr"}

// memoriaShape rewrites a graph of schema s into memoria's own shape, as
// a user would by hand: the nodes of the label with id set to the mapped
// id (the mapped key dropped), the relationships between them that are
// not invalidated, traversed types as RELATES with the weight (the
// mapping's default where missing) and the tags as a list.
func memoriaShape(t *testing.T, a *apoc.Graph, s graph.Schema) *apoc.Graph {
	t.Helper()
	out := &apoc.Graph{}
	keep := map[string]bool{}
	for _, n := range a.Nodes {
		if s.NodeLabel != "" && !slices.Contains(n.Labels, s.NodeLabel) {
			continue
		}
		if s.NodeWhereKey != "" && n.Properties[s.NodeWhereKey] != any(s.NodeWhereValue) {
			continue
		}
		keep[n.InternalID] = true
		p := map[string]any{}
		for k, v := range n.Properties {
			if k != s.IDProperty {
				p[k] = v
			}
		}
		p["id"] = n.Properties[s.IDProperty]
		out.Nodes = append(out.Nodes, apoc.Node{InternalID: n.InternalID, Labels: n.Labels, Properties: p})
	}
	for _, r := range a.Rels {
		if !keep[r.Start] || !keep[r.End] {
			continue
		}
		if s.InvalidAt != "" {
			if at, ok := graph.ParseInvalidAt(r.Properties[s.InvalidAt]); ok && !at.After(s.Now) {
				continue
			}
		}
		if !s.Traverses(r.Type) {
			out.Rels = append(out.Rels, r)
			continue
		}
		p := map[string]any{}
		for k, v := range r.Properties {
			if k != s.WeightProperty && k != s.TagsProperty {
				p[k] = v
			}
		}
		if w, ok := r.Properties[s.WeightProperty]; ok && s.WeightProperty != "" {
			p["weight"] = w
		} else if s.DefaultWeight != nil {
			p["weight"] = *s.DefaultWeight
		}
		if v, ok := r.Properties[s.TagsProperty]; ok && s.TagsProperty != "" {
			tags, _ := s.SplitTags(v)
			list := make([]any, len(tags))
			for i, tag := range tags {
				list[i] = tag
			}
			p["tags"] = list
		}
		out.Rels = append(out.Rels, apoc.Relationship{InternalID: r.InternalID, Type: graph.Relates, Start: r.Start, End: r.End, Properties: p})
	}
	return out
}

func writeAPOC(t *testing.T, g *apoc.Graph) string {
	t.Helper()
	var b bytes.Buffer
	if err := apoc.Write(&b, g); err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(t.TempDir(), "g.jsonl")
	if err := os.WriteFile(path, b.Bytes(), 0o600); err != nil {
		t.Fatal(err)
	}
	return path
}

// TestSchemaFixturesMatchMemoriaShape: on the LightRAG and Graphiti
// fixtures (testdata/, with hostile names), every retriever under the
// preset ranks exactly as on the same graph rewritten in memoria's shape.
func TestSchemaFixturesMatchMemoriaShape(t *testing.T) {
	now := "2026-06-01T00:00:00Z"
	cases := []struct {
		preset, file string
		seeds        []string
		tags         string
		where        string // --node-where
	}{
		{graph.SchemaLightRAG, "../../testdata/lightrag.jsonl", []string{"Alice", "Bob `) MATCH (n) DETACH DELETE n //=0.7"}, "inventory,stockout", ""},
		{graph.SchemaGraphiti, "../../testdata/graphiti.jsonl", []string{graphitiAlice, graphitiFast + "=0.6"}, "", ""},
		{graph.SchemaGraphiti, "../../testdata/graphiti.jsonl", []string{graphitiAlice, graphitiFast + "=0.6"}, "", "group_id=g1"},
		{graph.SchemaGraphiti, "../../testdata/graphiti.jsonl", []string{graphitiCarol}, "", "group_id=g2"},
	}
	for _, c := range cases {
		t.Run(c.preset+c.where, func(t *testing.T) {
			s, _ := graph.Preset(c.preset)
			s.Now, _ = time.Parse(time.RFC3339, now)
			if c.where != "" {
				s.NodeWhereKey, s.NodeWhereValue, _ = strings.Cut(c.where, "=")
			}
			if _, _, err := apoc.ParseFileReport(c.file); err == nil {
				t.Fatal("the fixture must not load in memoria's own shape")
			}
			f, err := os.Open(c.file)
			if err != nil {
				t.Fatal(err)
			}
			g, _, err := apoc.ParseReport(f, apoc.MappedRules)
			f.Close()
			if err != nil {
				t.Fatal(err)
			}
			plain := writeAPOC(t, memoriaShape(t, g, s))
			for _, r := range schemaRetrievers {
				args := []string{"explore", "--retriever", r, "--format", "ranking", "--tags", c.tags}
				for _, sd := range c.seeds {
					args = append(args, "--seed", sd)
				}
				code, want, errs := run(t, append(args, "--graph", plain)...)
				if code != 0 {
					t.Fatalf("%s on memoria's shape: exit %d: %s", r, code, errs)
				}
				mapped := append(args, "--graph", c.file, "--schema", c.preset)
				if c.preset == graph.SchemaGraphiti {
					mapped = append(mapped, "--now", now)
				}
				if c.where != "" {
					mapped = append(mapped, "--node-where", c.where)
				}
				code, got, errs := run(t, mapped...)
				if code != 0 {
					t.Fatalf("%s under --schema %s: exit %d: %s", r, c.preset, code, errs)
				}
				if got != want {
					t.Errorf("%s: under --schema %s\n%s\nin memoria's shape\n%s", r, c.preset, got, want)
				}
				if !strings.Contains(got, `"rank":2`) {
					t.Errorf("%s: want at least two hits: %s", r, got)
				}
			}
		})
	}
}

// renameKeys renames the keys of every JSON object in v by names.
func renameKeys(v any, names map[string]string) any {
	switch x := v.(type) {
	case map[string]any:
		out := make(map[string]any, len(x))
		for k, e := range x {
			if n, ok := names[k]; ok {
				k = n
			}
			out[k] = renameKeys(e, names)
		}
		return out
	case []any:
		for i, e := range x {
			x[i] = renameKeys(e, names)
		}
	}
	return v
}

// canonicalJSON decodes each line of out, renames its keys and encodes it
// again (keys sorted), so that outputs differing only by property names
// compare equal.
func canonicalJSON(t *testing.T, out string, names map[string]string) string {
	t.Helper()
	var lines []string
	for _, line := range strings.Split(strings.TrimSpace(out), "\n") {
		var v any
		d := json.NewDecoder(strings.NewReader(line))
		d.UseNumber()
		if err := d.Decode(&v); err != nil {
			t.Fatalf("not JSON: %v: %s", err, line)
		}
		enc, err := json.Marshal(renameKeys(v, names))
		if err != nil {
			t.Fatal(err)
		}
		lines = append(lines, string(enc))
	}
	slices.Sort(lines) // Activation Energy prints one line per seed as each finishes
	return strings.Join(lines, "\n")
}

// TestSchemaPropertyRenamed: random memoria-shaped graphs (randgraph, every
// awkward case on) are rewritten with the id, traversed type, weight and
// tags under hostile names (backticks, spaces, Cypher); under the custom
// mapping that names them, every retriever's JSON output is the
// original's, byte for byte, once the renamed property names are mapped
// back.
func TestSchemaPropertyRenamed(t *testing.T) {
	const (
		idKey  = "ent`id MATCH (n) DETACH DELETE n //"
		relTy  = "REL ATES`]-() RETURN 1 //"
		wKey   = "w`eight x"
		tagKey = "t ags` //"
	)
	back := map[string]string{idKey: "id", wKey: "weight", tagKey: "tags"}
	for i := 0; i < 6; i++ {
		r := rand.New(rand.NewSource(int64(100 + i)))
		g := randgraph.Generate(r, randgraph.Random(r, 12, 40))
		seeds := randgraph.Seeds(r, g)
		vocab := randgraph.Vocabulary(4)
		plain := writeAPOC(t, g)
		renamed := &apoc.Graph{}
		for _, n := range g.Nodes {
			p := map[string]any{}
			for k, v := range n.Properties {
				if k == "id" {
					k = idKey
				}
				p[k] = v
			}
			renamed.Nodes = append(renamed.Nodes, apoc.Node{InternalID: n.InternalID, Labels: n.Labels, Properties: p})
		}
		for _, rel := range g.Rels {
			if rel.Type != graph.Relates {
				renamed.Rels = append(renamed.Rels, rel)
				continue
			}
			p := map[string]any{}
			for k, v := range rel.Properties {
				switch k {
				case "weight":
					k = wKey
				case "tags":
					k = tagKey
				}
				p[k] = v
			}
			renamed.Rels = append(renamed.Rels, apoc.Relationship{InternalID: rel.InternalID, Type: relTy, Start: rel.Start, End: rel.End, Properties: p})
		}
		mapped := writeAPOC(t, renamed)
		mapping := []string{"--id-property", idKey, "--traverse-types", relTy, "--weight-property", wKey, "--tags-property", tagKey}
		for _, name := range schemaRetrievers {
			format := "ranking"
			if name == "activation" {
				format = "json"
			}
			args := []string{"explore", "--retriever", name, "--format", format, "--tags", strings.Join(vocab[:2], ",")}
			for _, sd := range seeds {
				args = append(args, "--seed", sd.NodeID)
			}
			code, want, errs := run(t, append(slices.Clone(args), "--graph", plain)...)
			if code != 0 {
				t.Fatalf("graph %d, %s: exit %d: %s", i, name, code, errs)
			}
			code, got, errs := run(t, append(append(slices.Clone(args), "--graph", mapped), mapping...)...)
			if code != 0 {
				t.Fatalf("graph %d, %s, mapped: exit %d: %s", i, name, code, errs)
			}
			if cg, cw := canonicalJSON(t, got, back), canonicalJSON(t, want, nil); cg != cw {
				t.Errorf("graph %d, %s: mapped and memoria's shape differ:\n%s", i, name, firstDiff(cg, cw))
			}
		}
	}
}

// TestSchemaGraphitiInvalidAt: a RELATES_TO whose invalid_at is at or
// before --now is absent, neither traversed nor counted in a degree;
// one invalidated later is there; --include-invalid keeps every one.
func TestSchemaGraphitiInvalidAt(t *testing.T) {
	alice := "a1f0c6e2-0000-4000-8000-000000000001"
	sheffield := "a1f0c6e2-0000-4000-8000-000000000004"
	fast := "a1f0c6e2-0000-4000-8000-000000000003"
	base := []string{"explore", "--graph", "../../testdata/graphiti.jsonl", "--schema", "graphiti", "--seed", alice, "--format", "tree"}
	for _, c := range []struct {
		extra        []string
		sheffield    bool // Alice → Sheffield (invalid_at 2026-02-01)
		fast         bool // Leeds → FAST-200 (invalid_at 2027-01-01)
		aliceDegree  string
		stderrExpect string
	}{
		{[]string{"--now", "2026-01-15T00:00:00Z"}, true, true, "d=2", ""},
		{[]string{"--now", "2026-02-01T00:00:00Z"}, false, true, "d=1", "1 relationships have invalid_at at or before 2026-02-01T00:00:00Z: left out"},
		{[]string{"--now", "2027-06-01T00:00:00Z"}, false, false, "d=1", "2 relationships have invalid_at at or before 2027-06-01T00:00:00Z: left out"},
		{[]string{"--now", "2027-06-01T00:00:00Z", "--include-invalid"}, true, true, "d=2", ""},
	} {
		code, out, errs := run(t, append(slices.Clone(base), c.extra...)...)
		if code != 0 {
			t.Fatalf("%v: exit %d: %s", c.extra, code, errs)
		}
		if got := strings.Contains(out, sheffield); got != c.sheffield {
			t.Errorf("%v: Sheffield reached %v, want %v:\n%s", c.extra, got, c.sheffield, out)
		}
		if got := strings.Contains(out, fast); got != c.fast {
			t.Errorf("%v: FAST-200 reached %v, want %v:\n%s", c.extra, got, c.fast, out)
		}
		if !strings.Contains(out, "000000000002 (Entity) T=") || !strings.Contains(out, c.aliceDegree+" ") {
			t.Errorf("%v: want Alice's degree %s:\n%s", c.extra, c.aliceDegree, out)
		}
		if c.stderrExpect != "" && !strings.Contains(errs, c.stderrExpect) {
			t.Errorf("%v: stderr %q lacks %q", c.extra, errs, c.stderrExpect)
		}
	}
	// A time that is not RFC 3339 is refused, with the count.
	bad := strings.Replace(readFile(t, "../../testdata/graphiti.jsonl"), `"invalid_at":"2026-02-01T00:00:00Z"`, `"invalid_at":"last Tuesday"`, 1)
	path := filepath.Join(t.TempDir(), "bad.jsonl")
	if err := os.WriteFile(path, []byte(bad), 0o600); err != nil {
		t.Fatal(err)
	}
	code, _, errs := run(t, "explore", "--graph", path, "--schema", "graphiti", "--seed", alice)
	if code != 1 || !strings.Contains(errs, `invalid_at is not an RFC 3339 time on 1 relationship (the first: relationship 1 has string "last Tuesday")`) {
		t.Errorf("exit %d: %s", code, errs)
	}
}

// TestSchemaRefusals: a mapping the graph does not fit is refused once,
// with counts, and bad flag values are usage errors naming the flag.
func TestSchemaRefusals(t *testing.T) {
	lr := "../../testdata/lightrag.jsonl"
	for _, c := range []struct {
		args []string
		code int
		want string
	}{
		{[]string{"--schema", "lightrag"}, 1, "0 of 57 nodes have the label base"},
		{[]string{"--schema", "lightrag", "--node-label", ""}, 1, "0 of 57 nodes have entity_id (give the id property with --id-property)"},
		{[]string{"--graph", lr, "--schema", "lightrag", "--id-property", "name"}, 1, `0 of 6 nodes with the label base have name`},
		{[]string{"--graph", lr, "--schema", "lightrag", "--traverse-types", "DIRECTED,KNOWS"}, 1, "0 of 6 relationships have the type KNOWS"},
		{[]string{"--graph", lr, "--schema", "lightrag", "--node-where", "file_path=nowhere.txt"}, 1,
			`schema lightrag: 0 of 6 nodes with the label base have file_path "nowhere.txt" (--node-where picks the nodes by a property)`},
		{[]string{"--graph", lr, "--schema", "lightrag", "--node-where", "entity_type=person", "--id-property", "name"}, 1,
			`schema lightrag: 0 of 2 nodes with the label base and entity_type "person" have name`},
		{[]string{"--graph", lr, "--schema", "lightrag", "--weight-property", "description"}, 1,
			`description is not a number on 5 of 5 relationships of type DIRECTED (the first: relationship 0 has string "Alice manages the Leeds DC.")`},
		{[]string{"--graph", lr, "--schema", "lightrag", "--tags-property", "nope"}, 1, "0 of 5 relationships of type DIRECTED have nope"},
		{[]string{"--schema", "neo"}, 2, `--schema "neo": want memoria, lightrag, graphiti`},
		{[]string{"--schema", "lightrag", "--default-weight", "heavy"}, 2, `--default-weight "heavy": want a finite number`},
		{[]string{"--schema", "lightrag", "--traverse-types", "A,,B"}, 2, "--traverse-types"},
		{[]string{"--schema", "lightrag", "--id-property", ""}, 2, "--id-property: empty"},
		{[]string{"--include-invalid"}, 2, "--include-invalid applies to --schema graphiti"},
		{[]string{"--schema", "graphiti", "--now", "yesterday"}, 2, `--now "yesterday" is not an RFC 3339 time`},
	} {
		code, _, errs := run(t, append([]string{"explore", "--seed", "x"}, c.args...)...)
		if code != c.code || !strings.Contains(errs, c.want) {
			t.Errorf("%v: exit %d, want %d with %q: %s", c.args, code, c.code, c.want, errs)
		}
	}
	// The other commands that open a source take the flags too.
	for _, cmd := range [][]string{{"stats"}, {"export"}, {"why", "--seed", "Alice", "--node", "Safety stock"},
		{"compare", "--seed", "Alice", "--retrievers", "activation,ppr"}, {"sweep", "--seed", "Alice", "--param", "max-branches", "--values", "1,2"}} {
		code, out, errs := run(t, append(cmd, "--graph", lr, "--schema", "lightrag")...)
		if code != 0 || out == "" {
			t.Errorf("%v: exit %d: %s", cmd, code, errs)
		}
	}
}

// firstDiff shows where two outputs part.
func firstDiff(a, b string) string {
	i := 0
	for i < len(a) && i < len(b) && a[i] == b[i] {
		i++
	}
	lo := max(0, i-300)
	return "…" + a[lo:min(len(a), i+200)] + "\n---\n…" + b[lo:min(len(b), i+200)]
}

// nodeWhereGraph is TestSchemaNodeWhere's graph, in memoria's own shape:
// A and B hold group "g1"; C holds "g2", D the number 1, E no group, F
// "g1 " (a trailing space). A is linked to every other node but F, B to
// F and C.
const nodeWhereGraph = `{"type":"node","id":"0","labels":["Memory"],"properties":{"id":"A","group":"g1","text":"alpha"}}
{"type":"node","id":"1","labels":["Memory"],"properties":{"id":"B","group":"g1","text":"beta"}}
{"type":"node","id":"2","labels":["Memory"],"properties":{"id":"C","group":"g2"}}
{"type":"node","id":"3","labels":["Memory"],"properties":{"id":"D","group":1}}
{"type":"node","id":"4","labels":["Memory"],"properties":{"id":"E"}}
{"type":"node","id":"5","labels":["Memory"],"properties":{"id":"F","group":"g1 "}}
{"type":"relationship","id":"0","label":"RELATES","properties":{"weight":0.8,"tags":["x"]},"start":{"id":"0"},"end":{"id":"1"}}
{"type":"relationship","id":"1","label":"RELATES","properties":{"weight":0.5,"tags":["y"]},"start":{"id":"0"},"end":{"id":"2"}}
{"type":"relationship","id":"2","label":"RELATES","properties":{"weight":0.5,"tags":["y"]},"start":{"id":"0"},"end":{"id":"3"}}
{"type":"relationship","id":"3","label":"RELATES","properties":{"weight":0.5,"tags":["y"]},"start":{"id":"0"},"end":{"id":"4"}}
{"type":"relationship","id":"4","label":"RELATES","properties":{"weight":0.9,"tags":["y"]},"start":{"id":"1"},"end":{"id":"5"}}
{"type":"relationship","id":"5","label":"RELATES","properties":{"weight":0.7,"tags":["y"]},"start":{"id":"2"},"end":{"id":"1"}}
`

// TestSchemaNodeWhere: --node-where group=g1 keeps exactly A and B (C's
// other value, D's number, E's missing key and F's trailing space are
// left out) and the one relationship between them, so, worked by hand:
// A's degree is 1, not 4, and Activation Energy's hop A→B from R = 1
// without tags is T = 1 × 0.8 / √1 × 1 = 0.8 (0.4 over the whole graph);
// the expansion scores B 0.8 × 1.0 × 0.6 × 0.8 = 0.384 and reaches
// nothing else; every retriever ranks as on the two-node graph written by
// hand; stats, the tag list and export see those two nodes only. A value
// no node holds is refused with the counts, a flag without = is a usage
// error.
func TestSchemaNodeWhere(t *testing.T) {
	dir := t.TempDir()
	file := filepath.Join(dir, "g.jsonl")
	sub := filepath.Join(dir, "sub.jsonl")
	lines := strings.Split(nodeWhereGraph, "\n")
	for _, f := range []struct {
		path, text string
	}{{file, nodeWhereGraph}, {sub, lines[0] + "\n" + lines[1] + "\n" + lines[6] + "\n"}} {
		if err := os.WriteFile(f.path, []byte(f.text), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	where := []string{"--graph", file, "--node-where", "group=g1"}

	code, out, errs := run(t, slices.Concat([]string{"explore", "--seed", "A", "--format", "tree"}, where)...)
	if code != 0 || !strings.Contains(out, "B (Memory) T=0.8 w=0.8 tag_sim=1 d=1 ") {
		t.Errorf("tree: exit %d %s\n%s", code, errs, out)
	}
	for _, id := range []string{"C (", "D (", "E (", "F ("} {
		if strings.Contains(out, id) {
			t.Errorf("tree reaches %s:\n%s", id, out)
		}
	}
	for _, note := range []string{`4 of 6 nodes lack group "g1": left out, with their relationships`,
		`5 of 6 relationships touch a node without group "g1": left out`} {
		if !strings.Contains(errs, note) {
			t.Errorf("stderr lacks %q: %s", note, errs)
		}
	}
	_, whole, _ := run(t, "explore", "--seed", "A", "--format", "tree", "--graph", file)
	if !strings.Contains(whole, "B (Memory) T=0.4 w=0.8 tag_sim=1 d=4 ") {
		t.Errorf("tree of the whole graph:\n%s", whole)
	}

	code, out, errs = run(t, slices.Concat([]string{"explore", "--retriever", "expansion", "--max-hops", "3", "--seed", "A", "--format", "ranking"}, where)...)
	if code != 0 || !strings.Contains(out, `"node_id":"B","score":0.384`) || strings.Contains(out, `"rank":3`) {
		t.Errorf("expansion: exit %d %s\n%s", code, errs, out)
	}
	for _, r := range schemaRetrievers {
		args := []string{"explore", "--retriever", r, "--seed", "A", "--seed", "B=0.5", "--format", "ranking", "--tags", "x"}
		_, want, _ := run(t, append(slices.Clone(args), "--graph", sub)...)
		code, got, errs := run(t, append(slices.Clone(args), where...)...)
		if code != 0 || got != want {
			t.Errorf("%s: exit %d %s\n%s\nwant (the two-node graph)\n%s", r, code, errs, got, want)
		}
	}

	code, out, _ = run(t, slices.Concat([]string{"stats", "--format", "json"}, where)...)
	if code != 0 || !strings.Contains(out, `"nodes":2,`) || !strings.Contains(out, `"relationships":1,`) || !strings.Contains(out, `"distinct_tags":1,`) {
		t.Errorf("stats: exit %d\n%s", code, out)
	}
	code, out, _ = run(t, slices.Concat([]string{"export"}, where)...)
	if code != 0 || strings.Count(out, `"type":"node"`) != 2 || strings.Count(out, `"type":"relationship"`) != 1 || strings.Contains(out, `"g2"`) {
		t.Errorf("export: exit %d\n%s", code, out)
	}

	code, _, errs = run(t, "explore", "--seed", "A", "--graph", file, "--node-where", "group=g3")
	if code != 1 || !strings.Contains(errs, `schema memoria: 0 of 6 nodes have group "g3" (--node-where picks the nodes by a property)`) {
		t.Errorf("g3: exit %d: %s", code, errs)
	}
	code, _, errs = run(t, "explore", "--seed", "A", "--graph", file, "--node-where", "group")
	if code != 2 || !strings.Contains(errs, `--node-where "group": want KEY=VALUE`) {
		t.Errorf("no =: exit %d: %s", code, errs)
	}
}
