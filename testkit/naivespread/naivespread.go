// Package naivespread is a deliberately simple second implementation of
// spreading activation (docs/RETRIEVERS.md, "Spreading activation"),
// written from the rules over a whole APOC graph and sharing no code with
// retriever/spreading or the engines' reads: every pulse scans every
// relationship of the graph, every degree is counted by a scan. Tests
// compare the real retriever, on both engines, against it.
package naivespread

import (
	"math"
	"sort"

	"github.com/memoria-graph/memoria/graph/apoc"
)

// Params mirror the retriever's.
type Params struct {
	Pulses             int
	Decay              float64
	Threshold          float64
	Alpha              float64
	EntityPenaltyAbove float64
	// ScoreStart starts each seed at its R rather than at 1.
	ScoreStart  bool
	QueryVector []float64
}

// Seed is a seed id with its R.
type Seed struct {
	ID string
	R  float64
}

// Hit is one candidate with its final score.
type Hit struct {
	ID    string
	Score float64
}

// Result is every candidate, best first (score, then id), and the
// statistics the retriever reports.
type Result struct {
	Hits                                              []Hit
	Found, Activated, Candidates, PulsesRun, RelsRead int
}

// Run spreads activation from seeds over g.
func Run(g *apoc.Graph, seeds []Seed, p Params) Result {
	ids := map[string]string{} // internal id → id, for nodes with one
	props := map[string]map[string]any{}
	for _, n := range g.Nodes {
		if id, ok := n.Properties["id"].(string); ok {
			ids[n.InternalID] = id
			props[id] = n.Properties
		}
	}
	var res Result
	delta := make([]map[string]float64, p.Pulses+1)
	got := make([]map[string]bool, p.Pulses+1)
	for i := range delta {
		delta[i], got[i] = map[string]float64{}, map[string]bool{}
	}
	r := map[string]float64{}
	for _, s := range seeds {
		if _, ok := props[s.ID]; !ok {
			continue
		}
		res.Found++
		r[s.ID] = s.R
		got[0][s.ID] = true
		delta[0][s.ID] = 1
		if p.ScoreStart {
			delta[0][s.ID] = s.R
		}
	}
	for pulse := 1; pulse <= p.Pulses; pulse++ {
		fires := func(id string) bool { return got[pulse-1][id] && delta[pulse-1][id] >= p.Threshold }
		any := false
		for id := range got[pulse-1] {
			any = any || fires(id)
		}
		if !any {
			break
		}
		res.PulsesRun = pulse
		for _, rel := range g.Rels {
			if rel.Type != "RELATES" {
				continue
			}
			a, okA := ids[rel.Start]
			b, okB := ids[rel.End]
			if rel.Start == rel.End {
				if okA && fires(a) {
					res.RelsRead++
				}
				continue
			}
			if !okA || !okB {
				continue
			}
			w := 0.01
			switch x := rel.Properties["weight"].(type) {
			case float64:
				w = x
			case int64:
				w = float64(x)
			}
			for _, d := range [][2]string{{a, b}, {b, a}} {
				if !fires(d[0]) {
					continue
				}
				res.RelsRead++
				delta[pulse][d[1]] += delta[pulse-1][d[0]] * w * p.Decay
				got[pulse][d[1]] = true
			}
		}
	}
	activated := map[string]bool{}
	for _, m := range got {
		for id := range m {
			activated[id] = true
		}
	}
	res.Activated = len(activated)
	act := map[string]float64{}
	top := math.Inf(-1)
	for id := range activated {
		a := 0.0
		for pulse := range delta {
			a += delta[pulse][id]
		}
		if a >= p.Threshold {
			act[id] = a
			top = math.Max(top, a)
		}
	}
	res.Candidates = len(act)
	for id, a := range act {
		n := 0.0
		if top > 0 {
			n = a / top
		}
		sem, ok := cos(p.QueryVector, props[id]["embedding"])
		if !ok {
			sem = r[id] // 0 for a node that is not a seed
		}
		final := p.Alpha*sem + (1-p.Alpha)*n
		if ec := entities(g, id, props[id]); ec > p.EntityPenaltyAbove {
			final = final * (p.EntityPenaltyAbove / ec)
		}
		res.Hits = append(res.Hits, Hit{ID: id, Score: final})
	}
	sort.Slice(res.Hits, func(i, j int) bool {
		if res.Hits[i].Score != res.Hits[j].Score {
			return res.Hits[i].Score > res.Hits[j].Score
		}
		return res.Hits[i].ID < res.Hits[j].ID
	})
	return res
}

// entities is a node's numeric entity_count, else its RELATES degree,
// counted over every relationship of the graph.
func entities(g *apoc.Graph, id string, props map[string]any) float64 {
	switch x := props["entity_count"].(type) {
	case int64:
		return float64(x)
	case float64:
		return x
	}
	internal := ""
	for _, n := range g.Nodes {
		if n.Properties["id"] == id {
			internal = n.InternalID
		}
	}
	deg := 0
	for _, rel := range g.Rels {
		if rel.Type == "RELATES" && (rel.Start == internal || rel.End == internal) {
			deg++
		}
	}
	return float64(deg)
}

// cos is the cosine of q and an embedding of q's length (numbers, whole
// or not), negative as 0.
func cos(q []float64, emb any) (float64, bool) {
	list, ok := emb.([]any)
	if q == nil || !ok || len(list) != len(q) {
		return 0, false
	}
	var dot, qq, ee float64
	for i, v := range list {
		var e float64
		switch x := v.(type) {
		case float64:
			e = x
		case int64:
			e = float64(x)
		default:
			return 0, false
		}
		dot += q[i] * e
		qq += q[i] * q[i]
		ee += e * e
	}
	if ee == 0 {
		return 0, false
	}
	c := dot / math.Sqrt(qq*ee)
	if c < 0 {
		return 0, true
	}
	return c, true
}
