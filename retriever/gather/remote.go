package gather

import (
	"context"
	"fmt"
	"slices"
	"strings"

	"github.com/memoria-graph/memoria/retriever"
)

// MaxCandidates is the most nodes a (query, matcher) list keeps, by score
// then id, on both engines, and the most a Searcher is asked for per
// query (the name matchers' nodes, bm25's hits, the vector index's
// nearest: on Neo4j the index's best, ties at the cut in the index's
// order): a list cut there says so in Result.Notices.
const MaxCandidates = 2000

// Searcher finds the nodes the matchers score on a graph the gather does
// not index itself (a Neo4j server, through its fulltext and vector
// indexes: docs/RETRIEVERS.md, "Gather"), by the same rules as the
// embedded Index; the gather scores them with the same code.
type Searcher interface {
	// Text answers a query's text matchers in one read (TextRequest).
	Text(ctx context.Context, req TextRequest) (TextAnswer, error)
	// Vectors are the nodes the vector matcher scores, with their
	// embeddings: the nearest limit by a vector index (approximate, the
	// notice saying which), or every node (exact, the notice saying so);
	// noVector counts those read without an embedding.
	Vectors(ctx context.Context, vector []float64, limit int) (nodes []Embedded, noVector int, notice string, err error)
}

// TextRequest asks for a query's name matchers' nodes and bm25's hits.
type TextRequest struct {
	// Prefixes (nil: no name matcher runs): the nodes holding, in a name
	// property, a word that begins with one of them (Prefixes), each with
	// the strings of its name properties.
	Prefixes []string
	// Words (nil: bm25 does not run): the nodes holding one of them
	// (LuceneWords, distinct) in a name or text property, with their raw
	// BM25 score, best first; those scoring below Ratio × the best may be
	// left out (the list drops them).
	Words []string
	Ratio float64
	// Limit is the most nodes of each part.
	Limit int
}

// TextAnswer is a TextRequest's nodes; a part's Cut says the server had
// more than Limit.
type TextAnswer struct {
	Named    []Named
	NamedCut bool
	Hits     []Hit
	HitsCut  bool
}

// Named is a node and the strings of its name properties.
type Named struct {
	ID    string
	Names []string
}

// Hit is a node and its raw BM25 score.
type Hit struct {
	ID  string
	Raw float64
}

// Embedded is a node and its embedding (nil: none).
type Embedded struct {
	ID        string
	Embedding []float64
}

// remote is a gather's lister over a Searcher: the nodes met get numbers
// in the order met.
type remote struct {
	s     Searcher
	ids   []string
	num   map[string]int32
	names map[int32][]string
}

func newRemote(s Searcher) *remote {
	return &remote{s: s, num: map[string]int32{}, names: map[int32][]string{}}
}

// GatherFrom is Gather on a graph read through s.
func GatherFrom(ctx context.Context, s Searcher, queries []string, vector []float64, opt Options) (Result, error) {
	return gatherOn(ctx, newRemote(s), queries, vector, opt)
}

// ScoresFrom are Index.Scores on a graph read through s: a node no list
// holds scores 0.
func ScoresFrom(ctx context.Context, s Searcher, id string, queries []string, vector []float64, opt Options) ([]NodeScore, error) {
	return scoresOn(ctx, newRemote(s), id, queries, vector, opt)
}

func (r *remote) id(u int32) string { return r.ids[u] }

func (r *remote) node(id string) int32 {
	u, ok := r.num[id]
	if !ok {
		u = int32(len(r.ids))
		r.ids = append(r.ids, id)
		r.num[id] = u
	}
	return u
}

// text reads query q's text matchers' nodes once (the first text matcher
// asks): the name matchers' and bm25's, as the gather's matchers want.
func (r *remote) text(ctx context.Context, c *perQuery, q string, minScore float64) (*TextAnswer, error) {
	if c.text != nil {
		return c.text, nil
	}
	req := TextRequest{Ratio: minScore, Limit: MaxCandidates}
	for _, m := range c.matchers {
		switch m {
		case Exact, Token, Fuzzy:
			req.Prefixes = Prefixes(q)
		case BM25:
			req.Words = distinct(LuceneWords(q))
		}
	}
	t, err := r.s.Text(ctx, req)
	if err != nil {
		return nil, err
	}
	c.text = &t
	return c.text, nil
}

func (r *remote) cut(c *perQuery, m string) {
	c.notices = append(c.notices, fmt.Sprintf("%s: the server had more nodes than the %d read (gather.MaxCandidates, retriever/gather/remote.go); the list holds the index's best", m, MaxCandidates))
}

func (r *remote) list(ctx context.Context, c *perQuery, m, q string, vector []float64, minScore float64) (out []entry, noVec int, err error) {
	norm := Normalize(q)
	qt := strings.Split(norm, " ")
	switch m {
	case Exact, Token, Fuzzy:
		t, err := r.text(ctx, c, q, minScore)
		if err != nil {
			return nil, 0, err
		}
		if !c.namedRead {
			if t.NamedCut {
				r.cut(c, "exact, token, fuzzy")
			}
			prefixes := Prefixes(q)
			for _, n := range t.Named {
				// The rule checked here too: the server's words are
				// its own analyzer's, which LuceneWords follows.
				if !HasPrefixedWord(n.Names, prefixes) {
					continue
				}
				u := r.node(n.ID)
				r.names[u] = n.Names
				c.named = append(c.named, u)
			}
			slices.Sort(c.named)
			c.named, c.namedRead = slices.Compact(c.named), true
		}
		for _, u := range c.named {
			names, toks := nameForms(r.names[u])
			if s := nameScore(m, norm, qt, names, toks, minScore); s > 0 {
				out = append(out, entry{node: u, score: s})
			}
		}
	case BM25:
		t, err := r.text(ctx, c, q, minScore)
		if err != nil {
			return nil, 0, err
		}
		if t.HitsCut {
			r.cut(c, BM25)
		}
		best := 0.0
		for _, h := range t.Hits {
			best = max(best, h.Raw)
		}
		for _, h := range t.Hits {
			if best > 0 && h.Raw > 0 {
				out = append(out, entry{node: r.node(h.ID), score: h.Raw / best, raw: h.Raw})
			}
		}
	case Vector:
		nodes, nv, notice, err := r.s.Vectors(ctx, vector, MaxCandidates)
		if err != nil {
			return nil, 0, err
		}
		if notice != "" {
			c.notices = append(c.notices, notice)
		}
		noVec = nv
		for _, n := range nodes {
			s, ok := vectorScore(vector, n.Embedding)
			if !ok {
				noVec++
				continue
			}
			out = append(out, entry{node: r.node(n.ID), score: s})
		}
	}
	out = slices.DeleteFunc(out, func(e entry) bool { return e.score < minScore })
	slices.SortFunc(out, func(a, b entry) int { return retriever.Compare(a.score, r.ids[a.node], b.score, r.ids[b.node]) })
	return c.keep(m, out), noVec, nil
}
