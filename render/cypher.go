package render

import (
	"fmt"
	"strings"

	"github.com/memoria-graph/memoria/graph"
	"github.com/memoria-graph/memoria/internal/cypherlit"
	"github.com/memoria-graph/memoria/retriever"
)

// DebugQuery replays one path in Neo4j (docs/EXPORTS.md, format 3): a strict
// path match over the path's node ids, passed as parameters id0, id1, ...
// in path order.
type DebugQuery struct {
	NodeIDs []string          `json:"node_ids"`
	Query   string            `json:"query"`
	Params  map[string]string `json:"params"`
}

// DebugCypher builds the query for p:
//
//	MATCH p = (n0 {id: $id0})-[:RELATES]-(n1 {id: $id1}) RETURN p
//
// with Params {"id0": first id, "id1": second id, ...}. The relationship is
// undirected, like the traversal. A path without steps gives an empty Query
// (and empty, non-nil NodeIDs and Params).
func DebugCypher(p retriever.Path) DebugQuery {
	ids := p.NodeIDs()
	q := DebugQuery{NodeIDs: ids, Params: make(map[string]string, len(ids))}
	if len(ids) == 0 {
		return q
	}
	parts := make([]string, len(ids))
	for i, id := range ids {
		parts[i] = fmt.Sprintf("(n%d {id: $id%d})", i, i)
		q.Params[fmt.Sprintf("id%d", i)] = id
	}
	q.Query = "MATCH p = " + strings.Join(parts, "-[:"+graph.Relates+"]-") + " RETURN p"
	return q
}

// DebugCypherAll gives one query per path with at least one step, in the
// order (and so with the numbering) of ToLLMContext.
func DebugCypherAll(results ...retriever.Result) []DebugQuery {
	qs := []DebugQuery{}
	for _, p := range nonEmptyPaths(results) {
		qs = append(qs, DebugCypher(p))
	}
	return qs
}

// Browser is the paste-ready form for Neo4j Browser: a line
//
//	:params {id0: "N2006", id1: "N2003"}
//
// (keys in order id0, id1, ..., values as CypherString literals), then the
// query ending with ";". It is "" for an empty query.
func (q DebugQuery) Browser() string {
	if q.Query == "" {
		return ""
	}
	var b strings.Builder
	b.WriteString(":params {")
	for i := range q.NodeIDs {
		if i > 0 {
			b.WriteString(", ")
		}
		key := fmt.Sprintf("id%d", i)
		b.WriteString(key + ": " + CypherString(q.Params[key]))
	}
	b.WriteString("}\n")
	b.WriteString(q.Query + ";")
	return b.String()
}

// BrowserScript joins the queries' Browser forms, each after a comment line
// "// Path N: a -> b -> c" (N from 1, ids written with DisplayID so no id
// can end the comment early or act on a terminal), with a blank line
// between paths and a final newline.
func BrowserScript(qs []DebugQuery) string {
	var b strings.Builder
	for i, q := range qs {
		if i > 0 {
			b.WriteByte('\n')
		}
		ids := make([]string, len(q.NodeIDs))
		for j, id := range q.NodeIDs {
			ids[j] = DisplayID(id)
		}
		fmt.Fprintf(&b, "// Path %d: %s\n", i+1, strings.Join(ids, " -> "))
		if s := q.Browser(); s != "" {
			b.WriteString(s + "\n")
		}
	}
	return b.String()
}

// CypherString quotes s as a double-quoted Cypher string literal: `\` and
// `"` are backslash-escaped; newline, tab, carriage return, backspace and
// form feed become \n \t \r \b \f; every other rune textsafe.Safe refuses
// (other C0 controls, DEL, C1 controls, bidi overrides and isolates,
// zero-width characters, the BOM, U+2028/U+2029, ...) becomes \uXXXX (a
// surrogate pair above U+FFFF). Everything else, including all printable
// non-ASCII, stays as UTF-8. Bytes of s that are not valid UTF-8 are
// written as U+FFFD.
func CypherString(s string) string { return cypherlit.Quote(s) }
