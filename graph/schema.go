package graph

import (
	"errors"
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"
	"time"
)

// Schema maps a graph's own names onto what memoria's retrievers read
// (docs/RETRIEVERS.md, "Other schemas"): the property that keys a node, the
// relationship types traversed as the specification's RELATES, where a
// relationship's weight and tags are, and which nodes count. The zero value
// is not valid; MemoriaSchema is memoria's own shape and the default, under
// which every engine behaves exactly as it does without a mapping.
//
// The embedded engine (graph/inmem) follows a mapping by translating at
// load time; Neo4j (graph/neo4jdb) by writing it into every query.
type Schema struct {
	// Name is the preset the mapping started from ("memoria",
	// "lightrag", "graphiti"); Describe says when flags changed it.
	Name string
	// IDProperty keys a node: a node whose value of it is a non-empty
	// string has that id; others have none (a retriever never reaches
	// them).
	IDProperty string
	// Traverse are the relationship types the retrievers traverse as the
	// specification's RELATES (rule 1's degree counts these only).
	Traverse []string
	// WeightProperty holds a traversed relationship's weight, a number;
	// "" means the graph has none.
	WeightProperty string
	// DefaultWeight, when set, is the weight of a traversed relationship
	// without WeightProperty (every one when WeightProperty is ""); nil
	// keeps each retriever's own rule for a missing weight (memoria's:
	// docs/RETRIEVERS.md).
	DefaultWeight *float64
	// TagsProperty holds a traversed relationship's tags; "" means none.
	// A list of strings is the tags; a string is split on TagsSeparator
	// (each part trimmed, empty parts dropped), or is one tag when
	// TagsSeparator is "". Memoria's own shape refuses a string.
	TagsProperty  string
	TagsSeparator string
	// NodeLabel, when set, keeps only the nodes with this label (and the
	// relationships between them).
	NodeLabel string
	// NodeWhereKey, when set, keeps only the nodes whose property of this
	// key is the string NodeWhereValue (and the relationships between
	// them), as NodeLabel does: Graphiti's group_id, a workspace held in a
	// property. A value of another type never matches.
	NodeWhereKey   string
	NodeWhereValue string
	// InvalidAt, when set (Graphiti's "invalid_at"), leaves out every
	// relationship whose value of it is a time not after Now, unless
	// IncludeInvalid: a fact that no longer holds.
	InvalidAt      string
	Now            time.Time
	IncludeInvalid bool
	// ValidAt (Graphiti's "valid_at", when the fact became true) is shown
	// beside InvalidAt where a relationship is explained; it leaves
	// nothing out.
	ValidAt string

	// custom lists the fields flags set over the preset, for Describe.
	custom []string
}

// The presets' names, in the order flags list them.
const (
	SchemaMemoria  = "memoria"
	SchemaLightRAG = "lightrag"
	SchemaGraphiti = "graphiti"
	SchemaGraphRAG = "graphrag"
)

// SchemaPresets are the names Preset knows.
var SchemaPresets = []string{SchemaMemoria, SchemaLightRAG, SchemaGraphiti, SchemaGraphRAG}

// MemoriaSchema is memoria's own shape: nodes keyed by `id`, RELATES
// traversed, `weight` (each retriever's rule when missing) and a `tags`
// list, every node.
func MemoriaSchema() Schema {
	return Schema{Name: SchemaMemoria, IDProperty: "id", Traverse: []string{Relates}, WeightProperty: "weight", TagsProperty: "tags"}
}

// Preset returns the named preset (SchemaPresets):
//
//   - memoria: MemoriaSchema.
//   - lightrag: LightRAG's Neo4j storage (lightrag/kg/neo4j_impl.py):
//     nodes of the workspace label `base` keyed by `entity_id`, `DIRECTED`
//     relationships with `weight` (1.0 when missing, LightRAG's own
//     default) and `keywords`, one string of comma-separated keywords.
//   - graphiti: Graphiti's (Zep's) `Entity` nodes keyed by `uuid`,
//     `RELATES_TO` relationships, which have no weight (every one weighs
//     1.0) and no tags (every hop's tag similarity is then TAG_SIM_FLOOR,
//     or 1 without query tags), and `invalid_at`: a fact invalidated
//     before now is absent (`valid_at` is shown beside it).
//   - graphrag: Microsoft GraphRAG's output tables as graph/graphrag reads
//     them: entities keyed by `title`, every node (an entity's label is its
//     type), RELATES relationships with `weight` (1.0 when missing,
//     GraphRAG's own default) and no tags; the communities' IN_COMMUNITY
//     and the text units' MENTIONS are not traversed.
func Preset(name string) (Schema, bool) {
	one := 1.0
	switch name {
	case SchemaMemoria:
		return MemoriaSchema(), true
	case SchemaLightRAG:
		return Schema{Name: name, IDProperty: "entity_id", Traverse: []string{"DIRECTED"}, WeightProperty: "weight",
			DefaultWeight: &one, TagsProperty: "keywords", TagsSeparator: ",", NodeLabel: "base"}, true
	case SchemaGraphiti:
		return Schema{Name: name, IDProperty: "uuid", Traverse: []string{"RELATES_TO"}, DefaultWeight: &one,
			NodeLabel: "Entity", InvalidAt: "invalid_at", ValidAt: "valid_at"}, true
	case SchemaGraphRAG:
		return Schema{Name: name, IDProperty: "title", Traverse: []string{Relates}, WeightProperty: "weight", DefaultWeight: &one}, true
	}
	return Schema{}, false
}

