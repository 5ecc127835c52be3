package signals_test

import (
	"math"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/memoria-graph/memoria/graph"
	"github.com/memoria-graph/memoria/retriever"
	"github.com/memoria-graph/memoria/retriever/signals"
	"github.com/neo4j/neo4j-go-driver/v5/neo4j/dbtype"
)

// now is the fixed --now of the hand-worked cases.
var now = time.Date(2026, 3, 1, 0, 0, 0, 0, time.UTC)

func params() signals.Params {
	p := signals.DefaultParams()
	p.Now = now
	return p
}

// hit is a hand-built hit: its id, its own score, labels and properties.
func hit(id string, score float64, labels []string, props map[string]any) retriever.Hit {
	return retriever.Hit{NodeID: id, Score: score, Labels: labels, Seed: id, Origin: retriever.OriginExpanded,
		Route: []retriever.Hop{}, Terms: []retriever.Term{{Name: "x", Value: score}},
		Node: graph.Node{ID: id, Labels: labels, Properties: props}}
}

// ranking ranks hand-built hits by their own scores, as a retriever would.
func ranking(seeds []retriever.SeedStatus, hits ...retriever.Hit) retriever.Ranking {
	hits, _ = retriever.Rank(hits, 0)
	return retriever.Ranking{Retriever: "own", Params: retriever.Fields{{Name: "k", Value: 1}}, Seeds: seeds, Hits: hits,
		Stats: retriever.Fields{{Name: "s", Value: 2}}}
}

func rerank(t *testing.T, r retriever.Ranking, p signals.Params) retriever.Ranking {
	t.Helper()
	out, err := signals.Rerank(r, p)
	if err != nil {
		t.Fatal(err)
	}
	return out
}

func byID(t *testing.T, r retriever.Ranking, id string) retriever.Hit {
	t.Helper()
	for _, h := range r.Hits {
		if h.NodeID == id {
			return h
		}
	}
	t.Fatalf("no hit %s in %v", id, ids(r))
	return retriever.Hit{}
}

func ids(r retriever.Ranking) []string {
	var out []string
	for _, h := range r.Hits {
		out = append(out, h.NodeID)
	}
	return out
}

func detail(t *testing.T, h retriever.Hit, key string) any {
	t.Helper()
	v, ok := h.Detail.Get(key)
	if !ok {
		t.Fatalf("%s has no detail %s: %v", h.NodeID, key, h.Detail)
	}
	return v
}

func near(a, b float64) bool { return math.Abs(a-b) <= 1e-12 }

// checkHit checks a reranked hit's score, that its three terms add up to
// it in order, and its signals.
func checkHit(t *testing.T, h retriever.Hit, sem, rec, sal float64) {
	t.Helper()
	want := 0.3*sem + 0.3*rec + 0.4*sal
	if !near(h.Score, want) {
		t.Errorf("%s: final %v, want %v", h.NodeID, h.Score, want)
	}
	if len(h.Terms) != 3 || !h.TermsAdd || h.Terms[0].Value+h.Terms[1].Value+h.Terms[2].Value != h.Score {
		t.Errorf("%s: terms %v (add %v) do not add up to %v", h.NodeID, h.Terms, h.TermsAdd, h.Score)
	}
	for k, v := range map[string]float64{"sem": sem, "recency": rec, "salience": sal} {
		if got := detail(t, h, k).(float64); !near(got, v) {
			t.Errorf("%s: %s %v, want %v", h.NodeID, k, got, v)
		}
	}
}

