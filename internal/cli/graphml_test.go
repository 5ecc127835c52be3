package cli

import (
	"encoding/xml"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"testing"

	"github.com/memoria-graph/memoria/graph/apoc"
)

const lightragGraphML = "../../testdata/graphml/lightrag-lollms.graphml"

// lightragByHand is LightRAG's GraphML file (testdata/graphml/README.md)
// written in memoria's own shape by the test's own reading (encoding/xml's
// Unmarshal, not graph/graphml): each node keyed by `id`, its GraphML id as
// written (quotes kept); each edge a RELATES from source to target with
// weight the edge's weight divided by scale and tags its keywords split on
// "," (trimmed, empty parts dropped), none without keywords. That is the
// lightrag preset's reading as docs/RETRIEVERS.md states it.
func lightragByHand(t *testing.T, scale float64) *apoc.Graph {
	t.Helper()
	raw, err := os.ReadFile(lightragGraphML)
	if err != nil {
		t.Fatal(err)
	}
	var doc struct {
		Keys []struct {
			ID   string `xml:"id,attr"`
			Name string `xml:"attr.name,attr"`
		} `xml:"key"`
		Graph struct {
			Nodes []struct {
				ID string `xml:"id,attr"`
			} `xml:"node"`
			Edges []struct {
				Source string `xml:"source,attr"`
				Target string `xml:"target,attr"`
				Data   []struct {
					Key  string `xml:"key,attr"`
					Text string `xml:",chardata"`
				} `xml:"data"`
			} `xml:"edge"`
		} `xml:"graph"`
	}
	if err := xml.Unmarshal(raw, &doc); err != nil {
		t.Fatal(err)
	}
	names := map[string]string{}
	for _, k := range doc.Keys {
		names[k.ID] = k.Name
	}
	g := &apoc.Graph{}
	for _, n := range doc.Graph.Nodes {
		g.Nodes = append(g.Nodes, apoc.Node{InternalID: n.ID, Labels: []string{}, Properties: map[string]any{"id": n.ID}})
	}
	for i, e := range doc.Graph.Edges {
		props := map[string]any{}
		for _, d := range e.Data {
			switch names[d.Key] {
			case "weight":
				w, err := strconv.ParseFloat(d.Text, 64)
				if err != nil {
					t.Fatal(err)
				}
				props["weight"] = w / scale
			case "keywords":
				tags := []any{}
				for _, p := range strings.Split(d.Text, ",") {
					if p = strings.TrimSpace(p); p != "" {
						tags = append(tags, p)
					}
				}
				props["tags"] = tags
			}
		}
		g.Rels = append(g.Rels, apoc.Relationship{InternalID: strconv.Itoa(i), Type: "RELATES", Start: e.Source, End: e.Target, Properties: props})
	}
	return g
}

// TestGraphMLLightRAGRetrievers: on LightRAG's own GraphML file, read as
// it is (the lightrag preset chosen by its keys), every retriever ranks
// exactly as on the same graph written by hand as APOC JSON lines in
// memoria's shape (lightragByHand), seeds "LOLLMS" (quotes and all) and
// "PARISNEO"; and with --weight-scale max exactly as on that graph with
// every weight divided by 35, the largest (<data key="d3">35.0</data>, the
// edge LOLLMS - PARISNEO).
func TestGraphMLLightRAGRetrievers(t *testing.T) {
	for _, sc := range []struct {
		flag  string
		scale float64
	}{{"none", 1}, {"max", 35}} {
		plain := writeAPOC(t, lightragByHand(t, sc.scale))
		for _, r := range schemaRetrievers {
			args := []string{"explore", "--retriever", r, "--format", "ranking", "--tags", "client compatibility,creation",
				"--seed", `"LOLLMS"`, "--seed", `"PARISNEO"=0.7`}
			code, want, errs := run(t, append(args, "--graph", plain)...)
			if code != 0 {
				t.Fatalf("%s on memoria's shape: exit %d: %s", r, code, errs)
			}
			code, got, errs := run(t, append(args, "--graph", lightragGraphML, "--weight-scale", sc.flag)...)
			if code != 0 {
				t.Fatalf("%s on the GraphML file: exit %d: %s", r, code, errs)
			}
			if got != want {
				t.Errorf("%s --weight-scale %s: on the GraphML file\n%s\nby hand\n%s", r, sc.flag, got, want)
			}
			if !strings.Contains(got, `"rank":3`) {
				t.Errorf("%s: want at least three hits: %s", r, got)
			}
			if !strings.Contains(errs, `read as --schema lightrag: it declares the node key "source_id"`) {
				t.Errorf("stderr does not say which preset and why: %s", errs)
			}
			hint := strings.Contains(errs, "--weight-scale max divides each by the largest")
			if hint != (sc.flag == "none") {
				t.Errorf("--weight-scale %s: the hint on stderr %v: %s", sc.flag, hint, errs)
			}
		}
	}
}

