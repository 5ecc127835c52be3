package neo4jdb

import (
	"fmt"
	"strings"

	"github.com/memoria-graph/memoria/graph"
)

// RelFilterWhere is graph.RelFilter f as a Cypher predicate on the
// relationship variable rel, its types, keys and values added to params
// as parameters (named rf_…): no text of the filter is ever spliced into
// the query, only the operators, which come from graph's fixed set. ""
// when f keeps everything.
//
// Each condition is written so that Cypher gives graph.RelCond.Holds'
// answer: a comparison with a missing property is null, and so is an
// ordering comparison between a number and a string, a list or a boolean,
// so both fail; = between different kinds is false. != is written as
// (< OR >) rather than <>, which would hold between a string and a number.
// A NaN property fails every comparison, as in Go.
func RelFilterWhere(f graph.RelFilter, rel string, params map[string]any) string {
	return relFilterWhere(f, rel, "type("+rel+")", params)
}

// RelFilterWhereSchema is RelFilterWhere under the source's mapping: the
// filter's types are the types as the retrievers know them, RELATES for
// the traversed ones (schema.go).
func (s *Source) RelFilterWhereSchema(f graph.RelFilter, rel string, params map[string]any) string {
	if m := s.mapping(); m != nil {
		return relFilterWhere(f, rel, m.shownType(rel, params), params)
	}
	return RelFilterWhere(f, rel, params)
}

// relFilterWhere is RelFilterWhere with typ the expression of rel's type.
func relFilterWhere(f graph.RelFilter, rel, typ string, params map[string]any) string {
	var parts []string
	if len(f.Types) > 0 {
		params["rf_types"] = f.Types
		parts = append(parts, typ+" IN $rf_types")
	}
	if len(f.Exclude) > 0 {
		params["rf_exclude"] = f.Exclude
		parts = append(parts, "NOT "+typ+" IN $rf_exclude")
	}
	for i, c := range f.Where {
		k, v := fmt.Sprintf("rf_key_%d", i), fmt.Sprintf("rf_value_%d", i)
		params[k], params[v] = c.Key, c.Value
		prop := rel + "[$" + k + "]"
		switch c.Op {
		case graph.OpNE:
			parts = append(parts, "("+prop+" < $"+v+" OR "+prop+" > $"+v+")")
		case graph.OpGE, graph.OpLE, graph.OpGT, graph.OpLT, graph.OpEQ:
			parts = append(parts, prop+" "+string(c.Op)+" $"+v)
		default:
			// Not one of graph's operators: keep nothing rather than
			// splice it.
			parts = append(parts, "false")
		}
	}
	return strings.Join(parts, " AND ")
}
