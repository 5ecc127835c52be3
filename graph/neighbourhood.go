package graph

import (
	"cmp"
	"context"
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"
)

// NodeRef is a node found by a Reader, with the handle the engine
// addresses it by on the next read: on Neo4j its element id, on the
// embedded engine its id. A retriever passes refs back to Around as it got
// them and never looks inside Ref.
type NodeRef struct {
	Node Node
	Ref  string
	// Num, when not 0, is the engine's own number for the node, unique
	// in the graph and below the Reader's NodeNums (the embedded engine
	// gives its index + 1; Neo4j gives none): a retriever may index an
	// array by it instead of hashing the id.
	Num int32
}

// Rel is one relationship around a frontier node as a Reader returns it:
// Edge runs from the frontier node (Edge.SourceID) to the other end
// (Edge.TargetID, whatever the stored direction); To is the other end with
// its handle for the next hop; Degree is the frontier node's number of
// relationships of any type (each once, a self-loop once), the same for
// every Rel of that node.
type Rel struct {
	Edge   Edge
	To     NodeRef
	Degree int64
	// BadWeight is set when the relationship has a weight property that
	// is not a finite number (WeightOf's error); Edge.Weight is then nil.
	BadWeight error
	// Lazy, when not nil, builds the relationship's properties: an engine
	// that stores them compactly leaves Edge.Properties nil and fills them
	// on demand (Full), so a hop that is read but never shown costs no map.
	Lazy func() map[string]any
}

// WeightOr is the weight a retriever counts the relationship with: its own
// (WeightOf), or missing when it has none. A weight property that is not a
// number, or a weight that is not finite, is an error naming the
// relationship.
func (r Rel) WeightOr(missing float64) (float64, error) {
	e := r.Edge
	name := func() string {
		return fmt.Sprintf("relationship (%s)-[:%s]-(%s)", strconv.Quote(e.SourceID), e.Type, strconv.Quote(e.TargetID))
	}
	if r.BadWeight != nil {
		return 0, fmt.Errorf("%s: %w", name(), r.BadWeight)
	}
	w := missing
	if e.Weight != nil {
		w = *e.Weight
	}
	if math.IsNaN(w) || math.IsInf(w, 0) {
		return 0, fmt.Errorf("%s: weight %v is not a finite number", name(), w)
	}
	return w, nil
}

// Full returns the relationship's edge with its properties.
func (r Rel) Full() Edge {
	if r.Edge.Properties == nil && r.Lazy != nil {
		e := r.Edge
		e.Properties = r.Lazy()
		return e
	}
	return r.Edge
}

// Reader is a retriever's read access to a graph, whatever the engine
// (docs/RETRIEVERS.md, "Reading a graph"). It serves one retrieval and is
// not safe for concurrent use.
type Reader interface {
	// Nodes looks nodes up by id and returns those found, in the order of
	// ids (a duplicate id once). On Neo4j it goes through the id indexes.
	Nodes(ctx context.Context, ids []string) ([]NodeRef, error)
	// Around returns, for every node of from, each relationship of any
	// type between it and another node that has an id, in both directions
	// (a self-loop is returned once, from the node to itself), ordered by
	// SortRels: one read for the whole frontier. A node of from listed
	// twice is read once. It is lean: each relationship's type, weight,
	// tags and element id, and the other end's id and labels, but neither
	// one's properties (Edge.Properties and To.Node.Properties may be nil:
	// Details fills them).
	Around(ctx context.Context, from []NodeRef) ([]Rel, error)
	// Details fills in the properties Around leaves out, in place: each
	// node's Node.Properties and each relationship's Edge.Properties (one
	// read for all of them). A retriever calls it for what it shows.
	Details(ctx context.Context, nodes []*NodeRef, rels []*Rel) error
	// Degrees returns, for each node of nodes in order, its number of
	// relationships of type relType: each once, a self-loop once, to a
	// node with or without an id (docs/ALGORITHM.md, rule 1, for
	// RELATES). One read for all of them; a node not in the graph counts
	// 0.
	Degrees(ctx context.Context, nodes []NodeRef, relType string) ([]int64, error)
	// Strengths returns, for each node of nodes in order, its strength
	// over relType: the weights of its relationships of that type to
	// nodes with an id (each once, a self-loop once; missing for one
	// without a weight) added up by SumWeights' rule, so that every
	// engine gives the same bits. One read for all of them, without the
	// relationships themselves; a node not in the graph has strength 0.
	Strengths(ctx context.Context, nodes []NodeRef, relType string, missing float64) ([]Strength, error)
	// Arcs is Around made lean for a walk over relType: for every node of
	// from (a node listed twice once), each relationship of type relType
	// between it and a node with an id, in both directions (a self-loop
	// once), as the other end (its id and handle; its labels and
	// properties may be missing: Nodes reads them) and
	// the weight (missing for one without): nothing else of the
	// relationship. A node's arcs come together, the nodes in from's
	// order; arcs to one other node (parallel relationships) in ascending
	// order of weight, which is all a walk's arithmetic can tell; the
	// other ends otherwise in the engine's order. A weight that is not a
	// number is an error naming the relationship; a NaN, an infinity or a
	// negative weight is returned as it is (Strengths says which nodes
	// have one).
	Arcs(ctx context.Context, from []NodeRef, relType string, missing float64) ([]Arc, error)
	// Facts returns, for each node of nodes in order, the properties
	// named in keys and its degree over relType (as Degrees): what a
	// retriever scores many nodes by, in one read, without the rest of
	// their properties (a large embedding of a node it does not score is
	// never read). A node not in the graph has none and degree 0.
	Facts(ctx context.Context, nodes []NodeRef, keys []string, relType string) ([]Facts, error)
	// NodeNums bounds the NodeRef.Num the reader gives (every Num is
	// below it); 0 when it gives none.
	NodeNums() int32
}

