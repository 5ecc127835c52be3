package cli

import (
	"encoding/json"
	"math"
	"slices"
	"strconv"
	"strings"
	"testing"
)

// tuneOut is what `tune --format json` prints.
type tuneOut struct {
	Metric string `json:"metric"`
	Search string `json:"search"`
	Grid   []struct {
		Key              string             `json:"key"`
		Setting          map[string]float64 `json:"setting"`
		Mean             float64            `json:"mean"`
		MeanContextChars float64            `json:"mean_context_chars"`
		Default          bool               `json:"default"`
	} `json:"grid"`
	Folds []struct {
		Queries []string           `json:"queries"`
		Chosen  map[string]float64 `json:"chosen"`
		Train   float64            `json:"train"`
		HeldOut float64            `json:"held_out"`
	} `json:"folds"`
	HeldOut struct {
		Tuned, Default, Diff, P float64
		CI                      [2]float64
	} `json:"held_out"`
	Chosen   map[string]float64            `json:"chosen"`
	Flags    string                        `json:"flags"`
	PerQuery map[string]map[string]float64 `json:"per_query"`
}

func runTuneJSON(t *testing.T, args ...string) tuneOut {
	t.Helper()
	code, out, errs := run(t, append([]string{"tune", "--queries", demoQueries, "--format", "json"}, args...)...)
	if code != 0 {
		t.Fatalf("tune %v: exit %d: %s", args, code, errs)
	}
	var to tuneOut
	if err := json.Unmarshal([]byte(out), &to); err != nil {
		t.Fatal(err)
	}
	return to
}

// evalMean is eval's mean of metric for retriever with flags.
func evalMean(t *testing.T, retriever, metric string, flags ...string) float64 {
	t.Helper()
	args := append([]string{"eval", "--queries", demoQueries, "--retrievers", retriever, "--k", "10", "--format", "json"}, flags...)
	code, out, errs := run(t, args...)
	if code != 0 {
		t.Fatalf("%v: exit %d: %s", args, code, errs)
	}
	var ev evalOut
	if err := json.Unmarshal([]byte(out), &ev); err != nil {
		t.Fatal(err)
	}
	return ev.Runs[0].Mean[metric]
}

// TestTuneAgreesWithSweep: tune ppr's damping on its default grid, and
// every setting's mean is the metric sweep's nDCG@10 at that value (so
// eval's); each per-query figure set averages to its setting's mean; the
// folds deal the 8 queries once each; the held-out tuned mean is the mean
// of the folds' held-out figures weighted by their sizes; and the flags to
// paste, given to eval, give the chosen setting's mean.
func TestTuneAgreesWithSweep(t *testing.T) {
	to := runTuneJSON(t, "--retriever", "ppr", "--param", "damping")
	code, out, errs := run(t, "sweep", "--queries", demoQueries, "--retriever", "ppr", "--param", "damping", "--format", "json")
	if code != 0 {
		t.Fatalf("sweep: exit %d: %s", code, errs)
	}
	var ms metricSweepOut
	if err := json.Unmarshal([]byte(out), &ms); err != nil {
		t.Fatal(err)
	}
	if to.Search != "product" || len(to.Grid) != len(ms.Points) || to.Metric != "nDCG@10" {
		t.Fatalf("tune: %s, %d settings of %s; sweep %d points", to.Search, len(to.Grid), to.Metric, len(ms.Points))
	}
	for i, g := range to.Grid {
		p := ms.Points[i]
		if g.Setting["damping"] != p.Value || g.Mean != p.Metrics["nDCG@10"] || g.MeanContextChars != p.MeanContextChars || g.Default != p.Current {
			t.Errorf("setting %s: mean %v context %v default %v; the sweep at %v: %v %v %v", g.Key, g.Mean, g.MeanContextChars, g.Default,
				p.Value, p.Metrics["nDCG@10"], p.MeanContextChars, p.Current)
		}
		sum := 0.0
		for _, v := range to.PerQuery[g.Key] {
			sum += v
		}
		if len(to.PerQuery[g.Key]) != 8 || math.Abs(sum/8-g.Mean) > 1e-12 {
			t.Errorf("setting %s: per_query %v does not average to %v", g.Key, to.PerQuery[g.Key], g.Mean)
		}
	}
	var ids []string
	held := 0.0
	for _, f := range to.Folds {
		ids = append(ids, f.Queries...)
		held += f.HeldOut * float64(len(f.Queries))
	}
	slices.Sort(ids)
	if len(to.Folds) != 5 || len(slices.Compact(ids)) != 8 || len(ids) != 8 {
		t.Errorf("folds %v: want 5 dealing the 8 queries once each", to.Folds)
	}
	if math.Abs(held/8-to.HeldOut.Tuned) > 1e-12 || math.Abs(to.HeldOut.Diff-(to.HeldOut.Tuned-to.HeldOut.Default)) > 1e-12 {
		t.Errorf("held out %+v; the folds' held-out figures average to %v", to.HeldOut, held/8)
	}
	flags := strings.Fields(to.Flags)
	if got := evalMean(t, "ppr", "nDCG@10", flags...); got != to.PerQueryMean(to.Chosen) {
		t.Errorf("eval with %v: %v; the chosen setting's mean %v", flags, got, to.PerQueryMean(to.Chosen))
	}
}

