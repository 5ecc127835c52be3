package cli

import (
	"context"
	"fmt"

	"github.com/memoria-graph/memoria/graph/neo4jdb"
	"github.com/memoria-graph/memoria/internal/textsafe"
	"github.com/memoria-graph/memoria/retriever/gather"
)

// neo4jSearcher is the gather's reads on a Neo4j server
// (docs/RETRIEVERS.md, "Gather"): the fulltext index of the name and text
// properties finds the nodes of the name matchers (prefix queries) and
// scores bm25 (term queries); a vector index, else every node's
// embedding, serves the vector matcher.
type neo4jSearcher struct {
	src    *neo4jdb.Source
	f      gather.Fields
	index  string
	fields []string // the name properties, then the text properties
}

// newNeo4jSearcher finds the fulltext index the matchers need: over the
// name properties, and the text properties too when bm25 runs; its absence
// is refused with the statement that creates it.
func newNeo4jSearcher(ctx context.Context, src *neo4jdb.Source, f gather.Fields, matchers []string) (*neo4jSearcher, error) {
	s := &neo4jSearcher{src: src, f: f, fields: append(append([]string{}, f.Names...), f.Texts...)}
	needs := []string{}
	for _, m := range matchers {
		switch m {
		case gather.Exact, gather.Token, gather.Fuzzy:
			needs = appendNew(needs, f.Names...)
		case gather.BM25:
			needs = appendNew(needs, s.fields...)
		}
	}
	if len(needs) == 0 {
		return s, nil
	}
	name, err := src.FulltextIndex(ctx, needs)
	if err != nil {
		return nil, fmt.Errorf("--query: %s", textsafe.EscapeLines(err.Error()))
	}
	s.index = name
	return s, nil
}

func appendNew(to []string, items ...string) []string {
	for _, it := range items {
		found := false
		for _, t := range to {
			found = found || t == it
		}
		if !found {
			to = append(to, it)
		}
	}
	return to
}

// clauses refuses a query of more clauses than Lucene takes.
func clauses(fields, terms []string) error {
	if n := len(fields) * len(terms); n > neo4jdb.MaxClauses {
		return usagef("--query: %d fields × %d words make %d clauses of the fulltext query; Lucene takes at most %d (neo4jdb.MaxClauses, graph/neo4jdb/fulltext.go): fewer properties or words",
			len(fields), len(terms), n, neo4jdb.MaxClauses)
	}
	return nil
}

// firstBM25Rows is how many hits the first bm25 read asks for: most
// queries' lists end within them, and the rows sent are most of a read's
// cost.
const firstBM25Rows = 64

// Text reads the name matchers' nodes (prefix queries on the name
// properties) and bm25's hits (term queries on every property) in one
// statement. bm25 asks for the index's best firstBM25Rows hits, then four
// times as many each time the last one read still scores at least Ratio ×
// the best (the hits come best first, so the nodes scoring that much are
// all read once one scores less), up to Limit.
func (s *neo4jSearcher) Text(ctx context.Context, req gather.TextRequest) (gather.TextAnswer, error) {
	var qs []neo4jdb.FulltextQuery
	var ans gather.TextAnswer
	named, bm25 := -1, -1
	if req.Prefixes != nil {
		if err := clauses(s.f.Names, req.Prefixes); err != nil {
			return ans, err
		}
		named = len(qs)
		qs = append(qs, neo4jdb.FulltextQuery{Q: neo4jdb.TermsQuery(s.f.Names, req.Prefixes, true), Props: s.f.Names, Limit: req.Limit})
	}
	rows := min(firstBM25Rows, req.Limit)
	if req.Words != nil {
		if err := clauses(s.fields, req.Words); err != nil {
			return ans, err
		}
		bm25 = len(qs)
		qs = append(qs, neo4jdb.FulltextQuery{Q: neo4jdb.TermsQuery(s.fields, req.Words, false), Limit: rows})
	}
	if len(qs) == 0 {
		return ans, nil
	}
	res, err := s.src.QueryFulltextAll(ctx, s.index, qs)
	if err != nil {
		return ans, err
	}
	if named >= 0 {
		ans.NamedCut = res[named].Cut
		for _, h := range res[named].Hits {
			n := gather.Named{ID: h.ID}
			for _, v := range h.Props {
				n.Names = append(n.Names, gather.StringsOf(v)...)
			}
			ans.Named = append(ans.Named, n)
		}
	}
	if bm25 >= 0 {
		hits, cut := res[bm25].Hits, res[bm25].Cut
		for cut && hits[len(hits)-1].Score >= req.Ratio*hits[0].Score && rows < req.Limit {
			rows = min(4*rows, req.Limit)
			if hits, cut, err = s.src.QueryFulltext(ctx, s.index, qs[bm25].Q, nil, rows); err != nil {
				return ans, err
			}
		}
		ans.HitsCut = cut && hits[len(hits)-1].Score >= req.Ratio*hits[0].Score
		for _, h := range hits {
			ans.Hits = append(ans.Hits, gather.Hit{ID: h.ID, Raw: h.Score})
		}
	}
	return ans, nil
}

func (s *neo4jSearcher) Vectors(ctx context.Context, vector []float64, limit int) ([]gather.Embedded, int, string, error) {
	prop := s.f.Embedding
	if prop == "" {
		return nil, 0, "", usagef("--query-vector: no --embedding-property to compare it with")
	}
	index, err := s.src.VectorIndex(ctx, prop)
	if err != nil {
		return nil, 0, "", err
	}
	var nodes []neo4jdb.EmbeddedNode
	var notice string
	if index != "" {
		nodes, err = s.src.QueryVector(ctx, index, prop, vector, limit)
		notice = fmt.Sprintf("vector: approximate: the %d nodes nearest by the vector index %s (an approximate search), each scored by its exact cosine; nodes without an embedding are not counted",
			limit, textsafe.Quote(index))
	} else {
		nodes, err = s.src.Embeddings(ctx, prop)
		notice = fmt.Sprintf("vector: exact: the cosine of every node's %s, read whole (no vector index with cosine similarity on it)", textsafe.Quote(prop))
	}
	if err != nil {
		return nil, 0, "", err
	}
	out := make([]gather.Embedded, len(nodes))
	for i, n := range nodes {
		out[i] = gather.Embedded{ID: n.ID, Embedding: n.Embedding}
	}
	return out, 0, notice, nil
}
