package neo4jgraph

import (
	"context"
	"fmt"
	"strings"

	"github.com/neo4j/neo4j-go-driver/v5/neo4j"

	"github.com/memoria-graph/memoria/retriever"
)

// collectRead runs one query in a read transaction (retried once after a
// transient failure) and returns its records.
func (s *Source) collectRead(ctx context.Context, query string, params map[string]any) ([]*neo4j.Record, error) {
	out, err := s.readRetry(ctx, func(ctx context.Context, tx neo4j.ManagedTransaction) (any, error) {
		res, err := tx.Run(ctx, query, params)
		if err != nil {
			return nil, err
		}
		return res.Collect(ctx)
	})
	if err != nil {
		return nil, err
	}
	return out.([]*neo4j.Record), nil
}

// ListNodes returns up to limit nodes with a string id, ordered by id, after
// skipping offset; limit <= 0 means no limit. A non-empty filter keeps nodes
// whose id or text contains it, ignoring case. Paging happens on the server
// (SKIP/LIMIT, one row more than asked to learn whether there are more).
func (s *Source) ListNodes(ctx context.Context, filter string, offset, limit int) ([]retriever.NodeSummary, bool, error) {
	offset = max(offset, 0)
	query := listNodesQuery
	params := map[string]any{"filter": strings.ToLower(filter), "offset": int64(offset)}
	if limit > 0 {
		query += "\nLIMIT $limit"
		params["limit"] = int64(limit) + 1
	}
	recs, err := s.collectRead(ctx, query, params)
	if err != nil {
		return nil, false, err
	}
	out := make([]retriever.NodeSummary, 0, len(recs))
	for _, rec := range recs {
		id, err := colString(rec, "id")
		if err != nil {
			return nil, false, err
		}
		labels, err := colStrings(rec, "labels")
		if err != nil {
			return nil, false, fmt.Errorf("node %q: %w", id, err)
		}
		text, err := colString(rec, "text")
		if err != nil {
			return nil, false, fmt.Errorf("node %q: %w", id, err)
		}
		out = append(out, retriever.NodeSummary{ID: id, Labels: labels, Text: text})
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
func (s *Source) Tags(ctx context.Context) ([]retriever.TagCount, error) {
	recs, err := s.collectRead(ctx, tagsQuery, nil)
	if err != nil {
		return nil, err
	}
	out := make([]retriever.TagCount, 0, len(recs))
	for _, rec := range recs {
		ok, err := colBool(rec, "ok")
		if err != nil {
			return nil, err
		}
		tag, err := colString(rec, "tag")
		if err != nil {
			return nil, err
		}
		if !ok {
			return nil, fmt.Errorf("RELATES relationship %s: property tags must be a list of strings", tag)
		}
		n, err := colInt(rec, "count")
		if err != nil {
			return nil, err
		}
		out = append(out, retriever.TagCount{Tag: tag, Count: int(n)})
	}
	return out, nil
}

// Node fetches one node by id (SeedQuery).
func (s *Source) Node(ctx context.Context, id string) (retriever.GraphNode, bool, error) {
	recs, err := s.collectRead(ctx, SeedQuery, map[string]any{"node_id": id})
	if err != nil {
		return retriever.GraphNode{}, false, err
	}
	res, err := parseSeed(recs, id)
	if err != nil || !res.Found {
		return retriever.GraphNode{}, false, err
	}
	return *res.Node, true, nil
}