// Customize records that flag set a field over the preset (Describe names
// it).
func (s *Schema) Customize(flag string) {
	if !slices.Contains(s.custom, flag) {
		s.custom = append(s.custom, flag)
	}
}

// IsDefault reports whether s is memoria's own shape, read as it always
// was: every engine then behaves exactly as without a mapping.
func (s Schema) IsDefault() bool {
	m := MemoriaSchema()
	return s.IDProperty == m.IDProperty && slices.Equal(s.Traverse, m.Traverse) &&
		s.WeightProperty == m.WeightProperty && s.DefaultWeight == nil &&
		s.TagsProperty == m.TagsProperty && s.TagsSeparator == "" && s.NodeLabel == "" && s.NodeWhereKey == "" && s.InvalidAt == ""
}

// Traverses reports whether relationships of type typ are traversed.
func (s Schema) Traverses(typ string) bool { return slices.Contains(s.Traverse, typ) }

// KeepsNode reports whether a node with these labels and properties is in
// the mapped graph: it has the label, and its property NodeWhereKey is the
// string NodeWhereValue (string equality; a value of another type never
// matches). The one rule both engines follow (Neo4j writes it in Cypher).
func (s Schema) KeepsNode(labels []string, props map[string]any) bool {
	if s.NodeLabel != "" && !slices.Contains(labels, s.NodeLabel) {
		return false
	}
	if s.NodeWhereKey != "" {
		v, ok := props[s.NodeWhereKey].(string)
		return ok && v == s.NodeWhereValue
	}
	return true
}

// whereText is the property filter in a message: `group_id "g1"`.
func (s Schema) whereText() string {
	return QuoteName(s.NodeWhereKey) + " " + strconv.Quote(s.NodeWhereValue)
}

// NodesFilter is what a node needs to be kept, in a message ("the label
// Entity", `group_id "g1"`, "the label Entity and group_id "g1""; "" for
// every node).
func (s Schema) NodesFilter() string {
	var parts []string
	if s.NodeLabel != "" {
		parts = append(parts, "the label "+QuoteName(s.NodeLabel))
	}
	if s.NodeWhereKey != "" {
		parts = append(parts, s.whereText())
	}
	return strings.Join(parts, " and ")
}

// NodesWord names the nodes the mapping keeps in a message ("nodes",
// "nodes with the label base", …).
func (s Schema) NodesWord() string {
	if f := s.NodesFilter(); f != "" {
		return "nodes with " + f
	}
	return "nodes"
}

// NodeCounts are what an engine counts of the nodes to check a mapping
// against a graph (RefuseNodes).
type NodeCounts struct {
	// Nodes are all the graph's nodes, Labelled those with the label
	// (all without one), Kept those the mapping keeps (KeepsNode), WithID
	// the kept ones whose id property is a non-empty string, BadIDs the
	// kept ones whose id property is set to anything else.
	Nodes, Labelled, Kept, WithID, BadIDs int64
	// BadIDNode names one of the BadIDs (the engine's own name for it) and
	// BadIDValue describes its value (apoc.Describe).
	BadIDNode, BadIDValue string
}

// RefuseNodes is the refusal, with counts, of a mapping whose nodes the
// graph does not have (nil when it has them): no node with the label, none
// with the property value, an id that is not a non-empty string, no node
// with an id. Both engines refuse by it, so they say the same.
func (s Schema) RefuseNodes(c NodeCounts) error {
	if s.NodeLabel != "" && c.Labelled == 0 {
		return fmt.Errorf("schema %s: 0 of %s nodes have the label %s", s.Name, Commas(c.Nodes), QuoteName(s.NodeLabel))
	}
	if s.NodeWhereKey != "" && c.Kept == 0 {
		of := "nodes"
		if s.NodeLabel != "" {
			of = "nodes with the label " + QuoteName(s.NodeLabel)
		}
		return fmt.Errorf("schema %s: 0 of %s %s have %s (--node-where picks the nodes by a property)", s.Name, Commas(c.Labelled), of, s.whereText())
	}
	if c.BadIDs > 0 {
		return fmt.Errorf("schema %s: %s is not a non-empty string on %s of %s %s (the first: node %s has %s)",
			s.Name, QuoteName(s.IDProperty), Commas(c.BadIDs), Commas(c.Kept), s.NodesWord(), QuoteName(c.BadIDNode), c.BadIDValue)
	}
	if c.WithID == 0 {
		return fmt.Errorf("schema %s: 0 of %s %s have %s (give the id property with --id-property)",
			s.Name, Commas(c.Kept), s.NodesWord(), QuoteName(s.IDProperty))
	}
	return nil
}

