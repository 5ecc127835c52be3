package subgraph

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"slices"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/memoria-graph/memoria/graph/apoc"
	"github.com/memoria-graph/memoria/internal/textsafe"
)

// GraphML is g's result as GraphML (http://graphml.graphdrawing.org, valid
// against its published schema): the nodes and hops of the result, not the
// ghosts nor the dashed hops of the page. Each node carries its labels (as
// APOC's GraphML export writes them, ":A:B"), memoria's attributes
// (memoria_seed, memoria_R, memoria_activation on Activation Energy's
// nodes, memoria_score, and memoria_<retriever>_rank and _score for each
// ranking that holds it), then its properties; each edge its type
// ("label"), memoria_T, memoria_w, memoria_tag_sim, memoria_d (Activation
// Energy), memoria_factor (a ranking's hop), memoria_retrievers (a
// comparison), then its properties. See writeDoc for names and text.
func GraphML(w io.Writer, g Graph) error {
	if err := g.CheckFinite(); err != nil { // nothing written
		return fmt.Errorf("graphml: %w", err)
	}
	var d doc
	ids := map[string]string{}
	for _, n := range g.Nodes {
		if n.Ghost {
			continue
		}
		ids[n.ID] = "n" + strconv.Itoa(len(d.nodes))
		e := elem{id: ids[n.ID]}
		e.add(d.keys.key("node", "labels", false), labelsValue(n.Labels))
		m := func(name string, v any) { e.add(d.keys.key("node", "memoria_"+name, false), v) }
		m("seed", n.Seed)
		if n.R != nil {
			m("R", *n.R)
		}
		if n.Score != nil {
			if g.Mode == ModeActivation {
				m("activation", *n.Score)
			} else {
				m("score", *n.Score)
			}
		}
		for _, h := range n.Hits {
			m(h.Retriever+"_rank", int64(h.Rank))
			m(h.Retriever+"_score", h.Score)
		}
		e.props(&d.keys, "node", n.Properties)
		d.nodes = append(d.nodes, e)
	}
	for _, l := range g.Links {
		s, okS := ids[l.Source]
		t, okT := ids[l.Target]
		if !l.Kept() || !okS || !okT {
			continue
		}
		e := elem{id: "e" + strconv.Itoa(len(d.edges)), source: s, target: t}
		e.add(d.keys.key("edge", "label", false), l.Type)
		m := func(name string, v any) { e.add(d.keys.key("edge", "memoria_"+name, false), v) }
		if l.T != nil {
			m("T", *l.T)
		}
		m("w", l.Weight)
		if l.TagSim != nil {
			m("tag_sim", *l.TagSim)
		}
		if l.Degree != nil {
			m("d", *l.Degree)
		}
		if l.Factor != nil {
			m("factor", *l.Factor)
		}
		if g.Mode == ModeCompare {
			m("retrievers", strings.Join(l.Retrievers, ","))
		}
		e.props(&d.keys, "edge", l.Properties)
		d.edges = append(d.edges, e)
	}
	return d.write(w, "memoria: "+g.Title)
}

// WholeGraphML is a whole graph as GraphML, every node with its labels
// (":A:B") and properties, every relationship directed from its start to
// its end with its type ("label") and properties, in the graph's order.
// It streams: a first pass declares the keys (a key's type depends on
// every value it takes) and checks that every relationship joins known
// nodes, so an error writes nothing; the second writes each element as it
// is built, 64 KiB at a time, so a graph of 10^6 relationships never has
// its document in memory.
func WholeGraphML(w io.Writer, g *apoc.Graph) error {
	var d doc
	ids := make(map[string]string, len(g.Nodes))
	declare := func(domain, name string, prop bool, v any) { d.keys.key(domain, name, prop).kinds[kind(v)] = true } // elem.add's bookkeeping
	for i, n := range g.Nodes {
		ids[n.InternalID] = "n" + strconv.Itoa(i)
		declare("node", "labels", false, labelsValue(n.Labels))
		for _, k := range sortedKeys(n.Properties) {
			declare("node", k, true, n.Properties[k])
		}
	}
	for _, r := range g.Rels {
		_, okS := ids[r.Start]
		_, okT := ids[r.End]
		if !okS || !okT {
			return fmt.Errorf("graphml: relationship %s joins an unknown node", textsafe.Quote(r.InternalID))
		}
		declare("edge", "label", false, r.Type)
		for _, k := range sortedKeys(r.Properties) {
			declare("edge", k, true, r.Properties[k])
		}
	}
	var b bytes.Buffer
	d.head(&b, "memoria export")
	for i, n := range g.Nodes {
		e := elem{id: "n" + strconv.Itoa(i)}
		e.add(d.keys.key("node", "labels", false), labelsValue(n.Labels))
		e.props(&d.keys, "node", n.Properties)
		writeElem(&b, "node", e)
		if err := flushAt(w, &b); err != nil {
			return err
		}
	}
	for i, r := range g.Rels {
		e := elem{id: "e" + strconv.Itoa(i), source: ids[r.Start], target: ids[r.End]}
		e.add(d.keys.key("edge", "label", false), r.Type)
		e.props(&d.keys, "edge", r.Properties)
		writeElem(&b, "edge", e)
		if err := flushAt(w, &b); err != nil {
			return err
		}
	}
	b.WriteString(tail)
	_, err := w.Write(b.Bytes())
	return err
}