// NumberedArcs is a Reader's optional fast path for a walk, offered by an
// engine that numbers its nodes (NodeRef.Num, Reader.NodeNums; every
// NodeRef such a reader gives carries its Num): Arcs' and Strengths'
// answers, in their order, by number, without an Arc or a NodeRef per
// relationship or node. A walk that reads tens of thousands of
// relationships and weighs tens of thousands of nodes per retrieval uses
// it when the reader has it; the answers are the same.
type NumberedArcs interface {
	// ArcNums appends the arcs of type relType of the nodes numbered
	// from (a 0, an unknown number or a node listed before gives none)
	// to to (each other end's number) and w (its weight, missing for
	// none), and returns them with ends: from[i]'s arcs are
	// to[ends[i-1]:ends[i]] (ends[-1] the length to had).
	ArcNums(ctx context.Context, from []int32, relType string, missing float64, to []int32, w []float64) ([]int32, []float64, []int32, error)
	// StrengthNums appends to out the strength of each node numbered
	// nums, in order, as Strengths gives it (a 0 or an unknown number:
	// a node not in the graph), and returns it.
	StrengthNums(ctx context.Context, nums []int32, relType string, missing float64, out []Strength) ([]Strength, error)
	// NodeByNum is the node numbered num as Arcs gives an other end: its
	// id, handle and number.
	NodeByNum(num int32) NodeRef
}

// Facts is what Reader.Facts returns for a node.
type Facts struct {
	// Values holds the node's properties of the keys asked for, in their
	// order, nil for one it does not have.
	Values []any
	Degree int64 // over the type asked for, as Degrees counts
}

// Arc is one relationship as Reader.Arcs returns it.
type Arc struct {
	From   int32 // the position in from of the node it leaves
	To     NodeRef
	Weight float64
}

// Strength is a node's total relationship weight (Reader.Strengths).
type Strength struct {
	// Total is the weights' sum, in ascending order of weight.
	Total float64
	// Clean is false when some weight is not a finite number of at least
	// 0 (or not a number at all); Total then means nothing, and a
	// retriever that needs the total reads the node's relationships
	// (Around), which names the culprit.
	Clean bool
}

// SumWeights is the one rule for a node's strength: the weights sorted
// ascending (ws is sorted in place), then added from the smallest, so the
// sum does not depend on the order an engine meets the relationships in.
// Neo4j's Strengths query adds them up in the same order, server-side.
func SumWeights(ws []float64) Strength {
	slices.Sort(ws)
	s := Strength{Clean: true}
	for _, w := range ws {
		if math.IsNaN(w) || math.IsInf(w, 0) || w < 0 {
			return Strength{}
		}
		s.Total += w
	}
	if math.IsInf(s.Total, 0) {
		return Strength{}
	}
	return s
}

