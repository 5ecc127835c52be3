package tui

import (
	"math"
	"strings"
	"testing"

	"github.com/memoria-graph/memoria/render"
	"github.com/memoria-graph/memoria/retriever/ppr"
	"github.com/memoria-graph/memoria/retriever/spreading"
)

// TestSpreadingInTheExplorer: x twice picks spreading activation, which
// runs for the seed the harness picked (N2006, R 0.85) with its defaults
// (docs/RETRIEVERS.md, "Spreading activation", the demo graph's worked
// example): N2006 first with A = 1.716037 and score 0.7 × 0.85 + 0.3 × 1 =
// 0.895, then N2003 at 0.3 × 0.77294 / 1.716037 = 0.1351. y on N2003
// copies the query of N2003 and its two feeders, N2006 (0.574, pulse 1)
// and N2004 (0.406 × 0.7 × 0.7 = 0.19894, pulse 2), as --format cypher
// prints it; Y copies a query for each of the 8 hits (the 8 candidates
// with the default K 10), all fed (N2006 by the echo). Its panel lists
// its seven parameters; stepping PULSES 2 → 3 re-runs spreading alone
// (its run 2, the expansion's run left at 1) with P = 3, and typing
// "score" into INITIAL sets it.
func TestSpreadingInTheExplorer(t *testing.T) {
	h := demoHarness(t)
	h.pickRetriever(spreading.Name)
	s := h.m.runs.slots[spreading.Name]
	h.waitFor("spreading's ranking", func() bool { return !s.loading && (s.ranking != nil || s.err != nil) })
	h.settle()
	if s.err != nil || len(s.ranking.Hits) < 2 {
		t.Fatalf("spreading: %v %+v", s.err, s.ranking)
	}
	if a, b := s.ranking.Hits[0], s.ranking.Hits[1]; a.NodeID != "N2006" || !near(a.Score, 0.895) || b.NodeID != "N2003" || !near(b.Score, 0.3*0.77294/1.716037) {
		t.Fatalf("hits %s %v, %s %v", a.NodeID, a.Score, b.NodeID, b.Score)
	}
	h.selectHit("N2003")
	if d := hitDetailText(h); !strings.Contains(d, "How the retriever scored it") || !strings.Contains(d, "activation 0.7729") || strings.Contains(d, "Context") ||
		!strings.Contains(d, "Fed most by") || !strings.Contains(d, "– N2006 -[RELATES w=0.82]- brought ") || !strings.Contains(d, "– N2004 -[RELATES w=0.7]- brought ") {
		t.Errorf("N2003's detail:\n%s", d)
	}
	h.keys("y")
	h.settle()
	if st := h.lastStatus().Text; st != "copied Cypher for N2003 and its 2 feeders (N2006, N2004)" {
		t.Errorf("y: status %q", st)
	}
	if c := h.lastCopy(); !strings.Contains(c, `:params {id: "N2003", f0: "N2006", f1: "N2004", r0: {`) ||
		!strings.Contains(c, "OPTIONAL MATCH (h)-[r1:RELATES]-(f1 {id: $f1}) WHERE properties(r1) = $r1 RETURN h, r0, f0, r1, f1;") {
		t.Errorf("y copied %q", c)
	}
	h.keys("Y")
	h.settle()
	if st := h.lastStatus().Text; st != "copied Cypher for all 8 hits with feeders" {
		t.Errorf("Y: status %q", st)
	}
	if c := h.lastCopy(); strings.Count(c, "// Feeders ") != 8 || !strings.Contains(c, "// Feeders 1: N2006 <- N2003, N2004, N2007\n") {
		t.Errorf("Y copied %q", c)
	}
	v := h.m.View()
	for _, want := range []string{"Parameters · spreading", "Results · spreading", "PULSES P", "#1   0.895    N2006"} {
		if !strings.Contains(v, want) {
			t.Errorf("view lacks %q:\n%s", want, v)
		}
	}
	exp := h.expSlot().id
	h.focusPane(focusParams)
	h.keys("+")
	if s.id != 2 || h.expSlot().id != exp {
		t.Fatalf("runs: spreading %d, expansion %d → %d", s.id, exp, h.expSlot().id)
	}
	h.waitFor("the re-run", func() bool { return !s.loading })
	if p := s.params.Settings().Raw().(spreading.Params); p.Pulses != 3 {
		t.Fatalf("ran with P %d", p.Pulses)
	}
	for range 6 {
		h.keys("down")
	}
	h.keys("r", "backspace", "backspace", "backspace") // the input opens holding "one"
	h.typeText("score")
	h.keys("enter")
	h.waitFor("the re-run", func() bool { return !s.loading })
	if p := s.params.Settings().Raw().(spreading.Params); p.Initial != spreading.InitialScore || s.id != 3 {
		t.Fatalf("INITIAL: %q (run %d)", p.Initial, s.id)
	}
}

