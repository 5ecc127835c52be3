package neo4jdb

import (
	"cmp"
	"context"
	"errors"
	"strconv"
	"strings"

	"github.com/memoria-graph/memoria/graph"
	"github.com/memoria-graph/memoria/internal/cypherlit"
)

// A Source reads the graph through a graph.Schema (SetSchema;
// docs/RETRIEVERS.md, "Other schemas"), as the embedded engine does at
// load time, here in every query: a node's id is its mapped id property (a
// non-empty string), only the nodes of the mapping's label count (and the
// relationships between them), a Graphiti fact invalidated by the
// mapping's now is absent, the traversed types are shown as RELATES and
// degrees count them only, a traversed relationship's weight and tags are
// read from the mapped properties (the default weight for a missing one,
// a tags string split on the separator). Every name of the mapping is a
// quoted identifier (cypherlit.QuoteName) in the query, every value a
// parameter. Under memoria's own schema every query is the one without a
// mapping.

// SetSchema makes the source read the graph through sc; memoria's own
// schema (the default) reads it as without a mapping. Call it before any
// read: a Source does not change its mapping while it reads.
func (s *Source) SetSchema(sc graph.Schema) error {
	if err := sc.Validate(); err != nil {
		return err
	}
	s.schema = sc
	return nil
}

// Schema is the mapping the source reads through.
func (s *Source) Schema() graph.Schema {
	if s.schema.IDProperty == "" {
		return graph.MemoriaSchema()
	}
	return s.schema
}

// mapping is the source's schema when it is not memoria's own (nil then):
// the reads that differ under a mapping build their Cypher from it.
func (s *Source) mapping() *mapping {
	if sc := s.Schema(); !sc.IsDefault() {
		return &mapping{s: sc}
	}
	return nil
}

// mapping writes the Cypher fragments of a non-default schema.
type mapping struct{ s graph.Schema }

// idOf is variable v's mapped id property.
func (m *mapping) idOf(v string) string { return v + "." + cypherlit.QuoteName(m.s.IDProperty) }

// label is ":`Label`" under a label filter, else "".
func (m *mapping) label() string {
	if m.s.NodeLabel == "" {
		return ""
	}
	return ":" + cypherlit.QuoteName(m.s.NodeLabel)
}

// where is the predicate that node v has the mapping's property value
// (graph.Schema.KeepsNode: the key a quoted identifier, the string
// $schema_where set in params), "" without a property filter. Cypher's =
// between a string and a value of another type is false, as the rule says.
func (m *mapping) where(v string, params map[string]any) string {
	if m.s.NodeWhereKey == "" {
		return ""
	}
	params["schema_where"] = m.s.NodeWhereValue
	return v + "." + cypherlit.QuoteName(m.s.NodeWhereKey) + " = $schema_where"
}

// kept is the predicate that node v is in the mapped graph (its label and
// property value), "" for every node.
func (m *mapping) kept(v string, params map[string]any) string {
	label := ""
	if m.s.NodeLabel != "" {
		label = v + m.label()
	}
	return all(label, m.where(v, params))
}

// hasID is the predicate that node v is in the mapped graph and has an
// id: a non-empty string.
func (m *mapping) hasID(v string, params map[string]any) string {
	return all(m.kept(v, params), m.idOf(v)+" IS :: STRING NOT NULL", m.idOf(v)+" <> ''")
}

// valid is the predicate that relationship r is not a fact invalidated by
// the mapping's now ("" when the mapping keeps every relationship): its
// invalid_at, a datetime or a string Cypher reads as one, is absent or
// after $schema_now (set in params).
func (m *mapping) valid(r string, params map[string]any) string {
	if m.s.InvalidAt == "" || m.s.IncludeInvalid {
		return ""
	}
	params["schema_now"] = m.s.Now
	at := r + "." + cypherlit.QuoteName(m.s.InvalidAt)
	return "NOT coalesce((CASE WHEN " + at + " IS :: STRING THEN datetime(" + at + ") ELSE " + at + " END) <= $schema_now, false)"
}

