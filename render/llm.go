package render

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strconv"
	"strings"

	"github.com/memoria-graph/memoria/graph"
	"github.com/memoria-graph/memoria/internal/textsafe"
	"github.com/memoria-graph/memoria/retriever/activation"
)

// LLMTextWidth is the most runes of a node's text a path string quotes.
const LLMTextWidth = 80

// LLMContext is what an LLM is given (docs/EXPORTS.md, format 2): one readable
// string per path, and the same data as ToD3 for looking up attributes.
type LLMContext struct {
	Paths []string `json:"paths"`
	Graph D3Graph  `json:"graph"`
}

// ToLLMContext describes every path with at least one step, numbered from 1
// across all results in order, and attaches ToD3(results...). A path reads
//
//	Path 1: [Seed N2006] (UserRequest: "Plan…") -> [RELATES w=0.82 T=0.1016] -> (DataSource: "…")
//
// Each node shows its first label (escaped, textsafe.Escape) and NodeText
// cut to LLMTextWidth runes and quoted with strconv.Quote (the rule of
// textsafe.Escape); a node without text shows its id instead, (Event
// N2005). Ids are written with DisplayID, w and T with Num (a missing
// weight reads w=0.01(missing)).
func ToLLMContext(results ...activation.Result) LLMContext {
	c := LLMContext{Paths: []string{}, Graph: ToD3(results...)}
	for i, p := range nonEmptyPaths(results) {
		var b strings.Builder
		first := p.Steps[0].FromNode
		fmt.Fprintf(&b, "Path %d: [Seed %s] %s", i+1, DisplayID(first.ID), llmNode(first))
		for _, s := range p.Steps {
			fmt.Fprintf(&b, " -> [%s w=%s T=%s] -> %s", textsafe.Escape(edgeType(s.Edge)), weightText(s), Num(s.TransferEnergy), llmNode(s.ToNode))
		}
		c.Paths = append(c.Paths, b.String())
	}
	return c
}

// llmNode is (Label: "text"), (Label id) without text, ("text") or (id)
// without a label.
func llmNode(n graph.Node) string {
	text, ok := NodeText(n)
	label := textsafe.Escape(n.Label())
	switch {
	case ok && label != "":
		return "(" + label + ": " + strconv.Quote(Truncate(text, LLMTextWidth)) + ")"
	case ok:
		return "(" + strconv.Quote(Truncate(text, LLMTextWidth)) + ")"
	case label != "":
		return "(" + label + " " + DisplayID(n.ID) + ")"
	default:
		return "(" + DisplayID(n.ID) + ")"
	}
}

// Text is the context as one block: first a line per seed that ended in
// error ("Seed N1 FAILED (error: "…"): its paths are missing or
// incomplete."), then the path strings one per line, a line
// "Graph (D3 JSON):", then the graph as JSON indented by two spaces, ending
// with a newline. HTML characters are not escaped in the JSON.
func (c LLMContext) Text() string {
	var b bytes.Buffer
	b.WriteString(FailedSeedText("", c.Graph.FailedSeeds))
	for _, p := range c.Paths {
		b.WriteString(p)
		b.WriteByte('\n')
	}
	b.WriteString("Graph (D3 JSON):\n")
	enc := json.NewEncoder(textsafe.JSONWriter{W: &b}) // graph text \u-escaped where it could act on a terminal
	enc.SetEscapeHTML(false)
	enc.SetIndent("", "  ")
	if err := enc.Encode(c.Graph); err != nil {
		// Only a NaN or infinite number, or a property value JSON cannot
		// hold, gets here.
		fmt.Fprintf(&b, "(graph not encodable: %v)\n", err)
	}
	return b.String()
}
