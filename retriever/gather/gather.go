// Package gather is the stage before every retriever (docs/RETRIEVERS.md,
// "Gather"): from the agent's question, as one or several query texts (and
// optionally its embedding), it finds the seed nodes a retriever starts
// from, as a memory system does. Each matcher scores nodes against each
// query in [0, 1]: exact (a name equal to the query), token (the Jaccard of
// their words), fuzzy (1 − Levenshtein / the longer length), bm25 (Lucene's
// BM25 over names and texts, as Neo4j's fulltext index scores it, divided
// by the query's best) and vector (the cosine of the query's embedding and
// a node's, clamped to [0, 1]). The nodes scoring at least Min in each
// (query, matcher) list are fused by Reciprocal Rank Fusion into the
// candidates; a candidate's R is the best score any matcher gave it; the
// first SeedK are the seeds.
//
// The embedded engine's index (Build) is made once from every node
// (graph.NodeScanner): the normal forms of the names and per field the BM25
// postings and lengths. A Neo4j server is read through a Searcher (its
// fulltext index) instead: GatherFrom. Both find the nodes a matcher
// scores by the same rule (Prefixes) and score them with the same code.
package gather

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"maps"
	"math"
	"slices"
	"strings"
	"sync"
	"unicode/utf8"

	"github.com/memoria-graph/memoria/graph"
	"github.com/memoria-graph/memoria/retriever"
)

// Fields names the node properties the matchers read: Names are short
// names (every matcher), Texts long texts (bm25 only), Embedding the
// property holding a node's embedding (vector). A property a node lacks is
// skipped; a list of strings is several names (each matcher takes the
// best), and one text for bm25.
type Fields struct {
	Names     []string
	Texts     []string
	Embedding string
}

// Preset is the fields of a schema (docs/RETRIEVERS.md, "Other schemas"):
// memoria's own (name, title / text, description, summary / embedding),
// lightrag (entity_id / description), graphiti (name / summary /
// name_embedding), graphrag (title / description); ok is false for
// another name.
func Preset(schema string) (Fields, bool) {
	switch schema {
	case "", "memoria":
		return Fields{Names: []string{"name", "title"}, Texts: []string{"text", "description", "summary"}, Embedding: "embedding"}, true
	case "lightrag":
		return Fields{Names: []string{"entity_id"}, Texts: []string{"description"}}, true
	case "graphiti":
		return Fields{Names: []string{"name"}, Texts: []string{"summary"}, Embedding: "name_embedding"}, true
	case "graphrag":
		return Fields{Names: []string{"title"}, Texts: []string{"description"}}, true
	}
	return Fields{}, false
}

// The matchers.
const (
	Exact  = "exact"
	Token  = "token"
	Fuzzy  = "fuzzy"
	BM25   = "bm25"
	Vector = "vector"
)

// Matchers are every matcher, in the order lists are made and shown.
var Matchers = []string{Exact, Token, Fuzzy, BM25, Vector}

// DefaultMatchers are exact, token and bm25 (vector is added when a
// query vector is given).
var DefaultMatchers = []string{Exact, Token, BM25}

// BM25's constants, Lucene's defaults (and so Neo4j's fulltext index's).
const (
	K1 = 1.2
	B  = 0.75
)

// field is one property's BM25 index: each word's postings, each node's
// length in words (0: it lacks the property), and how many nodes hold it.
type field struct {
	name     string
	postings map[string][]posting
	length   []int32
	holders  int
	total    int64
}

type posting struct {
	node int32
	freq int32
}

// Index is what the matchers read of a graph, built once (Build).
type Index struct {
	fields Fields
	ids    []string
	// names are each node's names in normal form; nameToks their words.
	names    [][]string
	nameToks [][][]string
	// bm25 are the fields' BM25 indexes, the name properties first; terms
	// are each name property's words (LuceneWords), sorted, for the
	// name matchers' prefix rule.
	bm25  []*field
	terms [][]string
	emb   [][]float64
	// scratchPool holds per-node score arrays for bm25List.
	scratchPool sync.Pool
}

