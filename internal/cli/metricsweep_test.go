package cli

import (
	"encoding/json"
	"strconv"
	"strings"
	"testing"
)

// metricSweepOut is what `sweep --queries --format json` prints.
type metricSweepOut struct {
	Retriever string `json:"retriever"`
	Param     string `json:"param"`
	Queries   int    `json:"queries"`
	Points    []struct {
		Value            float64            `json:"value"`
		Current          bool               `json:"current"`
		Metrics          map[string]float64 `json:"metrics"`
		MeanHits         float64            `json:"mean_hits"`
		MeanContextChars float64            `json:"mean_context_chars"`
	} `json:"points"`
}

// TestMetricSweepAgreesWithEval: every point of a metric sweep is what
// `memoria eval` measures with the parameter at that value, for a
// parameter of each kind of retriever (Activation Energy's threshold,
// which rebuilds its retriever, the expansion's hops, spreading's decay,
// ppr's damping on its default grid 0.1 … 0.9, whose 0.3 must be typed
// back as 0.3, not 0.30000000000000004), and the current value is marked.
func TestMetricSweepAgreesWithEval(t *testing.T) {
	for _, k := range []struct {
		retriever, param, values string
		current                  float64
	}{
		{"activation", "min-activation", "0.001,0.01,0.05", 0.005}, // the default, added as a point
		{"expansion", "max-hops", "", 1},
		{"spreading", "decay", "0.3,0.7", 0.7},
		{"ppr", "damping", "", 0.5},
	} {
		args := []string{"sweep", "--queries", demoQueries, "--retriever", k.retriever, "--param", k.param, "--k", "5,10", "--format", "json"}
		if k.values != "" {
			args = append(args, "--values", k.values)
		}
		code, out, errs := run(t, args...)
		if code != 0 {
			t.Fatalf("%v: exit %d: %s", args, code, errs)
		}
		var ms metricSweepOut
		if err := json.Unmarshal([]byte(out), &ms); err != nil {
			t.Fatal(err)
		}
		if ms.Retriever != k.retriever || ms.Param != k.param || ms.Queries != 8 || len(ms.Points) < 2 {
			t.Fatalf("%s: %+v", k.param, ms)
		}
		currents := 0
		for _, p := range ms.Points {
			v := strconv.FormatFloat(p.Value, 'g', -1, 64)
			if len(v) > 6 {
				t.Errorf("%s: value %s is not as a person types it", k.param, v)
			}
			if p.Current {
				currents++
				if p.Value != k.current {
					t.Errorf("%s: current %v, want %v", k.param, p.Value, k.current)
				}
			}
			code, out, errs := run(t, "eval", "--queries", demoQueries, "--retrievers", k.retriever, "--"+k.param, v, "--k", "5,10", "--format", "json")
			if code != 0 {
				t.Fatalf("eval at %s %s: exit %d: %s", k.param, v, code, errs)
			}
			var ev evalOut
			if err := json.Unmarshal([]byte(out), &ev); err != nil {
				t.Fatal(err)
			}
			r := ev.Runs[0]
			for name, x := range r.Mean {
				if p.Metrics[name] != x {
					t.Errorf("%s %s: %s %v, eval says %v", k.param, v, name, p.Metrics[name], x)
				}
			}
			if len(p.Metrics) != len(r.Mean) || p.MeanHits != r.MeanHits || p.MeanContextChars != r.MeanContextChars {
				t.Errorf("%s %s: %d metrics, hits %v, context %v; eval: %d, %v, %v", k.param, v, len(p.Metrics), p.MeanHits, p.MeanContextChars,
					len(r.Mean), r.MeanHits, r.MeanContextChars)
			}
		}
		if currents != 1 {
			t.Errorf("%s: %d points marked current", k.param, currents)
		}
	}
}

// TestMetricSweepRefusals: each mistake is a usage error naming the flag.
func TestMetricSweepRefusals(t *testing.T) {
	for _, k := range []struct {
		args []string
		msg  string
	}{
		{[]string{"--queries", demoQueries, "--retriever", "ppr", "--param", "decay"}, `"decay" is not a numeric parameter of ppr (want one of damping, epsilon, top-k)`},
		{[]string{"--queries", demoQueries, "--param", "max-hops"}, "is not a numeric parameter of activation"},
		{[]string{"--queries", demoQueries, "--retriever", "ppr"}, "--param is required"},
		{[]string{"--queries", demoQueries, "--seed", "N2006", "--param", "min-activation"}, "--seed and --tags do not apply with --queries"},
		{[]string{"--queries", demoQueries, "--retriever", "ppr", "--param", "damping", "--values", "0.5,1.5"}, "--damping 1.5"},
		{[]string{"--queries", demoQueries, "--retriever", "ppr", "--param", "damping", "--max-points", "3"}, "--max-points applies to a threshold sweep"},
		{[]string{"--queries", demoQueries, "--retriever", "ppr", "--param", "epsilon", "--from", "0", "--to", "0.1"}, "a logarithmic grid needs --from above 0"},
		{[]string{"--seed", "N2006", "--param", "min-activation", "--rerank", "signals"}, "--rerank applies to a metric sweep"},
		{[]string{"--seed", "N2006", "--param", "min-activation", "--damping", "0.3"}, "--damping applies to ppr"},
	} {
		code, _, errs := run(t, append([]string{"sweep"}, k.args...)...)
		if code != 2 || !strings.Contains(errs, k.msg) {
			t.Errorf("%v: exit %d, %q; want 2 and %q", k.args, code, errs, k.msg)
		}
	}
}

// TestMetricSweepFusionWeight: the fusion's weight of a fused ranking is
// a parameter of the metric sweep too ("weight:ppr"): --values 0,2 and
// the current 1 (no --fuse-weights) are the points, the current marked,
// and each point's nDCG@10 is eval's with --fuse-weights ppr=W.
func TestMetricSweepFusionWeight(t *testing.T) {
	code, out, errs := run(t, "sweep", "--queries", demoQueries, "--retriever", "fusion", "--fuse", "ppr,expansion", "--param", "weight:ppr",
		"--values", "0,2", "--format", "json")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errs)
	}
	var ms metricSweepOut
	if err := json.Unmarshal([]byte(out), &ms); err != nil {
		t.Fatal(err)
	}
	if len(ms.Points) != 3 || ms.Points[0].Value != 0 || !ms.Points[1].Current || ms.Points[1].Value != 1 || ms.Points[2].Value != 2 {
		t.Fatalf("points %+v: want 0, 1 (current), 2", ms.Points)
	}
	for _, p := range ms.Points {
		w := strconv.FormatFloat(p.Value, 'g', -1, 64)
		if want := evalMean(t, "fusion", "nDCG@10", "--fuse", "ppr,expansion", "--fuse-weights", "ppr="+w); p.Metrics["nDCG@10"] != want {
			t.Errorf("weight %s: %v, eval %v", w, p.Metrics["nDCG@10"], want)
		}
	}
}

// TestChartWidth: off a terminal the charts fill $COLUMNS when it is a
// number of at least 20, else render.DefaultChartWidth (100).
func TestChartWidth(t *testing.T) {
	for cols, want := range map[string]int{"160": 160, "20": 20, "19": 100, "wide": 100, "": 100} {
		env := Env{Stdout: &strings.Builder{}, Getenv: func(k string) string {
			if k == "COLUMNS" {
				return cols
			}
			return ""
		}}
		if got := chartWidth(env); got != want {
			t.Errorf("COLUMNS=%q: width %d, want %d", cols, got, want)
		}
	}
}
