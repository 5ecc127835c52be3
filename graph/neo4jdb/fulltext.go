package neo4jdb

import (
	"cmp"
	"context"
	"fmt"
	"math"
	"slices"
	"strings"

	"github.com/neo4j/neo4j-go-driver/v5/neo4j"

	"github.com/memoria-graph/memoria/internal/cypherlit"
)

// The gather stage on Neo4j (docs/RETRIEVERS.md, "Gather") reads the
// fulltext index of the graph's name and text properties
// (db.index.fulltext.queryNodes) and, for the vector matcher, a vector
// index (db.index.vector.queryNodes) when one covers the embedding
// property. Every query runs in a read transaction within the query
// deadline (Read), and asks for a bounded number of rows.

// GatherIndexName is the name of the fulltext index `memoria load` creates
// for memoria's own shape, and the one the refusal's statement creates.
const GatherIndexName = "memoria_gather"

// FulltextAnalyzer is the analyzer the gather's rules follow: Neo4j's
// default, Lucene's StandardTokenizer and lower-casing, no stop words.
const FulltextAnalyzer = "standard-no-stop-words"

// FulltextStatement is the statement that creates the gather's fulltext
// index over labels and props.
func FulltextStatement(labels, props []string) string {
	var b strings.Builder
	b.WriteString("CREATE FULLTEXT INDEX ")
	b.WriteString(cypherlit.QuoteName(GatherIndexName))
	b.WriteString(" IF NOT EXISTS FOR (n:")
	for i, l := range labels {
		if i > 0 {
			b.WriteString("|")
		}
		b.WriteString(cypherlit.QuoteName(l))
	}
	b.WriteString(") ON EACH [")
	for i, p := range props {
		if i > 0 {
			b.WriteString(", ")
		}
		b.WriteString("n." + cypherlit.QuoteName(p))
	}
	b.WriteString("] OPTIONS {indexConfig: {`fulltext.analyzer`: '" + FulltextAnalyzer + "'}}")
	return b.String()
}

// MissingIndexError is the refusal of a gather that needs an index the
// database lacks: Fix is the statement that creates it.
type MissingIndexError struct {
	What string
	Fix  string
}

func (e *MissingIndexError) Error() string {
	return e.What + "; to fix, run: " + e.Fix
}

// gatherLabels are the labels the gather reads: the mapping's label, or
// every label some node has.
func (s *Source) gatherLabels(ctx context.Context) ([]string, error) {
	if m := s.mapping(); m != nil && m.s.NodeLabel != "" {
		return []string{m.s.NodeLabel}, nil
	}
	recs, err := s.Query(ctx, `CALL db.labels() YIELD label RETURN label`, nil)
	if err != nil {
		return nil, err
	}
	var all []string
	for _, r := range recs {
		l, err := Column[string](r, "label")
		if err != nil {
			return nil, err
		}
		all = append(all, l)
	}
	if len(all) == 0 {
		return nil, nil
	}
	// db.labels() keeps a label whose nodes were all deleted: each label's
	// count (the count store's, no scan) says which are in use.
	parts := make([]string, len(all))
	params := map[string]any{}
	for i, l := range all {
		k := fmt.Sprintf("l%d", i)
		params[k] = l
		parts[i] = "MATCH (n:" + cypherlit.QuoteName(l) + ") RETURN $" + k + " AS label, count(n) AS c"
	}
	recs, err = s.Query(ctx, "CALL { "+strings.Join(parts, " UNION ALL ")+" } RETURN label, c", params)
	if err != nil {
		return nil, err
	}
	var out []string
	for _, r := range recs {
		l, c, err := stringCount(r, "label", "c")
		if err != nil {
			return nil, err
		}
		if c > 0 {
			out = append(out, l)
		}
	}
	slices.Sort(out)
	return out, nil
}

const fulltextIndexesQuery = `SHOW FULLTEXT INDEXES YIELD name, entityType, labelsOrTypes, properties, state, options
WHERE entityType = 'NODE' AND state = 'ONLINE'
RETURN name, labelsOrTypes AS labels, properties, options.indexConfig['fulltext.analyzer'] AS analyzer
ORDER BY name`

