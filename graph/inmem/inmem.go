// Package inmem is the embedded graph engine: it loads an APOC JSON-lines
// export (package apoc) into flat arrays, browses it (graph.Catalog) and
// exposes its RELATES adjacency in compressed sparse rows for retrievers to
// walk (Lookup, Relates, Degree, RelWeight, RelTagIDs, ...). It computes
// nothing of any retriever: the Activation Energy expansion over it is in
// retriever/activation.
//
// RELATES relationships have an adjacency of their own, which the
// Activation Energy expansion walks; a node's Degree counts each of its
// RELATES relationships once, in either direction: a self-loop once,
// parallel relationships each (docs/ALGORITHM.md, rule 1). Relationships
// of other types have a second adjacency, read with RELATES ones by the
// graph.Neighbourhood every other retriever uses (neighbourhood.go).
//
// A *Graph is immutable once built and safe for concurrent use by any
// number of goroutines. The graph.Node values and slices it returns share
// memory with the graph: callers must not modify them.
package inmem

import (
	"cmp"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"slices"
	"strings"
	"sync"

	"github.com/memoria-graph/memoria/graph"
	"github.com/memoria-graph/memoria/graph/apoc"
)

// Stats counts what a graph holds.
type Stats struct {
	Nodes int `json:"nodes"`
	// NodesWithoutID have no `id` property: the retriever never reaches them,
	// but their RELATES relationships count in their neighbours' degrees.
	NodesWithoutID int `json:"nodes_without_id"`
	Relationships  int `json:"relationships"`
	// Relates counts the RELATES relationships, the ones the algorithm follows.
	Relates int `json:"relates"`
	// Tags counts the distinct tags on RELATES relationships.
	Tags int `json:"tags"`
}

// Per-relationship flags.
const (
	// fWeight: the relationship has a numeric weight (relWeight holds it;
	// otherwise relWeight holds 0).
	fWeight uint8 = 1 << iota
	// fWeightCompact: the weight property is rebuilt from relWeight (else,
	// when present, it is kept in extra as loaded).
	fWeightCompact
	// fWeightInt: the weight was an int64.
	fWeightInt
	// fTags: the relationship has a tags property (possibly empty).
	fTags
	// fTagsCompact: the tags property is rebuilt from the tag ids.
	fTagsCompact
	// fRawTags: the stored tags hold duplicates; rawTags has them as stored.
	fRawTags
	// fTagsJoined: the tags property is a string (a schema mapping's tags
	// with a separator) rebuilt by joining the tags as stored with the
	// separator: it was exactly that, so it need not be kept in extra.
	fTagsJoined
)

