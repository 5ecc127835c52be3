// Package graphml reads GraphML (http://graphml.graphdrawing.org) as
// NetworkX writes it, the graph file of LightRAG
// (graph_chunk_entity_relation.graphml) and nano-graphrag, and as memoria
// writes it (memoria export --format graphml), into the APOC nodes and
// relationships the embedded engine builds from (docs/RETRIEVERS.md, "Other
// schemas", and docs/EXPORTS.md, "GraphML"). It reads the document as a
// stream of tokens (encoding/xml's Decoder): only the elements being read
// are held, never the document; the graph's body is cut into parts read by
// a decoder each, on several goroutines (parallel.go).
//
// What it reads:
//
//   - Each <key> declares a property of nodes or edges: its name is the
//     key's attr.name, or the text of its <desc> when it has one (memoria's
//     export keeps there a name that is not an XML NMTOKEN), and its type is
//     attr.type: string (the default), int and long (int64), float and
//     double (float64), boolean. A <data> whose text does not parse as its
//     key's type is refused. A key without attr.name (yEd's graphics) is
//     skipped with its data. A key's <default> is not applied: a node or
//     edge without a <data> for a key lacks the property.
//   - A <node>'s id is its internal id; when the file declares no node key
//     named Options.IDProperty, the node id also fills that property (the
//     GraphML id as written, quotes and all: nano-graphrag's and older
//     LightRAG's `"PROJECT GUTENBERG"`).
//   - An <edge> runs from its source to its target; edgedefault (directed
//     or undirected) changes nothing of that, as memoria's retrievers walk
//     RELATES both ways. Its type is its `label` data when the file declares
//     an edge key `label` without a <desc> (APOC's and memoria's GraphML),
//     else RELATES. Its internal id is its place among the edges, from 0
//     (decimal, as APOC numbers relationships, which the checker and the
//     engine store without a map).
//   - The node key `labels` without a <desc> (":A:B", APOC's and memoria's)
//     is the node's labels.
//   - In a document memoria wrote (its <desc> starts "memoria"), a string
//     value that is a JSON array is the list memoria wrote as JSON.
//
// What it refuses, each with the line: a DOCTYPE (a document type
// declaration can declare entities, the billion-laughs expansion: it is
// refused as it is met, before anything is expanded; encoding/xml expands
// no entity of a DTD anyway); malformed XML; a <data> naming a key not
// declared or declared for the other domain; a value not of its key's type;
// an unknown attr.type; a token, or a node or edge whole, longer than
// MaxToken bytes or elements nested deeper than MaxDepth (so a file of
// any size, or one without end, is read in bounded memory); a nested graph or a hyperedge; and whatever
// the APOC checker refuses (apoc.Checker: a duplicate node id, an edge
// naming a node not declared, an empty document).
package graphml

import (
	"bytes"
	"encoding/json"
	"encoding/xml"
	"errors"
	"fmt"
	"io"
	"strconv"
	"strings"

	"github.com/memoria-graph/memoria/graph"
	"github.com/memoria-graph/memoria/graph/apoc"
)

// MaxToken is the longest token (a start tag with its attributes, a text, a
// comment) the reader takes, as apoc.MaxLine is the longest line of an
// APOC file: a longer one is refused once this many bytes of it are read.
const MaxToken = 64 << 20

// MaxDepth is how deeply elements may nest (GraphML itself needs 4:
// graphml, graph, node, data).
const MaxDepth = 64

// Options say how a file maps onto memoria's nodes.
type Options struct {
	// IDProperty, when the file declares no node key of this name, is
	// filled with each node's GraphML id (the schema's id property).
	IDProperty string
}

// Key is one declared <key>.
type Key struct {
	ID, For, Name, Type string
	// Desc is the key's <desc> ("" when none).
	Desc string
}

