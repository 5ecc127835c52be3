package cli

import (
	"context"
	"github.com/memoria-graph/memoria/render"
	"github.com/memoria-graph/memoria/retriever/activation/sweep"
	"github.com/memoria-graph/memoria/tui/overlays/sweepview"
	"io"
	"slices"
	"strings"
	"testing"

	"github.com/memoria-graph/memoria/tui"
)

// TestUIRetrieverFlag: the explorer's --retriever takes every retriever
// (activation, expansion, spreading, ppr); any other name is a usage error
// (exit 2) naming the flag, said before the terminal is looked for. Every
// retriever's flags set its starting parameters whichever opens, checked
// as explore checks them (H is 1 to 3, P 1 to 6), and a good --retriever
// gets as far as the terminal check.
func TestUIRetrieverFlag(t *testing.T) {
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"--retriever", "bogus"}, `unknown --retriever "bogus" for the explorer (want activation, expansion, spreading, ppr; fusion is a column of the compare view: --retrievers A,B,fusion)`},
		{[]string{"--retriever", "expansion", "--max-hops", "4"}, "max hops must be 1 to 3, got 4"},
		{[]string{"--type-weight", "FIXES=2"}, `type weight of "FIXES" must be in [-1, 1], got 2`},
		{[]string{"--retriever", "expansion", "--max-hops", "2"}, "the explorer needs a terminal"},
		{[]string{"--retriever", "activation", "--max-hops", "2", "--max-depth", "3"}, "the explorer needs a terminal"},
		{[]string{"--retriever", "spreading", "--pulses", "3"}, "the explorer needs a terminal"},
		{[]string{"--pulses", "7"}, "pulses must be 1 to 6, got 7"},
		{[]string{"--retriever", "expansion", "--top-k", "0"}, "top k must be at least 1"},
	} {
		code, out, errs := run(t, c.args...)
		if code != ExitUsage || out != "" || !strings.Contains(errs, c.want) {
			t.Errorf("memoria %v: exit %d, stdout %q, stderr %q; want 2 and %q", c.args, code, out, errs, c.want)
		}
	}
	// A query vector that cannot be read is the file's fault (exit 1),
	// named once.
	code, _, errs := run(t, "--query-vector", "/nonexistent/q.json")
	if code != 1 || errs != "memoria: --query-vector: open /nonexistent/q.json: no such file or directory\n" {
		t.Errorf("--query-vector missing: exit %d, stderr %q", code, errs)
	}
}

// TestUIRetrieversFlag: the explorer's --retrievers (the compare view)
// takes two or more of the explorer's retrievers and fusion (with two or
// more to fuse), each once; anything else
// is a usage error naming the flag, said before the terminal is looked
// for, and a good list gets as far as the terminal check.
func TestUIRetrieversFlag(t *testing.T) {
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"--retrievers", "activation"}, `--retrievers needs at least two retrievers, got "activation"`},
		{[]string{"--retrievers", "activation,bogus"}, `unknown retriever "bogus" in --retrievers (want activation, expansion, spreading, ppr, fusion)`},
		{[]string{"--retrievers", "activation,fusion"}, "fusion fuses the other retrievers listed, and needs two or more besides it"},
		{[]string{"--retrievers", "activation,expansion,fusion"}, "the explorer needs a terminal"},
		{[]string{"--retrievers", "ppr,ppr"}, "--retrievers names ppr twice"},
		{[]string{"--retrievers", "activation,,ppr"}, `--retrievers "activation,,ppr" has an empty name`},
		{[]string{"--retrievers", "activation,expansion,spreading,ppr"}, "the explorer needs a terminal"},
	} {
		code, out, errs := run(t, c.args...)
		if code != ExitUsage || out != "" || !strings.Contains(errs, c.want) {
			t.Errorf("memoria %v: exit %d, stdout %q, stderr %q; want 2 and %q", c.args, code, out, errs, c.want)
		}
	}
}