// TestPPRInTheExplorer: x three times picks personalized PageRank, which
// runs for N2006 (the restart distribution all on it) with d 0.5, ε 1e-6:
// the seed ranks first (at least 1 − d = 0.5 of the mass stays there),
// then its four RELATES neighbours by weight (N2003 0.82, N2004 0.58, N2007
// 0.5, N2005 0.45, docs/RETRIEVERS.md's demo example); each hit's terms
// add up (share(N2006)). N2003's detail lists what fed it most, first
// N2006: d × (mass N2006 pushed) × 0.82 / 2.35, and the mass N2006 pushed
// is its estimate / (1 − d), so with d = 0.5 the amount is N2006's score ×
// 0.82 / 2.35. Stepping EPSILON up once makes it 1e-5 and re-runs ppr
// alone.
func TestPPRInTheExplorer(t *testing.T) {
	h := demoHarness(t)
	h.pickRetriever(ppr.Name)
	s := h.m.runs.slots[ppr.Name]
	h.waitFor("ppr's ranking", func() bool { return !s.loading && (s.ranking != nil || s.err != nil) })
	h.settle()
	if s.err != nil || len(s.ranking.Hits) < 5 {
		t.Fatalf("ppr: %v %+v", s.err, s.ranking)
	}
	var ids []string
	for _, hit := range s.ranking.Hits[:5] {
		ids = append(ids, hit.NodeID)
	}
	if strings.Join(ids, " ") != "N2006 N2003 N2004 N2007 N2005" || s.ranking.Hits[0].Score < 0.5 || !s.ranking.Hits[1].TermsAdd {
		t.Fatalf("hits %v (%v)", ids, s.ranking.Hits[0].Score)
	}
	if v := h.m.View(); !strings.Contains(v, "Parameters · ppr") || !strings.Contains(v, "EPSILON ε") {
		t.Errorf("view:\n%s", v)
	}
	n2003 := s.ranking.Hits[1]
	if f := n2003.Feeders; len(f) == 0 || f[0].From != "N2006" || math.Abs(f[0].Factor-s.ranking.Hits[0].Score*0.82/2.35) > 1e-12 {
		t.Fatalf("N2003's feeders %+v", f)
	}
	h.selectHit("N2003")
	if d := hitDetailText(h); !strings.Contains(d, "Fed most by") || !strings.Contains(d, "– N2006 -[RELATES w=0.82]- brought "+render.Num(n2003.Feeders[0].Factor)) {
		t.Errorf("N2003's detail:\n%s", d)
	}
	spread := h.m.runs.slots[spreading.Name].id
	h.focusPane(focusParams)
	h.keys("down", "+")
	if s.id != 2 || h.m.runs.slots[spreading.Name].id != spread {
		t.Fatalf("runs: ppr %d, spreading %d → %d", s.id, spread, h.m.runs.slots[spreading.Name].id)
	}
	h.waitFor("the re-run", func() bool { return !s.loading })
	if p := s.params.Settings().Raw().(ppr.Params); p.Epsilon != 1e-5 {
		t.Fatalf("ran with ε %v", p.Epsilon)
	}
}