// TestWorkedExample: three hits, updated 0, 35 and 70 days before now
// (2026-03-01T00:00:00Z: 2026-03-01, 2026-01-25, 2025-12-21), each with
// salience 0.5; no query vector and none a seed, so sem is 0 (missing);
// the default weights 0.3, 0.3, 0.4 and λ = 0.02:
//
//	A (own rank 3): recency e^0 = 1:        0.3 × 1 + 0.4 × 0.5 = 0.5
//	B (own rank 2): recency e^−0.7 ≈ 0.4966: 0.3 × 0.4966 + 0.2 ≈ 0.34898
//	C (own rank 1): recency e^−1.4 ≈ 0.2466: 0.3 × 0.2466 + 0.2 ≈ 0.27398
//
// so the rerank turns the retriever's order C, B, A round, and each hit
// keeps its own score and rank in its detail.
func TestWorkedExample(t *testing.T) {
	r := ranking(nil,
		hit("A", 0.1, []string{"Memory"}, map[string]any{"updated_at": "2026-03-01T00:00:00Z", "salience": 0.5}),
		hit("B", 0.2, []string{"Memory"}, map[string]any{"updated_at": "2026-01-25T00:00:00Z", "salience": 0.5}),
		hit("C", 0.3, []string{"Memory"}, map[string]any{"updated_at": "2025-12-21T00:00:00Z", "salience": 0.5}))
	out := rerank(t, r, params())
	if got := ids(out); !reflect.DeepEqual(got, []string{"A", "B", "C"}) {
		t.Fatalf("order %v, want A B C", got)
	}
	for i, c := range []struct {
		id        string
		days      float64
		rec       float64
		own       float64
		ownRank   int
		wantFinal float64
	}{
		{"A", 0, 1, 0.1, 3, 0.5},
		{"B", 35, math.Exp(-0.7), 0.2, 2, 0.3*math.Exp(-0.7) + 0.2},
		{"C", 70, math.Exp(-1.4), 0.3, 1, 0.3*math.Exp(-1.4) + 0.2},
	} {
		h := out.Hits[i]
		checkHit(t, h, 0, c.rec, 0.5)
		if h.Rank != i+1 || !near(h.Score, c.wantFinal) {
			t.Errorf("%s: rank %d score %v, want %d %v", c.id, h.Rank, h.Score, i+1, c.wantFinal)
		}
		if d := detail(t, h, "days"); d != c.days {
			t.Errorf("%s: days %v, want %v", c.id, d, c.days)
		}
		if detail(t, h, "own_score") != c.own || detail(t, h, "own_rank") != c.ownRank {
			t.Errorf("%s: own score %v rank %v, want %v %v", c.id, detail(t, h, "own_score"), detail(t, h, "own_rank"), c.own, c.ownRank)
		}
		if detail(t, h, "recency_from") != "updated_at" || detail(t, h, "salience_from") != "salience" ||
			detail(t, h, "sem_from") != "none" || !reflect.DeepEqual(detail(t, h, "missing"), []string{"sem"}) {
			t.Errorf("%s: provenance %v", c.id, h.Detail)
		}
	}
	if out.Retriever != "own" || r.Hits[0].NodeID != "C" || r.Hits[0].Score != 0.3 || r.Hits[0].Detail != nil {
		t.Errorf("the input changed or the name did: %s, %+v", out.Retriever, r.Hits[0])
	}
	if v, _ := out.Params.Get("rerank"); v != "signals" {
		t.Errorf("params %v", out.Params)
	}
	if v, _ := out.Params.Get("rerank_now"); v != "2026-03-01T00:00:00Z" {
		t.Errorf("rerank_now %v", v)
	}
	if v, _ := out.Stats.Get("rerank_missing_sem"); v != 3 {
		t.Errorf("stats %v", out.Stats)
	}
	if _, err := signals.Rerank(out, params()); err == nil || !strings.Contains(err.Error(), "already reranked") {
		t.Errorf("reranking twice: %v", err)
	}
}