// TestGraphMLStats: stats on LightRAG's file counts 66 nodes and 32
// relationships (grep -c '<node ' and '<edge ' on the file), every one
// traversed; --schema memoria reads it as memoria's own shape, without the
// lightrag note.
func TestGraphMLStats(t *testing.T) {
	code, out, errs := run(t, "stats", "--graph", lightragGraphML, "--format", "json")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errs)
	}
	for _, want := range []string{`"nodes":66`, `"relationships":32`} {
		if !strings.Contains(strings.ReplaceAll(out, " ", ""), want) {
			t.Errorf("stats lack %s: %s", want, out)
		}
	}
	code, _, errs = run(t, "stats", "--graph", lightragGraphML, "--schema", "memoria")
	if code != 0 || strings.Contains(errs, "read as --schema") {
		t.Errorf("--schema memoria: exit %d: %s", code, errs)
	}
}

// TestGraphMLExportRoundTrip: the demo graph exported as GraphML reads
// back (export --graph FILE.graphml --format jsonl) to the demo graph:
// the same nodes (labels and properties, by id) and relationships (ends,
// type and properties), in the same order.
func TestGraphMLExportRoundTrip(t *testing.T) {
	code, gml, errs := run(t, "export", "--format", "graphml")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errs)
	}
	p := filepath.Join(t.TempDir(), "demo.graphml")
	if err := os.WriteFile(p, []byte(gml), 0o600); err != nil {
		t.Fatal(err)
	}
	code, out, errs := run(t, "export", "--graph", p, "--format", "jsonl")
	if code != 0 {
		t.Fatalf("reading the export back: exit %d: %s", code, errs)
	}
	got, err := apoc.Parse(strings.NewReader(out))
	if err != nil {
		t.Fatal(err)
	}
	code, jsonl, _ := run(t, "export", "--format", "jsonl")
	if code != 0 {
		t.Fatal("export")
	}
	want, err := apoc.Parse(strings.NewReader(jsonl))
	if err != nil {
		t.Fatal(err)
	}
	if a, b := sameGraph(want), sameGraph(got); a != b || len(got.Nodes) != 57 || len(got.Rels) != 69 {
		t.Errorf("the GraphML export reads back to another graph:\n%s\nwant\n%s", b, a)
	}
}

