package sweep

import (
	"cmp"
	"slices"

	"github.com/memoria-graph/memoria/retriever"
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
func TotalsOf(results []retriever.Result) Totals {
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
// seed, then node id.
func (s *Sweep) Bands() []NodeBands {
	type key struct {
		seed int
		node string
	}
	in := map[key][]bool{}
	seedIDs := map[int]string{}
	for i, pt := range s.Points {
		for si, r := range pt.Results {
			seedIDs[si] = r.Seed.NodeID
			for id := range retriever.Placements(r) {
				k := key{si, id}
				if in[k] == nil {
					in[k] = make([]bool, len(s.Points))
				}
				in[k][i] = true
			}
		}
	}
	out := make([]NodeBands, 0, len(in))
	for k, pres := range in {
		nb := NodeBands{SeedIndex: k.seed, SeedID: seedIDs[k.seed], NodeID: k.node}
		for i := 0; i < len(pres); {
			if !pres[i] {
				i++
				continue
			}
			j := i
			for j+1 < len(pres) && pres[j+1] {
				j++
			}
			b := Band{From: s.Points[i].Value, To: s.Points[j].Value}
			if j+1 < len(pres) {
				u := s.Points[j+1].Value
				b.Until = &u
			}
			nb.Bands = append(nb.Bands, b)
			i = j + 1
		}
		nb.Flip = s.flip(pres)
		out = append(out, nb)
	}
	slices.SortFunc(out, func(a, b NodeBands) int {
		return cmp.Or(cmp.Compare(a.SeedIndex, b.SeedIndex), cmp.Compare(a.NodeID, b.NodeID))
	})
	return out
}

// flip scans the points from the strictest setting to the loosest and
// returns the first place where the node was in and then, looser, out.
func (s *Sweep) flip(pres []bool) *Flip {
	idx := make([]int, len(pres))
	for i := range idx {
		idx[i] = i
	}
	if s.Param == MinActivation { // strictest = highest value
		slices.Reverse(idx)
	}
	last := -1
	for _, i := range idx {
		if pres[i] {
			last = i
		} else if last >= 0 {
			return &Flip{In: s.Points[last].Value, Out: s.Points[i].Value}
		}
	}
	return nil
}