// types is the relationship type list of a pattern, ":`A`|`B`", for
// types (nil: any type, "").
func types(ts []string) string {
	if ts == nil {
		return ""
	}
	q := make([]string, len(ts))
	for i, t := range ts {
		q[i] = cypherlit.QuoteName(t)
	}
	return ":" + strings.Join(q, "|")
}

// typesOf are the stored types a reader's relType names: RELATES is the
// traversed types; a traversed type by its own name is none (the
// retrievers know it as RELATES, as the embedded engine does); any other
// type is itself.
func (m *mapping) typesOf(relType string) []string {
	switch {
	case relType == graph.Relates:
		return m.s.Traverse
	case m.s.Traverses(relType):
		return []string{}
	}
	return []string{relType}
}

// degree is the count of node n's relationships of types (nil: any) in the
// mapped graph: to a kept node, not invalidated; a self-loop once.
func (m *mapping) degree(n string, ts []string, params map[string]any) string {
	if ts != nil && len(ts) == 0 {
		return "0"
	}
	where := all(m.kept("m", params), m.valid("r", params))
	if where == "" {
		return "COUNT { (" + n + ")-[" + types(ts) + "]-() }"
	}
	return "COUNT { (" + n + ")-[r" + types(ts) + "]-(m) WHERE " + where + " }"
}

// weight is relationship r's weight for relType's reads, $missing when it
// has none (the caller sets missing to the mapping's default weight for a
// traversed relationship).
func (m *mapping) weight(r string) string {
	if m.s.WeightProperty == "" {
		return "$missing"
	}
	return "coalesce(" + r + "." + cypherlit.QuoteName(m.s.WeightProperty) + ", $missing)"
}

// missing is the weight of a relationship of relType without one: the
// mapping's default for the traversed types, else the retriever's.
func (m *mapping) missing(relType string, retrievers float64) float64 {
	if relType == graph.Relates && m.s.DefaultWeight != nil {
		return *m.s.DefaultWeight
	}
	return retrievers
}

// prop is relationship r's property key as a column, "null" for "".
func prop(r, key string) string {
	if key == "" {
		return "null"
	}
	return r + "." + cypherlit.QuoteName(key)
}

// shownType is relationship r's type as the retrievers know it: RELATES
// for a traversed type ($schema_traverse, set in params), else its own.
func (m *mapping) shownType(r string, params map[string]any) string {
	params["schema_traverse"] = m.s.Traverse
	return "CASE WHEN type(" + r + ") IN $schema_traverse THEN '" + graph.Relates + "' ELSE type(" + r + ") END"
}

// all joins the non-empty predicates with AND.
func all(preds ...string) string {
	var out []string
	for _, p := range preds {
		if p != "" {
			out = append(out, p)
		}
	}
	return strings.Join(out, " AND ")
}

// relWeightTags reads a mapped Around row's weight and tags the way the
// embedded engine presents them: a traversed relationship's missing
// weight is the mapping's default; tags are split by the mapping.
func (m *mapping) relWeightTags(traversed bool, w, tags any) (weight *float64, list []string, bad error) {
	weight, bad = graph.WeightOf(plainProps(map[string]any{"weight": w}))
	if traversed && weight == nil && bad == nil && m.s.DefaultWeight != nil {
		d := *m.s.DefaultWeight
		weight = &d
	}
	if tags != nil {
		list, _ = m.s.SplitTags(plainProps(map[string]any{"tags": tags})["tags"])
	}
	return weight, list, bad
}

