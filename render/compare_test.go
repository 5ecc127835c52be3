package render

import (
	"strings"
	"testing"

	"github.com/memoria-graph/memoria/graph"
	"github.com/memoria-graph/memoria/retriever"
	"github.com/memoria-graph/memoria/retriever/overlap"
)

// compareRanking is a ranking named name of nodes in that order, ranked 1,
// 2, … with scores 1, 1/2, ….
func compareRanking(name string, nodes ...graph.Node) retriever.Ranking {
	r := retriever.Ranking{Retriever: name, Params: retriever.Fields{}, Seeds: []retriever.SeedStatus{}, Stats: retriever.Fields{}}
	for i, n := range nodes {
		r.Hits = append(r.Hits, retriever.Hit{Rank: i + 1, NodeID: n.ID, Score: 1 / float64(i+1), Labels: n.Labels, Node: n,
			Seed: nodes[0].ID, Origin: retriever.OriginExpanded, Route: []retriever.Hop{}, Terms: []retriever.Term{}})
	}
	return r
}

// compareOf is overlap.Compare of rankings named by their retrievers.
func compareOf(t *testing.T, k int, rankings ...retriever.Ranking) overlap.Result {
	t.Helper()
	names := make([]string, len(rankings))
	for i, r := range rankings {
		names[i] = r.Retriever
	}
	res, err := overlap.Compare(names, rankings, k)
	if err != nil {
		t.Fatal(err)
	}
	return res
}

// TestCompareText: three rankings cut at k = 3 (retriever/overlap's tests
// work the numbers):
//
//	activation  A B Z D  → A B Z
//	expansion   B A F    → B A F
//	ppr         A G Z    → A G Z
//
// The union A, B, G, Z, F (best rank, then how many lists, then id); G and
// F are marked as found by one retriever only. Pairs: activation–expansion
// Jaccard 0.5, RBO 0.63; activation–ppr 0.5, 0.685; expansion–ppr 0.2,
// 0.315. The JSON holds the three rankings, then nodes, overlap and only.
// A ranking with 10 hits widens its column to its rank "10"; with no k the
// header says "all hits" and the Jaccard column has no @K.
func TestCompareText(t *testing.T) {
	n := map[string]graph.Node{}
	for _, id := range []string{"A", "B", "D", "F", "G", "Z"} {
		n[id] = node(id, "Memory", map[string]any{"text": "memory " + strings.ToLower(id)})
	}
	rs := []retriever.Ranking{
		compareRanking("activation", n["A"], n["B"], n["Z"], n["D"]),
		compareRanking("expansion", n["B"], n["A"], n["F"]),
		compareRanking("ppr", n["A"], n["G"], n["Z"]),
	}
	res := compareOf(t, 3, rs...)
	text := CompareText(res, rs)
	golden(t, "compare_text", text)
	for _, want := range []string{"top 3 of 3 rankings: 5 nodes, 2 found by one retriever only (*)",
		"           —          3    —  * F (Memory) \"memory f\"", "expansion   ppr        0.2        0.315"} {
		if !strings.Contains(text, want) {
			t.Errorf("text lacks %q:\n%s", want, text)
		}
	}
	js, err := CompareJSON(rs, res)
	if err != nil {
		t.Fatal(err)
	}
	golden(t, "compare_json", string(js))

	var ten []graph.Node
	for _, id := range []string{"a", "b", "c", "d", "e", "f", "g", "h", "i", "j"} {
		ten = append(ten, graph.Node{ID: id})
	}
	wide := CompareText(compareOf(t, 0, compareRanking("x", ten...), compareRanking("yy", ten[9], ten[0])), nil)
	golden(t, "compare_wide", wide)
	if !strings.Contains(wide, "all hits of 2 rankings") || !strings.Contains(wide, "a  b   jaccard  rbo (p=0.9)") {
		t.Errorf("no k:\n%s", wide)
	}
}

// TestCompareEscapesHostileText: retriever names, ids, labels and texts
// planted with terminal attacks show as visible escapes in the text (ids
// quoted by DisplayID), and the JSON \u-escapes them.
func TestCompareEscapesHostileText(t *testing.T) {
	a := graph.Node{ID: hostileIDs[0], Labels: []string{hostileTitle}, Properties: map[string]any{"text": "ask " + hostileOSC52}}
	b := graph.Node{ID: hostileIDs[1], Labels: []string{"Mid" + hostileClear}, Properties: map[string]any{"title": "line1\rline2"}}
	c := graph.Node{ID: hostileIDs[2], Labels: []string{"End\u202eLabel"}, Properties: map[string]any{"name": hostileBidi}}
	rs := []retriever.Ranking{compareRanking("act"+hostileTitle, a, b), compareRanking(hostileBidi, c, a)}
	res := compareOf(t, 2, rs...)
	text := CompareText(res, rs)
	assertSafeLines(t, text)
	golden(t, "compare_hostile", text)
	for _, want := range []string{`act\x1b]0;pwned\a`, `evil\u202etxt.exe`, `"\ufeffevil\u202etxt.exe" (End\u202eLabel)`} {
		if !strings.Contains(text, want) {
			t.Errorf("text lacks %s:\n%s", want, text)
		}
	}
	js, err := CompareJSON(rs, res)
	if err != nil {
		t.Fatal(err)
	}
	assertSafeLines(t, string(js))
}
