// Package overlap compares the rankings of several retrievers run on the same
// query (docs/RETRIEVERS.md, "Comparing rankings"): each ranking cut to its
// top K, the union of their nodes with each node's rank in each list, the
// nodes only one list holds, and for each pair of lists their Jaccard@K and
// rank-biased overlap (RBO, Webber, Moffat and Zobel 2010).
//
// It is pure: it reads only its arguments, never mutates them, and imports
// only the standard library and package retriever. `memoria compare` and the
// explorer's comparison table are built on it; render.CompareText and
// render.CompareJSON write its Result.
package overlap

import (
	"cmp"
	"errors"
	"fmt"
	"slices"
	"strconv"

	"github.com/memoria-graph/memoria/retriever"
)

// P is the persistence of the rank-biased overlap Compare reports: the
// chance that a reader of both lists, having compared them to depth d, goes
// on to depth d+1. With p = 0.9 the first 10 ranks carry 85.6% of the
// weight (the weight of the top d ranks is in closed form in Webber et al.
// 2010; RBO's doc comment cites the paper).
const P = 0.9

// Result is the comparison of some rankings cut to their top K. Its JSON is
// the part of `memoria compare --format json` that is not the rankings
// themselves: embedded in a struct beside a `rankings` field (it has no
// MarshalJSON of its own, so its fields are promoted), it writes the keys
// "nodes", "overlap" and "only" in that order (render.CompareJSON does so).
type Result struct {
	// Names are the lists' names, in the order given to Compare: the order
	// of every Ranks, of Only and of the pairs.
	Names []string `json:"-"`
	// K is the cut as given to Compare; 0 or less kept every hit.
	K int `json:"-"`
	// Nodes is the union of the lists' node ids, in the union order
	// (Compare's doc comment), each with its rank in each list.
	Nodes []Node `json:"nodes"`
	// Pairs has one entry for each pair of lists (a, b) with a before b in
	// Names: (0,1), (0,2), …, (1,2), ….
	Pairs []Pair `json:"overlap"`
	// Only lists, for each list in Names order, the nodes no other list
	// holds, in the union order.
	Only Only `json:"only"`
}

// Node is one node of the union and its rank in each list.
type Node struct {
	NodeID string `json:"node_id"`
	// Ranks has one entry per list, in Names order.
	Ranks Ranks `json:"ranks"`
}

// ListRank is a node's rank in one list: its position (from 1) in the
// list's top K, or 0 when the node is not in it.
type ListRank struct {
	List string
	Rank int
}

// Ranks is a node's rank in each list, in Names order. Its JSON is one
// object keyed by the lists' names in that order, null for a list that
// does not hold the node: {"activation": 1, "ppr": null}.
type Ranks []ListRank

// MarshalJSON writes the ranks as one object, keys in order, 0 as null.
func (rs Ranks) MarshalJSON() ([]byte, error) {
	f := make(retriever.Fields, len(rs))
	for i, r := range rs {
		f[i] = retriever.Field{Name: r.List}
		if r.Rank > 0 {
			f[i].Value = r.Rank
		}
	}
	return f.MarshalJSON()
}

// Held is how many lists hold the node.
func (n Node) Held() int {
	c := 0
	for _, r := range n.Ranks {
		if r.Rank > 0 {
			c++
		}
	}
	return c
}

// Best is the node's best (lowest) rank over the lists that hold it.
func (n Node) Best() int {
	best := 0
	for _, r := range n.Ranks {
		if r.Rank > 0 && (best == 0 || r.Rank < best) {
			best = r.Rank
		}
	}
	return best
}

// OnlyIn is the one list that holds the node, when exactly one does.
func (n Node) OnlyIn() (list string, ok bool) {
	held := 0
	for _, r := range n.Ranks {
		if r.Rank > 0 {
			list, held = r.List, held+1
		}
	}
	if held != 1 {
		return "", false
	}
	return list, true
}

// ListNodes is one list and some of its node ids.
type ListNodes struct {
	List    string
	NodeIDs []string
}

// Only is, for each list in Names order, the nodes only that list holds.
// Its JSON is one object keyed by the lists' names in that order, each an
// array of node ids ([] when none): {"activation": ["N2011"], "ppr": []}.
type Only []ListNodes

// MarshalJSON writes the lists as one object, keys in order.
func (o Only) MarshalJSON() ([]byte, error) {
	f := make(retriever.Fields, len(o))
	for i, l := range o {
		ids := l.NodeIDs
		if ids == nil {
			ids = []string{}
		}
		f[i] = retriever.Field{Name: l.List, Value: ids}
	}
	return f.MarshalJSON()
}

// Pair is the agreement of two lists' top K.
type Pair struct {
	A string `json:"a"`
	B string `json:"b"`
	// Jaccard is Jaccard(a, b) of the two cut lists.
	Jaccard float64 `json:"jaccard"`
	// RBO is RBO(a, b, P) of the two cut lists: the extrapolated RBO_ext.
	RBO float64 `json:"rbo"`
}

