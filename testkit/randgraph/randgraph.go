// Package randgraph generates random graphs in the APOC model for tests that
// compare the retriever's engines (Neo4j, in-memory, naive): graphs with the
// awkward cases on purpose.
//
// A graph grows by preferential attachment (each new node links to Attach
// earlier nodes chosen with probability proportional to degree + 1), so a
// few hubs appear. On top of that: parallel relationships (some identical,
// some not, in either direction), self-loops, relationships without weight,
// relationships without tags (no property, or an empty list), duplicated
// tags, MENTIONS relationships with attractive weights and tags (which the
// algorithm must ignore), weights on a coarse grid (ties; sometimes the
// integer 1) or arbitrary floats, and labels from the six of docs/ALGORITHM.md "Indexes".
// Every node has a unique string id, in an order unrelated to creation
// order, so ordering by id is really exercised.
package randgraph

import (
	"fmt"
	"math/rand"
	"strconv"

	"github.com/memoria-graph/memoria/graph/apoc"
)

// Labels are the six labels of docs/ALGORITHM.md "Indexes".
var Labels = []string{"UserRequest", "UserPreference", "AgentAnswer", "AgentAction", "Event", "DataSource"}

// Options shape a graph. Probabilities are per relationship (or per node for
// LabelProb and IsolatedProb); a zero probability disables the feature.
type Options struct {
	// Nodes is the number of nodes (40 when <= 0).
	Nodes int
	// Attach is how many relationships each new node draws (2 when <= 0).
	Attach int
	// Tags is the tag vocabulary (t0 ... t7 when empty).
	Tags []string
	// ParallelProb adds a parallel RELATES relationship next to one; half of
	// them are exact copies (same direction and properties).
	ParallelProb float64
	// SelfLoops is the number of RELATES self-loops.
	SelfLoops int
	// MentionsProb adds a MENTIONS relationship (weight 1.0, query-like tags)
	// next to a RELATES one.
	MentionsProb float64
	// MissingWeightProb leaves a relationship without weight.
	MissingWeightProb float64
	// GridWeightProb takes the weight from {0.25, 0.5, 0.75, 1.0} (and a
	// third of the 1.0s as the integer 1) instead of an arbitrary float in
	// [0.25, 1).
	GridWeightProb float64
	// UntaggedProb leaves a relationship untagged: half without the property,
	// half with an empty list.
	UntaggedProb float64
	// DupTagProb repeats one of a relationship's tags.
	DupTagProb float64
	// LabelProb gives a node one of Labels (and a tenth of those a second
	// label); the others have no label.
	LabelProb float64
	// IsolatedProb makes a node isolated (no relationship of its own).
	IsolatedProb float64
}

// DefaultOptions are a graph of n nodes with every feature switched on.
func DefaultOptions(n int) Options {
	return Options{
		Nodes: n, Attach: 2,
		ParallelProb: 0.08, SelfLoops: max(1, n/25), MentionsProb: 0.1,
		MissingWeightProb: 0.08, GridWeightProb: 0.5, UntaggedProb: 0.15, DupTagProb: 0.15,
		LabelProb: 0.85, IsolatedProb: 0.03,
	}
}

// Random returns options drawn around DefaultOptions: between minNodes and
// maxNodes nodes, 1 to 3 attachments, a vocabulary of 3 to 10 tags.
func Random(r *rand.Rand, minNodes, maxNodes int) Options {
	o := DefaultOptions(minNodes + r.Intn(max(1, maxNodes-minNodes+1)))
	o.Attach = 1 + r.Intn(3)
	o.Tags = Vocabulary(3 + r.Intn(8))
	o.GridWeightProb = r.Float64()
	o.ParallelProb = 0.15 * r.Float64()
	o.UntaggedProb = 0.3 * r.Float64()
	o.DupTagProb = 0.3 * r.Float64()
	o.MissingWeightProb = 0.15 * r.Float64()
	return o
}

// Vocabulary is the tags t0 ... t(n-1).
func Vocabulary(n int) []string {
	out := make([]string, n)
	for i := range out {
		out[i] = "t" + strconv.Itoa(i)
	}
	return out
}