// nodesQueries find nodes by their mapped id, in the mapped graph: under a
// label filter one query on the label (through its index on the id
// property when there is one); otherwise through the labels indexed on
// the id property, then a scan for the ids those did not find.
func (m *mapping) nodesQueries(indexed []string, params map[string]any) []string {
	q := func(labels []string) string {
		where := all(m.idOf("n")+" = id", m.where("n", params))
		if len(labels) > 0 {
			parts := make([]string, len(labels))
			for i, l := range labels {
				parts[i] = "n:" + cypherlit.QuoteName(l)
			}
			where += " AND (" + strings.Join(parts, " OR ") + ")"
		}
		return `UNWIND $ids AS id
MATCH (n` + m.label() + `) WHERE ` + where + `
RETURN id, properties(n) AS data, labels(n) AS labels, elementId(n) AS element_id
ORDER BY id, element_id`
	}
	if m.s.NodeLabel != "" || len(indexed) == 0 {
		return []string{q(nil)}
	}
	return []string{q(indexed), q(nil)}
}

// aroundQuery is AroundQueryWhere under the mapping: the relationships of
// any type to a node with an id in the mapped graph, the degree over the
// mapped graph, the weight and tags from the mapped properties.
func (m *mapping) aroundQuery(where string, params map[string]any) string {
	return `UNWIND $refs AS ref
MATCH (n) WHERE elementId(n) = ref
WITH n, ref, ` + m.degree("n", nil, params) + ` AS degree
MATCH (n)-[r]-(m) WHERE ` + all(m.hasID("m", params), m.valid("r", params), paren(where)) + `
RETURN ref, degree, type(r) AS type, elementId(r) AS rel_element_id, ` + prop("r", m.s.WeightProperty) + ` AS weight, ` +
		prop("r", m.s.TagsProperty) + ` AS tags,
       ` + m.idOf("m") + ` AS other_id, labels(m) AS other_labels, elementId(m) AS other_element_id`
}

// paren is (where), or "" for no predicate.
func paren(where string) string {
	if where == "" {
		return ""
	}
	return "(" + where + ")"
}

// degreesQuery is DegreesQuery under the mapping.
func (m *mapping) degreesQuery(relType string, params map[string]any) string {
	return `UNWIND $refs AS ref
MATCH (n) WHERE elementId(n) = ref
RETURN ref, ` + m.degree("n", m.typesOf(relType), params) + ` AS degree`
}

// factsQuery is FactsQuery under the mapping.
func (m *mapping) factsQuery(relType string, params map[string]any) string {
	return `UNWIND $refs AS ref
MATCH (n) WHERE elementId(n) = ref
RETURN ref, [k IN $keys WHERE n[k] IS NOT NULL | [k, n[k]]] AS props,
       ` + m.degree("n", m.typesOf(relType), params) + ` AS degree`
}

// arcs is the pattern and predicate of the relationships of relType from n
// to a node with an id, in the mapped graph ("false" for none).
func (m *mapping) arcs(relType, where string, params map[string]any) string {
	ts := m.typesOf(relType)
	pred := all(m.hasID("m", params), m.valid("r", params), paren(where))
	if len(ts) == 0 {
		pred = "false"
	}
	return `MATCH (n)-[r` + types(ts) + `]-(m) WHERE ` + pred
}

// strengthsQuery is StrengthsQuery under the mapping ($missing is the
// mapping's missing weight for relType).
func (m *mapping) strengthsQuery(relType string, params map[string]any) string {
	return `UNWIND $refs AS ref
MATCH (n) WHERE elementId(n) = ref
WITH ref, COLLECT { ` + m.arcs(relType, "", params) + `
                    WITH ` + m.weight("r") + ` AS w RETURN w ORDER BY w } AS ws
RETURN ref, size(ws) AS count, ws[0] AS least,
       CASE WHEN all(w IN ws WHERE w IS :: INTEGER NOT NULL OR w IS :: FLOAT NOT NULL)
            THEN reduce(s = 0.0, w IN ws | s + w) END AS total`
}

