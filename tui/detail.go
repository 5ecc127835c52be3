package tui

import (
	"encoding/json"
	"fmt"
	"sort"
	"strings"

	"github.com/memoria-graph/memoria/graph"
	"github.com/memoria-graph/memoria/internal/textsafe"
	"github.com/memoria-graph/memoria/render"
	"github.com/memoria-graph/memoria/retriever"
	"github.com/memoria-graph/memoria/retriever/activation"
	"github.com/memoria-graph/memoria/tui/components/detail"
	"github.com/memoria-graph/memoria/tui/components/tree"
)

// detailSubject is what the detail pane explains: a node of a result tree
// (with the step that reached it) or a losing candidate.
type detailSubject struct {
	node  graph.Node
	step  *activation.Step // nil for a seed
	seed  *retriever.Seed  // set for a seed
	loser *activation.Outcome
	end   activation.EndReason
	// nearMiss is the best hop below the threshold when the path ended
	// below it; minActivation the run's threshold.
	nearMiss      *activation.Step
	minActivation float64
	depth         int
	// The run's query tags (normalised) and tag_sim floor, for the worked
	// tag similarity.
	tags  []string
	floor float64
	// change says how the node differs from the baseline run ("" if not).
	change string
	// route are the hops from the seed to the node, the last reaching it
	// (a losing candidate's hop included; nil for a seed).
	route []activation.Step
}

// The subjects the detail pane explains (tui/components/detail): each says
// which node it is about and writes its own lines.

func (s *detailSubject) ID() string { return s.node.ID }
func (s *detailSubject) Lines(c *Common, w int, validity []string) []string {
	return detailLines(c.St, c.Names, *s, w, validity)
}

func (s *hitSubject) ID() string { return s.hit.NodeID }
func (s *hitSubject) Lines(c *Common, w int, validity []string) []string {
	return hitLines(c.St, c.Names, *s, w, validity)
}

func (s *cmpSubject) ID() string { return s.row.ID }
func (s *cmpSubject) Lines(c *Common, w int, _ []string) []string {
	return compareLines(c.St, c.Names, *s, w)
}

// detailHit is the ranking hit the detail pane explains, nil when it
// explains something else; detailCmp the compare view's row.
func (m *Model) detailHit() *hitSubject {
	h, _ := m.detail.Subject().(*hitSubject)
	return h
}

func (m *Model) detailCmp() *cmpSubject {
	c, _ := m.detail.Subject().(*cmpSubject)
	return c
}

// subjectOf is p as the detail pane's subject: nil for a nil pointer (an
// interface holding a nil pointer is not nil).
func subjectOf[T any, P interface {
	*T
	detail.Subject
}](p P) detail.Subject {
	if p == nil {
		return nil
	}
	return p
}

// detailLines builds the explanation, wrapped to width w, with the
// validity properties of each hop of the route (validityLines). Graph text
// (ids, labels, property keys and values, tags) is escaped
// (textsafe.Escape). The head names the node as names says and keeps its
// id beside the name: here the id identifies it.
func detailLines(st *Styles, names *naming, s detailSubject, w int, validity []string) []string {
	wrap := st.R.NewStyle().Width(w)
	var out []string
	add := func(l ...string) { out = append(out, l...) }
	head := nodeHead(st, names, s.node)
	switch {
	case s.seed != nil:
		head += st.Dim.Render(" · seed, R = " + render.Num(s.seed.Score))
	case s.loser != nil:
		if s.loser.Fate == activation.FateBelowThreshold {
			head += st.Dim.Render(" · near miss")
		} else {
			head += st.Dim.Render(" · lost candidate")
		}
	default:
		head += st.Dim.Render(fmt.Sprintf(" · depth %d", s.depth))
	}
	add(head)
	if s.change != "" {
		add(wrap.Render(st.Running.Render(textsafe.Escape(s.change))))
	}

	step := s.step
	if s.loser != nil {
		add("", st.Error.Render(glyphLost+" "+textsafe.Escape(tree.FateText(*s.loser, s.minActivation))))
		ls := activation.StepFromCandidate(graph.Node{ID: s.loser.Candidate.ParentID}, s.loser.Candidate)
		step = &ls
	}
	if step != nil {
		out = append(out, stepLines(st, wrap.Render, *step, s.tags, s.floor)...)
	}
	if s.end != "" {
		add(wrap.Render(st.End.Render(glyphEnd + " path ends: " + textsafe.Escape(render.EndText(s.end, s.nearMiss, s.minActivation)))))
	}
	hops := make([]routeHop, len(s.route))
	for i, step := range s.route {
		hops[i] = routeHop{from: names.NodeLead(step.FromNode), to: names.NodeLead(step.ToNode), props: step.Edge.Properties}
	}
	out = append(out, validityLines(st, wrap.Render, validity, hops)...)
	return append(out, propertyLines(st, wrap.Render, s.node)...)
}

// routeHop is one relationship of a node's route, for validityLines: its
// ends as the pane names them and its properties.
type routeHop struct {
	from, to string
	props    map[string]any
}