// FulltextIndex is the name of an online fulltext index with the
// analyzer FulltextAnalyzer over every label the gather reads and every
// property of props; without one, a *MissingIndexError whose Fix creates
// it.
func (s *Source) FulltextIndex(ctx context.Context, props []string) (string, error) {
	labels, err := s.gatherLabels(ctx)
	if err != nil {
		return "", err
	}
	recs, err := s.Query(ctx, fulltextIndexesQuery, nil)
	if err != nil {
		return "", err
	}
	name, taken, err := serving(recs, labels, func(r *neo4j.Record) (bool, error) {
		ps, err := Strings(r, "properties")
		an, _ := r.Get("analyzer")
		return err == nil && an == FulltextAnalyzer && covers(ps, props), err
	})
	if name != "" || err != nil {
		return name, err
	}
	what := fmt.Sprintf("the gather on Neo4j reads a fulltext index (analyzer %s) of the properties %s of %s, and the database has none",
		FulltextAnalyzer, strings.Join(quoted(props), ", "), labelsText(labels))
	fix := FulltextStatement(labels, props)
	if taken {
		fix = "DROP INDEX " + cypherlit.QuoteName(GatherIndexName) + "; " + fix
	}
	return "", &MissingIndexError{What: what, Fix: fix}
}

// serving is the name of the first index of recs (rows of name, labels
// and what fits reads) over every one of labels that fits, "" when none;
// taken says whether one named GatherIndexName is among them (which a new
// index of that name would clash with).
func serving(recs []*neo4j.Record, labels []string, fits func(*neo4j.Record) (bool, error)) (name string, taken bool, err error) {
	for _, r := range recs {
		n, err := Column[string](r, "name")
		if err != nil {
			return "", false, err
		}
		taken = taken || n == GatherIndexName
		ls, err := Strings(r, "labels")
		if err != nil {
			return "", false, err
		}
		ok, err := fits(r)
		if err != nil {
			return "", false, err
		}
		if ok && covers(ls, labels) {
			return n, taken, nil
		}
	}
	return "", taken, nil
}

func labelsText(labels []string) string {
	if len(labels) == 0 {
		return "no label (the database holds no labelled node)"
	}
	return "the labels " + strings.Join(quoted(labels), ", ")
}

// covers says whether have holds every element of want.
func covers(have, want []string) bool {
	for _, w := range want {
		if !slices.Contains(have, w) {
			return false
		}
	}
	return true
}

// luceneSpecial are the characters Lucene's classic query parser reads
// as syntax.
const luceneSpecial = `+-&|!(){}[]^"~*?:\/`

// EscapeLucene is s as one term of Lucene's classic query syntax: a
// backslash before each character the parser reads as syntax and before
// each white space, and before a term the parser would read as an
// operator (AND, OR, NOT). No character of s is syntax.
func EscapeLucene(s string) string {
	var b strings.Builder
	if s == "AND" || s == "OR" || s == "NOT" {
		b.WriteByte('\\')
	}
	for _, r := range s {
		if strings.ContainsRune(luceneSpecial, r) || r == ' ' || r == '\t' || r == '\n' || r == '\r' || r == '\f' || r == '\u3000' {
			b.WriteByte('\\')
		}
		b.WriteRune(r)
	}
	return b.String()
}

// TermsQuery is the Lucene query of every field and term: field:"term"
// each (prefix: field:term*, a prefix query), joined by spaces (the
// default OR), every field and term escaped (EscapeLucene): the terms
// are data, never syntax.
func TermsQuery(fields, terms []string, prefix bool) string {
	var parts []string
	for _, f := range fields {
		for _, t := range terms {
			if prefix {
				parts = append(parts, EscapeLucene(f)+":"+EscapeLucene(t)+"*")
			} else {
				parts = append(parts, EscapeLucene(f)+`:"`+EscapeLucene(t)+`"`)
			}
		}
	}
	return strings.Join(parts, " ")
}

// MaxClauses is Lucene's default limit on a query's clauses, which the
// server applies to the fields × terms of TermsQuery.
const MaxClauses = 1024

// FulltextHit is one node a fulltext query found: its id, the values of
// the properties asked for, and its score.
type FulltextHit struct {
	ID    string
	Props []any
	Score float64
}

