package cli

import (
	"context"
	"slices"

	"github.com/memoria-graph/memoria/graph"
	"github.com/memoria-graph/memoria/retriever"
	"github.com/memoria-graph/memoria/retriever/activation"
	"github.com/memoria-graph/memoria/retriever/registry"
)

// rankings runs retrievers by name over one source, each with the
// parameters its flags set, and returns their rankings as every retriever
// shares them (Activation Energy's projected by activation.Ranking): what
// fusion and compare gather. depth, when above 0, is the K each ranking
// retriever runs with instead of --top-k, and cuts Activation Energy's
// ranking too.
type rankings struct {
	env    Env
	q      *queryFlags
	rf     *retrieverFlags
	source graph.Source
	nb     graph.Neighbourhood
	act    *activation.Retriever // built on first use
	// explored, when set, is called with Activation Energy's results each
	// time it runs (eval measures its own llm context).
	explored func([]activation.Result)
}

// openRankings opens q's source and returns the rankings over it, and a
// function that closes the source (the caller defers it): what compare,
// eval, the metric sweep and why --retriever start with.
func openRankings(ctx context.Context, env Env, q *queryFlags, rf *retrieverFlags) (*rankings, func(), error) {
	q.gather.useVector(rf)
	source, err := q.open(ctx, env)
	if err != nil {
		return nil, nil, err
	}
	closeSource := func() { source.Close(context.WithoutCancel(ctx)) }
	g, err := newRankings(env, q, rf, source)
	if err != nil {
		closeSource()
		return nil, nil, err
	}
	return g, closeSource, nil
}

func newRankings(env Env, q *queryFlags, rf *retrieverFlags, source graph.Source) (*rankings, error) {
	nb, err := neighbourhoodFor(source, q.filter.f)
	if err != nil {
		return nil, err
	}
	return &rankings{env: env, q: q, rf: rf, source: source, nb: nb}, nil
}

// prepare builds Activation Energy's retriever when names holds it (once).
func (g *rankings) prepare(ctx context.Context, names []string) error {
	if g.act != nil || !slices.Contains(names, registry.Activation) {
		return nil
	}
	backend, err := g.q.cliBackend(ctx, g.env, g.source, false)
	if err != nil {
		return err
	}
	if g.act, err = activation.New(backend, g.q.cfg, g.q.opts); err != nil {
		return usageError{err.Error()}
	}
	return nil
}

// of returns retriever name's ranking for rq.
func (g *rankings) of(ctx context.Context, name string, rq retriever.Query, depth int) (r retriever.Ranking, err error) {
	defer func() { r.Filter = g.q.filter.f.String() }()
	if name != registry.Activation {
		p := g.rf.settings(name)
		if depth > 0 {
			p = p.WithTopK(depth)
		}
		env := retriever.Env{Neighbourhood: g.nb, Rank: func(ctx context.Context, name string, depth int) (retriever.Ranking, error) {
			return g.of(ctx, name, rq, depth)
		}}
		return p.Run(ctx, env, rq)
	}
	if err := g.prepare(ctx, []string{registry.Activation}); err != nil {
		return retriever.Ranking{}, err
	}
	results, err := g.act.ExploreAll(ctx, rq.Seeds, rq.Tags)
	if err != nil {
		return retriever.Ranking{}, err
	}
	if g.explored != nil {
		g.explored(results)
	}
	r = activation.Ranking(results, g.q.cfg, rq.Tags)
	if depth > 0 && len(r.Hits) > depth {
		r.Hits = r.Hits[:depth]
	}
	return r, nil
}

// compared returns the rankings of names for compare, each retriever's top
// k. When a combining retriever (fusion) is among them, each retriever it
// combines runs once, to its depth (or k, if deeper): it combines those
// rankings, and a listed retriever's ranking in the comparison is the same
// one cut to its top k (the same hits as a run with K = k; its statistics
// are the deeper run's), so that combining costs no second run of
// anything.
func (g *rankings) compared(ctx context.Context, names []string, rq retriever.Query, k int) ([]retriever.Ranking, error) {
	out, _, err := g.comparedDeep(ctx, names, rq, k)
	return out, err
}

// comparedDeep is compared, and the rankings of the retrievers a
// combining retriever combines, by name, at the depth they ran to (what it
// combined).
func (g *rankings) comparedDeep(ctx context.Context, names []string, rq retriever.Query, k int) ([]retriever.Ranking, map[string]retriever.Ranking, error) {
	deep := map[string]retriever.Ranking{}
	for _, name := range names {
		if _, ok := registry.Lookup(name); !ok {
			continue
		}
		p := g.rf.settings(name)
		combined, depth, ok := p.Spec().Combines(p)
		if !ok {
			continue
		}
		for _, c := range combined {
			if _, done := deep[c]; done {
				continue
			}
			d := max(depth, k)
			if c == registry.Activation {
				d = 0 // its ranking does not depend on a K
			}
			r, err := g.of(ctx, c, rq, d)
			if err != nil {
				return nil, nil, err
			}
			deep[c] = r
		}
	}
	out := make([]retriever.Ranking, len(names))
	for i, name := range names {
		var err error
		p, combining := retriever.Settings{}, false
		if _, ok := registry.Lookup(name); ok {
			p = g.rf.settings(name)
			_, _, combining = p.Spec().Combines(p)
		}
		switch r, ok := deep[name]; {
		case combining:
			combined, _, _ := p.Spec().Combines(p)
			lists := make([]retriever.Ranking, len(combined))
			for j, c := range combined {
				lists[j] = deep[c]
			}
			out[i], err = p.Spec().Combine(lists, p, k)
		case ok && name != registry.Activation:
			out[i] = cutRanking(r, k)
		case ok:
			out[i] = r
		default:
			out[i], err = g.of(ctx, name, rq, 0)
		}
		if err != nil {
			return nil, nil, err
		}
	}
	return out, deep, nil
}

// cutRanking is a ranking retriever's ranking cut to its top k, its top_k
// parameter set to k.
func cutRanking(r retriever.Ranking, k int) retriever.Ranking {
	r.Hits = r.Hits[:min(k, len(r.Hits))]
	params := slices.Clone(r.Params)
	for i := range params {
		if params[i].Name == "top_k" {
			params[i].Value = k
		}
	}
	r.Params = params
	return r
}
