package subgraph

import (
	"strconv"
	"strings"

	"github.com/memoria-graph/memoria/graph"
	"github.com/memoria-graph/memoria/render"
	"github.com/memoria-graph/memoria/retriever"
	"github.com/memoria-graph/memoria/retriever/activation"
	"github.com/memoria-graph/memoria/retriever/overlap"
)

type linkKey struct{ source, target, typ string }

func edgeType(e graph.Edge) string {
	if e.Type == "" {
		return graph.Relates
	}
	return e.Type
}

// stepLine is a hop as the tree writes it: "T=0.41 w=0.82 tag_sim=1 d=4",
// the weight marked "(missing)" when the edge has none.
func stepLine(s activation.Step) string {
	w := render.Num(s.Weight)
	if s.Edge.Weight == nil {
		w += "(missing)"
	}
	return "T=" + render.Num(s.TransferEnergy) + " w=" + w + " tag_sim=" + render.Num(s.TagSim) + " d=" + strconv.FormatInt(s.Degree, 10)
}

func text(n graph.Node) string {
	t, _ := render.NodeText(n)
	return t
}

func ptr(v float64) *float64 { return &v }

// ActivationRun is what an Activation Energy page is made of.
type ActivationRun struct {
	Results []activation.Result
	// Levels are each result's level events, in the results' order (nil
	// for none): their losing candidates and near misses become the
	// dashed edges.
	Levels [][]activation.LevelEvent
	Params activation.Params
	Tags   []string
	// Filter is the relationship filter's description ("" for none).
	Filter string
}

// FromActivation is the page of Activation Energy's results: the nodes and
// links of render.ToD3 in its order (so the page holds exactly the D3
// graph's elements), each node with its seed score R and the best hop into
// it as the tree writes them ("T=0.41 w=0.82 tag_sim=1 d=4") and that hop's
// formula (render.EnergyFormula); then, marked with their fate, the
// candidates that lost a branch or a claim and the near misses the levels
// recorded, with the nodes only they reach as ghosts.
func FromActivation(run ActivationRun) Graph {
	d3 := render.ToD3(run.Results...)
	p := Graph{Mode: ModeActivation, Retrievers: []string{activation.Name}}
	var seeds []string
	for _, r := range run.Results {
		seeds = append(seeds, r.Seed.NodeID+"="+render.Num(r.Seed.Score))
	}
	p.Title = "Activation Energy from " + strings.Join(seeds, ", ")
	if len(run.Tags) > 0 {
		p.Title += " · tags " + strings.Join(run.Tags, ", ")
	}
	p.Notes = append(p.Notes, "MAX_DEPTH "+strconv.Itoa(run.Params.MaxDepth)+" · MIN_ACTIVATION "+render.Num(run.Params.MinActivation)+
		" · TAG_SIM_FLOOR "+render.Num(run.Params.TagSimFloor)+" · MAX_BRANCHES "+strconv.Itoa(run.Params.MaxBranches)+
		" · T = R × w / √d × tag_sim")
	p.Notes = append(p.Notes, notes(run.Filter, d3.FailedSeeds)...)

	best := map[string]activation.Step{}
	steps := map[linkKey]activation.Step{}
	full := map[string]graph.Node{}
	for _, r := range run.Results {
		if r.SeedNode != nil {
			full[r.SeedNode.ID] = *r.SeedNode
		}
		for _, path := range r.Paths {
			for _, s := range path.Steps {
				if b, ok := best[s.ToNode.ID]; !ok || s.TransferEnergy > b.TransferEnergy {
					best[s.ToNode.ID] = s
				}
				k := linkKey{s.FromNode.ID, s.ToNode.ID, edgeType(s.Edge)}
				if _, ok := steps[k]; !ok {
					steps[k] = s
				}
				full[s.ToNode.ID] = s.ToNode
				if _, ok := full[s.FromNode.ID]; !ok {
					full[s.FromNode.ID] = s.FromNode
				}
			}
		}
	}
	at := map[string]bool{}
	for _, n := range d3.Nodes {
		at[n.ID] = true
		node := Node{ID: n.ID, Labels: n.Labels, Text: text(full[n.ID]), Properties: n.Properties, Seed: n.Seed, Score: n.Activation, R: n.Score}
		if n.Seed && n.Score != nil {
			node.Lines = append(node.Lines, "R="+render.Num(*n.Score))
			node.Formulas = append(node.Formulas, "seed: its score R = "+render.Num(*n.Score)+" is its activation")
		}
		if s, ok := best[n.ID]; ok {
			node.Lines = append(node.Lines, stepLine(s))
			node.Formulas = append(node.Formulas, "from "+s.FromNode.ID+": "+render.EnergyFormula(s))
		}
		p.Nodes = append(p.Nodes, node)
	}
	have := map[linkKey]bool{}
	for _, l := range d3.Links {
		k := linkKey{l.Source, l.Target, l.Type}
		have[k] = true
		link := Link{Source: l.Source, Target: l.Target, Type: l.Type, Weight: l.Weight, Tags: l.Tags, Properties: l.Properties, Fate: FateKept,
			Retrievers: []string{activation.Name}, T: ptr(l.TransferEnergy)}
		if s, ok := steps[k]; ok {
			link.Line, link.Formula = stepLine(s), render.EnergyFormula(s)
			link.TagSim, link.Degree = ptr(s.TagSim), &s.Degree
		}
		p.Links = append(p.Links, link)
	}

	// The losers and near misses, level by level, seed by seed.
	ghost := map[string]int{}
	lose := func(c activation.Candidate, fate activation.Fate, claimedBy string) {
		k := linkKey{c.ParentID, c.NeighborNode.ID, edgeType(c.Edge)}
		if have[k] || c.NeighborNode.ID == "" {
			return
		}
		have[k] = true
		s := activation.StepFromCandidate(graph.Node{ID: c.ParentID}, c)
		why := fateText(fate, claimedBy, c.TransferEnergy, run.Params.MinActivation)
		p.Links = append(p.Links, Link{Source: k.source, Target: k.target, Type: k.typ, Weight: s.Weight,
			Tags: append([]string{}, c.Edge.Tags...), Properties: render.DisplayProperties(c.Edge.Properties), Line: stepLine(s) + " · " + why, Formula: render.EnergyFormula(s),
			T: ptr(c.TransferEnergy), TagSim: ptr(c.TagSim), Degree: &s.Degree, Fate: string(fate), ClaimedBy: claimedBy, Retrievers: []string{activation.Name}})
		if at[k.target] {
			return
		}
		i, ok := ghost[k.target]
		if !ok {
			n := c.NeighborNode
			i = len(p.Nodes)
			ghost[k.target] = i
			p.Nodes = append(p.Nodes, Node{ID: n.ID, Labels: n.Labels, Text: text(n), Properties: render.DisplayProperties(n.Properties), Ghost: true})
		}
		p.Nodes[i].Lines = append(p.Nodes[i].Lines, "not kept from "+c.ParentID+": "+stepLine(s)+" · "+why)
		p.Nodes[i].Formulas = append(p.Nodes[i].Formulas, "from "+c.ParentID+": "+render.EnergyFormula(s))
	}
	for _, levels := range run.Levels {
		for _, lv := range levels {
			for _, o := range lv.Outcomes {
				if o.Fate != activation.FateKept {
					lose(o.Candidate, o.Fate, o.ClaimedBy)
				}
			}
			for _, c := range lv.NearMisses {
				lose(c, activation.FateBelowThreshold, "")
			}
		}
	}
	return p
}