// FulltextQuery is one Lucene query (built from escaped terms: TermsQuery)
// on a fulltext index, the node properties to return with each hit, and
// the most hits wanted.
type FulltextQuery struct {
	Q     string
	Props []string
	Limit int
}

// FulltextAnswer is a FulltextQuery's hits, best first, and whether the
// index had more than Limit.
type FulltextAnswer struct {
	Hits []FulltextHit
	Cut  bool
}

// QueryFulltext runs the Lucene query q on the fulltext index, at most
// limit hits (cut: the index had more), each node's id, props' values and
// score, best first; the nodes outside the mapped graph are left out.
func (s *Source) QueryFulltext(ctx context.Context, index, q string, props []string, limit int) (hits []FulltextHit, cut bool, err error) {
	ans, err := s.QueryFulltextAll(ctx, index, []FulltextQuery{{Q: q, Props: props, Limit: limit}})
	if err != nil {
		return nil, false, err
	}
	return ans[0].Hits, ans[0].Cut, nil
}

// QueryFulltextAll runs the queries on the fulltext index as one
// statement (UNION ALL: one round trip, one read transaction), each
// answered as QueryFulltext answers.
func (s *Source) QueryFulltextAll(ctx context.Context, index string, qs []FulltextQuery) ([]FulltextAnswer, error) {
	params := map[string]any{"index": index}
	id, where := s.gatherID("node", params)
	parts := make([]string, len(qs))
	for i, q := range qs {
		k := fmt.Sprint(i)
		params["q"+k], params["limit"+k], params["props"+k] = q.Q, q.Limit+1, q.Props
		parts[i] = "CALL db.index.fulltext.queryNodes($index, $q" + k + ", {limit: $limit" + k + "}) YIELD node, score\n" +
			"WHERE " + where + "\nRETURN " + k + " AS k, " + id + " AS id, [p IN $props" + k + " | node[p]] AS props, score"
	}
	query := strings.Join(parts, "\nUNION ALL\n")
	recs, err := Read(ctx, s, func(ctx context.Context, tx neo4j.ManagedTransaction) ([]*neo4j.Record, error) {
		return collect(ctx, tx, query, params)
	})
	if err != nil {
		return nil, err
	}
	out := make([]FulltextAnswer, len(qs))
	for _, r := range recs {
		k, err := Column[int64](r, "k")
		if err != nil {
			return nil, err
		}
		if k < 0 || int(k) >= len(qs) {
			return nil, fmt.Errorf("a fulltext hit of query %d of %d", k, len(qs))
		}
		var h FulltextHit
		if h.ID, err = Column[string](r, "id"); err != nil {
			return nil, err
		}
		if h.Props, err = Column[[]any](r, "props"); err != nil {
			return nil, err
		}
		if h.Score, err = Column[float64](r, "score"); err != nil {
			return nil, err
		}
		out[k].Hits = append(out[k].Hits, h)
	}
	for i, q := range qs {
		slices.SortStableFunc(out[i].Hits, func(a, b FulltextHit) int { return cmp.Compare(b.Score, a.Score) })
		if len(out[i].Hits) > q.Limit {
			out[i].Hits, out[i].Cut = out[i].Hits[:q.Limit], true
		}
	}
	return out, nil
}

// gatherID is the id expression of node variable v and the predicate
// that v is in the (mapped) graph with an id.
func (s *Source) gatherID(v string, params map[string]any) (id, where string) {
	if m := s.mapping(); m != nil {
		return m.idOf(v), m.hasID(v, params)
	}
	return v + ".id", v + ".id IS :: STRING NOT NULL"
}

// VectorIndex is the name of an online vector index with cosine
// similarity over every label the gather reads and the property prop, ""
// when none.
func (s *Source) VectorIndex(ctx context.Context, prop string) (string, error) {
	labels, err := s.gatherLabels(ctx)
	if err != nil {
		return "", err
	}
	recs, err := s.Query(ctx, `SHOW VECTOR INDEXES YIELD name, entityType, labelsOrTypes, properties, state, options
WHERE entityType = 'NODE' AND state = 'ONLINE' AND properties = [$prop]
RETURN name, labelsOrTypes AS labels, toLower(toString(options.indexConfig['vector.similarity_function'])) AS fn
ORDER BY name`, map[string]any{"prop": prop})
	if err != nil {
		return "", err
	}
	name, _, err := serving(recs, labels, func(r *neo4j.Record) (bool, error) {
		fn, _ := r.Get("fn")
		return fn == "cosine", nil
	})
	return name, err
}

