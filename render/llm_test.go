package render

import (
	"encoding/json"
	"reflect"
	"strings"
	"testing"

	"github.com/memoria-graph/memoria/graph"
	"github.com/memoria-graph/memoria/retriever"
	"github.com/memoria-graph/memoria/retriever/activation"
)

// TestLLMContextMinimal is docs/EXPORTS.md test B.2, the to_llm_context minimal
// sanity case.
//
// Scenario: minimalResult, seed S1 (R = 0.6) → N1 with w = 0.8, d = 4,
// tag_sim = 0.5.
// Expected: one path string, exactly
//
//	Path 1: [Seed S1] (UserRequest: "Plan the spring campaign") -> [RELATES w=0.8 T=0.12] -> (DataSource: "Q1 sales")
//
// (so it starts with "Path 1: [Seed S1]" and contains "RELATES" and
// "T=0.12"), and Graph equal to ToD3 of the same result.
// Why: T = 0.6 × 0.8 / √4 × 0.5 = 0.48 / 2 × 0.5 = 0.12, written with 3
// decimals; S1's text is its `text`, N1's its `title` (no `text`).
func TestLLMContextMinimal(t *testing.T) {
	c := ToLLMContext(minimalResult())
	if len(c.Paths) != 1 {
		t.Fatalf("paths %q", c.Paths)
	}
	p := c.Paths[0]
	if !strings.HasPrefix(p, "Path 1: [Seed S1]") || !strings.Contains(p, "RELATES") || !strings.Contains(p, "T=0.12") {
		t.Errorf("path %q", p)
	}
	if want := `Path 1: [Seed S1] (UserRequest: "Plan the spring campaign") -> [RELATES w=0.8 T=0.12] -> (DataSource: "Q1 sales")`; p != want {
		t.Errorf("path\n got %s\nwant %s", p, want)
	}
	if !reflect.DeepEqual(c.Graph, ToD3(minimalResult())) {
		t.Errorf("Graph differs from ToD3")
	}
}

// TestLLMContextThreePaths renders threePathResult's Text().
//
// Expected (testdata/llm_three_paths.golden):
//
//	Path 1: … -> [RELATES w=0.82 T=0.1016] -> (DataSource: "Inventory ledger 2024-Q1") -> [RELATES w=0.9 T=0.0263] -> (AgentAnswer: "…") -> [RELATES w=1 T=0.007561] -> (DataSource: "supplier_lead_times.csv")
//	Path 2: … -> [RELATES w=0.6 T=0.0816] -> (AgentAction: "…") -> [RELATES w=0.75 T=0.009996] -> (UserPreference: "…")
//	Path 3: … -> [RELATES w=0.5 T=0.03188] -> (Event N2005)
//
// then "Graph (D3 JSON):" and the same JSON as d3_three_paths.golden.
// Why: the T values are threePathResult's 0.1016458…, 0.0263009…,
// 0.0075615…, 0.0816, 0.009996 and 0.031875 at 4 significant digits
// (render.Num; 0.031875 is a hair above in binary, so 0.03188). N2003
// shows its title (it has no text), N2010 its name, N2004 its
// description; N2005 has none of them, so its id stands in. N2001's text
// is 126 runes, cut to 79 + "…" = 80, its inner quotes escaped as \".
func TestLLMContextThreePaths(t *testing.T) {
	c := ToLLMContext(threePathResult())
	text := c.Text()
	if !strings.HasSuffix(text, indentJSON(t, ToD3(threePathResult()))) {
		t.Errorf("Text does not end with the D3 JSON")
	}
	if strings.Contains(text, "embedding") || strings.Contains(text, "vector") {
		t.Errorf("a vector leaked into the LLM context")
	}
	golden(t, "llm_three_paths", text)
}

// TestLLMContextNumbering renders dedupResults.
//
// Expected: four paths numbered 1 to 4 in result order — S1→A→B, S1→S2,
// S2→A→B, S2→S1 — the third showing A as "A as seen later".
// Why: numbering runs across all seeds; S3 (no paths) and S4 (not found)
// add no path line. Path strings describe each path's own nodes; only the
// graph block is deduplicated.
func TestLLMContextNumbering(t *testing.T) {
	c := ToLLMContext(dedupResults()...)
	want := []string{
		`Path 1: [Seed S1] (UserRequest: "seed one") -> [RELATES w=0.5 T=0.2] -> (DataSource: "A as first seen") -> [RELATES w=0.5 T=0.1] -> (Event: "B")`,
		`Path 2: [Seed S1] (UserRequest: "seed one") -> [RELATES w=0.5 T=0.3] -> (UserRequest: "seed two")`,
		`Path 3: [Seed S2] (UserRequest: "seed two") -> [RELATES w=0.6 T=0.4] -> (DataSource: "A as seen later") -> [RELATES w=0.7 T=0.05] -> (Event: "B")`,
		`Path 4: [Seed S2] (UserRequest: "seed two") -> [RELATES w=0.5 T=0.25] -> (UserRequest: "seed one")`,
	}
	if !reflect.DeepEqual(c.Paths, want) {
		t.Errorf("paths\n%s\nwant\n%s", strings.Join(c.Paths, "\n"), strings.Join(want, "\n"))
	}
}

