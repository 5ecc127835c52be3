package cli

import (
	"context"
	"errors"
	"fmt"

	"github.com/memoria-graph/memoria/graph"
	"github.com/memoria-graph/memoria/render"
	"github.com/memoria-graph/memoria/retriever"
	"github.com/memoria-graph/memoria/retriever/activation/why"
	"github.com/memoria-graph/memoria/retriever/rankwhy"
)

// whyConfig is what internal/rankwhy reads to answer `why --retriever`:
// g's neighbourhood, its runs by name and K, the flags' parameters, and
// Activation Energy's why-not on the backend its flags choose (built only
// when asked).
func whyConfig(g *rankings, rq retriever.Query) rankwhy.Config {
	rf := g.rf
	var unfiltered graph.Neighbourhood
	if f := g.q.filter.f; f.Active() {
		unfiltered, _ = neighbourhoodFor(g.source, graph.RelFilter{}) // g.nb's engine: no error
	}
	return rankwhy.Config{
		Unfiltered:    unfiltered,
		Filter:        g.q.filter.f.String(),
		Neighbourhood: g.nb,
		Query:         rq,
		Run: func(ctx context.Context, name string, depth int) (retriever.Ranking, error) {
			return g.of(ctx, name, rq, depth)
		},
		TopK:     rf.topK,
		Settings: rf.settings,
		Activation: func(ctx context.Context, nodeID string) (why.Answer, error) {
			backend, _, err := g.q.backend(ctx, g.source, false)
			if err != nil {
				return why.Answer{}, err
			}
			ans, err := why.Explain(ctx, why.Config{Backend: backend, Params: g.q.cfg, Options: g.q.opts, Seeds: rq.Seeds,
				Tags: rq.Tags, NodeID: nodeID})
			if err != nil {
				return why.Answer{}, fmt.Errorf("why: %w", err)
			}
			return ans, nil
		},
	}
}

// runWhyRanking answers `why --retriever NAME` for a ranking retriever.
func runWhyRanking(ctx context.Context, env Env, q *queryFlags, rf *retrieverFlags, node, format string) error {
	g, closeSource, err := openRankings(ctx, env, q, rf)
	if err != nil {
		return err
	}
	defer closeSource()
	rq := retriever.Query{Seeds: q.seeds, Tags: splitTags(q.tags)}
	w, err := rankwhy.New(ctx, whyConfig(g, rq), node)
	if err != nil {
		var none *rankwhy.NoNodeError
		if errors.As(err, &none) {
			return usagef("why: --node %s: no node has this id", render.DisplayID(node))
		}
		return fmt.Errorf("why: %w", err)
	}
	a, err := w.Explain(ctx, rf.name, 0)
	if err != nil {
		return err
	}
	if err := noteSeedsNotFound(env, "why", w.SeedsNotFound(), format == "text"); err != nil {
		return err
	}
	if format == "json" {
		b, err := render.RankingWhyJSONLine(a)
		if err == nil {
			_, err = env.Stdout.Write(b)
		}
		return err
	}
	_, err = fmt.Fprint(env.Stdout, q.gather.whyText(node)+render.RankingWhyText(a))
	return err
}