// Graph is a loaded graph. It implements graph.Source.
type Graph struct {
	name string

	// Nodes, in load order.
	nodeInternal []string
	nodeLabels   [][]string
	nodeProps    []map[string]any
	nodeID       []string // application id ("" when none; see hasID)
	hasID        []uint64 // bitset
	byID         map[string]int32
	sorted       []int32 // nodes with an id, by id
	degree       []int32

	// Relationships, in load order.
	types      []string
	relType    []uint16
	relStart   []int32
	relEnd     []int32
	relIDBytes []byte
	relIDOff   []uint32 // relationship i's internal id is relIDBytes[relIDOff[i]:relIDOff[i+1]]
	relFlags   []uint8
	relWeight  []float64 // the weight used by the math
	tagOff     []int32   // relationship i's distinct tag ids are tagIDsFlat[tagOff[i]:tagOff[i+1]]
	tagIDsFlat []int32
	rawTags    map[int32][]int32        // tags as stored, for relationships with fRawTags
	extra      map[int32]map[string]any // properties not rebuilt from the arrays
	// trav tells, per type index, whether the type is traversed as RELATES
	// (the schema's Traverse: RELATES itself under memoria's).
	trav []bool

	// schema is the mapping the graph was loaded by (schema.go);
	// weightKey and tagsKey are its weight and tags properties ("" when
	// none), idKey its id property.
	schema             graph.Schema
	idKey              string
	weightKey, tagsKey string
	notes              []string // what the mapping left out (schema.go)

	// RELATES adjacency (CSR): node u's incident relationships are
	// adjRel[adjOff[u]:adjOff[u+1]], leading to adjNbr[...] (a self-loop once).
	adjOff []int32
	adjNbr []int32
	adjRel []int32
	// The same for every other relationship type (Around reads both);
	// otherOff is nil when the graph has no other relationship.
	otherOff []int32
	otherNbr []int32
	otherRel []int32

	tagNames  []string
	tagIDs    map[string]int32
	tagCounts []graph.TagCount

	stats  Stats
	report apoc.Report

	find findIndex // the node filter's index (find.go)

	// strengths caches every node's RELATES strength, per weight given to
	// a relationship without one, and columns every node's value of a
	// property (neighbourhood.go); strengthMu guards both.
	strengthMu sync.Mutex
	strengths  map[uint64][]graph.Strength
	columns    map[string][]any
	rank       []int32 // idRank
	// parallel marks the nodes with two RELATES to one other node (Arcs
	// sorts only their arcs); built on first use.
	parallel []bool

	// unit says whether every RELATES weight lies in [0, 1] (UnitWeights),
	// found on first use.
	unitOnce sync.Once
	unit     bool
}

var _ graph.Source = (*Graph)(nil)

// LoadFile loads the APOC export at path; Describe shows the path.
func LoadFile(path string) (*Graph, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	return Load(f, path)
}

// Load reads an APOC export from r. It builds the graph while parsing and
// never holds a whole apoc.Graph, so it needs far less memory than
// apoc.Parse followed by New. Errors are those of apoc.Decode, whose
// report Report returns: a file gets the same verdict here as from
// memoria load.
func Load(r io.Reader, name string) (*Graph, error) {
	return LoadProgress(r, name, 0, nil)
}

// New builds a graph from g, which it checks with apoc.Check (GraphRules:
// nodes may lack an id) first. The graph keeps g's node labels and property
// maps (not copies); g must not be modified afterwards. name is what
// Describe shows, e.g. "demo graph" or a file path.
func New(g *apoc.Graph, name string) (*Graph, error) {
	rep, err := apoc.Check(g, apoc.GraphRules)
	if err != nil {
		return nil, err
	}
	b := newBuilder(name)
	b.g.report = rep
	b.g.nodeInternal = make([]string, 0, len(g.Nodes))
	b.g.nodeLabels = make([][]string, 0, len(g.Nodes))
	b.g.nodeProps = make([]map[string]any, 0, len(g.Nodes))
	b.g.nodeID = make([]string, 0, len(g.Nodes))
	m := len(g.Rels)
	b.g.relType = make([]uint16, 0, m)
	b.g.relStart = make([]int32, 0, m)
	b.g.relEnd = make([]int32, 0, m)
	b.g.relIDOff = make([]uint32, 1, m+1)
	b.g.relFlags = make([]uint8, 0, m)
	b.g.relWeight = make([]float64, 0, m)
	b.g.tagOff = make([]int32, 1, m+1)
	for _, n := range g.Nodes {
		if err := b.addNode(n); err != nil {
			return nil, err
		}
	}
	for _, r := range g.Rels {
		if err := b.addRel(r); err != nil {
			return nil, err
		}
	}
	return b.finish()
}

type builder struct {
	g *Graph
	// nodeSeq maps internal ids to node indices, except for the usual ids
	// that are the decimal index itself (see nodeIndex).
	nodeSeq map[string]int32
	typeIDs map[string]uint16
	pending []pendingEnd
	scratch []int32
}

type pendingEnd struct {
	rel   int32
	isEnd bool
	node  string
}

func newBuilder(name string) *builder {
	return newSchemaBuilder(name, graph.MemoriaSchema())
}

