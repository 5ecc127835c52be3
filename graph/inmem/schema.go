package inmem

import (
	"fmt"
	"io"
	"slices"
	"strconv"
	"strings"

	"github.com/memoria-graph/memoria/graph"
	"github.com/memoria-graph/memoria/graph/apoc"
)

// The embedded engine follows a graph.Schema by translating at load time
// (docs/RETRIEVERS.md, "Other schemas"): the nodes outside the mapping's
// label and the relationships touching them are left out, so are
// Graphiti's invalidated facts; a node's id is its mapped id property; the
// mapped types are traversed as RELATES is (Degree counts them only), and
// shown as RELATES (the retrievers know the traversed type by that name);
// a traversed relationship's weight and tags are read from the mapped
// properties. Node and relationship properties stay as stored, under their
// own names, and APOC (so export) writes the graph as stored, less what
// the mapping left out. Under memoria's own schema nothing differs from
// Load and New.

// Schema is the mapping the graph was loaded by.
func (g *Graph) Schema() graph.Schema { return g.schema }

// Notes says what the mapping left out (nil under memoria's schema), for
// the CLI to print.
func (g *Graph) Notes() []string { return slices.Clone(g.notes) }

// typeName is relationship e's type as memoria shows it: RELATES for a
// traversed type, else the stored type.
func (g *Graph) typeName(e int32) string {
	if ty := g.relType[e]; !g.trav[ty] {
		return g.types[ty]
	}
	return graph.Relates
}

// otherWeight reads the weight of a relationship of a type not traversed
// from its properties, by the mapping's weight property (graph.WeightOf's
// rule).
func (g *Graph) otherWeight(props map[string]any) (*float64, error) {
	switch g.weightKey {
	case "weight":
		return graph.WeightOf(props)
	case "":
		return nil, nil
	}
	v, ok := props[g.weightKey]
	if !ok {
		return nil, nil
	}
	return graph.WeightOf(map[string]any{"weight": v})
}

// otherTags reads the tags of a relationship of a type not traversed, by
// the mapping's tags property.
func (g *Graph) otherTags(props map[string]any) ([]string, error) {
	switch g.tagsKey {
	case "tags":
		if g.schema.TagsSeparator == "" {
			return graph.TagsOf(props)
		}
	case "":
		return nil, nil
	}
	v, ok := props[g.tagsKey]
	if !ok || v == nil {
		return nil, nil
	}
	tags, ok := g.schema.SplitTags(v)
	if !ok {
		return nil, fmt.Errorf("property %s must be a string or a list of strings", strconv.Quote(g.tagsKey))
	}
	return tags, nil
}