// TestSem: sem is spreading activation's (retriever.Similarity). With the
// query vector [1, 0]: X's embedding [3, 4] gives 3/5 = 0.6; Y's [−1, 0]
// gives −1, counted 0; seed S (R 0.8) without an embedding keeps its R;
// Z's embedding of length 3 is unusable (0, missing, noted). Without a
// query vector X's sem is 0 (missing) and S's still 0.8. No timestamps,
// no salience: final = 0.3 × sem.
func TestSem(t *testing.T) {
	seeds := []retriever.SeedStatus{{NodeID: "S", Score: 0.8, Found: true}, {NodeID: "gone", Score: 1, Found: false}}
	r := ranking(seeds,
		hit("S", 1, nil, map[string]any{}),
		hit("X", 0.5, nil, map[string]any{"embedding": []any{int64(3), 4.0}}),
		hit("Y", 0.4, nil, map[string]any{"embedding": []any{-1.0, 0.0}}),
		hit("Z", 0.3, nil, map[string]any{"embedding": []any{1.0, 2.0, 3.0}}))
	p := params()
	p.QueryVector = []float64{1, 0}
	out := rerank(t, r, p)
	if got := ids(out); !reflect.DeepEqual(got, []string{"S", "X", "Y", "Z"}) {
		t.Fatalf("order %v", got)
	}
	for id, c := range map[string]struct {
		sem  float64
		from string
	}{"S": {0.8, "seed score"}, "X": {0.6, "embedding"}, "Y": {0, "embedding"}, "Z": {0, "none"}} {
		h := byID(t, out, id)
		checkHit(t, h, c.sem, 0, 0)
		if detail(t, h, "sem_from") != c.from {
			t.Errorf("%s: sem from %v, want %s", id, detail(t, h, "sem_from"), c.from)
		}
	}
	if n := detail(t, byID(t, out, "Z"), "notes").([]string); len(n) != 1 || !strings.Contains(n[0], "embedding") {
		t.Errorf("Z's notes %v", n)
	}
	out = rerank(t, r, params())
	checkHit(t, byID(t, out, "S"), 0.8, 0, 0)
	checkHit(t, byID(t, out, "X"), 0, 0, 0)
}

// TestMissingValues: a node without properties counts 0 for every signal
// (sem none, recency and salience missing): final 0, all three flagged.
// Unreadable values count as missing and are noted: W's updated_at "soon"
// falls through to its last_accessed (7 days: e^−0.14), V's salience
// "high" is missing, U's 1.7 is clamped to 1 and T's −0.2 to 0.
func TestMissingValues(t *testing.T) {
	r := ranking(nil,
		hit("N", 0.9, nil, nil),
		hit("W", 0.8, nil, map[string]any{"updated_at": "soon", "last_accessed": "2026-02-22", "created_at": "2020-01-01"}),
		hit("V", 0.7, nil, map[string]any{"salience": "high"}),
		hit("U", 0.6, nil, map[string]any{"salience": 1.7}),
		hit("T", 0.5, nil, map[string]any{"salience": -0.2, "updated_at": nil, "created_at": int64(1772323200)}))
	out := rerank(t, r, params())
	n := byID(t, out, "N")
	checkHit(t, n, 0, 0, 0)
	if !reflect.DeepEqual(detail(t, n, "missing"), []string{"sem", "recency", "salience"}) || detail(t, n, "days") != nil ||
		detail(t, n, "recency_from") != "missing" || detail(t, n, "salience_from") != "missing" {
		t.Errorf("N: %v", n.Detail)
	}
	w := byID(t, out, "W")
	checkHit(t, w, 0, math.Exp(-0.02*7), 0)
	if detail(t, w, "recency_from") != "last_accessed" {
		t.Errorf("W: recency from %v", detail(t, w, "recency_from"))
	}
	if notes := detail(t, w, "notes").([]string); len(notes) != 1 || notes[0] != `updated_at "soon": not an ISO 8601 timestamp` {
		t.Errorf("W's notes %q", notes)
	}
	v := byID(t, out, "V")
	checkHit(t, v, 0, 0, 0)
	if !reflect.DeepEqual(detail(t, v, "missing"), []string{"sem", "recency", "salience"}) ||
		!reflect.DeepEqual(detail(t, v, "notes"), []string{`salience "high": a string, not a number`}) {
		t.Errorf("V: %v", v.Detail)
	}
	checkHit(t, byID(t, out, "U"), 0, 0, 1)
	if notes := detail(t, byID(t, out, "U"), "notes").([]string); len(notes) != 1 || !strings.Contains(notes[0], "clamped to 1") {
		t.Errorf("U's notes %v", notes)
	}
	// T: updated_at null is absent; created_at 1772323200 is 2026-03-01T00:00:00Z in epoch seconds: 0 days.
	tt := byID(t, out, "T")
	checkHit(t, tt, 0, 1, 0)
	if detail(t, tt, "recency_from") != "created_at" || detail(t, tt, "salience_from") != "salience" {
		t.Errorf("T: %v", tt.Detail)
	}
	if got := ids(out); !reflect.DeepEqual(got, []string{"U", "T", "W", "N", "V"}) {
		t.Errorf("order %v, want U (0.4), T (0.3), W, then N and V at 0 by id", got)
	}
	if v, _ := out.Stats.Get("rerank_missing_salience"); v != 3 {
		t.Errorf("missing salience %v, want 3 (N, W, V)", v)
	}
}

