package cli

import (
	"encoding/json"
	"os"
	"reflect"
	"strings"
	"testing"

	"github.com/memoria-graph/memoria/render"
	"github.com/memoria-graph/memoria/retriever/activation/sweep"
)

// questionSets are the demo query set twice, in temporary files: once with
// its questions alone (each line's "seeds" dropped), once with the seeds
// `memoria gather --query TEXT` finds for each question in place of its
// own (and no question): what a command seeded by --seeding gathered must
// run, worked out through another command.
func questionSets(t *testing.T) (questions, gathered string) {
	t.Helper()
	b, err := os.ReadFile(demoQueries)
	if err != nil {
		t.Fatal(err)
	}
	var qs, gs []string
	for _, line := range strings.Split(strings.TrimSpace(string(b)), "\n") {
		var q map[string]any
		if err := json.Unmarshal([]byte(line), &q); err != nil {
			t.Fatal(err)
		}
		delete(q, "seeds")
		qb, _ := json.Marshal(q)
		qs = append(qs, string(qb))
		code, out, errs := run(t, "gather", "--query", q["query"].(string), "--format", "json")
		if code != 0 {
			t.Fatalf("gather %v: exit %d: %s", q["query"], code, errs)
		}
		var g struct {
			Candidates []struct {
				NodeID string  `json:"node_id"`
				R      float64 `json:"R"`
				Seed   bool    `json:"seed"`
			} `json:"candidates"`
		}
		if err := json.Unmarshal([]byte(out), &g); err != nil {
			t.Fatal(err)
		}
		var seeds []map[string]any
		for _, c := range g.Candidates {
			if c.Seed {
				seeds = append(seeds, map[string]any{"node_id": c.NodeID, "score": c.R})
			}
		}
		if len(seeds) == 0 {
			t.Fatalf("the gather found no seed for %v", q["query"])
		}
		delete(q, "query")
		q["seeds"] = seeds
		gb, _ := json.Marshal(q)
		gs = append(gs, string(gb))
	}
	return writeTemp(t, "questions.jsonl", strings.Join(qs, "\n")+"\n"), writeTemp(t, "gathered.jsonl", strings.Join(gs, "\n")+"\n")
}

// perQuery is tune --format json's figures.
func perQuery(t *testing.T, args ...string) (string, map[string]map[string]float64) {
	t.Helper()
	code, out, errs := run(t, args...)
	if code != 0 {
		t.Fatalf("%v: exit %d: %s", args, code, errs)
	}
	var o struct {
		Seeding  string                        `json:"seeding"`
		PerQuery map[string]map[string]float64 `json:"per_query"`
	}
	if err := json.Unmarshal([]byte(out), &o); err != nil {
		t.Fatal(err)
	}
	return o.Seeding, o.PerQuery
}

// TestTuneFromQuestions: tune over the demo questions alone (no seeds)
// finds each query's seeds by the gather stage (--seeding gathered, which
// it chooses by itself when every line has only a question) and gives, for
// every setting and query, the figure that tune gives on the same queries
// seeded with what `memoria gather` finds; the text says where the seeds
// came from. The metric sweep reads the questions the same way. Before,
// a question-only line ran with no seed and scored 0 everywhere, silently.
func TestTuneFromQuestions(t *testing.T) {
	questions, gathered := questionSets(t)
	tune := []string{"tune", "--retriever", "ppr", "--param", "damping", "--values", "0.5,0.7,0.9", "--folds", "2", "--format", "json"}
	mode, fromQuestions := perQuery(t, append(tune, "--queries", questions)...)
	given, fromGathered := perQuery(t, append(tune, "--queries", gathered)...)
	if mode != "gathered" || given != "given" || !reflect.DeepEqual(fromQuestions, fromGathered) {
		t.Errorf("seeding %q against %q; figures from the questions %v, from the gathered seeds %v", mode, given, fromQuestions, fromGathered)
	}
	nonzero := false
	for _, qs := range fromQuestions {
		for _, v := range qs {
			nonzero = nonzero || v > 0
		}
	}
	if !nonzero {
		t.Error("every figure is 0: the test proves nothing")
	}
	code, out, _ := run(t, "tune", "--retriever", "ppr", "--param", "damping", "--folds", "2", "--queries", questions, "--seeding", "gathered")
	if code != 0 || !strings.HasPrefix(out, "tune ppr over 8 queries (seeds gathered from their questions) on nDCG@10") {
		t.Errorf("text: exit %d\n%s", code, out)
	}
	sweepArgs := []string{"sweep", "--retriever", "ppr", "--param", "damping", "--values", "0.5,0.9", "--format", "csv"}
	_, a, _ := run(t, append(sweepArgs, "--queries", questions)...)
	_, b, _ := run(t, append(sweepArgs, "--queries", gathered)...)
	if a != b || !strings.Contains(a, "damping,0.5,") {
		t.Errorf("sweep from the questions:\n%s\nfrom the gathered seeds:\n%s", a, b)
	}
	code, out, _ = run(t, "sweep", "--retriever", "ppr", "--param", "damping", "--values", "0.5", "--queries", questions)
	if code != 0 || !strings.HasPrefix(out, "metric sweep of ppr's damping over 8 queries (seeds gathered from their questions):") {
		t.Errorf("sweep text: exit %d\n%s", code, out)
	}
}

