package apoc

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"slices"
	"unicode/utf16"
	"unicode/utf8"

	"github.com/memoria-graph/memoria/internal/textsafe"
)

// Write writes g in APOC's JSON-lines form, which Parse reads back into an
// equal graph: the nodes, then the relationships, in g's order, one per
// line. Keys come in APOC's order (type, id, labels or label, properties,
// start, end), property keys sorted; internal ids are written as strings;
// empty labels and properties are left out, as APOC does. Floats are always
// written with a '.' or an exponent (1.0, not 1) so they stay floats, and
// integers without, so they stay integers. Properties whose value is nil
// are left out (Neo4j has no null properties). Write fails on a
// relationship whose endpoint is not among the nodes and on values JSON or
// Neo4j cannot hold (maps, NaN, infinities, nested lists).
func Write(w io.Writer, g *Graph) error {
	if g == nil {
		return errors.New("apoc: no graph to write")
	}
	labels := make(map[string][]string, len(g.Nodes))
	for i := range g.Nodes {
		labels[g.Nodes[i].InternalID] = g.Nodes[i].Labels
	}
	bw := bufio.NewWriterSize(w, 1<<16)
	var b []byte
	var err error
	for i := range g.Nodes {
		n := &g.Nodes[i]
		b = append(b[:0], `{"type":"node","id":`...)
		b = appendString(b, n.InternalID)
		if len(n.Labels) > 0 {
			b = append(b, `,"labels":`...)
			b = appendLabels(b, n.Labels)
		}
		if b, err = appendProps(b, n.Properties); err != nil {
			return fmt.Errorf("node %s: %w", showID(n.InternalID), err)
		}
		b = append(b, "}\n"...)
		if _, err := bw.Write(b); err != nil {
			return err
		}
	}
	for i := range g.Rels {
		r := &g.Rels[i]
		sl, ok := labels[r.Start]
		if !ok {
			return fmt.Errorf("relationship %s starts at unknown node %s", showID(r.InternalID), showID(r.Start))
		}
		el, ok := labels[r.End]
		if !ok {
			return fmt.Errorf("relationship %s ends at unknown node %s", showID(r.InternalID), showID(r.End))
		}
		b = append(b[:0], `{"type":"relationship","id":`...)
		b = appendString(b, r.InternalID)
		b = append(b, `,"label":`...)
		b = appendString(b, r.Type)
		if b, err = appendProps(b, r.Properties); err != nil {
			return fmt.Errorf("relationship %s: %w", showID(r.InternalID), err)
		}
		b = append(b, `,"start":`...)
		b = appendEndpoint(b, r.Start, sl)
		b = append(b, `,"end":`...)
		b = appendEndpoint(b, r.End, el)
		b = append(b, "}\n"...)
		if _, err := bw.Write(b); err != nil {
			return err
		}
	}
	return bw.Flush()
}

func appendEndpoint(b []byte, id string, labels []string) []byte {
	b = append(b, `{"id":`...)
	b = appendString(b, id)
	if len(labels) > 0 {
		b = append(b, `,"labels":`...)
		b = appendLabels(b, labels)
	}
	return append(b, '}')
}

func appendLabels(b []byte, labels []string) []byte {
	b = append(b, '[')
	for i, l := range labels {
		if i > 0 {
			b = append(b, ',')
		}
		b = appendString(b, l)
	}
	return append(b, ']')
}

func appendProps(b []byte, props map[string]any) ([]byte, error) {
	keys := make([]string, 0, len(props))
	for k, v := range props {
		if v != nil {
			keys = append(keys, k)
		}
	}
	if len(keys) == 0 {
		return b, nil
	}
	slices.Sort(keys)
	b = append(b, `,"properties":{`...)
	for i, k := range keys {
		if i > 0 {
			b = append(b, ',')
		}
		b = appendString(b, k)
		b = append(b, ':')
		var err error
		if b, err = jsonFormat.appendValue(b, props[k]); err != nil {
			return b, fmt.Errorf("property %q: %w", k, err)
		}
	}
	return append(b, '}'), nil
}

const hexDigits = "0123456789abcdef"

// appendString writes s as a JSON string; invalid UTF-8 becomes U+FFFD.
func appendString(b []byte, s string) []byte {
	b = append(b, '"')
	start := 0
	for i := 0; i < len(s); {
		c := s[i]
		if c < utf8.RuneSelf {
			if c >= 0x20 && c != '"' && c != '\\' && c != 0x7f {
				i++
				continue
			}
			b = append(b, s[start:i]...)
			switch c {
			case '"', '\\':
				b = append(b, '\\', c)
			case '\n':
				b = append(b, '\\', 'n')
			case '\r':
				b = append(b, '\\', 'r')
			case '\t':
				b = append(b, '\\', 't')
			default:
				b = append(b, '\\', 'u', '0', '0', hexDigits[c>>4], hexDigits[c&0xF])
			}
			i++
			start = i
			continue
		}
		r, size := utf8.DecodeRuneInString(s[i:])
		if r == utf8.RuneError && size == 1 {
			b = append(b, s[start:i]...)
			b = append(b, `\ufffd`...)
			i++
			start = i
			continue
		}
		if !textsafe.Safe(r) {
			// A bidi override, a zero-width or C1 control: the same JSON as
			// a \u escape, and nothing that acts on a terminal the file is
			// printed to (internal/textsafe).
			b = append(b, s[start:i]...)
			b = appendUEscape(b, r)
			i += size
			start = i
			continue
		}
		i += size
	}
	b = append(b, s[start:]...)
	return append(b, '"')
}

// appendUEscape writes r as a JSON \u escape, a surrogate pair above U+FFFF.
func appendUEscape(b []byte, r rune) []byte {
	if r > 0xFFFF {
		r1, r2 := utf16.EncodeRune(r)
		return appendUEscape(appendUEscape(b, r1), r2)
	}
	return append(b, '\\', 'u', hexDigits[r>>12&0xF], hexDigits[r>>8&0xF], hexDigits[r>>4&0xF], hexDigits[r&0xF])
}