// TestUIGatherFlags: the explorer's query line (a) gathers with the
// command line's gather flags, as --query does: --name-properties id,
// --match fuzzy,vector (the vector matcher sits out: the line's question is
// text), --seed-k 3 and --gather-min 0.4 reach tui.Options; without them,
// the schema's preset fields and the defaults.
func TestUIGatherFlags(t *testing.T) {
	options := func(args ...string) tui.Options { t.Helper(); return uiOptions(t, args...) }
	o := options("--name-properties", "id", "--match", "fuzzy,vector", "--seed-k", "3", "--gather-min", "0.4")
	if !slices.Equal(o.GatherFields.Names, []string{"id"}) || !slices.Equal(o.Gather.Matchers, []string{"fuzzy"}) ||
		o.Gather.SeedK != 3 || o.Gather.Min != 0.4 {
		t.Errorf("with flags: fields %+v, settings %+v", o.GatherFields, o.Gather)
	}
	o = options()
	if !slices.Equal(o.GatherFields.Names, []string{"name", "title"}) || !slices.Equal(o.Gather.Matchers, []string{"exact", "token", "bm25"}) ||
		o.Gather.SeedK != 5 || o.Gather.Min != 0.5 {
		t.Errorf("defaults: fields %+v, settings %+v", o.GatherFields, o.Gather)
	}
}

// uiOptions are the explorer's options on the demo graph with args.
func uiOptions(t *testing.T, args ...string) tui.Options {
	t.Helper()
	env := Env{Stdout: io.Discard, Stderr: io.Discard, Getenv: func(string) string { return "" }}
	return uiOptionsIn(t, env, append([]string{"--graph", "../../testdata/demo.jsonl"}, args...)...)
}

// uiOptionsIn are the explorer's options with args (the source among
// them) in env.
func uiOptionsIn(t *testing.T, env Env, args ...string) tui.Options {
	t.Helper()
	var u uiFlags
	if err := parseCommand(env, "memoria", uiUsage, args, &u); err != nil {
		t.Fatal(err)
	}
	src, err := u.q.open(context.Background(), env)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { src.Close(context.Background()) })
	opts, err := u.options(context.Background(), src)
	if err != nil {
		t.Fatal(err)
	}
	return opts
}

// TestUIHeldOutIsTune: the explorer opened with --queries measures the
// query set in its sweep overlay (sweepview.HeldOut) by a path of its own
// (the activation retriever on the explorer's backend, its queries on one
// worker per core), and what it draws is, to the character, what `memoria
// tune --retriever activation --param P` prints with the same flags: the
// folds' choices, the held-out comparison, the flags to paste, the
// held-out curve and every setting's mean and context. Three cases: the
// defaults on max-branches; min-activation's log grid under --max-depth 2
// by recall@10 with another split; tag-sim-floor with 3 folds.
func TestUIHeldOutIsTune(t *testing.T) {
	for _, c := range []struct {
		param sweep.Param
		flags []string
	}{
		{sweep.MaxBranches, []string{"--folds", "4"}},
		{sweep.MinActivation, []string{"--max-depth", "2", "--metric", "recall@10", "--seed-split", "7"}},
		{sweep.TagSimFloor, []string{"--folds", "3", "--tags", "stockout"}},
	} {
		flags := append([]string{"--queries", demoQueries}, c.flags...)
		opts := uiOptions(t, flags...)
		if !opts.Queries.Active() || len(opts.Queries.Queries) != 8 {
			t.Fatalf("%v: the query set did not reach the explorer: %+v", flags, opts.Queries)
		}
		tr, failed, _, err := activationHeldOut(t, opts.Queries, opts, c.param, render.DefaultChartWidth)
		if err != nil || failed != 0 {
			t.Fatalf("%s: %v (%d failed)", c.param, err, failed)
		}
		tuneFlags := slices.DeleteFunc(slices.Clone(flags), func(f string) bool { return f == "--tags" || f == "stockout" })
		code, out, errs := run(t, append([]string{"tune", "--retriever", "activation", "--param", string(c.param)}, tuneFlags...)...)
		if code != 0 {
			t.Fatalf("tune: exit %d: %s", code, errs)
		}
		if got := render.TuneText(tr); got != out {
			t.Errorf("%s: the explorer drew\n%s\nmemoria tune printed\n%s", c.param, got, out)
		}
		if !strings.Contains(out, "held-out curve of "+string(c.param)) {
			t.Errorf("%s: no held-out curve in\n%s", c.param, out)
		}
	}
}

