package fusion_test

import (
	"encoding/json"
	"math"
	"reflect"
	"strings"
	"testing"

	"github.com/memoria-graph/memoria/retriever"
	"github.com/memoria-graph/memoria/retriever/fusion"
)

// ranking is a retriever's ranking of the given "ID=score" hits, in that
// order (rank order: ranks 1, 2, ...), each expanded from the seed S by
// one hop, with the seeds S (found) and Z (not found).
func ranking(name string, hits ...string) retriever.Ranking {
	r := retriever.Ranking{Retriever: name, Seeds: []retriever.SeedStatus{{NodeID: "S", Score: 0.9, Found: true}, {NodeID: "Z", Score: 0.5}}}
	for i, s := range hits {
		id, v, _ := strings.Cut(s, "=")
		var score float64
		if err := json.Unmarshal([]byte(v), &score); err != nil {
			panic(err)
		}
		r.Hits = append(r.Hits, retriever.Hit{Rank: i + 1, NodeID: id, Score: score, Labels: []string{name + "Label"}, Seed: "S",
			Origin: retriever.OriginExpanded, Route: []retriever.Hop{{From: "S", To: id, Type: name, Weight: 1, Factor: 1}}})
	}
	return r
}

// example is the worked example of docs/RETRIEVERS.md, "Fusion":
//
//	activation: A B C D     (A is its seed: initial)
//	expansion:  B C E D
//	ppr:        F C B G H   (B and G tie at 0.2: B ranks 3rd by id, G 4th; B is ppr's seed: initial)
//
// A, E, F and G each stand in one list only; H is cut at depth 4.
func example() []retriever.Ranking {
	act := ranking("activation", "A=0.9", "B=0.8", "C=0.7", "D=0.6")
	act.Hits[0].Origin, act.Hits[0].Route, act.Hits[0].Seed = retriever.OriginInitial, nil, "A"
	exp := ranking("expansion", "B=0.9", "C=0.8", "E=0.7", "D=0.6")
	pr := ranking("ppr", "F=0.5", "C=0.3", "B=0.2", "G=0.2", "H=0.1")
	pr.Hits[2].Origin, pr.Hits[2].Route, pr.Hits[2].Seed = retriever.OriginInitial, nil, "B"
	return []retriever.Ranking{act, exp, pr}
}

func params(k float64, depth, topK int) fusion.Params {
	return fusion.Params{Fuse: []string{"activation", "expansion", "ppr"}, Depth: depth, K: k, TopK: topK}
}

func fuse(t *testing.T, lists []retriever.Ranking, p fusion.Params) retriever.Ranking {
	t.Helper()
	r, err := fusion.Fuse(lists, p)
	if err != nil {
		t.Fatal(err)
	}
	return r
}

// expect checks the hits' ids, ranks and scores (to 1e-15 of the hand
// values), and that each hit's terms add up, in order, to its score
// exactly.
func expect(t *testing.T, r retriever.Ranking, ids string, scores ...float64) {
	t.Helper()
	var got []string
	for _, h := range r.Hits {
		got = append(got, h.NodeID)
	}
	if strings.Join(got, " ") != ids || len(scores) != len(r.Hits) {
		t.Fatalf("ranked %v, want %s", got, ids)
	}
	for i, h := range r.Hits {
		if h.Rank != i+1 || math.Abs(h.Score-scores[i]) > 1e-15 {
			t.Errorf("%s: rank %d score %v, want rank %d score %v", h.NodeID, h.Rank, h.Score, i+1, scores[i])
		}
		sum := 0.0
		for _, term := range h.Terms {
			sum += term.Value
		}
		if sum != h.Score || !h.TermsAdd {
			t.Errorf("%s: terms %v add up to %v, score %v", h.NodeID, h.Terms, sum, h.Score)
		}
	}
}

func stats(r retriever.Ranking) string {
	b, _ := json.Marshal(r.Stats)
	return string(b)
}

