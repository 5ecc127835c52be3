package tui

import (
	"errors"
	"strings"
	"testing"

	"github.com/memoria-graph/memoria/graph/inmem"
	"github.com/memoria-graph/memoria/internal/textsafe"
	"github.com/memoria-graph/memoria/retriever/activation/oninmem"
	"github.com/memoria-graph/memoria/tui/common"
	"github.com/memoria-graph/memoria/tui/components/tree"
)

// The attacks planted in testdata/hostile.jsonl, and how the explorer must
// show them (textsafe.Escape: Go's escapes).
const (
	hostileOSC52 = "\x1b]52;c;SEFDS0VE\x07" // sets the clipboard to "HACKED"
	hostileH0    = "H0" + hostileOSC52      // node 0's id
	hostileTag   = "t" + hostileOSC52       // a tag of the edge H0–H1
	shownOSC52   = `\x1b]52;c;SEFDS0VE\a`
)

// loadHostile is testdata/hostile.jsonl through the memory engine: three
// nodes and three RELATES edges whose ids, labels, texts, property keys and
// values and tags hold OSC 52 (clipboard), OSC 0 (window title), CSI 2J
// (clear screen), CR, LF, bidi overrides and isolates and zero-width
// characters.
func loadHostile(t testing.TB) *fakeSource {
	t.Helper()
	g, err := inmem.LoadFile("../testdata/hostile.jsonl")
	if err != nil {
		t.Fatalf("hostile graph: %v", err)
	}
	return &fakeSource{Source: g, backend: oninmem.New(g), changed: make(chan struct{}, 1)}
}

// assertCleanView fails unless the whole screen is safe to write to a
// terminal (every rune but the line breaks is textsafe.Safe; the harness
// renders without colour, so not even a style's ESC may appear) and pane,
// the text of the pane under test (untruncated: panes are narrower than
// some lines), shows each of want.
func assertCleanView(t *testing.T, h *harness, where, pane string, want ...string) {
	t.Helper()
	v := h.m.View()
	for i, line := range strings.Split(v, "\n") {
		for _, r := range line {
			if !textsafe.Safe(r) {
				t.Fatalf("%s: line %d holds %U:\n%q\nscreen:\n%s", where, i+1, r, line, textsafe.Escape(v))
			}
		}
	}
	for _, w := range want {
		if !strings.Contains(pane, w) {
			t.Fatalf("%s: the pane lacks %s:\n%s\nscreen:\n%s", where, w, pane, v)
		}
	}
}

