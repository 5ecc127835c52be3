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
// schema loads exactly as LoadFileProgress does; another is translated as
// the file is read (apoc.MappedRules), with the progress reported alike.
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

// LoadSchema is LoadProgress under the mapping s (LoadFileSchema): each
// node and relationship is translated as it is decoded, so the file is
// never held whole.
func LoadSchema(r io.Reader, name string, total int64, s graph.Schema, report func(Progress)) (*Graph, error) {
	if s.IsDefault() {
		return LoadProgress(r, name, total, report)
	}
	if err := s.Validate(); err != nil {
		return nil, err
	}
	mp := newMapper(name, s)
	cr := &countingReader{r: r}
	if report != nil {
		cr.report = func(n int64) {
			report(Progress{Bytes: n, Total: total, Nodes: len(mp.b.g.nodeInternal), Rels: len(mp.b.g.relStart)})
		}
	}
	rep, err := apoc.DecodeRules(cr, apoc.MappedRules, mp.node, mp.rel)
	if err != nil {
		return nil, err
	}
	g, err := mp.finish(rep)
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
	mp := newMapper(name, s)
	for _, n := range a.Nodes {
		if err := mp.node(n); err != nil {
			return nil, err
		}
	}
	for _, r := range a.Rels {
		if err := mp.rel(r); err != nil {
			return nil, err
		}
	}
	return mp.finish(rep)
}

// mapper translates a graph by a mapping as its nodes and relationships
// arrive (in file order), building what the mapping keeps and counting
// what its refusals need; finish refuses a mapping the graph does not fit,
// with counts (graph.Schema's RefuseNodes and RefuseRels, which Neo4j
// refuses by too): no node of the label or with the property value, no
// node with the id property, an id that is not a non-empty string; a
// traversed type no relationship has, a stored RELATES type not traversed,
// a weight that is not a number, tags that are neither a string nor a
// list of strings, a weight or tags property no traversed relationship
// has. It alone refuses a repeated id and an invalid_at that is not a
// time. Once a refusal is certain it builds nothing more, and only counts.
type mapper struct {
	s graph.Schema
	b *builder
	// dropped are the nodes the mapping leaves out (their relationships
	// go too).
	dropped map[string]bool
	nc      graph.NodeCounts
	rc      graph.RelCounts
	// held are the relationships that arrived before one of their nodes,
	// and every one after them (to keep the file's order), translated by
	// finish.
	held []apoc.Relationship
	// err is a refusal found on the way (a repeated id).
	err error

	droppedRels, invalid, badTimes int
	badTimeEx                      string
}

func newMapper(name string, s graph.Schema) *mapper {
	return &mapper{s: s, b: newSchemaBuilder(name, s), dropped: map[string]bool{}, rc: graph.RelCounts{ByType: map[string]int64{}}}
}

// refused reports whether a refusal is certain already (no more building).
func (m *mapper) refused() bool {
	return m.err != nil || m.nc.BadIDs > 0 || m.badTimes > 0 || m.rc.BadWeights > 0 || m.rc.BadTags > 0
}

// node takes one node: counted, and built when the mapping keeps it.
func (m *mapper) node(n apoc.Node) error {
	s := m.s
	m.nc.Nodes++
	if s.NodeLabel == "" || slices.Contains(n.Labels, s.NodeLabel) {
		m.nc.Labelled++
	}
	if !s.KeepsNode(n.Labels, n.Properties) {
		m.dropped[n.InternalID] = true
		return nil
	}
	m.nc.Kept++
	if v, ok := n.Properties[s.IDProperty]; ok && v != nil {
		id, isStr := v.(string)
		switch {
		case !isStr || id == "":
			if m.nc.BadIDs == 0 {
				m.nc.BadIDNode, m.nc.BadIDValue = n.InternalID, apoc.Describe(v)
			}
			m.nc.BadIDs++
		default:
			if first, dup := m.b.g.byID[id]; dup && m.err == nil {
				m.err = fmt.Errorf("schema %s: nodes %s and %s have the same %s %s: an id must be unique",
					s.Name, graph.QuoteName(m.b.g.nodeInternal[first]), graph.QuoteName(n.InternalID), graph.QuoteName(s.IDProperty), strconv.Quote(id))
			}
			m.nc.WithID++
		}
	}
	if m.refused() {
		return nil
	}
	return m.b.addNode(n)
}

// rel takes one relationship: held when one of its nodes has not arrived
// yet (or one before it was held), else translated.
func (m *mapper) rel(r apoc.Relationship) error {
	if len(m.held) > 0 || !m.seen(r.Start) || !m.seen(r.End) {
		m.held = append(m.held, r)
		return nil
	}
	return m.translate(r)
}

