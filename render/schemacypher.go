package render

import (
	"strings"
	"time"

	"github.com/memoria-graph/memoria/graph"
	"github.com/memoria-graph/memoria/internal/cypherlit"
)

// Cypher writes the debug and check queries (DebugCypher, CheckCypher,
// FeedersCypher, RankingCypher and the rest) for a graph read through a
// schema mapping (docs/RETRIEVERS.md, "Other schemas"): a node matched by
// its mapped id property on the mapping's label, a traversed relationship
// by the traversed types, and the check's degree, weight and tags read as
// the retrievers read them. Every name is a quoted identifier
// (cypherlit.AppendName), or, when it holds a character a terminal must not
// get raw, a parameter; every value a parameter. Under memoria's own
// schema the queries are the package functions' own, byte for byte.
type Cypher struct{ s graph.Schema }

// ownShape writes memoria's own shape: the package functions' queries.
var ownShape = Cypher{s: graph.MemoriaSchema()}

// CypherFor returns the queries' writer for the mapping sc.
func CypherFor(sc graph.Schema) Cypher {
	if sc.IDProperty == "" || sc.IsDefault() {
		return ownShape
	}
	return Cypher{s: sc}
}

// mapped reports whether c writes a mapping other than memoria's own
// shape (which the package functions write).
func (c Cypher) mapped() bool { return !c.s.IsDefault() }

// appendPred appends pred to preds unless it is "".
func appendPred(preds []string, pred string) []string {
	if pred == "" {
		return preds
	}
	return append(preds, pred)
}

// name is a name as a query writes it: quoted when it is safe for a
// terminal, else "" (the caller uses the parameter form).
func name(n string) string {
	if !safeName(n) {
		return ""
	}
	return string(cypherlit.AppendName(nil, n))
}

// nodePattern is node variable v with the id in parameter param: "(n0
// {id: $id0})", on the mapping's label, by its id property and with its
// property value ($schema_where), and a predicate ("" for none) for a name
// a query cannot write.
func (c Cypher) nodePattern(v, param string, params map[string]any) (pattern, pred string) {
	var preds []string
	label := ""
	if c.s.NodeLabel != "" {
		if l := name(c.s.NodeLabel); l != "" {
			label = ":" + l
		} else {
			params["schema_label"] = c.s.NodeLabel
			preds = append(preds, "$schema_label IN labels("+v+")")
		}
	}
	var inMap []string
	if k := name(c.s.IDProperty); k != "" {
		inMap = append(inMap, k+": $"+param)
	} else {
		params["schema_id"] = c.s.IDProperty
		preds = append(preds, v+"[$schema_id] = $"+param)
	}
	if c.s.NodeWhereKey != "" {
		params["schema_where"] = c.s.NodeWhereValue
		if k := name(c.s.NodeWhereKey); k != "" {
			inMap = append(inMap, k+": $schema_where")
		} else {
			params["schema_where_key"] = c.s.NodeWhereKey
			preds = append(preds, v+"[$schema_where_key] = $schema_where")
		}
	}
	pattern = "(" + v + label + ")"
	if len(inMap) > 0 {
		pattern = "(" + v + label + " {" + strings.Join(inMap, ", ") + "})"
	}
	return pattern, strings.Join(preds, " AND ")
}

// wherePred is the predicate that node v has the mapping's property value
// ("" without a property filter), its values added to params.
func (c Cypher) wherePred(v string, params map[string]any) string {
	if c.s.NodeWhereKey == "" {
		return ""
	}
	params["schema_where"] = c.s.NodeWhereValue
	return prop(v, c.s.NodeWhereKey, "schema_where_key", params) + " = $schema_where"
}

// relPattern is relPattern under the mapping: RELATES is the traversed
// types ("-[r0:`A`|`B`]-", or a predicate on type(r) when one cannot be
// written).
func (c Cypher) relPattern(r, ty string, params map[string]any) (pattern, pred string) {
	if !c.mapped() || ty != graph.Relates {
		return relPattern(r, ty), ""
	}
	names := make([]string, len(c.s.Traverse))
	for i, t := range c.s.Traverse {
		if names[i] = name(t); names[i] == "" {
			params["schema_traverse"] = c.s.Traverse
			return "-[" + r + "]-", "type(" + r + ") IN $schema_traverse"
		}
	}
	return "-[" + r + ":" + strings.Join(names, "|") + "]-", ""
}

// prop is property key of variable v: "v.key", or "v[$param]" (set in
// params) for a key a query cannot write.
func prop(v, key, param string, params map[string]any) string {
	if k := name(key); k != "" {
		return v + "." + k
	}
	params[param] = key
	return v + "[$" + param + "]"
}

// checkBody is checkBody under the mapping, its values added to params:
// d counts the traversed relationships of a to nodes of the label, less
// invalidated facts; w is the mapped weight, the mapping's default (else
// 0.01) for a missing one; the tags are the mapped property's, a string
// split on the separator (parts trimmed, empty ones dropped); the ids are
// the mapped id property's.
func (c Cypher) checkBody(params map[string]any) string {
	if !c.mapped() {
		return checkBody
	}
	body := checkBody
	// degree
	var preds []string
	if c.s.NodeLabel != "" {
		params["schema_label"] = c.s.NodeLabel
		preds = append(preds, "$schema_label IN labels(y)")
	}
	preds = appendPred(preds, c.wherePred("y", params))
	if c.s.InvalidAt != "" && !c.s.IncludeInvalid {
		params["schema_now"] = c.s.Now.UTC().Format(time.RFC3339Nano)
		at := prop("x", c.s.InvalidAt, "schema_invalid_at", params)
		preds = append(preds, "NOT coalesce((CASE WHEN "+at+" IS :: STRING THEN datetime("+at+") ELSE "+at+" END) <= datetime($schema_now), false)")
	}
	rel, typePred := c.relPattern("x", graph.Relates, params)
	preds = appendPred(preds, typePred)
	degree := "COUNT { (a)" + rel + "(y)"
	if len(preds) > 0 {
		degree += " WHERE " + strings.Join(preds, " AND ")
	}
	body = strings.Replace(body, "COUNT { (a)-[:RELATES]-() }", degree+" }", 1)
	// tags
	tags := "[]"
	if c.s.TagsProperty != "" {
		t := prop("r", c.s.TagsProperty, "schema_tags", params)
		parts := "[trim(" + t + ")]"
		if c.s.TagsSeparator != "" {
			params["schema_sep"] = c.s.TagsSeparator
			parts = "[x IN split(" + t + ", $schema_sep) | trim(x)]"
		}
		tags = "coalesce(CASE WHEN " + t + " IS :: STRING NOT NULL THEN [x IN " + parts + " WHERE x <> ''] ELSE " + t + " END, [])"
	}
	body = strings.Replace(body, "coalesce(r.tags, [])", tags, 1)
	// ids
	body = strings.Replace(body, "a.id AS from_id, b.id AS to_id",
		prop("a", c.s.IDProperty, "schema_id", params)+" AS from_id, "+prop("b", c.s.IDProperty, "schema_id", params)+" AS to_id", 1)
	// weight
	missing := 0.01
	if c.s.DefaultWeight != nil {
		missing = *c.s.DefaultWeight
	}
	params["schema_default_weight"] = missing
	w := "$schema_default_weight"
	if c.s.WeightProperty != "" {
		w = "coalesce(" + prop("r", c.s.WeightProperty, "schema_weight", params) + ", $schema_default_weight)"
	}
	return strings.Replace(body, "coalesce(r.weight, 0.01)", w, 1)
}