// EmbeddedNode is a node's id and its embedding (nil: none, or not a list
// of finite numbers).
type EmbeddedNode struct {
	ID        string
	Embedding []float64
}

// QueryVector are the k nodes nearest vector by the vector index (an
// approximate search), with their embeddings prop.
func (s *Source) QueryVector(ctx context.Context, index, prop string, vector []float64, k int) ([]EmbeddedNode, error) {
	params := map[string]any{"index": index, "k": k, "vector": vector, "prop": prop}
	id, where := s.gatherID("node", params)
	return s.embeddings(ctx, "CALL db.index.vector.queryNodes($index, $k, $vector) YIELD node\nWHERE "+where+
		"\nRETURN "+id+" AS id, node[$prop] AS e", params)
}

// MaxExactEmbeddings bounds the nodes the vector matcher's exact cosine
// reads from a server (Embeddings): a graph of more nodes needs a vector
// index on the embedding property (docs/RETRIEVERS.md, "Gather").
const MaxExactEmbeddings = 50_000

// TooManyEmbeddingsError is Embeddings' refusal of a graph of more than
// Max nodes: reading every embedding would not stay bounded.
type TooManyEmbeddingsError struct {
	Prop string
	Max  int
}

func (e *TooManyEmbeddingsError) Error() string {
	return fmt.Sprintf("the exact cosine reads every node's %q, and the graph has more than %d nodes (neo4jdb.MaxExactEmbeddings): "+
		"create a vector index with cosine similarity on it (CREATE VECTOR INDEX ... OPTIONS {indexConfig: {`vector.similarity_function`: 'cosine'}})",
		e.Prop, e.Max)
}

// Embeddings are every node of the graph with its embedding prop: the
// vector matcher's exact cosine when no vector index covers prop. More
// than MaxExactEmbeddings nodes are refused (*TooManyEmbeddingsError),
// read no further than one past it.
func (s *Source) Embeddings(ctx context.Context, prop string) ([]EmbeddedNode, error) {
	return s.embeddingsUpTo(ctx, prop, MaxExactEmbeddings)
}

func (s *Source) embeddingsUpTo(ctx context.Context, prop string, most int) ([]EmbeddedNode, error) {
	params := map[string]any{"prop": prop, "most": most + 1}
	id, where := s.gatherID("node", params)
	out, err := s.embeddings(ctx, "MATCH (node) WHERE "+where+"\nRETURN "+id+" AS id, node[$prop] AS e LIMIT $most", params)
	if err == nil && len(out) > most {
		return nil, &TooManyEmbeddingsError{Prop: prop, Max: most}
	}
	return out, err
}

func (s *Source) embeddings(ctx context.Context, query string, params map[string]any) ([]EmbeddedNode, error) {
	recs, err := Read(ctx, s, func(ctx context.Context, tx neo4j.ManagedTransaction) ([]*neo4j.Record, error) {
		return collect(ctx, tx, query, params)
	})
	if err != nil {
		return nil, err
	}
	out := make([]EmbeddedNode, 0, len(recs))
	for _, r := range recs {
		id, err := Column[string](r, "id")
		if err != nil {
			return nil, err
		}
		e, _ := r.Get("e")
		out = append(out, EmbeddedNode{ID: id, Embedding: finiteFloats(e)})
	}
	return out, nil
}

// finiteFloats is a list of finite numbers as floats, else nil.
func finiteFloats(v any) []float64 {
	var xs []any
	switch x := v.(type) {
	case []float64:
		xs = make([]any, len(x))
		for i, f := range x {
			xs[i] = f
		}
	case []any:
		xs = x
	default:
		return nil
	}
	out := make([]float64, len(xs))
	for i, e := range xs {
		switch n := e.(type) {
		case float64:
			out[i] = n
		case int64:
			out[i] = float64(n)
		default:
			return nil
		}
		if math.IsNaN(out[i]) || math.IsInf(out[i], 0) {
			return nil
		}
	}
	return out
}
