package gather

import (
	"context"
	"fmt"
	"math"
	"math/rand"
	"slices"
	"strings"
	"testing"

	"github.com/memoria-graph/memoria/graph"
)

// nodes is a graph.NodeScanner over a slice.
type nodes []graph.Node

func (ns nodes) EachNode(ctx context.Context, fn func(graph.Node) error) error {
	for _, n := range ns {
		if err := fn(n); err != nil {
			return err
		}
	}
	return nil
}

func node(id string, props map[string]any) graph.Node { return graph.Node{ID: id, Properties: props} }

func near(a, b float64) bool { return math.Abs(a-b) < 1e-6 }

// TestTextRules worked by hand.
//   - Normalize: case folded, "FAST-200  Safety" → "fast 200 safety";
//     "ÉCOLE" and the Kelvin sign fold to "école" and "k".
//   - Levenshtein(kitten, sitting) = 3 (k→s, e→i, +g): the table's last
//     cell; fuzzy = 1 − 3/7 = 0.571429.
//   - Jaccard({safety, stock}, {safety, stock, policy}) = 2/3.
func TestTextRules(t *testing.T) {
	if got := Normalize("  FAST-200  Safety!! "); got != "fast 200 safety" {
		t.Errorf("Normalize: %q", got)
	}
	if got := Normalize("ÉCOLE \u212a"); got != "école k" {
		t.Errorf("case folding: %q vs %q", got, Normalize("école"))
	}
	if d := Levenshtein("kitten", "sitting"); d != 3 {
		t.Errorf("Levenshtein: %d", d)
	}
	if f := FuzzyScore("kitten", "sitting"); !near(f, 1-3.0/7) {
		t.Errorf("fuzzy: %v", f)
	}
	if j := Jaccard([]string{"safety", "stock"}, []string{"safety", "stock", "policy"}); !near(j, 2.0/3) {
		t.Errorf("Jaccard: %v", j)
	}
	if toks := Tokens("a,,B c"); !slices.Equal(toks, []string{"a", "b", "c"}) {
		t.Errorf("Tokens: %v", toks)
	}
}

// TestBM25ByHand: a three-node corpus with one text field: A "safety
// stock" (2 words), B "stock stock level" (3), C "reorder point" (2);
// N = 3, avgdl = 7/3. For "stock" (n = 2): idf = ln(1 + (3 − 2 + 0.5) /
// (2 + 0.5)) = ln 1.6 = 0.470004.
//
//	A: tf = 1 / (1 + 1.2 × (0.25 + 0.75 × 2 / (7/3))) = 1 / 2.071429 = 0.482759; raw 0.226899
//	B: tf = 2 / (2 + 1.2 × (0.25 + 0.75 × 3 / (7/3))) = 2 / 3.457143 = 0.578512; raw 0.271903
//
// B is best: its score 1; A's 0.226899 / 0.271903 = 0.834483. C has no
// "stock". With Min 0.5 both are listed, B first.
func TestBM25ByHand(t *testing.T) {
	ix, err := Build(context.Background(), nodes{
		node("A", map[string]any{"text": "safety stock"}),
		node("B", map[string]any{"text": "stock stock level"}),
		node("C", map[string]any{"text": "reorder point"}),
	}, Fields{Texts: []string{"text"}})
	if err != nil {
		t.Fatal(err)
	}
	if !near(IDF(3, 2), math.Log(1.6)) {
		t.Errorf("idf %v", IDF(3, 2))
	}
	res, err := ix.Gather(context.Background(), []string{"Stock"}, nil, Options{Matchers: []string{BM25}, Min: 0.5, RRFK: 60, SeedK: 5})
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Candidates) != 2 || res.Candidates[0].NodeID != "B" || res.Candidates[1].NodeID != "A" {
		t.Fatalf("candidates %+v", res.Candidates)
	}
	b, a := res.Candidates[0].Matches[0], res.Candidates[1].Matches[0]
	if !near(b.Raw, 0.271903) || b.Score != 1 || !near(a.Raw, 0.226899) || !near(a.Score, 0.834483) {
		t.Errorf("B %+v, A %+v", b, a)
	}
	if !near(res.Candidates[1].R, 0.834483) {
		t.Errorf("A's R %v", res.Candidates[1].R)
	}
}