// TestWorkedExampleK1: with k = 1 each rank r brings 1/(1 + r):
//
//	B = 1/(1+2) + 1/(1+1) + 1/(1+3) = 1/3 + 1/2 + 1/4 = 13/12
//	C = 1/(1+3) + 1/(1+2) + 1/(1+2) = 1/4 + 1/3 + 1/3 = 11/12
//	A = 1/(1+1) = 1/2            (activation only)
//	F = 1/(1+1) = 1/2            (ppr only; ties A, after it by id)
//	D = 1/(1+4) + 1/(1+4) = 2/5
//	E = 1/(1+3) = 1/4
//	G = 1/(1+4) = 1/5            (ppr's 4th: its tie with B does not share B's rank)
//
// H is ppr's 5th and depth is 4: cut. A first place in one list (A, F)
// beats two fourth places (D).
func TestWorkedExampleK1(t *testing.T) {
	r := fuse(t, example(), params(1, 4, 10))
	expect(t, r, "B C A F D E G", 13.0/12, 11.0/12, 0.5, 0.5, 0.4, 0.25, 0.2)
	if got := stats(r); got != `{"activation_hits":4,"expansion_hits":4,"ppr_hits":4,"union":7,"in_every_list":2}` {
		t.Errorf("stats %s", got)
	}
	b := r.Hits[0]
	want := []retriever.Term{{Name: "activation 1/(1+2)", Value: 1.0 / 3}, {Name: "expansion 1/(1+1)", Value: 0.5}, {Name: "ppr 1/(1+3)", Value: 0.25}}
	if !reflect.DeepEqual(b.Terms, want) {
		t.Errorf("B's terms %v, want %v", b.Terms, want)
	}
}

// TestWorkedExampleK60: with k = 60 the ranks weigh almost alike, and
// standing in more lists wins:
//
//	B = 1/62 + 1/61 + 1/63 = 0.048395…
//	C = 1/63 + 1/62 + 1/62 = 0.048131…
//	D = 1/64 + 1/64        = 0.03125   (now above A and F)
//	A = F = 1/61           = 0.016393… (A first by id)
//	E = 1/63, G = 1/64                 (cut by top K = 5)
func TestWorkedExampleK60(t *testing.T) {
	r := fuse(t, example(), params(60, 4, 5))
	expect(t, r, "B C D A F", 1.0/62+1.0/61+1.0/63, 1.0/63+1.0/62+1.0/62, 1.0/32, 1.0/61, 1.0/61)
	if got := stats(r); got != `{"activation_hits":4,"expansion_hits":4,"ppr_hits":4,"union":7,"in_every_list":2}` {
		t.Errorf("stats %s", got)
	}
	if got := r.Hits[0].Terms[2].Name; got != "ppr 1/(60+3)" {
		t.Errorf("B's ppr term is named %q", got)
	}
	p, _ := json.Marshal(r.Params)
	if string(p) != `{"fuse":["activation","expansion","ppr"],"fuse_depth":4,"rrf_k":60,"top_k":5}` || r.Retriever != "fusion" {
		t.Errorf("%s: params %s", r.Retriever, p)
	}
}

// TestKZero: k = 0 is allowed, 1/r (Graphiti's weights: its rank_const
// 1 is added to positions from 0): B = 1/2 + 1/1 + 1/3 = 11/6, C = 1/3 +
// 1/2 + 1/2 = 4/3, then A = F = 1, D = 1/4 + 1/4 = 1/2, E = 1/3, G = 1/4.
func TestKZero(t *testing.T) {
	r := fuse(t, example(), params(0, 4, 10))
	expect(t, r, "B C A F D E G", 11.0/6, 4.0/3, 1, 1, 0.5, 1.0/3, 0.25)
	if got := r.Hits[0].Terms[1].Name; got != "expansion 1/(0+1)" {
		t.Errorf("B's expansion term is named %q", got)
	}
}

// TestDepth: depth 5 lets ppr's H in at 1/(60+5); depth 1 keeps each
// list's first alone: A (activation), B (expansion), F (ppr), each 1/61,
// ranked by id.
func TestDepth(t *testing.T) {
	r := fuse(t, example(), params(60, 5, 100))
	if last := r.Hits[len(r.Hits)-1]; last.NodeID != "H" || last.Score != 1.0/65 || len(r.Hits) != 8 {
		t.Errorf("depth 5: %d hits, last %s %v", len(r.Hits), last.NodeID, last.Score)
	}
	if got := stats(r); got != `{"activation_hits":4,"expansion_hits":4,"ppr_hits":5,"union":8,"in_every_list":2}` {
		t.Errorf("depth 5: stats %s", got)
	}
	r = fuse(t, example(), params(60, 1, 100))
	expect(t, r, "A B F", 1.0/61, 1.0/61, 1.0/61)
	if got := stats(r); got != `{"activation_hits":1,"expansion_hits":1,"ppr_hits":1,"union":3,"in_every_list":0}` {
		t.Errorf("depth 1: stats %s", got)
	}
}

