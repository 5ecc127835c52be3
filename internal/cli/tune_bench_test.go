package cli

import (
	"context"
	"io"
	"os"
	"testing"
)

// BenchmarkTuneVsSweep is `memoria tune` against `memoria sweep --queries`
// over the same grid of the demo query set (8 queries), both whole
// commands in process, in one run so that their ratio is of one machine
// state: ppr's damping (its default grid, 9 points) and Activation
// Energy's min-activation (25 log points and the current value). Tune runs
// every setting over every query once and only chooses among the figures
// for its 5 folds, so the target is tune ≤ 1.1 × sweep (issue 34;
// docs/PERFORMANCE.md).
func BenchmarkTuneVsSweep(b *testing.B) {
	graph, err := os.ReadFile("../../testdata/demo.jsonl")
	if err != nil {
		b.Fatal(err)
	}
	env := Env{Stdout: io.Discard, Stderr: io.Discard, DemoGraph: graph, Getenv: func(string) string { return "" }}
	for _, grid := range [][]string{{"--retriever", "ppr", "--param", "damping"}, {"--param", "min-activation"}} {
		for _, cmd := range []string{"sweep", "tune"} {
			args := append([]string{cmd, "--queries", demoQueries}, grid...)
			b.Run(cmd+"-"+grid[len(grid)-1], func(b *testing.B) {
				for b.Loop() {
					if code := Main(context.Background(), args, env); code != 0 {
						b.Fatalf("exit %d", code)
					}
				}
			})
		}
	}
}
