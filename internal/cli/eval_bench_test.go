package cli

import (
	"context"
	"io"
	"os"
	"testing"
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