// flushAt moves b to w once it holds 64 KiB.
func flushAt(w io.Writer, b *bytes.Buffer) error {
	if b.Len() < 64<<10 {
		return nil
	}
	_, err := w.Write(b.Bytes())
	b.Reset()
	return err
}

func labelsValue(labels []string) string {
	if len(labels) == 0 {
		return ""
	}
	return ":" + strings.Join(labels, ":")
}

// keyRef identifies one GraphML key: its domain, whether it is a graph
// property (else memoria's own attribute) and its name.
type keyRef struct {
	domain, name string
	prop         bool
}

// key is a declared GraphML key.
type key struct {
	ref   keyRef
	id    string // "d0", "d1", ...
	attr  string // attr.name: name as an NMTOKEN, unique in its domain
	kinds map[string]bool
}

type keyTable struct {
	list  []*key
	by    map[keyRef]*key
	names map[string]bool // domain + "\x00" + attr name
}

func (t *keyTable) key(domain, name string, prop bool) *key {
	ref := keyRef{domain, name, prop}
	if k, ok := t.by[ref]; ok {
		return k
	}
	if t.by == nil {
		t.by, t.names = map[keyRef]*key{}, map[string]bool{}
	}
	attr := nmtoken(name)
	for i := 2; t.names[domain+"\x00"+attr]; i++ {
		attr = nmtoken(name) + "_" + strconv.Itoa(i)
	}
	t.names[domain+"\x00"+attr] = true
	k := &key{ref: ref, id: "d" + strconv.Itoa(len(t.list)), attr: attr, kinds: map[string]bool{}}
	t.list = append(t.list, k)
	t.by[ref] = k
	return k
}

// attrType is the GraphML attr.type for the values a key holds: boolean,
// long or double when every value is of that kind (integers and floats
// together: double), else string.
func (k *key) attrType() string {
	switch {
	case len(k.kinds) == 1 && k.kinds["boolean"]:
		return "boolean"
	case len(k.kinds) == 1 && k.kinds["long"]:
		return "long"
	case len(k.kinds) > 0 && !k.kinds["boolean"] && !k.kinds["string"]:
		return "double"
	}
	return "string"
}

type datum struct {
	key   *key
	value any
}

type elem struct {
	id, source, target string
	data               []datum
}

func (e *elem) add(k *key, v any) {
	k.kinds[kind(v)] = true
	e.data = append(e.data, datum{k, v})
}

// props adds a property map in key order (the XML is the same for the
// same graph).
func (e *elem) props(t *keyTable, domain string, props map[string]any) {
	for _, k := range sortedKeys(props) {
		e.add(t.key(domain, k, true), props[k])
	}
}

// sortedKeys are the keys of props with a value (not nil), in order.
func sortedKeys(props map[string]any) []string {
	keys := make([]string, 0, len(props))
	for k, v := range props {
		if v != nil {
			keys = append(keys, k)
		}
	}
	slices.Sort(keys)
	return keys
}

func kind(v any) string {
	switch v.(type) {
	case bool:
		return "boolean"
	case int, int64:
		return "long"
	case float64:
		return "double"
	}
	return "string"
}

type doc struct {
	keys         keyTable
	nodes, edges []elem
}

// write writes the document whole: the XML declaration, the graphml root
// with its schema location, every key (a property's key has attr.name, its
// name as an NMTOKEN — the schema's type for attr.name — with every other
// character as "_" and "_2", "_3"... against a clash, and a <desc> with the
// name exactly), then the graph. Text is XML-escaped (xmlText).
func (d *doc) write(w io.Writer, desc string) error {
	var b bytes.Buffer
	d.head(&b, desc)
	for _, n := range d.nodes {
		writeElem(&b, "node", n)
	}
	for _, e := range d.edges {
		writeElem(&b, "edge", e)
	}
	b.WriteString(tail)
	_, err := w.Write(b.Bytes())
	return err
}

// tail ends a document.
const tail = "</graph>\n</graphml>\n"

