package neo4jload

import (
	"errors"
	"fmt"
	"hash/maphash"
	"os"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/memoria-graph/memoria/graph"
	"github.com/memoria-graph/memoria/graph/apoc"
	"github.com/memoria-graph/memoria/graph/neo4jdb"
	"github.com/memoria-graph/memoria/internal/cypherlit"
)

// Plan is a graph checked for loading and what Load needs to write it
// without holding it, built before it connects: the application id and
// labels of every node (in input order), the statements (index creations,
// and per label list and relationship type the UNWIND queries), and for
// each group of identical relationships how many there are. It keeps no
// property maps: Load reads the elements again (PrepareFile opens the file
// again) and sends them in batches, so loading a file takes memory for its
// node ids, not for its content. Building it needs no database, so a graph
// the checker accepts can be shown to give statements Neo4j accepts too
// (FuzzParse in graph/apoc does).
//
// On the generated 100k-node / 1M-relationship file a Plan holds about
// 100k ids and, while it is built, a 16-byte key per relationship
// (BenchmarkLoadFile reports the client's peak); the keys are kept through
// the load only when some relationships are identical (groups).
type Plan struct {
	// Nodes and Rels count the elements of the graph.
	Nodes, Rels int
	// Report is the checker's report on the graph (its warnings are for
	// the user).
	Report apoc.Report

	batch int
	read  func(onNode func(apoc.Node) error, onRel func(apoc.Relationship) error) error

	nodes []planNode
	// index maps a node's internal id to its position in nodes.
	index map[string]int32

	indexNames []string
	indexes    []string // CREATE INDEX statements, in apoc.IndexLabelsOf order
	// fulltext creates the gather's fulltext index (neo4jdb.GatherIndexName)
	// over the same labels and GatherProperties.
	fulltext  string
	labelsMet []string

	nodeGroups []*nodeGroup
	byLabels   map[string]*nodeGroup
	relTypes   []*relType
	byType     map[string]*relType

	// groups counts the identical relationships of each group (relKey);
	// nil when every group has one (dropSingles), the usual case.
	groups map[relKey]int64
	seeds  [2]maphash.Seed
	// nodesFirst tells that every node comes before every relationship
	// (as APOC writes a file): one pass of Load writes both.
	nodesFirst bool

	q quoter
}

type planNode struct {
	id  string
	grp *nodeGroup
}

// nodeGroup is the nodes that share one label list, with the queries that
// write them.
type nodeGroup struct {
	labels []string
	// merge writes rows {i, id, props} (labelled nodes; "" for the group
	// without labels, which unlabelledBatch writes); create is merge for a
	// database that had no nodes (see loader.flushNodes); takeOver writes rows
	// {i, eid, id, props} onto given nodes (see loader.takeOver).
	merge, create, takeOver string
}

// relType is the relationships of one type, with the queries that write
// them: query looks for identical ones first (relsQuery), create does not
// (relsCreateQuery).
type relType struct {
	typ, query, create string
}

// relKey identifies a group of identical relationships: two 64-bit hashes,
// with independent seeds, of the type, the internal ids of the endpoints
// (one to one with the application ids) and graph.CanonicalProps of the
// properties. Two different groups share a key with a probability of about
// n²/2¹²⁹: never, for any file that fits on a disk.
type relKey [2]uint64

func (p *Plan) key(r *apoc.Relationship) relKey {
	s := strings.Join([]string{r.Type, r.Start, r.End, graph.CanonicalProps(r.Properties)}, "\x00")
	return relKey{maphash.String(p.seeds[0], s), maphash.String(p.seeds[1], s)}
}

func newPlan(batch int) *Plan {
	if batch <= 0 {
		batch = DefaultBatchSize
	}
	return &Plan{batch: batch, index: make(map[string]int32), byLabels: make(map[string]*nodeGroup),
		byType: make(map[string]*relType), groups: make(map[relKey]int64),
		seeds: [2]maphash.Seed{maphash.MakeSeed(), maphash.MakeSeed()}, nodesFirst: true}
}

// Prepare checks g (ValidateForLoad) and plans its load in batches of
// batch rows (DefaultBatchSize when batch <= 0); the Plan's Load reads g's
// slices, which must not change in between. Every label, relationship
// type and property key of a statement is checked once more as Neo4j
// checks names; an error there means the checker let through a name Neo4j
// refuses.
func Prepare(g *apoc.Graph, batch int) (*Plan, error) {
	rep, err := apoc.Check(g, apoc.FileRules)
	if err != nil {
		return nil, err
	}
	p := newPlan(batch)
	p.Report = rep
	p.read = func(onNode func(apoc.Node) error, onRel func(apoc.Relationship) error) error {
		for i := range g.Nodes {
			if err := onNode(g.Nodes[i]); err != nil {
				return err
			}
		}
		for i := range g.Rels {
			if err := onRel(g.Rels[i]); err != nil {
				return err
			}
		}
		return nil
	}
	if err := p.read(p.collectNode, p.collectRel); err != nil {
		return nil, err
	}
	return p, p.finish()
}

