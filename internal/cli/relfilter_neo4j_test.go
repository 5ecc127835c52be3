package cli

import (
	"bytes"
	"fmt"
	"math/rand"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/memoria-graph/memoria/graph/apoc"
	"github.com/memoria-graph/memoria/testkit/randgraph"
)

// hostileKind is a relationship property value, and a --rel-where value,
// that would end the string and run a write if it were spliced into a
// query rather than passed as a parameter.
const hostileKind = `it's "x"}) MATCH (n) DETACH DELETE n //`

// filterGraph writes a random typed graph whose relationships carry an
// attitude (an integer 1–5 most often, else a float, a string, or none)
// and a kind (words, the hostile value, and strings whose order differs
// between code points and UTF-16: "\U0001F600" is above "\uFFFD" by code
// point, below it in UTF-16), and returns the file and seed flags.
func filterGraph(t *testing.T, seed int64) (file string, seeds []string) {
	t.Helper()
	r := rand.New(rand.NewSource(seed))
	g := randgraph.Generate(r, randgraph.DefaultOptions(80))
	randgraph.AddTyped(r, g, 1.5)
	kinds := []string{"friend", "enemy", "colleague", hostileKind, "\U0001F600", "\uFFFD", "é"}
	for i := range g.Rels {
		p := g.Rels[i].Properties
		if p == nil {
			p = map[string]any{}
			g.Rels[i].Properties = p
		}
		switch k := r.Intn(8); {
		case k < 4:
			p["attitude"] = int64(1 + r.Intn(5))
		case k == 4:
			p["attitude"] = []float64{2.5, 4.5}[r.Intn(2)]
		case k == 5:
			p["attitude"] = []string{"4", "high"}[r.Intn(2)]
		}
		if r.Intn(5) != 0 {
			p["kind"] = kinds[r.Intn(len(kinds))]
		}
	}
	var b bytes.Buffer
	if err := apoc.Write(&b, g); err != nil {
		t.Fatal(err)
	}
	file = filepath.Join(t.TempDir(), "filtered.jsonl")
	if err := os.WriteFile(file, b.Bytes(), 0o600); err != nil {
		t.Fatal(err)
	}
	for _, s := range randgraph.Seeds(r, g) {
		seeds = append(seeds, "--seed", s.NodeID+"="+strconv.FormatFloat(s.Score, 'f', -1, 64))
	}
	return file, seeds
}