// head writes a document's start: the XML declaration, the graphml
// element, desc, every key, and the graph element's start.
func (d *doc) head(b *bytes.Buffer, desc string) {
	b.WriteString(`<?xml version="1.0" encoding="UTF-8"?>` + "\n")
	b.WriteString(`<graphml xmlns="http://graphml.graphdrawing.org/xmlns" xmlns:xsi="http://www.w3.org/2001/XMLSchema-instance"` +
		` xsi:schemaLocation="http://graphml.graphdrawing.org/xmlns http://graphml.graphdrawing.org/xmlns/1.0/graphml.xsd">` + "\n")
	b.WriteString("<desc>" + xmlText(desc) + "</desc>\n")
	for _, k := range d.keys.list {
		fmt.Fprintf(b, `<key id="%s" for="%s" attr.name="%s" attr.type="%s"`, k.id, k.ref.domain, k.attr, k.attrType())
		if k.ref.prop {
			b.WriteString("><desc>" + xmlText(k.ref.name) + "</desc></key>\n")
		} else {
			b.WriteString("/>\n")
		}
	}
	b.WriteString(`<graph id="G" edgedefault="directed">` + "\n")
}

// writeElem writes one node or edge (what) with its data.
func writeElem(b *bytes.Buffer, what string, e elem) {
	if what == "node" {
		b.WriteString(`<node id="` + e.id + `">`)
	} else {
		b.WriteString(`<edge id="` + e.id + `" source="` + e.source + `" target="` + e.target + `">`)
	}
	writeData(b, e.data)
	b.WriteString("</" + what + ">\n")
}

func writeData(b *bytes.Buffer, data []datum) {
	for _, d := range data {
		b.WriteString(`<data key="` + d.key.id + `">` + xmlText(valueText(d.value)) + "</data>")
	}
}

// valueText is a value as GraphML data: numbers in Go's shortest form
// (which Java's and Python's parsers read back exactly), booleans as
// true/false, strings as they are, anything else (a list) as JSON.
func valueText(v any) string {
	switch x := v.(type) {
	case string:
		return x
	case bool:
		return strconv.FormatBool(x)
	case int:
		return strconv.Itoa(x)
	case int64:
		return strconv.FormatInt(x, 10)
	case float64:
		return strconv.FormatFloat(x, 'g', -1, 64)
	case fmt.Stringer:
		return x.String()
	}
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return fmt.Sprint(v)
	}
	return strings.TrimSuffix(b.String(), "\n")
}

// xmlText escapes s for XML 1.0 text and attribute values: &, <, >, " and
// ' as entities; every character XML allows but textsafe.Safe refuses (tab,
// newline, CR, DEL, C1 controls, bidi and zero-width characters, U+2028...)
// as a numeric character reference, so that a reader gets it exactly and a
// terminal the file is printed to gets nothing raw; and every character XML
// 1.0 forbids outright, which no reference can carry (the C0 controls but
// tab, newline and CR; U+FFFE, U+FFFF; bytes that are not UTF-8), as the
// visible escape the text formats show (textsafe.Escape: ESC becomes the
// four characters \x1b). Those are the one loss: such a value reads back
// with the escape, not the control.
func xmlText(s string) string {
	var b strings.Builder
	for i := 0; i < len(s); {
		r, size := utf8.DecodeRuneInString(s[i:])
		switch {
		case r == '&':
			b.WriteString("&amp;")
		case r == '<':
			b.WriteString("&lt;")
		case r == '>':
			b.WriteString("&gt;")
		case r == '"':
			b.WriteString("&quot;")
		case r == '\'':
			b.WriteString("&apos;")
		case r == utf8.RuneError && size == 1, !xmlChar(r):
			b.WriteString(textsafe.Escape(s[i : i+size]))
		case !textsafe.Safe(r):
			fmt.Fprintf(&b, "&#x%X;", r)
		default:
			b.WriteString(s[i : i+size])
		}
		i += size
	}
	return b.String()
}

// xmlChar is XML 1.0's Char production.
func xmlChar(r rune) bool {
	return r == 0x9 || r == 0xA || r == 0xD || r >= 0x20 && r <= 0xD7FF || r >= 0xE000 && r <= 0xFFFD || r >= 0x10000 && r <= 0x10FFFF
}

// nmtoken is name as an XML NMTOKEN (one or more NameChars): every other
// character becomes "_", and the empty name "_".
func nmtoken(name string) string {
	var b strings.Builder
	for _, r := range name {
		if nameChar(r) {
			b.WriteRune(r)
		} else {
			b.WriteByte('_')
		}
	}
	if b.Len() == 0 {
		return "_"
	}
	return b.String()
}

// nameChar says whether r stays in an NMTOKEN: ASCII letters and digits,
// ".", "-" and "_" (NameChars under every edition of XML 1.0; others,
// non-ASCII letters included, become "_", and the <desc> keeps the name).
func nameChar(r rune) bool {
	return r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || r == '.' || r == '-' || r == '_'
}
