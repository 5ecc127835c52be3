package retriever

import (
	"fmt"
	"strconv"

	"github.com/memoria-graph/memoria/graph"
)

// ParallelRels are the RELATES relationships of one read grouped by their
// ends as read (from, to) and their weight, each group in the read's order
// (graph.SortRels). A walk that keeps only a relationship's other end and
// weight cannot tell parallel relationships alike in both apart; it tells
// them apart by their place instead, the nth of its group, the same way at
// every read, and Nth finds the relationship itself for the hit's
// provenance (spreading activation's and personalized PageRank's routes
// and feeders).
type ParallelRels struct {
	rels  []graph.Rel
	alike map[parallelKey][]int
}

type parallelKey struct {
	from, to string
	w        float64
}

// GroupParallel groups the RELATES relationships of rels, each weighed by
// weight (whose error stops it).
func GroupParallel(rels []graph.Rel, weight func(graph.Rel) (float64, error)) (ParallelRels, error) {
	p := ParallelRels{rels: rels, alike: map[parallelKey][]int{}}
	for i, rel := range rels {
		if rel.Edge.Type != graph.Relates {
			continue
		}
		w, err := weight(rel)
		if err != nil {
			return ParallelRels{}, err
		}
		k := parallelKey{rel.Edge.SourceID, rel.Edge.TargetID, w}
		p.alike[k] = append(p.alike[k], i)
	}
	return p, nil
}

// Nth is the nth (from 0) RELATES relationship read from node from to node
// to with weight w, a pointer into the read; a read that holds fewer is an
// error naming the relationship, which left the graph during the read.
func (p ParallelRels) Nth(from, to string, w float64, n int) (*graph.Rel, error) {
	list := p.alike[parallelKey{from, to, w}]
	if n >= len(list) {
		return nil, fmt.Errorf("relationship (%s)-[:%s]-(%s): gone from the graph during the read",
			strconv.Quote(from), graph.Relates, strconv.Quote(to))
	}
	return &p.rels[list[n]], nil
}