// TestProvenance: each hit's detail gives every list's rank and own
// score (null where the list lacks it) and the list it stands best in;
// Seed, Route and Labels come from that list. B stands best in expansion
// (1st) but ppr has it as its seed, so it is initial, its own seed, no
// route. C ties at 2nd in expansion and ppr: expansion, first in fuse. D
// ties at 4th in activation and expansion: activation.
func TestProvenance(t *testing.T) {
	r := fuse(t, example(), params(60, 4, 10))
	by := map[string]retriever.Hit{}
	for _, h := range r.Hits {
		by[h.NodeID] = h
	}
	detail := func(id string) string {
		b, err := json.Marshal(by[id].Detail)
		if err != nil {
			t.Fatal(err)
		}
		return string(b)
	}
	for id, want := range map[string]string{
		"B": `{"activation_rank":2,"activation_score":0.8,"expansion_rank":1,"expansion_score":0.9,"ppr_rank":3,"ppr_score":0.2,"best_list":"expansion"}`,
		"C": `{"activation_rank":3,"activation_score":0.7,"expansion_rank":2,"expansion_score":0.8,"ppr_rank":2,"ppr_score":0.3,"best_list":"expansion"}`,
		"D": `{"activation_rank":4,"activation_score":0.6,"expansion_rank":4,"expansion_score":0.6,"ppr_rank":null,"ppr_score":null,"best_list":"activation"}`,
		"G": `{"activation_rank":null,"activation_score":null,"expansion_rank":null,"expansion_score":null,"ppr_rank":4,"ppr_score":0.2,"best_list":"ppr"}`,
	} {
		if got := detail(id); got != want {
			t.Errorf("%s's detail %s\nwant %s", id, got, want)
		}
	}
	if b := by["B"]; b.Origin != retriever.OriginInitial || b.Seed != "B" || b.Route != nil || b.Labels[0] != "expansionLabel" {
		t.Errorf("B: %+v", b)
	}
	if a := by["A"]; a.Origin != retriever.OriginInitial || a.Seed != "A" || a.Route != nil || len(a.Terms) != 1 {
		t.Errorf("A: %+v", a)
	}
	if c := by["C"]; c.Origin != retriever.OriginExpanded || c.Seed != "S" || len(c.Route) != 1 || c.Route[0].Type != "expansion" || c.Labels[0] != "expansionLabel" {
		t.Errorf("C: %+v", c)
	}
	if d := by["D"]; d.Route[0].Type != "activation" || len(d.Terms) != 2 || d.Terms[1].Name != "expansion 1/(60+4)" {
		t.Errorf("D: %+v", d)
	}
	// The fused hits do not share the lists' slices.
	in := example()
	out := fuse(t, in, params(60, 4, 10))
	out.Hits[0].Labels[0] = "changed"
	if in[1].Hits[0].Labels[0] != "expansionLabel" {
		t.Error("a fused hit's labels are the list's own slice")
	}
}

// TestSeeds: the seeds are the union of the lists', in the order first
// met, found when any list found them, scored by the first that lists
// them.
func TestSeeds(t *testing.T) {
	lists := example()
	lists[0].Seeds = []retriever.SeedStatus{{NodeID: "S", Score: 0.9, Found: true}}
	lists[1].Seeds = []retriever.SeedStatus{{NodeID: "Z", Score: 0.5}, {NodeID: "S", Score: 0.7}}
	lists[2].Seeds = []retriever.SeedStatus{{NodeID: "Y", Score: 0.4}, {NodeID: "Z", Score: 0.6, Found: true}}
	r := fuse(t, lists, params(60, 4, 10))
	want := []retriever.SeedStatus{{NodeID: "S", Score: 0.9, Found: true}, {NodeID: "Z", Score: 0.5, Found: true}, {NodeID: "Y", Score: 0.4}}
	if !reflect.DeepEqual(r.Seeds, want) {
		t.Errorf("seeds %+v", r.Seeds)
	}
}

