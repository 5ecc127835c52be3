package ppr_test

import (
	"context"
	"errors"
	"math"
	"math/rand"
	"os"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/memoria-graph/memoria/graph/apoc"
	"github.com/memoria-graph/memoria/graph/inmem"
	"github.com/memoria-graph/memoria/retriever"
	"github.com/memoria-graph/memoria/retriever/ppr"
)

// within runs ppr with a deadline, so that a push that does not end fails
// the test instead of hanging it.
func within(t testing.TB, g *inmem.Graph, p ppr.Params, seeds ...retriever.Seed) (retriever.Ranking, error) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	r, err := ppr.Retrieve(ctx, g, retriever.Query{Seeds: seeds}, p)
	if errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("the push did not end within 20 s")
	}
	return r, err
}

// wantErr checks that err is not nil and says each of parts.
func wantErr(t *testing.T, label string, err error, parts ...string) {
	t.Helper()
	if err == nil {
		t.Fatalf("%s: no error", label)
	}
	for _, p := range parts {
		if !strings.Contains(err.Error(), p) {
			t.Errorf("%s: %q does not say %q", label, err, p)
		}
	}
}

// TestLimitsCited: the refusals name the file and line of MinThreshold
// and MaxPushes; those lines declare them.
func TestLimitsCited(t *testing.T) {
	for at, decl := range map[string]string{ppr.MinThresholdAt: "const MinThreshold = ", ppr.MaxPushesAt: "const MaxPushes = "} {
		file, line, _ := strings.Cut(at, ":")
		n, err := strconv.Atoi(line)
		if err != nil {
			t.Fatal(err)
		}
		data, err := os.ReadFile(strings.TrimPrefix(file, "retriever/ppr/"))
		if err != nil {
			t.Fatal(err)
		}
		lines := strings.Split(string(data), "\n")
		if n > len(lines) || !strings.HasPrefix(lines[n-1], decl) {
			t.Errorf("%s is not %q", at, decl)
		}
	}
	if ppr.MinThreshold != 0x1p-1022 || ppr.MinThreshold != math.Float64frombits(1<<52) || ppr.MaxPushes != 1<<24 {
		t.Errorf("MinThreshold %v, MaxPushes %d", ppr.MinThreshold, ppr.MaxPushes)
	}
}

// TestEpsilonUnderflow: on A–B (w 0.3) from A, ε = 5e-324 (the least
// subnormal) gives ε × W(A) = 5e-324 × 0.3, below half the least
// subnormal, so 0: a residual of 0 is at its threshold and the push went
// on forever. Validate refuses it, naming epsilon and MinThreshold, and
// so does Retrieve. The least normal ε, 2⁻¹⁰²², passes Validate, but ε ×
// 0.3 is subnormal: the run fails naming node A. ε = 1e-300 runs: ε × W
// = 3e-301 is normal, and each round halves the one residual (d = 0.5,
// one relationship each), so it ends after about log₂(3.3e300) ≈ 1000
// pushes, with π = (2/3, 1/3) (π(A) = ½ + ½·π(B), π(B) = ½·π(A)) within
// the residual mass.
func TestEpsilonUnderflow(t *testing.T) {
	g := build(t, []string{"A", "B"}, "A-B:0.3")
	p := ppr.DefaultParams()
	p.Epsilon = 5e-324
	wantErr(t, "Validate", p.Validate(), "epsilon must be at least 2.2250738585072014e-308", "ppr.MinThreshold", ppr.MinThresholdAt, "got 5e-324")
	_, err := within(t, g, p, retriever.Seed{NodeID: "A", Score: 1})
	wantErr(t, "Retrieve", err, "epsilon must be at least")

	p.Epsilon = ppr.MinThreshold
	if err := p.Validate(); err != nil {
		t.Fatal(err)
	}
	_, err = within(t, g, p, retriever.Seed{NodeID: "A", Score: 1})
	wantErr(t, "ε = 2⁻¹⁰²²", err, `node "A"`, `("A")-[:RELATES]-("B"), weight 0.3`, "ppr.MinThreshold", ppr.MinThresholdAt, "--epsilon")

	p.Epsilon = 1e-300
	r, err := within(t, g, p, retriever.Seed{NodeID: "A", Score: 1})
	if err != nil {
		t.Fatal(err)
	}
	near(t, r, map[string]float64{"A": 2.0 / 3, "B": 1.0 / 3})
	if n := stat(r, "pushes").(int); n < 900 || n > 1100 {
		t.Errorf("%d pushes, want about 1000", n)
	}
}

