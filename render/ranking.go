package render

import (
	"encoding/json"
	"fmt"
	"strconv"
	"strings"

	"github.com/memoria-graph/memoria/graph"
	"github.com/memoria-graph/memoria/internal/textsafe"
	"github.com/memoria-graph/memoria/retriever"
)

// RankingJSON is `--format ranking`: the ranking as one JSON object and a
// newline, graph text \u-escaped where it could act on a terminal
// (textsafe.JSONWriter) and HTML characters left alone. A ranking holding
// a number that is not finite, which JSON cannot hold, is refused with
// the error naming it (retriever.Ranking.CheckFinite).
func RankingJSON(r retriever.Ranking) ([]byte, error) {
	if err := r.CheckFinite(); err != nil {
		return nil, err
	}
	return jsonLine(r)
}

// jsonLine is v as one JSON value and a newline, graph text \u-escaped
// where it could act on a terminal (textsafe.JSONWriter) and HTML
// characters left alone.
func jsonLine(v any) ([]byte, error) {
	var b strings.Builder
	enc := json.NewEncoder(textsafe.JSONWriter{W: &b})
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return nil, err
	}
	return []byte(b.String()), nil
}

// FieldsText writes fields as `name=value` pairs separated by spaces, a
// nested Fields in braces, numbers with Num; names are escaped
// (textsafe.Escape).
func FieldsText(f retriever.Fields) string {
	parts := make([]string, len(f))
	for i, x := range f {
		parts[i] = textsafe.Escape(x.Name) + "=" + FieldValue(x.Value)
	}
	return strings.Join(parts, " ")
}

// FieldValue is one field's value as FieldsText writes it: nested Fields
// in braces, numbers (and lists of numbers) with Num, strings escaped, and
// anything else (a list of records) as its JSON, escaped.
func FieldValue(v any) string {
	switch x := v.(type) {
	case retriever.Fields:
		return "{" + FieldsText(x) + "}"
	case float64:
		return Num(x)
	case []float64:
		parts := make([]string, len(x))
		for i, f := range x {
			parts[i] = Num(f)
		}
		return "[" + strings.Join(parts, " ") + "]"
	case string:
		return textsafe.Escape(x)
	case int, int64, bool:
		return fmt.Sprint(x)
	}
	if b, err := json.Marshal(v); err == nil {
		return textsafe.Escape(string(b))
	}
	return textsafe.Escape(fmt.Sprint(v))
}

// Formula is a hit's score multiplied out: its terms' values joined by
// " × " and " = " the score, all with Num: "0.95 × 1 × 0.6 × 0.8 = 0.456".
// Named is the same with each value named: "R(A) 0.95 × FIXES 1 × f 0.6 ×
// δ^1 0.8 = 0.456" (names escaped, ids with DisplayID). A hit whose terms
// add up (TermsAdd) joins them by " + ".
func Formula(h retriever.Hit) (plain, named string) {
	vals := make([]string, len(h.Terms))
	names := make([]string, len(h.Terms))
	for i, t := range h.Terms {
		vals[i] = Num(t.Value)
		names[i] = termName(t.Name) + " " + Num(t.Value)
	}
	end := " = " + Num(h.Score)
	op := " × "
	if h.TermsAdd {
		op = " + "
	}
	return strings.Join(vals, op) + end, strings.Join(names, op) + end
}

// termName escapes a term's name; "R(id)" and "share(id)" show the id with
// DisplayID.
func termName(name string) string {
	for _, f := range []string{"R(", "share("} {
		if id, ok := strings.CutPrefix(name, f); ok && strings.HasSuffix(id, ")") {
			return f + DisplayID(strings.TrimSuffix(id, ")")) + ")"
		}
	}
	return textsafe.Escape(name)
}

// HopText is one hop as the text formats show it: "-[FIXES w=1 ×1]->".
func HopText(h retriever.Hop) string {
	return "-[" + textsafe.Escape(h.Type) + " w=" + Num(h.Weight) + " ×" + Num(h.Factor) + "]->"
}