// TestHostileGraphShownEscaped drives the explorer over
// testdata/hostile.jsonl through every pane, checking the whole View after
// each step.
//
// Scenario and expected text on screen, at 120×40 (Go escapes, as
// textsafe.Escape writes them; graph text only ever appears escaped):
//
//  1. The seed list: `H0\x1b]52;c;SEFDS0VE\a Req\x1b]0;PWNED\a  clip\x1b]52;c;SEFDS0VE\a me`,
//     `H1\r\x1b[2J Ev\u202eent`, `H2\u202ecod.exe Data\x1b[2J`.
//  2. Tags: typing "t" suggests `t\x1b]52;c;SEFDS0VE\a (1)` (one edge
//     carries it); → completes it and enter chooses it: the chosen tag is
//     the graph's tag itself (raw, so tag_sim matches), the chip reads
//     `[t\x1b]52;c;SEFDS0VE\a]` and the status `added tag t\x1b]52;...\a`.
//  3. Space on H0 (R 1, the default) runs; by hand (docs/ALGORITHM.md rules
//     1, 2, 4): d(H0) = 2; H0–H1 (w 0.9, tags {t…, plain} against {t…}:
//     tag_sim = 0.15 + 0.85 × 1/2 = 0.575) gives T = 1 × 0.9 / √2 × 0.575 =
//     0.636396 × 0.575 = 0.3659 and is kept; the parallel H0–H1 (w 0.2,
//     untagged for the query: 0.15) gives 1 × 0.2 / √2 × 0.15 = 0.02121 and
//     is claimed by H0; H1–H2 (w 0.8, tag_sim 0.15, d(H1) = 3) gives
//     0.365928 × 0.8 / √3 × 0.15 = 0.02535,
//     kept. The tree shows the three escaped ids and labels, the title
//     `tags t\x1b]52;c;SEFDS0VE\a` and the status `added seed H0\x1b]…\a`.
//  4. e (explain) shows the loser `✗ H1\r\x1b[2J` ... `claimed by H0\x1b]52;c;SEFDS0VE\a`.
//  5. The detail pane of H0: its property key `k\x1b[2J: v\r\u202ex` and
//     `note: zw\u200bx\ufeff\nline2`; of H1: `edge tags: t\x1b]52;c;SEFDS0VE\a, plain`
//     and E∩Q with the tag; of the loser: `claimed by H0\x1b]…`.
//  6. The help overlay, and an error message quoting the graph on the
//     status line: `✗ ... \x1b[2J`.
//
// Why: a node whose text is OSC 52 set the clipboard when shown; others
// set the title, cleared the screen or broke the layout with a CR. Every
// pane that shows graph text must escape it.
func TestHostileGraphShownEscaped(t *testing.T) {
	h := newHarness(t, loadHostile(t), Options{})
	assertCleanView(t, h, "seed list", h.m.View())
	h.focusPane(focusParams) // the picker draws its selected row cut to the pane only while focused
	assertCleanView(t, h, "seed list", h.m.seeds.View(),
		`H0`+shownOSC52+` Req\x1b]0;PWNED\a  clip`+shownOSC52+` me`,
		`H1\r\x1b[2J Ev\u202eent  title\x1b]0;PWNED\a x`, `H2\u202ecod.exe Data\x1b[2J  bidi\u202etxt.exe\u2066z\u2069\u200b`)

	h.focusPane(focusTags)
	h.typeText("t")
	assertCleanView(t, h, "tag suggestions", h.m.tags.View(), `t`+shownOSC52+` (1)`)
	h.keys("right", "enter")
	h.settle()
	if got := h.m.tags.Tags(); len(got) != 1 || got[0] != hostileTag {
		t.Fatalf("chosen tags %q, want the graph's tag %q", got, hostileTag)
	}
	assertCleanView(t, h, "tag chips", h.m.tags.View()+h.m.status.Line(tree.Status(h.m.St, nil, false)), `[t`+shownOSC52+`]`, `added tag t`+shownOSC52)

	h.pickerTo(hostileH0)
	h.keys("space")
	h.waitFor("the run to finish", func() bool { return h.m.actRun().ch == nil && !h.m.running() })
	// The status message is a command of its own: wait for it too.
	h.waitFor("the added-seed status", func() bool { return strings.HasPrefix(h.lastStatus().Text, "added seed") })
	assertCleanView(t, h, "tree", h.treeText()+h.m.treeTitle()+"\n"+h.lastStatus().Text,
		`H0`+shownOSC52+` Req\x1b]0;PWNED\a  clip`, `H1\r\x1b[2J Ev\u202eent  title`, `H2\u202ecod.exe Data\x1b[2J  bidi`,
		`T=0.3659 `, `T=0.02535 `, `tags t`+shownOSC52)
	assertCleanView(t, h, "status line", h.m.View(), "added seed H0"+shownOSC52+" with R 1 ")

	h.focusPane(focusTree)
	h.keys("e")
	assertCleanView(t, h, "explain", h.treeText(), `✗ H1\r\x1b[2J Ev\u202eent  T=0.02121  claimed by H0`+shownOSC52)

	h.selectTreeNode(hostileH0)
	assertCleanView(t, h, "detail of H0", detailText(h), `k\x1b[2J: v\r\u202ex`, `note: zw\u200bx\ufeff\nline2`)
	h.selectTreeNode("H1\r\x1b[2J")
	assertCleanView(t, h, "detail of H1", detailText(h), `edge tags: t`+shownOSC52+`, plain`, `E∩Q (1): t`+shownOSC52)
	h.keys("down", "down")
	if _, ok := h.m.tree.SelectedLoser(); !ok {
		t.Fatalf("no loser selected:\n%s", h.treeText())
	}
	assertCleanView(t, h, "detail of the loser", detailText(h), `✗ claimed by H0`+shownOSC52)

	h.keys("?")
	assertCleanView(t, h, "help", h.m.View(), "Keys (? or esc to close")
	h.keys("esc")

	h.send(common.ErrMsg{Err: errors.New("reading node \"H1\r\x1b[2J\": boom")})
	assertCleanView(t, h, "error on the status line", h.m.View(), `reading node "H1\r\x1b[2J": boom`)
}

// detailText is the detail pane's whole explanation of the selection, at
// a width wide enough that no line wraps.
func detailText(h *harness) string {
	s := h.m.subject()
	if s == nil {
		return ""
	}
	return strings.Join(detailLines(h.m.St, h.m.Names, *s, 400, h.m.detail.Validity()), "\n")
}