// TestTinyWeight: at the default ε = 1e-6, a node whose RELATES weights
// add up to 1e-318 or 5e-324 has ε × W = 1e-324 or 5e-330, 0 in floating
// point (below 2.5e-324): A–B alone of such a weight pushed forever (the
// residual halves to 0, and 0 ≥ 0). The run fails naming the node, its
// heaviest relationship and MinThreshold. On A–B (w 1), B–C (w 1e-318)
// from A, W(B) = 1 + 1e-318 = 1, B is pushed and sends C a subnormal
// residual; C, weighed, fails the run the same way (a relationship is
// written from the node named, as Reader.Around reads it).
func TestTinyWeight(t *testing.T) {
	for _, c := range []struct {
		name       string
		g          *inmem.Graph
		node, rels string
	}{
		{"A–B 1e-318", build(t, []string{"A", "B"}, "A-B:1e-318"), "A", `("A")-[:RELATES]-("B"), weight 1e-318`},
		{"A–B 5e-324", build(t, []string{"A", "B"}, "A-B:5e-324"), "A", `("A")-[:RELATES]-("B"), weight 5e-324`},
		{"B–C 1e-318", build(t, []string{"A", "B", "C"}, "A-B:1", "B-C:1e-318"), "C", `("C")-[:RELATES]-("B"), weight 1e-318`},
	} {
		_, err := within(t, c.g, ppr.DefaultParams(), retriever.Seed{NodeID: "A", Score: 1})
		wantErr(t, c.name, err, "node "+strconv.Quote(c.node), c.rels, "ε × W = 1e-06 ×", "ppr.MinThreshold", ppr.MinThresholdAt, "--epsilon")
	}
}

// TestMaxPushes: with d = 1 − 2⁻⁵³ each push of A–B (w 1) passes on all
// but 2⁻⁵³ of the residual, so the push would take some 10¹⁷ pushes to
// reach ε = 1e-6. With the limit lowered to 1,000 the run fails after
// exactly that many, naming ppr.MaxPushes and where it is declared.
func TestMaxPushes(t *testing.T) {
	defer ppr.SetMaxPushes(1000)()
	g := build(t, []string{"A", "B"}, "A-B:1")
	p := ppr.DefaultParams()
	p.Damping = 1 - 0x1p-53
	_, err := within(t, g, p, retriever.Seed{NodeID: "A", Score: 1})
	wantErr(t, "d = 1 − 2⁻⁵³", err, "did not end within 1000 pushes", "ppr.MaxPushes", ppr.MaxPushesAt, "--epsilon", "--damping")
}

// TestHugeWeights: A–B–C, weights 1e308, from A: W(A) = 1e308, so A's
// threshold ε × W = 1e-6 × 1e308 ≈ 1e302 (9.999999999999999e+301 in
// floating point) is far above its residual, the
// whole restart mass 1: nothing was pushed and the run returned no hits,
// not even the seed. It fails naming the seed, the numbers and the
// relationship. From B, W(B) = 1e308 + 1e308 overflows: the run fails
// naming B and its heaviest relationship (the first in Around's order,
// by the other end's id, on a tie: B–A). Two dangling seeds of R 1 each have p = ½, below ε = 0.6:
// the same, with ε alone. With weights 2¹⁰²⁰ and ε = 2⁻¹⁰²⁰ (exact powers
// of two) A's threshold is exactly 1 = its residual: A is pushed once,
// keeps (1 − d) × 1 = 0.5 and sends 0.5 to B, below B's threshold 2⁻¹⁰²⁰
// × 2¹⁰²¹ = 2. One hit, A at 0.5, its share 0.5, residual mass 0.5: all
// finite.
func TestHugeWeights(t *testing.T) {
	g := build(t, []string{"A", "B", "C"}, "A-B:1e308", "B-C:1e308")
	_, err := within(t, g, ppr.DefaultParams(), retriever.Seed{NodeID: "A", Score: 1})
	wantErr(t, "1e308", err, `seed "A": no node was pushed`, "p = 1", "1e-06 × 1e+308 = 9.999999999999999e+301", `("A")-[:RELATES]-("B"), weight 1e+308`, "--epsilon")
	_, err = within(t, g, ppr.DefaultParams(), retriever.Seed{NodeID: "B", Score: 1})
	wantErr(t, "1e308 from B", err, `node "B": its relationships' weights add up to more than a float can hold`, `("B")-[:RELATES]-("A"), weight 1e+308`)

	p := ppr.DefaultParams()
	p.Epsilon = 0.6
	_, err = within(t, build(t, []string{"S", "T"}), p, retriever.Seed{NodeID: "S", Score: 1}, retriever.Seed{NodeID: "T", Score: 1})
	wantErr(t, "dangling", err, `seed "S": no node was pushed`, "p = 0.5", "ε = 0.6", "--epsilon")

	g = build(t, []string{"A", "B", "C"}, "A-B:"+strconv.FormatFloat(0x1p1020, 'g', -1, 64), "B-C:"+strconv.FormatFloat(0x1p1020, 'g', -1, 64))
	p.Epsilon = 0x1p-1020
	r, err := within(t, g, p, retriever.Seed{NodeID: "A", Score: 1})
	if err != nil {
		t.Fatal(err)
	}
	if len(r.Hits) != 1 || r.Hits[0].NodeID != "A" || r.Hits[0].Score != 0.5 || len(r.Hits[0].Terms) != 1 || r.Hits[0].Terms[0].Value != 0.5 ||
		stat(r, "residual_mass") != 0.5 || stat(r, "pushes") != 1 {
		t.Errorf("%+v", r)
	}
}