// TestUIHeldOutFlags: the query set's flags need --queries, and a bad one
// is a usage error naming it, before any terminal is asked for.
func TestUIHeldOutFlags(t *testing.T) {
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"--folds", "3"}, "--folds applies to the query set: give --queries FILE"},
		{[]string{"--metric", "MAP"}, "--metric applies to the query set"},
		{[]string{"--queries", demoQueries, "--folds", "1"}, "--folds must be at least 2, got 1"},
		{[]string{"--queries", demoQueries, "--metric", "ndcg"}, "--metric: nDCG needs a cut-off of at least 1"},
		{[]string{"--queries", demoQueries, "--folds", "9"}, "--folds 9 needs at least 9 queries; --queries has 8"},
		{[]string{"--queries", "no-such-file.jsonl"}, "no-such-file.jsonl"},
		{[]string{"--queries", "/dev/zero"}, "memoria: --queries /dev/zero: line 1: longer than 16 MiB, the longest line of a query set\n"},
		{[]string{"--queries", demoQueries, "--folds", "8"}, "the explorer needs a terminal"},
	} {
		code, out, errs := run(t, c.args...)
		if code == 0 || out != "" || !strings.Contains(errs, c.want) || strings.Contains(errs, "memoria: memoria:") {
			t.Errorf("memoria %v: exit %d, stdout %q, stderr %q; want %q", c.args, code, out, errs, c.want)
		}
	}
}

// activationHeldOut is the explorer's held-out tuning of Activation
// Energy's param over set, with opts' thresholds and run options, its
// charts width wide.
func activationHeldOut(t *testing.T, set sweepview.QuerySet, opts tui.Options, param sweep.Param, width int) (render.Tune, int, string, error) {
	t.Helper()
	target, err := sweepview.ActivationTarget(set.Backend, opts.RunOptions, opts.Params, param)
	if err != nil {
		t.Fatal(err)
	}
	return sweepview.HeldOut(context.Background(), set, target, width, nil)
}

// TestUIHeldOutRankingIsTune: with a ranking retriever shown, the
// explorer's held-out curve of one of its parameters (sweepview's
// RankingTarget over the explorer's graph reads and settings) is, to the
// character, what `memoria tune --retriever NAME --param P` prints with the
// same flags: ppr's damping with ε given, the expansion's max-hops, and
// spreading activation's pulses by recall@10.
func TestUIHeldOutRankingIsTune(t *testing.T) {
	for _, c := range []struct {
		retriever, param string
		flags            []string
	}{
		{"ppr", "damping", []string{"--epsilon", "0.0001", "--folds", "4"}},
		{"expansion", "max-hops", nil},
		{"spreading", "pulses", []string{"--metric", "recall@10", "--folds", "3"}},
	} {
		flags := append([]string{"--queries", demoQueries, "--retriever", c.retriever}, c.flags...)
		opts := uiOptions(t, flags...)
		target, err := sweepview.RankingTarget(opts.Neighbourhood, opts.Settings[c.retriever], c.param)
		if err != nil {
			t.Fatal(err)
		}
		tr, failed, _, err := sweepview.HeldOut(context.Background(), opts.Queries, target, render.DefaultChartWidth, nil)
		if err != nil || failed != 0 {
			t.Fatalf("%s %s: %v (%d failed)", c.retriever, c.param, err, failed)
		}
		code, out, errs := run(t, append([]string{"tune", "--param", c.param}, flags...)...)
		if code != 0 {
			t.Fatalf("tune: exit %d: %s", code, errs)
		}
		if got := render.TuneText(tr); got != out || !strings.Contains(out, "held-out curve of "+c.param) {
			t.Errorf("%s %s: the explorer drew\n%s\nmemoria tune printed\n%s", c.retriever, c.param, got, out)
		}
	}
}
