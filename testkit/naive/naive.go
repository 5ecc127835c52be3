// Package naive is a deliberately simple second implementation of the
// Activation Energy rules, written from the normative rules and sharing no
// code with the retriever's traversal or engines. Tests compare the real
// engines against it. It is slow on purpose: every step scans every edge.
package naive

import (
	"cmp"
	"context"
	"math"
	"slices"
	"strings"

	"github.com/memoria-graph/memoria/graph"
	"github.com/memoria-graph/memoria/retriever"
	"github.com/memoria-graph/memoria/retriever/activation"
)

// Node is a graph node. HasID is false for a node without an id property:
// it counts in degrees but is never reached.
type Node struct {
	ID     string
	HasID  bool
	Labels []string
	Props  map[string]any
}

// Edge is a relationship between node indexes From and To. ID is its
// internal id (FromAPOC keeps the APOC one; it may be empty): like the
// in-memory engine, Backend lists parallel edges that tie on EdgeKey by it.
type Edge struct {
	From, To int
	ID       string
	Type     string
	Weight   *float64
	Tags     []string
	Props    map[string]any
}

// Graph is a node list and an edge list.
type Graph struct {
	Nodes []Node
	Edges []Edge
}

func (g *Graph) find(id string) int {
	for i, n := range g.Nodes {
		if n.HasID && n.ID == id {
			return i
		}
	}
	return -1
}

func (g *Graph) degree(n int) int {
	d := 0
	for _, e := range g.Edges {
		if e.Type == "RELATES" && (e.From == n || e.To == n) {
			d++
		}
	}
	return d
}

func tagSim(edgeTags, query []string, floor float64) float64 {
	if len(query) == 0 {
		return 1
	}
	if len(edgeTags) == 0 {
		return floor
	}
	set := map[string]bool{}
	for _, t := range edgeTags {
		set[t] = true
	}
	inter, union := 0, len(set)
	for _, q := range query {
		if set[q] {
			inter++
		} else {
			union++
		}
	}
	return floor + (1.0-floor)*float64(inter)/float64(union)
}

// Candidate is one above-threshold candidate and its fate.
type Candidate struct {
	Parent, Neighbor string
	Edge             int
	T                float64
	Fate             activation.Fate
	ClaimedBy        string
}

// Path is a completed path: node ids and the energy of each hop.
type Path struct {
	IDs      []string
	Energies []float64
}

// Result is the naive outcome of one seed.
type Result struct {
	Terminated activation.Termination
	Paths      []Path
	Levels     [][]Candidate
}

type front struct {
	node int
	act  float64
	path Path
}

// Explore runs the rules for one seed. query must be normalised.
func Explore(g *Graph, seed retriever.Seed, query []string, cfg activation.Params) Result {
	s := g.find(seed.NodeID)
	if s < 0 {
		return Result{Terminated: activation.TerminatedSeedNotFound}
	}
	visited := map[string]bool{seed.NodeID: true}
	frontier := []front{{node: s, act: seed.Score, path: Path{IDs: []string{seed.NodeID}}}}
	var res Result
	for depth := 0; depth < cfg.MaxDepth && len(frontier) > 0; depth++ {
		var cands []Candidate
		for _, f := range frontier {
			d := g.degree(f.node)
			for ei, e := range g.Edges {
				if e.Type != "RELATES" || (e.From != f.node && e.To != f.node) {
					continue
				}
				other := e.To
				if e.To == f.node {
					other = e.From
				}
				n := g.Nodes[other]
				if !n.HasID || visited[n.ID] {
					continue
				}
				w := 0.01
				if e.Weight != nil {
					w = *e.Weight
				}
				t := f.act * w / math.Sqrt(float64(d)) * tagSim(e.Tags, query, cfg.TagSimFloor)
				if t > cfg.MinActivation {
					cands = append(cands, Candidate{Parent: g.Nodes[f.node].ID, Neighbor: n.ID, Edge: ei, T: t})
				}
			}
		}
		// Claim by repeatedly taking the best remaining candidate.
		claimed := map[string]string{}
		kept := map[string][]Candidate{}
		var level []Candidate
		for len(cands) > 0 {
			b := 0
			for i, c := range cands {
				x := cands[b]
				if c.T > x.T || (c.T == x.T && (c.Parent < x.Parent || (c.Parent == x.Parent && c.Neighbor < x.Neighbor))) {
					b = i
				}
			}
			c := cands[b]
			cands = slices.Delete(cands, b, b+1)
			if w, ok := claimed[c.Neighbor]; ok {
				c.Fate, c.ClaimedBy = activation.FateClaimed, w
			} else if len(kept[c.Parent]) >= cfg.MaxBranches {
				c.Fate = activation.FateBranchLimit
			} else {
				c.Fate = activation.FateKept
				claimed[c.Neighbor] = c.Parent
				kept[c.Parent] = append(kept[c.Parent], c)
			}
			level = append(level, c)
		}
		res.Levels = append(res.Levels, level)
		var next []front
		for _, f := range frontier {
			ks := kept[g.Nodes[f.node].ID]
			if len(ks) == 0 && len(f.path.IDs) > 1 {
				res.Paths = append(res.Paths, f.path)
			}
			for _, c := range ks {
				p := Path{IDs: append(slices.Clone(f.path.IDs), c.Neighbor), Energies: append(slices.Clone(f.path.Energies), c.T)}
				next = append(next, front{node: g.find(c.Neighbor), act: c.T, path: p})
			}
		}
		for _, f := range next {
			visited[g.Nodes[f.node].ID] = true
		}
		frontier = next
	}
	res.Terminated = activation.TerminatedFrontierExhausted
	if len(frontier) > 0 {
		res.Terminated = activation.TerminatedMaxDepth
		for _, f := range frontier {
			res.Paths = append(res.Paths, f.path)
		}
	}
	return res
}

