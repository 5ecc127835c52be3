package expansion

import (
	"context"

	"github.com/memoria-graph/memoria/graph"
	"github.com/memoria-graph/memoria/retriever"
)

// ContextHop is one relationship around a hit (retriever.ContextHop):
// Weight as the expansion counts it (WeightOf), TypeWeight its type's in
// the table; Followed is false for a self-loop and for a type the table
// does not follow.
type ContextHop = retriever.ContextHop

// Context reads the relationships around the node whose id is id, in
// graph.SortRels order, each with the weights the expansion would use
// with p and the properties of both (three reads). found is false when
// there is no such node.
func Context(ctx context.Context, nb graph.Neighbourhood, id string, p Params) (hops []ContextHop, found bool, err error) {
	err = nb.Read(ctx, func(r graph.Reader) error {
		hops, found = nil, false
		refs, err := r.Nodes(ctx, []string{id})
		if err != nil || len(refs) == 0 {
			return err
		}
		found = true
		rels, err := r.Around(ctx, refs)
		if err != nil {
			return err
		}
		nodes := make([]*graph.NodeRef, len(rels))
		ptrs := make([]*graph.Rel, len(rels))
		for i := range rels {
			nodes[i], ptrs[i] = &rels[i].To, &rels[i]
		}
		if err := r.Details(ctx, nodes, ptrs); err != nil {
			return err
		}
		for _, rel := range rels {
			w, err := WeightOf(rel)
			if err != nil {
				return err
			}
			tw, ok := p.TypeWeights[rel.Edge.Type]
			hops = append(hops, ContextHop{Type: rel.Edge.Type, Other: rel.To.Node, Weight: w, TypeWeight: tw,
				Followed: ok && tw != 0 && rel.Edge.SourceID != rel.Edge.TargetID, Edge: rel.Full()})
		}
		return nil
	})
	return hops, found, err
}