// Compare compares rankings, named names (one name per ranking, each
// non-empty and distinct: they key the JSON), each cut to its top k.
//
// Each list is a ranking's node ids in the order of its Hits, which is rank
// order, cut to the first k (every hit when k is 0 or less). A node's rank
// in a list is its position there, from 1; Hit.Rank is not read. For a
// ranking retriever.Rank made the two are the same, since Rank numbers the
// hits 1, 2, … in order and breaks equal scores by node id; so hits that
// share a score (or, in a hand-made ranking, a Rank value) are never tied
// here: they are distinct positions in Hits order, and a cut between them
// keeps the first. A list that repeats a node id in its top k is an error
// (Jaccard and RBO are defined on lists of distinct items, and Rank never
// makes one); so are len(names) != len(rankings) and an empty or repeated
// name.
//
// The union is ordered by each node's best rank over the lists (1 first),
// then by how many lists hold it (more first), then by node id (byte
// order): the lists' shared top comes first, and a row's position says how
// high some retriever put it. A node "only" one list holds is in Only under
// that list (with a single ranking, every node is).
//
// For each pair (a, b), a before b in names: Jaccard(a, b) and RBO(a, b, P)
// of the cut lists.
func Compare(names []string, rankings []retriever.Ranking, k int) (Result, error) {
	if len(names) != len(rankings) {
		return Result{}, fmt.Errorf("overlap: %d names for %d rankings", len(names), len(rankings))
	}
	lists := make([][]string, len(rankings))
	var errs []error
	for i, name := range names {
		if name == "" {
			errs = append(errs, fmt.Errorf("overlap: ranking %d has no name", i+1))
		} else if slices.Index(names, name) < i {
			errs = append(errs, fmt.Errorf("overlap: the name %s is given twice", strconv.Quote(name)))
		}
		hits := rankings[i].Hits
		if k > 0 && len(hits) > k {
			hits = hits[:k]
		}
		lists[i] = make([]string, len(hits))
		seen := make(map[string]bool, len(hits))
		for j, h := range hits {
			if seen[h.NodeID] {
				errs = append(errs, fmt.Errorf("overlap: ranking %s lists node %s twice", strconv.Quote(name), strconv.Quote(h.NodeID)))
			}
			seen[h.NodeID] = true
			lists[i][j] = h.NodeID
		}
	}
	if err := errors.Join(errs...); err != nil {
		return Result{}, err
	}
	res := Result{Names: slices.Clone(names), K: k, Nodes: union(names, lists), Only: make(Only, len(names))}
	for i, name := range names {
		res.Only[i] = ListNodes{List: name, NodeIDs: []string{}}
	}
	for _, n := range res.Nodes {
		if list, ok := n.OnlyIn(); ok {
			i := slices.Index(names, list)
			res.Only[i].NodeIDs = append(res.Only[i].NodeIDs, n.NodeID)
		}
	}
	for i := range names {
		for j := i + 1; j < len(names); j++ {
			res.Pairs = append(res.Pairs, Pair{A: names[i], B: names[j], Jaccard: Jaccard(lists[i], lists[j]), RBO: RBO(lists[i], lists[j], P)})
		}
	}
	return res, nil
}

// union is the lists' node ids with their ranks, in the union order.
func union(names []string, lists [][]string) []Node {
	at := map[string]int{} // node id → index in nodes
	var nodes []Node
	for i, list := range lists {
		for pos, id := range list {
			x, ok := at[id]
			if !ok {
				x = len(nodes)
				at[id] = x
				ranks := make(Ranks, len(names))
				for j, name := range names {
					ranks[j].List = name
				}
				nodes = append(nodes, Node{NodeID: id, Ranks: ranks})
			}
			nodes[x].Ranks[i].Rank = pos + 1
		}
	}
	slices.SortFunc(nodes, func(a, b Node) int {
		return cmp.Or(cmp.Compare(a.Best(), b.Best()), cmp.Compare(b.Held(), a.Held()), cmp.Compare(a.NodeID, b.NodeID))
	})
	return nodes
}

// Jaccard is |A ∩ B| / |A ∪ B| of the sets of ids of a and b. Two empty
// lists give 1: they agree entirely (as any list does with itself), and a
// comparison of two retrievers that both found nothing should not read as
// total disagreement. An empty list and a non-empty one give 0.
func Jaccard(a, b []string) float64 {
	if len(a) == 0 && len(b) == 0 {
		return 1
	}
	inA := make(map[string]bool, len(a))
	for _, id := range a {
		inA[id] = true
	}
	shared, union := 0, len(inA)
	seenB := make(map[string]bool, len(b))
	for _, id := range b {
		if seenB[id] {
			continue
		}
		seenB[id] = true
		if inA[id] {
			shared++
		} else {
			union++
		}
	}
	return float64(shared) / float64(union)
}