// Backend serves the graph to the real retriever by scanning every edge:
// a connector written independently of the engines.
type Backend struct{ G *Graph }

// Open returns the backend itself.
func (b Backend) Open(context.Context) (activation.Expander, func(context.Context) error, error) {
	return b, func(context.Context) error { return nil }, nil
}

// FetchSeed finds the node by id.
func (b Backend) FetchSeed(_ context.Context, id string) (graph.Node, bool, error) {
	i := b.G.find(id)
	if i < 0 {
		return graph.Node{}, false, nil
	}
	return b.node(i), true, nil
}

func (b Backend) node(i int) graph.Node {
	n := b.G.Nodes[i]
	return graph.Node{ID: n.ID, Labels: n.Labels, Properties: n.Props}
}

// ExpandFrontier computes every candidate by scanning all edges, in the
// Expander order: parent id, transfer energy descending, neighbour id, then
// (parallel edges) activation.SortTiedEdges. Candidates carry what the
// engines' do: the edge's properties as stored, Weight nil when missing,
// Tags as stored (duplicates kept). Edges that tie even on EdgeKey (weight 1
// against 1.0) come by edge id, as in the in-memory engine, then edge and
// frontier position.
func (b Backend) ExpandFrontier(ctx context.Context, req activation.ExpandRequest) ([]activation.Candidate, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	type keyed struct {
		c      activation.Candidate
		fi, ei int
		edgeID string
	}
	var ks []keyed
	for fi, f := range req.Frontier {
		p := b.G.find(f.NodeID)
		if p < 0 {
			continue
		}
		d := b.G.degree(p)
		for ei, e := range b.G.Edges {
			if e.Type != "RELATES" || (e.From != p && e.To != p) {
				continue
			}
			other := e.To
			if e.To == p {
				other = e.From
			}
			n := b.G.Nodes[other]
			if _, seen := req.Visited[n.ID]; !n.HasID || seen {
				continue
			}
			w := 0.01
			if e.Weight != nil {
				w = *e.Weight
			}
			ts := tagSim(e.Tags, req.QueryTags, req.TagSimFloor)
			t := f.Activation * w / math.Sqrt(float64(d)) * ts
			if t <= req.MinActivation {
				continue
			}
			ks = append(ks, keyed{fi: fi, ei: ei, edgeID: e.ID, c: activation.Candidate{
				ParentID: f.NodeID, NeighborNode: b.node(other),
				Edge:       graph.Edge{SourceID: f.NodeID, TargetID: n.ID, Type: "RELATES", Properties: e.Props, Weight: e.Weight, Tags: e.Tags},
				Activation: f.Activation, Degree: int64(d), TagSim: ts, TransferEnergy: t,
			}})
		}
	}
	slices.SortFunc(ks, func(a, b keyed) int {
		return cmp.Or(
			strings.Compare(a.c.ParentID, b.c.ParentID),
			cmp.Compare(b.c.TransferEnergy, a.c.TransferEnergy),
			strings.Compare(a.c.NeighborNode.ID, b.c.NeighborNode.ID),
			strings.Compare(a.edgeID, b.edgeID),
			cmp.Compare(a.ei, b.ei),
			cmp.Compare(a.fi, b.fi))
	})
	out := make([]activation.Candidate, len(ks))
	for i, k := range ks {
		out[i] = k.c
	}
	activation.SortTiedEdges(out)
	return out, nil
}

// Run explores one seed with rt through its public streaming API and
// returns the seed's result and its level events in order (what the
// agreement tests compare with Explore), or Explore's error for a seed it
// refuses.
func Run(ctx context.Context, rt *activation.Retriever, seed retriever.Seed, query []string) (activation.Result, []activation.LevelEvent, error) {
	ch, err := rt.Explore(ctx, []retriever.Seed{seed}, query)
	if err != nil {
		return activation.Result{}, nil, err
	}
	var levels []activation.LevelEvent
	var res activation.Result
	for ev := range ch {
		switch ev.Kind {
		case activation.EventLevel:
			levels = append(levels, *ev.Level)
		case activation.EventResult:
			res = *ev.Result
		}
	}
	return res, levels, nil
}
