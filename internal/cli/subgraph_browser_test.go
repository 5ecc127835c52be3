package cli

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/chromedp/cdproto/log"
	"github.com/chromedp/cdproto/network"
	"github.com/chromedp/cdproto/runtime"
	"github.com/chromedp/chromedp"
	"github.com/memoria-graph/memoria/render/subgraph"
)

// The page of --format html in a real browser: Debian's headless Chromium,
// driven over the DevTools protocol by chromedp (docs/TESTING.md, "In a
// real browser"; why chromedp: the README's dependencies). Without
// Chromium the tests skip, and fail under CI=true (.ci/run installs it).

// chromiumPath is the browser the tests drive: $MEMORIA_CHROMIUM, else
// chromium on PATH, else /usr/bin/chromium.
func chromiumPath(t *testing.T) string {
	t.Helper()
	if p := os.Getenv("MEMORIA_CHROMIUM"); p != "" {
		return p
	}
	if p, err := exec.LookPath("chromium"); err == nil {
		return p
	}
	if _, err := os.Stat("/usr/bin/chromium"); err == nil {
		return "/usr/bin/chromium"
	}
	if os.Getenv("CI") == "true" {
		t.Fatal("chromium not found (apt-get install chromium; .ci/run installs it): the HTML page's browser tests cannot run")
	}
	t.Skip("chromium not found (apt-get install chromium): skipping the HTML page's browser tests")
	return ""
}

// browserPage is one loaded page and what the browser reported while
// loading and using it.
type browserPage struct {
	ctx      context.Context
	mu       sync.Mutex
	problems []string // console errors and warnings, exceptions, error log entries
	requests []string // every request's URL
}

func (p *browserPage) note(list *[]string, s string) {
	p.mu.Lock()
	defer p.mu.Unlock()
	*list = append(*list, s)
}

func (p *browserPage) seen() (problems, requests []string) {
	p.mu.Lock()
	defer p.mu.Unlock()
	return slices.Clone(p.problems), slices.Clone(p.requests)
}

// openPage writes html to a file and opens it in a fresh headless
// Chromium (its own profile), listening to the console, the log and the
// network before the page loads; it waits until the page's script has
// drawn (window.__memoriaReady).
func openPage(t *testing.T, html string) (*browserPage, string) {
	t.Helper()
	bin := chromiumPath(t)
	dir := t.TempDir()
	file := filepath.Join(dir, "page.html")
	if err := os.WriteFile(file, []byte(html), 0o644); err != nil {
		t.Fatal(err)
	}
	// The flags keep a closed network quiet: no background, component,
	// sync or QUIC traffic of the browser's own.
	alloc, cancelAlloc := chromedp.NewExecAllocator(context.Background(),
		chromedp.ExecPath(bin), chromedp.Headless, chromedp.NoSandbox, chromedp.DisableGPU, chromedp.NoFirstRun,
		chromedp.Flag("disable-quic", true), chromedp.Flag("disable-background-networking", true),
		chromedp.Flag("disable-component-update", true), chromedp.Flag("disable-sync", true),
		chromedp.UserDataDir(filepath.Join(dir, "profile")), chromedp.WindowSize(1400, 900))
	ctx, cancelCtx := chromedp.NewContext(alloc)
	ctx, cancelTimeout := context.WithTimeout(ctx, 90*time.Second)
	t.Cleanup(func() { cancelTimeout(); cancelCtx(); cancelAlloc() })
	p := &browserPage{ctx: ctx}
	err := chromedp.Listen(ctx, func(ev any) {
		switch ev := ev.(type) {
		case *runtime.EventConsoleAPICalled:
			if ev.Type == runtime.ConsoleAPICalledTypeError || ev.Type == runtime.ConsoleAPICalledTypeWarning || ev.Type == runtime.ConsoleAPICalledTypeAssert {
				var args []string
				for _, a := range ev.Args {
					args = append(args, string(a.Value)+a.Description)
				}
				p.note(&p.problems, "console."+string(ev.Type)+": "+strings.Join(args, " "))
			}
		case *runtime.EventExceptionThrown:
			d := ev.ExceptionDetails
			msg := d.Text
			if d.Exception != nil {
				msg += " " + d.Exception.Description
			}
			p.note(&p.problems, "exception: "+msg)
		case *log.EventEntryAdded:
			if ev.Entry.Level == log.EntryLevelError || ev.Entry.Level == log.EntryLevelWarning {
				p.note(&p.problems, "log "+string(ev.Entry.Source)+" "+string(ev.Entry.Level)+": "+ev.Entry.Text)
			}
		case *network.EventRequestWillBeSent:
			p.note(&p.requests, ev.Request.URL)
		}
	})
	if err != nil {
		t.Fatalf("starting %s: %v", bin, err)
	}
	if _, err := chromedp.Call(ctx, network.Enable, network.EnableParams{}); err != nil {
		t.Fatalf("enabling the network domain: %v", err)
	}
	url := "file://" + file
	if err = chromedp.Do(ctx, chromedp.Navigate(url)); err == nil {
		_, err = chromedp.Run(ctx, chromedp.Poll[bool](`window.__memoriaReady === true`, chromedp.WithPollingTimeout(30*time.Second)))
	}
	if err != nil {
		problems, _ := p.seen()
		t.Fatalf("loading the page: %v (browser said: %q)", err, problems)
	}
	return p, url
}

