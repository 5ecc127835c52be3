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
	"fmt"
	"math"
	"slices"
	"strconv"
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
	degree   int64 // RELATES degree, once scored (−1 before)
}

// Retrieve runs spreading activation from q's seeds over nb with p. q's
// tags are not used. A seed not in the graph is reported not found and
// spreads nothing.
func Retrieve(ctx context.Context, nb graph.Neighbourhood, q retriever.Query, p Params) (retriever.Ranking, error) {
	return retriever.Retrieve(ctx, nb, q, p, func(r graph.Reader) (retriever.Ranking, error) { return retrieve(ctx, r, q, p) })
}

// run is one retrieval's working state.
type run struct {
	p        Params
	nodes    map[string]*state
	order    []string          // activated nodes in order of first activation
	from     [][]graph.NodeRef // the firing nodes, per pulse
	arcs     [][]graph.Arc     // their RELATES arcs, per pulse
	contribs []contrib
	read     int
	pulses   int
	slab     []state
	nths     map[senderArcs]nthsOf // a hub's arcs numbered by s.nth, once asked
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
	n.degree = -1
	for i := range n.best {
		n.best[i] = -1
	}
	s.nodes[ref.Node.ID] = n
	s.order = append(s.order, ref.Node.ID)
	return n
}

func retrieve(ctx context.Context, r graph.Reader, q retriever.Query, p Params) (retriever.Ranking, error) {
	refOf, err := retriever.FindSeeds(ctx, r, q.Seeds)
	if err != nil {
		return retriever.Ranking{}, err
	}
	s := &run{p: p, nodes: make(map[string]*state, len(refOf)), from: make([][]graph.NodeRef, p.Pulses+1),
		arcs: make([][]graph.Arc, p.Pulses+1)}
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
	probed := retriever.ProbedOf(q.Probing(), len(cands), func(i int) string { return cands[i].n.ref.Node.ID })
	kept := retriever.Best(cands, p.TopK, func(a, b *scored) int {
		return retriever.Compare(a.final, a.n.ref.Node.ID, b.final, b.n.ref.Node.ID)
	})
	// The hits met as arcs' other ends carry no labels or properties: one
	// lookup by id brings them, for the front ends.
	var lean []string
	for _, c := range kept {
		if c.n.ref.Node.Properties == nil {
			lean = append(lean, c.n.ref.Node.ID)
		}
	}
	if len(lean) > 0 {
		got, err := r.Nodes(ctx, lean)
		if err != nil {
			return retriever.Ranking{}, err
		}
		for _, f := range got {
			s.nodes[f.Node.ID].ref.Node = f.Node
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
		Probed:    probed,
		Stats: retriever.Fields{
			{Name: "seeds_found", Value: len(refOf)},
			{Name: "nodes_activated", Value: len(s.nodes)},
			{Name: "candidates", Value: len(cands)},
			{Name: "pulses_run", Value: s.pulses},
			{Name: "relationships_read", Value: s.read},
		},
	}, nil
}

// spread runs the pulses: at pulse p every node that received activation
// at pulse p−1 with Δₚ₋₁ ≥ θ fires, in id order, passing Δₚ₋₁ × w × D over
// each of its RELATES relationships (parallel ones each, in ascending
// order of weight; a self-loop never). It reads them with one Arcs read
// per pulse: other ends and weights only (the few relationships a hit
// shows are read in full at the end). It stops early when nothing fires.
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
		arcs, err := r.Arcs(ctx, frontier, graph.Relates, graph.MissingRelatesWeight)
		if err != nil {
			return err
		}
		s.pulses = p
		s.from[p], s.arcs[p] = frontier, arcs
		s.read += len(arcs)
		var u *state
		at := int32(-1)
		for i, a := range arcs {
			if a.From != at {
				at, u = a.From, s.nodes[frontier[a.From].Node.ID]
			}
			if a.To.Node.ID == u.ref.Node.ID {
				continue
			}
			w := a.Weight
			if math.IsNaN(w) || math.IsInf(w, 0) {
				return fmt.Errorf("relationship (%s)-[:%s]-(%s): weight %v is not a finite number",
					strconv.Quote(u.ref.Node.ID), graph.Relates, strconv.Quote(a.To.Node.ID), w)
			}
			amount := u.delta[p-1] * w * s.p.Decay
			v := s.node(a.To)
			sum := v.delta[p] + amount
			if !finite(sum) { // so is amount, if it is not
				return overflow(p, u.ref.Node.ID, v.ref.Node.ID, u.delta[p-1], w, s.p.Decay, amount, v.delta[p])
			}
			v.delta[p] = sum
			v.received[p] = true
			if b := v.best[p]; b < 0 || amount > s.contribs[b].amount {
				v.best[p] = int32(len(s.contribs))
			}
			s.contribs = append(s.contribs, contrib{pulse: p, idx: i, w: w, amount: amount})
		}
	}
	return nil
}