// Head is what a document declares before its graph: its keys and the
// graph's edgedefault.
type Head struct {
	Keys        []Key
	EdgeDefault string
	// Memoria: the document's <desc> says memoria wrote it.
	Memoria bool
}

// NodeKey reports whether the head declares a node property of this name.
func (h Head) NodeKey(name string) bool {
	for _, k := range h.Keys {
		if (k.For == "node" || k.For == "all") && k.prop() == name {
			return true
		}
	}
	return false
}

// EdgeKey reports whether the head declares an edge property of this
// name.
func (h Head) EdgeKey(name string) bool {
	for _, k := range h.Keys {
		if (k.For == "edge" || k.For == "all") && k.prop() == name {
			return true
		}
	}
	return false
}

// EdgeTypes reports whether the edges carry a type (an edge key `label`
// without a <desc>, APOC's and memoria's GraphML).
func (h Head) EdgeTypes() bool {
	for _, k := range h.Keys {
		if (k.For == "edge" || k.For == "all") && k.Name == "label" && k.Desc == "" {
			return true
		}
	}
	return false
}

// prop is the property a key holds: its <desc> when it has one, else its
// attr.name.
func (k Key) prop() string {
	if k.Desc != "" {
		return k.Desc
	}
	return k.Name
}

// ReadHead reads a document's keys, up to its <graph> element.
func ReadHead(r io.Reader) (Head, error) {
	rd := newReader(r)
	err := rd.head()
	return rd.h, err
}

// Decode reads a document and hands each node and edge, checked by rules
// (apoc.Checker), to onNode and onRel, as apoc.DecodeRules does with an APOC
// file; positions in errors are the document's lines. After the first
// problem it calls neither function again.
func Decode(r io.Reader, rules apoc.Rules, opt Options, onNode func(apoc.Node) error, onRel func(apoc.Relationship) error) (apoc.Report, error) {
	rec := &recorder{r: r, on: true}
	rd := newReader(rec)
	rd.opt = opt
	rd.check = apoc.NewChecker(rules)
	if err := rd.decode(rec, onNode, onRel); err != nil {
		return apoc.Report{}, err
	}
	return rd.check.Finish()
}

// decode reads the head, then the body in parts (parallel.go).
func (rd *reader) decode(rec *recorder, onNode func(apoc.Node) error, onRel func(apoc.Relationship) error) error {
	if err := rd.head(); err != nil {
		return err
	}
	rd.fillID = rd.opt.IDProperty != "" && !rd.h.NodeKey(rd.opt.IDProperty)
	rec.on = false
	off := rd.d.InputOffset()
	if off >= 2 && rec.buf[off-2] == '/' { // <graph/>: nothing to read in parts
		rec.buf = nil
		return rd.body(onNode, onRel)
	}
	// The body is read again from the byte after <graph ...>: what the
	// head's decoder read ahead, then the rest of the input.
	body := io.MultiReader(bytes.NewReader(rec.buf[off:]), rec.r)
	rec.buf = nil
	return rd.bodyParallel(body, rd.line(), onNode, onRel)
}

// reader is one document being read.
type reader struct {
	d     *xml.Decoder
	lim   *limitReader
	h     Head
	keys  map[string]Key
	opt   Options
	check *apoc.Checker
	// fillID: the node id fills opt.IDProperty.
	fillID bool
	depth  int
	edges  int
	// inGraph: the <graph> start was read by head.
	inGraph bool
	// base is added to the decoder's lines: a part of the body (parallel.go)
	// is read by a decoder of its own, whose line 1 is the document's
	// line base+1.
	base int
	// part: edges are numbered by the caller, in document order.
	part bool
}

func newReader(r io.Reader) *reader {
	lim := &limitReader{r: r}
	d := xml.NewDecoder(lim)
	d.Strict = true
	// No entity beyond XML's five: &lol; is an error, never an expansion.
	d.Entity = nil
	return &reader{d: d, lim: lim, keys: map[string]Key{}}
}

