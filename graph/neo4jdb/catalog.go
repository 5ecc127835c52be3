package neo4jdb

import (
	"context"
	"fmt"

	"github.com/memoria-graph/memoria/graph"
)

// Tags lists the distinct tags of RELATES relationships with the number of
// relationships carrying each (a tag repeated on one relationship counts
// once), most frequent first, then by tag. Under a mapping they are the
// traversed relationships' tags, read from the mapped property.
func (s *Source) Tags(ctx context.Context) ([]graph.TagCount, error) {
	query, params := tagsQuery, map[string]any{}
	if m := s.mapping(); m != nil {
		if query = m.tagsQuery(params); query == "" {
			return []graph.TagCount{}, nil
		}
	}
	recs, err := s.Query(ctx, query, params)
	if err != nil {
		return nil, err
	}
	out := make([]graph.TagCount, 0, len(recs))
	for _, rec := range recs {
		ok, err := Column[bool](rec, "ok")
		if err != nil {
			return nil, err
		}
		tag, err := Column[string](rec, "tag")
		if err != nil {
			return nil, err
		}
		if !ok {
			return nil, fmt.Errorf("RELATES relationship %s: property %s must be a list of strings", tag, graph.QuoteName(s.Schema().TagsProperty))
		}
		n, err := Column[int64](rec, "count")
		if err != nil {
			return nil, err
		}
		out = append(out, graph.TagCount{Tag: tag, Count: int(n)})
	}
	return out, nil
}

// Node fetches one node by id.
func (s *Source) Node(ctx context.Context, id string) (graph.Node, bool, error) {
	if s.mapping() != nil {
		return s.mappedNode(ctx, id)
	}
	recs, err := s.Query(ctx, nodeQuery, map[string]any{"node_id": id})
	if err != nil {
		return graph.Node{}, false, err
	}
	return OneNode(recs, id)
}
