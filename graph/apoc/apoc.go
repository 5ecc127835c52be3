// Package apoc reads and writes the JSON-lines form that Neo4j's
// `CALL apoc.export.json.all(...)` writes: one JSON object per line, either a
// node
//
//	{"type":"node","id":"0","labels":["UserRequest"],"properties":{"id":"N2006","text":"..."}}
//
// or a relationship
//
//	{"type":"relationship","id":"0","label":"RELATES","properties":{"weight":0.82,"tags":["a","b"]},
//	 "start":{"id":"0","labels":["UserRequest"]},"end":{"id":"5","labels":["DataSource"]}}
//
// Internal ids (the top-level "id" and those of "start" and "end") may be
// JSON strings or integers. Nodes and relationships may come in any order
// (APOC writes the nodes first). Blank lines are ignored, as are keys this
// package does not know. "labels" and "properties" may be missing (APOC omits
// them when empty).
//
// Property values become Go values thus: strings, bools, int64 for numbers
// written without '.', 'e' or 'E', float64 for the other numbers, and []any
// for lists. A null property is the same as a missing one (Neo4j stores no
// nulls) and is dropped. Maps, lists of lists, nulls inside lists and lists
// of values of several types (a string next to a number or a boolean;
// integers and floats may mix) are errors: Neo4j properties cannot hold
// them.
//
// The graph algorithm uses only relationships of type RELATES (see package
// retriever); for those, a "weight" must be a number and "tags" a list of
// strings. A node's "id" property, its application id, must be a string and
// unique. Everything else is kept as it is, for export.
package apoc

import (
	"bufio"
	"cmp"
	"errors"
	"fmt"
	"io"
	"os"
	"slices"
	"strconv"
)

// Graph is a whole export: nodes and relationships in file order.
type Graph struct {
	Nodes []Node
	Rels  []Relationship
}

// Node is one node. InternalID is the export's "id" (Neo4j's internal id),
// not the application id, which is the "id" property.
type Node struct {
	InternalID string
	// Labels is never nil after Parse.
	Labels []string
	// Properties is never nil after Parse.
	Properties map[string]any
}

// Relationship is one relationship from the node whose internal id is Start
// to the one whose internal id is End. Type is the export's "label".
type Relationship struct {
	InternalID string
	Type       string
	Start      string
	End        string
	// Properties is never nil after Parse.
	Properties map[string]any
}

// RelatesType is the relationship type whose "weight" and "tags" are checked.
const RelatesType = "RELATES"

// MaxErrors is how many errors Parse and Decode collect before they stop.
const MaxErrors = 20

// ParseError is one problem of an input, at a 1-based line.
type ParseError struct {
	Line int
	Msg  string
}

func (e *ParseError) Error() string { return fmt.Sprintf("line %d: %s", e.Line, e.Msg) }

// ErrTooManyErrors ends the joined error of an input with more than
// MaxErrors problems.
var ErrTooManyErrors = fmt.Errorf("too many errors (stopped after %d)", MaxErrors)

// ParseFile parses the export at path. Errors about the content are those of
// Parse (they do not repeat the path).
func ParseFile(path string) (*Graph, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	return Parse(f)
}

// Parse reads a whole export. It returns either the complete graph or an
// error, never both: the error joins (errors.Join) up to MaxErrors
// *ParseError values in line order, followed by ErrTooManyErrors when it
// stopped early, or it is the reader's own error.
func Parse(r io.Reader) (*Graph, error) {
	g := &Graph{}
	err := Decode(r,
		func(n Node) error { g.Nodes = append(g.Nodes, n); return nil },
		func(rel Relationship) error { g.Rels = append(g.Rels, rel); return nil })
	if err != nil {
		return nil, err
	}
	return g, nil
}

