package sweep

import (
	"context"
	"hash/maphash"
	"math"
	"sync"

	"github.com/memoria-graph/memoria/graph"
	"github.com/memoria-graph/memoria/retriever/activation"
)

// memo is one seed's cache of the levels its recent runs read, so that a
// run at a higher MIN_ACTIVATION re-reads nothing a run at a lower one
// already read with the same frontier.
//
// A level's rows depend on its frontier (ids and activations), the visited
// set, the query tags and TAG_SIM_FLOOR, and the threshold only filters
// them: the rows at m are exactly the rows at m0 ≤ m whose T is above m
// (docs/ALGORITHM.md rule 3), in the same order (the order does not depend
// on the threshold). When a sweep walks a seed's steps upward, the run at
// the next step differs from the last one only from the level where the
// dropped candidate was, usually the last (T shrinks with depth), so every
// level before it is served from here. The seed lookup is cached too.
type memo struct {
	mu     sync.Mutex
	seeds  map[string]memoSeed
	levels map[[16]byte]memoLevel
	order  [][16]byte // keys, oldest first, for eviction
}

type memoSeed struct {
	node graph.Node
	ok   bool
}

type memoLevel struct {
	min   float64 // the threshold the rows were read with
	cands []activation.Candidate
}

// memoLevels is how many levels a memo keeps: a few runs' worth.
const memoLevels = 24

func newMemo() *memo {
	return &memo{seeds: map[string]memoSeed{}, levels: map[[16]byte]memoLevel{}}
}

// levelKey fingerprints what a level's rows depend on, the threshold
// excepted. The visited set is hashed without sorting it: the sum of each
// id's hash, which does not depend on the map's order.
func levelKey(req activation.ExpandRequest) [16]byte {
	h := newHash128()
	str, num := h.str, h.num
	num(uint64(len(req.Frontier)))
	for _, f := range req.Frontier {
		str(f.NodeID)
		num(math.Float64bits(f.Activation))
	}
	var sumA, sumB uint64
	for id := range req.Visited {
		x := maphash.String(hashSeedA, id)
		sumA += x
		sumB += x*0x9e3779b97f4a7c15 + uint64(len(id))
	}
	num(uint64(len(req.Visited)))
	num(sumA)
	num(sumB)
	num(uint64(len(req.QueryTags)))
	for _, t := range req.QueryTags {
		str(t)
	}
	num(math.Float64bits(req.TagSimFloor))
	return h.sum()
}

// memoBackend opens expanders that read through m. They are plain
// Expanders, not Tracers: a sweep needs no traces (engine.go).
type memoBackend struct {
	b activation.Backend
	m *memo
}

func (mb memoBackend) Open(ctx context.Context) (activation.Expander, func(context.Context) error, error) {
	x, release, err := mb.b.Open(ctx)
	if err != nil {
		return nil, nil, err
	}
	return memoExpander{x: x, m: mb.m}, release, nil
}

type memoExpander struct {
	x activation.Expander
	m *memo
}

func (e memoExpander) FetchSeed(ctx context.Context, id string) (graph.Node, bool, error) {
	e.m.mu.Lock()
	s, hit := e.m.seeds[id]
	e.m.mu.Unlock()
	if hit {
		return s.node, s.ok, nil
	}
	n, ok, err := e.x.FetchSeed(ctx, id)
	if err == nil {
		e.m.mu.Lock()
		e.m.seeds[id] = memoSeed{n, ok}
		e.m.mu.Unlock()
	}
	return n, ok, err
}

func (e memoExpander) ExpandFrontier(ctx context.Context, req activation.ExpandRequest) ([]activation.Candidate, error) {
	k := levelKey(req)
	e.m.mu.Lock()
	l, hit := e.m.levels[k]
	e.m.mu.Unlock()
	if hit && req.MinActivation >= l.min {
		// The rows as kept when the threshold drops none of them (most
		// levels, walking a seed's steps upward): the caller only reads
		// them.
		i := 0
		for i < len(l.cands) && l.cands[i].TransferEnergy > req.MinActivation {
			i++
		}
		if i == len(l.cands) {
			return l.cands, nil
		}
		out := make([]activation.Candidate, i, len(l.cands))
		copy(out, l.cands[:i])
		for k := i + 1; k < len(l.cands); k++ {
			if l.cands[k].TransferEnergy > req.MinActivation {
				out = append(out, l.cands[k])
			}
		}
		return out, nil
	}
	cands, err := e.x.ExpandFrontier(ctx, req)
	if err != nil {
		return nil, err
	}
	e.m.mu.Lock()
	defer e.m.mu.Unlock()
	if _, ok := e.m.levels[k]; !ok {
		e.m.order = append(e.m.order, k)
		if len(e.m.order) > memoLevels {
			delete(e.m.levels, e.m.order[0])
			e.m.order = e.m.order[1:]
		}
	}
	e.m.levels[k] = memoLevel{min: req.MinActivation, cands: cands}
	return cands, nil
}
