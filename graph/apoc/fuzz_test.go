package apoc_test

import (
	"bytes"
	"errors"
	"reflect"
	"strings"
	"testing"

	"github.com/memoria-graph/memoria/graph/apoc"
	"github.com/memoria-graph/memoria/graph/inmem"
	"github.com/memoria-graph/memoria/graph/neo4jload"
)

// FuzzParse (make fuzz) holds the checker of docs/EXPORTS.md "The APOC
// file" to what it promises, on any input:
//
//   - Parse never panics, and returns a graph or an error, never both;
//   - whatever it refuses, every problem comes with its line (between 1
//     and the number of lines) and the memory engine (inmem.Load, what
//     explore --graph reads with) refuses it with the same error; a syntax
//     error the decoder met is always found again (see malformed);
//   - whatever it accepts the memory engine loads, with the same report;
//     the same graph checked in Go (apoc.Check, FileRules) passes; the
//     loader builds its statements for it (neo4jload.Prepare, the check
//     and statement building of memoria load, no server needed); and it
//     survives Write then Parse unchanged.
func FuzzParse(f *testing.F) {
	const (
		nodeA = `{"type":"node","id":"0","labels":["UserRequest"],"properties":{"id":"N2006","text":"Why did stock run out?"}}`
		nodeB = `{"type":"node","id":"5","labels":["DataSource"],"properties":{"id":"N2003"}}`
		relAB = `{"type":"relationship","id":"0","label":"RELATES","properties":{"weight":0.82,"tags":["a","b"]},"start":{"id":"0","labels":["UserRequest"]},"end":{"id":"5","labels":["DataSource"]}}`
	)
	lines := func(ls ...string) string { return strings.Join(ls, "\n") + "\n" }
	for _, s := range []string{
		lines(nodeA, nodeB, relAB),
		lines(relAB, nodeB, nodeA),
		lines(`{"type":"node","id":1,"properties":{"id":"n","f":1.0,"i":-3,"l":[1,2.5e-3],"b":[true],"s":"\u00e9\ud83d\ude00\\"}}`),
		lines(`{"type":"node","id":"x","properties":{"id":"x"}}`, `{"type":"relationship","id":"r","label":"T","properties":{"weight":"w"},"start":{"id":"x"},"end":{"id":"x"}}`),
		"\n\n{}\n",
		"",
		`{"type":"node","id":"1","properties":{"id":"a"}}` + "\r\n" + `{"type":"node","id":"2","properties":{"id":"a"}}`,
		lines(`{"type":"node","id":"0","properties":{"weight":1e400,"m":{"a":[null]}}}`),
		// The rules on names, strings and numbers.
		lines(`{"type":"node","id":"0","labels":["","A\u0000"],"properties":{"id":"","":1}}`, `{"type":"node","id":"1"}`),
		lines(nodeA, `{"type":"relationship","id":"1","label":"R\u0000","properties":{"weight":1e308,"tags":["\udc00"]},"start":{"id":"0"},"end":{"id":"0"}}`),
		lines(nodeA, `{"type":"relationship","id":"1","label":"RELATES","properties":{"weight":1.5},"start":{"id":"0"},"end":{"id":"0"}}`),
		lines(`{"type":"node","id":"0","properties":{"id":"a` + "\xff\xc3" + `","x":"\ud83d"}}`),
		// Malformed lines, for the check that malformed finds every
		// syntax error the decoder meets.
		lines(`{"type":"node","id":"7","properties":{"s":"\q\u12x","n":-01,"l":[tru,1e+ "a"]}}`, `{"id" 1,,}`),
		lines(`{"p":"`+strings.Repeat("[", 520)+`","x":{"y":[1 2]}}`, "{\"s\":\"\t\r\"]\r"),
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		g, rep, err := apoc.ParseReport(bytes.NewReader(data), apoc.FileRules)
		m, memErr := inmem.Load(bytes.NewReader(data), "fuzz")
		if err != nil {
			if g != nil {
				t.Fatal("graph and error")
			}
			if strings.Contains(err.Error(), apoc.DisagreeMark) {
				t.Fatalf("checker disagrees with the decoder: %v", err)
			}
			lineCount := bytes.Count(data, []byte{'\n'}) + 1
			for _, e := range unwrapAll(err) {
				var pe *apoc.ParseError
				if !errors.Is(e, apoc.ErrTooManyErrors) && (!errors.As(e, &pe) || pe.Line < 1 || pe.Line > lineCount) {
					t.Fatalf("a problem without its line (of %d): %q in %v", lineCount, e, err)
				}
			}
			if memErr == nil || memErr.Error() != err.Error() {
				t.Fatalf("the memory engine's verdict differs:\n%v\nParse:\n%v", memErr, err)
			}
			return
		}
		if memErr != nil {
			t.Fatalf("Parse accepts what the memory engine refuses: %v", memErr)
		}
		if !reflect.DeepEqual(m.Report(), rep) {
			t.Fatalf("reports differ: %+v and %+v", m.Report(), rep)
		}
		if _, err := apoc.Check(g, apoc.FileRules); err != nil {
			t.Fatalf("Check refuses what Parse accepts: %v", err)
		}
		if _, err := neo4jload.Prepare(g, 2); err != nil {
			t.Fatalf("the loader refuses what Parse accepts: %v", err)
		}
		var buf bytes.Buffer
		if err := apoc.Write(&buf, g); err != nil {
			t.Fatalf("Write: %v", err)
		}
		g2, err := apoc.Parse(bytes.NewReader(buf.Bytes()))
		if err != nil {
			t.Fatalf("Parse(Write(g)): %v\n%s", err, buf.String())
		}
		if !reflect.DeepEqual(g, g2) {
			t.Fatalf("round trip differs:\n%#v\n%#v\n%s", g, g2, buf.String())
		}
	})
}

// unwrapAll lists the errors errors.Join joined (err itself otherwise).
func unwrapAll(err error) []error {
	if j, ok := err.(interface{ Unwrap() []error }); ok {
		return j.Unwrap()
	}
	return []error{err}
}
