package cli

import (
	"math"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// rerankedOut is a reranked ranking as --format ranking prints it.
type rerankedOut struct {
	Retriever string         `json:"retriever"`
	Params    map[string]any `json:"params"`
	Stats     map[string]any `json:"stats"`
	Hits      []rerankedHit  `json:"hits"`
}

type rerankedHit struct {
	Rank   int      `json:"rank"`
	NodeID string   `json:"node_id"`
	Score  float64  `json:"score"`
	Labels []string `json:"labels"`
	Terms  []struct {
		Name  string  `json:"name"`
		Value float64 `json:"value"`
	} `json:"terms"`
	TermsAdd bool           `json:"terms_add"`
	Detail   map[string]any `json:"detail"`
}

func decodeReranked(t *testing.T, out string) rerankedOut {
	t.Helper()
	return decodeJSON[rerankedOut](t, out)
}

// explored runs explore with args, which must succeed, and decodes the
// ranking it prints.
func explored(t *testing.T, args ...string) rerankedOut {
	t.Helper()
	code, out, errs := run(t, append([]string{"explore"}, args...)...)
	if code != 0 {
		t.Fatalf("explore %v: exit %d: %s", args, code, errs)
	}
	return decodeReranked(t, out)
}

// rerankNow is the fixed --now of the CLI tests.
const rerankNow = "2026-03-10T00:00:00Z"

// TestExploreRerankSignals: the typed expansion from N2006 (R 0.85) on the
// demo graph, reranked with --now 2026-03-10T00:00:00Z and the default
// weights. The demo nodes have created_at but no updated_at,
// last_accessed, salience or embedding, so recency comes from created_at,
// salience is missing (0, flagged), and sem is R for the seed and missing
// for the others:
//
//	N2006 created 2026-03-02T09:14Z: 7 d 14 h 46 min = 7.6152778 days,
//	  0.3 × 0.85 + 0.3 × e^(−0.02 × 7.6152778) = 0.255 + 0.2576178 = 0.5126178
//	N2003 created 2026-03-02T09:52Z: 7.5888889 days: 0.3 × e^(−0.1517778) = 0.2577538
//	N2004 created 2026-03-02T09:18Z: 7.6125 days: 0.3 × e^(−0.15225) = 0.2576131
//
// The expansion's own order is N2006, N2003 (0.33456), N2004 (0.23664), …;
// each reranked hit keeps its own score and rank in its detail.
func TestExploreRerankSignals(t *testing.T) {
	own := explored(t, "--retriever", "expansion", "--seed", "N2006=0.85", "--top-k", "5")
	r := explored(t, "--retriever", "expansion", "--seed", "N2006=0.85", "--top-k", "5", "--rerank", "signals", "--now", rerankNow)
	if r.Retriever != "expansion" || r.Params["rerank"] != "signals" || r.Params["rerank_now"] != rerankNow || r.Params["rerank_w_sal"] != 0.4 {
		t.Errorf("retriever %s params %v", r.Retriever, r.Params)
	}
	if r.Stats["rerank_hits_in"] != 5.0 || r.Stats["rerank_missing_salience"] != 5.0 || r.Stats["rerank_missing_sem"] != 4.0 {
		t.Errorf("stats %v", r.Stats)
	}
	want := map[string]float64{
		"N2006": 0.3*0.85 + 0.3*math.Exp(-0.02*(7+(14*60+46)/1440.0)),
		"N2003": 0.3 * math.Exp(-0.02*(7+(14*60+8)/1440.0)),
		"N2004": 0.3 * math.Exp(-0.02*(7+(14*60+42)/1440.0)),
	}
	if len(r.Hits) != 5 || r.Hits[0].NodeID != "N2006" || r.Hits[1].NodeID != "N2003" || r.Hits[2].NodeID != "N2004" {
		t.Fatalf("hits %+v", r.Hits)
	}
	for i, h := range r.Hits {
		if w, ok := want[h.NodeID]; ok && math.Abs(h.Score-w) > 1e-12 {
			t.Errorf("%s: %v, want %v", h.NodeID, h.Score, w)
		}
		if h.Rank != i+1 || !h.TermsAdd || len(h.Terms) != 3 || h.Terms[0].Value+h.Terms[1].Value+h.Terms[2].Value != h.Score {
			t.Errorf("%s: rank %d terms %+v", h.NodeID, h.Rank, h.Terms)
		}
		j := slices.IndexFunc(own.Hits, func(o rerankedHit) bool { return o.NodeID == h.NodeID })
		if j < 0 || h.Detail["own_score"] != own.Hits[j].Score || h.Detail["own_rank"] != float64(own.Hits[j].Rank) {
			t.Errorf("%s: own score %v rank %v, not the expansion's", h.NodeID, h.Detail["own_score"], h.Detail["own_rank"])
		}
		if h.Detail["recency_from"] != "created_at" || h.Detail["salience_from"] != "missing" {
			t.Errorf("%s: detail %v", h.NodeID, h.Detail)
		}
		semFrom := "none"
		if h.NodeID == "N2006" {
			semFrom = "seed score"
		}
		if h.Detail["sem_from"] != semFrom {
			t.Errorf("%s: sem from %v, want %s", h.NodeID, h.Detail["sem_from"], semFrom)
		}
	}
}

// TestCompareRerankEveryRetriever: compare --rerank signals of all five
// retrievers (fusion's ranking reranked after fusing) embeds, for each,
// exactly what explore --rerank signals prints with the same flags (the
// statistics aside for the retrievers fusion fuses, which compare runs
// once, deeper); and
// every hit of every ranking has its recency from created_at (every demo
// node has one), so every retriever's hits carry their node's properties.
func TestCompareRerankEveryRetriever(t *testing.T) {
	rerank := []string{"--rerank", "signals", "--now", rerankNow, "--signal-weights", "0.5,0.3,0.2", "--recency-lambda", "0.05"}
	seeds := []string{"--seed", "N2006=0.85", "--seed", "T3000=0.9", "--tags", "stockout"}
	names := []string{"activation", "expansion", "spreading", "ppr", "fusion"}
	args := append(append([]string{"compare", "--retrievers", strings.Join(names, ","), "--format", "json", "--top-k", "6"}, seeds...), rerank...)
	got := runCompareJSON(t, args)
	for i, name := range names {
		eargs := append(append([]string{"explore", "--retriever", name, "--format", "ranking"}, seeds...), rerank...)
		if name != "activation" {
			eargs = append(eargs, "--top-k", "6")
		}
		// With fusion listed, a retriever it fuses runs once, to the fuse
		// depth, and is cut to K (docs/CLI.md): the same hits, that run's
		// statistics.
		deep := name != "activation" && name != "fusion"
		r := decodeReranked(t, sameAsExplore(t, name, got.Rankings[i], eargs, deep))
		if r.Retriever != name || r.Params["rerank_w_sem"] != 0.5 || len(r.Hits) == 0 {
			t.Errorf("%s: %s %v, %d hits", name, r.Retriever, r.Params, len(r.Hits))
		}
		for _, h := range r.Hits {
			if h.Detail["recency_from"] != "created_at" {
				t.Errorf("%s: %s has recency from %v: its hit lacks the node's properties", name, h.NodeID, h.Detail["recency_from"])
			}
		}
	}
}

// TestRerankCaps: --per-label-top applies after ranking. Personalized
// PageRank from N2006 (top 6), reranked, holds several AgentAction hits;
// with AgentAction=1 only the first of them in the reranked order stays,
// the others are dropped, and the rest keep their order, ranked 1, 2, … .
func TestRerankCaps(t *testing.T) {
	base := []string{"--retriever", "ppr", "--seed", "N2006=0.85", "--top-k", "6", "--rerank", "signals", "--now", rerankNow}
	all := explored(t, base...)
	var actions []string
	for _, h := range all.Hits {
		if slices.Contains(h.Labels, "AgentAction") {
			actions = append(actions, h.NodeID)
		}
	}
	if len(actions) < 2 {
		t.Fatalf("want two AgentAction hits to cap, got %v", actions)
	}
	capped := explored(t, append(base, "--per-label-top", "AgentAction=1")...)
	var ids []string
	for i, h := range capped.Hits {
		ids = append(ids, h.NodeID)
		if h.Rank != i+1 {
			t.Errorf("%s: rank %d, want %d", h.NodeID, h.Rank, i+1)
		}
	}
	var want []string
	for _, h := range all.Hits {
		if !slices.Contains(actions[1:], h.NodeID) {
			want = append(want, h.NodeID)
		}
	}
	if !slices.Equal(ids, want) || capped.Stats["rerank_capped"] != float64(len(actions)-1) {
		t.Errorf("capped %v (stats %v), want %v", ids, capped.Stats, want)
	}
}

// TestRerankActivation: with Activation Energy the rerank reranks its
// ranking: --format ranking is the default, the other formats refused.
func TestRerankActivation(t *testing.T) {
	r := explored(t, "--seed", "N2006=0.85", "--rerank", "signals", "--now", rerankNow)
	if r.Retriever != "activation" || r.Params["rerank"] != "signals" || len(r.Hits) == 0 || r.Hits[0].Detail["own_rank"] == nil {
		t.Errorf("%+v", r)
	}
	code, _, errs := run(t, "explore", "--seed", "N2006=0.85", "--rerank", "signals", "--format", "tree")
	if code != ExitUsage || !strings.Contains(errs, "--format ranking only") {
		t.Errorf("tree: exit %d: %s", code, errs)
	}
}

// TestRerankQueryVector: --query-vector, spreading's, is taken with
// --rerank signals whatever the retriever (and refused without either).
func TestRerankQueryVector(t *testing.T) {
	q := filepath.Join(t.TempDir(), "q.json")
	if err := os.WriteFile(q, []byte("[1, 0]"), 0o600); err != nil {
		t.Fatal(err)
	}
	if r := explored(t, "--retriever", "ppr", "--seed", "N2006=0.85", "--rerank", "signals", "--now", rerankNow, "--query-vector", q); r.Params["rerank_query_vector_dims"] != 2.0 {
		t.Errorf("params %v", r.Params)
	}
	code, _, errs := run(t, "compare", "--retrievers", "expansion,ppr", "--seed", "N2006=0.85", "--rerank", "signals", "--query-vector", q)
	if code != 0 {
		t.Errorf("compare: exit %d: %s", code, errs)
	}
	code, _, errs = run(t, "compare", "--retrievers", "expansion,ppr", "--seed", "N2006=0.85", "--query-vector", q)
	if code != ExitUsage || !strings.Contains(errs, "--query-vector") {
		t.Errorf("compare without --rerank: exit %d: %s", code, errs)
	}
}

// TestRerankRefusals: each mistake is a usage error naming its flag.
func TestRerankRefusals(t *testing.T) {
	base := []string{"explore", "--retriever", "expansion", "--seed", "N2006=0.85"}
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"--rerank", "bogus"}, `unknown --rerank "bogus"`},
		{[]string{"--signal-weights", "0.3,0.3,0.4"}, "--signal-weights applies to --rerank signals"},
		{[]string{"--recency-lambda", "0.1"}, "--recency-lambda applies to --rerank signals"},
		{[]string{"--now", rerankNow}, "--now applies to --rerank signals"},
		{[]string{"--per-label-top", "Event=1"}, "--per-label-top applies to --rerank signals"},
		{[]string{"--rerank", "signals", "--signal-weights", "0.5,0.5"}, "signal-weights: want three numbers"},
		{[]string{"--rerank", "signals", "--signal-weights", "0.5,x,0.5"}, "signal-weights: \"x\" is not a number"},
		{[]string{"--rerank", "signals", "--signal-weights", "0.3,0.3,0.3"}, "signal-weights: the weights must sum to 1"},
		{[]string{"--rerank", "signals", "--signal-weights", "1.5,-0.5,0"}, "signal-weights: weight w_sem must be in [0, 1]"},
		{[]string{"--rerank", "signals", "--recency-lambda", "-0.02"}, "--recency-lambda: the recency lambda must be"},
		{[]string{"--rerank", "signals", "--now", "2026-03-10"}, `--now "2026-03-10" is not an RFC 3339 time`},
		{[]string{"--rerank", "signals", "--per-label-top", "Event"}, `per-label-top: "Event" is not Label=N`},
		{[]string{"--rerank", "signals", "--per-label-top", "Event=0"}, "per-label-top: the cap of label \"Event\" must be at least 1"},
		{[]string{"--rerank", "signals", "--per-label-top", "Event=1,Event=2"}, "per-label-top: label \"Event\" is capped twice"},
	} {
		code, _, errs := run(t, append(slices.Clone(base), c.args...)...)
		if code != ExitUsage || !strings.Contains(errs, c.want) {
			t.Errorf("%v: exit %d, %q; want 2 and %q", c.args, code, errs, c.want)
		}
	}
	code, _, errs := run(t, "compare", "--retrievers", "expansion,ppr", "--seed", "N2006=0.85", "--now", rerankNow)
	if code != ExitUsage || !strings.Contains(errs, "compare: --now applies to --rerank signals") {
		t.Errorf("compare --now: exit %d, %q", code, errs)
	}
}
