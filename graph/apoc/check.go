package apoc

import (
	"cmp"
	"errors"
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/memoria-graph/memoria/graph"
)

// The checker: the one place that judges nodes and relationships, by the
// rules of docs/EXPORTS.md, "The APOC file". Decode feeds it the elements of
// a file with their line numbers; Check feeds it a graph built in Go with
// element numbers. What Decode alone checks is how the file is written (the
// JSON, the keys of a line, values JSON can write but Go cannot hold, such
// as numbers beyond float64, and invalid UTF-8, which decoding would
// replace): see scan.go.

// Rules choose which rules the checker applies beyond those every graph
// must satisfy.
type Rules int

const (
	// GraphRules are what every graph must satisfy to be explored,
	// written or exported: everything Neo4j would refuse or store altered,
	// unique internal and application ids, known endpoints, and the types
	// of weight and tags. A node may lack an id (a database may hold such
	// nodes; the retriever never reaches them), and the graph may be empty.
	GraphRules Rules = iota
	// FileRules add what a file must satisfy, for `memoria explore
	// --graph` and `memoria load` alike: every node has an id, and there
	// is at least one node or relationship. Decode applies them.
	FileRules
	// MappedRules are GraphRules for a file read through a schema mapping
	// other than memoria's own (graph.Schema, graph/inmem): the file may
	// not be empty, but the `id` property and a RELATES relationship's
	// `weight` and `tags` are ordinary properties, since the mapping
	// names its own (graph/inmem judges those).
	MappedRules
)

// The range docs/EXPORTS.md gives a RELATES weight (the specification's).
// A weight outside it is loaded as it is, and reported (Report.Warnings).
const (
	MinWeight = 0.25
	MaxWeight = 1.0
)

// Report is what the checker found in an input it accepted.
type Report struct {
	Nodes, Relationships int
	// Warnings are values accepted but suspicious, one per kind.
	Warnings []Warning
}

// Warning is one kind of suspicious value: how many elements have it, and
// the first of them.
type Warning struct {
	// What the elements have, e.g. "RELATES weights outside [0.25, 1.0]".
	What  string
	Count int
	// Line is the line of the first in a file (0 in a graph built in Go);
	// Example names it and its value.
	Line    int
	Example string
}

func (w Warning) String() string {
	first := "the first: " + w.Example
	if w.Line > 0 {
		first = fmt.Sprintf("the first on line %d: %s", w.Line, w.Example)
	}
	return fmt.Sprintf("%d %s (kept as they are); %s", w.Count, w.What, first)
}

// Check checks a graph built in Go by rules, as Decode checks a file:
// problems name elements by internal id (positions as "node #3", counted
// from 1 in g.Nodes, or "relationship #2"), at most MaxErrors of them,
// joined.
func Check(g *Graph, rules Rules) (Report, error) {
	if g == nil {
		return Report{}, errors.New("no graph")
	}
	c := newChecker(false, rules, len(g.Nodes))
	for i := range g.Nodes {
		c.node(i+1, &g.Nodes[i])
		if c.full() {
			return Report{}, c.errors()
		}
	}
	for i := range g.Rels {
		c.rel(len(g.Nodes)+i+1, &g.Rels[i], false, false)
		if c.full() {
			return Report{}, c.errors()
		}
	}
	return c.finish()
}

// Validate is Check with GraphRules, without the report.
func Validate(g *Graph) error {
	_, err := Check(g, GraphRules)
	return err
}

// checker holds what the checks across elements need.
type checker struct {
	// file: positions are lines (else element numbers of a Go graph:
	// nodes 1 to nNodes, then the relationships).
	file   bool
	strict bool // FileRules
	mapped bool // MappedRules
	nNodes int

	// nodeSeq maps a node's internal id to its place in nodeIDs.
	nodeSeq idTable
	nodeIDs []string
	nodePos []int32
	appIDs  map[string]int32 // application id -> position
	relPos  idTable          // relationship internal id -> position
	pending []pendingEnd
	errs    []posError

	nodes, rels int
	weights     firstOf
}

type posError struct {
	pos int32
	msg string
}

// pendingEnd is a relationship endpoint not yet seen when the relationship was read.
type pendingEnd struct {
	pos   int32
	rel   string
	node  string
	isEnd bool
}

// firstOf counts elements with one kind of suspicious value and keeps the
// first.
type firstOf struct {
	count   int
	pos     int32
	example string
}

func newChecker(file bool, rules Rules, nNodes int) checker {
	return checker{file: file, strict: rules == FileRules, mapped: rules == MappedRules, nNodes: nNodes, appIDs: make(map[string]int32)}
}