// fateText is why a candidate was not kept, in words.
func fateText(f activation.Fate, claimedBy string, t, minActivation float64) string {
	switch f {
	case activation.FateBranchLimit:
		return "lost: its parent had already kept MAX_BRANCHES neighbours"
	case activation.FateClaimed:
		return "lost: claimed by " + claimedBy + " with a higher T"
	case activation.FateBelowThreshold:
		return "near miss: T not above MIN_ACTIVATION (" + render.ShareOf(t, minActivation) + ")"
	}
	return string(f)
}

// notes are the lines every page adds for a relationship filter and failed
// seeds.
func notes(filter string, failed []render.FailedSeed) []string {
	var out []string
	if filter != "" {
		out = append(out, "relationship filter: "+filter+" (filtered relationships are not traversed; degrees d and strengths still count them)")
	}
	for _, f := range failed {
		out = append(out, "seed "+f.ID+" FAILED ("+f.Error+"): its paths are missing or incomplete")
	}
	return out
}

// FromRanking is the page of one ranking retriever's hits: the nodes and
// links of render.RankingD3 in its order, each hit with its rank, score
// and formula (render.Formula), each hop with its factor.
//
// k, when above 0, is the ranking's K and r a deeper run of the same
// retriever: its hits beyond k are the losers, drawn dashed with their
// routes' hops that no hit within k uses, and ghosts when nothing else
// holds them.
func FromRanking(r retriever.Ranking, k int) Graph {
	p := build([]retriever.Ranking{r}, k)
	p.Mode = ModeRanking
	return p
}

// FromCompare is the page of a comparison (compare --format html): the
// union of the rankings' nodes and route hops, each hit marked with its
// retriever, rank and score. A hit ranked beyond res.K is marked Cut (a
// loser, dashed); the notes give each pair's Jaccard and RBO.
func FromCompare(rankings []retriever.Ranking, res overlap.Result) Graph {
	p := build(rankings, res.K)
	p.Mode = ModeCompare
	for _, pr := range res.Pairs {
		j := "jaccard"
		if res.K > 0 {
			j += "@" + strconv.Itoa(res.K)
		}
		p.Notes = append(p.Notes, pr.A+" vs "+pr.B+": "+j+" "+render.Num(pr.Jaccard)+", rbo (p="+render.Num(overlap.P)+") "+render.Num(pr.RBO))
	}
	return p
}