// evalJS evaluates a JavaScript expression in the page.
func evalJS[T any](t *testing.T, p *browserPage, js string) T {
	t.Helper()
	v, err := chromedp.Run(p.ctx, chromedp.Evaluate[T](js))
	if err != nil {
		t.Fatalf("evaluating %s: %v", js, err)
	}
	return v
}

// clean fails the test on any console error or warning, exception, error
// log entry (a Content-Security-Policy violation is one) or request other
// than the page itself.
func (p *browserPage) clean(t *testing.T, url string) {
	t.Helper()
	problems, requests := p.seen()
	if len(problems) > 0 {
		t.Errorf("the browser reported %d problems: %q", len(problems), problems)
	}
	for _, r := range requests {
		if r != url {
			t.Errorf("the page made a request: %q", r)
		}
	}
}

// hover moves the pointer onto the node whose data-id is id (a mouseover
// at its centre, as D3 listens for) and returns the tooltip's text.
func (p *browserPage) hover(t *testing.T, id string) string {
	t.Helper()
	arg, _ := json.Marshal(id)
	return evalJS[string](t, p, `(() => {
		const el = [...document.querySelectorAll('#graph g.node')].find(e => e.getAttribute('data-id') === `+string(arg)+`);
		if (!el) return "no such node";
		const r = el.getBoundingClientRect();
		el.dispatchEvent(new MouseEvent('mouseover', {bubbles: true, clientX: r.x + r.width / 2, clientY: r.y + r.height / 2}));
		const tip = document.getElementById('tooltip');
		return getComputedStyle(tip).display === 'none' ? "tooltip hidden" : tip.textContent;
	})()`)
}

func (p *browserPage) count(t *testing.T, selector string) int {
	t.Helper()
	return evalJS[int](t, p, fmt.Sprintf(`document.querySelectorAll(%q).length`, selector))
}