// TestRelFiltersOnNeo4jEqualEmbedded: on random graphs loaded into Neo4j,
// every retriever under each filter (--rel-where of each kind of value,
// the hostile one included, --rel-types, --exclude-rel-types) prints
// exactly what it prints on the embedded graph: the rankings (every
// retriever's --format ranking) and Activation Energy's paths through each
// of its Neo4j paths (the fast path, the specification's Cypher, and the
// snapshot --trace reads through). Each filter changes some retriever's
// output (so the comparison is not of unfiltered runs), and after them
// all the graph on the server is whole: the hostile value stayed a value.
func TestRelFiltersOnNeo4jEqualEmbedded(t *testing.T) {
	filters := [][]string{
		{"--rel-where", "attitude>=3"},
		{"--rel-where", "attitude!=2", "--rel-types", "RELATES,FIXES,SUPPORTS"},
		{"--rel-where", "attitude<4.5", "--rel-where", "kind!=enemy"},
		{"--exclude-rel-types", "RELATES"},
		{"--rel-types", "FIXES,RELATED"},
		{"--rel-where", "kind>=\uFFFD"},
		{"--rel-where", "attitude='4'"},
		{"--rel-where", "kind=" + strconv.Quote(hostileKind)},
		{"--rel-where", "kind!=" + strconv.Quote(hostileKind)},
	}
	runs := [][]string{
		{"explore", "--retriever", "activation", "--format", "ranking"},
		{"explore", "--format", "json"},
		{"explore", "--format", "json", "--trace"},
		{"explore", "--retriever", "expansion", "--format", "ranking", "--max-hops", "2"},
		{"explore", "--retriever", "spreading", "--format", "ranking"},
		{"explore", "--retriever", "ppr", "--format", "ranking"},
	}
	srv, d := freshServer(t)
	for _, graphSeed := range []int64{1, 2} {
		srv.Wipe(t)
		file, seeds := filterGraph(t, graphSeed)
		if code, _, errs := runIn(t, serverSession(srv), "load", file, "--uri", srv.URI); code != 0 {
			t.Fatalf("load: exit %d: %s", code, errs)
		}
		nodes, rels := counts(t, d)
		changed := make([]bool, len(filters))
		for _, base := range runs {
			args := append(slices.Clone(base), seeds...)
			_, unfiltered, _ := run(t, append(slices.Clone(args), "--graph", file)...)
			for i, f := range filters {
				a := append(slices.Clone(args), f...)
				code, embedded, errs := run(t, append(slices.Clone(a), "--graph", file)...)
				if code != 0 {
					t.Fatalf("%v embedded: exit %d: %s", a, code, errs)
				}
				code, onNeo4j, errs := runIn(t, serverSession(srv), append(slices.Clone(a), "--uri", srv.URI)...)
				if code != 0 {
					t.Fatalf("%v on Neo4j: exit %d: %s", a, code, errs)
				}
				embedded, onNeo4j = comparable(embedded), comparable(onNeo4j)
				if onNeo4j != embedded {
					t.Errorf("graph %d, %v differs: %s", graphSeed, a, firstDifference(onNeo4j, embedded))
				}
				if cypherSeed := append(slices.Clone(a), "--cypher", "seed", "--uri", srv.URI); base[len(base)-1] == "json" && len(base) == 3 {
					if code, out, errs := runIn(t, serverSession(srv), cypherSeed...); code != 0 || comparable(out) != embedded {
						t.Errorf("graph %d, %v with the specification's Cypher: exit %d %s\n%s", graphSeed, a, code, errs, out)
					}
				}
				changed[i] = changed[i] || embedded != comparable(unfiltered)
			}
		}
		for i, c := range changed {
			if !c {
				t.Errorf("graph %d: filter %v changed no retriever's output", graphSeed, filters[i])
			}
		}
		if n, r := counts(t, d); n != nodes || r != rels {
			t.Errorf("after the filters: %d nodes, %d relationships; loaded %d and %d", n, r, nodes, rels)
		}
	}
}

// elementIDs are the element ids Activation Energy's JSON carries on
// Neo4j (the embedded engine has none).
var (
	elementIDs = regexp.MustCompile(`,"element_id":"[^"]*"`)
	labelLists = regexp.MustCompile(`"labels":\[[^\]]*\]`)
)

// comparable is an output as the engines can agree on it: without element
// ids, each node's labels sorted (Neo4j returns them in its own order,
// not the file's), and its lines (Activation Energy's JSON streams one
// result a line, as each seed finishes) sorted.
func comparable(out string) string {
	out = labelLists.ReplaceAllStringFunc(elementIDs.ReplaceAllString(out, ""), func(l string) string {
		inner := strings.TrimSuffix(strings.TrimPrefix(l, `"labels":[`), "]")
		if inner == "" {
			return l
		}
		parts := strings.Split(inner, ",")
		slices.Sort(parts)
		return `"labels":[` + strings.Join(parts, ",") + "]"
	})
	lines := strings.Split(out, "\n")
	slices.Sort(lines)
	return strings.Join(lines, "\n")
}

// firstDifference shows where a (Neo4j's) and b (embedded) part.
func firstDifference(a, b string) string {
	i := 0
	for i < len(a) && i < len(b) && a[i] == b[i] {
		i++
	}
	from := max(0, i-300)
	return fmt.Sprintf("at byte %d:\nNeo4j:    …%s\nembedded: …%s", i, a[from:min(len(a), i+200)], b[from:min(len(b), i+200)])
}
