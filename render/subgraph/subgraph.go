// Package subgraph is a retrieved subgraph for people and for graph tools:
// the nodes and hops of a retrieval (Activation Energy's results and the
// candidates they beat, one ranking, or several compared) with their scores
// and formulas (Graph, built by FromActivation, FromRanking and
// FromCompare), written as one self-contained interactive HTML page (HTML)
// or as GraphML (GraphML; WholeGraphML for a whole graph).
//
// The HTML page draws seeds, hits and the relationships that carried the
// score, the near misses and losing candidates as dashed edges, a legend,
// hover and click details, zoom and drag, with D3 (the official npm
// release, pinned and embedded: assets/README.md). It needs no network:
// D3, the page's script and its style are inline, and its
// Content-Security-Policy (default-src 'none', each inline script and style
// allowed by its sha256 only) forbids every request, so an opened page can
// neither fetch nor send anything. Graph text is data, never markup: it
// travels as JSON in a <script type="application/json"> block with <, >,
// &, U+2028 and U+2029 written as \u escapes (a "</script>" in a property
// cannot end the block), plus every rune textsafe refuses (the page printed
// to a terminal cannot act on it), and the page's script puts it into the
// document only through textContent and attributes set by D3, never
// innerHTML.
package subgraph

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math"

	"github.com/memoria-graph/memoria/internal/textsafe"
	"github.com/memoria-graph/memoria/retriever/activation"
)

// Mode is what a page shows.
type Mode string

const (
	// ModeActivation is Activation Energy's results: kept hops with T, w,
	// tag_sim and d, and the candidates that lost or fell below the
	// threshold.
	ModeActivation Mode = activation.Name
	// ModeRanking is one ranking retriever's hits and their routes.
	ModeRanking Mode = "ranking"
	// ModeCompare is several rankings over one query, each retriever's hits
	// in its own colour.
	ModeCompare Mode = "compare"
)

// Graph is everything a page draws; it is embedded as JSON.
type Graph struct {
	Mode Mode `json:"mode"`
	// Title names the run (retrievers, seeds, tags) for the heading and the
	// window title.
	Title string `json:"title"`
	// Notes are lines under the title: the parameters, a relationship
	// filter, failed seeds.
	Notes []string `json:"notes"`
	// Retrievers lists the rankings' retrievers in their order (compare and
	// ranking modes), which gives each its colour.
	Retrievers []string `json:"retrievers"`
	Nodes      []Node   `json:"nodes"`
	Links      []Link   `json:"links"`
}

// Node is one node of the drawing.
type Node struct {
	ID     string   `json:"id"`
	Labels []string `json:"labels"`
	// Text is the node's main text (render.NodeText), "" without one.
	Text       string         `json:"text"`
	Properties map[string]any `json:"properties"`
	Seed       bool           `json:"seed"`
	// R is a seed's score (the highest, when several results seed it).
	R *float64 `json:"r,omitempty"`
	// Score sizes and ranks the node: its activation (Activation Energy),
	// else its best score among the rankings; nil when it has none (a
	// node on a route that is not itself a hit, a ghost).
	Score *float64 `json:"score,omitempty"`
	// Lines are the node's score lines as the text formats write them
	// ("R=1", "T=0.41 w=0.82 tag_sim=1 d=4", "expansion #3 score=0.456").
	Lines []string `json:"lines"`
	// Formulas give how each score came about ("T = 1 × 0.82 / √4 × 1 =
	// 0.41", "expansion: R(A) 0.95 × FIXES 1 × … = 0.456").
	Formulas []string `json:"formulas"`
	// Hits are the node's hits, one per ranking that holds it (ranking and
	// compare modes).
	Hits []Hit `json:"hits"`
	// Ghost marks a node reached only by near misses or losing candidates:
	// it is not part of the result, and is drawn only with them.
	Ghost bool `json:"ghost,omitempty"`
}

// Hit is a node's place in one ranking.
type Hit struct {
	Retriever string  `json:"retriever"`
	Rank      int     `json:"rank"`
	Score     float64 `json:"score"`
	// Cut marks a hit beyond the ranking's K (a loser, drawn dashed).
	Cut bool `json:"cut,omitempty"`
}

