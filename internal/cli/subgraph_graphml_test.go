package cli

import (
	"encoding/xml"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// xmllintPath is Debian's libxml2-utils xmllint; without it the GraphML
// schema tests skip, and fail under CI=true (.ci/run installs it).
func xmllintPath(t *testing.T) string {
	t.Helper()
	p, err := exec.LookPath("xmllint")
	if err == nil {
		return p
	}
	if os.Getenv("CI") == "true" {
		t.Fatal("xmllint not found (apt-get install libxml2-utils; .ci/run installs it): GraphML cannot be validated")
	}
	t.Skip("xmllint not found (apt-get install libxml2-utils): skipping the GraphML schema checks")
	return ""
}

// validateGraphML checks doc against the published GraphML schema
// (testdata/graphml, vendored: its README) with xmllint, no network.
func validateGraphML(t *testing.T, name, doc string) error {
	t.Helper()
	bin := xmllintPath(t)
	file := filepath.Join(t.TempDir(), name+".graphml")
	if err := os.WriteFile(file, []byte(doc), 0o644); err != nil {
		t.Fatal(err)
	}
	out, err := exec.Command(bin, "--noout", "--nonet", "--schema", "../../testdata/graphml/graphml.xsd", file).CombinedOutput()
	if err != nil {
		return &graphmlError{string(out)}
	}
	return nil
}

type graphmlError struct{ out string }

func (e *graphmlError) Error() string { return e.out }

// graphmlDoc is what the tests read back of a GraphML document.
type graphmlDoc struct {
	Keys []struct {
		ID   string `xml:"id,attr"`
		For  string `xml:"for,attr"`
		Name string `xml:"attr.name,attr"`
		Type string `xml:"attr.type,attr"`
		Desc string `xml:"desc"`
	} `xml:"key"`
	Nodes []struct {
		ID   string `xml:"id,attr"`
		Data []struct {
			Key   string `xml:"key,attr"`
			Value string `xml:",chardata"`
		} `xml:"data"`
	} `xml:"graph>node"`
	Edges []struct {
		Source string `xml:"source,attr"`
		Target string `xml:"target,attr"`
		Data   []struct {
			Key   string `xml:"key,attr"`
			Value string `xml:",chardata"`
		} `xml:"data"`
	} `xml:"graph>edge"`
}

// TestGraphMLValid: export, explore (Activation Energy and a ranking
// retriever) and compare write GraphML the schema accepts, on the demo
// graph and on the hostile one; the validator refuses a broken document
// (so it does check); explore's carries T and the scores.
func TestGraphMLValid(t *testing.T) {
	hostile := writeHostileHTMLGraph(t)
	cases := map[string][]string{
		"export-demo":       {"export", "--format", "graphml"},
		"export-hostile":    {"export", "--graph", hostile, "--format", "graphml"},
		"explore-demo":      {"explore", "--seed", "N2006=0.85", "--tags", "demand_forecasting,stockout,safety_stock,inventory_policy", "--format", "graphml"},
		"explore-hostile":   {"explore", "--graph", hostile, "--seed", "P0", "--format", "graphml"},
		"explore-expansion": {"explore", "--retriever", "expansion", "--seed", "N2006", "--format", "graphml"},
		"compare-demo":      {"compare", "--seed", "N2006", "--format", "graphml"},
	}
	docs := map[string]string{}
	for name, args := range cases {
		code, out, stderr := run(t, args...)
		if code != 0 {
			t.Fatalf("%s: exit %d: %s", name, code, stderr)
		}
		if err := validateGraphML(t, name, out); err != nil {
			t.Errorf("%s is not valid GraphML: %v", name, err)
		}
		if strings.ContainsAny(out, "\x1b\u202e\u200b\r") {
			t.Errorf("%s holds a raw control, bidi or zero-width character", name)
		}
		docs[name] = out
	}
	broken := strings.Replace(docs["export-demo"], `<node id="n0">`, `<node id="n 0">`, 1)
	if validateGraphML(t, "broken", broken) == nil {
		t.Error("xmllint accepted a node id that is not an NMTOKEN: the check checks nothing")
	}

	var d graphmlDoc
	if err := xml.Unmarshal([]byte(docs["explore-demo"]), &d); err != nil {
		t.Fatal(err)
	}
	names := map[string]string{}
	for _, k := range d.Keys {
		names[k.ID] = k.For + ":" + k.Name + ":" + k.Type
	}
	values := map[string]string{}
	for _, e := range d.Edges {
		for _, v := range e.Data {
			values[names[v.Key]] += v.Value + " "
		}
	}
	for _, n := range d.Nodes {
		for _, v := range n.Data {
			values[names[v.Key]] += v.Value + " "
		}
	}
	// Scenario A's first hop (docs/ALGORITHM.md): T 0.1016…, tag_sim 7/24, d 4.
	for key, want := range map[string]string{"edge:memoria_T:double": "0.1016", "edge:memoria_d:long": "4", "edge:memoria_tag_sim:double": "0.29166",
		"node:memoria_R:double": "0.85", "node:memoria_seed:boolean": "true", "node:memoria_activation:double": "0.1016"} {
		if !strings.Contains(values[key], want) {
			t.Errorf("explore's GraphML %s = %q, want it to hold %s", key, values[key], want)
		}
	}

	// Hostile text reads back: exactly where XML can carry it, as the
	// text formats' escape where XML 1.0 forbids the character.
	if err := xml.Unmarshal([]byte(docs["export-hostile"]), &d); err != nil {
		t.Fatal(err)
	}
	all := ""
	for _, k := range d.Keys {
		all += k.Desc + "\n"
	}
	for _, n := range d.Nodes {
		for _, v := range n.Data {
			all += v.Value + "\n"
		}
	}
	for _, want := range []string{`<img src=x onerror="window.__pwned=1">`, "</script><script>window.__pwned=2</script>", "H2\u202ecod.exe",
		"zw\u200bx\ufeff\nline2", "v\r\u202ex", `H0\x1b]52;c;SEFDS0VE\a`, `k\x1b[2J`, "<b onmouseover=window.__pwned=1>key"} {
		if !strings.Contains(all, want) {
			t.Errorf("the hostile export does not read back %q", want)
		}
	}
}
