package render

import (
	"cmp"
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/memoria-graph/memoria/graph"
	"github.com/memoria-graph/memoria/internal/textsafe"
	"github.com/memoria-graph/memoria/retriever/activation"
)

// DefaultTreeTextWidth is TreeOptions.TextWidth's default.
const DefaultTreeTextWidth = 40

// TreeOptions tunes Tree.
type TreeOptions struct {
	// TextWidth is the most runes of a node's text shown; 0 means
	// DefaultTreeTextWidth.
	TextWidth int
	// MinActivation, when positive, is the threshold of the run: a path
	// that ended below it says how close its best near miss came.
	MinActivation float64
}

// EndReasonText is how Tree words a path's end reason; an unknown reason is
// shown as is.
func EndReasonText(reason activation.EndReason) string {
	switch reason {
	case activation.EndNoCandidates:
		return "nothing above threshold or all visited"
	case activation.EndAllClaimed:
		return "lost to other parents"
	case activation.EndMaxDepth:
		return "max depth"
	case activation.EndBelowThreshold:
		return "below threshold"
	case activation.EndAllVisited:
		return "all neighbours visited"
	}
	return string(reason)
}

// ShareOf says how close an energy at or below the threshold came to it,
// in whole percent for people: "48% of 0.005"; "<1%" when it rounds to
// nothing, and "99%" rather than a rounded "100%" for one still below.
func ShareOf(t, minActivation float64) string {
	pct := fmt.Sprintf("%.0f%%", 100*t/minActivation)
	switch {
	case pct == "0%":
		pct = "<1%"
	case pct == "100%" && t < minActivation:
		pct = "99%"
	}
	return pct + " of " + Num(minActivation)
}

// EndText is a path's end in words: EndReasonText, and for a path that
// ended below the threshold its best near miss and how close it came,
// "below threshold: best N2007 T=0.002402, 48% of 0.005" (the percentage
// only when minActivation is known, i.e. positive).
func EndText(reason activation.EndReason, nearMiss *activation.Step, minActivation float64) string {
	text := EndReasonText(reason)
	if reason != activation.EndBelowThreshold || nearMiss == nil {
		return text
	}
	text += ": best " + DisplayID(nearMiss.ToNode.ID) + " T=" + Num(nearMiss.TransferEnergy)
	if minActivation > 0 {
		text += ", " + ShareOf(nearMiss.TransferEnergy, minActivation)
	}
	return text
}

type treeNode struct {
	node     graph.Node
	step     *activation.Step     // nil at the root
	end      activation.EndReason // end reason of the first path ending here
	nearMiss *activation.Step     // and its near miss
	children []*treeNode
	byID     map[string]*treeNode
}

func (t *treeNode) child(s activation.Step) *treeNode {
	if c, ok := t.byID[s.ToNode.ID]; ok {
		return c
	}
	c := &treeNode{node: s.ToNode, step: &s, byID: map[string]*treeNode{}}
	t.byID[s.ToNode.ID] = c
	t.children = append(t.children, c)
	return c
}

// Tree draws res as a plain-text tree rooted at the seed, rebuilt by merging
// the paths on shared prefixes; siblings are ordered by transfer energy
// descending, then id. For example:
//
//	seed N2006 R=0.85: 3 paths, max depth 3, frontier_exhausted
//	N2006 (UserRequest) R=0.85 "Why did we…"
//	├── N2003 (DataSource) T=0.1016 w=0.82 tag_sim=0.2917 d=4 "Inventory…"
//	│   └── N2001 (AgentAnswer) T=0.0263 w=0.9 tag_sim=0.575 d=4  [end: max depth]
//	└── N2005 (Event) T=0.03188 w=0.5 tag_sim=0.15 d=4  [end: nothing above threshold or all visited]
//
// The header counts the paths with steps and gives MaxDepthReached and the
// termination reason; a result with an Error adds a line "error: ...". A
// line ends with "  [end: ...]" (EndReasonText) where a path ended. d is the
// parent's degree; T, w and tag_sim are written with Num. Text is NodeText
// cut to TextWidth runes and quoted with strconv.Quote (the rule of
// textsafe.Escape); ids are written with DisplayID; labels and the error are
// escaped with textsafe.Escape. Without a seed node (seed not found) only
// the header lines are drawn. The result ends with a newline.
func Tree(res activation.Result, opt TreeOptions) string {
	width := opt.TextWidth
	if width == 0 {
		width = DefaultTreeTextWidth
	}
	paths := nonEmptyPaths([]activation.Result{res})

	var b strings.Builder
	noun := "paths"
	if len(paths) == 1 {
		noun = "path"
	}
	fmt.Fprintf(&b, "seed %s R=%s: %d %s, max depth %d", DisplayID(res.Seed.NodeID), Num(res.Seed.Score), len(paths), noun, res.MaxDepthReached)
	if res.TerminatedReason != "" {
		b.WriteString(", " + string(res.TerminatedReason))
	}
	b.WriteByte('\n')
	if res.Error != "" {
		b.WriteString("error: " + textsafe.Escape(strings.Join(strings.Fields(res.Error), " ")) + "\n")
	}

	var rootNode graph.Node
	switch {
	case res.SeedNode != nil:
		rootNode = *res.SeedNode
	case len(paths) > 0:
		rootNode = paths[0].Steps[0].FromNode
	default:
		return b.String()
	}
	root := &treeNode{node: rootNode, byID: map[string]*treeNode{}}
	for _, p := range paths {
		t := root
		for _, s := range p.Steps {
			t = t.child(s)
		}
		if t.end == "" {
			t.end, t.nearMiss = p.EndReason, p.NearMiss
		}
	}

	b.WriteString(DisplayID(rootNode.ID) + labelPart(rootNode) + " R=" + Num(res.Seed.Score) + textPart(rootNode, width) + "\n")
	var walk func(t *treeNode, indent string)
	walk = func(t *treeNode, indent string) {
		slices.SortStableFunc(t.children, func(a, c *treeNode) int {
			if r := cmp.Compare(c.step.TransferEnergy, a.step.TransferEnergy); r != 0 {
				return r
			}
			return cmp.Compare(a.node.ID, c.node.ID)
		})
		for i, c := range t.children {
			branch, next := "├── ", "│   "
			if i == len(t.children)-1 {
				branch, next = "└── ", "    "
			}
			s := c.step
			fmt.Fprintf(&b, "%s%s%s%s T=%s w=%s tag_sim=%s d=%d%s", indent, branch, DisplayID(c.node.ID), labelPart(c.node),
				Num(s.TransferEnergy), weightText(*s), Num(s.TagSim), s.Degree, textPart(c.node, width))
			if c.end != "" {
				b.WriteString("  [end: " + EndText(c.end, c.nearMiss, opt.MinActivation) + "]")
			}
			b.WriteByte('\n')
			walk(c, indent+next)
		}
	}
	walk(root, "")
	return b.String()
}

// labelPart is " (Label)", or "" for a node without labels; the label is
// escaped (textsafe.Escape).
func labelPart(n graph.Node) string {
	if l := n.Label(); l != "" {
		return " (" + textsafe.Escape(l) + ")"
	}
	return ""
}

// textPart is ` "text…"`, or "" for a node without text.
func textPart(n graph.Node, width int) string {
	if t, ok := NodeText(n); ok {
		return " " + strconv.Quote(Truncate(t, width))
	}
	return ""
}