// FeederText is one feeder of a hit (retriever.Hit.Feeders) as the text
// formats show it: the node it came from, the relationship's type and
// weight, and the amount it brought: "N2003 -[RELATES w=0.9]- brought
// 0.3616".
func FeederText(f retriever.Hop) string {
	return DisplayID(f.From) + " -[" + textsafe.Escape(f.Type) + " w=" + Num(f.Weight) + "]- brought " + Num(f.Factor)
}

// RankingText is the ranking as a text table, then the tree of best
// routes (`--format tree` for a ranking retriever):
//
//	expansion: 5 hits of 2 seeds (max_hops=1 expansion_factor=0.6 …)
//	  #1  0.95     A (Memory) "…"  initial
//	  #3  0.456    X (Memory) "…"  from A -[FIXES w=1 ×1]-> X
//	stats: initial_count=2 …
//	routes:
//	A R=0.95
//	└── X #3 0.456 -[FIXES w=1 ×1]->
//
// A seed not found gets a line "seed S not found". A hit with feeders
// (retriever.Hit.Feeders) has a line per feeder under it, strongest first
// (FeederText):
//
//	#4  0.1104   N2001 (AgentAction) "…"  from N2006 -[RELATES w=0.82 ×0.574]-> N2003 -[RELATES w=0.9 ×0.63]-> N2001
//	     fed by N2003 -[RELATES w=0.9]- brought 0.3616
//
// Ids are written with DisplayID, labels and names escaped, texts cut and
// quoted as the tree does.
func RankingText(r retriever.Ranking) string {
	var b strings.Builder
	found := 0
	for _, s := range r.Seeds {
		if s.Found {
			found++
		}
	}
	fmt.Fprintf(&b, "%s: %d hits, %d of %d seeds found (%s)\n", textsafe.Escape(r.Retriever), len(r.Hits), found, len(r.Seeds), FieldsText(r.Params))
	b.WriteString(FilterLine(r.Filter))
	for _, s := range r.Seeds {
		if !s.Found {
			fmt.Fprintf(&b, "seed %s not found\n", DisplayID(s.NodeID))
		}
	}
	for _, h := range r.Hits {
		fmt.Fprintf(&b, "  #%-3d %-9s %s%s%s  %s\n", h.Rank, Num(h.Score), DisplayID(h.NodeID), labelPart(h.Node),
			textPart(h.Node, DefaultTreeTextWidth), HowReached(h))
		for _, f := range h.Feeders {
			b.WriteString("       fed by " + FeederText(f) + "\n")
		}
		if line := RerankedText(h); line != "" {
			b.WriteString("       " + line + "\n")
		}
	}
	fmt.Fprintf(&b, "stats: %s\n", FieldsText(r.Stats))
	b.WriteString("routes:\n")
	b.WriteString(RouteTree(r))
	return b.String()
}

// HowReached is "initial" for a seed scored by its R, else "from S" and
// the route's hops: "from A -[FIXES w=1 ×1]-> X", with "(contradicting)"
// after a negative score.
func HowReached(h retriever.Hit) string {
	if h.Origin == retriever.OriginInitial {
		return "initial"
	}
	var b strings.Builder
	b.WriteString("from " + DisplayID(h.Seed))
	for _, hop := range h.Route {
		b.WriteString(" " + HopText(hop) + " " + DisplayID(hop.To))
	}
	if h.Contradicting {
		b.WriteString(" (contradicting)")
	}
	return b.String()
}

