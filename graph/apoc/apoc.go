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
// nulls) and is dropped.
//
// One checker (check.go) judges every input by the rules of docs/EXPORTS.md,
// "The APOC file": what Neo4j cannot store (maps, nested lists, nulls in
// lists, lists of several types, numbers beyond float64, empty names or
// names with NUL), what it would store altered (invalid UTF-8), and what the
// retriever and memoria load need (a unique, non-empty string id on every
// node, a numeric weight and a string list of tags on RELATES
// relationships). The same file gets the same verdict from every reader:
// the memory engine (graph/inmem) and memoria load both read through Decode.
// Everything else is kept as it is, for export.
package apoc

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"os"
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

// MaxLine is the longest line Parse and Decode read (docs/EXPORTS.md, "The
// APOC file"): a node with an embedding of tens of thousands of numbers
// and long texts fits many times over. A longer line is refused as it is
// read, before more than MaxLine bytes of it are held, so that a file
// without end (/dev/zero) is refused in bounded memory. A file has no
// limit of size: the graph it holds is loaded whole.
const MaxLine = 64 << 20

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
	g, _, err := ParseFileReport(path)
	return g, err
}

// ParseFileReport is ParseFile that also returns the checker's report.
func ParseFileReport(path string) (*Graph, Report, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, Report{}, err
	}
	defer f.Close()
	return ParseReport(f, FileRules)
}

// Parse reads a whole export. It returns either the complete graph or an
// error, never both: the error joins (errors.Join) up to MaxErrors
// *ParseError values in line order, followed by ErrTooManyErrors when it
// stopped early, or it is the reader's own error.
func Parse(r io.Reader) (*Graph, error) {
	g, _, err := ParseReport(r, FileRules)
	return g, err
}

// ParseReport is Parse by the given rules that also returns the checker's
// report (its warnings are for the user). Parse, and memoria's commands,
// read files by FileRules; with GraphRules a node may lack an id and the
// input may be empty, as a graph read from a database may.
func ParseReport(r io.Reader, rules Rules) (*Graph, Report, error) {
	g := &Graph{}
	rep, err := decode(r, rules,
		func(n Node) error { g.Nodes = append(g.Nodes, n); return nil },
		func(rel Relationship) error { g.Rels = append(g.Rels, rel); return nil })
	if err != nil {
		return nil, Report{}, err
	}
	return g, rep, nil
}

// Decode reads an export and hands each node and relationship, in file
// order, to onNode and onRel, so a caller can build its own representation
// without holding a whole Graph. It checks exactly what Parse checks (the
// checker of check.go, with the rules for files) and returns the checker's
// report. A relationship may be handed over before its nodes (when the file
// lists it first); its endpoints are checked once the input ends. After the
// first problem Decode calls neither function again but goes on reading to
// report up to MaxErrors problems; whenever it returns an error, whatever
// the functions received must be thrown away. An error returned by onNode or
// onRel stops Decode, which returns it prefixed with the line.
func Decode(r io.Reader, onNode func(Node) error, onRel func(Relationship) error) (Report, error) {
	return decode(r, FileRules, onNode, onRel)
}

// DecodeRules is Decode by the given rules (ParseReport's): a file read
// through a schema mapping is decoded by MappedRules.
func DecodeRules(r io.Reader, rules Rules, onNode func(Node) error, onRel func(Relationship) error) (Report, error) {
	return decode(r, rules, onNode, onRel)
}

func decode(r io.Reader, rules Rules, onNode func(Node) error, onRel func(Relationship) error) (Report, error) {
	return decodeMax(r, rules, onNode, onRel, MaxLine)
}

// decodeMax is decode with the longest line given (a test's smaller).
func decodeMax(r io.Reader, rules Rules, onNode func(Node) error, onRel func(Relationship) error, maxLine int) (Report, error) {
	d := newDecoder(rules)
	br := bufio.NewReaderSize(r, 1<<16)
	var long []byte
	line := 0
	for {
		chunk, err := br.ReadSlice('\n')
		if err == bufio.ErrBufferFull {
			long = append(long[:0], chunk...)
			for err == bufio.ErrBufferFull {
				chunk, err = br.ReadSlice('\n')
				need := len(long) + len(chunk)
				if need > maxLine {
					return Report{}, tooLong(line+1, maxLine)
				}
				if need > cap(long) {
					// Double, up to the limit: at most 2 × maxLine
					// allocated for a line, however long.
					grown := make([]byte, len(long), min(max(2*cap(long), need), maxLine))
					copy(grown, long)
					long = grown
				}
				long = append(long, chunk...)
			}
			chunk = long
		}
		if len(chunk) > maxLine {
			return Report{}, tooLong(line+1, maxLine)
		}
		if err != nil && err != io.EOF {
			return Report{}, fmt.Errorf("line %d: %w", line+1, err)
		}
		if len(chunk) > 0 {
			line++
			if line == 1 {
				chunk = trimBOM(chunk)
			}
			if cbErr := d.line(line, chunk, onNode, onRel); cbErr != nil {
				return Report{}, fmt.Errorf("line %d: %w", line, cbErr)
			}
			if d.c.full() {
				return Report{}, d.c.errors()
			}
		}
		if err == io.EOF {
			break
		}
	}
	return d.c.finish()
}

// tooLong is the refusal of a line longer than maxLine bytes.
func tooLong(line, maxLine int) error {
	limit := fmt.Sprintf("%d bytes", maxLine)
	if maxLine%(1<<20) == 0 {
		limit = fmt.Sprintf("%d MiB", maxLine>>20)
	}
	return &ParseError{Line: line, Msg: "longer than " + limit + ", the longest line memoria reads"}
}

func trimBOM(b []byte) []byte {
	if len(b) >= 3 && b[0] == 0xEF && b[1] == 0xBB && b[2] == 0xBF {
		return b[3:]
	}
	return b
}

// decoder reads lines into elements and hands them to the checker.
type decoder struct {
	ld lineDecoder
	c  checker
}

func newDecoder(rules Rules) *decoder {
	d := &decoder{c: newChecker(true, rules, 0)}
	d.ld.init(&d.c)
	return d
}

func (d *decoder) line(line int, b []byte, onNode func(Node) error, onRel func(Relationship) error) error {
	el, err := d.ld.parseLine(b)
	if err != nil {
		d.c.errorf(line, "%s", err.Error())
		return nil
	}
	switch el.kind {
	case kindNode:
		if d.c.node(line, &el.node) && d.c.ok() {
			return onNode(el.node)
		}
	case kindRel:
		if d.c.rel(line, &el.rel, el.startKnown, el.endKnown) && d.c.ok() {
			return onRel(el.rel)
		}
	}
	return nil
}

// errorsJoin joins errs, ending with ErrTooManyErrors when more were found.
func errorsJoin(errs []error, more bool) error {
	if more {
		errs = append(errs[:min(len(errs), MaxErrors)], ErrTooManyErrors)
	}
	return errors.Join(errs...)
}