// RelCounts are what an engine counts of the relationships of the mapped
// graph (between kept nodes, invalidated facts left out) to check a
// mapping against a graph (RefuseRels).
type RelCounts struct {
	// Rels are those relationships, ByType per type (stored names).
	Rels   int64
	ByType map[string]int64
	// Of the traversed ones: those whose weight property is a number, and
	// those where it is set to anything else (one named, its value
	// described, as NodeCounts' BadIDNode); likewise their tags property,
	// good when a string or a list of strings.
	WithWeight, BadWeights int64
	BadWeightRel           string
	BadWeightValue         string
	WithTags, BadTags      int64
	BadTagsRel             string
	BadTagsValue           string
}

// RefuseRels is the refusal, with counts, of a mapping whose
// relationships the graph does not have (nil when it has them): a
// traversed type no relationship has, a stored RELATES not traversed
// (memoria's retrievers know the traversed types by that name), a weight
// that is not a number, tags neither a string nor a list of strings, a
// weight or tags property no traversed relationship has. Both engines
// refuse by it.
func (s Schema) RefuseRels(c RelCounts) error {
	var missing []string
	traversed := int64(0)
	for _, t := range s.Traverse {
		if c.ByType[t] == 0 {
			missing = append(missing, QuoteName(t))
		}
		traversed += c.ByType[t]
	}
	if len(missing) > 0 {
		return fmt.Errorf("schema %s: 0 of %s relationships have the type %s (give the types with --traverse-types)",
			s.Name, Commas(c.Rels), strings.Join(missing, " or "))
	}
	if n := c.ByType[Relates]; n > 0 && !s.Traverses(Relates) {
		return fmt.Errorf("schema %s: %s relationships have the type RELATES, which the mapping does not traverse: memoria's retrievers know the traversed types by that name (add RELATES to --traverse-types)",
			s.Name, Commas(n))
	}
	names := make([]string, len(s.Traverse))
	for i, t := range s.Traverse {
		names[i] = QuoteName(t)
	}
	travWord := "relationships of type " + strings.Join(names, ",")
	switch {
	case c.BadWeights > 0:
		return fmt.Errorf("schema %s: %s is not a number on %s of %s %s (the first: relationship %s has %s)",
			s.Name, QuoteName(s.WeightProperty), Commas(c.BadWeights), Commas(traversed), travWord, QuoteName(c.BadWeightRel), c.BadWeightValue)
	case c.BadTags > 0:
		return fmt.Errorf("schema %s: %s is neither a string nor a list of strings on %s of %s %s (the first: relationship %s has %s)",
			s.Name, QuoteName(s.TagsProperty), Commas(c.BadTags), Commas(traversed), travWord, QuoteName(c.BadTagsRel), c.BadTagsValue)
	case s.WeightProperty != "" && c.WithWeight == 0:
		return fmt.Errorf("schema %s: 0 of %s %s have %s (--weight-property '' says the graph has no weight)",
			s.Name, Commas(traversed), travWord, QuoteName(s.WeightProperty))
	case s.TagsProperty != "" && c.WithTags == 0:
		return fmt.Errorf("schema %s: 0 of %s %s have %s (--tags-property '' says the graph has no tags)",
			s.Name, Commas(traversed), travWord, QuoteName(s.TagsProperty))
	}
	return nil
}

// Validate checks the mapping itself (not a graph): an id property and at
// least one traversed type, no empty or repeated type, a finite default
// weight.
func (s Schema) Validate() error {
	var errs []error
	if s.IDProperty == "" {
		errs = append(errs, errors.New("the id property is empty"))
	}
	if len(s.Traverse) == 0 {
		errs = append(errs, errors.New("no relationship type to traverse"))
	}
	for i, t := range s.Traverse {
		if t == "" {
			errs = append(errs, errors.New("an empty relationship type to traverse"))
		} else if slices.Contains(s.Traverse[:i], t) {
			errs = append(errs, fmt.Errorf("relationship type %s to traverse twice", strconv.Quote(t)))
		}
	}
	if s.NodeWhereKey == "" && s.NodeWhereValue != "" {
		errs = append(errs, errors.New("a node property value without its key"))
	}
	if w := s.DefaultWeight; w != nil && (math.IsNaN(*w) || math.IsInf(*w, 0)) {
		errs = append(errs, errors.New("the default weight is not a finite number"))
	}
	return errors.Join(errs...)
}