// TestFuture: a timestamp after now counts 0 days (recency 1) and is
// noted.
func TestFuture(t *testing.T) {
	out := rerank(t, ranking(nil, hit("F", 1, nil, map[string]any{"updated_at": "2026-03-11T00:00:00Z"})), params())
	f := byID(t, out, "F")
	checkHit(t, f, 0, 1, 0)
	if detail(t, f, "days") != 0.0 {
		t.Errorf("days %v", detail(t, f, "days"))
	}
	if notes := detail(t, f, "notes").([]string); len(notes) != 1 || !strings.Contains(notes[0], "after now, counted 0 days") {
		t.Errorf("notes %v", notes)
	}
}

// TestTimestamps: every form a timestamp may take, with the days to now
// (2026-03-01T00:00:00Z) worked by hand.
func TestTimestamps(t *testing.T) {
	feb27 := time.Date(2026, 2, 27, 12, 0, 0, 0, time.UTC)
	for _, c := range []struct {
		v    any
		days float64
	}{
		{"2026-02-22", 7},                                // a date alone: midnight UTC
		{"2026-02-27T12:00:00Z", 1.5},                    // RFC 3339
		{"2026-02-27T12:00:00.5Z", 1.5 - 0.5/86400},      // a fraction of a second
		{"2026-02-27T13:00:00+01:00", 1.5},               // an offset
		{"2026-02-27T13:00:00+0100", 1.5},                // an offset without a colon
		{"2026-02-27T13:00:00+01:00[Europe/Paris]", 1.5}, // Neo4j's DateTime with a named zone
		{"2026-02-27T12:00:00", 1.5},                     // Neo4j's LocalDateTime: read as UTC
		{"2026-02-27T12:00", 1.5},                        // no seconds
		{feb27, 1.5},                                     // time.Time
		{feb27.In(time.FixedZone("x", 3600)), 1.5},       // the same instant elsewhere
		{dbtype.Date(time.Date(2026, 2, 22, 0, 0, 0, 0, time.UTC)), 7},
		{dbtype.LocalDateTime(time.Date(2026, 2, 27, 12, 0, 0, 0, time.UTC)), 1.5},
		{int64(1772323200 - 129600), 1.5}, // epoch seconds
		{1772323200.0 - 129600, 1.5},
		{1772323200 - 129600, 1.5}, // a Go int
	} {
		ts, err := signals.Timestamp(c.v)
		if err != nil {
			t.Errorf("%#v: %v", c.v, err)
			continue
		}
		if d, future := signals.Days(now, ts); future || !near(d, c.days) {
			t.Errorf("%#v: %v days (future %v), want %v", c.v, d, future, c.days)
		}
	}
	for _, bad := range []any{"yesterday", "2026-13-01", "", "1772323200", true, []any{"2026-01-01"}, math.NaN(), 1e300, dbtype.LocalTime{}} {
		if ts, err := signals.Timestamp(bad); err == nil {
			t.Errorf("%#v read as %v", bad, ts)
		}
	}
}

