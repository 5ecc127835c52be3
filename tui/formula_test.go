package tui

import (
	"math"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/charmbracelet/x/ansi"

	"github.com/memoria-graph/memoria/render"
	"github.com/memoria-graph/memoria/retriever"
	"github.com/memoria-graph/memoria/retriever/ppr"
	"github.com/memoria-graph/memoria/retriever/spreading"
)

// formulaRE is the worked energy of the detail pane,
// "T = R × w / √d × tag_sim = T" (render.EnergyFormula).
var formulaRE = regexp.MustCompile(`T = ([0-9.]+) × ([0-9.]+)(?: \(missing weight\))? / √([0-9]+) × ([0-9.]+) = ([0-9.]+)`)

// TestDetailFormulasCheckByHand selects every node of the demo graph's
// scenarios A (N2006, R 0.85, its four tags), B2 (T3000, R 0.9, campaign)
// and E (T4003, R 1, it_support; two edges without a weight) in the
// explorer, reads the formula its detail pane shows, and multiplies it out
// as a person would from the numbers shown: the product rounded to 4
// significant digits (render.Num) must be the T shown (docs/EXPORTS.md,
// "Numbers for people").
func TestDetailFormulasCheckByHand(t *testing.T) {
	checked := 0
	for _, sc := range []struct {
		seed retriever.Seed
		tags []string
	}{
		{retriever.Seed{NodeID: "N2006", Score: 0.85}, demoTags},
		{retriever.Seed{NodeID: "T3000", Score: 0.9}, []string{"campaign"}},
		{retriever.Seed{NodeID: "T4003", Score: 1}, []string{"it_support"}},
	} {
		h := newHarness(t, loadDemo(t), Options{Seeds: []retriever.Seed{sc.seed}, Tags: sc.tags})
		h.waitFor("the run to finish", func() bool { return h.m.actRun().ch == nil && !h.m.running() })
		var ids []string
		for id, n := range h.m.actRun().trees.Seeds[0].Nodes {
			if n.Step != nil {
				ids = append(ids, id)
			}
		}
		for _, id := range ids {
			h.selectTreeNode(id)
			view := ansi.Strip(h.m.detail.View())
			m := formulaRE.FindStringSubmatch(view)
			if m == nil {
				t.Fatalf("%s: no formula in the detail pane:\n%s", id, view)
			}
			f := func(s string) float64 {
				v, err := strconv.ParseFloat(s, 64)
				if err != nil {
					t.Fatal(err)
				}
				return v
			}
			got := render.Num(f(m[1]) * f(m[2]) / math.Sqrt(f(m[3])) * f(m[4]))
			if got != m[5] {
				t.Errorf("%s: %s multiplies out to %s", id, m[0], got)
			}
			checked++
		}
	}
	if checked < 10 {
		t.Errorf("only %d formulas checked", checked)
	}
}

// scoreRE is the first line of a ranking hit's detail pane, its terms
// multiplied (×) or added (+) out (render.Formula): "score = 0.895 × 0.75
// = 0.6713", "score = 0.1 + 0.02 = 0.12".
var scoreRE = regexp.MustCompile(`(?m)^score = ([0-9.e+-]+(?: [×+] [0-9.e+-]+)*) = ([0-9.e+-]+)`)

// detailNumber is the number on the detail pane's line "name N" (the
// hit's Detail, "How the retriever scored it").
func detailNumber(t *testing.T, text, name string) float64 {
	t.Helper()
	m := regexp.MustCompile(`(?m)^` + regexp.QuoteMeta(name) + ` ([0-9.e+-]+)\s*$`).FindStringSubmatch(text)
	if m == nil {
		t.Fatalf("no %s in the detail pane:\n%s", name, text)
	}
	return parseNum(t, m[1])
}

func parseNum(t *testing.T, s string) float64 {
	t.Helper()
	v, err := strconv.ParseFloat(s, 64)
	if err != nil {
		t.Fatal(err)
	}
	return v
}

