package apoc

import (
	"bufio"
	"errors"
	"fmt"
	"hash/fnv"
	"io"
	"slices"
	"strings"

	"github.com/memoria-graph/memoria/internal/cypherlit"
)

// WriteCypher writes g as a Cypher script that recreates it in an empty
// Neo4j database when pasted into Neo4j Browser or piped into cypher-shell:
//
//  1. when some node has an `id` property, for each label IndexLabels
//     lists, CREATE INDEX <name> IF NOT EXISTS FOR (n:Label) ON (n.id);
//     with the name IndexNames gives it, as memoria load names them
//     (docs/ALGORITHM.md "Indexes"), then CALL db.awaitIndexes();
//  2. one CREATE (:Label {id: "...", ...}); per node, in g's order;
//  3. one MATCH (a:Label {id: "..."}), (b:Label {id: "..."})
//     CREATE (a)-[:TYPE {...}]->(b); per relationship, in g's order.
//
// Properties are written with `id` first, then sorted by key; nil values
// are left out. Strings are double-quoted with the escapes of
// cypherlit.AppendQuote (so a statement never spans lines because of a
// string); labels, relationship types and property keys that are not plain
// identifiers, or are Cypher keywords, are backtick-quoted. Integers stay
// integers and floats are written so they read back as the same float64
// (shortest form, with ".0" added to integral values). A node without an
// `id` property that has relationships gets a temporary property, named in
// the script, by which the relationships find it; the last statement
// removes it. The output depends only on g, so it is deterministic.
//
// WriteCypher fails on a graph Validate rejects (the statements find nodes
// by their unique id) and on values Neo4j cannot store (maps, NaN,
// infinities, nested lists, nulls in lists).
func WriteCypher(w io.Writer, g *Graph) error {
	if g == nil {
		return errors.New("apoc: no graph to write")
	}
	if err := Validate(g); err != nil {
		return err
	}
	cw := newCypherWriter(w, g)
	cw.b = fmt.Appendf(cw.b, "// A memoria graph: %d nodes, %d relationships.\n", len(g.Nodes), len(g.Rels))
	cw.b = append(cw.b, "// Run it on an empty database: paste it into Neo4j Browser or pipe it into cypher-shell.\n"...)
	cw.b = appendIndexes(cw.b, g)
	if err := cw.nodes(); err != nil {
		return err
	}
	if err := cw.rels(); err != nil {
		return err
	}
	if cw.tmpKey != "" {
		b := append(cw.b, "\n// Drop the temporary key of nodes without an id.\nMATCH (n) WHERE n."...)
		b = cypherlit.AppendName(b, cw.tmpKey)
		b = append(b, " IS NOT NULL REMOVE n."...)
		b = cypherlit.AppendName(b, cw.tmpKey)
		cw.b = append(b, ";\n"...)
	}
	if err := cw.flush(); err != nil {
		return err
	}
	return cw.bw.Flush()
}

// cypherWriter writes one graph's Cypher script: nodes are found by their
// internal id (byInternal); a node that has no id but ends a relationship
// gets the temporary key tmpKey (needTmp; "" when no node needs one) so
// that its relationships can find it.
type cypherWriter struct {
	g          *Graph
	byInternal map[string]int
	needTmp    []bool
	tmpKey     string
	bw         *bufio.Writer
	b          []byte // written to bw by flush
}

func newCypherWriter(w io.Writer, g *Graph) *cypherWriter {
	cw := &cypherWriter{g: g, byInternal: make(map[string]int, len(g.Nodes)), needTmp: make([]bool, len(g.Nodes)),
		bw: bufio.NewWriterSize(w, 1<<16)}
	for i := range g.Nodes {
		cw.byInternal[g.Nodes[i].InternalID] = i
	}
	anyTmp := false
	for i := range g.Rels {
		for _, end := range [2]string{g.Rels[i].Start, g.Rels[i].End} {
			n := cw.byInternal[end]
			if _, ok := g.Nodes[n].Properties["id"].(string); !ok {
				cw.needTmp[n], anyTmp = true, true
			}
		}
	}
	if anyTmp {
		cw.tmpKey = unusedKey(g, "_memoria_export_id")
	}
	return cw
}

func (cw *cypherWriter) flush() error {
	_, err := cw.bw.Write(cw.b)
	cw.b = cw.b[:0]
	return err
}