// RouteTree draws the best routes as one tree per seed: each seed, then
// the hits its routes reach, a hop per level (a node on a route that is
// not itself a hit, or is one by another route, is drawn plain).
func RouteTree(r retriever.Ranking) string {
	type tnode struct {
		id       string
		hop      *retriever.Hop
		hit      *retriever.Hit
		children []*tnode
	}
	roots := map[string]*tnode{}
	var order []string
	byID := map[string]retriever.Hit{}
	for _, h := range r.Hits {
		byID[h.NodeID] = h
	}
	root := func(id string) *tnode {
		if t, ok := roots[id]; ok {
			return t
		}
		t := &tnode{id: id}
		roots[id] = t
		order = append(order, id)
		return t
	}
	for i := range r.Hits {
		h := &r.Hits[i]
		t := root(h.Seed)
		if h.Origin == retriever.OriginInitial {
			t.hit = h
			continue
		}
		for j := range h.Route {
			hop := &h.Route[j]
			var next *tnode
			for _, c := range t.children {
				if c.id == hop.To && c.hop.Type == hop.Type && c.hop.Factor == hop.Factor {
					next = c
				}
			}
			if next == nil {
				next = &tnode{id: hop.To, hop: hop}
				t.children = append(t.children, next)
			}
			t = next
		}
		t.hit = h
	}
	var b strings.Builder
	line := func(t *tnode) string {
		s := DisplayID(t.id)
		if t.hop != nil {
			s = HopText(*t.hop) + " " + s
		}
		if t.hit != nil {
			s += " #" + strconv.Itoa(t.hit.Rank) + " " + Num(t.hit.Score)
		}
		return s
	}
	var walk func(t *tnode, indent string)
	walk = func(t *tnode, indent string) {
		for i, c := range t.children {
			branch, next := "├── ", "│   "
			if i == len(t.children)-1 {
				branch, next = "└── ", "    "
			}
			b.WriteString(indent + branch + line(c) + "\n")
			walk(c, indent+next)
		}
	}
	for _, id := range order {
		t := roots[id]
		s := DisplayID(id)
		for _, seed := range r.Seeds {
			if seed.NodeID == id {
				s += " R=" + Num(seed.Score)
			}
		}
		if t.hit != nil {
			s += " #" + strconv.Itoa(t.hit.Rank)
		}
		b.WriteString(s + "\n")
		walk(t, "")
	}
	return b.String()
}

// RankingLLM is a ranking for an LLM's context (`--format llm`): one line
// per hit, in rank order,
//
//  1. (Memory: "text…") score 0.95, seed
//  3. (Memory: "text…") score 0.456, via [Seed A] -[FIXES w=1 ×1]-> X
//
// then "Graph (D3 JSON):" and RankingD3 as LLMContext.Text writes it.
func RankingLLM(r retriever.Ranking) string {
	c := LLMContext{Paths: []string{}, Graph: RankingD3(r)}
	for _, h := range r.Hits {
		s := fmt.Sprintf("%d. %s score %s, ", h.Rank, llmNode(h.Node), Num(h.Score))
		if h.Origin == retriever.OriginInitial {
			s += "seed"
		} else {
			s += "via [Seed " + DisplayID(h.Seed) + "]"
			for _, hop := range h.Route {
				s += " " + HopText(hop) + " " + DisplayID(hop.To)
			}
		}
		c.Paths = append(c.Paths, s)
	}
	return c.Text()
}