// sameGraph writes g without its internal ids: nodes and relationships
// in order, a relationship's ends by their id property, property maps in
// key order with Go's %#v of each value (int64 and float64 differ).
func sameGraph(g *apoc.Graph) string {
	id := map[string]string{}
	var b strings.Builder
	props := func(m map[string]any) {
		keys := make([]string, 0, len(m))
		for k := range m {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		for _, k := range keys {
			b.WriteString(" " + strconv.Quote(k) + "=" + strings.ReplaceAll(strings.TrimSpace(fmtValue(m[k])), "\n", " "))
		}
		b.WriteString("\n")
	}
	for _, n := range g.Nodes {
		id[n.InternalID], _ = n.Properties["id"].(string)
		b.WriteString("node " + strings.Join(n.Labels, ":"))
		props(n.Properties)
	}
	for _, r := range g.Rels {
		b.WriteString("rel " + strconv.Quote(id[r.Start]) + " " + r.Type + " " + strconv.Quote(id[r.End]))
		props(r.Properties)
	}
	return b.String()
}

func fmtValue(v any) string {
	switch x := v.(type) {
	case []any:
		parts := make([]string, len(x))
		for i, e := range x {
			parts[i] = fmtValue(e)
		}
		return "[" + strings.Join(parts, ",") + "]"
	case string:
		return strconv.Quote(x)
	case float64:
		return "f" + strconv.FormatFloat(x, 'g', -1, 64)
	case int64:
		return "i" + strconv.FormatInt(x, 10)
	case bool:
		return strconv.FormatBool(x)
	}
	return "?"
}

// writeFile writes text to a file of that name in a temporary directory.
func writeFile(t *testing.T, name, text string) string {
	t.Helper()
	p := filepath.Join(t.TempDir(), name)
	if err := os.WriteFile(p, []byte(text), 0o600); err != nil {
		t.Fatal(err)
	}
	return p
}

// TestGraphMLHostileText: a node id, a key name, a type and a keyword
// holding a right-to-left override (U+202E), a C1 CSI (U+009B) and a
// newline, all legal in XML, reach the terminal escaped (stats' hub line,
// explore's tree, the lightrag note); a raw ESC, which XML forbids, is
// refused with its line.
func TestGraphMLHostileText(t *testing.T) {
	doc := `<graphml>
<key id="k" for="edge" attr.name="keywords" attr.type="string"/>
<key id="h" for="edge" attr.name="note&#x202E;" attr.type="string"/>
<key id="e" for="node" attr.name="entity_id" attr.type="string"/>
<key id="w" for="edge" attr.name="weight" attr.type="double"/>
<graph edgedefault="undirected">
<node id="a"><data key="e">A&#x202E;&#x9B;31m&#xA;x</data></node>
<node id="b"><data key="e">B</data></node>
<node id="c"><data key="e">C</data></node>
<edge source="a" target="b"><data key="w">0.9</data><data key="k">k&#x9B;1m</data><data key="h">&#x202E;</data></edge>
<edge source="a" target="c"><data key="w">0.8</data></edge>
</graph></graphml>`
	p := writeFile(t, "hostile.graphml", doc)
	for _, args := range [][]string{
		{"stats", "--graph", p},
		{"explore", "--graph", p, "--seed", "B", "--format", "tree"},
		{"explore", "--graph", p, "--seed", "B", "--format", "ranking", "--retriever", "ppr"},
	} {
		code, out, errs := run(t, args...)
		if code != 0 {
			t.Fatalf("%v: exit %d: %s", args, code, errs)
		}
		for _, raw := range []string{"\u202e", "\u009b"} {
			if strings.Contains(out, raw) || strings.Contains(errs, raw) {
				t.Errorf("%v: %q reached the terminal raw:\n%s\n%s", args, raw, out, errs)
			}
		}
		if !strings.Contains(out+errs, `\u202e`) && !strings.Contains(out+errs, `\u202E`) {
			t.Errorf("%v: the override is not shown escaped:\n%s\n%s", args, out, errs)
		}
	}
	bad := writeFile(t, "esc.graphml", "<graphml><graph>\n<node id=\"a\x1b[31m\"/></graph></graphml>")
	code, _, errs := run(t, "stats", "--graph", bad)
	if code != 1 || !strings.Contains(errs, "esc.graphml: line 2: malformed XML") || strings.Contains(errs, "\x1b") {
		t.Errorf("a raw ESC: exit %d: %q", code, errs)
	}
}

// TestGraphMLNanoGraphRAG: a file of nano-graphrag's keys (clusters,
// source_id; edges with weight, description, order, and no keywords)
// reads as lightrag, the missing keywords key a graph without tags (not a
// refusal). By hand from "A" (R 1), Activation Energy reaches "B" over
// the edge of weight 0.5 with no query tags: 1 × 0.5 / √1 × 1 = 0.5.
func TestGraphMLNanoGraphRAG(t *testing.T) {
	doc := `<graphml>
<key id="d0" for="node" attr.name="entity_type" attr.type="string"/>
<key id="d1" for="node" attr.name="clusters" attr.type="string"/>
<key id="d2" for="edge" attr.name="weight" attr.type="double"/>
<key id="d3" for="edge" attr.name="order" attr.type="long"/>
<graph edgedefault="undirected">
<node id="&quot;A&quot;"><data key="d0">"PERSON"</data><data key="d1">[{"level": 0, "cluster": 1}]</data></node>
<node id="&quot;B&quot;"><data key="d0">"ORG"</data></node>
<edge source="&quot;A&quot;" target="&quot;B&quot;"><data key="d2">0.5</data><data key="d3">1</data></edge>
</graph></graphml>`
	p := writeFile(t, "nano.graphml", doc)
	code, out, errs := run(t, "explore", "--graph", p, "--seed", `"A"`, "--format", "ranking")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errs)
	}
	if !strings.Contains(errs, `it declares the node key "clusters" (nano-graphrag's)`) {
		t.Errorf("stderr: %s", errs)
	}
	if !strings.Contains(out, `"node_id":"\"B\"","score":0.5,`) {
		t.Errorf("want \"B\" at 0.5: %s", out)
	}
}

