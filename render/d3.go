package render

import (
	"github.com/memoria-graph/memoria/graph"
	"github.com/memoria-graph/memoria/retriever/activation"
)

// D3Graph is the node-link form React/D3 force layouts read (docs/EXPORTS.md
// item 1). Nodes and Links are never nil, so they encode as [] not null.
type D3Graph struct {
	Nodes []D3Node `json:"nodes"`
	Links []D3Link `json:"links"`
	// FailedSeeds lists the seeds whose exploration ended in error: their
	// paths are missing or incomplete. Omitted when every seed succeeded.
	FailedSeeds []FailedSeed `json:"failed_seeds,omitempty"`
}

// D3Node is one distinct node.
type D3Node struct {
	ID         string         `json:"id"`
	Labels     []string       `json:"labels"`
	Properties map[string]any `json:"properties"`
	// Activation is the highest energy known to have reached the node: the
	// transfer energy of any step into it, or its seed score when it is a
	// seed. Nil when neither is known.
	Activation *float64 `json:"activation,omitempty"`
	// Score is the seed score R, set only on seeds.
	Score *float64 `json:"score,omitempty"`
	Seed  bool     `json:"seed"`
}

// D3Link is one distinct directed hop.
type D3Link struct {
	Source string `json:"source"`
	Target string `json:"target"`
	Type   string `json:"type"`
	// Weight is the effective weight: activation.MissingWeight when the edge
	// has none (then WeightMissing is true).
	Weight        float64  `json:"weight"`
	WeightMissing bool     `json:"weight_missing,omitempty"`
	Tags          []string `json:"tags"`
	// TransferEnergy is the hop's T (Activation Energy; a kept hop's T is
	// always above 0). A ranking's link has none and gives Factor, what the
	// hop multiplied the score by.
	TransferEnergy float64        `json:"transfer_energy,omitempty"`
	Factor         *float64       `json:"factor,omitempty"`
	Properties     map[string]any `json:"properties"`
}

type linkKey struct{ source, target, typ string }

// ToD3 merges results into one graph. Nodes are deduplicated by id and links
// by (source, target, type), the first occurrence winning, in order of first
// appearance walking the results, then each result's seed node, paths and
// steps (a step's from node before its to node). A found seed without paths
// still appears. A node that is the seed of any result is marked Seed with
// the highest such score; its Activation is the highest of its seed scores
// and the energies that reached it. Properties pass through
// DisplayProperties.
func ToD3(results ...activation.Result) D3Graph {
	g := D3Graph{Nodes: []D3Node{}, Links: []D3Link{}}
	index := make(map[string]int)
	links := make(map[linkKey]struct{})

	add := func(n graph.Node) int {
		if i, ok := index[n.ID]; ok {
			return i
		}
		index[n.ID] = len(g.Nodes)
		g.Nodes = append(g.Nodes, D3Node{
			ID: n.ID, Labels: append([]string{}, n.Labels...), Properties: DisplayProperties(n.Properties),
		})
		return len(g.Nodes) - 1
	}

	for _, r := range results {
		seed := func(i int) {
			d := &g.Nodes[i]
			d.Seed = true
			d.Score = maxPtr(d.Score, r.Seed.Score)
			d.Activation = maxPtr(d.Activation, r.Seed.Score)
		}
		if r.SeedNode != nil {
			seed(add(*r.SeedNode))
		}
		for _, p := range r.Paths {
			for _, s := range p.Steps {
				if from := add(s.FromNode); s.FromNode.ID == r.Seed.NodeID {
					seed(from)
				}
				to := add(s.ToNode)
				g.Nodes[to].Activation = maxPtr(g.Nodes[to].Activation, s.TransferEnergy)
				if s.ToNode.ID == r.Seed.NodeID {
					seed(to)
				}
				k := linkKey{s.FromNode.ID, s.ToNode.ID, edgeType(s.Edge)}
				if _, dup := links[k]; dup {
					continue
				}
				links[k] = struct{}{}
				g.Links = append(g.Links, D3Link{
					Source: k.source, Target: k.target, Type: k.typ,
					Weight: s.Weight, WeightMissing: s.Edge.Weight == nil,
					Tags:           append([]string{}, s.Edge.Tags...),
					TransferEnergy: s.TransferEnergy,
					Properties:     DisplayProperties(s.Edge.Properties),
				})
			}
		}
	}
	g.FailedSeeds = FailedSeeds(results...)
	return g
}

func maxPtr(p *float64, v float64) *float64 {
	if p != nil && *p >= v {
		return p
	}
	return &v
}