// Decode reads an export and hands each node and relationship, in file
// order, to onNode and onRel, so a caller can build its own representation
// without holding a whole Graph. It checks exactly what Parse checks. A
// relationship may be handed over before its nodes (when the file lists it
// first); its endpoints are checked once the input ends. After the first
// problem Decode calls neither function again but goes on reading to report
// up to MaxErrors problems; whenever it returns an error, whatever the
// functions received must be thrown away. An error returned by onNode or
// onRel stops Decode, which returns it prefixed with the line.
func Decode(r io.Reader, onNode func(Node) error, onRel func(Relationship) error) error {
	d := newDecoder()
	br := bufio.NewReaderSize(r, 1<<16)
	var long []byte
	line := 0
	for {
		chunk, err := br.ReadSlice('\n')
		if err == bufio.ErrBufferFull {
			long = append(long[:0], chunk...)
			for err == bufio.ErrBufferFull {
				chunk, err = br.ReadSlice('\n')
				long = append(long, chunk...)
			}
			chunk = long
		}
		if err != nil && err != io.EOF {
			return fmt.Errorf("line %d: %w", line+1, err)
		}
		if len(chunk) > 0 {
			line++
			if line == 1 {
				chunk = trimBOM(chunk)
			}
			if cbErr := d.line(line, chunk, onNode, onRel); cbErr != nil {
				return fmt.Errorf("line %d: %w", line, cbErr)
			}
			if len(d.errs) >= MaxErrors {
				return errors.Join(append(d.errs, ErrTooManyErrors)...)
			}
		}
		if err == io.EOF {
			break
		}
	}
	return d.finish()
}

func trimBOM(b []byte) []byte {
	if len(b) >= 3 && b[0] == 0xEF && b[1] == 0xBB && b[2] == 0xBF {
		return b[3:]
	}
	return b
}

// decoder holds what the whole-input checks need.
type decoder struct {
	ld lineDecoder
	// nodeSeq maps a node's internal id to its position in nodeIDs.
	nodeSeq   idTable
	nodeIDs   []string
	nodeLines []int32
	appIDs    map[string]int32 // application id -> line
	relLines  idTable          // relationship internal id -> line
	pending   []pendingEnd
	errs      []error
}

// pendingEnd is a relationship endpoint not yet seen when the relationship was read.
type pendingEnd struct {
	line  int32
	rel   string
	node  string
	isEnd bool
}

func newDecoder() *decoder {
	d := &decoder{appIDs: make(map[string]int32)}
	d.ld.init(d)
	return d
}

func (d *decoder) errorf(line int, format string, args ...any) {
	d.errs = append(d.errs, &ParseError{Line: line, Msg: fmt.Sprintf(format, args...)})
}

func (d *decoder) line(line int, b []byte, onNode func(Node) error, onRel func(Relationship) error) error {
	el, err := d.ld.parseLine(b)
	if err != nil {
		d.errorf(line, "%s", err.Error())
		return nil
	}
	switch el.kind {
	case kindBlank:
		return nil
	case kindNode:
		n := el.node
		if prev, dup := idGet(&d.nodeSeq, n.InternalID); dup {
			d.errorf(line, "duplicate internal node id %s (first on line %d)", showID(n.InternalID), d.nodeLines[prev])
			return nil
		}
		d.nodeSeq.put(n.InternalID, int32(len(d.nodeIDs)))
		d.nodeIDs = append(d.nodeIDs, n.InternalID)
		d.nodeLines = append(d.nodeLines, int32(line))
		if msg := checkNode(&n); msg != "" {
			d.errorf(line, "node %s: %s", showID(n.InternalID), msg)
			return nil
		}
		if id, ok := n.Properties["id"].(string); ok {
			if first, dup := d.appIDs[id]; dup {
				d.errorf(line, "duplicate node id %q (first on line %d)", id, first)
				return nil
			}
			d.appIDs[id] = int32(line)
		}
		if len(d.errs) == 0 {
			return onNode(n)
		}
	case kindRel:
		rel := el.rel
		if first, dup := idGet(&d.relLines, rel.InternalID); dup {
			d.errorf(line, "duplicate internal relationship id %s (first on line %d)", showID(rel.InternalID), first)
			return nil
		}
		d.relLines.put(rel.InternalID, int32(line))
		if msg := checkRel(&rel); msg != "" {
			d.errorf(line, "relationship %s: %s", showID(rel.InternalID), msg)
			return nil
		}
		// parseLine resolved the endpoints of nodes already read; check
		// the others once the input ends.
		if !el.startKnown {
			d.pending = append(d.pending, pendingEnd{line: int32(line), rel: rel.InternalID, node: rel.Start})
		}
		if !el.endKnown {
			d.pending = append(d.pending, pendingEnd{line: int32(line), rel: rel.InternalID, node: rel.End, isEnd: true})
		}
		if len(d.errs) == 0 {
			return onRel(rel)
		}
	}
	return nil
}