// limitReader refuses a token longer than MaxToken: tokens is reset each
// time the decoder returns one, so what it has read since is one token
// (and the decoder's buffer, 4 KiB).
type limitReader struct {
	r     io.Reader
	since int64
	max   int64
}

var errTooLong = errors.New("too long")

func (l *limitReader) Read(p []byte) (int, error) {
	limit := l.max
	if limit == 0 {
		limit = MaxToken
	}
	if l.since > limit {
		return 0, errTooLong
	}
	n, err := l.r.Read(p)
	l.since += int64(n)
	return n, err
}

// line is the decoder's current line.
func (rd *reader) line() int {
	l, _ := rd.d.InputPos()
	return l + rd.base
}

// errorf is a refusal at the current line.
func (rd *reader) errorf(format string, args ...any) error {
	return &apoc.ParseError{Line: rd.line(), Msg: fmt.Sprintf(format, args...)}
}

// token is the next token, a copy, with DOCTYPEs refused and the limits
// kept.
func (rd *reader) token() (xml.Token, error) {
	if rd.lim != nil {
		rd.lim.since = 0
	}
	t, err := rd.d.Token()
	if err != nil {
		if errors.Is(err, errTooLong) {
			return nil, rd.errorf("a token longer than %d MiB (graphml.MaxToken), the longest memoria reads", MaxToken>>20)
		}
		if err == io.EOF {
			return nil, err
		}
		var se *xml.SyntaxError
		if errors.As(err, &se) {
			return nil, &apoc.ParseError{Line: se.Line + rd.base, Msg: "malformed XML: " + se.Msg}
		}
		return nil, rd.errorf("%v", err)
	}
	switch x := t.(type) {
	case xml.Directive:
		if bytes.HasPrefix(bytes.TrimSpace(x), []byte("DOCTYPE")) {
			return nil, rd.errorf("a DOCTYPE: refused before anything is expanded (it can declare entities, the billion-laughs expansion; GraphML has none)")
		}
		return nil, rd.errorf("an XML declaration <!%s...> GraphML has no use for", firstWord(x))
	case xml.StartElement:
		rd.depth++
		if rd.depth > MaxDepth {
			return nil, rd.errorf("elements nested deeper than %d (graphml.MaxDepth)", MaxDepth)
		}
	case xml.EndElement:
		rd.depth--
	}
	return t, nil
}

func firstWord(b []byte) string {
	w, _, _ := strings.Cut(string(b), " ")
	if len(w) > 20 {
		w = w[:20]
	}
	return strconv.Quote(w)[1 : len(strconv.Quote(w))-1]
}

// attr is the value of the attribute name (no namespace) of e.
func attr(e xml.StartElement, name string) (string, bool) {
	for _, a := range e.Attr {
		if a.Name.Local == name && (a.Name.Space == "" || a.Name.Space == "http://graphml.graphdrawing.org/xmlns") {
			return a.Value, true
		}
	}
	return "", false
}

// head reads up to the <graph> start: the root, its <desc>, the keys.
func (rd *reader) head() error {
	root := false
	for {
		t, err := rd.token()
		if err == io.EOF {
			return &apoc.ParseError{Line: rd.line(), Msg: "no <graph> element: not a GraphML document"}
		}
		if err != nil {
			return err
		}
		se, ok := t.(xml.StartElement)
		if !ok {
			if cd, ok := t.(xml.CharData); ok && !root && len(bytes.TrimSpace(cd)) > 0 {
				return rd.errorf("text before the root element: not a GraphML document")
			}
			continue
		}
		switch {
		case !root:
			if se.Name.Local != "graphml" {
				return rd.errorf("the root element is <%s>, not <graphml>", se.Name.Local)
			}
			root = true
		case se.Name.Local == "desc":
			s, err := rd.text()
			if err != nil {
				return err
			}
			rd.h.Memoria = strings.HasPrefix(s, "memoria")
		case se.Name.Local == "key":
			if err := rd.key(se); err != nil {
				return err
			}
		case se.Name.Local == "graph":
			rd.h.EdgeDefault, _ = attr(se, "edgedefault")
			if rd.h.EdgeDefault == "" {
				rd.h.EdgeDefault = "directed"
			}
			if rd.h.EdgeDefault != "directed" && rd.h.EdgeDefault != "undirected" {
				return rd.errorf("<graph edgedefault=%s>: want directed or undirected", strconv.Quote(rd.h.EdgeDefault))
			}
			rd.inGraph = true
			return nil
		default:
			if err := rd.skip(); err != nil {
				return err
			}
		}
	}
}

