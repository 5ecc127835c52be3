package cli

import (
	"bytes"
	"context"
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// badInput is a command line memoria must refuse: its exit code and its
// whole stderr.
type badInput struct {
	args []string
	code int
	msg  string
}

// refuses runs each case and checks that it exits with its code, prints
// nothing on stdout and exactly its message on stderr (docs/CLI.md, "Exit
// codes": a bad flag or value is named in the message).
func refuses(t *testing.T, cases []badInput) {
	t.Helper()
	for _, c := range cases {
		code, out, errs := run(t, c.args...)
		if code != c.code || out != "" || errs != c.msg {
			t.Errorf("%q: exit %d, stdout %d bytes, stderr\n%q\nwant exit %d and\n%q", c.args, code, len(out), errs, c.code, c.msg)
		}
	}
}

// TestFlagGivenTwice: a flag that keeps one value, given twice with
// different values, is refused naming it and both values; the flag package
// kept the last silently (`--retriever expansion --retriever ppr` ran ppr,
// `why --node A --node B` explained B). The same value twice, and the
// repeatable flags, stay accepted.
func TestFlagGivenTwice(t *testing.T) {
	refuses(t, []badInput{
		{[]string{"explore", "--seed", "N2006", "--retriever", "expansion", "--retriever", "ppr"}, ExitUsage,
			"memoria: explore: invalid value \"ppr\" for flag -retriever: given twice, \"expansion\" and then \"ppr\": give it once (see --help)\n"},
		{[]string{"explore", "--seed", "N2006", "--format", "json", "--format", "tree"}, ExitUsage,
			"memoria: explore: invalid value \"tree\" for flag -format: given twice, \"json\" and then \"tree\": give it once (see --help)\n"},
		{[]string{"why", "--seed", "N2006", "--node", "N2007", "--node", "N2008"}, ExitUsage,
			"memoria: why: invalid value \"N2008\" for flag -node: given twice, \"N2007\" and then \"N2008\": give it once (see --help)\n"},
		{[]string{"explore", "--seed", "N2006", "--trace=false", "--trace"}, ExitUsage,
			"memoria: explore: invalid boolean flag trace: given twice, \"false\" and then \"true\": give it once (see --help)\n"},
		{[]string{"stats", "--graph", "a\x1b.jsonl", "--graph", "b.jsonl"}, ExitUsage,
			"memoria: stats: invalid value \"b.jsonl\" for flag -graph: given twice, \"a\\x1b.jsonl\" and then \"b.jsonl\": give it once (see --help)\n"},
		// load parses its arguments in runs around the file: a flag on
		// both sides of it is still given twice.
		{[]string{"load", "--uri", "bolt://127.0.0.1:1", "x.jsonl", "--uri", "bolt://127.0.0.1:2"}, ExitUsage,
			"memoria: load: invalid value \"bolt://127.0.0.1:2\" for flag -uri: given twice, \"bolt://127.0.0.1:1\" and then \"bolt://127.0.0.1:2\": give it once (see --help)\n"},
	})
	for _, args := range [][]string{
		{"explore", "--seed", "N2006", "--format", "tree", "--format", "tree"},
		{"explore", "--seed", "N2006", "--seed", "T3000", "--rel-types", "RELATES", "--rel-types", "MENTIONS", "--rel-where", "weight>0.1", "--rel-where", "weight<1"},
		{"explore", "--seed", "N2006", "--retriever", "expansion", "--type-weight", "RELATES=0.5", "--type-weight", "MENTIONS=0.2"},
	} {
		if code, _, errs := run(t, args...); code != 0 {
			t.Errorf("%q: exit %d: %s", args, code, errs)
		}
	}
}

// TestFlagEmpty: an empty value for a flag whose default is its absence
// is refused naming the flag; `--graph ""` explored the embedded demo
// graph, `--uri ""` fell back to $NEO4J_URI, `--qrels ""` read none, and
// explore's `--format ""` printed JSON, each with exit 0.
func TestFlagEmpty(t *testing.T) {
	refuses(t, []badInput{
		{[]string{"explore", "--seed", "N2006", "--graph", ""}, ExitUsage,
			"memoria: explore: --graph is empty: give a value, or leave the flag out for its default\n"},
		{[]string{"stats", "--graph", ""}, ExitUsage,
			"memoria: stats: --graph is empty: give a value, or leave the flag out for its default\n"},
		{[]string{"export", "--uri", ""}, ExitUsage,
			"memoria: export: --uri is empty: give a value, or leave the flag out for its default\n"},
		{[]string{"explore", "--seed", "N2006", "--format", ""}, ExitUsage,
			"memoria: explore: --format is empty: give a value, or leave the flag out for its default\n"},
		{[]string{"explore", "--seed", "N2006", "--retriever", "spreading", "--query-vector", ""}, ExitUsage,
			"memoria: explore: --query-vector is empty: give a value, or leave the flag out for its default\n"},
		{[]string{"explore", "--seed", "N2006", "--retriever", "ppr", "--rerank", "signals", "--now", ""}, ExitUsage,
			"memoria: explore: --now is empty: give a value, or leave the flag out for its default\n"},
		{[]string{"eval", "--queries", demoQueries, "--qrels", ""}, ExitUsage,
			"memoria: eval: --qrels is empty: give a value, or leave the flag out for its default\n"},
		{[]string{"--out-dir", ""}, ExitUsage,
			"memoria: --out-dir is empty: give a value, or leave the flag out for its default\n"},
	})
}

// TestSeedOrTypeWeightTwice: a repeatable flag naming the same seed, or
// weighing the same type, twice is refused naming it: the ranking
// retrievers refused a seed twice with exit 1 as if the run had failed,
// Activation Energy explored it twice (two results for one seed, which
// diff refuses), and the second --type-weight replaced the first.
func TestSeedOrTypeWeightTwice(t *testing.T) {
	refuses(t, []badInput{
		{[]string{"explore", "--seed", "N2006=0.5", "--seed", "N2006=0.9", "--retriever", "ppr"}, ExitUsage,
			"memoria: explore: invalid value \"N2006=0.9\" for flag -seed: seed \"N2006\" is given twice (see --help)\n"},
		{[]string{"explore", "--seed", "N2006", "--seed", "N2006", "--format", "tree"}, ExitUsage,
			"memoria: explore: invalid value \"N2006\" for flag -seed: seed \"N2006\" is given twice (see --help)\n"},
		{[]string{"compare", "--seed", "a\x1b", "--seed", "a\x1b=1"}, ExitUsage,
			"memoria: compare: invalid value \"a\\x1b=1\" for flag -seed: seed \"a\\x1b\" is given twice (see --help)\n"},
		{[]string{"explore", "--seed", "N2006", "--retriever", "expansion", "--type-weight", "RELATES=0.5", "--type-weight", "RELATES=0.7"}, ExitUsage,
			"memoria: explore: invalid value \"RELATES=0.7\" for flag -type-weight: type \"RELATES\" is weighed twice (see --help)\n"},
	})
}

// TestRangeErrorsNameTheFlag: a parameter out of its range is refused
// with its flag before the retriever's own words for it, every one of
// them when several are wrong; "entity penalty above must be ..." named
// no flag a user could type (--entity-penalty-above), nor did
// "max_depth", "top k" or "rrf k" spell theirs. Several wrong at once are
// a line each, every line led by "memoria:" and the command's prefix
// (only the first was), and a sweep's --values no longer takes the blame
// for the other thresholds ("sweep: --values: item 1: min_activation
// ...", then a line naming no flag).
func TestRangeErrorsNameTheFlag(t *testing.T) {
	refuses(t, []badInput{
		{[]string{"explore", "--seed", "N2006", "--max-depth", "0", "--min-activation", "-1", "--tag-sim-floor", "2", "--max-branches", "0"}, ExitUsage,
			"memoria: --max-depth: max_depth must be between 1 and 12, got 0\nmemoria: --min-activation: min_activation must be a finite number >= 0, got -1\n" +
				"memoria: --tag-sim-floor: tag_sim_floor must be between 0 and 1, got 2\nmemoria: --max-branches: max_branches must be at least 1, got 0\n"},
		{[]string{"explore", "--seed", "N2006", "--max-retries", "11"}, ExitUsage,
			"memoria: --max-retries: max_retries must be between 0 and 10, got 11\n"},
		{[]string{"explore", "--seed", "N2006", "--trace", "--near-misses", "101"}, ExitUsage,
			"memoria: --near-misses: near_misses must be between 0 and 100, got 101\n"},
		{[]string{"explore", "--seed", "N2006", "--retriever", "expansion", "--max-hops", "4", "--expansion-factor", "0", "--depth-decay", "2", "--top-k", "0"}, ExitUsage,
			"memoria: explore: --max-hops: max hops must be 1 to 3, got 4\nmemoria: explore: --expansion-factor: expansion factor must be in (0, 1], got 0\n" +
				"memoria: explore: --depth-decay: depth decay must be in (0, 1], got 2\nmemoria: explore: --top-k: top k must be at least 1, got 0\n"},
		{[]string{"explore", "--seed", "N2006", "--retriever", "spreading", "--pulses", "0", "--decay", "NaN", "--threshold", "1", "--alpha", "2", "--entity-penalty-above", "0.5"}, ExitUsage,
			"memoria: explore: --pulses: pulses must be 1 to 6, got 0\nmemoria: explore: --decay: decay must be in (0, 1], got NaN\n" +
				"memoria: explore: --threshold: threshold must be in [0, 1), got 1\nmemoria: explore: --alpha: alpha must be in [0, 1], got 2\n" +
				"memoria: explore: --entity-penalty-above: entity penalty above must be a finite number of at least 1, got 0.5\n"},
		{[]string{"compare", "--seed", "N2006", "--retrievers", "ppr,fusion", "--damping", "1", "--epsilon", "0"}, ExitUsage,
			"memoria: compare: --damping: damping must be in (0, 1), got 1\nmemoria: compare: --epsilon: epsilon must be in (0, 1), got 0\n"},
		{[]string{"explore", "--seed", "N2006", "--retriever", "fusion", "--fuse-depth", "0", "--rrf-k", "-1"}, ExitUsage,
			"memoria: explore: --fuse-depth: fuse depth must be at least 1, got 0\nmemoria: explore: --rrf-k: rrf k must be a finite number of at least 0, got -1\n"},
		{[]string{"--retriever", "expansion", "--max-hops", "4"}, ExitUsage,
			"memoria: --max-hops: max hops must be 1 to 3, got 4\n"},
		{[]string{"--retriever", "expansion", "--max-hops", "4", "--top-k", "0"}, ExitUsage,
			"memoria: --max-hops: max hops must be 1 to 3, got 4\nmemoria: --top-k: top k must be at least 1, got 0\n"},
		{[]string{"sweep", "--seed", "N2006", "--param", "max-depth", "--values", "1,2", "--min-activation", "-1", "--max-branches", "0"}, ExitUsage,
			"memoria: --min-activation: min_activation must be a finite number >= 0, got -1\nmemoria: --max-branches: max_branches must be at least 1, got 0\n"},
		{[]string{"sweep", "--queries", demoQueries, "--param", "max-depth", "--values", "1,2", "--min-activation", "-1", "--max-branches", "0"}, ExitUsage,
			"memoria: --min-activation: min_activation must be a finite number >= 0, got -1\nmemoria: --max-branches: max_branches must be at least 1, got 0\n"},
		{[]string{"sweep", "--queries", demoQueries, "--retriever", "expansion", "--param", "max-hops", "--values", "1,2", "--top-k", "0", "--depth-decay", "2"}, ExitUsage,
			"memoria: sweep: --depth-decay: depth decay must be in (0, 1], got 2\nmemoria: sweep: --top-k: top k must be at least 1, got 0\n"},
	})
}

// TestExploreFlagThatChangesNothing: --near-misses without --trace and
// --cypher-form with a format that prints no Cypher are refused; both
// were ignored with exit 0.
func TestExploreFlagThatChangesNothing(t *testing.T) {
	refuses(t, []badInput{
		{[]string{"explore", "--seed", "N2006", "--near-misses", "3"}, ExitUsage,
			"memoria: explore: --near-misses applies to --trace\n"},
		{[]string{"explore", "--seed", "N2006", "--cypher-form", "shell"}, ExitUsage,
			"memoria: explore: --cypher-form applies to --format cypher or check\n"},
		{[]string{"explore", "--seed", "N2006", "--retriever", "ppr", "--format", "tree", "--cypher-form", "driver"}, ExitUsage,
			"memoria: explore: --cypher-form applies to --format cypher or check\n"},
	})
	for _, args := range [][]string{
		{"explore", "--seed", "N2006", "--trace", "--near-misses", "3"},
		{"explore", "--seed", "N2006", "--format", "check", "--cypher-form", "shell"},
		{"explore", "--seed", "N2006", "--retriever", "ppr", "--format", "cypher", "--cypher-form", "driver"},
	} {
		if code, _, errs := run(t, args...); code != 0 {
			t.Errorf("%q: exit %d: %s", args, code, errs)
		}
	}
}

// TestMetricSweepWholeNumbers: a metric sweep of a parameter that takes
// whole numbers refuses a fraction (--values 2.7 ran max-hops 2 and
// labelled the point 2.7) and a number too large for the flag (1e20 became
// -9223372036854775808 on its way to --top-k); its --k mistakes name
// sweep, not eval.
func TestMetricSweepWholeNumbers(t *testing.T) {
	sweep := []string{"sweep", "--queries", demoQueries}
	refuses(t, []badInput{
		{append(sweep, "--retriever", "expansion", "--param", "max-hops", "--values", "1,2.7"), ExitUsage,
			"memoria: sweep: --values: item 2: max-hops takes whole numbers, got 2.7\n"},
		{append(sweep, "--retriever", "ppr", "--param", "top-k", "--values", "1e20"), ExitUsage,
			"memoria: sweep: --top-k 100000000000000000000: value out of range\n"},
		{append(sweep, "--param", "max-depth", "--values", "1,2", "--k", "0"), ExitUsage,
			"memoria: sweep: --k \"0\": want cut-offs of at least 1, comma-separated, like 5,10\n"},
		{append(sweep, "--param", "max-depth", "--values", "1,2", "--k", "5,5"), ExitUsage,
			"memoria: sweep: --k names 5 twice\n"},
	})
}

// TestEvalTrecKeepsTheOldSet: when one file of the set cannot be renamed
// into place (DIR/qrels is a directory), eval fails naming it and the
// files of the previous run stay as they were: ppr.run was renamed over
// before the qrels failed, leaving a new run beside the old judgments.
func TestEvalTrecKeepsTheOldSet(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "runs")
	args := []string{"eval", "--queries", demoQueries, "--retrievers", "ppr", "--format", "trec", "--out", dir}
	if code, _, errs := run(t, args...); code != 0 {
		t.Fatalf("first run: exit %d: %s", code, errs)
	}
	before, err := os.ReadFile(filepath.Join(dir, "ppr.run"))
	if err != nil {
		t.Fatal(err)
	}
	if err := os.Remove(filepath.Join(dir, "qrels")); err != nil {
		t.Fatal(err)
	}
	if err := os.Mkdir(filepath.Join(dir, "qrels"), 0o755); err != nil {
		t.Fatal(err)
	}
	code, out, errs := run(t, append(args, "--top-k", "3", "--k", "3")...)
	if want := "memoria: eval: --out: " + filepath.Join(dir, "qrels") + " is a directory\n"; code != ExitRuntime || out != "" || errs != want {
		t.Errorf("exit %d, stdout %q, stderr %q; want 1 and %q", code, out, errs, want)
	}
	if after, err := os.ReadFile(filepath.Join(dir, "ppr.run")); err != nil || !bytes.Equal(after, before) {
		t.Errorf("ppr.run changed (%v):\n%s", err, after)
	}
	entries, _ := os.ReadDir(dir)
	var names []string
	for _, e := range entries {
		names = append(names, e.Name())
	}
	if !slices.Equal(names, []string{"ppr.run", "qrels"}) {
		t.Errorf("--out holds %v, want ppr.run and qrels only", names)
	}
}

