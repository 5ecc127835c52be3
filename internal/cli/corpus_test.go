package cli

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/memoria-graph/memoria/testkit/golden"
	"github.com/memoria-graph/memoria/testkit/randgraph"
)

// corpusRetrievers are the retrievers the command corpus runs, written out
// here rather than read from the registry: the corpus pins what each
// command printed before the registry existed.
var corpusRetrievers = []string{"activation", "expansion", "spreading", "ppr", "fusion"}

// corpusCases are the command lines of the golden command corpus: every
// command's help, every retriever in every format explore prints for it,
// compare, eval, the metric sweep of a parameter of each retriever, why
// --retriever for each, and the refusals that name retrievers and their
// flags. "$GRAPH" stands for a random graph's file (corpusGraph).
func corpusCases() map[string][]string {
	c := map[string][]string{
		"help":              {"help"},
		"compare-text":      {"compare", "--seed", "N2006=0.85", "--tags", "demand_forecasting,stockout", "--retrievers", strings.Join(corpusRetrievers, ",")},
		"compare-json":      {"compare", "--seed", "N2006", "--seed", "N2000=0.6", "--retrievers", "ppr,expansion,fusion", "--format", "json", "--max-hops", "2"},
		"eval-text":         {"eval", "--queries", "../../testdata/demo-queries.jsonl", "--retrievers", strings.Join(corpusRetrievers, ",")},
		"eval-json":         {"eval", "--queries", "../../testdata/demo-queries.jsonl", "--retrievers", "spreading,activation", "--format", "json", "--k", "5,10"},
		"sweep-activation":  {"sweep", "--queries", "../../testdata/demo-queries.jsonl", "--param", "max-branches"},
		"sweep-expansion":   {"sweep", "--queries", "../../testdata/demo-queries.jsonl", "--retriever", "expansion", "--param", "max-hops"},
		"sweep-spreading":   {"sweep", "--queries", "../../testdata/demo-queries.jsonl", "--retriever", "spreading", "--param", "pulses", "--format", "json"},
		"sweep-ppr":         {"sweep", "--queries", "../../testdata/demo-queries.jsonl", "--retriever", "ppr", "--param", "epsilon", "--format", "csv"},
		"sweep-fusion":      {"sweep", "--queries", "../../testdata/demo-queries.jsonl", "--retriever", "fusion", "--param", "rrf-k", "--values", "0,60"},
		"sweep-topk":        {"sweep", "--queries", "../../testdata/demo-queries.jsonl", "--retriever", "ppr", "--param", "top-k", "--values", "1,5"},
		"sweep-badparam":    {"sweep", "--queries", "../../testdata/demo-queries.jsonl", "--retriever", "ppr", "--param", "pulses"},
		"tune-ppr":          {"tune", "--queries", "../../testdata/demo-queries.jsonl", "--retriever", "ppr", "--param", "damping", "--param", "top-k", "--values", "5,20", "--folds", "4"},
		"tune-curve":        {"tune", "--queries", "../../testdata/demo-queries.jsonl", "--retriever", "activation", "--param", "max-branches", "--folds", "4"},
		"tune-fusion":       {"tune", "--queries", "../../testdata/demo-queries.jsonl", "--retriever", "fusion", "--fuse", "ppr,expansion", "--param", "weight:ppr", "--values", "0,2", "--format", "csv"},
		"bad-retriever":     {"explore", "--seed", "N2006", "--retriever", "bm25"},
		"bad-other-flag":    {"explore", "--seed", "N2006", "--retriever", "ppr", "--max-hops", "2"},
		"bad-fuse":          {"explore", "--seed", "N2006", "--retriever", "fusion", "--fuse", "ppr,bogus"},
		"bad-fusion-flag":   {"explore", "--seed", "N2006", "--retriever", "fusion", "--fuse", "ppr", "--pulses", "2"},
		"bad-range":         {"explore", "--seed", "N2006", "--retriever", "spreading", "--decay", "2", "--threshold", "1"},
		"bad-compare":       {"compare", "--seed", "N2006", "--retrievers", "ppr,nope"},
		"random-compare":    {"compare", "--graph", "$GRAPH", "--seed", "N000011=0.95", "--seed", "N000824=0.9", "--retrievers", strings.Join(corpusRetrievers, ","), "--format", "json"},
		"random-spreading":  {"explore", "--graph", "$GRAPH", "--seed", "N000011=0.95", "--retriever", "spreading", "--format", "ranking", "--initial", "score"},
		"random-expansion":  {"explore", "--graph", "$GRAPH", "--seed", "N000011=0.95", "--retriever", "expansion", "--format", "ranking", "--type-weight", "RELATES=0.5"},
		"random-ppr":        {"explore", "--graph", "$GRAPH", "--seed", "N000011=0.95", "--retriever", "ppr", "--format", "tree", "--damping", "0.8"},
		"random-fusion":     {"explore", "--graph", "$GRAPH", "--seed", "N000011=0.95", "--retriever", "fusion", "--format", "ranking", "--fuse", "ppr,spreading", "--rrf-k", "10"},
		"random-activation": {"explore", "--graph", "$GRAPH", "--seed", "N000011=0.95", "--format", "tree"},
		"export-cypher":     {"export", "--format", "cypher"},
		"export-graphml":    {"export", "--graph", "../../testdata/hostile.jsonl", "--format", "graphml"},
		"export-hostile":    {"export", "--graph", "../../testdata/hostile.jsonl", "--format", "cypher"},
	}
	for _, cmd := range []string{"explore", "compare", "eval", "sweep", "tune", "why", "export", "stats", "load", "diff"} {
		c["help-"+cmd] = []string{cmd, "--help"}
	}
	for _, r := range corpusRetrievers {
		formats := []string{"ranking", "tree", "d3", "llm", "cypher", "graphml"}
		if r == "activation" {
			formats = []string{"json", "tree", "llm", "cypher", "check", "ranking"}
		}
		seeds := []string{"--seed", "N2006=0.85", "--seed", "N2013"}
		if r == "activation" {
			seeds = seeds[:2] // its results stream in the order the seeds finish
		}
		for _, f := range formats {
			c["explore-"+r+"-"+f] = append(append([]string{"explore"}, seeds...), "--tags", "demand_forecasting,stockout", "--retriever", r, "--format", f)
		}
		c["why-"+r] = []string{"why", "--seed", "N2006", "--node", "N2017", "--retriever", r, "--top-k", "3"}
		c["why-"+r+"-json"] = []string{"why", "--seed", "N2006", "--node", "T3001", "--retriever", r, "--format", "json"}
	}
	return c
}

