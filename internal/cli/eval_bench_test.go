package cli

import (
	"context"
	"io"
	"os"
	"path/filepath"
	"testing"

	"github.com/memoria-graph/memoria/testkit/randgraph"
)

// BenchmarkEvalDemo is `memoria eval` of the demo query set (8 queries)
// with the four retrievers at their defaults, --k 5,10 and the text
// report, the whole command in process: reading the query set, loading
// the embedded demo graph, 32 rankings, their llm contexts, the metrics,
// 3 × 8 randomization tests of 10,000 permutations each, and the report.
// Target ≤ 50 ms (docs/PERFORMANCE.md).
func BenchmarkEvalDemo(b *testing.B) {
	graph, err := os.ReadFile("../../testdata/demo.jsonl")
	if err != nil {
		b.Fatal(err)
	}
	env := Env{Stdout: io.Discard, Stderr: io.Discard, DemoGraph: graph, Getenv: func(string) string { return "" }}
	args := []string{"eval", "--queries", demoQueries, "--retrievers", "activation,expansion,spreading,ppr"}
	for b.Loop() {
		if code := Main(context.Background(), args, env); code != 0 {
			b.Fatalf("exit %d", code)
		}
	}
}

// BenchmarkEval1M is `memoria eval` of 1,000 queries with the four
// retrievers at their defaults on the 1M-edge scale graph (100,000 nodes,
// the benchmarks' randgraph.Scale), the whole command in process as a
// user runs it, loading the file included: each query 1 to 3 seeds drawn
// at random (R in {1, 0.9, 0.5}) and 5 relevant nodes drawn at random.
// "one-query" is the same command with the first query alone, in the same
// run: the part of the time that does not grow with the queries (reading
// the graph). Target ≤ 20 s embedded (docs/PERFORMANCE.md).
func BenchmarkEval1M(b *testing.B) {
	dir := b.TempDir()
	graph := filepath.Join(dir, "scale.jsonl")
	if err := os.WriteFile(graph, randgraph.Scale(100_000, 1_000_000, 2.5, 1), 0o644); err != nil {
		b.Fatal(err)
	}
	all, one := randgraph.ScaleQueries(1000, 7), randgraph.ScaleQueries(1, 7)
	for _, k := range []struct {
		name string
		data []byte
	}{{"one-query", one}, {"1000", all}} {
		queries := filepath.Join(dir, k.name+".jsonl")
		if err := os.WriteFile(queries, k.data, 0o644); err != nil {
			b.Fatal(err)
		}
		b.Run(k.name, func(b *testing.B) {
			env := Env{Stdout: io.Discard, Stderr: io.Discard, Getenv: func(string) string { return "" }}
			args := []string{"eval", "--graph", graph, "--queries", queries, "--retrievers", "activation,expansion,spreading,ppr"}
			for b.Loop() {
				if code := Main(context.Background(), args, env); code != 0 {
					b.Fatalf("exit %d", code)
				}
			}
		})
	}
}

// BenchmarkMetricSweepDemo is `memoria sweep --queries` of the demo query
// set over MIN_ACTIVATION's default grid (25 log points from 0.0001 to
// 0.1, plus the current 0.005), Activation Energy at its defaults, the
// text chart: the whole command in process. Target ≤ 1 s
// (docs/PERFORMANCE.md).
func BenchmarkMetricSweepDemo(b *testing.B) {
	graph, err := os.ReadFile("../../testdata/demo.jsonl")
	if err != nil {
		b.Fatal(err)
	}
	env := Env{Stdout: io.Discard, Stderr: io.Discard, DemoGraph: graph, Getenv: func(string) string { return "" }}
	args := []string{"sweep", "--queries", demoQueries, "--param", "min-activation"}
	for b.Loop() {
		if code := Main(context.Background(), args, env); code != 0 {
			b.Fatalf("exit %d", code)
		}
	}
}

// BenchmarkEvalGathered1M is `memoria eval` of 1,000 queries × the four
// retrievers on the 1M-edge graph (every node with a text) as a user runs
// it, once with the queries' given seeds and once with the seeds the
// gather stage finds from their questions (randgraph.ScaleTextQueries:
// the same lines with a "query" each), in the same run: the ratio
// gathered/given is issue 32's target (≤ 1.2×; docs/PERFORMANCE.md).
func BenchmarkEvalGathered1M(b *testing.B) {
	dir := b.TempDir()
	graph := filepath.Join(dir, "scale.jsonl")
	if err := os.WriteFile(graph, randgraph.Scale(100_000, 1_000_000, 2.5, 1), 0o644); err != nil {
		b.Fatal(err)
	}
	queries := filepath.Join(dir, "q.jsonl")
	if err := os.WriteFile(queries, randgraph.ScaleTextQueries(1000, 7), 0o644); err != nil {
		b.Fatal(err)
	}
	for _, seeding := range []string{"given", "gathered"} {
		b.Run(seeding, func(b *testing.B) {
			env := Env{Stdout: io.Discard, Stderr: io.Discard, Getenv: func(string) string { return "" }}
			args := []string{"eval", "--graph", graph, "--queries", queries, "--retrievers", "activation,expansion,spreading,ppr", "--seeding", seeding}
			for b.Loop() {
				if code := Main(context.Background(), args, env); code != 0 {
					b.Fatalf("exit %d", code)
				}
			}
		})
	}
}