// TestSeedingRefusals: tune, sweep --queries and the explorer take
// --seeding given or gathered (both is eval's side by side); a set whose
// lines mix seeds and bare questions needs it said; a line lacking what
// the seeding runs from is named; --seeding without --queries is refused.
func TestSeedingRefusals(t *testing.T) {
	questions, _ := questionSets(t)
	b, err := os.ReadFile(demoQueries)
	if err != nil {
		t.Fatal(err)
	}
	q, _ := os.ReadFile(questions)
	first, _, _ := strings.Cut(string(b), "\n")
	var line map[string]any
	if err := json.Unmarshal([]byte(first), &line); err != nil {
		t.Fatal(err)
	}
	delete(line, "query") // seeds alone
	fb, _ := json.Marshal(line)
	first = string(fb)
	mixed := writeTemp(t, "mixed.jsonl", first+"\n"+strings.SplitN(string(q), "\n", 2)[1])
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"tune", "--retriever", "ppr", "--param", "damping", "--queries", demoQueries, "--seeding", "both"}, "tune: unknown --seeding \"both\" (want given or gathered)"},
		{[]string{"sweep", "--retriever", "ppr", "--param", "damping", "--queries", demoQueries, "--seeding", "both"}, "sweep: unknown --seeding \"both\" (want given or gathered)"},
		{[]string{"tune", "--retriever", "ppr", "--param", "damping", "--queries", mixed, "--folds", "2"}, "some lines give seeds and some only a question: say which to run with --seeding given or gathered"},
		{[]string{"tune", "--retriever", "ppr", "--param", "damping", "--queries", questions, "--seeding", "given"}, "line 1 (query \"safety-stock\") has no \"seeds\", which --seeding given runs from"},
		{[]string{"sweep", "--seed", "N2006", "--param", "max-branches", "--seeding", "gathered"}, "sweep: --seeding applies to a metric sweep: give --queries FILE"},
		{[]string{"--seeding", "gathered"}, "--seeding applies to the query set: give --queries FILE"},
		{[]string{"--queries", questions, "--seeding", "both"}, "memoria: unknown --seeding \"both\" (want given or gathered)\n"},
	} {
		code, out, errs := run(t, c.args...)
		if code != ExitUsage || out != "" || !strings.Contains(errs, c.want) {
			t.Errorf("memoria %v: exit %d, stdout %q, stderr %q; want 2 and %q", c.args, code, out, errs, c.want)
		}
	}
}

// TestUIHeldOutFromQuestions: the explorer opened with the demo questions
// alone gathers each query's seeds as it opens (the same seeds `memoria
// gather` finds), and its held-out report is what tune prints over them,
// the header saying where the seeds came from.
func TestUIHeldOutFromQuestions(t *testing.T) {
	questions, _ := questionSets(t)
	opts := uiOptions(t, "--queries", questions, "--folds", "4")
	set := opts.Queries
	if set.Seeding != "gathered" || len(set.Queries) != 8 || len(set.Queries[0].Seeds) == 0 {
		t.Fatalf("seeding %q, %d queries, first seeds %v", set.Seeding, len(set.Queries), set.Queries[0].Seeds)
	}
	tr, failed, _, err := activationHeldOut(t, set, opts, sweep.MaxBranches, render.DefaultChartWidth)
	if err != nil || failed != 0 {
		t.Fatal(err, failed)
	}
	code, out, errs := run(t, "tune", "--retriever", "activation", "--param", "max-branches", "--queries", questions, "--folds", "4")
	if code != 0 {
		t.Fatalf("tune: exit %d: %s", code, errs)
	}
	if got := render.TuneText(tr); got != out || !strings.Contains(out, "(seeds gathered from their questions)") {
		t.Errorf("the explorer drew\n%s\ntune printed\n%s", got, out)
	}
}