// TestLLMContextMissingWeight renders missingWeightResult.
//
// Expected: `Path 1: [Seed M0] (Note: "root") -> [RELATES w=0.01(missing) T=0.01] -> (Note: "leaf")`.
// Why: the missing weight counts as 0.01, so T = 1 × 0.01 / √1 × 1 = 0.01
// (Num drops trailing zeros: T=0.01), and the reader is told it was missing.
func TestLLMContextMissingWeight(t *testing.T) {
	got := ToLLMContext(missingWeightResult()).Paths
	want := []string{`Path 1: [Seed M0] (Note: "root") -> [RELATES w=0.01(missing) T=0.01] -> (Note: "leaf")`}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("got %q, want %q", got, want)
	}
}

// TestLLMContextTrickyIDs renders trickyResult (ids with quotes, a
// backslash, control characters, NUL, emoji, a combining mark).
//
// Expected (testdata/llm_tricky_ids.golden): one single-line path string:
//
//	Path 1: [Seed "say \"hi\""] (Thing "say \"hi\"") -> [RELATES w=1 T=1] -> (Thing "C:\\dir\\") -> … -> (Thing "rocket 🚀") -> (Thing cafe◌́)
//
// Why: the nodes have no text, so their ids show; ids with a space, quote,
// backslash or non-printable rune are Go-quoted (DisplayID) and so can
// neither break the line nor the brackets, while "café" with a combining
// accent is printable and stays raw. Each T is 1 × 1 / √1 × 1 = 1.
func TestLLMContextTrickyIDs(t *testing.T) {
	c := ToLLMContext(trickyResult())
	if len(c.Paths) != 1 || strings.ContainsAny(c.Paths[0], "\n\r\t\x00") {
		t.Fatalf("paths %q", c.Paths)
	}
	golden(t, "llm_tricky_ids", strings.Join(c.Paths, "\n")+"\n")
}

// TestNodeTextAndTruncate checks the display-text rules.
//
// Scenario / expected:
//   - text, title, description, name all set: text wins;
//   - text blank ("  "), title set: title;
//   - only description: description; only name: name; name not a string
//     (42): no text;
//   - "a\n  b\tc" collapses to "a b c";
//   - Truncate("abcdef", 4) = "abc…" (3 runes + "…" = 4), Truncate of a
//     4-rune string to 4 is unchanged, a cut ending in spaces loses them
//     (Truncate("ab  cdef", 5) keeps "ab  " → "ab…"), and runes count,
//     not bytes: Truncate("ééééé", 3) = "éé…".
//
// Why: docs/EXPORTS.md asks for "id, main text, title, or short description";
// the brief fixes the order text, title, description, name.
func TestNodeTextAndTruncate(t *testing.T) {
	cases := []struct {
		props map[string]any
		want  string
		ok    bool
	}{
		{map[string]any{"text": "T", "title": "Ti", "description": "D", "name": "N"}, "T", true},
		{map[string]any{"text": "  ", "title": "Ti"}, "Ti", true},
		{map[string]any{"description": "D"}, "D", true},
		{map[string]any{"name": "N"}, "N", true},
		{map[string]any{"name": 42}, "", false},
		{map[string]any{"text": "a\n  b\tc"}, "a b c", true},
	}
	for _, c := range cases {
		got, ok := NodeText(graph.Node{ID: "x", Properties: c.props})
		if got != c.want || ok != c.ok {
			t.Errorf("NodeText(%v) = %q, %v; want %q, %v", c.props, got, ok, c.want, c.ok)
		}
	}
	for _, c := range []struct {
		s    string
		w    int
		want string
	}{{"abcdef", 4, "abc…"}, {"abcd", 4, "abcd"}, {"ab  cdef", 5, "ab…"}, {"ééééé", 3, "éé…"}} {
		if got := Truncate(c.s, c.w); got != c.want {
			t.Errorf("Truncate(%q, %d) = %q, want %q", c.s, c.w, got, c.want)
		}
	}
}

// TestFailedSeedsAreMarked: minimalResult ended in error ("neo4j: gone")
// beside a seed S9 that was not found and missingWeightResult, which
// finished.
//
// Expected: the LLM text starts with
// `Seed S1 FAILED (error: "neo4j: gone"): its paths are missing or incomplete.`
// before its path line; the D3 graph carries failed_seeds [{"id":"S1",
// "error":"neo4j: gone"}]; with no failure, the key is absent from the JSON.
// Why: docs/EXPORTS.md "Failed seeds": a partial answer must say so in every
// format; a not-found seed is an answer (no paths), not a failure.
func TestFailedSeedsAreMarked(t *testing.T) {
	failed := minimalResult()
	failed.TerminatedReason, failed.Error = activation.TerminatedError, "neo4j: gone"
	nf := activation.Result{Seed: retriever.Seed{NodeID: "S9", Score: 0.7}, TerminatedReason: activation.TerminatedSeedNotFound, Paths: []activation.Path{}}
	text := ToLLMContext(failed, nf, missingWeightResult()).Text()
	want := "Seed S1 FAILED (error: \"neo4j: gone\"): its paths are missing or incomplete.\nPath 1: [Seed S1]"
	if !strings.HasPrefix(text, want) {
		t.Errorf("LLM text starts %q, want %q", text[:min(len(text), 120)], want)
	}
	g := ToD3(failed, nf, missingWeightResult())
	if !reflect.DeepEqual(g.FailedSeeds, []FailedSeed{{ID: "S1", Error: "neo4j: gone"}}) {
		t.Errorf("FailedSeeds = %+v", g.FailedSeeds)
	}
	b, err := json.Marshal(ToD3(missingWeightResult()))
	if err != nil || strings.Contains(string(b), "failed_seeds") {
		t.Errorf("a graph without failures encodes as %s (%v)", b, err)
	}
}