// corpusGraph writes the corpus's random graph, Scale's 1,000 nodes and
// 4,000 relationships, and returns its path.
func corpusGraph(t *testing.T) string {
	t.Helper()
	p := filepath.Join(t.TempDir(), "random.jsonl")
	if err := os.WriteFile(p, randgraph.Scale(1000, 4000, 2, 7), 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

// TestCommandCorpus runs every command line of corpusCases and compares
// what it printed (stdout, stderr with the graph's path replaced, the exit
// code) with testdata/corpus/NAME.txt. It holds the registry's promise that
// moving the retrievers' tables into one place changed no output (run with
// -update to accept a deliberate change, and say why in the commit).
func TestCommandCorpus(t *testing.T) {
	graphPath := corpusGraph(t)
	for name, args := range corpusCases() {
		t.Run(name, func(t *testing.T) {
			args = append([]string(nil), args...)
			for i, a := range args {
				if a == "$GRAPH" {
					args[i] = graphPath
				}
			}
			var out, errb bytes.Buffer
			env := Env{Stdin: strings.NewReader(""), Stdout: &out, Stderr: &errb, DemoGraph: demo(t), Getenv: func(string) string { return "" }}
			code := Main(context.Background(), args, env)
			got := fmt.Sprintf("$ memoria %s\n--- exit %d\n--- stderr\n%s--- stdout\n%s",
				strings.Join(args, " "), code, errb.String(), out.String())
			got = strings.ReplaceAll(got, graphPath, "$GRAPH")
			golden.Check(t, filepath.Join("testdata", "corpus", name+".txt"), got)
		})
	}
}