// Build reads every node of g once and indexes the properties f names.
func Build(ctx context.Context, g graph.NodeScanner, f Fields) (*Index, error) {
	ix := &Index{fields: f}
	for _, p := range append(slices.Clone(f.Names), f.Texts...) {
		ix.bm25 = append(ix.bm25, &field{name: p, postings: map[string][]posting{}})
	}
	err := g.EachNode(ctx, func(n graph.Node) error {
		u := int32(len(ix.ids))
		ix.ids = append(ix.ids, n.ID)
		var raw []string
		for _, p := range f.Names {
			raw = append(raw, StringsOf(n.Properties[p])...)
		}
		names, toks := nameForms(raw)
		ix.names, ix.nameToks = append(ix.names, names), append(ix.nameToks, toks)
		for _, fd := range ix.bm25 {
			fd.add(u, n.Properties[fd.name])
		}
		var emb []float64
		if f.Embedding != "" {
			emb = floats(n.Properties[f.Embedding])
		}
		ix.emb = append(ix.emb, emb)
		return nil
	})
	if err != nil {
		return nil, err
	}
	for i, fd := range ix.bm25 {
		for len(fd.length) < len(ix.ids) {
			fd.length = append(fd.length, 0)
		}
		if i < len(f.Names) {
			ix.terms = append(ix.terms, slices.Sorted(maps.Keys(fd.postings)))
		}
	}
	return ix, nil
}

// nameForms are a node's names (the strings of its name properties) in
// normal form, those with no letter or digit left out, and their words.
func nameForms(raw []string) (names []string, toks [][]string) {
	for _, s := range raw {
		if norm := Normalize(s); norm != "" {
			names = append(names, norm)
			toks = append(toks, strings.Split(norm, " "))
		}
	}
	return names, toks
}

// add indexes node u's value of the field: its words, each with its count.
func (fd *field) add(u int32, v any) {
	for len(fd.length) < int(u) {
		fd.length = append(fd.length, 0)
	}
	toks := LuceneWords(strings.Join(StringsOf(v), " "))
	fd.length = append(fd.length, int32(len(toks)))
	if len(toks) == 0 {
		return
	}
	fd.holders++
	fd.total += int64(len(toks))
	freq := map[string]int32{}
	for _, t := range toks {
		freq[t]++
	}
	for _, t := range slices.Sorted(maps.Keys(freq)) {
		fd.postings[t] = append(fd.postings[t], posting{u, freq[t]})
	}
}

