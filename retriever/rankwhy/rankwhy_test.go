package rankwhy_test

import (
	"context"
	"errors"
	"os"
	"testing"

	"github.com/memoria-graph/memoria/graph"
	"github.com/memoria-graph/memoria/graph/inmem"
	"github.com/memoria-graph/memoria/retriever"
	"github.com/memoria-graph/memoria/retriever/rankwhy"
	"github.com/memoria-graph/memoria/retriever/registry"
	"github.com/memoria-graph/memoria/testkit/toyretriever"
)

// explainer asks about node on the demo graph from seed N2006 (R 1), every
// ranking retriever at its defaults with K = 3, each run through the
// registry as the CLI runs it.
func explainer(t *testing.T, node string) *rankwhy.Explainer {
	t.Helper()
	f, err := os.Open("../../testdata/demo.jsonl")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	g, err := inmem.Load(f, "demo")
	if err != nil {
		t.Fatal(err)
	}
	nb := g.Filtered(graph.RelFilter{})
	q := retriever.Query{Seeds: []retriever.Seed{{NodeID: "N2006", Score: 1}}}
	settings := func(name string) retriever.Settings {
		spec, _ := registry.Lookup(name)
		return spec.Defaults().WithTopK(3)
	}
	var run func(ctx context.Context, name string, depth int) (retriever.Ranking, error)
	run = func(ctx context.Context, name string, depth int) (retriever.Ranking, error) {
		p := settings(name)
		if depth > 0 {
			p = p.WithTopK(depth)
		}
		return p.Run(ctx, retriever.Env{Neighbourhood: nb, Rank: run}, q)
	}
	w, err := rankwhy.New(context.Background(), rankwhy.Config{Neighbourhood: nb, Query: q, Run: run, TopK: 3, Settings: settings}, node)
	if err != nil {
		t.Fatal(err)
	}
	return w
}

// TestExplainUsesEachRetrieversHooks: the answers come from what each
// retriever declares, not from its name. On the demo graph N2001 is two
// RELATES hops from N2006 (N2006–N2003 weight 0.82, then N2003–N2001
// weight 0.9: docs/DEMO_GRAPH.md), and T3001 is in another component.
//   - The expansion (H = 1) does not reach N2001: no_route, 2 hops over any
//     type and over the followed ones, H = 1, its facts typed.
//   - ppr ranks N2001 6th (docs/RETRIEVERS.md's demo ranking): cut at K 3,
//     with the residual mass its ranking reports.
//   - Spreading activation (P = 2) finds no RELATES route to T3001 within
//     P + 2 = 4 hops: no_route, searched 4.
//   - The toy "degree" retriever, registered here, ranks N2006 and its
//     four RELATES neighbours only (N2003, N2004, N2005, N2007), and
//     declares no bound and no why-not: its whole ranking is read at
//     retriever.WholeRankingK, all 5, and N2001 is unreached with the generic
//     not_ranked.
func TestExplainUsesEachRetrieversHooks(t *testing.T) {
	defer registry.Register(&toyretriever.DegreeSpec)()
	ctx := context.Background()
	w := explainer(t, "N2001")

	a, err := w.Explain(ctx, "expansion", 0)
	if err != nil || a.Verdict != rankwhy.Unreached || a.Reason != retriever.ReasonNoRoute || a.Hops != 2 || a.FollowedHops != 2 ||
		a.Limit != 1 || !a.Typed || a.Residual {
		t.Errorf("expansion: %+v, %v", a, err)
	}
	a, err = w.Explain(ctx, "ppr", 0)
	if err != nil || a.Verdict != rankwhy.Cut || a.Hit == nil || a.Hit.Rank != 6 || !a.Residual || a.ResidualMass <= 0 || a.Typed {
		t.Errorf("ppr: %+v, %v", a, err)
	}
	a, err = w.Explain(ctx, "degree", 0)
	if err != nil || a.Verdict != rankwhy.Unreached || a.Reason != retriever.ReasonNotRanked || a.Ranked != 5 {
		t.Errorf("degree: %+v, %v", a, err)
	}

	a, err = explainer(t, "T3001").Explain(ctx, "spreading", 0)
	if err != nil || a.Verdict != rankwhy.Unreached || a.Reason != retriever.ReasonNoRoute || a.Hops != -1 || a.Searched != 4 || a.Limit != 2 {
		t.Errorf("spreading: %+v, %v", a, err)
	}
}

// TestAbout: an Explainer turned to another node answers for that node
// (ppr ranks N2001 6th at K = 3, as above, and N2006, the seed, 1st: kept)
// and an unknown node is a *NoNodeError; the first node's answer is
// unchanged.
func TestAbout(t *testing.T) {
	ctx := context.Background()
	w := explainer(t, "N2001")
	seed, err := w.About(ctx, "N2006")
	if err != nil {
		t.Fatal(err)
	}
	if a, err := seed.Explain(ctx, "ppr", 0); err != nil || a.Verdict != rankwhy.Kept || a.NodeID != "N2006" || a.Hit.Rank != 1 {
		t.Errorf("N2006: %+v, %v", a, err)
	}
	if a, err := w.Explain(ctx, "ppr", 0); err != nil || a.Verdict != rankwhy.Cut || a.NodeID != "N2001" || a.Hit.Rank != 6 {
		t.Errorf("N2001: %+v, %v", a, err)
	}
	var none *rankwhy.NoNodeError
	if _, err := w.About(ctx, "nope"); !errors.As(err, &none) {
		t.Errorf("unknown node: %v", err)
	}
}
