package render

import (
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/memoria-graph/memoria/internal/textsafe"
	"github.com/memoria-graph/memoria/retriever"
	"github.com/memoria-graph/memoria/retriever/activation"
)

// Terminal attacks an attacker can plant in a graph's ids, labels, texts
// and edge properties.
const (
	hostileOSC52 = "\x1b]52;c;SEFDS0VE\x07" // sets the clipboard to "HACKED"
	hostileTitle = "\x1b]0;pwned\x07"       // sets the window title
	hostileClear = "\x1b[2J\x1b[H"          // clears the screen
	hostileBidi  = "evil\u202etxt.exe"      // shows as "evilexe.txt"
)

// hostileIDs are hostileResult's node ids in path order.
var hostileIDs = []string{"S" + hostileOSC52, "mid\rX\u200b", "\ufeff" + hostileBidi}

// hostileResult is one path S → mid → end (ids hostileIDs) whose labels,
// texts and edge properties carry the attacks above. Seed R = 1, first hop
// w = 0.9, d = 1, tag_sim = 1: T = 0.9; second hop w = 0.5, d = 2,
// tag_sim = 1: T = 0.9 × 0.5 / √2 = 0.3182.
func hostileResult() activation.Result {
	n0 := node(hostileIDs[0], hostileTitle, map[string]any{"text": "ask " + hostileOSC52})
	n1 := node(hostileIDs[1], "Mid"+hostileClear, map[string]any{"title": "line1\rline2 " + hostileClear})
	n2 := node(hostileIDs[2], "End\u202eLabel", map[string]any{"name": hostileBidi + "\u200b"})
	e0 := edge(hostileIDs[0], hostileIDs[1], weight(0.9), hostileTitle, "a\u200bb")
	e0.Properties = map[string]any{"note": hostileOSC52, "tags": []any{hostileTitle, "a\u200bb"}, "weight": 0.9}
	e1 := edge(hostileIDs[1], hostileIDs[2], weight(0.5), "x")
	return activation.Result{
		Seed: retriever.Seed{NodeID: hostileIDs[0], Score: 1}, SeedNode: &n0,
		TerminatedReason: activation.TerminatedError, MaxDepthReached: 2,
		Error: "relationship (\"x\")-[:RELATES]-(\"" + hostileClear + "\"): failed",
		Paths: []activation.Path{path(activation.EndMaxDepth, hop(n0, n1, e0, 1, 1, 1), hop(n1, n2, e1, 0.9, 2, 1))},
	}
}

// TestTreeAndLLMEscapeHostileText: the CLI's text formats show every
// attack of hostileResult as a visible escape.
//
// Expected: no line of Tree or of the LLM path strings holds a rune
// textsafe.Safe refuses (ESC, BEL, CR, U+202E, U+200B, U+FEFF); the tree
// shows the seed's label as `\x1b]0;pwned\a`, the middle label as
// `Mid\x1b[2J\x1b[H` and the error's quoted id with `\x1b[2J`; the LLM
// line shows the end label as `End\u202eLabel`.
// Why: these formats print to the terminal; ids and texts were quoted
// already (DisplayID, strconv.Quote), labels and the error line were not.
func TestTreeAndLLMEscapeHostileText(t *testing.T) {
	res := hostileResult()
	tree := Tree(res, TreeOptions{})
	assertSafeLines(t, tree)
	for _, want := range []string{`(\x1b]0;pwned\a)`, `(Mid\x1b[2J\x1b[H)`, `error: relationship ("x")-[:RELATES]-("\x1b[2J\x1b[H"): failed`} {
		if !strings.Contains(tree, want) {
			t.Errorf("tree lacks %s:\n%s", want, tree)
		}
	}
	llm := ToLLMContext(res)
	for _, p := range llm.Paths {
		assertSafeLines(t, p)
	}
	// the whole text, the D3 JSON block included (its strings \u-escaped)
	assertSafeLines(t, llm.Text())
	if !strings.Contains(llm.Paths[0], `(End\u202eLabel: "evil\u202etxt.exe\u200b")`) {
		t.Errorf("LLM path: %s", llm.Paths[0])
	}
}

// assertSafeLines fails when a line of s holds a rune textsafe.Safe
// refuses (s is split at "\n" first) or a byte that is not UTF-8.
func assertSafeLines(t *testing.T, s string) {
	t.Helper()
	if !utf8.ValidString(s) {
		t.Fatalf("not UTF-8: %q", s)
	}
	for i, line := range strings.Split(s, "\n") {
		for _, r := range line {
			if !textsafe.Safe(r) {
				t.Fatalf("line %d holds %U: %q", i+1, r, line)
			}
		}
	}
}
