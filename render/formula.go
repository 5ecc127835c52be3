package render

import (
	"fmt"
	"math"
	"slices"
	"strconv"

	"github.com/memoria-graph/memoria/retriever/activation"
)

// EnergyFormula writes out the transfer-energy arithmetic of one hop
// (docs/ALGORITHM.md rule 1), T = R × w / √d × tag_sim:
//
//	T = 0.85 × 0.82 / √4 × 0.2917 = 0.1016
//
// Every number is written with Num (4 significant digits), d as an integer.
// The formula checks by hand: when the operands as shown would not multiply
// out to the T shown, R, w and tag_sim are shown with one more digit at a
// time until they do. A missing weight shows as "0.01 (missing weight)". T
// is the step's stored transfer energy, not recomputed.
func EnergyFormula(s activation.Step) string {
	want := Num(s.TransferEnergy)
	var r, w, ts string
	for digits := 4; digits <= 17; digits++ {
		r, w, ts = numDigits(s.Activation, digits), numDigits(s.Weight, digits), numDigits(s.TagSim, digits)
		if Num(parsed(r)*parsed(w)/math.Sqrt(float64(s.Degree))*parsed(ts)) == want {
			break
		}
	}
	if s.Edge.Weight == nil {
		w += " (missing weight)"
	}
	return fmt.Sprintf("T = %s × %s / √%d × %s = %s", r, w, s.Degree, ts, want)
}

// parsed reads back a number written by numDigits.
func parsed(s string) float64 {
	v, _ := strconv.ParseFloat(s, 64)
	return v
}

// TagBreakdown returns the distinct tags an edge shares with the query
// (E∩Q) and the distinct tags of both (E∪Q), each sorted, so that
// |inter| and |union| are the counts in tag_sim's Jaccard. Matching is
// exact and case-sensitive, like activation.TagOverlap; pass normalised query
// tags (retriever.NormalizeTags). The slices are never nil.
func TagBreakdown(edgeTags, queryTags []string) (inter, union []string) {
	edge := make(map[string]bool, len(edgeTags))
	for _, t := range edgeTags {
		edge[t] = true
	}
	all := make(map[string]bool, len(edgeTags)+len(queryTags))
	inter, union = []string{}, []string{}
	for _, t := range edgeTags {
		if !all[t] {
			all[t] = true
			union = append(union, t)
		}
	}
	for _, q := range queryTags {
		if edge[q] && !slices.Contains(inter, q) {
			inter = append(inter, q)
		}
		if !all[q] {
			all[q] = true
			union = append(union, q)
		}
	}
	slices.Sort(inter)
	slices.Sort(union)
	return inter, union
}