// Generate builds a graph. The same r state and options give the same graph.
// Internal ids are "0", "1", ... as APOC writes them.
func Generate(r *rand.Rand, opt Options) *apoc.Graph {
	n := opt.Nodes
	if n <= 0 {
		n = 40
	}
	attach := opt.Attach
	if attach <= 0 {
		attach = 2
	}
	vocab := opt.Tags
	if len(vocab) == 0 {
		vocab = Vocabulary(8)
	}
	gen := &generator{r: r, opt: opt, vocab: vocab, g: &apoc.Graph{}}

	// Unique ids whose order is unrelated to creation order.
	perm := r.Perm(n)
	for i := 0; i < n; i++ {
		id := fmt.Sprintf("%c%03d", 'A'+rune(r.Intn(26)), perm[i])
		props := map[string]any{"id": id, "text": fmt.Sprintf("memory %d about %s", i, vocab[r.Intn(len(vocab))])}
		if r.Intn(4) == 0 {
			props["created_at"] = fmt.Sprintf("2026-01-%02dT10:00:00Z", 1+r.Intn(28))
		}
		labels := []string{}
		if r.Float64() < opt.LabelProb {
			labels = append(labels, Labels[r.Intn(len(Labels))])
			if r.Intn(10) == 0 {
				if second := Labels[r.Intn(len(Labels))]; second != labels[0] {
					labels = append(labels, second)
				}
			}
		}
		gen.g.Nodes = append(gen.g.Nodes, apoc.Node{InternalID: strconv.Itoa(i), Labels: labels, Properties: props})
	}

	// Preferential attachment: node u appears degree(u)+1 times in pool.
	var pool []int
	for v := 0; v < n; v++ {
		isolated := v > 0 && r.Float64() < opt.IsolatedProb
		if v > 0 && !isolated && len(pool) > 0 {
			for k := 0; k < attach; k++ {
				u := pool[r.Intn(len(pool))]
				gen.relates(u, v)
				pool = append(pool, u, v)
			}
		}
		if !isolated {
			pool = append(pool, v)
		}
	}
	for k := 0; k < opt.SelfLoops; k++ {
		u := r.Intn(n)
		gen.relates(u, u)
	}
	return gen.g
}

type generator struct {
	r     *rand.Rand
	opt   Options
	vocab []string
	g     *apoc.Graph
}

func (gen *generator) add(typ string, a, b int, props map[string]any) {
	gen.g.Rels = append(gen.g.Rels, apoc.Relationship{
		InternalID: strconv.Itoa(len(gen.g.Rels)), Type: typ,
		Start: strconv.Itoa(a), End: strconv.Itoa(b), Properties: props,
	})
}

// relates adds a RELATES relationship between u and v in a random
// direction, maybe with a parallel one and a MENTIONS one.
func (gen *generator) relates(u, v int) {
	r := gen.r
	if r.Intn(2) == 0 {
		u, v = v, u
	}
	props := gen.props()
	gen.add("RELATES", u, v, props)
	if r.Float64() < gen.opt.ParallelProb {
		if r.Intn(2) == 0 {
			gen.add("RELATES", u, v, copyProps(props))
		} else if r.Intn(2) == 0 {
			gen.add("RELATES", v, u, gen.props())
		} else {
			gen.add("RELATES", u, v, gen.props())
		}
	}
	if r.Float64() < gen.opt.MentionsProb {
		tags := make([]any, 0, 3)
		for _, t := range gen.vocab[:min(3, len(gen.vocab))] {
			tags = append(tags, t)
		}
		gen.add("MENTIONS", v, u, map[string]any{"weight": 1.0, "tags": tags})
	}
}

var grid = []float64{0.25, 0.5, 0.75, 1.0}

func (gen *generator) props() map[string]any {
	r := gen.r
	p := map[string]any{}
	if r.Float64() >= gen.opt.MissingWeightProb {
		if r.Float64() < gen.opt.GridWeightProb {
			w := grid[r.Intn(len(grid))]
			if w == 1.0 && r.Intn(3) == 0 {
				p["weight"] = int64(1)
			} else {
				p["weight"] = w
			}
		} else {
			p["weight"] = 0.25 + 0.75*r.Float64()
		}
	}
	if r.Float64() < gen.opt.UntaggedProb {
		if r.Intn(2) == 0 {
			p["tags"] = []any{}
		}
	} else {
		k := 1 + r.Intn(min(3, len(gen.vocab)))
		tags := make([]any, 0, k+1)
		for _, i := range r.Perm(len(gen.vocab))[:k] {
			tags = append(tags, gen.vocab[i])
		}
		if r.Float64() < gen.opt.DupTagProb {
			tags = append(tags, tags[r.Intn(len(tags))])
		}
		p["tags"] = tags
	}
	if r.Intn(8) == 0 {
		p["note"] = "n" + strconv.Itoa(r.Intn(5))
	}
	return p
}

func copyProps(p map[string]any) map[string]any {
	out := make(map[string]any, len(p))
	for k, v := range p {
		if list, ok := v.([]any); ok {
			v = append([]any{}, list...)
		}
		out[k] = v
	}
	return out
}