// arcsQuery is ArcsQueryWhere under the mapping.
func (m *mapping) arcsQuery(relType, where string, params map[string]any) string {
	return `UNWIND $refs AS ref
MATCH (n) WHERE elementId(n) = ref
CALL (n) {
  ` + m.arcs(relType, where, params) + `
  RETURN collect(` + m.idOf("m") + `) AS other_ids, collect(elementId(m)) AS other_element_ids,
         collect(` + m.weight("r") + `) AS weights
}
RETURN ref, other_ids, other_element_ids, weights`
}

// mappedNode is Node under the mapping: the retrievers' lookup.
func (s *Source) mappedNode(ctx context.Context, id string) (graph.Node, bool, error) {
	var out graph.Node
	var found bool
	err := s.neighbourhood().Read(ctx, func(r graph.Reader) error {
		refs, err := r.Nodes(ctx, []string{id})
		if err != nil || len(refs) == 0 {
			return err
		}
		out, found = refs[0].Node, true
		return nil
	})
	return out, found, err
}

// SchemaCypher is the source's mapping as Cypher fragments, for the
// queries of other packages (the Activation Energy fast path): every name
// a quoted identifier, every value one of Params.
type SchemaCypher struct{ m *mapping }

// SchemaCypher returns the mapping's fragments, nil under memoria's own
// schema.
func (s *Source) SchemaCypher() *SchemaCypher {
	if m := s.mapping(); m != nil {
		return &SchemaCypher{m: m}
	}
	return nil
}

// Schema is the mapping.
func (c *SchemaCypher) Schema() graph.Schema { return c.m.s }

// IDOf is variable v's id property, e.g. "n.`entity_id`".
func (c *SchemaCypher) IDOf(v string) string { return c.m.idOf(v) }

// Label is ":`Label`" under a label filter, else "".
func (c *SchemaCypher) Label() string { return c.m.label() }

// Where is the predicate that node v has the mapping's property value
// ("" without a property filter; Label is the label's).
func (c *SchemaCypher) Where(v string) string { return c.m.where(v, map[string]any{}) }

// HasID is the predicate that node v is in the mapped graph with an id.
func (c *SchemaCypher) HasID(v string) string { return c.m.hasID(v, map[string]any{}) }

// Valid is the predicate that relationship r is not an invalidated fact
// ("" when every one counts).
func (c *SchemaCypher) Valid(r string) string { return c.m.valid(r, map[string]any{}) }

// Types is the traversed types as a pattern's type list, ":`A`|`B`".
func (c *SchemaCypher) Types() string { return types(c.m.s.Traverse) }

// Degree is node n's degree over the traversed types in the mapped graph.
func (c *SchemaCypher) Degree(n string) string {
	return c.m.degree(n, c.m.s.Traverse, map[string]any{})
}

// Weight is relationship r's mapped weight, the default weight for a
// missing one (null without either).
func (c *SchemaCypher) Weight(r string) string {
	w := prop(r, c.m.s.WeightProperty)
	switch {
	case c.m.s.DefaultWeight == nil:
		return w
	case w == "null":
		return "$schema_default"
	}
	return "coalesce(" + w + ", $schema_default)"
}

// Tags is relationship r's mapped tags as a list: a string split on the
// separator (parts trimmed, empty ones dropped), a list as it is (null
// without a tags property).
func (c *SchemaCypher) Tags(r string) string {
	t := prop(r, c.m.s.TagsProperty)
	if t == "null" {
		return t
	}
	parts := "[" + "trim(" + t + ")]"
	if c.m.s.TagsSeparator != "" {
		parts = "[x IN split(" + t + ", $schema_sep) | trim(x)]"
	}
	return "CASE WHEN " + t + " IS :: STRING THEN [x IN " + parts + " WHERE x <> ''] ELSE " + t + " END"
}

