package common

import (
	"fmt"

	"github.com/memoria-graph/memoria/graph"
	"github.com/memoria-graph/memoria/internal/textsafe"
)

// Naming nodes: which property names a node in every pane (the node list,
// the seeds in it, the result tree and the detail pane). By default a node
// is named by its `name`, else its `title`, else its id; NameBy cycles
// through the string properties the graph's nodes have (Catalog.NameKeys),
// then the id, then back to that default.
//
// A node named by its `text` (the default falls back to it before the id,
// and a user may choose it) keeps its id in front: the text follows in
// every row anyway, cut to the row, and is no name to tell nodes apart by.
// So on a graph whose nodes have only an id and a text (the demo graph)
// the rows are `id label  text` as before, and on a lexical graph (ids like
// n02084071, a `name` each) they are `dog Synset  a member of the genus…`.
// The detail pane always shows the id beside the name.

// autoName is naming's key for the default order.
const autoName = ""

// defaultNameKeys is the default order (then the text, then the id).
var defaultNameKeys = []string{"name", "title"}

// Naming is the choice, shared by the panes (one pointer).
type Naming struct {
	key  string   // autoName, "id", or a property key
	keys []string // the choices NameBy cycles through after autoName
}

// SetKeys takes the catalog's keys: every string property but the text
// (which follows the name anyway), then the id.
func (nm *Naming) SetKeys(keys []string) {
	nm.keys = nm.keys[:0]
	for _, k := range keys {
		if k != "text" && k != "id" {
			nm.keys = append(nm.keys, k)
		}
	}
	nm.keys = append(nm.keys, "id")
}

// Next moves to the next choice and says which it is, for the status line.
func (nm *Naming) Next() string {
	choices := append([]string{autoName}, nm.keys...)
	if len(nm.keys) == 0 {
		choices = append(choices, "id")
	}
	i := 0
	for j, k := range choices {
		if k == nm.key {
			i = j
		}
	}
	nm.key = choices[(i+1)%len(choices)]
	return "nodes named by " + nm.Describe()
}

// Describe names the choice (escaped: a property key is graph text).
func (nm *Naming) Describe() string {
	switch nm.key {
	case autoName:
		return "name, else title, else id (the default)"
	case "id":
		return "id"
	}
	return fmt.Sprintf("%s, else id", textsafe.Quote(nm.key))
}

// Lead is what a row shows first for the node id with properties get (a
// getter over a property map or a summary's short strings): the chosen
// name, or the id when the choice gives none or gives the text. The
// caller escapes it (textsafe), as every graph text.
func (nm *Naming) Lead(id string, get func(string) (string, bool)) string {
	if nm == nil {
		return id
	}
	keys := defaultNameKeys
	switch nm.key {
	case autoName:
	case "id", "text":
		return id
	default:
		keys = []string{nm.key}
	}
	for _, k := range keys {
		if v, ok := get(k); ok && v != "" {
			return nameLine(v)
		}
	}
	return id
}

// NodeLead is Lead over a node's properties (string values only).
func (nm *Naming) NodeLead(n graph.Node) string {
	return nm.Lead(n.ID, func(k string) (string, bool) {
		s, ok := n.Properties[k].(string)
		return s, ok
	})
}

// SummaryLead is Lead over a node summary's short strings.
func (nm *Naming) SummaryLead(n graph.NodeSummary) string {
	return nm.Lead(n.ID, func(k string) (string, bool) {
		s, ok := n.Props[k]
		return s, ok
	})
}

// nameLine collapses a name's whitespace runs (newlines included) to one
// space and cuts it to nameWidth runes.
func nameLine(s string) string {
	out := make([]rune, 0, len(s))
	space := false
	for _, r := range s {
		if r == ' ' || r == '\t' || r == '\n' || r == '\r' {
			space = len(out) > 0
			continue
		}
		if space {
			out = append(out, ' ')
			space = false
		}
		out = append(out, r)
		if len(out) >= nameWidth {
			return string(out) + "…"
		}
	}
	return string(out)
}

// nameWidth is the most runes of a name in a row (ShortProp allows more).
const nameWidth = 60
