package fusion

import (
	"errors"
	"fmt"
	"maps"
	"math"
	"slices"
	"strconv"
	"strings"

	"github.com/memoria-graph/memoria/retriever"
)

// Params are the fusion's parameters (docs/RETRIEVERS.md, "Fusion
// (Reciprocal Rank Fusion)").
type Params struct {
	// Fuse names the rankings fused, one retriever each, in the order
	// their terms are added (and shown): at least one, each once.
	Fuse []string
	// Depth is how many hits of each ranking are fused (its top Depth):
	// at least 1. The caller runs each listed retriever with its own top
	// K set to Depth.
	Depth int
	// K is RRF's k, a finite number of at least 0: a hit at rank r (from
	// 1) of a ranking brings 1/(k + r). 60 by default (Cormack, Clarke and
	// Buettcher). Graphiti's constant is 1 but it counts positions from 0,
	// so its first place brings 1/1: K = 0 here.
	K float64
	// TopK is how many fused hits are kept: at least 1.
	TopK int
	// Weights weigh each fused ranking's terms (weighted RRF: a hit at rank
	// r of ranking A brings Weights[A] / (k + r)), by retriever name; a
	// ranking not in it weighs 1, so nil is plain RRF. Each a finite number
	// of at least 0, naming a ranking of Fuse.
	Weights map[string]float64
}

// weight is ranking name's weight (1 unless Weights says otherwise).
func (p Params) weight(name string) float64 {
	if w, ok := p.Weights[name]; ok {
		return w
	}
	return 1
}

// weighted says whether some weight is not 1.
func (p Params) weighted() bool {
	for _, w := range p.Weights {
		if w != 1 {
			return true
		}
	}
	return false
}

// ParseWeights reads --fuse-weights' items, NAME=W each.
func ParseWeights(items []string) (map[string]float64, error) {
	out := map[string]float64{}
	for _, it := range items {
		name, v, ok := strings.Cut(it, "=")
		name = strings.TrimSpace(name)
		if !ok || name == "" {
			return nil, fmt.Errorf("%q is not NAME=WEIGHT", it)
		}
		w, err := strconv.ParseFloat(strings.TrimSpace(v), 64)
		if err != nil {
			return nil, fmt.Errorf("%q: the weight is not a number", it)
		}
		if _, dup := out[name]; dup {
			return nil, fmt.Errorf("%q is weighed twice", name)
		}
		out[name] = w
	}
	return out, nil
}

// DefaultParams fuse activation, expansion, spreading and ppr, each to
// depth 100, with k = 60, keeping the top 10.
func DefaultParams() Params {
	return Params{Fuse: []string{"activation", "expansion", "spreading", "ppr"}, Depth: 100, K: 60, TopK: 10}
}

// Validate names every parameter out of its range.
func (p Params) Validate() error {
	var errs []error
	if err := checkNames(p.Fuse); err != nil {
		errs = append(errs, err)
	}
	if p.Depth < 1 {
		errs = append(errs, fmt.Errorf("fuse depth must be at least 1, got %d", p.Depth))
	}
	if math.IsNaN(p.K) || math.IsInf(p.K, 0) || p.K < 0 {
		errs = append(errs, fmt.Errorf("rrf k must be a finite number of at least 0, got %v", p.K))
	}
	if p.TopK < 1 {
		errs = append(errs, fmt.Errorf("top k must be at least 1, got %d", p.TopK))
	}
	for _, name := range slices.Sorted(maps.Keys(p.Weights)) {
		w := p.Weights[name]
		if math.IsNaN(w) || math.IsInf(w, 0) || w < 0 {
			errs = append(errs, fmt.Errorf("fuse weights give %q %v: each must be a finite number of at least 0", name, w))
		}
		if !slices.Contains(p.Fuse, name) {
			errs = append(errs, fmt.Errorf("fuse weights name %q, which fuse does not list", name))
		}
	}
	return errors.Join(errs...)
}

// checkNames: at least one name; each non-empty, without a comma or
// surrounding space (so that ParseFuse reads back what Fields writes),
// and given once.
func checkNames(names []string) error {
	if len(names) == 0 {
		return errors.New("fuse needs at least one retriever")
	}
	var errs []error
	seen := make(map[string]bool, len(names))
	for i, n := range names {
		switch {
		case n == "":
			errs = append(errs, fmt.Errorf("fuse: name %d is empty", i+1))
			continue
		case strings.TrimSpace(n) != n || strings.Contains(n, ","):
			errs = append(errs, fmt.Errorf("fuse: name %d, %q, has a comma or surrounding space", i+1, n))
		case seen[n]:
			errs = append(errs, fmt.Errorf("fuse: %q is listed twice", n))
		}
		seen[n] = true
	}
	return errors.Join(errs...)
}

// ParseFuse reads a --fuse value, names separated by commas
// ("activation,ppr"), each trimmed of spaces. It refuses an empty name
// ("a,,b", a trailing comma, an empty value) and a name given twice. It
// does not check that the names are retrievers: the caller knows which
// there are.
func ParseFuse(s string) ([]string, error) {
	if strings.TrimSpace(s) == "" {
		return nil, errors.New("fuse needs at least one retriever")
	}
	parts := strings.Split(s, ",")
	for i := range parts {
		parts[i] = strings.TrimSpace(parts[i])
	}
	if err := checkNames(parts); err != nil {
		return nil, err
	}
	return parts, nil
}

// Fields are the parameters as a ranking reports them.
func (p Params) Fields() retriever.Fields {
	f := retriever.Fields{
		{Name: "fuse", Value: slices.Clone(p.Fuse)},
		{Name: "fuse_depth", Value: p.Depth},
		{Name: "rrf_k", Value: p.K},
		{Name: "top_k", Value: p.TopK},
	}
	if p.weighted() {
		w := make(retriever.Fields, len(p.Fuse))
		for i, name := range p.Fuse {
			w[i] = retriever.Field{Name: name, Value: p.weight(name)}
		}
		f = append(f, retriever.Field{Name: "fuse_weights", Value: w})
	}
	return f
}