// TestGraphMLRefusedByCLI: the billion laughs and an edge to an undeclared
// node are refused naming the file and the line, exit 1, nothing on
// stdout; --weight-scale other than none or max is a usage error (exit 2).
func TestGraphMLRefusedByCLI(t *testing.T) {
	lol := `<?xml version="1.0"?>
<!DOCTYPE lolz [<!ENTITY lol "lol"><!ENTITY lol2 "&lol;&lol;&lol;&lol;&lol;&lol;&lol;&lol;&lol;&lol;">]>
<graphml><graph><node id="&lol2;"/></graph></graphml>`
	p := writeFile(t, "lol.graphml", lol)
	code, out, errs := run(t, "stats", "--graph", p)
	if code != 1 || out != "" || !strings.Contains(errs, "lol.graphml: line 2: a DOCTYPE") {
		t.Errorf("billion laughs: exit %d, stdout %q, stderr %q", code, out, errs)
	}
	p = writeFile(t, "dangling.graphml", "<graphml><graph>\n<node id=\"a\"/>\n<edge source=\"a\" target=\"zz\"/></graph></graphml>")
	code, out, errs = run(t, "export", "--graph", p)
	if code != 1 || out != "" || !strings.Contains(errs, "dangling.graphml: line 3: relationship 0 ends at unknown node zz") {
		t.Errorf("dangling edge: exit %d, stdout %q, stderr %q", code, out, errs)
	}
	code, _, errs = run(t, "stats", "--weight-scale", "log")
	if code != 2 || !strings.Contains(errs, "--weight-scale") {
		t.Errorf("--weight-scale log: exit %d: %s", code, errs)
	}
}

// TestWeightScaleKeepsStored: --weight-scale max changes the weight the
// retrievers walk (TestGraphMLLightRAGRetrievers), not the property:
// export still writes the edge "LOLLMS" - "PARISNEO" with its stored
// weight 35.0 and "GPT4ALL" - "LOLLMZ" with 8.0, and stderr names the
// divisor, 35.
func TestWeightScaleKeepsStored(t *testing.T) {
	code, out, errs := run(t, "export", "--graph", lightragGraphML, "--weight-scale", "max")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errs)
	}
	for _, want := range []string{`"weight":35.0},"start":{"id":"\"LOLLMS\""},"end":{"id":"\"PARISNEO\""}`, `"weight":8.0},"start":{"id":"\"GPT4ALL\""}`} {
		if !strings.Contains(out, want) {
			t.Errorf("export lacks %s", want)
		}
	}
	if !strings.Contains(errs, "every traversed weight divided by 35, the largest") {
		t.Errorf("stderr: %s", errs)
	}
}

// TestGraphMLQueryLightRAGFields: --query on LightRAG's file, the lightrag
// preset chosen by its keys, gathers by lightrag's fields (entity_id /
// description): "LOLLMS" is the id "LOLLMS" with its quotes, an exact
// match, the first seed at R 1. The gather stage read memoria's fields (name, title / text,
// description, summary) when the preset was chosen by the file, and put
// "LOLLMS ELF SERVER` first from the descriptions.
func TestGraphMLQueryLightRAGFields(t *testing.T) {
	code, _, errs := run(t, "explore", "--graph", lightragGraphML, "--query", "LOLLMS", "--retriever", "ppr", "--format", "ranking")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errs)
	}
	if !strings.Contains(errs, `--query gathered 3 seeds: "\"LOLLMS\"" (R 1), `) {
		t.Errorf("stderr: %s", errs)
	}
}