// Neighbourhood opens Readers. On Neo4j every Read runs in one read
// transaction, each of its queries under the source's query deadline; fn
// may run again after a transient failure, so it must start afresh each
// time. Implementations are safe for concurrent use.
type Neighbourhood interface {
	Read(ctx context.Context, fn func(Reader) error) error
}

// SortRels puts rels in the order every engine returns them: by the
// frontier node's position in from (its first), then the other end's id,
// then the relationship type, then the weight (none first), then the tags,
// then, between relationships alike in all that, CanonicalProps of the
// properties where the engine has them at hand (the embedded one) and the
// element id (which only Neo4j has). Rels of nodes not in from go last.
// Parallel relationships that tie up to the tags are thus listed in an
// order that may differ between engines, which nothing a retriever
// computes from them can tell.
func SortRels(rels []Rel, from []NodeRef) {
	pos := make(map[string]int, len(from))
	for i, f := range from {
		if _, ok := pos[f.Node.ID]; !ok {
			pos[f.Node.ID] = i
		}
	}
	at := func(id string) int {
		if p, ok := pos[id]; ok {
			return p
		}
		return len(from)
	}
	slices.SortStableFunc(rels, func(a, b Rel) int {
		if c := cmp.Compare(at(a.Edge.SourceID), at(b.Edge.SourceID)); c != 0 {
			return c
		}
		if c := strings.Compare(a.Edge.SourceID, b.Edge.SourceID); c != 0 {
			return c
		}
		if c := strings.Compare(a.Edge.TargetID, b.Edge.TargetID); c != 0 {
			return c
		}
		if c := CompareRels(a, b); c != 0 {
			return c
		}
		return strings.Compare(a.Edge.ElementID, b.Edge.ElementID)
	})
}

// CompareRels orders two relationships between the same two nodes as
// SortRels does after the other end's id: by type, weight (none first),
// tags, then CanonicalProps when both have properties at hand (Lazy
// counts).
func CompareRels(a, b Rel) int {
	if c := strings.Compare(a.Edge.Type, b.Edge.Type); c != 0 {
		return c
	}
	aw, bw := a.Edge.Weight != nil, b.Edge.Weight != nil
	if aw != bw {
		if aw {
			return 1
		}
		return -1
	}
	if aw {
		if c := cmp.Compare(*a.Edge.Weight, *b.Edge.Weight); c != 0 {
			return c
		}
	}
	if c := slices.Compare(a.Edge.Tags, b.Edge.Tags); c != 0 {
		return c
	}
	if (a.Edge.Properties != nil || a.Lazy != nil) && (b.Edge.Properties != nil || b.Lazy != nil) {
		return strings.Compare(CanonicalProps(a.Full().Properties), CanonicalProps(b.Full().Properties))
	}
	return 0
}

// WeightOf is the one rule for reading a relationship's weight property,
// in every engine and retriever: absent (or null) gives nil; an integer or
// a float gives its value (NaN and infinities included: Neo4j can store
// them, and the arithmetic that meets one says so); anything else is an
// error.
func WeightOf(props map[string]any) (*float64, error) {
	v, ok := props["weight"]
	if !ok || v == nil {
		return nil, nil
	}
	var w float64
	switch x := v.(type) {
	case float64:
		w = x
	case int64:
		w = float64(x)
	case int:
		w = float64(x)
	default:
		return nil, fmt.Errorf("property weight must be a number, got %T", v)
	}
	return &w, nil
}

// TagsOf reads a relationship's tags property: nil when absent (or null),
// the strings of a list of strings, an error for anything else.
func TagsOf(props map[string]any) ([]string, error) {
	v, ok := props["tags"]
	if !ok || v == nil {
		return nil, nil
	}
	switch x := v.(type) {
	case []string:
		return x, nil
	case []any:
		out := make([]string, len(x))
		for i, e := range x {
			s, ok := e.(string)
			if !ok {
				return nil, fmt.Errorf("property tags must be a list of strings, got an element of type %T", e)
			}
			out[i] = s
		}
		return out, nil
	}
	return nil, fmt.Errorf("property tags must be a list of strings, got %T", v)
}
