// Package spreading is the spreading-activation retriever
// (docs/RETRIEVERS.md, "Spreading activation"): the seeds start with an
// activation that spreads over RELATES relationships, in both directions,
// for a few pulses, each passing Δ × weight × decay from every node that
// fires (its last Δ at least the threshold). A node's activation is the sum
// of what it received; the nodes activated enough are scored by a blend of
// semantic similarity and normalised activation, penalised when they count
// too many entities, ranked, the top K kept.
//
// It reads a graph only through graph.Neighbourhood (the seeds, one read
// per pulse for the whole frontier, then the candidates' properties and
// degrees), so it runs alike on the embedded engine and on Neo4j, and
// shares only package retriever with the other retrievers
// (docs/ARCHITECTURE.md).
package spreading

import (
	"context"
	"math"
	"slices"
	"strings"

	"github.com/memoria-graph/memoria/graph"
	"github.com/memoria-graph/memoria/retriever"
)

// Name is the retriever's name in rankings, flags and the explorer.
const Name = "spreading"

// Source is one relationship that brought a hit activation, as a hit's
// detail lists it (`top_sources`).
type Source struct {
	From   string  `json:"from"`
	Pulse  int     `json:"pulse"`
	Weight float64 `json:"weight"`
	Amount float64 `json:"amount"`
}

// weightOf is the weight a RELATES relationship passes activation with:
// its own weight property, graph.MissingRelatesWeight without one
// (graph.Rel.WeightOr, which names one whose weight is not finite).
func weightOf(r graph.Rel) (float64, error) { return r.WeightOr(graph.MissingRelatesWeight) }

// contrib is one relationship passing activation at one pulse: rels[pulse]
// [idx] from its source to its target, amount = Δ(source) × w × D.
type contrib struct {
	pulse  int
	idx    int
	w      float64
	amount float64
}

// state is one activated node: its Δ per pulse, whether it received
// anything at each pulse, and at each pulse its strongest contribution
// (an index into the contributions, −1 for none). Arrays sized for
// MaxPulses keep a node to one allocation among many (run.slab).
type state struct {
	ref      graph.NodeRef
	delta    [MaxPulses + 1]float64
	received [MaxPulses + 1]bool
	best     [MaxPulses + 1]int32
	seed     bool
	r        float64
}

// Retrieve runs spreading activation from q's seeds over nb with p. q's
// tags are not used. A seed not in the graph is reported not found and
// spreads nothing.
func Retrieve(ctx context.Context, nb graph.Neighbourhood, q retriever.Query, p Params) (retriever.Ranking, error) {
	if err := q.Validate(); err != nil {
		return retriever.Ranking{}, err
	}
	if err := p.Validate(); err != nil {
		return retriever.Ranking{}, err
	}
	var out retriever.Ranking
	err := nb.Read(ctx, func(r graph.Reader) error {
		var err error
		out, err = retrieve(ctx, r, q, p)
		return err
	})
	return out, err
}

// run is one retrieval's working state.
type run struct {
	p        Params
	nodes    map[string]*state
	order    []string // activated nodes in order of first activation
	rels     [][]graph.Rel
	contribs []contrib
	read     int
	pulses   int
	slab     []state
}

func (s *run) node(ref graph.NodeRef) *state {
	if n, ok := s.nodes[ref.Node.ID]; ok {
		return n
	}
	if len(s.slab) == 0 {
		s.slab = make([]state, 256)
	}
	n := &s.slab[0]
	s.slab = s.slab[1:]
	n.ref = ref
	for i := range n.best {
		n.best[i] = -1
	}
	s.nodes[ref.Node.ID] = n
	s.order = append(s.order, ref.Node.ID)
	return n
}