// key reads one <key>.
func (rd *reader) key(se xml.StartElement) error {
	line := rd.line()
	var k Key
	k.ID, _ = attr(se, "id")
	k.For, _ = attr(se, "for")
	k.Name, _ = attr(se, "attr.name")
	k.Type, _ = attr(se, "attr.type")
	if k.For == "" {
		k.For = "all"
	}
	if k.Type == "" {
		k.Type = "string"
	}
	// Its children: <desc>, <default>.
	for {
		t, err := rd.token()
		if err != nil {
			return eofIn(err, rd, "<key>")
		}
		if _, ok := t.(xml.EndElement); ok {
			break
		}
		if c, ok := t.(xml.StartElement); ok {
			if c.Name.Local == "desc" {
				if k.Desc, err = rd.text(); err != nil {
					return err
				}
			} else if err := rd.skip(); err != nil {
				return err
			}
		}
	}
	switch {
	case k.ID == "":
		return &apoc.ParseError{Line: line, Msg: "a <key> without an id"}
	case !validType(k.Type):
		return &apoc.ParseError{Line: line, Msg: fmt.Sprintf("<key id=%s> has attr.type %s: want string, int, long, float, double or boolean",
			strconv.Quote(k.ID), strconv.Quote(k.Type))}
	}
	if _, dup := rd.keys[k.ID]; dup {
		return &apoc.ParseError{Line: line, Msg: fmt.Sprintf("<key id=%s> declared twice", strconv.Quote(k.ID))}
	}
	rd.keys[k.ID] = k
	rd.h.Keys = append(rd.h.Keys, k)
	return nil
}

func validType(t string) bool {
	switch t {
	case "string", "int", "long", "float", "double", "boolean":
		return true
	}
	return false
}

func eofIn(err error, rd *reader, what string) error {
	if err == io.EOF {
		return rd.errorf("the document ends inside %s", what)
	}
	return err
}

// text reads the character data of the element just started, up to its
// end; child elements are refused.
func (rd *reader) text() (string, error) {
	var b []byte
	var one string // the text when it is one token (the usual case): no copy into b
	n := 0
	for {
		t, err := rd.token()
		if err != nil {
			return "", eofIn(err, rd, "an element")
		}
		switch x := t.(type) {
		case xml.CharData:
			if n++; n == 1 {
				one = string(x)
			} else {
				if n == 2 {
					b = append(b, one...)
				}
				b = append(b, x...)
			}
		case xml.EndElement:
			if n <= 1 {
				return one, nil
			}
			return string(b), nil
		case xml.StartElement:
			return "", rd.errorf("<%s> inside a value, which holds text only", x.Name.Local)
		}
	}
}

// skip skips the element just started.
func (rd *reader) skip() error {
	for depth := 1; depth > 0; {
		t, err := rd.token()
		if err != nil {
			return eofIn(err, rd, "an element")
		}
		switch t.(type) {
		case xml.StartElement:
			depth++
		case xml.EndElement:
			depth--
		}
	}
	return nil
}

