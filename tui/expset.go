package tui

import (
	"context"
	"fmt"
	"maps"
	"slices"
	"strconv"

	"github.com/memoria-graph/memoria/graph"
	"github.com/memoria-graph/memoria/internal/textsafe"
	"github.com/memoria-graph/memoria/render"
	"github.com/memoria-graph/memoria/retriever"
	"github.com/memoria-graph/memoria/retriever/expansion"
)

// Rows of the expansion's panel: H, f, δ, K, then one per type weight (by
// type).
const (
	expHops = iota
	expFactor
	expDecay
	expTopK
	expTypes // the first type weight's row
)

// Steps and bounds of the expansion's stepped parameters (Validate has the
// ranges; K has no upper bound, the panel stops stepping at topKLimit).
const (
	expUnitStep = 0.05 // f and δ
	expTypeStep = 0.1  // a type weight
	topKLimit   = 1000
)

// expSet is the typed expansion's parameters (docs/RETRIEVERS.md, "Typed
// expansion") as a paramSet: H, f, δ, K and each type's weight.
type expSet struct {
	p     expansion.Params
	types []string // the table's types, sorted: rows expTypes…
}

var _ paramSet = expSet{}

func newExpSet(p expansion.Params) expSet {
	p = p.Clone()
	return expSet{p: p, types: slices.Sorted(maps.Keys(p.TypeWeights))}
}

func (e expSet) Rows() int { return expTypes + len(e.types) }

func (e expSet) Name(i int) string {
	switch i {
	case expHops:
		return "MAX_HOPS H"
	case expFactor:
		return "FACTOR f"
	case expDecay:
		return "DECAY δ"
	case expTopK:
		return "TOP_K K"
	}
	return textsafe.Escape(e.types[i-expTypes])
}

func (e expSet) Range(i int) string {
	switch i {
	case expHops:
		return fmt.Sprintf("%d–%d", expansion.MinHops, expansion.MaxHops)
	case expFactor, expDecay:
		return "(0,1]"
	case expTopK:
		return "≥1"
	}
	return "[−1,1]"
}

func (e expSet) Value(i int) string {
	switch i {
	case expHops:
		return strconv.Itoa(e.p.MaxHops)
	case expFactor:
		return render.Num(e.p.ExpansionFactor)
	case expDecay:
		return render.Num(e.p.DepthDecay)
	case expTopK:
		return strconv.Itoa(e.p.TopK)
	}
	return render.Num(e.p.TypeWeights[e.types[i-expTypes]])
}

func (e expSet) Step(i, dir int) paramSet {
	p := e.p.Clone()
	switch i {
	case expHops:
		p.MaxHops = clampInt(p.MaxHops+dir, expansion.MinHops, expansion.MaxHops)
	case expFactor:
		p.ExpansionFactor = stepLinear(p.ExpansionFactor, expUnitStep, dir, expUnitStep, 1)
	case expDecay:
		p.DepthDecay = stepLinear(p.DepthDecay, expUnitStep, dir, expUnitStep, 1)
	case expTopK:
		p.TopK = clampInt(p.TopK+dir, 1, max(topKLimit, p.TopK))
	default:
		t := e.types[i-expTypes]
		p.TypeWeights[t] = stepLinear(p.TypeWeights[t], expTypeStep, dir, -1, 1)
	}
	return expSet{p: p, types: e.types}
}

// Parse sets row i, checked by expansion.Params.Validate.
func (e expSet) Parse(i int, raw string) (paramSet, error) {
	p := e.p.Clone()
	if i == expHops || i == expTopK {
		n, err := strconv.Atoi(raw)
		if err != nil {
			return e, fmt.Errorf("%q is not a whole number", raw)
		}
		if i == expHops {
			p.MaxHops = n
		} else {
			p.TopK = n
		}
	} else {
		v, err := strconv.ParseFloat(raw, 64)
		if err != nil {
			return e, fmt.Errorf("%q is not a number", raw)
		}
		switch i {
		case expFactor:
			p.ExpansionFactor = v
		case expDecay:
			p.DepthDecay = v
		default:
			p.TypeWeights[e.types[i-expTypes]] = v
		}
	}
	if err := p.Validate(); err != nil {
		return e, err
	}
	return expSet{p: p, types: e.types}, nil
}

func (e expSet) Equal(o paramSet) bool {
	x, ok := o.(expSet)
	return ok && x.p.MaxHops == e.p.MaxHops && x.p.ExpansionFactor == e.p.ExpansionFactor && x.p.DepthDecay == e.p.DepthDecay &&
		x.p.TopK == e.p.TopK && maps.Equal(x.p.TypeWeights, e.p.TypeWeights)
}

// Raw is a copy of the parameters (its type weights a map of its own).
func (e expSet) Raw() any { return e.p.Clone() }

func (e expSet) Run(ctx context.Context, nb graph.Neighbourhood, q retriever.Query) (retriever.Ranking, error) {
	return expansion.Retrieve(ctx, nb, q, e.p.Clone())
}

// Context reads a hit's 1-hop context with the expansion's weights (the
// detail pane's "expand with context").
func (e expSet) Context(ctx context.Context, nb graph.Neighbourhood, id string) ([]expansion.ContextHop, bool, error) {
	return expansion.Context(ctx, nb, id, e.p.Clone())
}