// validityLines says when each relationship of a node's route held: a
// hop's ends, then a labelled line per validity property (Graphiti's
// valid_at and invalid_at, graph.Schema's ValidAt and InvalidAt) with its
// value, "not set" without one. None when the mapping has no such
// property or the route no hop. Keys and values are escaped.
func validityLines(st *Styles, wrap func(...string) string, keys []string, hops []routeHop) []string {
	if len(keys) == 0 || len(hops) == 0 {
		return nil
	}
	title := "When the facts on its route held"
	if len(hops) == 1 {
		title = "When the fact that reached it held"
	}
	out := []string{"", st.Title.Render(title)}
	for _, h := range hops {
		out = append(out, wrap(textsafe.Escape(h.from)+" → "+textsafe.Escape(h.to)))
		for _, k := range keys {
			v, ok := h.props[k]
			text := st.Dim.Render("not set")
			if ok && v != nil {
				text = textsafe.Escape(propText(v))
			}
			out = append(out, wrap("  "+st.Key.Render(textsafe.Escape(k)+": ")+text))
		}
	}
	return out
}

// mappingNote describes mapping sc (graph.Schema's Describe), "" for
// memoria's own shape and for the zero value, which stands for it.
func mappingNote(sc graph.Schema) string {
	if sc.IDProperty == "" || sc.IsDefault() {
		return ""
	}
	return sc.Describe()
}

// validityKeys are the validity properties of mapping sc (the detail pane's
// validity), nil when it has none.
func validityKeys(sc graph.Schema) []string {
	var keys []string
	for _, k := range []string{sc.ValidAt, sc.InvalidAt} {
		if k != "" {
			keys = append(keys, k)
		}
	}
	return keys
}

// propertyLines lists a node's properties (vectors and embeddings hidden),
// keys and values escaped.
func propertyLines(st *Styles, wrap func(...string) string, n graph.Node) []string {
	out := []string{"", st.Title.Render("Properties")}
	props := render.DisplayProperties(n.Properties)
	keys := make([]string, 0, len(props))
	for k := range props {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		out = append(out, wrap(st.Key.Render(textsafe.Escape(k)+": ")+textsafe.Escape(propText(props[k]))))
	}
	if hidden := len(n.Properties) - len(props); hidden > 0 {
		out = append(out, st.Dim.Render(fmt.Sprintf("(%d vector/embedding %s hidden)", hidden, pluralWord(hidden, "property", "properties"))))
	}
	return out
}

// nodeHead names a node as names says, its id beside a name that is not
// the id, then its label; all escaped.
func nodeHead(st *Styles, names *naming, n graph.Node) string {
	head := st.ID.Render(textsafe.Escape(n.ID))
	if lead := names.NodeLead(n); lead != n.ID {
		head = st.ID.Render(textsafe.Escape(lead)) + st.Dim.Render(" (id "+textsafe.Escape(n.ID)+")")
	}
	if l := n.Label(); l != "" {
		head += " " + st.Label.Render(textsafe.Escape(l))
	}
	return head
}

// stepLines works out the hop that reached the node: T in numbers, tag_sim
// with E∩Q and E∪Q, then the edge.
func stepLines(st *Styles, wrap func(...string) string, step activation.Step, tags []string, floor float64) []string {
	var out []string
	add := func(l ...string) { out = append(out, l...) }
	e := step.Edge
	add(wrap(st.Metric.Render(render.EnergyFormula(step))))
	add(wrap(st.Dim.Render(fmt.Sprintf("R = %s (activation of %s), d = %d edges", render.Num(step.Activation), textsafe.Escape(step.FromNode.ID), step.Degree))))
	add(tagSimLines(st, wrap, e.Tags, tags, floor, step.TagSim)...)
	add(wrap(st.Key.Render("edge: ") + textsafe.Escape(step.FromNode.ID) + " → " + textsafe.Escape(step.ToNode.ID) + ", weight " + weightText(e)))
	if len(e.Tags) > 0 {
		add(wrap(st.Key.Render("edge tags: ") + textsafe.Escape(strings.Join(e.Tags, ", "))))
	}
	return out
}

// tagSimLines works out tag_sim: the formula and E∩Q, E∪Q.
func tagSimLines(st *Styles, wrap func(...string) string, edgeTags, queryTags []string, floor, tagSim float64) []string {
	switch {
	case len(queryTags) == 0:
		return []string{st.Dim.Render("tag_sim = 1 (no query tags)")}
	case len(edgeTags) == 0:
		return []string{st.Dim.Render("tag_sim = floor = " + render.Num(floor) + " (edge has no tags)")}
	}
	inter, union := render.TagBreakdown(edgeTags, queryTags)
	return []string{
		wrap(st.Metric.Render(fmt.Sprintf("tag_sim = %s + (1 − %s) × %d/%d = %s",
			render.Num(floor), render.Num(floor), len(inter), len(union), render.Num(tagSim)))),
		wrap(st.Key.Render(fmt.Sprintf("E∩Q (%d): ", len(inter))) + textsafe.Escape(strings.Join(inter, ", "))),
		wrap(st.Key.Render(fmt.Sprintf("E∪Q (%d): ", len(union))) + textsafe.Escape(strings.Join(union, ", "))),
	}
}

func weightText(e graph.Edge) string {
	if e.Weight == nil {
		return fmt.Sprintf("%s (missing, default)", render.Num(activation.MissingWeight))
	}
	return render.Num(*e.Weight)
}

// propText writes a property value on one logical line.
func propText(v any) string {
	switch v := v.(type) {
	case string:
		return v
	case nil:
		return "null"
	case fmt.Stringer:
		return v.String()
	}
	if b, err := json.Marshal(v); err == nil {
		return string(b)
	}
	return fmt.Sprint(v)
}

func pluralWord(n int, one, many string) string {
	if n == 1 {
		return one
	}
	return many
}