// body reads the graph's nodes and edges.
func (rd *reader) body(onNode func(apoc.Node) error, onRel func(apoc.Relationship) error) error {
	for {
		t, err := rd.token()
		if err != nil {
			return eofIn(err, rd, "<graph>")
		}
		switch x := t.(type) {
		case xml.EndElement:
			return rd.rest()
		case xml.StartElement:
			line := rd.line()
			switch x.Name.Local {
			case "node":
				n, err := rd.node(x)
				if err != nil {
					return err
				}
				if rd.check.Node(line, &n) && rd.check.OK() {
					if err := onNode(n); err != nil {
						return fmt.Errorf("line %d: %w", line, err)
					}
				}
			case "edge":
				r, err := rd.edge(x)
				if err != nil {
					return err
				}
				if rd.check.Rel(line, &r) && rd.check.OK() {
					if err := onRel(r); err != nil {
						return fmt.Errorf("line %d: %w", line, err)
					}
				}
			case "hyperedge":
				return rd.errorf("a <hyperedge>: memoria reads edges of two ends only")
			default:
				if err := rd.skip(); err != nil {
					return err
				}
			}
			if rd.check.Full() {
				return rd.check.Errors()
			}
		}
	}
}

// rest reads what follows the graph: nothing but the root's end and what
// XML allows after it (a second graph is refused).
func (rd *reader) rest() error {
	for {
		t, err := rd.token()
		if err == io.EOF {
			return nil
		}
		if err != nil {
			return err
		}
		if se, ok := t.(xml.StartElement); ok {
			if se.Name.Local == "graph" {
				return rd.errorf("a second <graph>: memoria reads one graph per file")
			}
			if err := rd.skip(); err != nil {
				return err
			}
		}
	}
}

// node reads one <node>.
func (rd *reader) node(se xml.StartElement) (apoc.Node, error) {
	id, ok := attr(se, "id")
	if !ok {
		return apoc.Node{}, rd.errorf("a <node> without an id")
	}
	n := apoc.Node{InternalID: id, Labels: []string{}, Properties: map[string]any{}}
	if rd.fillID {
		n.Properties[rd.opt.IDProperty] = id
	}
	err := rd.data("node", elemName{id: id}, func(k Key, v any) {
		if k.Name == "labels" && k.Desc == "" {
			if s, ok := v.(string); ok {
				n.Labels = splitLabels(s)
				return
			}
		}
		n.Properties[k.prop()] = v
	})
	return n, err
}

// edge reads one <edge>.
func (rd *reader) edge(se xml.StartElement) (apoc.Relationship, error) {
	src, okS := attr(se, "source")
	dst, okT := attr(se, "target")
	what := elemName{edge: true, id: src, target: dst}
	if !okS || !okT {
		return apoc.Relationship{}, rd.errorf("%s lacks its source or target", what.what())
	}
	r := apoc.Relationship{Type: graph.Relates, Start: src, End: dst, Properties: map[string]any{}}
	if !rd.part {
		r.InternalID = strconv.Itoa(rd.edges)
		rd.edges++
	}
	err := rd.data("edge", what, func(k Key, v any) {
		if k.Name == "label" && k.Desc == "" {
			if s, ok := v.(string); ok {
				r.Type = s
				return
			}
		}
		r.Properties[k.prop()] = v
	})
	return r, err
}

// elemName names a node or an edge in a refusal, built only then.
type elemName struct {
	edge       bool
	id, target string // a node's id; an edge's source and target
}

func (e elemName) what() string {
	if e.edge {
		return fmt.Sprintf("<edge source=%s target=%s>", strconv.Quote(e.id), strconv.Quote(e.target))
	}
	return "<node id=" + strconv.Quote(e.id) + ">"
}

