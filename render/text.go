package render

import (
	"strings"
	"unicode/utf8"

	"github.com/memoria-graph/memoria/graph"
	"github.com/memoria-graph/memoria/internal/textsafe"
	"github.com/memoria-graph/memoria/retriever/activation"
)

// textKeys are the properties tried, in order, for a node's display text.
var textKeys = []string{"text", "title", "description", "name"}

// NodeText returns a node's display text: its `text` property, else `title`,
// else `description`, else `name` (the first that is a non-blank string),
// with runs of white space collapsed to one space. ok is false when the node
// has none of them.
func NodeText(n graph.Node) (text string, ok bool) {
	for _, k := range textKeys {
		if s, isStr := n.Properties[k].(string); isStr {
			if s = strings.Join(strings.Fields(s), " "); s != "" {
				return s, true
			}
		}
	}
	return "", false
}

// Truncate shortens s to at most width runes: when s is longer it keeps the
// first width-1 runes, drops the spaces they end with, and appends "…". A
// width below 1 leaves s alone.
func Truncate(s string, width int) string {
	if width < 1 || utf8.RuneCountInString(s) <= width {
		return s
	}
	runes := []rune(s)
	return strings.TrimRight(string(runes[:width-1]), " ") + "…"
}

// DisplayID returns id as written in the text formats and the explorer
// (textsafe.DisplayID: quoted unless it is plain).
func DisplayID(id string) string { return textsafe.DisplayID(id) }

// edgeType is the edge's type, RELATES when it has none.
func edgeType(e graph.Edge) string {
	if e.Type == "" {
		return graph.Relates
	}
	return e.Type
}

// weightText is the weight (Num), marked when the edge has none: "0.82",
// "0.01(missing)".
func weightText(st activation.Step) string {
	s := Num(st.Weight)
	if st.Edge.Weight == nil {
		s += "(missing)"
	}
	return s
}

// nonEmptyPaths returns the paths with at least one step: the ones every
// numbered exporter lists.
func nonEmptyPaths(results []activation.Result) []activation.Path {
	var out []activation.Path
	for _, r := range results {
		for _, p := range r.Paths {
			if len(p.Steps) > 0 {
				out = append(out, p)
			}
		}
	}
	return out
}