// Params are the values the fragments name.
func (c *SchemaCypher) Params() map[string]any {
	p := map[string]any{"schema_traverse": c.m.s.Traverse, "schema_sep": c.m.s.TagsSeparator}
	c.m.valid("r", p)
	c.m.where("n", p)
	if c.m.s.DefaultWeight != nil {
		p["schema_default"] = *c.m.s.DefaultWeight
	}
	return p
}

// Edge is the traversed relationship with properties props from the node
// with id from to the one with id to, as the embedded engine presents it:
// RELATES, the mapped weight (the default for a missing one) and tags.
func (c *SchemaCypher) Edge(props map[string]any, from, to string) (graph.Edge, error) {
	props = plainProps(props)
	var w, t any
	if c.m.s.WeightProperty != "" {
		w = props[c.m.s.WeightProperty]
	}
	if c.m.s.TagsProperty != "" {
		t = props[c.m.s.TagsProperty]
	}
	weight, tags, err := c.m.relWeightTags(true, w, t)
	if err != nil {
		return graph.Edge{}, err
	}
	return graph.Edge{SourceID: from, TargetID: to, Type: graph.Relates, Properties: props, Weight: weight, Tags: tags}, nil
}

// Node reads a node from its properties and labels; its mapped id
// property must be id.
func (c *SchemaCypher) Node(props map[string]any, labels []string, id string) (graph.Node, error) {
	if got, ok := props[c.m.s.IDProperty].(string); !ok || got != id {
		return graph.Node{}, errors.New("node " + strconv.Quote(id) + ": property " + strconv.Quote(c.m.s.IDProperty) + " is " + Describe(props[c.m.s.IDProperty]))
	}
	return graph.Node{ID: id, Labels: labels, Properties: plainProps(props)}, nil
}

// countsQuery counts, by aggregation in one query, what the mapping needs
// of the graph (graph.NodeCounts, graph.RelCounts): the nodes, those of
// the label, those kept (the label and the property value), those of them
// with an id (a non-empty string) and with another id value (one named by
// the least element id, with its value); the relationships between kept
// nodes, invalidated facts left out, per type, and per type the weights
// that are numbers and those that are not, the tags that are a string or a
// list of strings and those that are not (one of each named likewise).
// Names are quoted identifiers, values parameters (set in params).
func (m *mapping) countsQuery(params map[string]any) string {
	kept := cmp.Or(m.where("n", params), "true")
	rels := m.between(nil, params)
	w, t := prop("r", m.s.WeightProperty), prop("r", m.s.TagsProperty)
	return `CALL () { MATCH (n) RETURN count(n) AS nodes }
CALL () { MATCH (n` + m.label() + `)
          WITH n, ` + kept + ` AS kept, ` + m.idOf("n") + ` AS id
          WITH n, kept, id, kept AND id IS NOT NULL AND NOT (id IS :: STRING AND id <> '') AS bad
          RETURN count(n) AS labelled, count(CASE WHEN kept THEN 1 END) AS kept,
                 count(CASE WHEN kept AND id IS :: STRING NOT NULL AND id <> '' THEN 1 END) AS with_id,
                 count(CASE WHEN bad THEN 1 END) AS bad_ids, min(CASE WHEN bad THEN [elementId(n), id] END) AS bad_id }
CALL () { ` + rels + `
          WITH r, type(r) AS type, ` + w + ` AS w, ` + t + ` AS t
          WITH r, type, w, t, w IS NOT NULL AND NOT (w IS :: INTEGER OR w IS :: FLOAT) AS bad_w,
               t IS NOT NULL AND NOT (t IS :: STRING OR t IS :: LIST<STRING NOT NULL>) AS bad_t
          WITH type, count(r) AS rels,
               count(CASE WHEN w IS :: INTEGER NOT NULL OR w IS :: FLOAT NOT NULL THEN 1 END) AS with_w,
               count(CASE WHEN bad_w THEN 1 END) AS bad_w, min(CASE WHEN bad_w THEN [elementId(r), w] END) AS bad_w_first,
               count(CASE WHEN t IS NOT NULL AND NOT bad_t THEN 1 END) AS with_t,
               count(CASE WHEN bad_t THEN 1 END) AS bad_t, min(CASE WHEN bad_t THEN [elementId(r), t] END) AS bad_t_first
          RETURN collect([type, rels, with_w, bad_w, bad_w_first, with_t, bad_t, bad_t_first]) AS by_type }
RETURN nodes, labelled, kept, with_id, bad_ids, bad_id, by_type`
}

