package render

import (
	"fmt"
	"slices"

	"github.com/memoria-graph/memoria/retriever"
)

// EnergyFormula writes out the transfer-energy arithmetic of one hop (seed
// 000 §4), T = R × w / √d × tag_sim:
//
//	T = 0.85 × 0.82 / √4 × 0.292 = 0.1016
//
// R and w are shown with at most 4 decimals, trailing zeros dropped (else 4
// significant digits), d as an integer, tag_sim with 3 decimals and T with
// 4. A missing weight shows as "0.01 (missing weight)". T is the step's
// stored transfer energy, not recomputed.
func EnergyFormula(s retriever.Step) string {
	w := shortNum(s.Weight)
	if s.Edge.Weight == nil {
		w += " (missing weight)"
	}
	return fmt.Sprintf("T = %s × %s / √%d × %.3f = %.4f", shortNum(s.Activation), w, s.Degree, s.TagSim, s.TransferEnergy)
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