func newSchemaBuilder(name string, s graph.Schema) *builder {
	return &builder{
		g: &Graph{
			name:      name,
			byID:      make(map[string]int32),
			tagIDs:    make(map[string]int32),
			relIDOff:  []uint32{0},
			tagOff:    []int32{0},
			schema:    s,
			idKey:     s.IDProperty,
			weightKey: s.WeightProperty,
			tagsKey:   s.TagsProperty,
		},
		nodeSeq: make(map[string]int32),
		typeIDs: make(map[string]uint16),
	}
}

func (b *builder) addNode(n apoc.Node) error {
	g := b.g
	idx := len(g.nodeInternal)
	if idx >= math.MaxInt32-1 {
		return errors.New("too many nodes")
	}
	if k, ok := apoc.DenseID(n.InternalID); !ok || k != idx {
		b.nodeSeq[n.InternalID] = int32(idx)
	}
	g.nodeInternal = append(g.nodeInternal, n.InternalID)
	labels := n.Labels
	if labels == nil {
		labels = []string{}
	}
	props := n.Properties
	if props == nil {
		props = map[string]any{}
	}
	g.nodeLabels = append(g.nodeLabels, labels)
	g.nodeProps = append(g.nodeProps, props)
	id, ok := props[g.idKey].(string)
	ok = ok && id != ""
	g.nodeID = append(g.nodeID, id)
	if idx/64 >= len(g.hasID) {
		g.hasID = append(g.hasID, 0)
	}
	if ok {
		g.hasID[idx/64] |= 1 << (idx % 64)
		g.byID[id] = int32(idx)
	}
	return nil
}

func (b *builder) addRel(r apoc.Relationship) error {
	g := b.g
	idx := int32(len(g.relStart))
	if len(g.relStart) >= math.MaxInt32-1 || len(g.relIDBytes)+len(r.InternalID) >= math.MaxUint32 {
		return errors.New("too many relationships")
	}
	ty, ok := b.typeIDs[r.Type]
	if !ok {
		if len(g.types) > math.MaxUint16 {
			return errors.New("too many relationship types")
		}
		ty = uint16(len(g.types))
		b.typeIDs[r.Type] = ty
		g.types = append(g.types, r.Type)
		g.trav = append(g.trav, g.schema.Traverses(r.Type))
	}
	g.relType = append(g.relType, ty)
	g.relIDBytes = append(g.relIDBytes, r.InternalID...)
	g.relIDOff = append(g.relIDOff, uint32(len(g.relIDBytes)))
	start, ok := b.nodeIndex(r.Start)
	if !ok {
		start = -1
		b.pending = append(b.pending, pendingEnd{rel: idx, node: r.Start})
	}
	end, ok := b.nodeIndex(r.End)
	if !ok {
		end = -1
		b.pending = append(b.pending, pendingEnd{rel: idx, node: r.End, isEnd: true})
	}
	g.relStart = append(g.relStart, start)
	g.relEnd = append(g.relEnd, end)

	var flags uint8
	var weight float64
	var extra map[string]any
	keep := func(k string, v any) {
		if extra == nil {
			extra = make(map[string]any)
		}
		extra[k] = v
	}
	tags := b.scratch[:0]
	if !g.trav[ty] {
		if len(r.Properties) > 0 {
			extra = r.Properties
		}
	} else {
		for k, v := range r.Properties {
			switch {
			case k == g.weightKey && k != "":
				switch x := v.(type) {
				case float64:
					weight, flags = x, flags|fWeight|fWeightCompact
				case int64:
					weight, flags = float64(x), flags|fWeight
					if int64(weight) == x && math.Abs(weight) < 1<<53 {
						flags |= fWeightCompact | fWeightInt
					} else {
						keep(k, v)
					}
				default:
					f, ok := apoc.Number(v)
					if !ok {
						return fmt.Errorf("relationship %s: weight must be a number", r.InternalID)
					}
					weight, flags = f, flags|fWeight
					keep(k, v)
				}
			case k == g.tagsKey && k != "":
				flags |= fTags
				if list, ok := v.([]any); ok && allStrings(list) {
					flags |= fTagsCompact
					for _, t := range list {
						tags = append(tags, b.tagID(t.(string)))
					}
				} else {
					list, ok := apoc.StringList(v)
					if !b.g.schema.IsDefault() {
						list, ok = b.g.schema.SplitTags(v)
					}
					if !ok {
						return fmt.Errorf("relationship %s: tags must be a list of strings", r.InternalID)
					}
					for _, t := range list {
						tags = append(tags, b.tagID(t))
					}
					if str, isStr := v.(string); isStr && strings.Join(list, g.schema.TagsSeparator) == str {
						flags |= fTagsJoined // rebuilt from the tags: no map kept for it
					} else {
						keep(k, v)
					}
				}
			default:
				keep(k, v)
			}
		}
	}
	if g.trav[ty] && flags&fWeight == 0 && g.schema.DefaultWeight != nil {
		// The mapping's weight for a relationship without one: used by
		// the math, not shown among its properties (fWeightCompact unset).
		weight, flags = *g.schema.DefaultWeight, flags|fWeight
	}
	// Distinct tags, in first-occurrence order.
	distinct := len(g.tagIDsFlat)
	for i, t := range tags {
		if !slices.Contains(tags[:i], t) {
			g.tagIDsFlat = append(g.tagIDsFlat, t)
		}
	}
	if len(g.tagIDsFlat)-distinct != len(tags) {
		flags |= fRawTags
		if g.rawTags == nil {
			g.rawTags = make(map[int32][]int32)
		}
		g.rawTags[idx] = slices.Clone(tags)
	}
	g.tagOff = append(g.tagOff, int32(len(g.tagIDsFlat)))
	b.scratch = tags[:0]
	g.relFlags = append(g.relFlags, flags)
	g.relWeight = append(g.relWeight, weight)
	if extra != nil {
		if g.extra == nil {
			g.extra = make(map[int32]map[string]any)
		}
		g.extra[idx] = extra
	}
	return nil
}