// PrepareFile checks the APOC file at path for loading, reading it once
// without holding it, with the checker of every graph file (apoc.Decode,
// by the rules of docs/EXPORTS.md "The APOC file", the same verdict as
// `memoria explore --graph`): every problem is reported with its line (up
// to apoc.MaxErrors) before anything is written. The Plan's Load reads the
// file again; it fails, writing no more, if the file changed in between.
func PrepareFile(path string, batch int) (*Plan, error) {
	p := newPlan(batch)
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	p.Report, err = apoc.Decode(f, p.collectNode, p.collectRel)
	f.Close()
	if err != nil {
		return nil, err
	}
	p.read = func(onNode func(apoc.Node) error, onRel func(apoc.Relationship) error) error {
		f, err := os.Open(path)
		if err != nil {
			return err
		}
		defer f.Close()
		_, err = apoc.Decode(f, onNode, onRel)
		if err != nil && !errors.Is(err, errChanged) {
			// The file passed the check before, so it changed.
			return fmt.Errorf("%w: %w", errChanged, err)
		}
		return err
	}
	return p, p.finish()
}

// errChanged tells that the input no longer is the one the plan checked.
var errChanged = errors.New("the file changed since it was checked")

// collectNode and collectRel build the plan from the elements, in input
// order, as the check hands them over.
func (p *Plan) collectNode(n apoc.Node) error {
	if p.Rels > 0 {
		p.nodesFirst = false
	}
	key := strings.Join(n.Labels, "\x00")
	grp, ok := p.byLabels[key]
	if !ok {
		grp = &nodeGroup{labels: n.Labels, merge: mergeQuery(&p.q, n.Labels, "MERGE"), create: mergeQuery(&p.q, n.Labels, "CREATE"),
			takeOver: takeOverQuery(&p.q, n.Labels)}
		p.byLabels[key] = grp
		p.nodeGroups = append(p.nodeGroups, grp)
		p.labelsMet = append(p.labelsMet, n.Labels...)
	}
	for k := range n.Properties {
		p.q.name(k)
	}
	id, ok := n.Properties["id"].(string)
	if !ok { // the file rules refuse such a node
		return fmt.Errorf("node %q has no string id", n.InternalID)
	}
	p.index[n.InternalID] = int32(len(p.nodes))
	p.nodes = append(p.nodes, planNode{id: id, grp: grp})
	p.Nodes++
	return nil
}

func (p *Plan) collectRel(r apoc.Relationship) error {
	if _, ok := p.byType[r.Type]; !ok {
		name := p.q.name(r.Type)
		rt := &relType{typ: r.Type, query: fmt.Sprintf(relsQuery, name), create: fmt.Sprintf(relsCreateQuery, name)}
		p.byType[r.Type] = rt
		p.relTypes = append(p.relTypes, rt)
	}
	for k := range r.Properties {
		p.q.name(k)
	}
	p.groups[p.key(&r)]++
	p.Rels++
	return nil
}

// finish ends the plan once the input is read: the index statements, and
// the group counts dropped when no two relationships are identical.
func (p *Plan) finish() error {
	if p.q.err != nil {
		return p.q.err
	}
	labels := apoc.IndexLabelsOf(p.labelsMet)
	p.indexNames = apoc.IndexNames(labels)
	p.indexes = apoc.IndexStatements(labels)
	p.fulltext = neo4jdb.FulltextStatement(labels, GatherProperties)
	if _, ok := p.byType[graph.Relates]; ok {
		p.indexNames = append(p.indexNames, apoc.WeightIndexName)
		p.indexes = append(p.indexes, apoc.WeightIndexStatement)
	}
	p.labelsMet = nil
	for _, k := range p.groups {
		if k > 1 {
			return nil
		}
	}
	p.groups = nil // every relationship is its own group of one
	return nil
}

// nodeOf returns the position of the node with internal id iid, or an
// error when the plan does not know it (the input changed).
func (p *Plan) nodeOf(iid string) (int32, error) {
	i, ok := p.index[iid]
	if !ok {
		return 0, fmt.Errorf("%w: node %s is new", errChanged, strconv.Quote(iid))
	}
	return i, nil
}

// GatherProperties are the properties of memoria's own shape the gather
// reads (docs/RETRIEVERS.md, "Gather": the memoria preset's names, then
// its texts), which the fulltext index that `memoria load` creates
// covers.
var GatherProperties = []string{"name", "title", "text", "description", "summary"}

