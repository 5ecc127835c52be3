package inmem

import (
	"fmt"
	"io"
	"slices"
	"strconv"

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
// not fit, with counts (graph.Schema's RefuseNodes and RefuseRels, which
// Neo4j refuses by too): no node of the label or with the property value,
// no node with the id property, an id that is not a non-empty string; a
// traversed type no relationship has, a stored RELATES type not traversed,
// a weight that is not a number, tags that are neither a string nor a
// list of strings, a weight or tags property no traversed relationship
// has. It alone refuses a repeated id and an invalid_at that is not a
// time.
func mapGraph(a *apoc.Graph, s graph.Schema) (mapped, error) {
	var m mapped
	nc := graph.NodeCounts{Nodes: int64(len(a.Nodes))}
	keep := make(map[string]bool, len(a.Nodes))
	for _, n := range a.Nodes {
		if s.NodeLabel == "" || slices.Contains(n.Labels, s.NodeLabel) {
			nc.Labelled++
		}
		if s.KeepsNode(n.Labels, n.Properties) {
			m.nodes = append(m.nodes, n)
			keep[n.InternalID] = true
		}
	}
	nc.Kept = int64(len(m.nodes))
	seen := make(map[string]string, len(m.nodes))
	for _, n := range m.nodes {
		v, ok := n.Properties[s.IDProperty]
		if !ok || v == nil {
			continue
		}
		id, isStr := v.(string)
		if !isStr || id == "" {
			if nc.BadIDs == 0 {
				nc.BadIDNode, nc.BadIDValue = n.InternalID, apoc.Describe(v)
			}
			nc.BadIDs++
			continue
		}
		if first, dup := seen[id]; dup {
			return m, fmt.Errorf("schema %s: nodes %s and %s have the same %s %s: an id must be unique",
				s.Name, graph.QuoteName(first), graph.QuoteName(n.InternalID), graph.QuoteName(s.IDProperty), strconv.Quote(id))
		}
		seen[id] = n.InternalID
		nc.WithID++
	}
	if err := s.RefuseNodes(nc); err != nil {
		return m, err
	}
	if left := len(a.Nodes) - len(m.nodes); left > 0 {
		m.notes = append(m.notes, fmt.Sprintf("%s of %s nodes lack %s: left out, with their relationships",
			graph.Commas(left), graph.Commas(len(a.Nodes)), s.NodesFilter()))
	}
	if without := nc.Kept - nc.WithID; without > 0 {
		m.notes = append(m.notes, fmt.Sprintf("%s of %s %s lack %s: no retriever reaches them",
			graph.Commas(without), graph.Commas(nc.Kept), s.NodesWord(), graph.QuoteName(s.IDProperty)))
	}

	rc := graph.RelCounts{ByType: map[string]int64{}}
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
		rc.ByType[r.Type]++
		m.rels = append(m.rels, r)
	}
	if badTimes > 0 {
		return m, fmt.Errorf("schema %s: %s relationships have a %s that is not an RFC 3339 time (the first: %s)",
			s.Name, graph.Commas(badTimes), graph.QuoteName(s.InvalidAt), badTimeEx)
	}
	if dropped > 0 {
		m.notes = append(m.notes, fmt.Sprintf("%s of %s relationships touch a node without %s: left out",
			graph.Commas(dropped), graph.Commas(len(a.Rels)), s.NodesFilter()))
	}
	if invalid > 0 {
		m.notes = append(m.notes, fmt.Sprintf("%s relationships have %s at or before %s: left out as facts that no longer hold (--include-invalid keeps them)",
			graph.Commas(invalid), graph.QuoteName(s.InvalidAt), s.Now.UTC().Format("2006-01-02T15:04:05Z07:00")))
	}
	rc.Rels = int64(len(m.rels))
	for _, r := range m.rels {
		if !s.Traverses(r.Type) {
			continue
		}
		if s.WeightProperty != "" {
			if v, ok := r.Properties[s.WeightProperty]; ok && v != nil {
				if _, num := apoc.Number(v); !num {
					if rc.BadWeights == 0 {
						rc.BadWeightRel, rc.BadWeightValue = r.InternalID, apoc.Describe(v)
					}
					rc.BadWeights++
				} else {
					rc.WithWeight++
				}
			}
		}
		if s.TagsProperty != "" {
			if v, ok := r.Properties[s.TagsProperty]; ok && v != nil {
				if _, ok := s.SplitTags(v); !ok {
					if rc.BadTags == 0 {
						rc.BadTagsRel, rc.BadTagsValue = r.InternalID, apoc.Describe(v)
					}
					rc.BadTags++
				} else {
					rc.WithTags++
				}
			}
		}
	}
	return m, s.RefuseRels(rc)
}