// TestFusionByHand: two queries × two matchers over names. Nodes: N1
// "safety stock", N2 "safety stock policy", N3 "reorder point".
//   - q1 "safety stock": exact [N1 (1)], token [N1 (1), N2 (2/3)].
//   - q2 "reorder point": exact [N3 (1)], token [N3 (1)].
//
// RRF with k = 60: N1 = 1/61 + 1/61 = 0.032787; N3 = 1/61 + 1/61 =
// 0.032787; N2 = 1/62 = 0.016129. N1 and N3 tie: by id, N1 first. R: N1 1,
// N3 1, N2 2/3. With SeedK 2 the seeds are N1 and N3.
func TestFusionByHand(t *testing.T) {
	ix, err := Build(context.Background(), nodes{
		node("N1", map[string]any{"name": "Safety stock"}),
		node("N2", map[string]any{"name": "safety stock policy"}),
		node("N3", map[string]any{"name": []any{"Reorder point", "ROP"}}),
	}, Fields{Names: []string{"name"}})
	if err != nil {
		t.Fatal(err)
	}
	res, err := ix.Gather(context.Background(), []string{"safety stock", "reorder-point"}, nil,
		Options{Matchers: []string{Exact, Token}, Min: 0.5, RRFK: 60, SeedK: 2})
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, c := range res.Candidates {
		got = append(got, fmt.Sprintf("%s %.6f %.4f %v", c.NodeID, c.RRF, c.R, c.Seed))
	}
	want := []string{"N1 0.032787 1.0000 true", "N3 0.032787 1.0000 true", "N2 0.016129 0.6667 false"}
	if !slices.Equal(got, want) {
		t.Errorf("got %v\nwant %v", got, want)
	}
	if s := res.Seeds(); len(s) != 2 || s[0].NodeID != "N1" || s[1].Score != 1 {
		t.Errorf("seeds %+v", s)
	}
}

// TestVectorByHand: the query [1, 0] against [1, 1] (cosine 1/√2 =
// 0.707107), [0, 1] (0: below Min), [-1, 0] (−1, clamped to 0), a node
// without an embedding and one of another dimension (both counted).
func TestVectorByHand(t *testing.T) {
	ix, err := Build(context.Background(), nodes{
		node("A", map[string]any{"embedding": []any{1.0, 1.0}}),
		node("B", map[string]any{"embedding": []any{0.0, 1.0}}),
		node("C", map[string]any{"embedding": []any{-1.0, 0.0}}),
		node("D", map[string]any{}),
		node("E", map[string]any{"embedding": []any{1.0, 0.0, 0.0}}),
	}, Fields{Embedding: "embedding"})
	if err != nil {
		t.Fatal(err)
	}
	res, err := ix.Gather(context.Background(), []string{"anything"}, []float64{1, 0}, Options{Matchers: []string{Vector}, Min: 0.5, RRFK: 60, SeedK: 5})
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Candidates) != 1 || res.Candidates[0].NodeID != "A" || !near(res.Candidates[0].R, 1/math.Sqrt2) || res.NoVector != 2 {
		t.Errorf("%+v", res)
	}
}

// TestRefusals: an empty query, one of punctuation only, an unknown
// matcher, vector without a vector, a Min of 0.
func TestRefusals(t *testing.T) {
	ix, _ := Build(context.Background(), nodes{node("A", map[string]any{"name": "a"})}, Fields{Names: []string{"name"}})
	for _, c := range []struct {
		q    []string
		opt  Options
		want string
	}{
		{[]string{""}, DefaultOptions(), "query 1 has no letter or digit"},
		{[]string{"a", "?!…"}, DefaultOptions(), "query 2 has no letter or digit"},
		{nil, DefaultOptions(), "no query"},
		{[]string{"a"}, Options{Matchers: []string{"regex"}, Min: 0.5, RRFK: 60, SeedK: 5}, `unknown matcher "regex"`},
		{[]string{"a"}, Options{Matchers: []string{Vector}, Min: 0.5, RRFK: 60, SeedK: 5}, "needs the query's vector"},
		{[]string{"a"}, Options{Matchers: []string{Exact}, Min: 0, RRFK: 60, SeedK: 5}, "gather min must be in (0, 1]"},
	} {
		_, err := ix.Gather(context.Background(), c.q, nil, c.opt)
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%q %+v: %v, want %q", c.q, c.opt, err, c.want)
		}
	}
}