// build merges rankings: the nodes and links of each one's
// render.RankingD3, first occurrence first.
func build(rankings []retriever.Ranking, k int) Graph {
	var p Graph
	at := map[string]int{}
	links := map[linkKey]int{}
	var names, seeds []string
	seen := map[string]bool{}
	for _, r := range rankings {
		names = append(names, r.Retriever)
		for _, s := range r.Seeds {
			if !seen[s.NodeID] {
				seen[s.NodeID] = true
				seeds = append(seeds, s.NodeID+"="+render.Num(s.Score))
			}
		}
	}
	p.Retrievers = names
	seedR := map[string]float64{}
	for _, r := range rankings {
		for _, s := range r.Seeds {
			if v, ok := seedR[s.NodeID]; !ok || s.Score > v {
				seedR[s.NodeID] = s.Score
			}
		}
	}
	p.Title = strings.Join(names, " · ") + " from " + strings.Join(seeds, ", ")
	for ri, r := range rankings {
		if len(r.Params) > 0 {
			p.Notes = append(p.Notes, r.Retriever+": "+render.FieldsText(r.Params))
		}
		if ri == 0 {
			p.Notes = append(p.Notes, notes(r.Filter, nil)...)
		}
		for _, s := range r.Seeds {
			if !s.Found {
				p.Notes = append(p.Notes, r.Retriever+": seed "+s.NodeID+" not found")
			}
		}
		d3 := render.RankingD3(r)
		top := map[linkKey]bool{}
		for _, l := range render.RankingD3(cutTo(r, k)).Links {
			top[linkKey{l.Source, l.Target, l.Type}] = true
		}
		for _, n := range d3.Nodes {
			if _, ok := at[n.ID]; !ok {
				at[n.ID] = len(p.Nodes)
				p.Nodes = append(p.Nodes, Node{ID: n.ID, Labels: n.Labels, Properties: n.Properties, Seed: n.Seed})
			}
			i := at[n.ID]
			p.Nodes[i].Seed = p.Nodes[i].Seed || n.Seed
			if v, ok := seedR[n.ID]; ok && p.Nodes[i].Seed {
				p.Nodes[i].R = ptr(v)
			}
			if len(p.Nodes[i].Labels) == 0 {
				p.Nodes[i].Labels = n.Labels
			}
			if len(p.Nodes[i].Properties) == 0 {
				p.Nodes[i].Properties = n.Properties
			}
		}
		for _, h := range r.Hits {
			i := at[h.NodeID]
			n := &p.Nodes[i]
			if n.Text == "" {
				n.Text = text(h.Node)
			}
			cut := k > 0 && h.Rank > k
			n.Hits = append(n.Hits, Hit{Retriever: r.Retriever, Rank: h.Rank, Score: h.Score, Cut: cut})
			if !cut && (n.Score == nil || h.Score > *n.Score) {
				n.Score = ptr(h.Score)
			}
			line := r.Retriever + " #" + strconv.Itoa(h.Rank) + " score=" + render.Num(h.Score) + " (" + string(h.Origin) + ")"
			if cut {
				line += " · beyond the top " + strconv.Itoa(k)
			}
			n.Lines = append(n.Lines, line)
			_, named := render.Formula(h)
			n.Formulas = append(n.Formulas, r.Retriever+": "+named)
		}
		for _, l := range d3.Links {
			key := linkKey{l.Source, l.Target, l.Type}
			fate := FateKept
			if !top[key] {
				fate = FateCut
			}
			if j, ok := links[key]; ok {
				p.Links[j].Retrievers = append(p.Links[j].Retrievers, r.Retriever)
				if fate == FateKept {
					p.Links[j].Fate = FateKept
				}
				continue
			}
			links[key] = len(p.Links)
			line := "-[" + l.Type + " w=" + render.Num(l.Weight)
			if l.Factor != nil {
				line += " ×" + render.Num(*l.Factor)
			}
			p.Links = append(p.Links, Link{Source: l.Source, Target: l.Target, Type: l.Type, Weight: l.Weight, Tags: l.Tags, Properties: l.Properties,
				Line: line + "]->", Fate: fate, Retrievers: []string{r.Retriever}, Factor: l.Factor})
		}
	}
	// A node that only losers hold is drawn with them.
	kept := map[string]bool{}
	for _, l := range p.Links {
		if l.Kept() {
			kept[l.Source], kept[l.Target] = true, true
		}
	}
	for i := range p.Nodes {
		n := &p.Nodes[i]
		if n.Seed || kept[n.ID] || len(n.Hits) == 0 {
			continue
		}
		n.Ghost = true
		for _, h := range n.Hits {
			n.Ghost = n.Ghost && h.Cut
		}
	}
	return p
}

// cutTo is r with only its hits within the top k (k 0: all of them).
func cutTo(r retriever.Ranking, k int) retriever.Ranking {
	if k > 0 && len(r.Hits) > k {
		r.Hits = r.Hits[:k]
	}
	return r
}