// Link is one directed hop of the drawing.
type Link struct {
	Source string   `json:"source"`
	Target string   `json:"target"`
	Type   string   `json:"type"`
	Weight float64  `json:"weight"`
	Tags   []string `json:"tags"`
	// Properties are the relationship's (render.DisplayProperties).
	Properties map[string]any `json:"properties"`
	// Line is the hop as the text formats write it ("T=0.41 w=0.82
	// tag_sim=1 d=4", "-[FIXES w=1 ×1]->") and Formula its arithmetic
	// ("" for a ranking's hop).
	Line    string `json:"line"`
	Formula string `json:"formula"`
	// T, TagSim and Degree are Activation Energy's transfer energy,
	// tag_sim and the parent's degree d; Factor is what a ranking's hop
	// multiplied the score by. Each is nil where it does not apply.
	T      *float64 `json:"t,omitempty"`
	TagSim *float64 `json:"tag_sim,omitempty"`
	Degree *int64   `json:"degree,omitempty"`
	Factor *float64 `json:"factor,omitempty"`
	// Fate is "kept" for a hop of the result; "branch_limit", "claimed"
	// or "below_threshold" for a candidate that lost, "cut" for a ranking's
	// hop to hits beyond its K only (drawn dashed, shown with the toggle).
	Fate      string `json:"fate"`
	ClaimedBy string `json:"claimed_by,omitempty"`
	// Retrievers lists the rankings whose routes hold the hop.
	Retrievers []string `json:"retrievers"`
}

// Kept says whether l is a hop of the result (not a near miss or loser).
func (l Link) Kept() bool { return l.Fate == FateKept }

// FateKept is a link of the result; FateCut a ranking's hop that only
// routes to hits beyond its K use.
const (
	FateKept = "kept"
	FateCut  = "cut"
)

// DataJSON is p as the page embeds it: JSON with <, >, &, U+2028 and
// U+2029 as \u escapes (encoding/json's HTML escaping), and every rune
// textsafe.Safe refuses \u-escaped too (textsafe.JSON). Nothing in it can
// end the <script> element that holds it.
//
// A score, weight or other number of the drawing that is not finite,
// which JSON cannot hold, is refused with the error naming its node or
// link (CheckFinite).
func DataJSON(p Graph) ([]byte, error) {
	if err := p.CheckFinite(); err != nil {
		return nil, fmt.Errorf("html page: %w", err)
	}
	p = p.normal()
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(true)
	if err := enc.Encode(p); err != nil {
		return nil, fmt.Errorf("html page: %w", err)
	}
	return textsafe.JSON(bytes.TrimRight(b.Bytes(), "\n")), nil
}

// CheckFinite names the first number of the drawing that is not finite,
// if any: a node's R, score or hits' scores, a link's weight, T, tag_sim
// or factor. The retrievers keep their numbers finite (each refuses what
// would overflow); this guards the page and the GraphML against a ranking
// that did not.
func (p Graph) CheckFinite() error {
	type num struct {
		name string
		v    *float64
	}
	bad := func(xs ...num) (num, bool) {
		for _, x := range xs {
			if x.v != nil && (math.IsNaN(*x.v) || math.IsInf(*x.v, 0)) {
				return x, true
			}
		}
		return num{}, false
	}
	for _, n := range p.Nodes {
		xs := []num{{"R", n.R}, {"score", n.Score}}
		for i := range n.Hits {
			xs = append(xs, num{textsafe.Escape(n.Hits[i].Retriever) + "'s score", &n.Hits[i].Score})
		}
		if x, ok := bad(xs...); ok {
			return fmt.Errorf("node %s: %s %v is not a finite number", textsafe.Quote(n.ID), x.name, *x.v)
		}
	}
	for _, l := range p.Links {
		if x, ok := bad(num{"weight", &l.Weight}, num{"T", l.T}, num{"tag_sim", l.TagSim}, num{"factor", l.Factor}); ok {
			return fmt.Errorf("link (%s)-[:%s]->(%s): %s %v is not a finite number",
				textsafe.Quote(l.Source), textsafe.Escape(l.Type), textsafe.Quote(l.Target), x.name, *x.v)
		}
	}
	return nil
}

// normal replaces nil slices and maps by empty ones, so that the page's
// script finds [] and {} rather than null.
func (p Graph) normal() Graph {
	if p.Notes == nil {
		p.Notes = []string{}
	}
	if p.Retrievers == nil {
		p.Retrievers = []string{}
	}
	nodes := make([]Node, len(p.Nodes))
	for i, n := range p.Nodes {
		if n.Labels == nil {
			n.Labels = []string{}
		}
		if n.Properties == nil {
			n.Properties = map[string]any{}
		}
		if n.Lines == nil {
			n.Lines = []string{}
		}
		if n.Formulas == nil {
			n.Formulas = []string{}
		}
		if n.Hits == nil {
			n.Hits = []Hit{}
		}
		nodes[i] = n
	}
	links := make([]Link, len(p.Links))
	for i, l := range p.Links {
		if l.Tags == nil {
			l.Tags = []string{}
		}
		if l.Properties == nil {
			l.Properties = map[string]any{}
		}
		if l.Retrievers == nil {
			l.Retrievers = []string{}
		}
		links[i] = l
	}
	p.Nodes, p.Links = nodes, links
	return p
}
