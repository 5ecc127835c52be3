package sweep

import (
	"cmp"
	"slices"

	"github.com/memoria-graph/memoria/retriever/activation"
)

// Totals are one point's figures, summed over its seeds: the paths, the
// nodes reached (every node on a path but the seed, once per seed), and the
// summed energy (the transfer energy of every kept hop, each node's
// incoming hop once: the energy the result tree holds).
type Totals struct {
	Paths  int     `json:"paths"`
	Nodes  int     `json:"nodes_reached"`
	Energy float64 `json:"summed_energy"`
}

// TotalsOf sums a point's results.
func TotalsOf(results []activation.Result) Totals {
	var t Totals
	for _, r := range results {
		t.Paths += len(r.Paths)
		seen := map[string]bool{}
		for _, p := range r.Paths {
			for _, s := range p.Steps {
				if !seen[s.ToNode.ID] {
					seen[s.ToNode.ID] = true
					t.Energy += s.TransferEnergy
				}
			}
		}
		t.Nodes += len(seen)
	}
	return t
}

// Band is a run of consecutive points (From to To, both values of points)
// at which a node is in the result. Until is the value of the next point
// (where the node is out again), or absent when the band reaches the last
// point; with an exact MIN_ACTIVATION sweep the node is in for exactly
// From ≤ m < Until.
type Band struct {
	From  float64  `json:"from"`
	To    float64  `json:"to"`
	Until *float64 `json:"until,omitempty"`
}

// Flip is a non-monotone place: the node is in the result at In and out at
// Out although Out is the looser setting (a lower MIN_ACTIVATION, or a
// higher MAX_BRANCHES, TAG_SIM_FLOOR or MAX_DEPTH), so loosening the
// threshold removed it.
type Flip struct {
	In  float64 `json:"in"`
	Out float64 `json:"out"`
}

// NodeBands says where one node of one seed is in the result.
type NodeBands struct {
	SeedIndex int    `json:"seed_index"`
	SeedID    string `json:"seed_id"`
	NodeID    string `json:"node_id"`
	Bands     []Band `json:"bands"`
	// Flip is the first non-monotone place, scanning from the strictest
	// setting to the loosest; nil when loosening never removes the node.
	Flip *Flip `json:"flip,omitempty"`
}

// Looser reports whether b is a looser setting of the parameter than a:
// more nodes may pass (lower MIN_ACTIVATION; higher for the other three).
func (p Param) Looser(a, b float64) bool {
	if p == MinActivation {
		return b < a
	}
	return b > a
}

// Bands lists, for every node any point reached, the bands of points where
// it is in its seed's result, and its first non-monotone place; ordered by
// seed, then node id. It walks each seed's steps along the points and
// compares their node sets only where the step changes.
func (s *Sweep) Bands() []NodeBands {
	type key struct {
		seed int
		node string
	}
	open := map[key]int{} // the point where the node's open band began
	type band struct{ from, to int }
	bands := map[key][]band{}
	nseeds := 0
	if len(s.steps) > 0 {
		nseeds = len(s.steps[0])
	}
	n := len(s.Points)
	for si := range nseeds {
		var prev []string
		for i := 0; i <= n; i++ {
			var cur []string
			if i < n {
				if i > 0 && s.steps[i][si] == s.steps[i-1][si] {
					continue
				}
				cur = s.steps[i][si].nodes
			}
			// Both lists are sorted: a merge finds who entered and who left.
			a, b := 0, 0
			for a < len(prev) || b < len(cur) {
				switch {
				case b == len(cur) || (a < len(prev) && prev[a] < cur[b]):
					k := key{si, prev[a]}
					bands[k] = append(bands[k], band{open[k], i - 1})
					delete(open, k)
					a++
				case a == len(prev) || cur[b] < prev[a]:
					open[key{si, cur[b]}] = i
					b++
				default:
					a++
					b++
				}
			}
			prev = cur
		}
	}
	out := make([]NodeBands, 0, len(bands))
	for k, bs := range bands {
		nb := NodeBands{SeedIndex: k.seed, SeedID: s.seedID(k.seed), NodeID: k.node}
		for _, bd := range bs {
			b := Band{From: s.Points[bd.from].Value, To: s.Points[bd.to].Value}
			if bd.to+1 < n {
				u := s.Points[bd.to+1].Value
				b.Until = &u
			}
			nb.Bands = append(nb.Bands, b)
		}
		// The first non-monotone place, from the strictest setting to the
		// loosest: for MIN_ACTIVATION (strictest = highest) the highest
		// band, if a point lies below it; else the lowest, if one lies above.
		if s.Param == MinActivation {
			if top := bs[len(bs)-1]; top.from > 0 {
				nb.Flip = &Flip{In: s.Points[top.from].Value, Out: s.Points[top.from-1].Value}
			}
		} else if low := bs[0]; low.to+1 < n {
			nb.Flip = &Flip{In: s.Points[low.to].Value, Out: s.Points[low.to+1].Value}
		}
		out = append(out, nb)
	}
	slices.SortFunc(out, func(a, b NodeBands) int {
		return cmp.Or(cmp.Compare(a.SeedIndex, b.SeedIndex), cmp.Compare(a.NodeID, b.NodeID))
	})
	return out
}

// seedID is the id of seed si.
func (s *Sweep) seedID(si int) string {
	if si < len(s.cfg.Seeds) {
		return s.cfg.Seeds[si].NodeID
	}
	return ""
}

// add sums u into t.
func (t *Totals) add(u Totals) {
	t.Paths += u.Paths
	t.Nodes += u.Nodes
	t.Energy += u.Energy
}