// fuzzWeights are the weights a fuzzed graph's relationships draw from
// beside the two fuzzed ones: the extremes of the float range among them.
var fuzzWeights = []float64{1, 0.3, 0.01, 1e-318, 5e-324, 0x1p-1022, 1e300, 1e308, 0}

// FuzzPush: on a small random graph (2 to 8 nodes, up to 16 RELATES
// relationships, self-loops and parallels, a random type now and then)
// whose weights come from fuzzWeights, two fuzzed weights w1 and w2 and
// "none" (0.01), with fuzzed ε, seeds (a mask over the nodes) and seed
// scores, and d in {0.2, 0.5, 0.85}, the push ends within 20 s and
// MaxPushes pushes, either with an error or with every number of the
// ranking finite: scores in (0, 1], terms adding up to the score, hops'
// weights and factors, the residual mass.
func FuzzPush(f *testing.F) {
	f.Add(int64(1), uint8(0), 0.3, 0.3, 5e-324, uint8(1), uint8(1), uint8(0))
	f.Add(int64(2), uint8(1), 1e-318, 1e-318, 1e-6, uint8(1), uint8(1), uint8(0))
	f.Add(int64(3), uint8(1), 5e-324, 1.0, 1e-6, uint8(1), uint8(3), uint8(2))
	f.Add(int64(4), uint8(1), 1e308, 1e308, 1e-6, uint8(1), uint8(1), uint8(1))
	f.Add(int64(5), uint8(6), 0.5, 0.9, 1e-9, uint8(2), uint8(0xff), uint8(3))
	f.Add(int64(6), uint8(3), math.NaN(), -1.0, 1e-3, uint8(0), uint8(5), uint8(4))
	f.Add(int64(7), uint8(5), 1e-300, 1e300, 0x1p-1022, uint8(2), uint8(0x81), uint8(5))
	f.Fuzz(func(t *testing.T, seed int64, size uint8, w1, w2, eps float64, damp, mask, scores uint8) {
		r := rand.New(rand.NewSource(seed))
		n := 2 + int(size%7)
		g := &apoc.Graph{}
		for i := range n {
			g.Nodes = append(g.Nodes, apoc.Node{InternalID: strconv.Itoa(i), Labels: []string{"Memory"}, Properties: map[string]any{"id": "N" + strconv.Itoa(i)}})
		}
		for i := range 1 + r.Intn(2*n) {
			props := map[string]any{}
			switch k := r.Intn(len(fuzzWeights) + 3); {
			case k < len(fuzzWeights):
				props["weight"] = fuzzWeights[k]
			case k == len(fuzzWeights):
				props["weight"] = w1
			case k == len(fuzzWeights)+1:
				props["weight"] = w2
			}
			typ := "RELATES"
			if r.Intn(8) == 0 {
				typ = "MENTIONS"
			}
			g.Rels = append(g.Rels, apoc.Relationship{InternalID: strconv.Itoa(i), Type: typ,
				Start: strconv.Itoa(r.Intn(n)), End: strconv.Itoa(r.Intn(n)), Properties: props})
		}
		m, err := inmem.New(g, "fuzz")
		if err != nil {
			t.Skip(err) // a graph the loader refuses is not the push's input
		}
		var seeds []retriever.Seed
		for i := range n {
			if mask&(1<<i) != 0 || (i == 0 && mask&(1<<n-1) == 0) {
				seeds = append(seeds, retriever.Seed{NodeID: "N" + strconv.Itoa(i), Score: []float64{1, 0.5, 0.1, 1e-300}[(int(scores)>>(i%4))&3]})
			}
		}
		p := ppr.Params{Damping: []float64{0.2, 0.5, 0.85}[damp%3], Epsilon: eps, TopK: 50}
		got, err := within(t, m, p, seeds...)
		if err != nil {
			if err.Error() == "" {
				t.Fatal("an empty error")
			}
			return
		}
		finite := func(what string, x float64) {
			if math.IsNaN(x) || math.IsInf(x, 0) {
				t.Fatalf("%s = %v", what, x)
			}
		}
		if pushes := stat(got, "pushes").(int); pushes > ppr.MaxPushes {
			t.Fatalf("%d pushes", pushes)
		}
		res := stat(got, "residual_mass").(float64)
		finite("residual mass", res)
		if res < 0 || res > 1+1e-9 {
			t.Fatalf("residual mass %v", res)
		}
		for _, h := range got.Hits {
			finite(h.NodeID, h.Score)
			if h.Score <= 0 || h.Score > 1+1e-9 {
				t.Fatalf("%s = %v", h.NodeID, h.Score)
			}
			sum := 0.0
			for _, term := range h.Terms {
				finite(h.NodeID+" "+term.Name, term.Value)
				sum += term.Value
			}
			if sum != h.Score {
				t.Fatalf("%s: terms add up to %v, score %v", h.NodeID, sum, h.Score)
			}
			for _, hop := range append(append([]retriever.Hop{}, h.Route...), h.Feeders...) {
				finite(h.NodeID+" hop weight", hop.Weight)
				finite(h.NodeID+" hop factor", hop.Factor)
			}
		}
	})
}