// overflow is the error of a pulse whose arithmetic left the finite
// numbers (weights near the largest double overflow a pulse or two
// later): at pulse p the relationship from u to v passes amount =
// Δₚ₋₁(u) × w × D, and v's Δₚ would become before + amount. The terms are
// finite; a product or a sum that is not would poison every score and
// comparison after it (docs/RETRIEVERS.md, "Spreading activation", rule
// 3). It names the pulse, the relationship and the arithmetic, as
// Activation Energy's names the hop (docs/ALGORITHM.md, rule 1).
func overflow(p int, u, v string, du, w, decay, amount, before float64) error {
	rel := fmt.Sprintf(Name+": pulse %d, relationship (%s)-[:%s]-(%s)", p, strconv.Quote(u), graph.Relates, strconv.Quote(v))
	if !finite(amount) {
		return fmt.Errorf("%s: the activation it passes, Δ%d(%s) × w × D = %g × %g × %g, is not a finite number",
			rel, p-1, strconv.Quote(u), du, w, decay)
	}
	return fmt.Errorf("%s: Δ%d(%s) = %g + %g (what %s received before, then over this relationship) is not a finite number",
		rel, p, strconv.Quote(v), before, amount, strconv.Quote(v))
}

// finite says whether x is neither infinite nor NaN.
func finite(x float64) bool { return !math.IsNaN(x) && !math.IsInf(x, 0) }

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
		vals := facts[i].Values
		c.n.degree = facts[i].Degree
		if ec, ok := entityCount(vals[0]); ok {
			c.ec, c.ecFrom = ec, "entity_count"
		} else {
			c.ec, c.ecFrom = float64(facts[i].Degree), "degree"
		}
		if maxA > 0 {
			c.normalised = c.activation / maxA
		}
		var emb any
		if len(vals) > 1 {
			emb = vals[1]
		}
		c.sem, c.semFrom = retriever.Similarity(s.p.QueryVector, emb, c.n.seed, c.n.r)
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
func entityCount(v any) (float64, bool) { return retriever.Number(v) }

// sender and receiver are the nodes at the two ends of contribution c.
func (s *run) sender(c contrib) string {
	return s.from[c.pulse][s.arcs[c.pulse][c.idx].From].Node.ID
}

func (s *run) receiver(c contrib) string { return s.arcs[c.pulse][c.idx].To.Node.ID }

// nth is which of its sender's arcs to its receiver with its weight
// contribution c went over, from 0 (parallel arcs alike in both are
// alike to the arithmetic; this tells them apart within a pulse's read,
// and the same way at every pulse).
//
// A sender with few arcs at the pulse is scanned back from c; a hub's
// arcs are counted once, on the first ask, into s.nths (nthIndexed), so
// asking for every one of a hub's arcs costs its degree, not its square
// (docs/PERFORMANCE.md, "Hubs").
func (s *run) nth(c contrib) int {
	arcs := s.arcs[c.pulse]
	a, n := arcs[c.idx], 0
	for j := c.idx - 1; j >= 0 && arcs[j].From == a.From; j-- {
		if c.idx-j > nthScan {
			return s.nthIndexed(c)
		}
		if arcs[j].To.Node.ID == a.To.Node.ID && arcs[j].Weight == a.Weight {
			n++
		}
	}
	return n
}

// nthScan is how far back nth scans a sender's arcs before it counts them
// all once instead (nthIndexed).
const nthScan = 32

// senderArcs names one sender's arcs at one pulse: the pulse and the
// sender's place in that pulse's frontier (graph.Arc.From).
type senderArcs struct {
	pulse int
	from  int32
}

// nthsOf is s.nth for every arc of one sender at one pulse: nth[i] is
// that of the arc at lo + i of the pulse's read.
type nthsOf struct {
	lo  int
	nth []int32
}

// nthIndexed is s.nth through s.nths: the first ask for a sender at a
// pulse numbers all its arcs there in one pass (a sender's arcs come
// together in the read: graph.Reader.Arcs).
func (s *run) nthIndexed(c contrib) int {
	arcs := s.arcs[c.pulse]
	a := arcs[c.idx]
	k := senderArcs{c.pulse, a.From}
	got, ok := s.nths[k]
	if !ok {
		lo, hi := c.idx, c.idx+1
		for lo > 0 && arcs[lo-1].From == a.From {
			lo--
		}
		for hi < len(arcs) && arcs[hi].From == a.From {
			hi++
		}
		type end struct {
			to string
			w  float64
		}
		seen := make(map[end]int32, hi-lo)
		got = nthsOf{lo: lo, nth: make([]int32, hi-lo)}
		for i := lo; i < hi; i++ {
			e := end{arcs[i].To.Node.ID, arcs[i].Weight}
			got.nth[i-lo] = seen[e]
			seen[e]++
		}
		if s.nths == nil {
			s.nths = map[senderArcs]nthsOf{}
		}
		s.nths[k] = got
	}
	return int(got.nth[c.idx-got.lo])
}

