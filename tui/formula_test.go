package tui

import (
	"math"
	"regexp"
	"strconv"
	"testing"

	"github.com/charmbracelet/x/ansi"

	"github.com/memoria-graph/memoria/render"
	"github.com/memoria-graph/memoria/retriever"
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
		for id, n := range h.m.actRun().trees.seeds[0].nodes {
			if n.step != nil {
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