// nodeIndex finds a node by internal id. APOC numbers nodes 0, 1, ... in
// file order, so the id is usually the index itself and no map is needed.
func (b *builder) nodeIndex(id string) (int32, bool) {
	if k, ok := apoc.DenseID(id); ok && k < len(b.g.nodeInternal) && b.g.nodeInternal[k] == id {
		return int32(k), true
	}
	u, ok := b.nodeSeq[id]
	return u, ok
}

func allStrings(list []any) bool {
	for _, e := range list {
		if _, ok := e.(string); !ok {
			return false
		}
	}
	return true
}

func (b *builder) tagID(t string) int32 {
	g := b.g
	if id, ok := g.tagIDs[t]; ok {
		return id
	}
	id := int32(len(g.tagNames))
	g.tagIDs[t] = id
	g.tagNames = append(g.tagNames, t)
	return id
}

func (b *builder) finish() (*Graph, error) {
	g := b.g
	for _, p := range b.pending {
		seq, ok := b.nodeIndex(p.node)
		if !ok {
			verb := "starts"
			if p.isEnd {
				verb = "ends"
			}
			return nil, fmt.Errorf("relationship %s %s at unknown node %s", g.relInternalID(p.rel), verb, p.node)
		}
		if p.isEnd {
			g.relEnd[p.rel] = seq
		} else {
			g.relStart[p.rel] = seq
		}
	}
	b.pending, b.nodeSeq = nil, nil
	n := len(g.nodeInternal)
	m := len(g.relStart)

	// Degrees and the CSR adjacency of RELATES relationships.
	g.degree = make([]int32, n)
	relates := 0
	tagCount := make([]int, len(g.tagNames))
	for e := 0; e < m; e++ {
		if !g.trav[g.relType[e]] {
			continue
		}
		relates++
		s, t := g.relStart[e], g.relEnd[e]
		g.degree[s]++
		if t != s {
			g.degree[t]++
		}
		for _, tag := range g.tagIDsFlat[g.tagOff[e]:g.tagOff[e+1]] {
			tagCount[tag]++
		}
	}
	g.adjOff = make([]int32, n+1)
	total := 0
	for u := 0; u < n; u++ {
		g.adjOff[u] = int32(total)
		total += int(g.degree[u])
	}
	if total > math.MaxInt32 {
		return nil, errors.New("too many relationships")
	}
	g.adjOff[n] = int32(total)
	g.adjNbr = make([]int32, total)
	g.adjRel = make([]int32, total)
	cursor := slices.Clone(g.adjOff[:n])
	for e := 0; e < m; e++ {
		if !g.trav[g.relType[e]] {
			continue
		}
		s, t := g.relStart[e], g.relEnd[e]
		g.adjNbr[cursor[s]], g.adjRel[cursor[s]] = t, int32(e)
		cursor[s]++
		if t != s {
			g.adjNbr[cursor[t]], g.adjRel[cursor[t]] = s, int32(e)
			cursor[t]++
		}
	}

	if err := g.buildOther(); err != nil {
		return nil, err
	}

	// Nodes with an id, by id.
	g.sorted = make([]int32, 0, len(g.byID))
	for u := 0; u < n; u++ {
		if g.nodeHasID(int32(u)) {
			g.sorted = append(g.sorted, int32(u))
		}
	}
	slices.SortFunc(g.sorted, func(a, b int32) int { return strings.Compare(g.nodeID[a], g.nodeID[b]) })

	g.tagCounts = make([]graph.TagCount, 0, len(tagCount))
	for id, c := range tagCount {
		if c > 0 {
			g.tagCounts = append(g.tagCounts, graph.TagCount{Tag: g.tagNames[id], Count: c})
		}
	}
	slices.SortFunc(g.tagCounts, func(a, b graph.TagCount) int {
		if c := cmp.Compare(b.Count, a.Count); c != 0 {
			return c
		}
		return strings.Compare(a.Tag, b.Tag)
	})

	g.stats = Stats{Nodes: n, NodesWithoutID: n - len(g.sorted), Relationships: m, Relates: relates, Tags: len(g.tagCounts)}
	return g, nil
}