func retrieve(ctx context.Context, r graph.Reader, q retriever.Query, p Params) (retriever.Ranking, error) {
	ids := make([]string, len(q.Seeds))
	for i, sd := range q.Seeds {
		ids[i] = sd.NodeID
	}
	found, err := r.Nodes(ctx, ids)
	if err != nil {
		return retriever.Ranking{}, err
	}
	s := &run{p: p, nodes: make(map[string]*state, len(found)), rels: make([][]graph.Rel, p.Pulses+1)}
	refOf := make(map[string]graph.NodeRef, len(found))
	for _, f := range found {
		refOf[f.Node.ID] = f
	}
	seeds := make([]retriever.SeedStatus, len(q.Seeds))
	for i, sd := range q.Seeds {
		ref, ok := refOf[sd.NodeID]
		seeds[i] = retriever.SeedStatus{NodeID: sd.NodeID, Score: sd.Score, Found: ok}
		if !ok {
			continue
		}
		n := s.node(ref)
		n.seed, n.r, n.received[0] = true, sd.Score, true
		n.delta[0] = 1
		if p.Initial == InitialScore {
			n.delta[0] = sd.Score
		}
	}
	if err := s.spread(ctx, r); err != nil {
		return retriever.Ranking{}, err
	}
	cands, err := s.score(ctx, r)
	if err != nil {
		return retriever.Ranking{}, err
	}
	slices.SortFunc(cands, func(a, b *scored) int { return retriever.Compare(a.final, a.n.ref.Node.ID, b.final, b.n.ref.Node.ID) })
	kept := cands[:min(len(cands), p.TopK)]
	var lean []*graph.NodeRef
	for _, c := range kept {
		if c.n.ref.Node.Properties == nil {
			lean = append(lean, &c.n.ref)
		}
	}
	if len(lean) > 0 {
		// The hits' properties, for the front ends.
		if err := r.Details(ctx, lean, nil); err != nil {
			return retriever.Ranking{}, err
		}
	}
	hits, err := s.hits(ctx, r, kept)
	if err != nil {
		return retriever.Ranking{}, err
	}
	hits, _ = retriever.Rank(hits, 0)
	return retriever.Ranking{
		Retriever: Name,
		Params:    p.Fields(),
		Seeds:     seeds,
		Hits:      hits,
		Stats: retriever.Fields{
			{Name: "seeds_found", Value: len(found)},
			{Name: "nodes_activated", Value: len(s.nodes)},
			{Name: "candidates", Value: len(cands)},
			{Name: "pulses_run", Value: s.pulses},
			{Name: "relationships_read", Value: s.read},
		},
	}, nil
}

// spread runs the pulses: at pulse p every node that received activation
// at pulse p−1 with Δₚ₋₁ ≥ θ fires, in id order, passing Δₚ₋₁ × w × D over
// each of its RELATES relationships (parallel ones each, a self-loop
// never). It stops early when nothing fires.
func (s *run) spread(ctx context.Context, r graph.Reader) error {
	for p := 1; p <= s.p.Pulses; p++ {
		var frontier []graph.NodeRef
		for _, id := range s.order {
			if n := s.nodes[id]; n.received[p-1] && n.delta[p-1] >= s.p.Threshold {
				frontier = append(frontier, n.ref)
			}
		}
		if len(frontier) == 0 {
			return nil
		}
		slices.SortFunc(frontier, func(a, b graph.NodeRef) int { return strings.Compare(a.Node.ID, b.Node.ID) })
		rels, err := r.Around(ctx, frontier)
		if err != nil {
			return err
		}
		s.pulses = p
		s.rels[p] = rels
		for i, rel := range rels {
			e := rel.Edge
			if e.Type != graph.Relates {
				continue
			}
			s.read++
			if e.SourceID == e.TargetID {
				continue
			}
			w, err := weightOf(rel)
			if err != nil {
				return err
			}
			u := s.nodes[e.SourceID]
			amount := u.delta[p-1] * w * s.p.Decay
			v := s.node(rel.To)
			v.delta[p] += amount
			v.received[p] = true
			if b := v.best[p]; b < 0 || amount > s.contribs[b].amount {
				v.best[p] = int32(len(s.contribs))
			}
			s.contribs = append(s.contribs, contrib{pulse: p, idx: i, w: w, amount: amount})
		}
	}
	return nil
}

