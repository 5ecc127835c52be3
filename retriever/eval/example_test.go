package eval_test

import (
	"context"
	"fmt"
	"log"
	"os"

	"github.com/memoria-graph/memoria/graph"
	"github.com/memoria-graph/memoria/graph/inmem"
	"github.com/memoria-graph/memoria/retriever"
	"github.com/memoria-graph/memoria/retriever/eval"
	"github.com/memoria-graph/memoria/retriever/registry"
)

// Example: the library as a Go program uses it, with no CLI: open a graph
// file in the embedded engine, run two retrievers from the registry over a
// labelled query set, and measure them as `memoria eval` does (nDCG@10
// and recall@10 per retriever, each against the first by the paired
// randomization test). The figures are the ones `memoria eval --queries
// testdata/demo-queries.jsonl --retrievers ppr,spreading --k 10` prints.
func Example() {
	g, err := inmem.LoadFile("../../testdata/demo.jsonl")
	if err != nil {
		log.Fatal(err)
	}
	f, err := os.Open("../../testdata/demo-queries.jsonl")
	if err != nil {
		log.Fatal(err)
	}
	defer f.Close()
	queries, err := eval.ParseQueries(f)
	if err != nil {
		log.Fatal(err)
	}
	env := retriever.Env{Neighbourhood: g.Filtered(graph.RelFilter{})}
	names := []string{"ppr", "spreading"}
	outcomes := make([][]eval.Outcome, len(names))
	for i, name := range names {
		spec, _ := registry.Lookup(name)
		for _, q := range queries {
			r, err := spec.Defaults().Run(context.Background(), env, q.Retriever())
			if err != nil {
				log.Fatal(err)
			}
			var ids []string
			for _, h := range r.Hits {
				ids = append(ids, h.NodeID)
			}
			outcomes[i] = append(outcomes[i], eval.Outcome{Ranked: ids})
		}
	}
	report := eval.Evaluate(queries, names, outcomes, []int{10})
	for _, run := range report.Runs {
		fmt.Printf("%s:", run.Retriever)
		for j, m := range report.Metrics {
			if m.Name() == "nDCG@10" || m.Name() == "recall@10" {
				fmt.Printf(" %s %.4f", m.Name(), run.Mean[j])
			}
		}
		fmt.Println()
	}
	// Output:
	// ppr: recall@10 0.8417 nDCG@10 0.6217
	// spreading: recall@10 0.6813 nDCG@10 0.5462
}
