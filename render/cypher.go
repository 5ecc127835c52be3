package render

import (
	"encoding/json"
	"fmt"
	"maps"
	"slices"
	"strings"

	"github.com/memoria-graph/memoria/graph"
	"github.com/memoria-graph/memoria/graph/apoc"
	"github.com/memoria-graph/memoria/internal/cypherlit"
	"github.com/memoria-graph/memoria/internal/textsafe"
	"github.com/memoria-graph/memoria/retriever"
	"github.com/memoria-graph/memoria/retriever/activation"
)

// DebugQuery replays one path in Neo4j (docs/EXPORTS.md, format 3): a strict
// path match over the path's node ids, passed as parameters id0, id1, ...
// in path order, with each relationship pinned by parameter r0, r1, ...,
// so that parallel edges cannot multiply the rows.
type DebugQuery struct {
	NodeIDs []string `json:"node_ids"`
	Query   string   `json:"query"`
	// Params holds idN (a node id, a string) and rN: the relationship's
	// elementId (a string) or its properties (a map), as Query's WHERE
	// compares them.
	Params map[string]any `json:"params"`
	// Unpinned says, for each relationship the query could not pin, why
	// (in path order); such a relationship matches any parallel edge.
	Unpinned []string `json:"unpinned,omitempty"`
	// Feeders marks a hit's feeders query (FeedersCypher) rather than a
	// path's: NodeIDs are the hit's id, then each feeder's; the parameters
	// are id, f0, f1, ... and r0, r1, ....
	Feeders bool `json:"feeders,omitempty"`
}

// DebugCypher builds the query for p:
//
//	MATCH p = (n0 {id: $id0})-[r0:RELATES]-(n1 {id: $id1}) WHERE properties(r0) = $r0 RETURN p
//
// with Params {"id0": first id, "id1": second id, ..., "r0": ...}. The
// relationships are undirected, like the traversal. Relationship i is
// pinned to the edge the path kept (step i's Edge):
//
//   - by elementId(ri) = $ri when the edge carries its Neo4j elementId (the
//     path came from Neo4j): exact, in that database;
//   - otherwise by properties(ri) = $ri, its whole property map (the path
//     came from an APOC file; element ids do not survive an export and a
//     load). Parallel edges whose properties are equal (under Cypher's =,
//     where 1 = 1.0) cannot be told apart and each gives a row.
//
// A relationship whose properties cannot be written as a Cypher map (a key
// holding a character textsafe.Safe refuses, which Cypher cannot escape
// inside backticks; a NaN, an infinity, a map) is left unpinned and
// Unpinned says so. A path without steps gives an empty Query (and empty,
// non-nil NodeIDs and Params).
func DebugCypher(p activation.Path) DebugQuery { return ownShape.DebugCypher(p) }

// DebugCypher is the package's DebugCypher under the mapping.
func (c Cypher) DebugCypher(p activation.Path) DebugQuery {
	edges := make([]graph.Edge, len(p.Steps))
	for i, st := range p.Steps {
		edges[i] = st.Edge
		edges[i].Type = graph.Relates
	}
	return c.debugQuery(p.NodeIDs(), edges)
}

// DebugCypherRoute is DebugCypher for a ranked hit's route: each
// relationship matched with its own type (quoted as a Cypher name), the
// hops' node ids in order. A route that walks one relationship twice
// matches no row (Cypher never binds one relationship twice in a MATCH).
func DebugCypherRoute(route []retriever.Hop) DebugQuery { return ownShape.DebugCypherRoute(route) }

// DebugCypherRoute is the package's DebugCypherRoute under the mapping.
func (c Cypher) DebugCypherRoute(route []retriever.Hop) DebugQuery {
	if len(route) == 0 {
		return c.debugQuery(nil, nil)
	}
	ids := []string{route[0].From}
	edges := make([]graph.Edge, len(route))
	for i, h := range route {
		ids = append(ids, h.To)
		edges[i] = h.Edge
		edges[i].Type = h.Type
	}
	return c.debugQuery(ids, edges)
}