func (c *checker) errorf(pos int, format string, args ...any) {
	c.errs = append(c.errs, posError{int32(pos), fmt.Sprintf(format, args...)})
}

func (c *checker) ok() bool   { return len(c.errs) == 0 }
func (c *checker) full() bool { return len(c.errs) >= MaxErrors }

// at names a position: "line 3", or "node #3" and "relationship #1" in a
// Go graph.
func (c *checker) at(pos int32) string {
	switch {
	case c.file:
		return fmt.Sprintf("line %d", pos)
	case int(pos) <= c.nNodes:
		return fmt.Sprintf("node #%d", pos)
	}
	return fmt.Sprintf("relationship #%d", int(pos)-c.nNodes)
}

// node checks a node; it reports whether the node is fine.
func (c *checker) node(pos int, n *Node) bool {
	c.nodes++
	if n.InternalID == "" {
		c.errorf(pos, "%s has an empty internal id", c.at(int32(pos)))
		return false
	}
	if prev, dup := idGet(&c.nodeSeq, n.InternalID); dup {
		c.errorf(pos, "duplicate internal node id %s (first on %s)", showID(n.InternalID), c.at(c.nodePos[prev]))
		return false
	}
	// Known even when wrong, so its relationships are not reported too.
	c.nodeSeq.put(n.InternalID, int32(len(c.nodeIDs)))
	c.nodeIDs = append(c.nodeIDs, n.InternalID)
	c.nodePos = append(c.nodePos, int32(pos))
	if msg := checkNode(n, c.strict, c.mapped); msg != "" {
		c.errorf(pos, "node %s: %s", showID(n.InternalID), msg)
		return false
	}
	if id, ok := n.Properties["id"].(string); ok && !c.mapped {
		if first, dup := c.appIDs[id]; dup {
			c.errorf(pos, "duplicate node id %q (first on %s)", id, c.at(first))
			return false
		}
		c.appIDs[id] = int32(pos)
	}
	return true
}

// rel checks a relationship; startKnown and endKnown tell that its
// endpoints are nodes already checked. It reports whether the relationship
// is fine so far (its endpoints may still turn out unknown).
func (c *checker) rel(pos int, r *Relationship, startKnown, endKnown bool) bool {
	c.rels++
	if r.InternalID == "" {
		c.errorf(pos, "%s has an empty internal id", c.at(int32(pos)))
		return false
	}
	if first, dup := idGet(&c.relPos, r.InternalID); dup {
		c.errorf(pos, "duplicate internal relationship id %s (first on %s)", showID(r.InternalID), c.at(first))
		return false
	}
	c.relPos.put(r.InternalID, int32(pos))
	if msg := checkRel(r, c.mapped); msg != "" {
		c.errorf(pos, "relationship %s: %s", showID(r.InternalID), msg)
		return false
	}
	if !startKnown {
		if _, ok := idGet(&c.nodeSeq, r.Start); !ok {
			c.pending = append(c.pending, pendingEnd{pos: int32(pos), rel: r.InternalID, node: r.Start})
		}
	}
	if !endKnown {
		if _, ok := idGet(&c.nodeSeq, r.End); !ok {
			c.pending = append(c.pending, pendingEnd{pos: int32(pos), rel: r.InternalID, node: r.End, isEnd: true})
		}
	}
	if r.Type == RelatesType && !c.mapped {
		if w, ok := Number(r.Properties["weight"]); ok && (w < MinWeight || w > MaxWeight) {
			if c.weights.count == 0 {
				c.weights.pos = int32(pos)
				c.weights.example = fmt.Sprintf("relationship %s has weight %s", showID(r.InternalID), strconv.FormatFloat(w, 'g', -1, 64))
			}
			c.weights.count++
		}
	}
	return true
}

// finish checks the endpoints of relationships read before their nodes and
// what holds for the whole input, and returns the report or the first
// MaxErrors errors by position.
func (c *checker) finish() (Report, error) {
	// c.pending is in position order, so its first MaxErrors problems are
	// the only ones that can be among the first MaxErrors of all.
	reported := 0
	more := false
	for _, p := range c.pending {
		if _, ok := idGet(&c.nodeSeq, p.node); ok {
			continue
		}
		if reported == MaxErrors {
			more = true
			break
		}
		reported++
		verb := "starts"
		if p.isEnd {
			verb = "ends"
		}
		c.errorf(int(p.pos), "relationship %s %s at unknown node %s", showID(p.rel), verb, showID(p.node))
	}
	if (c.strict || c.mapped) && c.nodes+c.rels == 0 && len(c.errs) == 0 {
		if c.file {
			c.errorf(1, "the file is empty: no node or relationship on any line")
		} else {
			c.errorf(0, "the graph is empty: no nodes")
		}
	}
	if len(c.errs) > 0 {
		if len(c.errs) > MaxErrors {
			more = true
		}
		return Report{}, c.errorsMore(more)
	}
	rep := Report{Nodes: c.nodes, Relationships: c.rels}
	if w := c.weights; w.count > 0 {
		line := 0
		if c.file {
			line = int(w.pos)
		}
		rep.Warnings = append(rep.Warnings, Warning{
			What:  fmt.Sprintf("RELATES weights outside [%.2f, %.1f], the range of the specification", MinWeight, MaxWeight),
			Count: w.count, Line: line, Example: w.example,
		})
	}
	return rep, nil
}

