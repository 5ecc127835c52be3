package render

import (
	"fmt"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/memoria-graph/memoria/graph"
	"github.com/memoria-graph/memoria/internal/textsafe"
	"github.com/memoria-graph/memoria/retriever"
	"github.com/memoria-graph/memoria/retriever/overlap"
)

// CompareJSON is `memoria compare --format json`: one object and a newline,
// {"rankings": [...], "nodes": [...], "overlap": [...], "only": {...}}, each
// ranking as `--format ranking` writes it and the rest as overlap.Result
// writes it; graph text \u-escaped where it could act on a terminal
// (textsafe.JSONWriter), HTML characters left alone. A ranking holding a
// number that is not finite is refused, as RankingJSON refuses it.
func CompareJSON(rankings []retriever.Ranking, res overlap.Result) ([]byte, error) {
	if rankings == nil {
		rankings = []retriever.Ranking{}
	}
	for _, r := range rankings {
		if err := r.CheckFinite(); err != nil {
			return nil, err
		}
	}
	out := struct {
		Rankings []retriever.Ranking `json:"rankings"`
		overlap.Result
	}{rankings, res}
	return jsonLine(out)
}

// CompareText is the comparison as two text tables: a row per node of the
// union (in its order, overlap.Compare) with the node's rank under each
// retriever, "—" where the retriever's top K lacks it, and "*" before a
// node only one retriever found; then a row per pair with its Jaccard@K
// and RBO (Num):
//
//	top 3 of 3 rankings: 5 nodes, 2 found by one retriever only (*)
//	  activation  expansion  ppr  node
//	           1          2    1    A (Memory) "memory a"
//	           2          1    —    B (Memory) "memory b"
//	           —          —    2  * G (Memory) "memory g"
//	           3          —    3    Z (Memory) "memory z"
//	           —          3    —  * F (Memory) "memory f"
//	a           b          jaccard@3  rbo (p=0.9)
//	activation  expansion  0.5        0.63
//	activation  ppr        0.5        0.685
//	expansion   ppr        0.2        0.315
//
// The node column comes last, so that no id or text has to be padded. A
// node's labels and text are those of its first hit in rankings (nil
// rankings: ids alone). Ids are written with DisplayID, retriever names and
// labels escaped, texts cut and quoted as the tree does.
func CompareText(res overlap.Result, rankings []retriever.Ranking) string {
	var b strings.Builder
	cut := "all hits"
	jaccard := "jaccard"
	if res.K > 0 {
		cut = "top " + strconv.Itoa(res.K)
		jaccard += "@" + strconv.Itoa(res.K)
	}
	only := 0
	for _, n := range res.Nodes {
		if _, ok := n.OnlyIn(); ok {
			only++
		}
	}
	fmt.Fprintf(&b, "%s of %d rankings: %d nodes, %d found by one retriever only (*)\n", cut, len(res.Names), len(res.Nodes), only)
	names := make([]string, len(res.Names))
	for i, n := range res.Names {
		names[i] = textsafe.Escape(n)
	}
	widths := make([]int, len(names)) // each rank column's: its name's or its widest rank's
	for i, n := range names {
		widths[i] = width(n)
	}
	for _, n := range res.Nodes {
		for i, r := range n.Ranks {
			widths[i] = max(widths[i], width(rankCell(r.Rank)))
		}
	}
	nodes := firstNodes(rankings)
	for i, n := range names {
		b.WriteString("  " + padLeft(n, widths[i]))
	}
	b.WriteString("  node\n")
	for _, n := range res.Nodes {
		for i, r := range n.Ranks {
			b.WriteString("  " + padLeft(rankCell(r.Rank), widths[i]))
		}
		mark := " "
		if _, ok := n.OnlyIn(); ok {
			mark = "*"
		}
		b.WriteString("  " + mark + " " + DisplayID(n.NodeID))
		if node, ok := nodes[n.NodeID]; ok {
			b.WriteString(labelPart(node) + textPart(node, DefaultTreeTextWidth))
		}
		b.WriteString("\n")
	}
	if len(res.Pairs) == 0 {
		return b.String()
	}
	aw, bw := width("a"), width("b")
	for _, p := range res.Pairs {
		aw, bw = max(aw, width(textsafe.Escape(p.A))), max(bw, width(textsafe.Escape(p.B)))
	}
	jw := width(jaccard)
	fmt.Fprintf(&b, "%s  %s  %s  rbo (p=%s)\n", padRight("a", aw), padRight("b", bw), padRight(jaccard, jw), Num(overlap.P))
	for _, p := range res.Pairs {
		fmt.Fprintf(&b, "%s  %s  %s  %s\n", padRight(textsafe.Escape(p.A), aw), padRight(textsafe.Escape(p.B), bw), padRight(Num(p.Jaccard), jw), Num(p.RBO))
	}
	return b.String()
}

// rankCell is a rank as CompareText's table shows it: "—" for none.
func rankCell(rank int) string {
	if rank == 0 {
		return "—"
	}
	return strconv.Itoa(rank)
}

// firstNodes is each node id's node as its first hit in rankings has it.
func firstNodes(rankings []retriever.Ranking) map[string]graph.Node {
	out := map[string]graph.Node{}
	for _, r := range rankings {
		for _, h := range r.Hits {
			if _, ok := out[h.NodeID]; !ok {
				out[h.NodeID] = h.Node
			}
		}
	}
	return out
}

// width is how many runes s has: the columns of an escaped name (escapes
// are ASCII; a wide rune would count one).
func width(s string) int { return utf8.RuneCountInString(s) }

func padLeft(s string, w int) string  { return strings.Repeat(" ", max(0, w-width(s))) + s }
func padRight(s string, w int) string { return s + strings.Repeat(" ", max(0, w-width(s))) }