// flushFull flushes the buffer once it holds 32 KiB.
func (cw *cypherWriter) flushFull() error {
	if len(cw.b) > 1<<15 {
		return cw.flush()
	}
	return nil
}

// appendIndexes appends the index statements, one per label of a node
// with an id, and the wait for them; nothing when no node has an id.
func appendIndexes(b []byte, g *Graph) []byte {
	withID := false
	for i := range g.Nodes {
		if _, ok := g.Nodes[i].Properties["id"].(string); ok && len(g.Nodes[i].Labels) > 0 {
			withID = true
			break
		}
	}
	if !withID {
		return b
	}
	b = append(b, "\n// Indexes on the node id of each label (docs/ALGORITHM.md, \"The Cypher\").\n"...)
	for _, st := range IndexStatements(IndexLabels(g)) {
		b = append(append(b, st...), ";\n"...)
	}
	return append(b, "CALL db.awaitIndexes();\n"...)
}

// nodes writes a CREATE per node.
func (cw *cypherWriter) nodes() error {
	if len(cw.g.Nodes) > 0 {
		cw.b = append(cw.b, "\n// Nodes.\n"...)
	}
	var err error
	for i := range cw.g.Nodes {
		n := &cw.g.Nodes[i]
		cw.b = append(cw.b, "CREATE ("...)
		cw.b = appendLabelList(cw.b, n.Labels)
		extra := ""
		if cw.needTmp[i] {
			extra = n.InternalID
		}
		if cw.b, err = appendPropMap(cw.b, n.Properties, cw.tmpKey, extra, len(n.Labels) > 0); err != nil {
			return fmt.Errorf("node %s: %w", showID(n.InternalID), err)
		}
		cw.b = append(cw.b, ");\n"...)
		if err := cw.flushFull(); err != nil {
			return err
		}
	}
	return nil
}

// rels writes a MATCH of its ends and a CREATE per relationship.
func (cw *cypherWriter) rels() error {
	g := cw.g
	if len(g.Rels) > 0 {
		cw.b = append(cw.b, "\n// Relationships.\n"...)
	}
	var err error
	for i := range g.Rels {
		r := &g.Rels[i]
		start, end := &g.Nodes[cw.byInternal[r.Start]], &g.Nodes[cw.byInternal[r.End]]
		b := append(cw.b, "MATCH "...)
		b = appendNodeRef(b, "a", start, cw.tmpKey)
		if r.Start != r.End {
			b = append(b, ", "...)
			b = appendNodeRef(b, "b", end, cw.tmpKey)
		}
		b = append(b, " CREATE (a)-[:"...)
		b = cypherlit.AppendName(b, r.Type)
		if b, err = appendPropMap(b, r.Properties, "", "", true); err != nil {
			return fmt.Errorf("relationship %s: %w", showID(r.InternalID), err)
		}
		if r.Start != r.End {
			b = append(b, "]->(b);\n"...)
		} else {
			b = append(b, "]->(a);\n"...)
		}
		cw.b = b
		if err := cw.flushFull(); err != nil {
			return err
		}
	}
	return nil
}

// MemoryLabels are the six node labels of the memory graph's data model
// (docs/ALGORITHM.md, "The Cypher"), whose id indexes memoria load always
// creates.
var MemoryLabels = []string{"UserRequest", "UserPreference", "AgentAnswer", "AgentAction", "Event", "DataSource"}

// IndexLabels lists the labels that get an id index when g is loaded or
// scripted: MemoryLabels, then g's other labels sorted, each once.
func IndexLabels(g *Graph) []string {
	var met []string
	for i := range g.Nodes {
		met = append(met, g.Nodes[i].Labels...)
	}
	return IndexLabelsOf(met)
}

// IndexLabelsOf is IndexLabels for the labels met in a graph that is not
// held whole (memoria load streams its file): MemoryLabels, then the other
// labels of met sorted, each once. met may repeat labels.
func IndexLabelsOf(met []string) []string {
	labels := slices.Clone(MemoryLabels)
	seen := make(map[string]bool, len(labels))
	for _, l := range labels {
		seen[l] = true
	}
	var extra []string
	for _, l := range met {
		if !seen[l] {
			seen[l] = true
			extra = append(extra, l)
		}
	}
	slices.Sort(extra)
	return append(labels, extra...)
}