func (g *Graph) nodeHasID(u int32) bool { return g.hasID[u>>6]&(1<<(u&63)) != 0 }

func (g *Graph) relInternalIDBytes(e int32) []byte {
	return g.relIDBytes[g.relIDOff[e]:g.relIDOff[e+1]]
}

func (g *Graph) relInternalID(e int32) string { return string(g.relInternalIDBytes(e)) }

// relTags returns relationship e's tags as stored: nil when it has no tags
// property, empty when the list is empty.
func (g *Graph) relTags(e int32) []string {
	f := g.relFlags[e]
	if f&fTags == 0 {
		return nil
	}
	ids := g.tagIDsFlat[g.tagOff[e]:g.tagOff[e+1]]
	if f&fRawTags != 0 {
		ids = g.rawTags[e]
	}
	out := make([]string, len(ids))
	for i, t := range ids {
		out[i] = g.tagNames[t]
	}
	return out
}

// relProps rebuilds relationship e's properties as loaded, in a new map.
func (g *Graph) relProps(e int32) map[string]any {
	extra := g.extra[e]
	f := g.relFlags[e]
	m := make(map[string]any, len(extra)+2)
	for k, v := range extra {
		m[k] = v
	}
	if f&fWeightCompact != 0 {
		if f&fWeightInt != 0 {
			m[g.weightKey] = int64(g.relWeight[e])
		} else {
			m[g.weightKey] = g.relWeight[e]
		}
	}
	if f&fTagsCompact != 0 {
		tags := g.relTags(e)
		list := make([]any, len(tags))
		for i, t := range tags {
			list[i] = t
		}
		m[g.tagsKey] = list
	}
	if f&fTagsJoined != 0 {
		m[g.tagsKey] = g.joinedTags(e)
	}
	return m
}