// scored is a candidate with the parts of its final score.
type scored struct {
	n          *state
	activation float64
	normalised float64
	sem        float64
	semFrom    string
	ec         float64
	ecFrom     string
	blend      float64
	penalty    float64 // 1 when not penalised
	final      float64
}

// activationOf is A(v): Δ₀ + Δ₁ + … + Δ_P, added in pulse order.
func activationOf(n *state) float64 {
	a := 0.0
	for _, d := range n.delta { // zeros beyond the pulses run
		a += d
	}
	return a
}

// score finds the candidates (A ≥ θ), reads (one Facts read) their
// entity_count, their embedding when there is a query vector, and their
// RELATES degree, and scores them.
func (s *run) score(ctx context.Context, r graph.Reader) ([]*scored, error) {
	var cands []*scored
	maxA := 0.0
	for _, id := range s.order {
		n := s.nodes[id]
		if a := activationOf(n); a >= s.p.Threshold {
			cands = append(cands, &scored{n: n, activation: a})
			if len(cands) == 1 || a > maxA {
				maxA = a
			}
		}
	}
	// One read of what the score needs: entity_count, the embedding
	// (only with a query vector) and the RELATES degree.
	keys := []string{"entity_count"}
	if s.p.QueryVector != nil {
		keys = append(keys, "embedding")
	}
	refs := make([]graph.NodeRef, len(cands))
	for i, c := range cands {
		refs[i] = c.n.ref
	}
	facts, err := r.Facts(ctx, refs, keys, graph.Relates)
	if err != nil {
		return nil, err
	}
	for i, c := range cands {
		props := facts[i].Props
		if ec, ok := entityCount(props); ok {
			c.ec, c.ecFrom = ec, "entity_count"
		} else {
			c.ec, c.ecFrom = float64(facts[i].Degree), "degree"
		}
		if maxA > 0 {
			c.normalised = c.activation / maxA
		}
		c.sem, c.semFrom = 0, "none"
		if sim, ok := cosine(s.p.QueryVector, props["embedding"]); ok {
			c.sem, c.semFrom = sim, "embedding"
		} else if c.n.seed {
			c.sem, c.semFrom = c.n.r, "seed score"
		}
		c.blend = s.p.Alpha*c.sem + (1-s.p.Alpha)*c.normalised
		c.penalty = 1
		c.final = c.blend
		if c.ec > s.p.EntityPenaltyAbove {
			c.penalty = s.p.EntityPenaltyAbove / c.ec
			c.final = c.blend * c.penalty
		}
	}
	return cands, nil
}

// entityCount reads a node's entity_count property: an integer or a finite
// float.
func entityCount(props map[string]any) (float64, bool) {
	switch x := props["entity_count"].(type) {
	case int64:
		return float64(x), true
	case int:
		return float64(x), true
	case float64:
		return x, !math.IsNaN(x) && !math.IsInf(x, 0)
	}
	return 0, false
}

// cosine is the cosine of q with an embedding property, negative taken as
// 0; ok is false without a query vector, or when the property is not a
// list of finite numbers of q's length with a length of its own.
func cosine(q []float64, emb any) (float64, bool) {
	if q == nil {
		return 0, false
	}
	var e []float64
	switch x := emb.(type) {
	case []float64:
		e = x
	case []any:
		e = make([]float64, len(x))
		for i, v := range x {
			switch y := v.(type) {
			case float64:
				e[i] = y
			case int64:
				e[i] = float64(y)
			case int:
				e[i] = float64(y)
			default:
				return 0, false
			}
		}
	default:
		return 0, false
	}
	if len(e) != len(q) {
		return 0, false
	}
	var dot, nq, ne float64
	for i := range q {
		if math.IsNaN(e[i]) || math.IsInf(e[i], 0) {
			return 0, false
		}
		dot += q[i] * e[i]
		nq += q[i] * q[i]
		ne += e[i] * e[i]
	}
	if ne == 0 {
		return 0, false
	}
	return max(0, dot/(math.Sqrt(nq)*math.Sqrt(ne))), true
}