// debugQuery matches the path through ids over edges (len(ids)−1 of them).
func (c Cypher) debugQuery(ids []string, edges []graph.Edge) DebugQuery {
	if ids == nil {
		ids = []string{}
	}
	q := DebugQuery{NodeIDs: ids, Params: make(map[string]any, 2*len(ids))}
	if len(ids) == 0 {
		return q
	}
	var pattern strings.Builder
	var where []string
	for i, id := range ids {
		if i > 0 {
			rel, pred := c.relPattern(fmt.Sprintf("r%d", i-1), edges[i-1].Type, q.Params)
			pattern.WriteString(rel)
			where = appendPred(where, pred)
		}
		node, pred := c.nodePattern(fmt.Sprintf("n%d", i), fmt.Sprintf("id%d", i), q.Params)
		pattern.WriteString(node)
		where = appendPred(where, pred)
		q.Params[fmt.Sprintf("id%d", i)] = id
	}
	for i, e := range edges {
		if w := q.pin(fmt.Sprintf("r%d", i), e); w != "" {
			where = append(where, w)
		}
	}
	q.Query = "MATCH p = " + pattern.String()
	if len(where) > 0 {
		q.Query += " WHERE " + strings.Join(where, " AND ")
	}
	q.Query += " RETURN p"
	return q
}

// FeedersCypher is the debug query of a hit's feeders
// (retriever.Hit.Feeders): it returns the hit and, for each feeder in
// order, its relationship and the node at the other end:
//
//	MATCH (h {id: $id}) OPTIONAL MATCH (h)-[r0:RELATES]-(f0 {id: $f0}) WHERE elementId(r0) = $r0 OPTIONAL MATCH (h)-[r1:RELATES]-(f1 {id: $f1}) WHERE properties(r1) = $r1 RETURN h, r0, f0, r1, f1
//
// with Params {"id": the hit's id, "f0": the first feeder's id, ..., "r0":
// ...}. Each relationship is undirected, written with its type and pinned
// by the rule of DebugCypher (its element id, else its property map; one
// that cannot be pinned matches any relationship between the two nodes,
// and Unpinned says so). Each feeder has an OPTIONAL MATCH of its own, so
// the hit's row comes back even when a relationship is gone (its columns
// null). On the database the hit was read from, with every relationship
// pinned by element id, it returns exactly one row; a relationship pinned
// by its properties gives a row per parallel relationship with equal
// properties. A hit without feeders gives an empty Query (and NodeIDs
// holding its id alone).
func FeedersCypher(h retriever.Hit) DebugQuery { return ownShape.FeedersCypher(h) }

// FeedersCypher is the package's FeedersCypher under the mapping.
func (c Cypher) FeedersCypher(h retriever.Hit) DebugQuery {
	q := DebugQuery{NodeIDs: []string{h.NodeID}, Params: make(map[string]any, 1+2*len(h.Feeders)), Feeders: true}
	if len(h.Feeders) == 0 {
		return q
	}
	q.Params["id"] = h.NodeID
	var b strings.Builder
	node, pred := c.nodePattern("h", "id", q.Params)
	b.WriteString("MATCH " + node)
	if pred != "" {
		b.WriteString(" WHERE " + pred)
	}
	ret := []string{"h"}
	for i, f := range h.Feeders {
		r, n := fmt.Sprintf("r%d", i), fmt.Sprintf("f%d", i)
		q.NodeIDs = append(q.NodeIDs, f.From)
		q.Params[n] = f.From
		rel, relPred := c.relPattern(r, f.Type, q.Params)
		node, nodePred := c.nodePattern(n, n, q.Params)
		b.WriteString(" OPTIONAL MATCH (h)" + rel + node)
		if w := strings.Join(appendPred(appendPred(appendPred(nil, relPred), nodePred), q.pin(r, f.Edge)), " AND "); w != "" {
			b.WriteString(" WHERE " + w)
		}
		ret = append(ret, r, n)
	}
	q.Query = b.String() + " RETURN " + strings.Join(ret, ", ")
	return q
}

// relPattern is the undirected pattern of relationship variable r of type
// ty: "-[r0:RELATES]-", the type written by cypherlit.AppendName. A type
// holding a character textsafe.Safe refuses cannot be written (backticks
// escape nothing), nor can an empty one: the pattern is then "-[r0]-" and
// the relationship is matched by its pin alone.
func relPattern(r, ty string) string {
	if safeName(ty) {
		return "-[" + r + ":" + string(cypherlit.AppendName(nil, ty)) + "]-"
	}
	return "-[" + r + "]-"
}