// errors returns the errors so far, when there are too many to go on.
func (c *checker) errors() error { return c.errorsMore(true) }

func (c *checker) errorsMore(more bool) error {
	slices.SortStableFunc(c.errs, func(a, b posError) int { return cmp.Compare(a.pos, b.pos) })
	errs := make([]error, 0, min(len(c.errs), MaxErrors)+1)
	for _, e := range c.errs[:min(len(c.errs), MaxErrors)] {
		if c.file {
			errs = append(errs, &ParseError{Line: int(e.pos), Msg: e.msg})
		} else {
			errs = append(errs, errors.New(e.msg))
		}
	}
	return errorsJoin(errs, more)
}

// showID prints an internal id bare when it is a plain token, else quoted.
func showID(id string) string {
	if id == "" {
		return `""`
	}
	for i := 0; i < len(id); i++ {
		c := id[i]
		if !(c >= '0' && c <= '9' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c == '_' || c == '-' || c == ':' || c == '.') {
			return strconv.Quote(id)
		}
	}
	return id
}

// checkNode checks a node's labels, its application id, its properties,
// and (with FileRules) that it has an id; it returns "" or the problem.
func checkNode(n *Node, strict, mapped bool) string {
	for _, l := range n.Labels {
		if msg := checkName("label", l); msg != "" {
			return msg
		}
	}
	v := n.Properties["id"]
	if v != nil && !mapped {
		id, isStr := v.(string)
		if !isStr {
			return "property id must be a string, got " + Describe(v)
		}
		if id == "" {
			return "property id is empty: every node needs a non-empty string id"
		}
	}
	if msg := checkProps(n.Properties); msg != "" {
		return msg
	}
	if v == nil && strict {
		return "no id property: every node needs a string id (the retriever finds nodes by it, memoria load merges them on it)"
	}
	return ""
}

// checkRel checks a relationship's type, what the algorithm reads of a
// RELATES relationship, then the properties.
func checkRel(r *Relationship, mapped bool) string {
	if msg := checkName("relationship type", r.Type); msg != "" {
		return msg
	}
	if r.Type == RelatesType && !mapped {
		if v := r.Properties["weight"]; v != nil {
			if _, num := Number(v); !num {
				return "weight must be a number, got " + Describe(v)
			}
		}
		if v := r.Properties["tags"]; v != nil {
			if !isStringList(v) {
				return "tags must be a list of strings, got " + Describe(v)
			}
		}
	}
	return checkProps(r.Properties)
}

// checkName checks a label, relationship type or property key: Neo4j
// refuses names that are empty or contain NUL ("Token names cannot be
// empty or contain any null-bytes"), and would store invalid UTF-8 altered.
func checkName(what, name string) string {
	switch {
	case name == "":
		return "empty " + what
	case strings.IndexByte(name, 0) >= 0:
		return fmt.Sprintf("%s %s contains NUL, which Neo4j refuses in a name", what, strconv.Quote(name))
	case !utf8.ValidString(name):
		return fmt.Sprintf("%s %s is not valid UTF-8", what, strconv.Quote(name))
	}
	return ""
}

// checkProps checks every key and value; of several bad properties it
// names the first by key. It returns "" or the problem.
func checkProps(props map[string]any) string {
	var key, msg string
	for k, v := range props {
		m := checkName("property key", k)
		if m == "" {
			if m = checkValue(v); m != "" {
				m = fmt.Sprintf("property %q: %s", k, m)
			}
		}
		if m != "" && (msg == "" || k < key) {
			key, msg = k, m
		}
	}
	return msg
}

