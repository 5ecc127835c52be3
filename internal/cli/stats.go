package cli

import (
	"context"
	"encoding/json"
	"fmt"

	"github.com/memoria-graph/memoria/graph"
	"github.com/memoria-graph/memoria/internal/textsafe"
	"github.com/memoria-graph/memoria/render"
)

const statsUsage = `Usage: memoria stats [source flags] [--format text|json] [--sample N] [--sample-seed S]

Prints the graph's metrics (docs/CLI.md, "memoria stats"): nodes,
relationships by type, the RELATES degree's average, nearest-rank
percentiles (p50, p90, p99) and maximum, the distinct tags, the average
local clustering coefficient and the hubs (degree ≥ p99, when p99 is above
the median). A self-loop counts once in a degree, parallel relationships
each; the clustering treats the graph as simple (parallel relationships one
link, self-loops ignored).

On the embedded engine (the demo graph, --graph) everything is exact. On
Neo4j the counts, percentiles and hubs are exact aggregations; the
clustering is computed over a seeded random sample of --sample nodes of
degree ≥ 2 (exact when there are no more than that), and the output says so.

Formats:
  text  one figure a line
  json  graph.Metrics: {"nodes","relationships","relationships_by_type",
        "relates","relates_self_loops","average_degree","degree":{"p50",
        "p90","p99","max"},"degree_histogram","distinct_tags","clustering",
        "hub_degree","hubs","hub_nodes"}

Flags:
`

func runStats(ctx context.Context, args []string, env Env) error {
	fs := newFlagSet(env, "stats", statsUsage)
	var src sourceFlags
	src.register(fs)
	format := fs.String("format", "text", "output `format`: text or json")
	sample := fs.Int("sample", graph.DefaultSample, "Neo4j: the clustering's sample `N` of nodes")
	seed := fs.Uint64("sample-seed", graph.DefaultSeed, "Neo4j: the `seed` that draws the sample")
	if err := parse(fs, env, args); err != nil {
		return err
	}
	if fs.NArg() > 0 {
		return usagef("stats: unexpected argument %q (the file goes in --graph)", fs.Arg(0))
	}
	if *format != "text" && *format != "json" {
		return usagef("stats: unknown --format %q (want text or json)", *format)
	}
	if *sample < 1 {
		return usagef("stats: --sample must be at least 1, got %d", *sample)
	}
	source, err := src.open(ctx, env)
	if err != nil {
		return err
	}
	defer source.Close(context.WithoutCancel(ctx))
	mr, ok := source.(graph.MetricsReader)
	if !ok {
		return fmt.Errorf("stats: %s cannot compute metrics", source.Describe())
	}
	m, err := mr.Metrics(ctx, graph.MetricsOptions{Sample: *sample, Seed: *seed})
	if err != nil {
		return fmt.Errorf("stats of %s: %w", source.Describe(), err)
	}
	if *format == "json" {
		enc := json.NewEncoder(textsafe.JSONWriter{W: env.Stdout})
		enc.SetEscapeHTML(false)
		return enc.Encode(m)
	}
	_, err = fmt.Fprintf(env.Stdout, "graph                  %s\n%s", textsafe.Escape(source.Describe()), render.StatsText(m))
	return err
}