// finish checks the endpoints of relationships read before their nodes and
// returns the first MaxErrors errors by line.
func (d *decoder) finish() error {
	// d.pending is in line order, so its first MaxErrors problems are the
	// only ones that can be among the first MaxErrors of all.
	more := 0
	for _, p := range d.pending {
		if _, ok := idGet(&d.nodeSeq, p.node); ok {
			continue
		}
		if more == MaxErrors {
			more++
			break
		}
		more++
		verb := "starts"
		if p.isEnd {
			verb = "ends"
		}
		d.errorf(int(p.line), "relationship %s %s at unknown node %s", showID(p.rel), verb, showID(p.node))
	}
	if len(d.errs) == 0 {
		return nil
	}
	slices.SortStableFunc(d.errs, func(a, b error) int {
		return cmp.Compare(a.(*ParseError).Line, b.(*ParseError).Line)
	})
	if len(d.errs) > MaxErrors || more > MaxErrors {
		d.errs = append(d.errs[:min(len(d.errs), MaxErrors)], ErrTooManyErrors)
	}
	return errors.Join(d.errs...)
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

// checkNode checks a node's application id, then its properties
// (checkProps); it returns "" or the problem.
func checkNode(n *Node) string {
	if v, ok := n.Properties["id"]; ok {
		if _, isStr := v.(string); !isStr {
			return "property id must be a string, got " + describe(v)
		}
	}
	return checkProps(n.Properties)
}

// checkRel checks what the algorithm reads of a RELATES relationship, then
// the properties of any relationship (checkProps).
func checkRel(r *Relationship) string {
	if r.Type == RelatesType {
		if v, ok := r.Properties["weight"]; ok {
			if _, num := Number(v); !num {
				return "weight must be a number, got " + describe(v)
			}
		}
		if v, ok := r.Properties["tags"]; ok {
			if !isStringList(v) {
				return "tags must be a list of strings, got " + describe(v)
			}
		}
	}
	return checkProps(r.Properties)
}

// checkProps checks the list properties Neo4j would refuse to store (with
// a TypeError, after earlier batches of a load were written): a list must
// hold values of one type, strings, booleans or numbers (integers and
// floats mix: Neo4j stores such a list as floats), and no null, list or map.
// The empty list is fine. Of several bad properties it names the first by
// key. It returns "" or the problem.
func checkProps(props map[string]any) string {
	var key, msg string
	for k, v := range props {
		list, isList := v.([]any)
		if !isList {
			continue
		}
		if m := checkList(list); m != "" && (msg == "" || k < key) {
			key, msg = k, m
		}
	}
	if msg == "" {
		return ""
	}
	return fmt.Sprintf("property %q: %s", key, msg)
}

func checkList(list []any) string {
	first := ""
	for _, e := range list {
		kind := valueKind(e)
		switch kind {
		case "null":
			return "a list cannot contain null"
		case "list":
			return "a list cannot contain lists"
		case "map":
			return "a list cannot contain maps"
		}
		if first == "" {
			first = kind
		} else if kind != first {
			return fmt.Sprintf("a list must hold values of one type, got %s and %s", first, kind)
		}
	}
	return ""
}

// valueKind names the kind of a property value as Neo4j types it: a
// string, boolean or number (integer or float alike), null, a list or a map,
// else the Go type.
func valueKind(v any) string {
	switch v.(type) {
	case string:
		return "string"
	case bool:
		return "boolean"
	case int64, float64, int, int32, float32:
		return "number"
	case nil:
		return "null"
	case []any, []string, []int64, []float64, []bool:
		return "list"
	case map[string]any:
		return "map"
	}
	return fmt.Sprintf("%T", v)
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
// false for anything else.
func StringList(v any) (list []string, ok bool) {
	switch x := v.(type) {
	case []string:
		return x, true
	case []any:
		out := make([]string, len(x))
		for i, e := range x {
			s, isStr := e.(string)
			if !isStr {
				return nil, false
			}
			out[i] = s
		}
		return out, true
	}
	return nil, false
}

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

// describe names a value's kind and shows it briefly: `string "high"`.
func describe(v any) string {
	switch x := v.(type) {
	case string:
		if len(x) > 40 {
			x = x[:40] + "..."
		}
		return "string " + strconv.Quote(x)
	case bool:
		return "boolean " + strconv.FormatBool(x)
	case int64, int, int32:
		return fmt.Sprintf("number %d", x)
	case float64, float32:
		return fmt.Sprintf("number %v", x)
	case []any:
		for _, e := range x {
			if _, isStr := e.(string); !isStr {
				return "a list containing " + describe(e)
			}
		}
		return "list"
	case []string:
		return "list"
	case nil:
		return "null"
	}
	return fmt.Sprintf("%T", v)
}

// Validate checks a graph built in Go as Parse checks a file: unique,
// non-empty internal ids, unique string application ids, known endpoints,
// non-empty relationship types, numeric weights and string-list tags on
// RELATES relationships, and list properties Neo4j can store (values of one
// type, no nulls: see checkProps). Problems name elements by internal id; at most
// MaxErrors are reported.
func Validate(g *Graph) error {
	if g == nil {
		return errors.New("no graph")
	}
	var errs []error
	add := func(format string, args ...any) bool {
		errs = append(errs, fmt.Errorf(format, args...))
		return len(errs) < MaxErrors
	}
	var nodes, rels idTable
	appIDs := make(map[string]string, len(g.Nodes))
	for i := range g.Nodes {
		n := &g.Nodes[i]
		if n.InternalID == "" {
			if !add("node #%d has an empty internal id", i+1) {
				break
			}
			continue
		}
		if _, dup := idGet(&nodes, n.InternalID); dup {
			if !add("duplicate internal node id %s", showID(n.InternalID)) {
				break
			}
			continue
		}
		nodes.put(n.InternalID, int32(i))
		if msg := checkNode(n); msg != "" {
			if !add("node %s: %s", showID(n.InternalID), msg) {
				break
			}
			continue
		}
		if id, ok := n.Properties["id"].(string); ok {
			if first, dup := appIDs[id]; dup {
				if !add("node %s: duplicate node id %q (also on node %s)", showID(n.InternalID), id, showID(first)) {
					break
				}
				continue
			}
			appIDs[id] = n.InternalID
		}
	}
	for i := range g.Rels {
		if len(errs) >= MaxErrors {
			break
		}
		r := &g.Rels[i]
		var msg string
		_, dup := idGet(&rels, r.InternalID)
		_, startOK := idGet(&nodes, r.Start)
		_, endOK := idGet(&nodes, r.End)
		switch {
		case r.InternalID == "":
			msg = fmt.Sprintf("relationship #%d has an empty internal id", i+1)
		case dup:
			msg = fmt.Sprintf("duplicate internal relationship id %s", showID(r.InternalID))
		case r.Type == "":
			msg = fmt.Sprintf("relationship %s has no type", showID(r.InternalID))
		case !startOK:
			msg = fmt.Sprintf("relationship %s starts at unknown node %s", showID(r.InternalID), showID(r.Start))
		case !endOK:
			msg = fmt.Sprintf("relationship %s ends at unknown node %s", showID(r.InternalID), showID(r.End))
		default:
			if m := checkRel(r); m != "" {
				msg = fmt.Sprintf("relationship %s: %s", showID(r.InternalID), m)
			}
		}
		if !dup {
			rels.put(r.InternalID, int32(i))
		}
		if msg != "" {
			add("%s", msg)
		}
	}
	if len(errs) >= MaxErrors {
		errs = append(errs[:MaxErrors], ErrTooManyErrors)
	}
	return errors.Join(errs...)
}
