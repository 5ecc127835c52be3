package neo4jdb

import (
	"context"
	"fmt"
	"strings"
	"unicode"

	"github.com/memoria-graph/memoria/graph"
)

// ListNodes returns up to limit nodes with a string id after skipping
// offset; limit <= 0 means no limit. Under a mapping the nodes are those
// of the label, the id the mapped id property. Without a filter they come by id; a
// filter keeps and ranks its matches on the server as graph/inmem does
// (graph.FilterFields, graph.MatchFields, graph.CompareMatches; the query
// is findNodesQuery). Paging happens on the server (SKIP/LIMIT, one row
// more than asked to learn whether there are more), in a read transaction
// with the source's deadline, like every query of Query.
func (s *Source) ListNodes(ctx context.Context, filter string, offset, limit int) ([]graph.NodeSummary, bool, error) {
	offset = max(offset, 0)
	query := listNodesQuery
	params := map[string]any{"offset": int64(offset), "short": int64(graph.ShortProp)}
	if q := graph.NormalizeFilter(filter); q != "" {
		query = findNodesQuery
		params["filter"], params["word"] = q, wordPrefixRegex(q)
	}
	if m := s.mapping(); m != nil {
		query = m.catalogQuery(query, params)
	}
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
		pairs, err := Column[[]any](rec, "props")
		if err != nil {
			return nil, false, fmt.Errorf("node %q: %w", id, err)
		}
		var props map[string]string
		for _, p := range pairs {
			kv, ok := p.([]any)
			if !ok || len(kv) != 2 {
				return nil, false, fmt.Errorf("node %q: a property pair is %T, not [key, value]", id, p)
			}
			k, ok1 := kv[0].(string)
			v, ok2 := kv[1].(string)
			if !ok1 || !ok2 {
				return nil, false, fmt.Errorf("node %q: a property pair is not two strings", id)
			}
			if props == nil {
				props = map[string]string{}
			}
			props[k] = v
		}
		out = append(out, graph.NodeSummary{ID: id, Labels: labels, Text: text, Props: props})
	}
	more := false
	if limit > 0 && len(out) > limit {
		out, more = out[:limit], true
	}
	return out, more, nil
}

// NameKeys lists the keys of the nodes' string properties other than id,
// the most common first, then by key (one scan of every node).
func (s *Source) NameKeys(ctx context.Context) ([]string, error) {
	query, params := nameKeysQuery, map[string]any{}
	if m := s.mapping(); m != nil {
		query = m.nameKeysQuery(params)
	}
	recs, err := s.Query(ctx, query, params)
	if err != nil {
		return nil, err
	}
	out := make([]string, 0, len(recs))
	for _, rec := range recs {
		k, err := Column[string](rec, "key")
		if err != nil {
			return nil, err
		}
		out = append(out, k)
	}
	return out, nil
}

// wordPrefixRegex is the Java regular expression (Cypher's =~, which must
// match the whole string) of graph's word-prefix rank for the lower-cased
// filter q: q at the start, or after a rune that is neither a letter nor a
// digit (\p{L}, \p{N}: unicode.IsLetter, unicode.IsNumber). Every rune of q
// that is not a letter or a digit is written as \x{…}, so no rune of the
// filter is read as regular-expression syntax (and a digit never follows a
// backslash, where Java would read a back-reference).
func wordPrefixRegex(q string) string {
	var b strings.Builder
	b.WriteString(`(?s)(?:.*[^\p{L}\p{N}])?`)
	for _, r := range q {
		if unicode.IsLetter(r) || unicode.IsNumber(r) {
			b.WriteRune(r)
		} else {
			fmt.Fprintf(&b, `\x{%x}`, r)
		}
	}
	b.WriteString(`.*`)
	return b.String()
}
