package retriever

import (
	"bytes"
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"slices"
	"strings"

	"github.com/memoria-graph/memoria/graph"
)

// Query is what every retriever is asked: the seeds a vector search found
// (each with its score R) and the query tags (a retriever that does not
// use tags ignores them).
type Query struct {
	Seeds []Seed
	Tags  []string
	// Probe are node ids whose place in the retriever's whole ranking
	// (every node it scores, before the cut at K) the caller asks about: a
	// retriever that answers puts those it ranks in Ranking.Probed, at no
	// cost beyond a look-up each (eval's "where the relevant nodes went",
	// docs/EVALUATION.md). Nil asks nothing.
	Probe []string
}

// Probing is q.Probe as a set; nil when it asks nothing.
func (q Query) Probing() map[string]bool {
	if q.Probe == nil {
		return nil
	}
	want := make(map[string]bool, len(q.Probe))
	for _, id := range q.Probe {
		want[id] = true
	}
	return want
}

// ProbedOf are the ids of want among a retriever's n scored candidates
// (id(i) the i-th's), sorted: a Ranking's Probed. Nil when want is nil,
// and never nil otherwise, so that a caller can tell "none ranked" from
// "not asked".
func ProbedOf(want map[string]bool, n int, id func(i int) string) []string {
	if want == nil {
		return nil
	}
	out := []string{}
	for i := range n {
		if x := id(i); want[x] {
			out = append(out, x)
		}
	}
	slices.Sort(out)
	return out
}

// Validate checks the seeds (ValidateSeeds) and that no seed id repeats.
func (q Query) Validate() error {
	var errs []error
	if err := ValidateSeeds(q.Seeds); err != nil {
		errs = append(errs, err)
	}
	seen := make(map[string]bool, len(q.Seeds))
	for _, s := range q.Seeds {
		if seen[s.NodeID] {
			errs = append(errs, errors.New("seed "+quote(s.NodeID)+" is given twice"))
		}
		seen[s.NodeID] = true
	}
	return errors.Join(errs...)
}

func quote(s string) string {
	b, _ := json.Marshal(s)
	return string(b)
}

// Origin says where a hit's score came from.
type Origin string

const (
	// OriginInitial: the hit is a seed and its score is its R.
	OriginInitial Origin = "initial"
	// OriginExpanded: the score came from a route through the graph.
	OriginExpanded Origin = "expanded"
)

// Hop is one relationship of a hit's route, from the seed outwards, or
// one of a hit's feeders (Hit.Feeders, which says what the fields mean
// there).
type Hop struct {
	From string `json:"from"`
	To   string `json:"to"`
	Type string `json:"type"`
	// Weight is the relationship's weight as the retriever used it (its
	// own, or the retriever's default when it has none).
	Weight float64 `json:"weight"`
	// Factor is what the hop multiplied the score by (on a route; a
	// feeder's is the amount it brought).
	Factor float64 `json:"factor"`
	// Edge is the relationship itself (its element id pins it in the
	// debug Cypher).
	Edge graph.Edge `json:"-"`
}

// Term is one factor of a hit's score multiplied out: a name ("R(S1)",
// "FIXES", "f", "δ^1") and its value. The product of a hit's terms, in
// order, is its score.
type Term struct {
	Name  string  `json:"name"`
	Value float64 `json:"value"`
}

// Hit is one memory a retriever returned.
type Hit struct {
	Rank   int      `json:"rank"`
	NodeID string   `json:"node_id"`
	Score  float64  `json:"score"`
	Labels []string `json:"labels"`
	// Seed is the seed the hit's best route starts at (the hit itself for
	// an initial hit).
	Seed   string `json:"seed"`
	Origin Origin `json:"origin"`
	// Route is the best route from Seed to the hit; empty for an initial
	// hit.
	Route []Hop `json:"route"`
	// Feeders are the relationships that fed the hit most, strongest
	// first, for a retriever whose score gathers what many relationships
	// bring a node (spreading activation, personalized PageRank:
	// docs/RETRIEVERS.md says each one's rule for choosing them; fusion
	// copies them from the list the hit ranks best in); nil for a
	// retriever with no such notion
	// (Activation Energy, the typed expansion), and for a hit nothing was
	// brought to. Each hop runs from the feeder to the hit: From is the
	// node at the relationship's other end, To the hit, Type the
	// relationship's type; Weight is the relationship's weight as the
	// retriever counted it (its own, or the retriever's default when it
	// has none); Factor is not a multiplier here but the amount the
	// relationship brought the hit, over the whole run; Edge is the
	// relationship itself, its properties read (its element id or its
	// properties pin it in the debug Cypher).
	Feeders []Hop `json:"feeders,omitempty"`
	// Contradicting marks a hit reached through a negative hop: its score
	// is negative.
	Contradicting bool `json:"contradicting,omitempty"`
	// Terms is the score multiplied out (summed, with TermsAdd).
	Terms []Term `json:"terms"`
	// Detail is what else a retriever says about the hit, named in its
	// own terms (docs/RETRIEVERS.md says what each retriever puts there);
	// none when empty.
	Detail Fields `json:"detail,omitempty"`
	// TermsAdd says the score is the sum of Terms, in order, rather than
	// their product (a retriever whose score is a sum of parts, as
	// personalized PageRank's seeds' shares).
	TermsAdd bool `json:"terms_add,omitempty"`
	// Node is the node itself, for front ends.
	Node graph.Node `json:"-"`
}

// SeedStatus is one seed of the query as a ranking reports it.
type SeedStatus struct {
	NodeID string  `json:"node_id"`
	Score  float64 `json:"score"`
	Found  bool    `json:"found"`
}