// RankingD3 is the ranking as a D3 graph: the hits and the nodes their
// routes pass through (score set on hits, seed on seeds found), and a link
// per distinct (source, target, type) of the routes, its weight the one the
// retriever used.
func RankingD3(r retriever.Ranking) D3Graph {
	g := D3Graph{Nodes: []D3Node{}, Links: []D3Link{}}
	at := map[string]int{}
	seeds := map[string]bool{}
	for _, s := range r.Seeds {
		seeds[s.NodeID] = s.Found
	}
	add := func(n graph.Node, id string) int {
		if i, ok := at[id]; ok {
			return i
		}
		labels := n.Labels
		if labels == nil {
			labels = []string{}
		}
		at[id] = len(g.Nodes)
		g.Nodes = append(g.Nodes, D3Node{ID: id, Labels: labels, Properties: DisplayProperties(n.Properties), Seed: seeds[id]})
		return at[id]
	}
	for _, h := range r.Hits {
		score := h.Score
		g.Nodes[add(h.Node, h.NodeID)].Score = &score
	}
	links := map[linkKey]bool{}
	for _, h := range r.Hits {
		for _, hop := range h.Route {
			add(graph.Node{ID: hop.From}, hop.From)
			add(graph.Node{ID: hop.To}, hop.To)
			k := linkKey{hop.From, hop.To, hop.Type}
			if links[k] {
				continue
			}
			links[k] = true
			tags := hop.Edge.Tags
			if tags == nil {
				tags = []string{}
			}
			factor := hop.Factor
			g.Links = append(g.Links, D3Link{Source: hop.From, Target: hop.To, Type: hop.Type, Weight: hop.Weight,
				WeightMissing: hop.Edge.Weight == nil, Tags: tags, Factor: &factor, Properties: DisplayProperties(hop.Edge.Properties)})
		}
	}
	return g
}

// RankingCypher gives a debug query per hit, in rank order (HitCypher;
// a hit with neither feeders nor a route, as an initial hit without
// feeders, has none).
func RankingCypher(r retriever.Ranking) []DebugQuery { return ownShape.RankingCypher(r) }

// RankingCypher is the package's RankingCypher under the mapping.
func (c Cypher) RankingCypher(r retriever.Ranking) []DebugQuery {
	qs := []DebugQuery{}
	for _, h := range r.Hits {
		if q, ok := c.HitCypher(h); ok {
			qs = append(qs, q)
		}
	}
	return qs
}

// HitCypher is a hit's debug query: for a hit with feeders, the query of
// the hit and its feeders (FeedersCypher); otherwise its route's
// (DebugCypherRoute). ok is false for a hit with neither.
func HitCypher(h retriever.Hit) (q DebugQuery, ok bool) { return ownShape.HitCypher(h) }

// HitCypher is the package's HitCypher under the mapping.
func (c Cypher) HitCypher(h retriever.Hit) (q DebugQuery, ok bool) {
	switch {
	case len(h.Feeders) > 0:
		return c.FeedersCypher(h), true
	case len(h.Route) > 0:
		return c.DebugCypherRoute(h.Route), true
	}
	return DebugQuery{}, false
}

// FilterLine is the one line that says a run was made under a relationship
// filter (desc is graph.RelFilter's String; "" gives ""): what it was, and
// that degrees and strengths still count the relationships it removed
// (docs/RETRIEVERS.md, "Relationship filters").
func FilterLine(desc string) string {
	if desc == "" {
		return ""
	}
	return "relationship filter: " + textsafe.Escape(desc) + " (filtered relationships are not traversed; degrees d and strengths still count them)\n"
}

// RerankedText is, for a hit the signals rerank scored (its detail holds
// own_rank and own_score, docs/RETRIEVERS.md "Reranking by signals"), the
// retriever's own rank and score beside the signals that gave the new one:
//
//	was #2 0.3346; sem=0 sem_from=none recency=0.8592 recency_from=created_at days=7.589 salience=0 salience_from=missing missing=[sem salience]
//
// "" for any other hit.
func RerankedText(h retriever.Hit) string {
	rank, ok := h.Detail.Get("own_rank")
	score, ok2 := h.Detail.Get("own_score")
	if !ok || !ok2 {
		return ""
	}
	var rest retriever.Fields
	for _, f := range h.Detail {
		switch f.Name {
		case "own_rank", "own_score":
			continue
		case "notes":
			if l, ok := f.Value.([]string); ok && len(l) == 0 {
				continue
			}
		}
		rest = append(rest, f)
	}
	x, _ := score.(float64)
	return fmt.Sprintf("was #%v %s; %s", rank, Num(x), FieldsText(rest))
}
