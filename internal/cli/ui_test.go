package cli

import (
	"context"
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
	options := func(args ...string) tui.Options {
		t.Helper()
		var u uiFlags
		env := Env{Stdout: io.Discard, Stderr: io.Discard, Getenv: func(string) string { return "" }}
		if err := parseCommand(env, "memoria", uiUsage, append([]string{"--graph", "../../testdata/demo.jsonl"}, args...), &u); err != nil {
			t.Fatal(err)
		}
		src, err := u.q.open(context.Background(), env)
		if err != nil {
			t.Fatal(err)
		}
		defer src.Close(context.Background())
		opts, err := u.options(context.Background(), src)
		if err != nil {
			t.Fatal(err)
		}
		return opts
	}
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