// hits builds the kept candidates' hits: the strongest route back to a
// seed, the three strongest contributions, the feeders (feeds), the
// pulses, the blend and the penalty. The relationships of the routes and
// of the feeders are read in full (relsOf).
func (s *run) hits(ctx context.Context, r graph.Reader, kept []*scored) ([]retriever.Hit, error) {
	at := make(map[string]int, len(kept))
	for i, c := range kept {
		at[c.n.ref.Node.ID] = i
	}
	top := make([][]contrib, len(kept))
	fed := feeds{at: map[feedKey]int{}, per: make([][]feed, len(kept))}
	for _, c := range s.contribs {
		i, ok := at[s.receiver(c)]
		if !ok {
			continue
		}
		fed.add(s, i, c)
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
	var shown []contrib
	for i, c := range kept {
		routes[i] = s.route(c.n)
		shown = append(shown, routes[i]...)
		feeders[i] = fed.top(i, maxFeeders)
		for _, f := range feeders[i] {
			shown = append(shown, f.first)
		}
	}
	rels, err := s.relsOf(ctx, r, shown)
	if err != nil {
		return nil, err
	}
	hits := make([]retriever.Hit, len(kept))
	for i, c := range kept {
		hits[i] = s.hit(c, routes[i], top[i], feeders[i], rels)
	}
	return hits, nil
}

// relsOf reads in full the relationships the contributions cs went over:
// one Around, then one Details read. Each relationship is read from the
// end with the smaller RELATES degree (a seed is often a hub, the hit
// rarely), so the Around reads as little as it can. A contribution's
// relationship is, among the RELATES relationships between its sender
// and its receiver with its weight, the nth (s.nth) in graph.SortRels
// order, which is the same order from either end; it is returned from the
// sender to the receiver.
func (s *run) relsOf(ctx context.Context, r graph.Reader, cs []contrib) (map[[2]int]*graph.Rel, error) {
	out := map[[2]int]*graph.Rel{}
	if len(cs) == 0 {
		return out, nil
	}
	// fromReceiver says whether c's relationship is read around its
	// receiver.
	fromReceiver := func(c contrib) bool {
		snd, rcv := s.nodes[s.sender(c)].degree, s.nodes[s.receiver(c)].degree
		return rcv >= 0 && (snd < 0 || rcv < snd)
	}
	var ends []graph.NodeRef
	seen := map[string]bool{}
	for _, c := range cs {
		id := s.sender(c)
		if fromReceiver(c) {
			id = s.receiver(c)
		}
		if !seen[id] {
			seen[id] = true
			ends = append(ends, s.nodes[id].ref)
		}
	}
	around, err := r.Around(ctx, ends)
	if err != nil {
		return nil, err
	}
	alike, err := retriever.GroupParallel(around, weightOf)
	if err != nil {
		return nil, err
	}
	picked := make([]graph.Rel, 0, len(cs))
	var ids [][2]int
	// A set, not a search of ids: cs holds every kept hit's route, and
	// on a hub thousands of them (docs/PERFORMANCE.md, "Hubs").
	done := make(map[[2]int]bool, len(cs))
	for _, c := range cs {
		id := [2]int{c.pulse, c.idx}
		if done[id] {
			continue
		}
		done[id] = true
		snd, rcv := s.sender(c), s.receiver(c)
		from, to := snd, rcv
		if fromReceiver(c) {
			from, to = rcv, snd
		}
		found, err := alike.Nth(from, to, c.w, s.nth(c))
		if err != nil {
			return nil, err
		}
		rel := *found
		rel.Edge.SourceID, rel.Edge.TargetID = snd, rcv
		picked = append(picked, rel)
		ids = append(ids, id)
	}
	ptrs := make([]*graph.Rel, len(picked))
	for i := range picked {
		ptrs[i] = &picked[i]
		out[ids[i]] = &picked[i]
	}
	if err := r.Details(ctx, nil, ptrs); err != nil {
		return nil, err
	}
	return out, nil
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
// pulse: the sender at its other end, its weight, and which of the
// sender's relationships to the hit with that weight it is (s.nth).
type feedKey struct {
	hit  int
	from string
	w    float64
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

// add counts contribution c of run s to kept hit number hit.
func (f *feeds) add(s *run, hit int, c contrib) {
	k := feedKey{hit: hit, from: s.sender(c), w: c.w, nth: s.nth(c)}
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
		from := s.nodes[s.sender(c)]
		best = from.best[c.pulse-1] // −1 at pulse 0: a seed
	}
	slices.Reverse(out)
	return out
}

func (s *run) hit(c *scored, route []contrib, top []contrib, feeders []feed, rels map[[2]int]*graph.Rel) retriever.Hit {
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
			rel := rels[[2]int{x.pulse, x.idx}]
			h.Route = append(h.Route, retriever.Hop{From: rel.Edge.SourceID, To: rel.Edge.TargetID, Type: rel.Edge.Type,
				Weight: x.w, Factor: x.w * s.p.Decay, Edge: rel.Full()})
		}
		h.Seed = h.Route[0].From
	}
	for _, f := range feeders {
		rel := rels[[2]int{f.first.pulse, f.first.idx}]
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
		sources[i] = Source{From: s.sender(x), Pulse: x.pulse, Weight: x.w, Amount: x.amount}
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
