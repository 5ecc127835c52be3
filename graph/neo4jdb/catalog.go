package neo4jdb

import (
	"context"
	"fmt"
	"strings"

	"github.com/memoria-graph/memoria/graph"
)

// ListNodes returns up to limit nodes with a string id, ordered by id, after
// skipping offset; limit <= 0 means no limit. A non-empty filter keeps nodes
// whose id or text contains it, ignoring case. Paging happens on the server
// (SKIP/LIMIT, one row more than asked to learn whether there are more).
func (s *Source) ListNodes(ctx context.Context, filter string, offset, limit int) ([]graph.NodeSummary, bool, error) {
	offset = max(offset, 0)
	query := listNodesQuery
	params := map[string]any{"filter": strings.ToLower(filter), "offset": int64(offset)}
	if limit > 0 {
		query += "\nLIMIT $limit"
		params["limit"] = int64(limit) + 1
	}
	recs, err := s.Query(ctx, query, params)
	if err != nil {
		return nil, false, err
	}
	out := make([]graph.NodeSummary, 0, len(recs))
	for _, rec := range recs {
		id, err := Column[string](rec, "id")
		if err != nil {
			return nil, false, err
		}
		labels, err := Strings(rec, "labels")
		if err != nil {
			return nil, false, fmt.Errorf("node %q: %w", id, err)
		}
		text, err := Column[string](rec, "text")
		if err != nil {
			return nil, false, fmt.Errorf("node %q: %w", id, err)
		}
		out = append(out, graph.NodeSummary{ID: id, Labels: labels, Text: text})
	}
	more := false
	if limit > 0 && len(out) > limit {
		out, more = out[:limit], true
	}
	return out, more, nil
}

// Tags lists the distinct tags of RELATES relationships with the number of
// relationships carrying each (a tag repeated on one relationship counts
// once), most frequent first, then by tag.
func (s *Source) Tags(ctx context.Context) ([]graph.TagCount, error) {
	recs, err := s.Query(ctx, tagsQuery, nil)
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
			return nil, fmt.Errorf("RELATES relationship %s: property tags must be a list of strings", tag)
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
	recs, err := s.Query(ctx, nodeQuery, map[string]any{"node_id": id})
	if err != nil {
		return graph.Node{}, false, err
	}
	return OneNode(recs, id)
}