// checkValue checks a property value against what Neo4j stores unchanged
// and the writers can write (valueKind): a string of valid UTF-8, a
// boolean, an integer, a finite float, or a list of one of those (see
// checkList); nil is a null property, which is dropped. It returns "" or
// the problem.
func checkValue(v any) string {
	switch x := v.(type) {
	case nil:
		return ""
	case []any:
		return checkList(x)
	case []string:
		for _, s := range x {
			if m := checkScalar(s); m != "" {
				return m
			}
		}
		return ""
	case []float64:
		for _, f := range x {
			if m := checkScalar(f); m != "" {
				return m
			}
		}
		return ""
	}
	switch valueKind(v) {
	case kindList:
		return ""
	case kindMap:
		return msgMap
	case kindOther:
		return fmt.Sprintf("a value of type %T, which cannot be stored", v)
	}
	return checkScalar(v)
}

// What Neo4j cannot store, in the words of both the checker and the
// decoder (which meets maps and nested lists in a file without building
// them).
const (
	msgMap        = "a map; Neo4j properties cannot be maps"
	msgNullInList = "a list cannot contain null"
	msgListInList = "a list cannot contain lists"
	msgMapInList  = "a list cannot contain maps"
)

// checkScalar checks a string, boolean or number.
func checkScalar(v any) string {
	switch x := v.(type) {
	case string:
		if !utf8.ValidString(x) {
			return Describe(x) + " is not valid UTF-8"
		}
	case float64:
		if math.IsNaN(x) || math.IsInf(x, 0) {
			return fmt.Sprintf("%v is not a finite number", x)
		}
	case float32:
		return checkScalar(float64(x))
	}
	return ""
}

// checkList checks a list property: it must hold values of one type,
// strings, booleans or numbers (integers and floats mix: Neo4j stores such a
// list as floats), each fine by checkScalar, and no null, list or map (Neo4j
// refuses them with a TypeError, after earlier batches of a load were
// written). The empty list is fine.
func checkList(list []any) string {
	first := kindNull
	for _, e := range list {
		kind := valueKind(e)
		switch kind {
		case kindNull:
			return msgNullInList
		case kindList:
			return msgListInList
		case kindMap:
			return msgMapInList
		case kindOther:
			return fmt.Sprintf("a list cannot contain a value of type %T", e)
		}
		if first == kindNull {
			first = kind
		} else if kind != first {
			return fmt.Sprintf("a list must hold values of one type, got %s and %s", first, kind)
		}
		if m := checkScalar(e); m != "" {
			return m
		}
	}
	return ""
}

// Number returns a numeric property value as a float64; ok is false when v
// is not a number.
func Number(v any) (f float64, ok bool) {
	switch x := v.(type) {
	case float64:
		return x, true
	case int64:
		return float64(x), true
	case int:
		return float64(x), true
	case int32:
		return float64(x), true
	case float32:
		return float64(x), true
	}
	return 0, false
}

// StringList returns a list property whose elements are all strings; ok is
// false for anything else (graph.StringList).
func StringList(v any) (list []string, ok bool) { return graph.StringList(v) }

func isStringList(v any) bool {
	switch x := v.(type) {
	case []string:
		return true
	case []any:
		for _, e := range x {
			if _, isStr := e.(string); !isStr {
				return false
			}
		}
		return true
	}
	return false
}

// Describe names a value's type and shows it briefly, for messages about
// values of a file or a database: `string "high"`, `integer 5`,
// `float 0.5`, `a list containing integer 1`. Long strings are cut; strings
// are quoted with strconv.Quote, so no character of them reaches a terminal
// raw.
func Describe(v any) string {
	switch x := v.(type) {
	case nil:
		return "null"
	case string:
		if len(x) > 40 {
			cut := 40
			for cut > 0 && !utf8.RuneStart(x[cut]) {
				cut--
			}
			x = x[:cut] + "..."
		}
		return "string " + strconv.Quote(x)
	case bool:
		return "boolean " + strconv.FormatBool(x)
	case int64:
		return "integer " + strconv.FormatInt(x, 10)
	case int, int32, int16, int8, uint32, uint16, uint8:
		return fmt.Sprintf("integer %d", x)
	case float64:
		return "float " + strconv.FormatFloat(x, 'g', -1, 64)
	case float32:
		return "float " + strconv.FormatFloat(float64(x), 'g', -1, 32)
	case []any:
		for _, e := range x {
			if _, ok := e.(string); !ok {
				return "a list containing " + Describe(e)
			}
		}
		return "a list of strings"
	case []string:
		return "a list of strings"
	case []int64, []int:
		return "a list of integers"
	case []float64:
		return "a list of floats"
	case []bool:
		return "a list of booleans"
	case map[string]any:
		return "a map"
	}
	return fmt.Sprintf("a value of type %T", v)
}