// IndexNames names the id index of each label of labels (as IndexLabels
// lists them): IndexName(label), except that when labels share one (Foo-Bar
// and Foo_Bar both give idx_foo_bar_id) every label after the first that
// shares it gets the FNV-32a hash of the label before "_id"
// (idx_foo_bar_e686649d_id). memoria load and WriteCypher both call it, so
// they create the same indexes.
func IndexNames(labels []string) []string {
	names := make([]string, len(labels))
	taken := make(map[string]bool, len(labels))
	for i, l := range labels {
		name := IndexName(l)
		if taken[name] {
			h := fnv.New32a()
			h.Write([]byte(l))
			name = fmt.Sprintf("%s_%08x_id", strings.TrimSuffix(name, "_id"), h.Sum32())
		}
		taken[name] = true
		names[i] = name
	}
	return names
}

// IndexName is the name of the id index of a label, as docs/ALGORITHM.md "Indexes" names
// them: idx_<label in lower case>_id, with characters other than ASCII
// letters, digits and '_' replaced by '_'. memoria load and WriteCypher
// both use it, so they create the same indexes.
func IndexName(label string) string {
	var b strings.Builder
	for _, r := range strings.ToLower(label) {
		if r >= 'a' && r <= 'z' || r >= '0' && r <= '9' || r == '_' {
			b.WriteRune(r)
		} else {
			b.WriteByte('_')
		}
	}
	return "idx_" + b.String() + "_id"
}

// unusedKey returns want, or want followed by underscores, whichever is
// first a property key of no node.
func unusedKey(g *Graph, want string) string {
	for {
		used := false
		for i := range g.Nodes {
			if _, ok := g.Nodes[i].Properties[want]; ok {
				used = true
				break
			}
		}
		if !used {
			return want
		}
		want += "_"
	}
}

// appendNodeRef writes (v:FirstLabel {id: "..."}), or the temporary key
// for a node without an id.
func appendNodeRef(b []byte, v string, n *Node, tmpKey string) []byte {
	b = append(b, '(')
	b = append(b, v...)
	if len(n.Labels) > 0 {
		b = append(b, ':')
		b = cypherlit.AppendName(b, n.Labels[0])
	}
	b = append(b, " {"...)
	if id, ok := n.Properties["id"].(string); ok {
		b = append(b, "id: "...)
		b = cypherlit.AppendQuote(b, id)
	} else {
		b = cypherlit.AppendName(b, tmpKey)
		b = append(b, ": "...)
		b = cypherlit.AppendQuote(b, n.InternalID)
	}
	return append(b, "})"...)
}

func appendLabelList(b []byte, labels []string) []byte {
	for _, l := range labels {
		b = append(b, ':')
		b = cypherlit.AppendName(b, l)
	}
	return b
}

// appendPropMap writes " {id: ..., k: v, ...}" (nothing when there are no
// properties), with the space only when space is true. A non-empty extraKey
// adds extraKey: extraVal as the last entry.
func appendPropMap(b []byte, props map[string]any, extraKey, extraVal string, space bool) ([]byte, error) {
	keys := make([]string, 0, len(props))
	for k, v := range props {
		if v != nil && k != "id" {
			keys = append(keys, k)
		}
	}
	slices.Sort(keys)
	if v, ok := props["id"]; ok && v != nil {
		keys = slices.Insert(keys, 0, "id")
	}
	if len(keys) == 0 && extraVal == "" {
		return b, nil
	}
	if space {
		b = append(b, ' ')
	}
	b = append(b, '{')
	for i, k := range keys {
		if i > 0 {
			b = append(b, ", "...)
		}
		b = cypherlit.AppendName(b, k)
		b = append(b, ": "...)
		var err error
		if b, err = cypherFormat.appendValue(b, props[k]); err != nil {
			return b, fmt.Errorf("property %q: %w", k, err)
		}
	}
	if extraVal != "" {
		if len(keys) > 0 {
			b = append(b, ", "...)
		}
		b = cypherlit.AppendName(b, extraKey)
		b = append(b, ": "...)
		b = cypherlit.AppendQuote(b, extraVal)
	}
	return append(b, '}'), nil
}