// data reads the children of a node or edge: its <data>, typed by their
// keys, handed to put.
func (rd *reader) data(domain string, what elemName, put func(Key, any)) error {
	for {
		t, err := rd.token()
		if err != nil {
			return eofIn(err, rd, what.what())
		}
		switch x := t.(type) {
		case xml.EndElement:
			return nil
		case xml.StartElement:
			switch x.Name.Local {
			case "data":
				if err := rd.datum(x, domain, what, put); err != nil {
					return err
				}
			case "graph":
				return rd.errorf("a nested <graph> in %s: memoria reads flat graphs", what.what())
			default: // <desc>, <port>, another namespace's element
				if err := rd.skip(); err != nil {
					return err
				}
			}
		}
	}
}

// datum reads one <data>.
func (rd *reader) datum(x xml.StartElement, domain string, what elemName, put func(Key, any)) error {
	line := rd.line()
	id, _ := attr(x, "key")
	k, ok := rd.keys[id]
	if !ok {
		return &apoc.ParseError{Line: line, Msg: fmt.Sprintf("%s: <data key=%s> names a key not declared", what.what(), strconv.Quote(id))}
	}
	if k.For != domain && k.For != "all" {
		return &apoc.ParseError{Line: line, Msg: fmt.Sprintf("%s: <data key=%s> names a key declared for %s", what.what(), strconv.Quote(id), k.For)}
	}
	if k.Name == "" {
		return rd.skip() // yEd's graphics and the like
	}
	s, err := rd.text()
	if err != nil {
		return err
	}
	v, err := rd.value(k, s)
	if err != nil {
		return &apoc.ParseError{Line: line, Msg: fmt.Sprintf("%s: <data key=%s> (%s, %s): %v", what.what(), strconv.Quote(id), strconv.Quote(k.prop()), k.Type, err)}
	}
	put(k, v)
	return nil
}

// value is s as a value of k's type.
func (rd *reader) value(k Key, s string) (any, error) {
	switch k.Type {
	case "int", "long":
		n, err := strconv.ParseInt(strings.TrimSpace(s), 10, 64)
		if err != nil {
			return nil, fmt.Errorf("%s is not an integer", quoteShort(s))
		}
		return n, nil
	case "float", "double":
		f, err := strconv.ParseFloat(strings.TrimSpace(s), 64)
		if err != nil {
			return nil, fmt.Errorf("%s is not a number", quoteShort(s))
		}
		return f, nil
	case "boolean":
		b, err := strconv.ParseBool(strings.TrimSpace(s))
		if err != nil {
			return nil, fmt.Errorf("%s is not true or false", quoteShort(s))
		}
		return b, nil
	}
	if rd.h.Memoria && strings.HasPrefix(s, "[") {
		if l, ok := jsonList(s); ok {
			return l, nil
		}
	}
	return s, nil
}

// quoteShort quotes s for a message, cut to 40 bytes.
func quoteShort(s string) string {
	if len(s) > 40 {
		return strconv.Quote(s[:40]) + "..."
	}
	return strconv.Quote(s)
}

// jsonList reads the JSON array memoria writes for a list property: its
// numbers as int64 when written without '.', 'e' or 'E', else float64, as
// the APOC file's.
func jsonList(s string) ([]any, bool) {
	d := json.NewDecoder(strings.NewReader(s))
	d.UseNumber()
	var l []any
	if err := d.Decode(&l); err != nil || d.More() {
		return nil, false
	}
	for i, v := range l {
		switch x := v.(type) {
		case json.Number:
			if !strings.ContainsAny(x.String(), ".eE") {
				n, err := x.Int64()
				if err != nil {
					return nil, false
				}
				l[i] = n
			} else {
				f, err := x.Float64()
				if err != nil {
					return nil, false
				}
				l[i] = f
			}
		case string, bool:
		default:
			return nil, false
		}
	}
	return l, true
}

// splitLabels reads ":A:B".
func splitLabels(s string) []string {
	labels := []string{}
	for _, l := range strings.Split(strings.TrimPrefix(s, ":"), ":") {
		if l != "" {
			labels = append(labels, l)
		}
	}
	return labels
}