// Describe is the mapping in one line, for status lines and help: the
// preset's name, "+ flags" when flags changed it, then the names it reads.
// The names are the graph's own text: callers escape it for a terminal.
func (s Schema) Describe() string {
	name := s.Name
	if len(s.custom) > 0 {
		name += " + " + strings.Join(s.custom, ", ")
	}
	parts := []string{"id " + s.IDProperty, "traverse " + strings.Join(s.Traverse, ",")}
	w := "weight " + s.WeightProperty
	if s.WeightProperty == "" {
		w = "no weight"
	}
	if s.DefaultWeight != nil {
		w += " (missing: " + strconv.FormatFloat(*s.DefaultWeight, 'g', -1, 64) + ")"
	}
	parts = append(parts, w)
	switch {
	case s.TagsProperty == "":
		parts = append(parts, "no tags")
	case s.TagsSeparator != "":
		parts = append(parts, "tags "+s.TagsProperty+" split on "+strconv.Quote(s.TagsSeparator))
	default:
		parts = append(parts, "tags "+s.TagsProperty)
	}
	if s.NodeLabel != "" {
		parts = append(parts, "label "+s.NodeLabel)
	}
	if s.NodeWhereKey != "" {
		parts = append(parts, "only "+s.NodeWhereKey+" "+strconv.Quote(s.NodeWhereValue))
	}
	if s.InvalidAt != "" {
		if s.IncludeInvalid {
			parts = append(parts, "invalidated facts kept")
		} else {
			parts = append(parts, "facts invalid by "+s.Now.UTC().Format(time.RFC3339)+" left out")
		}
	}
	return "schema " + name + ": " + strings.Join(parts, " · ")
}

// SplitTags reads a tags property's value by the mapping: a list of
// strings as it is; a string split on TagsSeparator (parts trimmed, empty
// ones dropped), or as one tag without a separator. ok is false for any
// other value.
func (s Schema) SplitTags(v any) (tags []string, ok bool) {
	switch x := v.(type) {
	case string:
		if s.TagsSeparator == "" {
			if t := strings.TrimSpace(x); t != "" {
				return []string{t}, true
			}
			return []string{}, true
		}
		out := []string{}
		for _, p := range strings.Split(x, s.TagsSeparator) {
			if p = strings.TrimSpace(p); p != "" {
				out = append(out, p)
			}
		}
		return out, true
	}
	return StringList(v)
}

// StringList returns a list property whose elements are all strings, as
// []string; ok is false for anything else. The one reading of a list of
// strings (graph/apoc's StringList is this).
func StringList(v any) (list []string, ok bool) {
	switch x := v.(type) {
	case []string:
		return x, true
	case []any:
		out := make([]string, len(x))
		for i, e := range x {
			str, isStr := e.(string)
			if !isStr {
				return nil, false
			}
			out[i] = str
		}
		return out, true
	}
	return nil, false
}

// ParseInvalidAt reads a Graphiti time as APOC exports a Neo4j datetime:
// RFC 3339 (fractions of a second allowed), optionally followed by a zone
// name in brackets ("2025-01-02T03:04:05Z[UTC]").
func ParseInvalidAt(v any) (time.Time, bool) {
	s, ok := v.(string)
	if !ok {
		return time.Time{}, false
	}
	if i := strings.IndexByte(s, '['); i > 0 && strings.HasSuffix(s, "]") {
		s = s[:i]
	}
	t, err := time.Parse(time.RFC3339Nano, s)
	return t, err == nil
}

// QuoteName writes a name of the graph (a label, type or property key) in
// a message: bare when it is a plain word, else quoted with Go's escapes,
// so that refusals and notes read the same from every engine. The text
// is still the graph's: callers escape it for a terminal.
func QuoteName(s string) string {
	if s == "" {
		return `""`
	}
	for _, c := range s {
		if !(c >= '0' && c <= '9' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c == '_' || c == '-' || c == '.') {
			return strconv.Quote(s)
		}
	}
	return s
}

// Commas writes n with thousands separators, 1,204, for the counts of
// refusals and notes.
func Commas[N ~int | ~int64](n N) string {
	if n < 0 {
		return "-" + Commas(-n)
	}
	s := strconv.FormatInt(int64(n), 10)
	for i := len(s) - 3; i > 0; i -= 3 {
		s = s[:i] + "," + s[i:]
	}
	return s
}
