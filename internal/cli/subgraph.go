package cli

import (
	"bufio"
	"io"

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

// writeRankingSubgraph writes a ranking as format (html or graphml); k
// above 0 marks its hits beyond k as losers (graphml leaves them out).
func writeRankingSubgraph(r retriever.Ranking, k int, format string, out io.Writer) error {
	return writeSubgraph(subgraph.FromRanking(r, k), format, out)
}