// CheckSchema refuses a mapping the graph does not fit, once, with counts
// read by one aggregation (countsQuery, in a read transaction with the
// source's deadline), in the embedded engine's words (graph.Schema's
// RefuseNodes and RefuseRels): no node of the label or with the property
// value, an id that is not a non-empty string, no node with an id; a
// traversed type no relationship has, a stored RELATES not traversed, a
// weight that is not a number, tags neither a string nor a list of
// strings, a weight or tags property no traversed relationship has. Nil
// under memoria's own schema.
func (s *Source) CheckSchema(ctx context.Context) error {
	m := s.mapping()
	if m == nil {
		return nil
	}
	params := map[string]any{}
	recs, err := s.Query(ctx, m.countsQuery(params), params)
	if err != nil {
		return err
	}
	if len(recs) != 1 {
		return errors.New("schema counts: no answer")
	}
	row := recs[0].AsMap()
	var nc graph.NodeCounts
	nc.Nodes, _ = row["nodes"].(int64)
	nc.Labelled, _ = row["labelled"].(int64)
	nc.Kept, _ = row["kept"].(int64)
	nc.WithID, _ = row["with_id"].(int64)
	nc.BadIDs, _ = row["bad_ids"].(int64)
	nc.BadIDNode, nc.BadIDValue = namedValue(row["bad_id"])
	if err := m.s.RefuseNodes(nc); err != nil {
		return err
	}
	rc := graph.RelCounts{ByType: map[string]int64{}}
	byType, _ := row["by_type"].([]any)
	var firstW, firstT []any
	for _, e := range byType {
		c, _ := e.([]any)
		if len(c) != 8 {
			return errors.New("schema counts: a row per type is not 8 columns")
		}
		typ, _ := c[0].(string)
		n, _ := c[1].(int64)
		rc.ByType[typ] += n
		rc.Rels += n
		if !m.s.Traverses(typ) {
			continue
		}
		withW, _ := c[2].(int64)
		badW, _ := c[3].(int64)
		withT, _ := c[5].(int64)
		badT, _ := c[6].(int64)
		rc.WithWeight, rc.BadWeights, rc.WithTags, rc.BadTags = rc.WithWeight+withW, rc.BadWeights+badW, rc.WithTags+withT, rc.BadTags+badT
		firstW, firstT = leastNamed(firstW, c[4]), leastNamed(firstT, c[7])
	}
	rc.BadWeightRel, rc.BadWeightValue = namedValue(firstW)
	rc.BadTagsRel, rc.BadTagsValue = namedValue(firstT)
	return m.s.RefuseRels(rc)
}

// namedValue reads a counts row's [element id, value] pair: the element
// id and the value described as the embedded engine describes it ("" for
// none).
func namedValue(v any) (name, value string) {
	pair, _ := v.([]any)
	if len(pair) != 2 {
		return "", ""
	}
	name, _ = pair[0].(string)
	plain, _ := plainValue(pair[1], false)
	return name, Describe(plain)
}

// leastNamed is the one of two [element id, value] pairs with the least
// element id (nil for none), as countsQuery's min picks within a type.
func leastNamed(a []any, b any) []any {
	pb, _ := b.([]any)
	if len(pb) != 2 {
		return a
	}
	if len(a) != 2 {
		return pb
	}
	if ea, _ := a[0].(string); ea != "" {
		if eb, _ := pb[0].(string); eb < ea {
			return pb
		}
		return a
	}
	return pb
}