// TestRelWhereTypos: a doubled operator or an unclosed double quote in
// --rel-where is refused naming the flag: `weight==0.8` compared each
// weight with the string "=0.8", filtered out every relationship and
// printed an empty result with exit 0.
func TestRelWhereTypos(t *testing.T) {
	refuses(t, []badInput{
		{[]string{"explore", "--seed", "N2006", "--rel-where", "weight==0.8"}, ExitUsage,
			"memoria: explore: invalid value \"weight==0.8\" for flag -rel-where: value =0.8 begins with '=': write the operator once, or quote the value to compare it as a string (see --help)\n"},
		{[]string{"compare", "--seed", "N2006", "--rel-where", "weight>>0.5"}, ExitUsage,
			"memoria: compare: invalid value \"weight>>0.5\" for flag -rel-where: value >0.5 begins with '>': write the operator once, or quote the value to compare it as a string (see --help)\n"},
		{[]string{"why", "--seed", "N2006", "--node", "N2007", "--rel-where", `kind="best friend`}, ExitUsage,
			"memoria: why: invalid value \"kind=\\\"best friend\" for flag -rel-where: value \"best friend: a double quote without its closing one (see --help)\n"},
	})
}

// failingWriter fails every write, as stdout on a full disk does.
type failingWriter struct{}

