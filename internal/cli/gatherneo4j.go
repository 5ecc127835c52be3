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

func (s *neo4jSearcher) Named(ctx context.Context, prefixes []string, limit int) ([]gather.Named, bool, error) {
	if err := clauses(s.f.Names, prefixes); err != nil {
		return nil, false, err
	}
	hits, cut, err := s.src.QueryFulltext(ctx, s.index, neo4jdb.TermsQuery(s.f.Names, prefixes, true), s.f.Names, limit)
	if err != nil {
		return nil, false, err
	}
	out := make([]gather.Named, len(hits))
	for i, h := range hits {
		out[i].ID = h.ID
		for _, v := range h.Props {
			out[i].Names = append(out[i].Names, propStrings(v)...)
		}
	}
	return out, cut, nil
}

func (s *neo4jSearcher) BM25(ctx context.Context, words []string, limit int) ([]gather.Hit, bool, error) {
	if err := clauses(s.fields, words); err != nil {
		return nil, false, err
	}
	hits, cut, err := s.src.QueryFulltext(ctx, s.index, neo4jdb.TermsQuery(s.fields, words, false), nil, limit)
	if err != nil {
		return nil, false, err
	}
	out := make([]gather.Hit, len(hits))
	for i, h := range hits {
		out[i] = gather.Hit{ID: h.ID, Raw: h.Score}
	}
	return out, cut, nil
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

// propStrings are a property's strings: a string, or a list's strings.
func propStrings(v any) []string {
	switch x := v.(type) {
	case string:
		return []string{x}
	case []any:
		var out []string
		for _, e := range x {
			if s, ok := e.(string); ok {
				out = append(out, s)
			}
		}
		return out
	}
	return nil
}