// TestEmpty: lists without hits fuse to no hits (an empty list, not
// nil), and one list alone is fused too.
func TestEmpty(t *testing.T) {
	r := fuse(t, []retriever.Ranking{{Retriever: "ppr"}}, fusion.Params{Fuse: []string{"ppr"}, Depth: 3, K: 60, TopK: 10})
	if r.Hits == nil || len(r.Hits) != 0 || stats(r) != `{"ppr_hits":0,"union":0,"in_every_list":0}` {
		t.Errorf("%+v", r)
	}
	r = fuse(t, example()[2:], fusion.Params{Fuse: []string{"ppr"}, Depth: 3, K: 1, TopK: 10})
	expect(t, r, "F C B", 0.5, 1.0/3, 0.25)
}

// TestFuseRefuses: invalid parameters, a count of rankings other than
// the names', a ranking out of its place, a ranking holding a number that
// is not finite (ppr's hit C scoring NaN, as an overflow would leave it:
// the fused detail would copy it, and JSON cannot hold it), a node twice
// in one ranking.
func TestFuseRefuses(t *testing.T) {
	dup := example()
	dup[1].Hits[2].NodeID = "B"
	nan := example()
	nan[2].Hits[1].Score = math.NaN()
	for _, c := range []struct {
		lists []retriever.Ranking
		p     fusion.Params
		want  string
	}{
		{example(), params(60, 0, 10), "fuse depth must be at least 1, got 0"},
		{example()[:2], params(60, 4, 10), "fusion: 2 rankings for the 3 retrievers of fuse"},
		{example(), fusion.Params{Fuse: []string{"activation", "ppr", "expansion"}, Depth: 4, K: 60, TopK: 10},
			"fusion: ranking 2 is \"expansion\"'s, fuse names \"ppr\" there\nfusion: ranking 3 is \"ppr\"'s, fuse names \"expansion\" there"},
		{dup, params(60, 4, 10), `fusion: expansion's ranking lists node "B" twice`},
		{nan, params(60, 4, 10), `fusion: ppr's ranking: hit "C" (rank 2): score NaN is not a finite number`},
	} {
		_, err := fusion.Fuse(c.lists, c.p)
		if err == nil || err.Error() != c.want {
			t.Errorf("got %v, want %s", err, c.want)
		}
	}
	// A node twice beyond the depth is not read, so not refused.
	dup[1].Hits[2].NodeID, dup[1].Hits[3].NodeID = "E", "B"
	if _, err := fusion.Fuse(dup, params(60, 3, 10)); err != nil {
		t.Error(err)
	}
}

// TestValidate: each refusal says what is wrong; k = 0 is allowed.
func TestValidate(t *testing.T) {
	ok := fusion.DefaultParams()
	if err := ok.Validate(); err != nil {
		t.Fatal(err)
	}
	if ok.Depth != 100 || ok.K != 60 || ok.TopK != 10 || strings.Join(ok.Fuse, ",") != "activation,expansion,spreading,ppr" {
		t.Errorf("defaults %+v", ok)
	}
	ok.K = 0
	if err := ok.Validate(); err != nil {
		t.Errorf("k = 0: %v", err)
	}
	for _, c := range []struct {
		set  func(*fusion.Params)
		want string
	}{
		{func(p *fusion.Params) { p.Fuse = nil }, "fuse needs at least one retriever"},
		{func(p *fusion.Params) { p.Fuse = []string{"ppr", "", "ppr"} }, "fuse: name 2 is empty\nfuse: \"ppr\" is listed twice"},
		{func(p *fusion.Params) { p.Fuse = []string{" ppr"} }, `fuse: name 1, " ppr", has a comma or surrounding space`},
		{func(p *fusion.Params) { p.Fuse = []string{"a,b"} }, `fuse: name 1, "a,b", has a comma or surrounding space`},
		{func(p *fusion.Params) { p.Depth = 0 }, "fuse depth must be at least 1, got 0"},
		{func(p *fusion.Params) { p.K = -1 }, "rrf k must be a finite number of at least 0, got -1"},
		{func(p *fusion.Params) { p.K = math.NaN() }, "rrf k must be a finite number of at least 0, got NaN"},
		{func(p *fusion.Params) { p.K = math.Inf(1) }, "rrf k must be a finite number of at least 0, got +Inf"},
		{func(p *fusion.Params) { p.TopK = 0 }, "top k must be at least 1, got 0"},
		{func(p *fusion.Params) { p.Depth, p.TopK = -2, -1 }, "fuse depth must be at least 1, got -2\ntop k must be at least 1, got -1"},
	} {
		p := fusion.DefaultParams()
		c.set(&p)
		if err := p.Validate(); err == nil || err.Error() != c.want {
			t.Errorf("got %v, want %s", err, c.want)
		}
	}
}