// seen reports whether node id has arrived (kept or left out).
func (m *mapper) seen(id string) bool {
	_, kept := m.b.nodeIndex(id)
	return kept || m.dropped[id]
}

// translate counts a relationship whose nodes have arrived and builds it
// when the mapping keeps it: not touching a node left out, not a fact
// invalidated by now, its weight a number and its tags a string or a list
// of strings when traversed.
func (m *mapper) translate(r apoc.Relationship) error {
	s := m.s
	if m.dropped[r.Start] || m.dropped[r.End] {
		m.droppedRels++
		return nil
	}
	if s.InvalidAt != "" {
		if v, ok := r.Properties[s.InvalidAt]; ok && v != nil {
			t, ok := graph.ParseInvalidAt(v)
			if !ok {
				if m.badTimes == 0 {
					m.badTimeEx = fmt.Sprintf("relationship %s has %s", graph.QuoteName(r.InternalID), apoc.Describe(v))
				}
				m.badTimes++
				return nil
			}
			if !s.IncludeInvalid && !t.After(s.Now) {
				m.invalid++
				return nil
			}
		}
	}
	m.rc.ByType[r.Type]++
	m.rc.Rels++
	if s.Traverses(r.Type) {
		if s.WeightProperty != "" {
			if v, ok := r.Properties[s.WeightProperty]; ok && v != nil {
				if _, num := apoc.Number(v); !num {
					if m.rc.BadWeights == 0 {
						m.rc.BadWeightRel, m.rc.BadWeightValue = r.InternalID, apoc.Describe(v)
					}
					m.rc.BadWeights++
				} else {
					m.rc.WithWeight++
				}
			}
		}
		if s.TagsProperty != "" {
			if v, ok := r.Properties[s.TagsProperty]; ok && v != nil {
				if _, ok := s.SplitTags(v); !ok {
					if m.rc.BadTags == 0 {
						m.rc.BadTagsRel, m.rc.BadTagsValue = r.InternalID, apoc.Describe(v)
					}
					m.rc.BadTags++
				} else {
					m.rc.WithTags++
				}
			}
		}
	}
	if m.refused() {
		return nil
	}
	return m.b.addRel(r)
}

// finish translates the relationships held, refuses a mapping the graph
// does not fit, notes what it left out, and builds the graph.
func (m *mapper) finish(rep apoc.Report) (*Graph, error) {
	s, nc := m.s, m.nc
	for _, r := range m.held {
		if err := m.translate(r); err != nil {
			return nil, err
		}
	}
	m.held = nil
	if m.err != nil {
		return nil, m.err
	}
	if err := s.RefuseNodes(nc); err != nil {
		return nil, err
	}
	var notes []string
	if left := nc.Nodes - nc.Kept; left > 0 {
		notes = append(notes, fmt.Sprintf("%s of %s nodes lack %s: left out, with their relationships",
			graph.Commas(left), graph.Commas(nc.Nodes), s.NodesFilter()))
	}
	if without := nc.Kept - nc.WithID; without > 0 {
		notes = append(notes, fmt.Sprintf("%s of %s %s lack %s: no retriever reaches them",
			graph.Commas(without), graph.Commas(nc.Kept), s.NodesWord(), graph.QuoteName(s.IDProperty)))
	}
	if m.badTimes > 0 {
		rels := "relationships"
		if m.badTimes == 1 {
			rels = "relationship"
		}
		return nil, fmt.Errorf("schema %s: %s is not an RFC 3339 time on %s %s (the first: %s)",
			s.Name, graph.QuoteName(s.InvalidAt), graph.Commas(m.badTimes), rels, m.badTimeEx)
	}
	if m.droppedRels > 0 {
		total := m.droppedRels + m.invalid + int(m.rc.Rels)
		notes = append(notes, fmt.Sprintf("%s of %s relationships touch a node without %s: left out",
			graph.Commas(m.droppedRels), graph.Commas(total), s.NodesFilter()))
	}
	if m.invalid > 0 {
		notes = append(notes, fmt.Sprintf("%s relationships have %s at or before %s: left out as facts that no longer hold (--include-invalid keeps them)",
			graph.Commas(m.invalid), graph.QuoteName(s.InvalidAt), s.Now.UTC().Format("2006-01-02T15:04:05Z07:00")))
	}
	if err := s.RefuseRels(m.rc); err != nil {
		return nil, err
	}
	m.b.g.report = rep
	m.b.g.notes = notes
	return m.b.finish()
}
