package subgraph

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"reflect"
	"regexp"
	"strings"
	"testing"

	"github.com/memoria-graph/memoria/internal/textsafe"
)

// TestD3IsTheRelease: the embedded D3 is dist/d3.min.js of the npm package
// d3@7.9.2, unchanged (assets/README.md).
func TestD3IsTheRelease(t *testing.T) {
	sum := sha256.Sum256([]byte(d3Script))
	if got := hex.EncodeToString(sum[:]); got != "912111098ea99503a6f4967361d2bbdc9dbf58cf9c678c8e27e5b02d1a07f0c1" {
		t.Errorf("assets/d3.v7.9.2.min.js has sha256 %s, not the release's", got)
	}
	if !strings.HasPrefix(d3Script, "// https://d3js.org v"+D3Version+" ") || !strings.Contains(d3Licence, "Permission to use, copy, modify") {
		t.Error("the embedded D3 or its licence is not the release's")
	}
}

var hostile = []string{"</script><script>window.__pwned=1</script>", `<img src=x onerror="window.__pwned=1">`, "a\u2028b\u2029c",
	"<!--", "&amp;", "\x1b]52;c;SEFDS0VE\x07", "bidi\u202etxt", "zw\u200b", "</SCRIPT >"}

func hostileGraph() Graph {
	props := map[string]any{}
	for i, h := range hostile {
		props[h] = h + string(rune('a'+i))
	}
	return Graph{Mode: ModeActivation, Title: strings.Join(hostile, " "), Notes: hostile, Retrievers: hostile,
		Nodes: []Node{{ID: hostile[0], Labels: hostile, Text: hostile[1], Properties: props, Lines: hostile, Formulas: hostile}},
		Links: []Link{{Source: hostile[0], Target: hostile[0], Type: hostile[1], Tags: hostile, Fate: FateKept, Properties: props}}}
}

// TestDataJSONStaysData: the embedded JSON holds no <, >, &, U+2028,
// U+2029 or rune textsafe refuses (so no "</script>" or "<!--" can end or
// change its element, and no terminal escape is raw), and reads back to
// exactly the graph.
func TestDataJSONStaysData(t *testing.T) {
	g := hostileGraph()
	b, err := DataJSON(g)
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range string(b) {
		if strings.ContainsRune("<>&\u2028\u2029", r) || !textsafe.Safe(r) {
			t.Fatalf("DataJSON holds %q raw: %s", r, b)
		}
	}
	var back Graph
	if err := json.Unmarshal(b, &back); err != nil {
		t.Fatal(err)
	}
	want := g.normal()
	if !reflect.DeepEqual(back.Nodes[0].Properties, want.Nodes[0].Properties) || back.Title != want.Title ||
		!reflect.DeepEqual(back.Nodes[0].Labels, want.Nodes[0].Labels) || back.Links[0].Type != want.Links[0].Type {
		t.Errorf("DataJSON does not read back: %+v", back)
	}
}

// TestHTMLPolicy: the page has one Content-Security-Policy, default-src
// 'none', whose script and style hashes are exactly those of its inline
// scripts and style; the data block is the only other script, of type
// application/json; nothing in the page refers to another resource.
func TestHTMLPolicy(t *testing.T) {
	page, err := HTML(hostileGraph())
	if err != nil {
		t.Fatal(err)
	}
	s := string(page)
	csp := regexp.MustCompile(`<meta http-equiv="Content-Security-Policy" content="([^"]*)">`).FindAllStringSubmatch(s, -1)
	if len(csp) != 1 || !strings.HasPrefix(csp[0][1], "default-src 'none'; ") {
		t.Fatalf("want one CSP starting default-src 'none', got %q", csp)
	}
	scripts := regexp.MustCompile(`(?s)<script>(.*?)</script>`).FindAllStringSubmatch(s, -1)
	styles := regexp.MustCompile(`(?s)<style>(.*?)</style>`).FindAllStringSubmatch(s, -1)
	if len(scripts) != 2 || len(styles) != 1 {
		t.Fatalf("%d inline scripts and %d styles, want 2 and 1", len(scripts), len(styles))
	}
	if want := CSP(scripts[0][1], scripts[1][1], styles[0][1]); csp[0][1] != want {
		t.Errorf("CSP %q, want the hashes of the inline elements: %q", csp[0][1], want)
	}
	if n := strings.Count(s, "<script"); n != 3 || strings.Count(s, `<script id="memoria-data" type="application/json">`) != 1 {
		t.Errorf("%d script elements, want the data block and two scripts", n)
	}
	// The markup outside scripts, and the page's own script and style
	// (D3's source mentions URLs in comments and in functions the page
	// does not call; the CSP would refuse any request they made).
	own := regexp.MustCompile(`(?s)<script([^>]*)>.*?</script>`).ReplaceAllString(s, "<script$1></script>") + pageScript
	own = strings.ReplaceAll(own, "url(#arrow-", "") // the page's own markers
	for _, ref := range []string{"src=", "href=", "url(", "@import", "http://", "https://"} {
		if i := strings.Index(own, ref); i >= 0 {
			t.Errorf("the page refers to a resource: %q", own[max(0, i-40):min(len(own), i+40)])
		}
	}
}

// TestPageScriptWritesText: the page's script never parses text as markup.
func TestPageScriptWritesText(t *testing.T) {
	for _, bad := range []string{"innerHTML", "outerHTML", "insertAdjacentHTML", "document.write", ".html(", "eval(", "Function(", "setAttribute(\"on", "srcdoc"} {
		if strings.Contains(pageScript, bad) {
			t.Errorf("page.js uses %s", bad)
		}
	}
}