// hits builds the kept candidates' hits: the strongest route back to a
// seed, the three strongest contributions, the feeders (feeds), the
// pulses, the blend and the penalty. The relationships of the routes and
// of the feeders get their properties (one Details read).
func (s *run) hits(ctx context.Context, r graph.Reader, kept []*scored) ([]retriever.Hit, error) {
	at := make(map[string]int, len(kept))
	for i, c := range kept {
		at[c.n.ref.Node.ID] = i
	}
	top := make([][]contrib, len(kept))
	fed := feeds{at: map[feedKey]int{}, per: make([][]feed, len(kept))}
	for _, c := range s.contribs {
		i, ok := at[s.rels[c.pulse][c.idx].Edge.TargetID]
		if !ok {
			continue
		}
		fed.add(s.rels[c.pulse], i, c)
		// Strongest first; on a tie the earlier contribution (earlier
		// pulse, then smaller sender id) stays ahead.
		t := top[i]
		k := len(t)
		for k > 0 && c.amount > t[k-1].amount {
			k--
		}
		if k < 3 {
			t = slices.Insert(t, k, c)
			top[i] = t[:min(len(t), 3)]
		}
	}
	routes := make([][]contrib, len(kept))
	feeders := make([][]feed, len(kept))
	var relPtrs []*graph.Rel
	for i, c := range kept {
		routes[i] = s.route(c.n)
		for _, x := range routes[i] {
			relPtrs = append(relPtrs, &s.rels[x.pulse][x.idx])
		}
		feeders[i] = fed.top(i, maxFeeders)
		for _, f := range feeders[i] {
			relPtrs = append(relPtrs, &s.rels[f.first.pulse][f.first.idx])
		}
	}
	if len(relPtrs) > 0 {
		if err := r.Details(ctx, nil, relPtrs); err != nil {
			return nil, err
		}
	}
	hits := make([]retriever.Hit, len(kept))
	for i, c := range kept {
		hits[i] = s.hit(c, routes[i], top[i], feeders[i])
	}
	return hits, nil
}

// maxFeeders is how many feeders a hit lists.
const maxFeeders = 3

// feed is one relationship into a kept hit and what it brought over all
// pulses: first is its first contribution (whose pulse and place in that
// pulse's read name the relationship, with its weight), total the sum of
// its contributions, added in pulse order.
type feed struct {
	first contrib
	total float64
}

// feedKey names one relationship into kept hit number hit, whatever the
// pulse: the sender at its other end, and which of the sender's
// relationships to the hit it is: its element id when the engine gives
// one (Neo4j), else its place among them in the pulse's read (they are
// read together, in graph.SortRels order, the same at every pulse).
type feedKey struct {
	hit  int
	from string
	eid  string
	nth  int
}

// feeds gathers, per kept hit, what each relationship into it brought
// (Hit.Feeders): a relationship that carried at several pulses is one
// feed, its amounts summed. Feeds are kept in the order their
// relationships first carried (pulse, then the read's order: senders by
// id, then graph.SortRels).
type feeds struct {
	at  map[feedKey]int
	per [][]feed
}

// add counts contribution c, over rels[c.idx], to kept hit number hit.
func (f *feeds) add(rels []graph.Rel, hit int, c contrib) {
	e := rels[c.idx].Edge
	k := feedKey{hit: hit, from: e.SourceID, eid: e.ElementID}
	if k.eid == "" {
		for j := c.idx; j > 0 && rels[j-1].Edge.SourceID == e.SourceID && rels[j-1].Edge.TargetID == e.TargetID; j-- {
			k.nth++
		}
	}
	if j, ok := f.at[k]; ok {
		f.per[hit][j].total += c.amount
		return
	}
	f.at[k] = len(f.per[hit])
	f.per[hit] = append(f.per[hit], feed{first: c, total: c.amount})
}