// LoadFileSchema is LoadFileProgress under the mapping s: memoria's own
// schema loads exactly as LoadFileProgress does; another reads the whole
// file first (apoc.MappedRules), then translates it (progress is then
// reported while reading).
func LoadFileSchema(path string, s graph.Schema, report func(Progress)) (*Graph, error) {
	if s.IsDefault() {
		return LoadFileProgress(path, report)
	}
	f, total, err := openSized(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	return LoadSchema(f, path, total, s, report)
}

// LoadSchema is LoadProgress under the mapping s (LoadFileSchema).
func LoadSchema(r io.Reader, name string, total int64, s graph.Schema, report func(Progress)) (*Graph, error) {
	if s.IsDefault() {
		return LoadProgress(r, name, total, report)
	}
	if err := s.Validate(); err != nil {
		return nil, err
	}
	cr := &countingReader{r: r}
	if report != nil {
		cr.report = func(n int64) { report(Progress{Bytes: n, Total: total}) }
	}
	a, rep, err := apoc.ParseReport(cr, apoc.MappedRules)
	if err != nil {
		return nil, err
	}
	g, err := buildMapped(a, rep, name, s)
	if err != nil {
		return nil, err
	}
	if report != nil {
		report(Progress{Bytes: cr.n, Total: max(total, cr.n), Nodes: len(g.nodeInternal), Rels: len(g.relStart)})
	}
	return g, nil
}

// NewSchema is New under the mapping s: memoria's own schema builds
// exactly as New does.
func NewSchema(a *apoc.Graph, name string, s graph.Schema) (*Graph, error) {
	if s.IsDefault() {
		return New(a, name)
	}
	if err := s.Validate(); err != nil {
		return nil, err
	}
	rep, err := apoc.Check(a, apoc.MappedRules)
	if err != nil {
		return nil, err
	}
	return buildMapped(a, rep, name, s)
}

// buildMapped translates a checked graph by s and builds it.
func buildMapped(a *apoc.Graph, rep apoc.Report, name string, s graph.Schema) (*Graph, error) {
	m, err := mapGraph(a, s)
	if err != nil {
		return nil, err
	}
	b := newSchemaBuilder(name, s)
	b.g.report = rep
	b.g.notes = m.notes
	for _, n := range m.nodes {
		if err := b.addNode(n); err != nil {
			return nil, err
		}
	}
	for _, r := range m.rels {
		if err := b.addRel(r); err != nil {
			return nil, err
		}
	}
	return b.finish()
}

type mapped struct {
	nodes []apoc.Node
	rels  []apoc.Relationship
	notes []string
}

// mapGraph keeps what s reads of a and refuses a mapping the graph does
// not fit, with counts: no node of the label, no node with the id
// property, an id that is not a non-empty string or is repeated, a
// traversed type no relationship has, a stored RELATES type not traversed
// (memoria's retrievers know the traversed types by that name), a weight
// that is not a number, tags that are neither a string nor a list of
// strings, a weight or tags property no traversed relationship has, an
// invalid_at that is not a time.
func mapGraph(a *apoc.Graph, s graph.Schema) (mapped, error) {
	var m mapped
	keep := make(map[string]bool, len(a.Nodes))
	for _, n := range a.Nodes {
		if s.NodeLabel == "" || slices.Contains(n.Labels, s.NodeLabel) {
			m.nodes = append(m.nodes, n)
			keep[n.InternalID] = true
		}
	}
	nodesWord := "nodes"
	if s.NodeLabel != "" {
		if len(m.nodes) == 0 {
			return m, fmt.Errorf("schema %s: 0 of %s nodes have the label %s", s.Name, graph.Commas(len(a.Nodes)), graph.QuoteName(s.NodeLabel))
		}
		if left := len(a.Nodes) - len(m.nodes); left > 0 {
			m.notes = append(m.notes, fmt.Sprintf("%s of %s nodes lack the label %s: left out, with their relationships",
				graph.Commas(left), graph.Commas(len(a.Nodes)), graph.QuoteName(s.NodeLabel)))
		}
		nodesWord = "nodes with the label " + graph.QuoteName(s.NodeLabel)
	}
	withID, bad, badEx := 0, 0, ""
	seen := make(map[string]string, len(m.nodes))
	for _, n := range m.nodes {
		v, ok := n.Properties[s.IDProperty]
		if !ok || v == nil {
			continue
		}
		id, isStr := v.(string)
		if !isStr || id == "" {
			if bad == 0 {
				badEx = fmt.Sprintf("node %s has %s", graph.QuoteName(n.InternalID), apoc.Describe(v))
			}
			bad++
			continue
		}
		if first, dup := seen[id]; dup {
			return m, fmt.Errorf("schema %s: nodes %s and %s have the same %s %s: an id must be unique",
				s.Name, graph.QuoteName(first), graph.QuoteName(n.InternalID), graph.QuoteName(s.IDProperty), strconv.Quote(id))
		}
		seen[id] = n.InternalID
		withID++
	}
	if bad > 0 {
		return m, fmt.Errorf("schema %s: %s of %s %s have a %s that is not a non-empty string (the first: %s)",
			s.Name, graph.Commas(bad), graph.Commas(len(m.nodes)), nodesWord, graph.QuoteName(s.IDProperty), badEx)
	}
	if withID == 0 {
		return m, fmt.Errorf("schema %s: 0 of %s %s have %s (give the id property with --id-property)",
			s.Name, graph.Commas(len(m.nodes)), nodesWord, graph.QuoteName(s.IDProperty))
	}
	if without := len(m.nodes) - withID; without > 0 {
		m.notes = append(m.notes, fmt.Sprintf("%s of %s %s lack %s: no retriever reaches them",
			graph.Commas(without), graph.Commas(len(m.nodes)), nodesWord, graph.QuoteName(s.IDProperty)))
	}

	byType := map[string]int{}
	dropped, invalid := 0, 0
	var badTimeEx string
	badTimes := 0
	for _, r := range a.Rels {
		if !keep[r.Start] || !keep[r.End] {
			dropped++
			continue
		}
		if s.InvalidAt != "" {
			if v, ok := r.Properties[s.InvalidAt]; ok && v != nil {
				t, ok := graph.ParseInvalidAt(v)
				if !ok {
					if badTimes == 0 {
						badTimeEx = fmt.Sprintf("relationship %s has %s", graph.QuoteName(r.InternalID), apoc.Describe(v))
					}
					badTimes++
					continue
				}
				if !s.IncludeInvalid && !t.After(s.Now) {
					invalid++
					continue
				}
			}
		}
		byType[r.Type]++
		m.rels = append(m.rels, r)
	}
	if badTimes > 0 {
		return m, fmt.Errorf("schema %s: %s relationships have a %s that is not an RFC 3339 time (the first: %s)",
			s.Name, graph.Commas(badTimes), graph.QuoteName(s.InvalidAt), badTimeEx)
	}
	if dropped > 0 && s.NodeLabel != "" {
		m.notes = append(m.notes, fmt.Sprintf("%s of %s relationships touch a node without the label %s: left out",
			graph.Commas(dropped), graph.Commas(len(a.Rels)), graph.QuoteName(s.NodeLabel)))
	}
	if invalid > 0 {
		m.notes = append(m.notes, fmt.Sprintf("%s relationships have %s at or before %s: left out as facts that no longer hold (--include-invalid keeps them)",
			graph.Commas(invalid), graph.QuoteName(s.InvalidAt), s.Now.UTC().Format("2006-01-02T15:04:05Z07:00")))
	}
	total := len(m.rels)
	var missing []string
	traversed := 0
	for _, t := range s.Traverse {
		if byType[t] == 0 {
			missing = append(missing, graph.QuoteName(t))
		}
		traversed += byType[t]
	}
	if len(missing) > 0 {
		return m, fmt.Errorf("schema %s: 0 of %s relationships have the type %s (give the types with --traverse-types)",
			s.Name, graph.Commas(total), strings.Join(missing, " or "))
	}
	if n := byType[graph.Relates]; n > 0 && !s.Traverses(graph.Relates) {
		return m, fmt.Errorf("schema %s: %s relationships have the type RELATES, which the mapping does not traverse: memoria's retrievers know the traversed types by that name (add RELATES to --traverse-types)",
			s.Name, graph.Commas(n))
	}
	travWord := "relationships of type " + joinNames(s.Traverse)
	withW, badW, withT, badT := 0, 0, 0, 0
	var badWEx, badTEx string
	for _, r := range m.rels {
		if !s.Traverses(r.Type) {
			continue
		}
		if s.WeightProperty != "" {
			if v, ok := r.Properties[s.WeightProperty]; ok && v != nil {
				if _, num := apoc.Number(v); !num {
					if badW == 0 {
						badWEx = fmt.Sprintf("relationship %s has %s", graph.QuoteName(r.InternalID), apoc.Describe(v))
					}
					badW++
				} else {
					withW++
				}
			}
		}
		if s.TagsProperty != "" {
			if v, ok := r.Properties[s.TagsProperty]; ok && v != nil {
				if _, ok := s.SplitTags(v); !ok {
					if badT == 0 {
						badTEx = fmt.Sprintf("relationship %s has %s", graph.QuoteName(r.InternalID), apoc.Describe(v))
					}
					badT++
				} else {
					withT++
				}
			}
		}
	}
	switch {
	case badW > 0:
		return m, fmt.Errorf("schema %s: %s of %s %s have a %s that is not a number (the first: %s)",
			s.Name, graph.Commas(badW), graph.Commas(traversed), travWord, graph.QuoteName(s.WeightProperty), badWEx)
	case badT > 0:
		return m, fmt.Errorf("schema %s: %s of %s %s have %s neither a string nor a list of strings (the first: %s)",
			s.Name, graph.Commas(badT), graph.Commas(traversed), travWord, graph.QuoteName(s.TagsProperty), badTEx)
	case s.WeightProperty != "" && withW == 0:
		return m, fmt.Errorf("schema %s: 0 of %s %s have %s (--weight-property '' says the graph has no weight)",
			s.Name, graph.Commas(traversed), travWord, graph.QuoteName(s.WeightProperty))
	case s.TagsProperty != "" && withT == 0:
		return m, fmt.Errorf("schema %s: 0 of %s %s have %s (--tags-property '' says the graph has no tags)",
			s.Name, graph.Commas(traversed), travWord, graph.QuoteName(s.TagsProperty))
	}
	return m, nil
}

func joinNames(names []string) string {
	out := make([]string, len(names))
	for i, n := range names {
		out[i] = graph.QuoteName(n)
	}
	return strings.Join(out, ",")
}