// TestWeightsAndParams: weights that are not three numbers in [0, 1]
// summing to 1 within 1e-9 are refused; 0.1 + 0.2 + 0.7 (1 + 2.2e-16 in
// floating point) is not; so are a negative λ, an unset now, caps that
// are not Label=N with N ≥ 1.
func TestWeightsAndParams(t *testing.T) {
	for _, ok := range []string{"0.3,0.3,0.4", "0.1,0.2,0.7", "1,0,0", " 0.5, 0.5 ,0", "0.3333333333,0.3333333333,0.3333333334"} {
		if _, err := signals.ParseWeights(ok); err != nil {
			t.Errorf("%q: %v", ok, err)
		}
	}
	for bad, why := range map[string]string{
		"0.3,0.3,0.3":          "sum to 1",
		"0.5,0.5,0.1":          "sum to 1",
		"0.3,0.3,0.4000001":    "sum to 1",
		"0.5,0.5":              "three numbers",
		"0.2,0.2,0.2,0.4":      "three numbers",
		"a,0.5,0.5":            "not a number",
		"-0.1,0.6,0.5":         "[0, 1]",
		"1.5,-0.5,0":           "[0, 1]",
		"NaN,0.5,0.5":          "[0, 1]",
		"0.3333,0.3333,0.3333": "sum to 1",
	} {
		if _, err := signals.ParseWeights(bad); err == nil || !strings.Contains(err.Error(), why) {
			t.Errorf("%q: %v, want %q", bad, err, why)
		}
	}
	p := params()
	p.Weights = signals.Weights{Sem: 0.5, Time: 0.5, Salience: 0.5}
	if _, err := signals.Rerank(ranking(nil), p); err == nil || !strings.Contains(err.Error(), "sum to 1") {
		t.Errorf("Rerank with weights summing to 1.5: %v", err)
	}
	p = params()
	p.Lambda = -0.1
	if err := p.Validate(); err == nil || !strings.Contains(err.Error(), "lambda") {
		t.Errorf("λ −0.1: %v", err)
	}
	p = params()
	p.Now = time.Time{}
	if err := p.Validate(); err == nil || !strings.Contains(err.Error(), "now") {
		t.Errorf("no now: %v", err)
	}
	p = params()
	p.QueryVector = []float64{0, 0}
	if err := p.Validate(); err == nil || !strings.Contains(err.Error(), "zeros") {
		t.Errorf("zero query vector: %v", err)
	}
	caps, err := signals.ParseCaps("Event=2,Has=Eq=1")
	if err != nil || !reflect.DeepEqual(caps, []signals.Cap{{Label: "Event", N: 2}, {Label: "Has=Eq", N: 1}}) {
		t.Errorf("caps %v %v", caps, err)
	}
	for _, bad := range []string{"Event", "Event=0", "Event=-1", "Event=x", "=2", "Event=1,Event=2", "Event=1,", "Event=1.5"} {
		if _, err := signals.ParseCaps(bad); err == nil {
			t.Errorf("caps %q accepted", bad)
		}
	}
}

// TestCaps: the granularity caps, applied after ranking. Ranked by the
// signals (salience 0.9, 0.8, … by id A to F; nothing else): A Event,
// B Event, C Event+Answer, D Answer, E Answer, F Other, with Event=2 and
// Answer=1: A, B kept (Event 2); C dropped (Event full; it counts against
// neither); D kept (Answer 1); E dropped; F kept (no cap). Ranks
// renumbered 1 to 4; stats count 2 capped.
func TestCaps(t *testing.T) {
	lab := map[string][]string{"A": {"Event"}, "B": {"Event"}, "C": {"Answer", "Event"}, "D": {"Answer"}, "E": {"Answer", "Answer"}, "F": {"Other"}}
	var hits []retriever.Hit
	for i, id := range []string{"A", "B", "C", "D", "E", "F"} {
		hits = append(hits, hit(id, float64(i+1), lab[id], map[string]any{"salience": 0.9 - 0.1*float64(i)}))
	}
	p := params()
	p.PerLabelTop = []signals.Cap{{Label: "Event", N: 2}, {Label: "Answer", N: 1}}
	out := rerank(t, ranking(nil, hits...), p)
	if got := ids(out); !reflect.DeepEqual(got, []string{"A", "B", "D", "F"}) {
		t.Fatalf("kept %v, want A B D F", got)
	}
	for i, h := range out.Hits {
		if h.Rank != i+1 {
			t.Errorf("%s: rank %d, want %d", h.NodeID, h.Rank, i+1)
		}
	}
	if v, _ := out.Stats.Get("rerank_capped"); v != 2 {
		t.Errorf("capped %v, want 2", v)
	}
	if v, _ := out.Params.Get("rerank_per_label_top"); !reflect.DeepEqual(v, retriever.Fields{{Name: "Event", Value: 2}, {Name: "Answer", Value: 1}}) {
		t.Errorf("caps param %v", v)
	}
}

// TestDetailClash: a hit whose detail already holds one of the rerank's
// keys is refused rather than given the key twice.
func TestDetailClash(t *testing.T) {
	h := hit("A", 1, nil, nil)
	h.Detail = retriever.Fields{{Name: "sem", Value: 1.0}}
	if _, err := signals.Rerank(ranking(nil, h), params()); err == nil || !strings.Contains(err.Error(), `"sem"`) {
		t.Errorf("clash: %v", err)
	}
}