// Field is one named value of a ranking's parameters or statistics.
type Field struct {
	Name  string
	Value any
}

// Fields is an ordered set of named values, written in JSON as an object
// whose keys keep their order.
type Fields []Field

// MarshalJSON writes the fields as one object, in order.
func (f Fields) MarshalJSON() ([]byte, error) {
	var b bytes.Buffer
	b.WriteByte('{')
	for i, x := range f {
		if i > 0 {
			b.WriteByte(',')
		}
		k, err := json.Marshal(x.Name)
		if err != nil {
			return nil, err
		}
		v, err := json.Marshal(x.Value)
		if err != nil {
			return nil, err
		}
		b.Write(k)
		b.WriteByte(':')
		b.Write(v)
	}
	b.WriteByte('}')
	return b.Bytes(), nil
}

// Get returns the value named name.
func (f Fields) Get(name string) (any, bool) {
	for _, x := range f {
		if x.Name == name {
			return x.Value, true
		}
	}
	return nil, false
}

// Ranking is what every retriever returns (docs/RETRIEVERS.md, "The
// ranking"): its name and parameters, the seeds, the ranked hits and the
// retriever's statistics. `--format ranking` writes it as it is.
type Ranking struct {
	Retriever string `json:"retriever"`
	// Filter describes the relationship filter the retriever ran under
	// (graph.RelFilter's String; "" for none). The caller that applied it
	// sets it: a retriever reads a filtered graph like any other.
	Filter string       `json:"filter,omitempty"`
	Params Fields       `json:"params"`
	Seeds  []SeedStatus `json:"seeds"`
	Hits   []Hit        `json:"hits"`
	Stats  Fields       `json:"stats"`
	// Probed are the ids of the query's Probe that the retriever's whole
	// ranking holds (ProbedOf); nil when it was not asked, or does not
	// answer (the caller then runs it at its whole-ranking K: Spec.WholeK).
	Probed []string `json:"-"`
}

// Compare is the ranking rule's order of two hits, by their scores and node
// ids: negative when a ranks before b. A retriever that orders light
// candidates before building its hits uses it (and then Rank on the kept
// hits, which keeps their order).
func Compare(aScore float64, aID string, bScore float64, bID string) int {
	if c := cmp.Compare(bScore, aScore); c != 0 {
		return c
	}
	return strings.Compare(aID, bID)
}

// Best returns the first k of xs (all of them when fewer) in cmp's order,
// which must be total (the ranking rule's, Compare, is: node ids are
// distinct), without sorting the rest: the k kept are found through a heap
// of the best so far (n log k comparisons, where a sort makes n log n), then
// sorted. xs is reordered in place and the result is its first k. A
// retriever that ranks thousands of candidates to keep ten uses it where it
// would sort them all and cut.
func Best[T any](xs []T, k int, cmp func(a, b T) int) []T {
	k = max(0, min(k, len(xs)))
	if k < len(xs) {
		// xs[:k] is a heap whose root is the worst of the k best so far.
		worse := func(i, j int) bool { return cmp(xs[i], xs[j]) > 0 }
		down := func(i int) {
			for {
				c := 2*i + 1
				if c >= k {
					return
				}
				if c+1 < k && worse(c+1, c) {
					c++
				}
				if !worse(c, i) {
					return
				}
				xs[i], xs[c] = xs[c], xs[i]
				i = c
			}
		}
		for i := k/2 - 1; i >= 0; i-- {
			down(i)
		}
		for i := k; i < len(xs) && k > 0; i++ {
			if cmp(xs[i], xs[0]) < 0 {
				xs[0], xs[i] = xs[i], xs[0]
				down(0)
			}
		}
	}
	slices.SortFunc(xs[:k], cmp)
	return xs[:k]
}

// Rank is the one ranking rule: hits by score, descending, then by node id;
// ranks 1, 2, ... in that order. With k > 0 the hits beyond the k-th are
// returned apart, as cut (ranked too, k+1 onwards). hits is sorted in
// place.
func Rank(hits []Hit, k int) (kept, cut []Hit) {
	slices.SortFunc(hits, func(a, b Hit) int { return Compare(a.Score, a.NodeID, b.Score, b.NodeID) })
	for i := range hits {
		hits[i].Rank = i + 1
	}
	if k > 0 && len(hits) > k {
		return hits[:k:k], hits[k:]
	}
	return hits, nil
}

// Retrieve is what a ranking retriever's entry point does around its
// work: it checks the query and the parameters, then runs fn with a
// Reader over one read of nb (fn may run again after a transient failure,
// so it starts afresh each time).
func Retrieve(ctx context.Context, nb graph.Neighbourhood, q Query, params interface{ Validate() error }, fn func(graph.Reader) (Ranking, error)) (Ranking, error) {
	if err := q.Validate(); err != nil {
		return Ranking{}, err
	}
	if err := params.Validate(); err != nil {
		return Ranking{}, err
	}
	var out Ranking
	err := nb.Read(ctx, func(r graph.Reader) error {
		var err error
		out, err = fn(r)
		return err
	})
	return out, err
}

// FindSeeds looks the seeds up with one Reader.Nodes and returns the
// nodes found by id.
func FindSeeds(ctx context.Context, r graph.Reader, seeds []Seed) (map[string]graph.NodeRef, error) {
	ids := make([]string, len(seeds))
	for i, s := range seeds {
		ids[i] = s.NodeID
	}
	found, err := r.Nodes(ctx, ids)
	if err != nil {
		return nil, err
	}
	byID := make(map[string]graph.NodeRef, len(found))
	for _, f := range found {
		byID[f.Node.ID] = f
	}
	return byID, nil
}