// Queries lists the distinct statements of the plan: the index creations
// (the fulltext index's last),
// each label list's merge, create and take-over queries, each relationship
// type's two queries.
func (p *Plan) Queries() []string {
	out := append([]string(nil), p.indexes...)
	if p.fulltext != "" {
		out = append(out, p.fulltext)
	}
	for _, grp := range p.nodeGroups {
		if grp.merge != "" {
			out = append(out, grp.merge, grp.create)
		}
		out = append(out, grp.takeOver)
	}
	for _, rt := range p.relTypes {
		out = append(out, rt.query, rt.create)
	}
	return out
}

// quoter quotes names for statements, keeping the first name Neo4j would
// refuse ("Token names cannot be empty or contain any null-bytes"; invalid
// UTF-8 would be stored altered).
type quoter struct{ err error }

func (q *quoter) name(name string) string {
	if q.err == nil && (name == "" || strings.IndexByte(name, 0) >= 0 || !utf8.ValidString(name)) {
		q.err = fmt.Errorf("a statement would use the name %s, which Neo4j refuses", strconv.Quote(name))
	}
	return cypherlit.QuoteName(name)
}

// mergeQuery merges (verb MERGE) or creates (CREATE) rows {i, id, props}
// on the first label and id, sets the properties and adds the other
// labels; it returns each row's i, the node's element id and labels. Nodes
// without labels have none ("").
func mergeQuery(q *quoter, labels []string, verb string) string {
	if len(labels) == 0 {
		return ""
	}
	var b strings.Builder
	b.WriteString("UNWIND $rows AS row\n" + verb + " (n:")
	b.WriteString(q.name(labels[0]))
	b.WriteString(" {id: row.id})\nSET n = row.props")
	if len(labels) > 1 {
		b.WriteString(", n")
		for _, lb := range labels[1:] {
			b.WriteString(":" + q.name(lb))
		}
	}
	b.WriteString("\nRETURN row.i AS i, elementId(n) AS eid, labels(n) AS labels")
	return b.String()
}

// takeOverQuery writes rows {i, eid, id, props} onto the nodes with those
// element ids: properties replaced, the labels added.
func takeOverQuery(q *quoter, labels []string) string {
	var b strings.Builder
	b.WriteString("UNWIND $rows AS row\nMATCH (n) WHERE elementId(n) = row.eid\nSET n = row.props")
	if len(labels) > 0 {
		b.WriteString(", n")
		for _, lb := range labels {
			b.WriteString(":" + q.name(lb))
		}
	}
	b.WriteString("\nRETURN row.i AS i, elementId(n) AS eid, labels(n) AS labels")
	return b.String()
}

// relsQuery creates, for each row (a group of k identical relationships of
// the type, the %[1]s), the ones missing between the two nodes, and returns
// the element ids of the k that the group keeps: those already there (at
// most k) and the new ones. Rows are told apart by i: two rows whose maps
// Cypher finds equal (weight 1 and 1.0) must not merge in the aggregation.
const relsQuery = `UNWIND $rows AS row
MATCH (a) WHERE elementId(a) = row.s
MATCH (b) WHERE elementId(b) = row.e
OPTIONAL MATCH (a)-[r:%[1]s]->(b)
  WHERE properties(r) = row.props
    AND all(k IN keys(row.props) WHERE valueType(r[k]) STARTS WITH 'LIST' OR valueType(r[k]) = valueType(row.props[k]))
WITH a, b, row, collect(r) AS found
CALL {
  WITH a, b, row, found
  UNWIND range(1, row.k - size(found)) AS j
  CREATE (a)-[c:%[1]s]->(b) SET c = row.props
  RETURN collect(elementId(c)) AS created
}
RETURN row.i AS i, [x IN found[0..row.k] | elementId(x)] + created AS kept`

// relsCreateQuery is relsQuery for a database that had no relationships
// when the load began: the only relationships relsQuery could find there
// are this load's own, of other groups, never identical (a group holds all
// the identical relationships of the input, told apart as relsQuery tells
// them), so it would always find none. It creates the k of each row;
// skipping the look at the relationships between a and b saves the server
// most of its work on a big graph (see docs/PERFORMANCE.md).
// It returns nothing: Load keeps no relationship ids when the database had
// none (nothing to remove with Wipe).
const relsCreateQuery = `UNWIND $rows AS row
MATCH (a) WHERE elementId(a) = row.s
MATCH (b) WHERE elementId(b) = row.e
UNWIND range(1, row.k) AS j
CREATE (a)-[c:%[1]s]->(b) SET c = row.props`
