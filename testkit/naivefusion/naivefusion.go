// Package naivefusion is a deliberately simple second implementation of
// Reciprocal Rank Fusion (docs/RETRIEVERS.md, "Fusion (Reciprocal Rank
// Fusion)"), written from the rule with plain maps and sharing no code
// with retriever/fusion (not even its types): lists of ids in, scores and
// an order out. Tests check the fusion against it, score by score to the
// bit.
package naivefusion

// List is one ranking: its name and its node ids, best first.
type List struct {
	Name string
	IDs  []string
}

// Hit is one fused node: its score and its rank in each list that holds
// it (within the depth).
type Hit struct {
	ID    string
	Score float64
	Ranks map[string]int
}

// Result is the fused hits, best first, cut to the top K, and the counts:
// per list the ids it brought, the distinct ids, and those every list
// brought.
type Result struct {
	Hits    []Hit
	Brought map[string]int
	Union   int
	InEvery int
}

// Run fuses lists: each cut to its first depth ids, an id at position r
// (from 1) bringing 1/(k + r), the lists visited in order so that each
// id's sum is added in list order; ranked by score, descending, then id.
func Run(lists []List, depth int, k float64, topK int) Result {
	score := map[string]float64{}
	ranks := map[string]map[string]int{}
	brought := map[string]int{}
	for _, l := range lists {
		for i, id := range l.IDs {
			if i >= depth {
				break
			}
			r := i + 1
			score[id] = score[id] + 1/(k+float64(r))
			if ranks[id] == nil {
				ranks[id] = map[string]int{}
			}
			ranks[id][l.Name] = r
			brought[l.Name]++
		}
	}
	res := Result{Brought: brought, Union: len(score)}
	for _, m := range ranks {
		if len(m) == len(lists) {
			res.InEvery++
		}
	}
	// Selection: take the best of what is left, again and again.
	left := map[string]bool{}
	for id := range score {
		left[id] = true
	}
	for len(left) > 0 && len(res.Hits) < topK {
		best := ""
		for id := range left {
			if best == "" || score[id] > score[best] || (score[id] == score[best] && id < best) {
				best = id
			}
		}
		delete(left, best)
		res.Hits = append(res.Hits, Hit{ID: best, Score: score[best], Ranks: ranks[best]})
	}
	return res
}