// joinedTags is relationship e's tags property as stored when it was a
// string (fTagsJoined): its tags joined by the mapping's separator.
func (g *Graph) joinedTags(e int32) string {
	return strings.Join(g.relTags(e), g.schema.TagsSeparator)
}

// APOC rebuilds the graph as it was loaded, for export: nodes and
// relationships in load order with their properties. Node labels and
// property maps are shared with g (do not modify them); relationship
// property maps are new. It costs about as much memory as apoc.Parse.
func (g *Graph) APOC() *apoc.Graph {
	out := &apoc.Graph{
		Nodes: make([]apoc.Node, len(g.nodeInternal)),
		Rels:  make([]apoc.Relationship, len(g.relStart)),
	}
	for u := range out.Nodes {
		out.Nodes[u] = apoc.Node{InternalID: g.nodeInternal[u], Labels: g.nodeLabels[u], Properties: g.nodeProps[u]}
	}
	for i := range out.Rels {
		e := int32(i)
		out.Rels[i] = apoc.Relationship{
			InternalID: g.relInternalID(e),
			Type:       g.types[g.relType[e]],
			Start:      g.nodeInternal[g.relStart[e]],
			End:        g.nodeInternal[g.relEnd[e]],
			Properties: g.relProps(e),
		}
	}
	return out
}

// Stats reports the graph's counts.
func (g *Graph) Stats() Stats { return g.stats }

// Report is what the checker found in the input the graph was built from:
// its warnings are for the user (the CLI prints them).
func (g *Graph) Report() apoc.Report { return g.report }

// Name is the name given to New or the path given to LoadFile.
func (g *Graph) Name() string { return g.name }

// Describe names the graph and its size, for status lines.
func (g *Graph) Describe() string {
	name := g.name
	if name == "" {
		name = "graph"
	}
	return fmt.Sprintf("%s (in memory: %d nodes, %d relationships)", name, g.stats.Nodes, g.stats.Relationships)
}

// Close does nothing: the graph stays usable.
func (g *Graph) Close(context.Context) error { return nil }

func (g *Graph) graphNode(u int32) graph.Node {
	return graph.Node{ID: g.nodeID[u], Labels: g.nodeLabels[u], Properties: g.nodeProps[u]}
}

// Node fetches one node by id.
func (g *Graph) Node(ctx context.Context, id string) (graph.Node, bool, error) {
	if err := ctx.Err(); err != nil {
		return graph.Node{}, false, err
	}
	u, ok := g.byID[id]
	if !ok {
		return graph.Node{}, false, nil
	}
	return g.graphNode(u), true, nil
}

// Tags lists the tags of RELATES relationships with the number of
// relationships carrying each (a tag repeated on one relationship counts
// once), most frequent first, then by tag.
func (g *Graph) Tags(ctx context.Context) ([]graph.TagCount, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	return slices.Clone(g.tagCounts), nil
}

// Lookup returns the index of the node whose id is id.
func (g *Graph) Lookup(id string) (int32, bool) {
	u, ok := g.byID[id]
	return u, ok
}

// NodeCount is the number of nodes; node indexes run from 0 to NodeCount-1.
func (g *Graph) NodeCount() int { return len(g.nodeInternal) }

// HasID reports whether node u has an id (a node without one is never a
// neighbour a retriever can name).
func (g *Graph) HasID(u int32) bool { return g.nodeHasID(u) }

// IDBits is the bitset of HasID over node indexes (bit u&63 of word u>>6),
// for loops that test many nodes. It is shared: do not modify it.
func (g *Graph) IDBits() []uint64 { return g.hasID }

// NodeAt returns node u.
func (g *Graph) NodeAt(u int32) graph.Node { return g.graphNode(u) }

// NodeID returns node u's id ("" when it has none).
func (g *Graph) NodeID(u int32) string { return g.nodeID[u] }