func (p *browserPage) screenshot(t *testing.T, name string) {
	t.Helper()
	png, err := chromedp.Run(p.ctx, chromedp.CaptureScreenshot())
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(t.ArtifactDir(), name)
	if err := os.WriteFile(path, png, 0o644); err != nil {
		t.Fatal(err)
	}
	t.Logf("screenshot: %s (kept with go test -artifacts)", path)
	if to := os.Getenv("MEMORIA_SCREENSHOT_TO"); to != "" {
		if err := os.WriteFile(filepath.Join(to, name), png, 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

// treeHop matches a hop's numbers on a line of the tree format.
var treeHop = regexp.MustCompile(`^[│├└─ ]*(\S+) .*? (T=\S+ w=\S+ tag_sim=\S+ d=\d+)`)

// TestHTMLPageInBrowser: the demo graph's N2006 page loads with no console
// error and no request; it holds exactly the D3 graph's nodes and links
// (with the near misses and losers hidden; shown, they add dashed links
// and ghost nodes only); every reached node's tooltip shows its hop as the
// tree writes it; a screenshot is written.
func TestHTMLPageInBrowser(t *testing.T) {
	args := []string{"explore", "--seed", "N2006"}
	code, html, stderr := run(t, append(args, "--format", "html")...)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	_, d3out, _ := run(t, append(args, "--format", "d3")...)
	var d3 struct {
		Nodes []struct {
			ID string `json:"id"`
		} `json:"nodes"`
		Links []any `json:"links"`
	}
	if err := json.Unmarshal([]byte(d3out), &d3); err != nil {
		t.Fatal(err)
	}
	_, tree, _ := run(t, append(args, "--format", "tree")...)
	hops := map[string]string{}
	for _, line := range strings.Split(tree, "\n") {
		if m := treeHop.FindStringSubmatch(line); m != nil {
			hops[m[1]] = m[2]
		}
	}
	if len(hops) < 10 {
		t.Fatalf("the tree has %d hops, want the demo's N2006 run:\n%s", len(hops), tree)
	}

	p, url := openPage(t, html)
	// Shown: the result's elements, plus dashed ones.
	if got, want := p.count(t, "#graph g.node:not(.ghost)"), len(d3.Nodes); got != want {
		t.Errorf("%d result nodes drawn, the D3 graph has %d", got, want)
	}
	if got, want := p.count(t, "#graph line.link.kept"), len(d3.Links); got != want {
		t.Errorf("%d kept links drawn, the D3 graph has %d", got, want)
	}
	if p.count(t, "#graph line.link.miss") == 0 || p.count(t, "#graph g.node.ghost") == 0 {
		t.Error("no dashed links or ghost nodes: N2006's run has losing candidates (N2014 among them)")
	}
	if n := p.count(t, "#legend .legend-item"); n < 4 {
		t.Errorf("the legend has %d items", n)
	}
	for id, hop := range hops {
		if tip := p.hover(t, id); !strings.Contains(tip, hop) {
			t.Errorf("%s's tooltip %q lacks the tree's %q", id, tip, hop)
		}
	}
	if tip := p.hover(t, "N2006"); !strings.Contains(tip, "R=1") {
		t.Errorf("the seed's tooltip %q lacks R=1", tip)
	}
	p.hover(t, "N2003") // the README's picture shows its tooltip
	p.screenshot(t, "n2006.png")

	// Hidden: exactly the D3 graph.
	if err := chromedp.Do(p.ctx, chromedp.Click(chromedp.CSS("#show-misses"))); err != nil {
		t.Fatal(err)
	}
	if got, want := p.count(t, "#graph g.node"), len(d3.Nodes); got != want {
		t.Errorf("toggled off: %d nodes drawn, the D3 graph has %d", got, want)
	}
	if got, want := p.count(t, "#graph line.link"), len(d3.Links); got != want {
		t.Errorf("toggled off: %d links drawn, the D3 graph has %d", got, want)
	}
	ids := evalJS[[]string](t, p, `[...document.querySelectorAll('#graph g.node')].map(e => e.getAttribute('data-id'))`)
	for _, n := range d3.Nodes {
		if !slices.Contains(ids, n.ID) {
			t.Errorf("node %s of the D3 graph is not drawn", n.ID)
		}
	}
	// A click keeps the details: the properties and the formula.
	details := evalJS[string](t, p, `(() => { const el = [...document.querySelectorAll('#graph g.node')].find(e => e.getAttribute('data-id') === 'N2003');
		el.dispatchEvent(new MouseEvent('click', {bubbles: true})); return document.getElementById('details').textContent; })()`)
	for _, want := range []string{"T = 1 × 0.82 / √4 × 1 = 0.41", "created_at", "Recommended raising FAST-200"} {
		if !strings.Contains(details, want) {
			t.Errorf("N2003's details lack %q: %q", want, details)
		}
	}
	p.clean(t, url)
}

// hostileHTMLGraph is testdata/hostile.jsonl (terminal attacks in every
// text) plus nodes whose ids, labels, property keys and values and tags are
// HTML and script payloads; P0 reaches them all.
const hostileHTMLGraph = `
{"type":"node","id":"10","labels":["<img src=x onerror=window.__pwned=1>"],"properties":{"id":"P0","text":"</script><script>window.__pwned=1</script>","<b onmouseover=window.__pwned=1>key":"<img src=x onerror=\"window.__pwned=1\">"}}
{"type":"node","id":"11","labels":["Event"],"properties":{"id":"<img src=x onerror=window.__pwned=1>","text":"<script>window.__pwned=1</script>"}}
{"type":"node","id":"12","labels":["Event"],"properties":{"id":"</script><script>window.__pwned=2</script>","text":"\u2028<!--<script>x\u2029"}}
{"type":"relationship","id":"10","label":"RELATES","properties":{"weight":0.9,"tags":["<script>window.__pwned=1</script>"]},"start":{"id":"10"},"end":{"id":"11"}}
{"type":"relationship","id":"11","label":"RELATES","properties":{"weight":0.8,"tags":["plain"]},"start":{"id":"11"},"end":{"id":"12"}}
{"type":"relationship","id":"12","label":"RELATES","properties":{"weight":0.9,"tags":["plain"]},"start":{"id":"10"},"end":{"id":"0"}}
{"type":"relationship","id":"13","label":"RELATES","properties":{"weight":0.3,"tags":["plain"]},"start":{"id":"10"},"end":{"id":"2"}}
`

// writeHostileHTMLGraph writes hostileHTMLGraph after hostile.jsonl.
func writeHostileHTMLGraph(t *testing.T) string {
	t.Helper()
	b, err := os.ReadFile("../../testdata/hostile.jsonl")
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(t.TempDir(), "hostile-html.jsonl")
	if err := os.WriteFile(path, append(b, hostileHTMLGraph...), 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

// TestHTMLPageHostile: on the hostile graph, every id (controls, bidi
// overrides, "</script>" and "<img onerror>" payloads) is drawn as an
// attribute holding exactly the text, the payloads show as text in the
// details, nothing runs (window.__pwned stays undefined, no img element,
// only the page's three scripts) and nothing is requested.
func TestHTMLPageHostile(t *testing.T) {
	graphFile := writeHostileHTMLGraph(t)
	args := []string{"explore", "--graph", graphFile, "--seed", "P0", "--max-branches", "2"}
	code, html, stderr := run(t, append(args, "--format", "html")...)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	if strings.Contains(html, "<img") || strings.Count(html, "</script>") != 3 || strings.Contains(html, "\x1b") {
		t.Error("a payload reached the page's source raw")
	}
	_, d3out, _ := run(t, append(args, "--format", "d3")...)
	var d3 struct {
		Nodes []struct {
			ID string `json:"id"`
		} `json:"nodes"`
	}
	if err := json.Unmarshal([]byte(d3out), &d3); err != nil {
		t.Fatal(err)
	}
	if len(d3.Nodes) < 4 {
		t.Fatalf("the hostile run reached %d nodes", len(d3.Nodes))
	}

	p, url := openPage(t, html)
	ids := evalJS[[]string](t, p, `[...document.querySelectorAll('#graph g.node')].map(e => e.getAttribute('data-id'))`)
	for _, n := range d3.Nodes {
		if !slices.Contains(ids, n.ID) {
			t.Errorf("node %q is not drawn with its exact id (drawn: %q)", n.ID, ids)
		}
	}
	for _, id := range ids {
		p.hover(t, id)
		evalJS[int](t, p, `(() => { const el = [...document.querySelectorAll('#graph g.node')].find(e => e.getAttribute('data-id') === `+jsString(id)+`);
			el.dispatchEvent(new MouseEvent('click', {bubbles: true})); return 0; })()`)
	}
	details := evalJS[string](t, p, `(() => { const el = [...document.querySelectorAll('#graph g.node')].find(e => e.getAttribute('data-id') === 'P0');
		el.dispatchEvent(new MouseEvent('click', {bubbles: true})); return document.getElementById('details').textContent; })()`)
	labels := evalJS[string](t, p, `document.getElementById('graph').textContent`)
	for _, want := range []string{`<img src=x onerror="window.__pwned=1">`, `<b onmouseover=window.__pwned=1>key`, `</script><script>window.__pwned=1</script>`, `<img src=x onerror=window.__pwned=1>`} {
		if !strings.Contains(details, want) {
			t.Errorf("P0's details lack the literal text %q: %q", want, details)
		}
	}
	if !strings.Contains(labels, "</script><script>window.__pwned=2</script>") {
		t.Errorf("the drawing's labels lack a payload as text: %q", labels)
	}
	if pwned := evalJS[string](t, p, `typeof window.__pwned`); pwned != "undefined" {
		t.Errorf("window.__pwned is %s: a payload ran", pwned)
	}
	if n := p.count(t, "img"); n != 0 {
		t.Errorf("%d img elements in the document", n)
	}
	if n := p.count(t, "script"); n != 3 {
		t.Errorf("%d script elements, want the page's 3", n)
	}
	if n := p.count(t, "#details b, #graph b, #tooltip b"); n != 0 {
		t.Errorf("%d b elements made from text", n)
	}
	p.screenshot(t, "hostile.png")
	p.clean(t, url)
}

func jsString(s string) string {
	b, _ := json.Marshal(s)
	return string(b)
}

// TestHTMLCompareInBrowser: compare --format html draws each retriever's
// hits in its colour, marks the shared ones, and loads clean.
func TestHTMLCompareInBrowser(t *testing.T) {
	code, html, stderr := run(t, "compare", "--seed", "N2006", "--retrievers", "activation,expansion,ppr", "--format", "html")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	p, url := openPage(t, html)
	if n := p.count(t, "#graph g.node.shared"); n == 0 {
		t.Error("no shared hit marked")
	}
	if n := p.count(t, "#graph g.node.shared path.slice"); n == 0 {
		t.Error("shared hits have no per-retriever slices")
	}
	if n := p.count(t, "#legend .legend-item"); n < 5 {
		t.Errorf("the legend has %d items, want one per retriever and more", n)
	}
	if tip := p.hover(t, "N2003"); !strings.Contains(tip, "expansion #") || !strings.Contains(tip, "activation #") {
		t.Errorf("N2003's tooltip %q lacks its ranks", tip)
	}
	p.screenshot(t, "compare.png")
	p.clean(t, url)
}

// TestHTMLPageLarge: at 600 nodes the page still draws every node, fades
// the 100 lowest-scored (beyond 500), labels only the seeds and the 40
// best, and loads clean.
func TestHTMLPageLarge(t *testing.T) {
	g := subgraph.Graph{Mode: subgraph.ModeRanking, Title: "large", Retrievers: []string{"ppr"}}
	for i := range 600 {
		score := 1 - float64(i)/1000
		g.Nodes = append(g.Nodes, subgraph.Node{ID: fmt.Sprintf("N%d", i), Labels: []string{"Memory"}, Seed: i == 0, Score: &score,
			Hits: []subgraph.Hit{{Retriever: "ppr", Rank: i + 1, Score: score}}})
		if i > 0 {
			g.Links = append(g.Links, subgraph.Link{Source: fmt.Sprintf("N%d", (i-1)/3), Target: fmt.Sprintf("N%d", i), Type: "RELATES",
				Weight: 0.5, Fate: subgraph.FateKept})
		}
	}
	page, err := subgraph.HTML(g)
	if err != nil {
		t.Fatal(err)
	}
	start := time.Now()
	p, url := openPage(t, string(page))
	t.Logf("600 nodes drawn in %v", time.Since(start))
	if n := p.count(t, "#graph g.node"); n != 600 {
		t.Errorf("%d nodes drawn, want 600", n)
	}
	if n := p.count(t, "#graph g.node.faded"); n != 100 {
		t.Errorf("%d nodes faded, want the 100 beyond 500", n)
	}
	if n := evalJS[int](t, p, `[...document.querySelectorAll('#graph text.label')].filter(e => e.getAttribute('display') !== 'none').length`); n != 40 {
		t.Errorf("%d labels shown, want the 40 best (the seed among them)", n)
	}
	if faded := evalJS[bool](t, p, `[...document.querySelectorAll('#graph g.node.faded')].every(e => +e.getAttribute('data-id').slice(1) >= 500)`); !faded {
		t.Error("a node among the best 500 faded")
	}
	p.screenshot(t, "large.png")
	p.clean(t, url)
}
