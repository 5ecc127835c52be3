package activation

import (
	"math"
)

// TagOverlap returns |E∩Q| and |E∪Q| over the distinct edge tags and the
// (already normalised, hence distinct) query tags.
func TagOverlap(edgeTags, queryTags []string) (inter, union int) {
	distinct := make(map[string]struct{}, len(edgeTags))
	for _, t := range edgeTags {
		distinct[t] = struct{}{}
	}
	for _, q := range queryTags {
		if _, ok := distinct[q]; ok {
			inter++
		}
	}
	return inter, len(distinct) + len(queryTags) - inter
}

// TagSim is the floored Jaccard similarity of docs/ALGORITHM.md rule 2 with set
// semantics: 1 when there are no query tags, the floor when the edge has no
// tags, else floor + (1-floor)*|E∩Q|/|E∪Q|. queryTags must be normalised.
func TagSim(edgeTags, queryTags []string, floor float64) float64 {
	if len(queryTags) == 0 {
		return 1.0
	}
	if len(edgeTags) == 0 {
		return floor
	}
	inter, union := TagOverlap(edgeTags, queryTags)
	return TagSimCounts(inter, union, floor)
}

// TagSimCounts is TagSim for edges with tags, given the overlap counts. The
// operations run in the order of the Cypher so both engines agree bit for bit.
func TagSimCounts(inter, union int, floor float64) float64 {
	return floor + (1.0-floor)*float64(inter)/float64(union)
}

// TransferEnergy is T = R * w / sqrt(d) * tag_sim, evaluated left to right as
// the Cypher does.
func TransferEnergy(activation, weight float64, degree int64, tagSim float64) float64 {
	return activation * weight / math.Sqrt(float64(degree)) * tagSim
}