// Relates returns node u's incident RELATES relationships: the i-th leads to
// nbr[i] through relationship rel[i]; a self-loop is listed once. The
// slices are shared: do not modify them.
func (g *Graph) Relates(u int32) (nbr, rel []int32) {
	lo, hi := g.adjOff[u], g.adjOff[u+1]
	return g.adjNbr[lo:hi], g.adjRel[lo:hi]
}

// UnitWeights reports whether every RELATES relationship's weight, a
// missing one's included (graph.MissingRelatesWeight), lies in [0, 1]; it
// reads every relationship once, on the first call.
func (g *Graph) UnitWeights() bool {
	g.unitOnce.Do(func() {
		g.unit = graph.MissingRelatesWeight >= 0 && graph.MissingRelatesWeight <= 1
		for _, e := range g.adjRel {
			if w, ok := g.RelWeight(e); ok && !(w >= 0 && w <= 1) {
				g.unit = false
				return
			}
		}
	})
	return g.unit
}

// Degree is node u's RELATES degree (docs/ALGORITHM.md, rule 1).
func (g *Graph) Degree(u int32) int64 { return int64(g.degree[u]) }

// RelWeight returns relationship e's numeric weight and whether it has one.
func (g *Graph) RelWeight(e int32) (float64, bool) {
	return g.relWeight[e], g.relFlags[e]&fWeight != 0
}

// RelTagIDs returns relationship e's distinct tag ids (see TagID); the
// slice is shared: do not modify it.
func (g *Graph) RelTagIDs(e int32) []int32 { return g.tagIDsFlat[g.tagOff[e]:g.tagOff[e+1]] }

// TagID returns the id of a tag that some RELATES relationship carries.
func (g *Graph) TagID(tag string) (int32, bool) {
	t, ok := g.tagIDs[tag]
	return t, ok
}

// TagIDCount is the number of distinct tag ids (ids run from 0 to
// TagIDCount-1).
func (g *Graph) TagIDCount() int { return len(g.tagNames) }

// RelInternalID returns relationship e's APOC internal id, the engine's
// storage order of parallel relationships. The slice is shared.
func (g *Graph) RelInternalID(e int32) []byte { return g.relInternalIDBytes(e) }

// RelatesEdge returns RELATES relationship e as an edge traversed from the
// node with id from to the node with id to: its properties as loaded (a new
// map), its weight (nil when it has none) and its tags as stored.
func (g *Graph) RelatesEdge(e int32, from, to string) graph.Edge {
	var wp *float64
	if w, ok := g.RelWeight(e); ok {
		wp = &w
	}
	return graph.Edge{
		SourceID: from, TargetID: to, Type: graph.Relates,
		Properties: g.relProps(e), Weight: wp, Tags: g.relTags(e),
	}
}

// Fingerprint counts the graph's nodes and relationships and hashes its
// APOC JSON-lines export (apoc.Write: the same graph always writes the same
// bytes), for experiment files (graph.Fingerprint).
func (g *Graph) Fingerprint(ctx context.Context) (graph.Fingerprint, error) {
	a := g.APOC()
	h := sha256.New()
	if err := apoc.Write(h, a); err != nil {
		return graph.Fingerprint{}, fmt.Errorf("fingerprint: %w", err)
	}
	return graph.Fingerprint{Source: g.Describe(), Nodes: int64(len(a.Nodes)), Relationships: int64(len(a.Rels)),
		ContentSHA256: hex.EncodeToString(h.Sum(nil))}, nil
}

// EachNode calls fn with every node that has an id, in the graph's order
// (graph.NodeScanner); fn's error stops it.
func (g *Graph) EachNode(ctx context.Context, fn func(graph.Node) error) error {
	for u := range g.nodeID {
		if !g.nodeHasID(int32(u)) {
			continue
		}
		if u%4096 == 0 {
			if err := ctx.Err(); err != nil {
				return err
			}
		}
		if err := fn(g.graphNode(int32(u))); err != nil {
			return err
		}
	}
	return nil
}