// PerQueryMean is the grid's mean of setting s.
func (to tuneOut) PerQueryMean(s map[string]float64) float64 {
	for _, g := range to.Grid {
		if len(g.Setting) == len(s) && func() bool {
			for k, v := range s {
				if g.Setting[k] != v {
					return false
				}
			}
			return true
		}() {
			return g.Mean
		}
	}
	return math.NaN()
}

// TestTuneFusionWeight: a fusion's weight of a fused ranking is a
// parameter like any other: tune --param weight:ppr over 0, 2 (and the
// default 1) beside rrf-k, and each setting's mean is eval's with
// --fuse-weights ppr=W --rrf-k K; the flags to paste carry the weights in
// --fuse-weights.
func TestTuneFusionWeight(t *testing.T) {
	to := runTuneJSON(t, "--retriever", "fusion", "--fuse", "ppr,expansion", "--param", "weight:ppr", "--values", "0,2",
		"--param", "rrf-k", "--values", "0,60", "--folds", "2")
	if len(to.Grid) != 6 {
		t.Fatalf("grid %v: want weight:ppr 0, 1, 2 × rrf-k 0, 60", to.Grid)
	}
	for _, g := range to.Grid {
		w, k := g.Setting["weight:ppr"], g.Setting["rrf-k"]
		want := evalMean(t, "fusion", "nDCG@10", "--fuse", "ppr,expansion", "--fuse-weights", "ppr="+strconv.FormatFloat(w, 'g', -1, 64),
			"--rrf-k", strconv.FormatFloat(k, 'g', -1, 64))
		if g.Mean != want {
			t.Errorf("weight %v rrf-k %v: tune %v, eval %v", w, k, g.Mean, want)
		}
	}
	if !strings.Contains(to.Flags, "--fuse-weights ppr=") || !strings.Contains(to.Flags, ",expansion=1") {
		t.Errorf("flags %q: want --fuse-weights with every fused ranking", to.Flags)
	}
}

// TestTuneRefusals: mistakes are usage errors (exit 2) naming the flag,
// nothing printed; a budget nothing fits is a runtime error (exit 1).
func TestTuneRefusals(t *testing.T) {
	for _, c := range []struct {
		args []string
		code int
		want string
	}{
		{[]string{"--retriever", "ppr"}, 2, "give at least one --param"},
		{[]string{"--retriever", "ppr", "--values", "0.5", "--param", "damping"}, 2, "give --param P before its --values"},
		{[]string{"--retriever", "ppr", "--param", "damping", "--param", "damping"}, 2, "--param \"damping\" is given twice"},
		{[]string{"--retriever", "ppr", "--param", "damping", "--values", "0.5", "--values", "0.6"}, 2, "--param damping has --values twice"},
		{[]string{"--retriever", "ppr", "--param", "damping", "--values", "0.5,1.5"}, 2, "--damping 1.5"},
		{[]string{"--retriever", "ppr", "--param", "alpha"}, 2, "\"alpha\" is not a numeric parameter of ppr"},
		{[]string{"--retriever", "fusion", "--param", "weight:nope"}, 2, "weight:ppr"},
		{[]string{"--retriever", "ppr", "--param", "damping", "--folds", "1"}, 2, "--folds must be at least 2"},
		{[]string{"--retriever", "ppr", "--param", "damping", "--folds", "9"}, 2, "--folds 9 needs at least 9 queries; --queries has 8"},
		{[]string{"--retriever", "ppr", "--param", "damping", "--metric", "ndcg"}, 2, "nDCG needs a cut-off"},
		{[]string{"--retriever", "ppr", "--param", "damping", "--metric", "F1"}, 2, "unknown metric \"F1\""},
		{[]string{"--retriever", "ppr", "--param", "damping", "--seed", "N2006"}, 2, "--seed does not apply"},
		{[]string{"--retriever", "ppr", "--param", "damping", "--budget-chars", "10"}, 1, "no setting tried keeps the mean context within 10 characters"},
	} {
		code, out, errs := run(t, append([]string{"tune", "--queries", demoQueries}, c.args...)...)
		if code != c.code || out != "" || !strings.Contains(errs, c.want) {
			t.Errorf("%v: exit %d, stdout %q, stderr %q; want exit %d and %q", c.args, code, out, errs, c.code, c.want)
		}
	}
}

// TestTuneMetricNames: --metric takes eval's metrics in any case.
func TestTuneMetricNames(t *testing.T) {
	for in, want := range map[string]string{"ndcg@10": "nDCG@10", "RECALL@5": "recall@5", "p@3": "P@3", "mrr": "MRR", "MAP": "MAP"} {
		m, err := parseMetric(in)
		if err != nil || m.Name() != want {
			t.Errorf("%s: %v %v, want %s", in, m.Name(), err, want)
		}
	}
}
