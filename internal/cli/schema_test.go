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
	"github.com/memoria-graph/memoria/internal/testkit/randgraph"
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
	}{
		{graph.SchemaLightRAG, "../../testdata/lightrag.jsonl", []string{"Alice", "Bob `) MATCH (n) DETACH DELETE n //=0.7"}, "inventory,stockout"},
		{graph.SchemaGraphiti, "../../testdata/graphiti.jsonl", []string{"a1f0c6e2-0000-4000-8000-000000000001"}, ""},
	}
	for _, c := range cases {
		t.Run(c.preset, func(t *testing.T) {
			s, _ := graph.Preset(c.preset)
			s.Now, _ = time.Parse(time.RFC3339, now)
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
	if code != 1 || !strings.Contains(errs, `1 relationships have a invalid_at that is not an RFC 3339 time (the first: relationship 1 has string "last Tuesday")`) {
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
		{[]string{"--graph", lr, "--schema", "lightrag", "--weight-property", "description"}, 1,
			`5 of 5 relationships of type DIRECTED have a description that is not a number (the first: relationship 0 has string "Alice manages the Leeds DC.")`},
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