// TestParseFuse: names split at commas and trimmed; empty and repeated
// names refused.
func TestParseFuse(t *testing.T) {
	got, err := fusion.ParseFuse(" activation, ppr ,spreading")
	if err != nil || strings.Join(got, "|") != "activation|ppr|spreading" {
		t.Errorf("got %q, %v", got, err)
	}
	for in, want := range map[string]string{
		"":                   "fuse needs at least one retriever",
		"  ":                 "fuse needs at least one retriever",
		"ppr,,expansion":     "fuse: name 2 is empty",
		"ppr,":               "fuse: name 2 is empty",
		"ppr, expansion,ppr": `fuse: "ppr" is listed twice`,
	} {
		if _, err := fusion.ParseFuse(in); err == nil || err.Error() != want {
			t.Errorf("%q: got %v, want %s", in, err, want)
		}
	}
}

// TestWeightedFusion, by hand: A ranks x, y; B ranks y, z; k = 0.
// Plain RRF: x = 1/1 = 1, y = 1/2 + 1/1 = 1.5, z = 1/2 = 0.5: y, x, z.
// Weighted A = 2, B = 0.5: x = 2/1 = 2, y = 2/2 + 0.5/1 = 1.5, z = 0.5/2 =
// 0.25: x, y, z; y's terms read "A 2/(0+2)" and "B 0.5/(0+1)". A weight of
// 1 everywhere is plain RRF, bit for bit, and reports no fuse_weights.
func TestWeightedFusion(t *testing.T) {
	list := func(name string, ids ...string) retriever.Ranking {
		r := retriever.Ranking{Retriever: name}
		for i, id := range ids {
			r.Hits = append(r.Hits, retriever.Hit{Rank: i + 1, NodeID: id, Score: 1 / float64(i+1), Origin: retriever.OriginExpanded})
		}
		return r
	}
	lists := []retriever.Ranking{list("A", "x", "y"), list("B", "y", "z")}
	p := fusion.Params{Fuse: []string{"A", "B"}, Depth: 10, K: 0, TopK: 10}
	plain, err := fusion.Fuse(lists, p)
	if err != nil {
		t.Fatal(err)
	}
	if ids := hitIDs(plain); ids != "y x z" {
		t.Errorf("plain: %s", ids)
	}
	p.Weights = map[string]float64{"A": 2, "B": 0.5}
	w, err := fusion.Fuse(lists, p)
	if err != nil {
		t.Fatal(err)
	}
	if ids := hitIDs(w); ids != "x y z" || w.Hits[0].Score != 2 || w.Hits[1].Score != 1.5 || w.Hits[2].Score != 0.25 {
		t.Errorf("weighted: %s %+v", ids, w.Hits)
	}
	if terms := w.Hits[1].Terms; len(terms) != 2 || terms[0].Name != "A 2/(0+2)" || terms[1].Name != "B 0.5/(0+1)" {
		t.Errorf("y's terms %+v", terms)
	}
	if _, ok := w.Params.Get("fuse_weights"); !ok {
		t.Error("weighted ranking reports no fuse_weights")
	}
	p.Weights = map[string]float64{"A": 1}
	ones, _ := fusion.Fuse(lists, p)
	if _, ok := ones.Params.Get("fuse_weights"); ok || hitIDs(ones) != "y x z" || ones.Hits[0].Score != plain.Hits[0].Score {
		t.Errorf("weights of 1: %+v", ones)
	}
	p.Weights = map[string]float64{"C": 1, "A": -1}
	if _, err := fusion.Fuse(lists, p); err == nil || !strings.Contains(err.Error(), `fuse weights name "C", which fuse does not list`) || !strings.Contains(err.Error(), `fuse weights give "A" -1: each must be a finite number of at least 0`) {
		t.Errorf("bad weights: %v", err)
	}
}

func hitIDs(r retriever.Ranking) string {
	ids := make([]string, len(r.Hits))
	for i, h := range r.Hits {
		ids[i] = h.NodeID
	}
	return strings.Join(ids, " ")
}
