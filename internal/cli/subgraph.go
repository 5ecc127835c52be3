package cli

import (
	"bufio"
	"io"

	"github.com/memoria-graph/memoria/graph"
	"github.com/memoria-graph/memoria/render/subgraph"
	"github.com/memoria-graph/memoria/retriever"
)

// writeSubgraph writes g as format, html (the self-contained page) or
// graphml, whole: nothing is written when it cannot be built.
func writeSubgraph(g subgraph.Graph, format string, out io.Writer) error {
	if format == "graphml" {
		w := bufio.NewWriter(out)
		if err := subgraph.GraphML(w, g); err != nil {
			return err
		}
		return w.Flush()
	}
	b, err := subgraph.HTML(g)
	if err == nil {
		_, err = out.Write(b)
	}
	return err
}

// subgraphRanking runs a ranking retriever for explore --format html or
// graphml, as runRanking does; k above 0 says the run went twice as deep
// as --top-k k (runExplore sets the retrievers' K without a rerank): its
// hits within k are the ranking (the same as a run with K = k: a ranking
// retriever's list is a deeper run's cut), those beyond it the losers,
// drawn dashed.
func subgraphRanking(src graph.Source, f graph.RelFilter, retrieve func(graph.Neighbourhood) (retriever.Ranking, error),
	rr *rerankFlags, k int, format string, out io.Writer) error {
	r, err := rankingOver(src, f, retrieve, rr)
	if err != nil {
		return err
	}
	return writeRankingSubgraph(r, k, format, out)
}

// writeRankingSubgraph writes a ranking as format (html or graphml); k
// above 0 marks its hits beyond k as losers (graphml leaves them out).
func writeRankingSubgraph(r retriever.Ranking, k int, format string, out io.Writer) error {
	return writeSubgraph(subgraph.FromRanking(r, k), format, out)
}