func (failingWriter) Write([]byte) (int, error) { return 0, errors.New("no space left on device") }

// TestEvalTrecListFails: when the list of the files written cannot be
// printed, eval exits 1 saying so; it exited 0 with nothing on stdout.
func TestEvalTrecListFails(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "runs")
	var errb bytes.Buffer
	env := Env{Stdin: strings.NewReader(""), Stdout: failingWriter{}, Stderr: &errb, DemoGraph: demo(t), Getenv: func(string) string { return "" }}
	code := Main(context.Background(), []string{"eval", "--queries", demoQueries, "--retrievers", "ppr", "--format", "trec", "--out", dir}, env)
	if code != ExitRuntime || errb.String() != "memoria: no space left on device\n" {
		t.Errorf("exit %d, stderr %q; want 1 and the write error", code, errb.String())
	}
}

// TestRelTypesKeptAndExcluded: a type both in --rel-types and in
// --exclude-rel-types is refused naming it; nothing of it was traversed
// while the listing of it said otherwise, with exit 0.
func TestRelTypesKeptAndExcluded(t *testing.T) {
	refuses(t, []badInput{
		{[]string{"explore", "--seed", "N2006", "--rel-types", "RELATES", "--exclude-rel-types", "RELATES"}, ExitUsage,
			"memoria: --rel-types and --exclude-rel-types both name \"RELATES\": list it in one\n"},
		{[]string{"eval", "--queries", demoQueries, "--rel-types", "RELATES,M\x1b", "--exclude-rel-types", "M\x1b"}, ExitUsage,
			"memoria: --rel-types and --exclude-rel-types both name \"M\\x1b\": list it in one\n"},
	})
}

// TestGraphIsADirectory: a graph file that is a directory without
// GraphRAG's tables is refused naming it and saying so, with no line
// number: the loader blamed "line 1: read DIR: is a directory", a line the
// directory does not have. load reads APOC files only.
func TestGraphIsADirectory(t *testing.T) {
	dir := t.TempDir()
	refuses(t, []badInput{
		{[]string{"stats", "--graph", dir}, ExitRuntime,
			"memoria: loading " + dir + ": is a directory without GraphRAG's entities.parquet and relationships.parquet, nor an APOC JSON-lines file\n"},
		{[]string{"explore", "--seed", "N2006", "--graph", dir}, ExitRuntime,
			"memoria: loading " + dir + ": is a directory without GraphRAG's entities.parquet and relationships.parquet, nor an APOC JSON-lines file\n"},
		{[]string{"load", dir, "--uri", "bolt://127.0.0.1:1"}, ExitRuntime,
			"memoria: " + dir + ": nothing loaded: is a directory, not an APOC JSON-lines file\n"},
	})
}