// naiveGather is the gather worked without an index: every node scored by
// every matcher from its raw properties, BM25's statistics counted afresh
// for each query, each list sorted by score then id, fused by RRF.
func naiveGather(ns []graph.Node, f Fields, queries []string, opt Options) []string {
	fused, best := map[string]float64{}, map[string]float64{}
	for _, q := range queries {
		qn := Normalize(q)
		qt := strings.Fields(qn)
		for _, m := range opt.Matchers {
			type sc struct {
				id string
				s  float64
			}
			var list []sc
			raw := map[string]float64{}
			if m == BM25 {
				for _, p := range append(slices.Clone(f.Names), f.Texts...) {
					holders, total, df := 0, 0, map[string]int{}
					for _, n := range ns {
						toks := LuceneWords(strings.Join(StringsOf(n.Properties[p]), " "))
						if len(toks) > 0 {
							holders++
							total += len(toks)
							for _, t := range slices.Compact(slices.Sorted(slices.Values(toks))) {
								df[t]++
							}
						}
					}
					for _, n := range ns {
						toks := LuceneWords(strings.Join(StringsOf(n.Properties[p]), " "))
						for _, t := range slices.Compact(slices.Sorted(slices.Values(LuceneWords(q)))) {
							freq := 0
							for _, x := range toks {
								if x == t {
									freq++
								}
							}
							if freq > 0 {
								raw[n.ID] += IDF(holders, df[t]) * TF(float64(freq), float64(LuceneLength(len(toks))), float64(total)/float64(holders))
							}
						}
					}
				}
			}
			top := 0.0
			for _, v := range raw {
				top = max(top, v)
			}
			// The name matchers score the nodes with a name word that
			// begins with a query word's first three runes.
			scored := func(n graph.Node) bool {
				for _, p := range f.Names {
					for _, name := range StringsOf(n.Properties[p]) {
						for _, w := range LuceneWords(name) {
							for _, qw := range qt {
								if r := []rune(qw); len(r) > 3 {
									qw = string(r[:3])
								}
								if strings.HasPrefix(w, qw) {
									return true
								}
							}
						}
					}
				}
				return false
			}
			for _, n := range ns {
				s := 0.0
				for _, p := range f.Names {
					if m != BM25 && !scored(n) {
						break
					}
					for _, name := range StringsOf(n.Properties[p]) {
						nn := Normalize(name)
						if nn == "" {
							continue
						}
						switch m {
						case Exact:
							if nn == qn {
								s = 1
							}
						case Token:
							s = max(s, Jaccard(qt, strings.Fields(nn)))
						case Fuzzy:
							s = max(s, FuzzyScore(qn, nn))
						}
					}
				}
				if m == BM25 && raw[n.ID] > 0 {
					s = raw[n.ID] / top
				}
				if s >= opt.Min {
					list = append(list, sc{n.ID, s})
				}
			}
			slices.SortFunc(list, func(a, b sc) int {
				if a.s != b.s {
					if a.s > b.s {
						return -1
					}
					return 1
				}
				return strings.Compare(a.id, b.id)
			})
			for r, e := range list {
				fused[e.id] += 1 / (opt.RRFK + float64(r+1))
				best[e.id] = max(best[e.id], e.s)
			}
		}
	}
	ids := make([]string, 0, len(fused))
	for id := range fused {
		ids = append(ids, id)
	}
	slices.SortFunc(ids, func(a, b string) int {
		if fused[a] != fused[b] {
			if fused[a] > fused[b] {
				return -1
			}
			return 1
		}
		return strings.Compare(a, b)
	})
	out := make([]string, len(ids))
	for i, id := range ids {
		out[i] = fmt.Sprintf("%s %.12f %.12f", id, fused[id], best[id])
	}
	return out
}