// StringsOf is a property's strings: a string, or a list's strings (the
// names and texts the matchers read, on either engine).
func StringsOf(v any) []string {
	switch x := v.(type) {
	case string:
		return []string{x}
	case []string:
		return x
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

// floats is an embedding property as numbers, nil when it is not a list
// of finite numbers.
func floats(v any) []float64 {
	switch x := v.(type) {
	case []float64:
		return x
	case []any:
		out := make([]float64, len(x))
		for i, e := range x {
			f, ok := retriever.Number(e)
			if !ok || math.IsNaN(f) || math.IsInf(f, 0) {
				return nil
			}
			out[i] = f
		}
		return out
	}
	return nil
}

// Options are the gather's settings.
type Options struct {
	// Matchers are the matchers run (DefaultMatchers when nil).
	Matchers []string
	// Min is the least score that puts a node in a (query, matcher) list:
	// 0.5 by default.
	Min float64
	// RRFK is RRF's k: 60 by default.
	RRFK float64
	// SeedK is how many candidates become seeds: 5 by default.
	SeedK int
}

// DefaultOptions are exact, token and bm25, Min 0.5, k 60, 5 seeds.
func DefaultOptions() Options {
	return Options{Matchers: slices.Clone(DefaultMatchers), Min: 0.5, RRFK: 60, SeedK: 5}
}

// Match is one matcher's score of a candidate for one query (Query: its
// index in the queries), the RRF term its place in that list brought, and
// for bm25 the raw score before it was divided by the query's best.
type Match struct {
	Query   int
	Matcher string
	Score   float64
	Raw     float64
	Rank    int
	Term    float64
}

// Candidate is one node the gather found.
type Candidate struct {
	NodeID string
	Rank   int
	// R is the best score any matcher gave it for any query: its seed
	// score.
	R float64
	// RRF is its fused score, Σ 1/(k + rank) over the lists it is in.
	RRF     float64
	Seed    bool
	Matches []Match
}

// Result is a gather: the queries, the candidates best first, and how
// many nodes the vector matcher could not score (no embedding, or one of
// another dimension).
type Result struct {
	Queries    []string
	Candidates []Candidate
	NoVector   int
	// Notices say how the lists were read where that is not the
	// embedded engine's exact way (Neo4j: an approximate vector index, an
	// exact cosine over every node, a list cut at MaxCandidates).
	Notices []string
	// Tags are the graph's tags --tags auto picks for the queries
	// (AutoTags), when the caller asked (memoria gather fills them in).
	Tags []string
}

// Seeds are the candidates that became seeds, with their R.
func (r Result) Seeds() []retriever.Seed {
	var out []retriever.Seed
	for _, c := range r.Candidates {
		if c.Seed {
			out = append(out, retriever.Seed{NodeID: c.NodeID, Score: c.R})
		}
	}
	return out
}

// Gather finds the candidates and seeds of queries (and vector, when not
// nil) with opt.
func (ix *Index) Gather(ctx context.Context, queries []string, vector []float64, opt Options) (Result, error) {
	return gatherOn(ctx, ix, queries, vector, opt)
}

// lister is what the gather reads: the embedded Index, or a Searcher's
// (remote). list is matcher m's list for query q: the nodes scoring at
// least min, by score then id (noVec counts, for the vector matcher, the
// nodes it could not score); c holds what the lists of one query share.
type lister interface {
	list(ctx context.Context, c *perQuery, m, q string, vector []float64, minScore float64) (out []entry, noVec int, err error)
	id(u int32) string
}

// perQuery is what the lists of one query share: the nodes the name
// matchers score (read once for exact, token and fuzzy).
type perQuery struct {
	named     []int32
	namedRead bool
	notices   []string
	// whole keeps every list whole (Scores: a node's place in the list
	// as far as it goes), not cut at MaxCandidates.
	whole bool
	// matchers are the gather's (a Searcher reads the text matchers'
	// nodes of a query at once); text is that read.
	matchers []string
	text     *TextAnswer
}

// keep is a sorted list cut to its first MaxCandidates nodes (unless
// c.whole), the cut said in c's notices: the same bound on both engines.
func (c *perQuery) keep(m string, out []entry) []entry {
	if c.whole || len(out) <= MaxCandidates {
		return out
	}
	n := fmt.Sprintf("%s: %d nodes made the list; it keeps the first %d (gather.MaxCandidates, retriever/gather/remote.go)", m, len(out), MaxCandidates)
	if !slices.Contains(c.notices, n) {
		c.notices = append(c.notices, n)
	}
	return out[:MaxCandidates]
}

// MaxQueryWords is the most distinct words a query may have, on both
// engines (docs/RETRIEVERS.md, "Gather"): each is a clause of the
// fulltext query on Neo4j, where Lucene takes at most 1,024 clauses over
// all the fields.
const MaxQueryWords = 64

// checkQueries refuses no query, a query with no letter or digit and one
// of more than MaxQueryWords distinct words.
func checkQueries(queries []string) error {
	if len(queries) == 0 {
		return errors.New("no query: give at least one")
	}
	for i, q := range queries {
		if Normalize(q) == "" {
			return fmt.Errorf("query %d has no letter or digit to match", i+1)
		}
		n := max(len(distinct(Tokens(q))), len(distinct(LuceneWords(q))))
		if n > MaxQueryWords {
			return fmt.Errorf("query %d has %d distinct words; a query may have at most %d (gather.MaxQueryWords, retriever/gather/gather.go)", i+1, n, MaxQueryWords)
		}
	}
	return nil
}

func distinct(ws []string) []string { return slices.Compact(slices.Sorted(slices.Values(ws))) }

// Check refuses what no graph could gather: opt's bad settings, the
// vector matcher without a vector, no query, a query with no letter or
// digit and one of more than MaxQueryWords distinct words.
func Check(queries []string, vector []float64, opt Options) error {
	if err := opt.check(vector); err != nil {
		return err
	}
	return checkQueries(queries)
}

func gatherOn(ctx context.Context, l lister, queries []string, vector []float64, opt Options) (Result, error) {
	if err := Check(queries, vector, opt); err != nil {
		return Result{}, err
	}
	res := Result{Queries: slices.Clone(queries)}
	fused := map[int32]*Candidate{}
	for qi, q := range queries {
		c := &perQuery{matchers: opt.Matchers}
		for _, m := range opt.Matchers {
			if err := ctx.Err(); err != nil {
				return Result{}, err
			}
			list, noVec, err := l.list(ctx, c, m, q, vector, opt.Min)
			if err != nil {
				return Result{}, err
			}
			if m == Vector && qi == 0 {
				res.NoVector = noVec
			}
			for rank, e := range list {
				c := fused[e.node]
				if c == nil {
					c = &Candidate{NodeID: l.id(e.node)}
					fused[e.node] = c
				}
				term := 1 / (opt.RRFK + float64(rank+1))
				c.RRF += term
				c.R = max(c.R, e.score)
				c.Matches = append(c.Matches, Match{Query: qi, Matcher: m, Score: e.score, Raw: e.raw, Rank: rank + 1, Term: term})
			}
		}
		for _, n := range c.notices {
			if !slices.Contains(res.Notices, n) {
				res.Notices = append(res.Notices, n)
			}
		}
	}
	for _, c := range fused {
		res.Candidates = append(res.Candidates, *c)
	}
	slices.SortFunc(res.Candidates, func(a, b Candidate) int { return retriever.Compare(a.RRF, a.NodeID, b.RRF, b.NodeID) })
	for i := range res.Candidates {
		res.Candidates[i].Rank = i + 1
		res.Candidates[i].Seed = i < opt.SeedK
	}
	return res, nil
}

func (o Options) check(vector []float64) error {
	var errs []error
	for _, m := range o.Matchers {
		if !slices.Contains(Matchers, m) {
			errs = append(errs, fmt.Errorf("unknown matcher %q (want %s)", m, strings.Join(Matchers, ", ")))
		}
		if m == Vector && vector == nil {
			errs = append(errs, errors.New("the vector matcher needs the query's vector"))
		}
	}
	if math.IsNaN(o.Min) || o.Min <= 0 || o.Min > 1 {
		errs = append(errs, fmt.Errorf("gather min must be in (0, 1], got %v", o.Min))
	}
	if math.IsNaN(o.RRFK) || math.IsInf(o.RRFK, 0) || o.RRFK < 0 {
		errs = append(errs, fmt.Errorf("gather rrf k must be a finite number of at least 0, got %v", o.RRFK))
	}
	if o.SeedK < 1 {
		errs = append(errs, fmt.Errorf("seed k must be at least 1, got %d", o.SeedK))
	}
	return errors.Join(errs...)
}

// entry is one node of a (query, matcher) list.
type entry struct {
	node       int32
	score, raw float64
}

func (ix *Index) id(u int32) string { return ix.ids[u] }

// PrefixLen is how many leading runes of a query word the name matchers'
// rule compares (Prefixes).
const PrefixLen = 3

// Prefixes are the name matchers' rule (docs/RETRIEVERS.md, "Gather"), the
// same on both engines: exact, token and fuzzy score the nodes holding, in
// a name property, a word (as bm25 splits it: LuceneWords) that begins
// with the first PrefixLen runes of one of the query's words (the whole
// word when it is shorter); the prefixes are distinct and sorted.
func Prefixes(q string) []string {
	var out []string
	for _, w := range Tokens(q) {
		if r := []rune(w); len(r) > PrefixLen {
			w = string(r[:PrefixLen])
		}
		out = append(out, w)
	}
	return distinct(out)
}

// HasPrefixedWord says whether one of names (a node's name strings) holds
// a word that begins with one of prefixes: whether the name matchers score
// the node (Prefixes).
func HasPrefixedWord(names, prefixes []string) bool {
	for _, n := range names {
		for _, w := range LuceneWords(n) {
			for _, p := range prefixes {
				if strings.HasPrefix(w, p) {
					return true
				}
			}
		}
	}
	return false
}

// named are the nodes the name matchers score for query q (Prefixes),
// sorted.
func (ix *Index) named(q string) []int32 {
	var out []int32
	for i, terms := range ix.terms {
		fd := ix.bm25[i]
		for _, p := range Prefixes(q) {
			j, _ := slices.BinarySearch(terms, p)
			for ; j < len(terms) && strings.HasPrefix(terms[j], p); j++ {
				for _, ps := range fd.postings[terms[j]] {
					out = append(out, ps.node)
				}
			}
		}
	}
	slices.Sort(out)
	return slices.Compact(out)
}

// nameScore is name matcher m's score of a node's names (normal forms,
// and their words) for the query's normal form and words: exact 1 when
// one equals it, token the best Jaccard, fuzzy the best 1 − Levenshtein /
// the longer length (a name whose length alone keeps it below minScore
// is not compared).
func nameScore(m, norm string, qt []string, names []string, toks [][]string, minScore float64) float64 {
	best := 0.0
	ql := utf8.RuneCountInString(norm)
	for i, n := range names {
		switch m {
		case Exact:
			if n == norm {
				return 1
			}
		case Token:
			best = max(best, Jaccard(qt, toks[i]))
		case Fuzzy:
			nl := utf8.RuneCountInString(n)
			// 1 − d/max ≥ min needs |ql − nl| ≤ d ≤ (1 − min) × max.
			if float64(abs(ql-nl)) > (1-minScore)*float64(max(ql, nl)) {
				continue
			}
			best = max(best, FuzzyScore(norm, n))
		}
	}
	return best
}

// list is matcher m's list for query q on the embedded index.
func (ix *Index) list(_ context.Context, c *perQuery, m, q string, vector []float64, minScore float64) (out []entry, noVec int, _ error) {
	norm := Normalize(q)
	qt := strings.Split(norm, " ")
	switch m {
	case Exact, Token, Fuzzy:
		if !c.namedRead {
			c.named, c.namedRead = ix.named(q), true
		}
		for _, u := range c.named {
			if s := nameScore(m, norm, qt, ix.names[u], ix.nameToks[u], minScore); s > 0 {
				out = append(out, entry{node: u, score: s})
			}
		}
	case BM25:
		out = ix.bm25List(LuceneWords(q), minScore)
	case Vector:
		for u, e := range ix.emb {
			s, ok := vectorScore(vector, e)
			if !ok {
				noVec++
				continue
			}
			out = append(out, entry{node: int32(u), score: s})
		}
	}
	return c.keep(m, ix.sorted(out, minScore)), noVec, nil
}

// vectorScore is the cosine of the query vector and a node's embedding,
// clamped to [0, 1]; ok is false when the node has none of that dimension.
func vectorScore(vector, e []float64) (float64, bool) {
	if len(e) != len(vector) {
		return 0, false
	}
	c, ok := retriever.Cosine(vector, e)
	if !ok {
		return 0, false
	}
	return max(0, min(1, c)), true
}

// sorted keeps the entries scoring at least minScore, by score then id.
func (ix *Index) sorted(out []entry, minScore float64) []entry {
	out = slices.DeleteFunc(out, func(e entry) bool { return e.score < minScore })
	slices.SortFunc(out, func(a, b entry) int { return retriever.Compare(a.score, ix.ids[a.node], b.score, ix.ids[b.node]) })
	return out
}

func abs(x int) int { return max(x, -x) }

// bm25List scores the nodes holding a query word, Lucene's BM25 summed
// over fields and distinct query words (each node's length as Lucene
// stores it: LuceneLength), then divides by the best; a node that cannot
// reach minScore × the best is left out unscored. The (field, word) terms
// go by idf, largest first (a term adds at most its idf: BM25's tf part
// is below 1); once the idfs left add up to less than minScore × the best
// score so far, no node not met yet can make the list, and the terms left
// only complete the scores of the nodes met (a binary search of each in
// the term's postings, which are in node order): the list is exactly the
// one of scoring every node (MaxScore, Turtle and Flood 1995).
func (ix *Index) bm25List(qt []string, minScore float64) []entry {
	type term struct {
		fd         *field
		ps         []posting
		idf, avgdl float64
	}
	var terms []term
	for _, fd := range ix.bm25 {
		if fd.holders == 0 {
			continue
		}
		avgdl := float64(fd.total) / float64(fd.holders)
		for _, t := range distinct(qt) {
			if ps := fd.postings[t]; len(ps) > 0 {
				terms = append(terms, term{fd, ps, IDF(fd.holders, len(ps)), avgdl})
			}
		}
	}
	slices.SortStableFunc(terms, func(a, b term) int { return cmp.Compare(b.idf, a.idf) })
	rest := make([]float64, len(terms)+1) // rest[i]: the idfs of terms i…
	for i := len(terms) - 1; i >= 0; i-- {
		rest[i] = rest[i+1] + terms[i].idf
	}
	accp := ix.scratch()
	defer ix.scratchPool.Put(accp)
	acc := *accp
	var met []int32
	best := 0.0
	i := 0
	for ; i < len(terms) && !(best > 0 && rest[i] < minScore*best); i++ {
		tm := terms[i]
		for _, p := range tm.ps {
			if acc[p.node] == 0 {
				met = append(met, p.node)
			}
			acc[p.node] += tm.idf * TF(float64(p.freq), float64(LuceneLength(int(tm.fd.length[p.node]))), tm.avgdl)
			best = max(best, acc[p.node])
		}
	}
	for ; i < len(terms); i++ {
		tm := terms[i]
		for _, u := range met {
			if j, ok := slices.BinarySearchFunc(tm.ps, u, func(p posting, u int32) int { return cmp.Compare(p.node, u) }); ok {
				acc[u] += tm.idf * TF(float64(tm.ps[j].freq), float64(LuceneLength(int(tm.fd.length[u]))), tm.avgdl)
				best = max(best, acc[u])
			}
		}
	}
	out := make([]entry, 0, len(met))
	for _, u := range met {
		if s := acc[u]; best > 0 && s >= minScore*best {
			out = append(out, entry{node: u, score: s / best, raw: s})
		}
		acc[u] = 0
	}
	return out
}

// scratch is a zeroed score per node, from the index's pool (put it back
// zeroed).
func (ix *Index) scratch() *[]float64 {
	if v, ok := ix.scratchPool.Get().(*[]float64); ok {
		return v
	}
	v := make([]float64, len(ix.ids))
	return &v
}

// IDF is Lucene's BM25 idf of a word n of the N nodes holding a field
// have: ln(1 + (N − n + 0.5) / (n + 0.5)).
func IDF(N, n int) float64 { return math.Log(1 + (float64(N)-float64(n)+0.5)/(float64(n)+0.5)) }

// TF is Lucene's BM25 term part: freq / (freq + k1 × (1 − b + b × dl /
// avgdl)).
func TF(freq, dl, avgdl float64) float64 { return freq / (freq + K1*(1-B+B*dl/avgdl)) }

// AutoTags are the tags (of the graph's, in their order) whose words occur
// in some query as a contiguous run of its words (docs/RETRIEVERS.md,
// "Gather"): "how much safety stock" takes safety_stock; words are the
// normal form's (so _, - and spaces all split them).
func AutoTags(tags, queries []string) []string {
	var qs [][]string
	for _, q := range queries {
		qs = append(qs, Tokens(q))
	}
	var out []string
	for _, t := range tags {
		tt := Tokens(t)
		if len(tt) == 0 {
			continue
		}
		for _, q := range qs {
			if containsRun(q, tt) {
				out = append(out, t)
				break
			}
		}
	}
	return out
}

// containsRun says whether run occurs in words as a contiguous run.
func containsRun(words, run []string) bool {
	for i := 0; i+len(run) <= len(words); i++ {
		if slices.Equal(words[i:i+len(run)], run) {
			return true
		}
	}
	return false
}

// NodeScore is one matcher's score of one node for one query, whether or
// not it made the list: Listed with its rank when it scored at least Min.
type NodeScore struct {
	Query   int
	Matcher string
	Score   float64
	Listed  bool
	Rank    int
}

// Scores are every matcher's score of node id for each query, listed or
// not (the why-not of the gather: was a node found, and how near it came);
// ok is false when no node has the id.
func (ix *Index) Scores(id string, queries []string, vector []float64, opt Options) (out []NodeScore, ok bool) {
	if !slices.Contains(ix.ids, id) {
		return nil, false
	}
	out, _ = scoresOn(context.Background(), ix, id, queries, vector, opt)
	return out, true
}

// scoresOn are Scores on any lister: a node no list holds scores 0.
func scoresOn(ctx context.Context, l lister, id string, queries []string, vector []float64, opt Options) (out []NodeScore, err error) {
	for qi, q := range queries {
		if Normalize(q) == "" {
			continue
		}
		c := &perQuery{whole: true, matchers: opt.Matchers}
		for _, m := range opt.Matchers {
			list, _, err := l.list(ctx, c, m, q, vector, math.SmallestNonzeroFloat64)
			if err != nil {
				return nil, err
			}
			s := NodeScore{Query: qi, Matcher: m}
			rank := 0
			for _, e := range list {
				if e.score >= opt.Min {
					rank++
				}
				if l.id(e.node) == id {
					s.Score = e.score
					if e.score >= opt.Min {
						s.Listed, s.Rank = true, rank
					}
					break
				}
			}
			out = append(out, s)
		}
	}
	return out, nil
}