// top is kept hit number hit's n strongest feeds: by total, descending;
// on a tie the relationship that carried first.
func (f *feeds) top(hit, n int) []feed {
	t := f.per[hit]
	slices.SortStableFunc(t, func(a, b feed) int {
		switch {
		case a.total > b.total:
			return -1
		case a.total < b.total:
			return 1
		}
		return 0
	})
	return t[:min(len(t), n)]
}

// route is a node's strongest route, from a seed outwards: its strongest
// contribution over all pulses (the earliest pulse on a tie), then, from
// the sender at the pulse before, the sender's strongest contribution at
// that pulse, back to a seed at pulse 0. A seed's route is empty.
func (s *run) route(n *state) []contrib {
	if n.seed {
		return nil
	}
	best := int32(-1)
	for p := 1; p <= s.pulses; p++ {
		if b := n.best[p]; b >= 0 && (best < 0 || s.contribs[b].amount > s.contribs[best].amount) {
			best = b
		}
	}
	var out []contrib
	for best >= 0 {
		c := s.contribs[best]
		out = append(out, c)
		from := s.nodes[s.rels[c.pulse][c.idx].Edge.SourceID]
		best = from.best[c.pulse-1] // −1 at pulse 0: a seed
	}
	slices.Reverse(out)
	return out
}

func (s *run) hit(c *scored, route []contrib, top []contrib, feeders []feed) retriever.Hit {
	n := c.n
	node := n.ref.Node
	labels := node.Labels
	if labels == nil {
		labels = []string{}
	}
	h := retriever.Hit{NodeID: node.ID, Score: c.final, Labels: labels, Node: node, Route: []retriever.Hop{},
		Seed: node.ID, Origin: retriever.OriginInitial}
	if len(route) > 0 {
		h.Origin = retriever.OriginExpanded
		for _, x := range route {
			rel := s.rels[x.pulse][x.idx]
			h.Route = append(h.Route, retriever.Hop{From: rel.Edge.SourceID, To: rel.Edge.TargetID, Type: rel.Edge.Type,
				Weight: x.w, Factor: x.w * s.p.Decay, Edge: rel.Full()})
		}
		h.Seed = h.Route[0].From
	}
	for _, f := range feeders {
		rel := s.rels[f.first.pulse][f.first.idx]
		h.Feeders = append(h.Feeders, retriever.Hop{From: rel.Edge.SourceID, To: rel.Edge.TargetID, Type: rel.Edge.Type,
			Weight: f.first.w, Factor: f.total, Edge: rel.Full()})
	}
	h.Terms = []retriever.Term{{Name: "blend", Value: c.blend}}
	if c.penalty != 1 {
		h.Terms = append(h.Terms, retriever.Term{Name: "E/ec", Value: c.penalty})
	}
	pulses := slices.Clone(n.delta[:s.pulses+1])
	sources := make([]Source, len(top))
	for i, x := range top {
		sources[i] = Source{From: s.rels[x.pulse][x.idx].Edge.SourceID, Pulse: x.pulse, Weight: x.w, Amount: x.amount}
	}
	h.Detail = retriever.Fields{
		{Name: "activation", Value: c.activation},
		{Name: "pulses", Value: pulses},
		{Name: "normalised", Value: c.normalised},
		{Name: "similarity", Value: c.sem},
		{Name: "similarity_from", Value: c.semFrom},
		{Name: "blend", Value: c.blend},
		{Name: "entity_count", Value: c.ec},
		{Name: "entity_count_from", Value: c.ecFrom},
		{Name: "penalty", Value: c.penalty},
		{Name: "top_sources", Value: sources},
	}
	return h
}