// safeName reports whether a name can be written in a query a terminal
// shows: not empty, and no character textsafe.Safe refuses (backticks
// escape nothing).
func safeName(name string) bool { return name != "" && textsafe.Escape(name) == name }

// pin pins relationship variable r to edge e, as DebugCypher says: it
// returns the condition ("elementId(r0) = $r0" or "properties(r0) =
// $r0") and sets the parameter r; a relationship it cannot pin gets ""
// and a line in Unpinned saying why.
func (q *DebugQuery) pin(r string, e graph.Edge) string {
	if e.ElementID != "" {
		q.Params[r] = e.ElementID
		return fmt.Sprintf("elementId(%s) = $%s", r, r)
	}
	props := e.Properties
	if props == nil {
		props = map[string]any{}
	}
	if _, err := appendPropMap(nil, props); err != nil {
		q.Unpinned = append(q.Unpinned, fmt.Sprintf("%s is not pinned: %v", r, err))
		return ""
	}
	q.Params[r] = maps.Clone(props)
	return fmt.Sprintf("properties(%s) = $%s", r, r)
}

// appendPropMap writes props as a Cypher map literal, keys sorted, each
// written by cypherlit.AppendName and each value by apoc.AppendCypherValue;
// it fails on a key with a character textsafe.Safe refuses (backticks
// cannot escape it, so a pasted line would carry it raw) and on a value
// Cypher has no literal for.
func appendPropMap(b []byte, props map[string]any) ([]byte, error) {
	keys := make([]string, 0, len(props))
	for k := range props {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	b = append(b, '{')
	for i, k := range keys {
		if textsafe.Escape(k) != k {
			return b, fmt.Errorf("property key %s holds a character a Cypher name cannot escape", textsafe.Quote(k))
		}
		if i > 0 {
			b = append(b, ", "...)
		}
		b = cypherlit.AppendName(b, k)
		b = append(b, ": "...)
		var err error
		if b, err = apoc.AppendCypherValue(b, props[k]); err != nil {
			return b, fmt.Errorf("property %s: %w", textsafe.Quote(k), err)
		}
	}
	return append(b, '}'), nil
}

// DebugCypherAll gives one query per path with at least one step, in the
// order (and so with the numbering) of ToLLMContext.
func DebugCypherAll(results ...activation.Result) []DebugQuery {
	return ownShape.DebugCypherAll(results...)
}

// DebugCypherAll is the package's DebugCypherAll under the mapping.
func (c Cypher) DebugCypherAll(results ...activation.Result) []DebugQuery {
	qs := []DebugQuery{}
	for _, p := range nonEmptyPaths(results) {
		qs = append(qs, c.DebugCypher(p))
	}
	return qs
}

// Browser is the paste-ready form for Neo4j Browser: a comment line
// "// r1 is not pinned: ..." for each entry of Unpinned, then a line
// `:params {...}` setting every parameter (Browser's `:params` command with a
// map replaces the parameters; keys id0, id1, ..., then r0, r1, ..., then
// the others sorted; strings as CypherString literals, property maps as
// Cypher map literals with sorted keys, other values as Cypher literals),
// then the query ending with ";". No line holds a character textsafe.Safe
// refuses. It is "" for an empty query.
func (q DebugQuery) Browser() string { return q.paramForm(":params ") }

// Shell is the paste-ready form for cypher-shell: the same as Browser but
// with cypher-shell's `:param {...}` command, which sets the map's
// parameters (cypher-shell 5's usage: `:param {a: 1}` sets a to 1; `:params`
// there only lists them, so Browser's line fails in cypher-shell).
func (q DebugQuery) Shell() string { return q.paramForm(":param ") }

// paramForm writes the comment lines, the parameter command cmd with the
// parameter map, and the query.
func (q DebugQuery) paramForm(cmd string) string {
	if q.Query == "" {
		return ""
	}
	var b []byte
	for _, u := range q.Unpinned {
		b = append(b, "// "...)
		b = append(b, textsafe.Escape(u)...)
		b = append(b, '\n')
	}
	b = append(b, cmd+"{"...)
	for i, key := range q.paramKeys() {
		if i > 0 {
			b = append(b, ", "...)
		}
		b = cypherlit.AppendName(b, key)
		b = append(b, ": "...)
		switch v := q.Params[key].(type) {
		case map[string]any:
			if m, err := appendPropMap(b, v); err == nil {
				b = m
			} else {
				b = append(b, "null"...) // DebugCypher never stores such a map
			}
		default: // strings (quoted by internal/cypherlit), numbers and lists of them
			if m, err := apoc.AppendCypherValue(b, v); err == nil {
				b = m
			} else {
				b = append(b, "null"...) // DebugCypher and CheckCypher store only finite numbers and strings
			}
		}
	}
	b = append(b, "}\n"...)
	b = append(b, q.Query+";"...)
	return string(b)
}

// paramKeys orders the parameters: id0, id1, ... (a feeders query's id,
// f0, f1, ...), r0, r1, ..., then the rest sorted.
func (q DebugQuery) paramKeys() []string {
	keys := make([]string, 0, len(q.Params))
	seen := make(map[string]bool, len(q.Params))
	add := func(k string) {
		if _, ok := q.Params[k]; ok && !seen[k] {
			keys, seen[k] = append(keys, k), true
		}
	}
	for i := range q.NodeIDs {
		switch {
		case !q.Feeders:
			add(fmt.Sprintf("id%d", i))
		case i == 0:
			add("id")
		default:
			add(fmt.Sprintf("f%d", i-1))
		}
	}
	for i := range max(0, len(q.NodeIDs)-1) {
		add(fmt.Sprintf("r%d", i))
	}
	var rest []string
	for k := range q.Params {
		if !seen[k] {
			rest = append(rest, k)
		}
	}
	slices.Sort(rest)
	return append(keys, rest...)
}

// DriverQuery is the form for a driver: the query and its parameters, as
// one JSON object (`{"query": "...", "parameters": {...}}`), to pass to
// session.run or ExecuteRead as they are.
type DriverQuery struct {
	Query      string         `json:"query"`
	Parameters map[string]any `json:"parameters"`
}

// Driver writes q as a DriverQuery in JSON on one line, every untrusted
// text escaped (textsafe.JSON: no control, bidi or zero-width character
// reaches a terminal raw). Comments on unpinned relationships have no place
// in JSON: the query then matches parallel edges, as Unpinned says.
func (q DebugQuery) Driver() (string, error) {
	b, err := json.Marshal(DriverQuery{Query: q.Query, Parameters: q.Params})
	if err != nil {
		return "", fmt.Errorf("driver form: %w", err)
	}
	return string(textsafe.JSON(b)), nil
}

// CypherForm names a paste-ready form of a query.
type CypherForm string

// The forms: Neo4j Browser, cypher-shell, and a driver's query plus
// parameters JSON.
const (
	FormBrowser CypherForm = "browser"
	FormShell   CypherForm = "shell"
	FormDriver  CypherForm = "driver"
)

// CypherForms lists the forms in the order the explorer cycles them.
var CypherForms = []CypherForm{FormBrowser, FormShell, FormDriver}

// In writes q in form f.
func (q DebugQuery) In(f CypherForm) string {
	switch f {
	case FormShell:
		return q.Shell()
	case FormDriver:
		s, err := q.Driver()
		if err != nil {
			return "// " + textsafe.Escape(err.Error())
		}
		return s
	}
	return q.Browser()
}

// Script joins the queries in form f. In the Browser and cypher-shell forms
// each comes after a comment line "// Path N: a -> b -> c" (N from 1, ids
// written with DisplayID so no id can end the comment early or act on a
// terminal), or for a feeders query "// Feeders N: h <- a, b, c" (the hit,
// then its feeders), with a blank line between queries and a final
// newline; in the driver form it is one JSON object per line.
func Script(qs []DebugQuery, f CypherForm) string {
	var b strings.Builder
	for i, q := range qs {
		if f == FormDriver {
			b.WriteString(q.In(f) + "\n")
			continue
		}
		if i > 0 {
			b.WriteByte('\n')
		}
		ids := make([]string, len(q.NodeIDs))
		for j, id := range q.NodeIDs {
			ids[j] = DisplayID(id)
		}
		if q.Feeders && len(ids) > 0 {
			fmt.Fprintf(&b, "// Feeders %d: %s <- %s\n", i+1, ids[0], strings.Join(ids[1:], ", "))
		} else {
			fmt.Fprintf(&b, "// Path %d: %s\n", i+1, strings.Join(ids, " -> "))
		}
		if s := q.In(f); s != "" {
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