// byHand says whether a value worked out from the numbers a pane shows
// (each rounded to 4 significant digits, render.Num) is the value it
// shows: within the rounding of a few such numbers.
func byHand(worked, shown float64) bool {
	return math.Abs(worked-shown) <= 2e-3*math.Max(math.Abs(shown), 1e-9)
}

// readFormula reads the score line of the selected hit's detail pane:
// its terms and the score shown.
func readFormula(t *testing.T, h *harness) (terms []float64, op string, score float64, text string) {
	t.Helper()
	lines := strings.Split(hitDetailText(h), "\n")
	for i, l := range lines {
		lines[i] = strings.TrimRight(l, " ") // wrapped to the pane's width
	}
	text = strings.Join(lines, "\n")
	m := scoreRE.FindStringSubmatch(text)
	if m == nil {
		t.Fatalf("no score line in the detail pane:\n%s", text)
	}
	op = "×"
	if strings.Contains(m[1], " + ") {
		op = "+"
	}
	for _, s := range strings.Split(m[1], " "+op+" ") {
		terms = append(terms, parseNum(t, s))
	}
	return terms, op, parseNum(t, m[2]), text
}

// TestRankingFormulasCheckByHand: the explorer's detail pane explains a
// ranking hit's score in numbers that multiply out by hand, for spreading
// activation and personalized PageRank, each picked with x and run again
// after a parameter change (docs/RETRIEVERS.md, "Spreading activation"
// and "Personalized PageRank").
//
// Spreading, seed N2006 (R 0.85), the defaults but PENALTY E typed down
// from 20 to 3: N2006's RELATES degree is 4 (N2003, N2004, N2005, N2007;
// its MENTIONS does not count), above 3, so its score is blend × E/ec =
// (0.7 × 0.85 + 0.3 × 1) × 3/4 = 0.895 × 0.75 = 0.67125, shown as
// "score = 0.895 × 0.75 = 0.6713". For every hit, from its pane alone
// (and α = 0.7 from the parameters): blend = α × similarity + (1 − α) ×
// normalised; penalty = 3 / entity_count when entity_count > 3, else 1
// and no second term; and the score line multiplies out.
//
// PPR, seeds N2006 (R 0.85) and N2001 (R 0.3), DAMPING stepped from 0.5
// to 0.55: each hit's score is the sum of the seeds' shares, and N2003
// (a neighbour of both) shows two. N2007 is reached from N2006 alone (at
// round 1; N2005, its other neighbour, also first got mass at round 1),
// so its route's one hop carries d × w / W(N2006) = 0.55 × 0.5 / 2.35 =
// 0.117, W(N2006) = 0.82 + 0.58 + 0.5 + 0.45 = 2.35.
func TestRankingFormulasCheckByHand(t *testing.T) {
	h := demoHarness(t)
	h.pickRetriever(spreading.Name)
	s := h.m.runs.slots[spreading.Name]
	h.waitFor("spreading's ranking", func() bool { return !s.loading && (s.ranking != nil || s.err != nil) })
	h.focusPane(focusParams)
	for range 4 {
		h.keys("down") // PULSES, DECAY, THRESHOLD, ALPHA, PENALTY
	}
	h.keys("r", "backspace", "backspace") // the input opens holding "20"
	h.typeText("3")
	h.keys("enter")
	h.waitFor("the re-run", func() bool { return !s.loading && s.id == 2 })
	h.settle()
	if s.err != nil {
		t.Fatal(s.err)
	}
	p := s.params.Settings().Raw().(spreading.Params)
	if p.EntityPenaltyAbove != 3 || p.Alpha != 0.7 {
		t.Fatalf("ran with E %v, α %v", p.EntityPenaltyAbove, p.Alpha)
	}
	penalised := 0
	for _, hit := range s.ranking.Hits {
		h.selectHit(hit.NodeID)
		terms, op, score, text := readFormula(t, h)
		if op != "×" {
			t.Fatalf("%s: %v %s", hit.NodeID, terms, op)
		}
		blend := detailNumber(t, text, "blend")
		if worked := p.Alpha*detailNumber(t, text, "similarity") + (1-p.Alpha)*detailNumber(t, text, "normalised"); !byHand(worked, blend) {
			t.Errorf("%s: 0.7 × similarity + 0.3 × normalised = %v, the pane shows blend %v:\n%s", hit.NodeID, worked, blend, text)
		}
		ec, pen := detailNumber(t, text, "entity_count"), detailNumber(t, text, "penalty")
		switch {
		case ec > 3:
			penalised++
			if len(terms) != 2 || !byHand(blend, terms[0]) || !byHand(3/ec, terms[1]) || !byHand(3/ec, pen) {
				t.Errorf("%s: terms %v, penalty %v, want blend %v × 3/%v:\n%s", hit.NodeID, terms, pen, blend, ec, text)
			}
		case len(terms) != 1 || !byHand(blend, terms[0]) || pen != 1:
			t.Errorf("%s: terms %v, penalty %v, want blend %v alone (entity count %v):\n%s", hit.NodeID, terms, pen, blend, ec, text)
		}
		worked := 1.0
		for _, x := range terms {
			worked *= x
		}
		if !byHand(worked, score) {
			t.Errorf("%s: %v multiply out to %v, the pane shows %v", hit.NodeID, terms, worked, score)
		}
		if hit.NodeID == "N2006" {
			if !near(hit.Score, 0.67125) || !strings.Contains(text, "score = 0.895 × 0.75 = "+render.Num(0.67125)+"\n") {
				t.Errorf("N2006: %v:\n%s", hit.Score, text)
			}
		}
	}
	if penalised == 0 {
		t.Error("no hit penalised")
	}

	h = newHarness(t, loadDemo(t), Options{Seeds: []retriever.Seed{demoSeed, {NodeID: "N2001", Score: 0.3}}, Tags: demoTags})
	h.waitFor("the run to finish", func() bool { return h.m.actRun().ch == nil && !h.m.running() })
	h.pickRetriever(ppr.Name)
	s = h.m.runs.slots[ppr.Name]
	h.waitFor("ppr's ranking", func() bool { return !s.loading && (s.ranking != nil || s.err != nil) })
	h.focusPane(focusParams)
	h.keys("+") // DAMPING d 0.5 → 0.55
	h.waitFor("the re-run", func() bool { return !s.loading && s.id == 2 })
	h.settle()
	if s.err != nil {
		t.Fatal(s.err)
	}
	if d := s.params.Settings().Raw().(ppr.Params).Damping; d != 0.55 {
		t.Fatalf("ran with d %v", d)
	}
	two := false
	for _, hit := range s.ranking.Hits {
		h.selectHit(hit.NodeID)
		terms, op, score, text := readFormula(t, h)
		if op != "+" && len(terms) > 1 {
			t.Fatalf("%s: terms %v joined by %s", hit.NodeID, terms, op)
		}
		worked := 0.0
		for _, x := range terms {
			worked += x
		}
		if !byHand(worked, score) {
			t.Errorf("%s: %v add up to %v, the pane shows %v:\n%s", hit.NodeID, terms, worked, score, text)
		}
		if hit.NodeID == "N2003" {
			two = len(terms) == 2 && strings.Contains(text, "share(N2006) ") && strings.Contains(text, " + share(N2001) ")
		}
		if hit.NodeID == "N2007" && !strings.Contains(text, "reached from N2006 -[RELATES w=0.5 ×"+render.Num(0.55*0.5/2.35)+"]-> N2007") {
			t.Errorf("N2007's route, want ×%s:\n%s", render.Num(0.55*0.5/2.35), text)
		}
	}
	if !two {
		t.Error("N2003 does not show the shares of N2006 and N2001")
	}
}