// TestAgreesWithNaive: on 200 random corpora (names and texts drawn from
// a small vocabulary, some names lists, some nodes without), random queries
// of one to three words, every matcher but vector: the index's candidates,
// fused scores and R agree with naiveGather's to 12 decimals.
func TestAgreesWithNaive(t *testing.T) {
	vocab := []string{"safety", "stock", "reorder", "point", "lead", "time", "FAST", "200", "policy", "Stock", "demand"}
	r := rand.New(rand.NewSource(7))
	words := func(n int) string {
		w := make([]string, n)
		for i := range w {
			w[i] = vocab[r.Intn(len(vocab))]
		}
		return strings.Join(w, []string{" ", "-", ", "}[r.Intn(3)])
	}
	f := Fields{Names: []string{"name"}, Texts: []string{"text"}}
	opt := Options{Matchers: []string{Exact, Token, Fuzzy, BM25}, Min: 0.3, RRFK: 60, SeedK: 3}
	for trial := range 200 {
		var ns nodes
		for i := range 2 + r.Intn(20) {
			props := map[string]any{}
			switch r.Intn(4) {
			case 0:
			case 1:
				props["name"] = []any{words(1 + r.Intn(2)), words(1 + r.Intn(3))}
			default:
				props["name"] = words(1 + r.Intn(3))
			}
			if r.Intn(3) > 0 {
				props["text"] = words(1 + r.Intn(8))
			}
			ns = append(ns, node(fmt.Sprintf("N%02d", i), props))
		}
		qs := []string{words(1 + r.Intn(3))}
		if r.Intn(2) == 0 {
			qs = append(qs, words(1+r.Intn(2)))
		}
		ix, err := Build(context.Background(), ns, f)
		if err != nil {
			t.Fatal(err)
		}
		res, err := ix.Gather(context.Background(), qs, nil, opt)
		if err != nil {
			t.Fatal(err)
		}
		var got []string
		for _, c := range res.Candidates {
			got = append(got, fmt.Sprintf("%s %.12f %.12f", c.NodeID, c.RRF, c.R))
		}
		if want := naiveGather(ns, f, qs, opt); !slices.Equal(got, want) {
			t.Fatalf("trial %d, queries %q:\ngot  %v\nwant %v", trial, qs, got, want)
		}
	}
}

// TestAutoTags: "how much safety stock" takes safety_stock (its words a run
// of the query's) and stock, not stock_level (level absent) nor
// stock-safety (the words out of order).
func TestAutoTags(t *testing.T) {
	got := AutoTags([]string{"safety_stock", "stock_level", "stock", "stock-safety", "__"}, []string{"How much Safety Stock?"})
	if !slices.Equal(got, []string{"safety_stock", "stock"}) {
		t.Errorf("AutoTags: %v", got)
	}
}

// TestScores: TestFusionByHand's nodes; for the query "safety stock" N2's
// token score is 2/3 (listed second with Min 0.5, unlisted with Min 0.7)
// and its exact score 0; N3 scores 0 on both.
func TestScores(t *testing.T) {
	ix, _ := Build(context.Background(), nodes{
		node("N1", map[string]any{"name": "Safety stock"}),
		node("N2", map[string]any{"name": "safety stock policy"}),
		node("N3", map[string]any{"name": "Reorder point"}),
	}, Fields{Names: []string{"name"}})
	opt := Options{Matchers: []string{Exact, Token}, Min: 0.5, RRFK: 60, SeedK: 1}
	s, ok := ix.Scores("N2", []string{"safety stock"}, nil, opt)
	if !ok || len(s) != 2 || s[0].Score != 0 || s[0].Listed || !near(s[1].Score, 2.0/3) || !s[1].Listed || s[1].Rank != 2 {
		t.Errorf("N2 at Min 0.5: %+v", s)
	}
	opt.Min = 0.7
	if s, _ := ix.Scores("N2", []string{"safety stock"}, nil, opt); s[1].Listed || !near(s[1].Score, 2.0/3) {
		t.Errorf("N2 at Min 0.7: %+v", s)
	}
	if _, ok := ix.Scores("nope", []string{"x"}, nil, opt); ok {
		t.Error("an unknown node was scored")
	}
}
