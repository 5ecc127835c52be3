package cli

import (
	"context"
	"encoding/json"
	"fmt"
	"math"
	"math/rand"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/neo4j/neo4j-go-driver/v5/neo4j"

	"github.com/memoria-graph/memoria/graph/neo4jload"
	"github.com/memoria-graph/memoria/retriever/gather"
	"github.com/memoria-graph/memoria/testkit/neo4jfix"
)

// gatherTol is the relative difference allowed between a score on Neo4j
// and the embedded one (docs/RETRIEVERS.md, "Gather"): Lucene computes
// BM25 in 32-bit floats (idf, the length cache and each term's score are
// float32, 24 bits of mantissa: a relative error of about 6e-8 each), the
// embedded engine in 64-bit ones. The largest difference measured on the
// demo graph, the LightRAG fixture and the random graphs is 1.1e-7.
const gatherTol = 1e-6

type gatherOut struct {
	Queries    []string `json:"queries"`
	Candidates []struct {
		NodeID  string  `json:"node_id"`
		Rank    int     `json:"rank"`
		R       float64 `json:"R"`
		RRF     float64 `json:"rrf"`
		Seed    bool    `json:"seed"`
		Matches []struct {
			Query   string  `json:"query"`
			Matcher string  `json:"matcher"`
			Score   float64 `json:"score"`
			Raw     float64 `json:"raw"`
		} `json:"matches"`
	} `json:"candidates"`
	NoVector int      `json:"no_vector"`
	Notices  []string `json:"notices"`
}

func closeTo(a, b float64) bool {
	return math.Abs(a-b) <= gatherTol*max(math.Abs(a), math.Abs(b), 1e-12)
}

// sameGather checks that two gathers (JSON) have the same candidates in
// the same order, the same seeds, and each match's score and raw BM25
// within gatherTol; it returns the largest relative difference of a raw
// BM25 score.
func sameGather(t *testing.T, what, emb, neo string) float64 {
	t.Helper()
	var a, b gatherOut
	if err := json.Unmarshal([]byte(emb), &a); err != nil {
		t.Fatalf("%s: embedded: %v\n%s", what, err, emb)
	}
	if err := json.Unmarshal([]byte(neo), &b); err != nil {
		t.Fatalf("%s: Neo4j: %v\n%s", what, err, neo)
	}
	worst := 0.0
	if len(a.Candidates) != len(b.Candidates) {
		t.Fatalf("%s: %d candidates embedded, %d on Neo4j\n%s\n%s", what, len(a.Candidates), len(b.Candidates), emb, neo)
	}
	for i, x := range a.Candidates {
		y := b.Candidates[i]
		if x.NodeID != y.NodeID || x.Seed != y.Seed || !closeTo(x.R, y.R) || !closeTo(x.RRF, y.RRF) || len(x.Matches) != len(y.Matches) {
			t.Fatalf("%s: candidate %d: embedded %s R %v rrf %v seed %v, Neo4j %s R %v rrf %v seed %v\n%s\n%s",
				what, i+1, x.NodeID, x.R, x.RRF, x.Seed, y.NodeID, y.R, y.RRF, y.Seed, emb, neo)
		}
		for j, m := range x.Matches {
			n := y.Matches[j]
			if m.Query != n.Query || m.Matcher != n.Matcher || !closeTo(m.Score, n.Score) || !closeTo(m.Raw, n.Raw) {
				t.Fatalf("%s: %s's match %d: embedded %+v, Neo4j %+v", what, x.NodeID, j, m, n)
			}
			if m.Raw != 0 {
				worst = max(worst, math.Abs(m.Raw-n.Raw)/m.Raw)
			}
		}
	}
	return worst
}

// TestGatherNeo4jDemoEqualsEmbedded: after `memoria load` of the demo graph
// (which creates memoria_gather, the fulltext index of name, title, text,
// description and summary), `memoria gather` on Neo4j gives the same
// candidates, in the same order, with the same seeds, R, RRF and per-match
// scores as on the embedded demo graph, for queries that exercise every
// matcher but vector (words Lucene's tokenizer keeps whole, such as
// "team's" and "5.2", among them), one query at a time and fused; the
// raw BM25 scores agree to gatherTol (Lucene's float32 arithmetic; the
// stored lengths are the same on both sides: gather.LuceneLength).
func TestGatherNeo4jDemoEqualsEmbedded(t *testing.T) {
	srv, _ := freshServer(t)
	mustLoad(t, srv)
	worst := 0.0
	for _, qs := range [][]string{
		{"safety stock"}, {"reorder points lead times"}, {"team's forecast 5.2"}, {"FAST-300 SKUs"},
		{"service level", "MAPE forecast error"}, {"supplier"}, {"q2 planning review"},
	} {
		args := []string{"gather", "--match", "exact,token,fuzzy,bm25", "--gather-min", "0.3", "--format", "json"}
		for _, q := range qs {
			args = append(args, "--query", q)
		}
		code, emb, errs := run(t, args...)
		if code != 0 {
			t.Fatalf("%q embedded: exit %d: %s", qs, code, errs)
		}
		code, neo, errs := runIn(t, serverSession(srv), append(args, "--uri", srv.URI)...)
		if code != 0 {
			t.Fatalf("%q on Neo4j: exit %d: %s", qs, code, errs)
		}
		if !strings.Contains(emb, `"node_id"`) {
			t.Fatalf("%q found nothing: the comparison would prove nothing\n%s", qs, emb)
		}
		worst = max(worst, sameGather(t, fmt.Sprint(qs), emb, neo))
	}
	t.Logf("largest relative difference of a raw BM25 score: %.3g", worst)
}

// cypherExec runs statements on the server and waits for its indexes.
func cypherExec(t *testing.T, d neo4j.DriverWithContext, stmts ...string) {
	t.Helper()
	for _, q := range append(stmts, "CALL db.awaitIndexes(300)") {
		if _, err := neo4j.ExecuteQuery(context.Background(), d, q, nil, neo4j.EagerResultTransformer); err != nil {
			t.Fatalf("%s: %v", q, err)
		}
	}
}

// fixStatements are the statements a refusal's "to fix, run: ..." gives.
func fixStatements(t *testing.T, errs string) []string {
	t.Helper()
	_, fix, ok := strings.Cut(strings.TrimSpace(errs), "to fix, run: ")
	if !ok {
		t.Fatalf("no statement in the refusal: %s", errs)
	}
	return strings.Split(fix, "; ")
}

// TestGatherNeo4jLightRAGEqualsEmbedded: the LightRAG fixture
// (testdata/graphml/lightrag-lollms.graphml, 66 entities) as LightRAG
// stores it in Neo4j (its export, keyed by entity_id, with the label base
// added), read by the embedded engine from that file and stored on the
// server as it is (--schema lightrag: names entity_id, texts
// description).
// Without an index of entity_id and description the gather is refused
// (exit 1) with the statement that creates it; after running that
// statement, the candidates, seeds and scores are the embedded ones
// (sameGather) for names with quotes, underscores and dots
// ("WIN_INSTALL.BAT") and descriptions.
func TestGatherNeo4jLightRAGEqualsEmbedded(t *testing.T) {
	srv, d := freshServer(t)
	code, export, errs := run(t, "export", "--graph", lightragGraphML, "--format", "jsonl")
	if code != 0 {
		t.Fatalf("export: exit %d: %s", code, errs)
	}
	file := filepath.Join(t.TempDir(), "base.jsonl")
	withLabel := strings.ReplaceAll(export, `{"type":"node",`, `{"type":"node","labels":["base"],`)
	if err := os.WriteFile(file, []byte(withLabel), 0o600); err != nil {
		t.Fatal(err)
	}
	neo4jfix.StoreAsIs(t, d, file)
	neoArgs := []string{"--uri", srv.URI, "--schema", "lightrag", "--traverse-types", "RELATES"}
	code, _, errs = runIn(t, serverSession(srv), append([]string{"gather", "--query", "GPT4All"}, neoArgs...)...)
	if code != 1 || !strings.Contains(errs, "CREATE FULLTEXT INDEX `memoria_gather` IF NOT EXISTS FOR (n:`base`) ON EACH [n.`entity_id`, n.`description`]") {
		t.Fatalf("no index: exit %d: %s", code, errs)
	}
	cypherExec(t, d, fixStatements(t, errs)...)
	worst := 0.0
	for _, q := range []string{"GPT4All", "lollms elf server", "win install bat", "WIN_INSTALL.BAT", "quantization GPU", "socket.io", "ollama compatible clients"} {
		args := []string{"gather", "--query", q, "--match", "exact,token,fuzzy,bm25", "--format", "json"}
		code, emb, errs := run(t, append(args, "--graph", file, "--schema", "lightrag", "--traverse-types", "RELATES")...)
		if code != 0 {
			t.Fatalf("%q embedded: exit %d: %s", q, code, errs)
		}
		code, neo, errs := runIn(t, serverSession(srv), append(args, neoArgs...)...)
		if code != 0 {
			t.Fatalf("%q on Neo4j: exit %d: %s", q, code, errs)
		}
		if !strings.Contains(emb, `"node_id"`) {
			t.Fatalf("%q found nothing\n%s", q, emb)
		}
		worst = max(worst, sameGather(t, q, emb, neo))
	}
	t.Logf("largest relative difference of a raw BM25 score: %.3g", worst)
}

// randomGatherGraph is an APOC file of n nodes labelled Note: names (a
// string, or a list of two) and texts drawn from words that Lucene's
// tokenizer splits in every way the rules name (apostrophes, dots between
// letters and between digits, commas in numbers, underscores, colons,
// hyphens, accents and case, Han, Hiragana and Katakana), texts of up to
// 60 words (so that Lucene's stored lengths round: gather.LuceneLength),
// and an embedding of 3 numbers (of 2 for some, none for others).
func randomGatherGraph(r *rand.Rand, n int) (string, []string) {
	vocab := []string{"safety", "stock", "Stock", "team's", "5.2", "win_install.bat", "e.g.", "FAST-300", "école", "ÉCOLE",
		"naïve", "1,000", "a:b", "東京", "ひらがな", "カタカナ", "reorder", "point", "lead", "time", "supplier", "lead-time", "Q2"}
	words := func(k int) string {
		w := make([]string, k)
		for i := range w {
			w[i] = vocab[r.Intn(len(vocab))]
		}
		return strings.Join(w, []string{" ", " ", ", ", "; "}[r.Intn(4)])
	}
	var b strings.Builder
	for i := range n {
		props := map[string]any{"id": fmt.Sprintf("R%03d", i)}
		switch r.Intn(4) {
		case 0:
		case 1:
			props["name"] = []string{words(1 + r.Intn(2)), words(1 + r.Intn(3))}
		default:
			props["name"] = words(1 + r.Intn(3))
		}
		if r.Intn(4) > 0 {
			props["text"] = words(1 + r.Intn(60))
		}
		if r.Intn(3) > 0 {
			props["description"] = words(1 + r.Intn(5))
		}
		switch r.Intn(5) {
		case 0:
		case 1:
			props["embedding"] = []float64{r.Float64(), r.Float64()}
		default:
			props["embedding"] = []float64{r.Float64()*2 - 1, r.Float64()*2 - 1, r.Float64()*2 - 1}
		}
		line, _ := json.Marshal(map[string]any{"type": "node", "id": fmt.Sprint(i), "labels": []string{"Note"}, "properties": props})
		b.Write(line)
		b.WriteByte('\n')
	}
	queries := []string{words(1), words(2), words(3)}
	return b.String(), queries
}

// TestGatherNeo4jRandomEqualsEmbedded: three random graphs of 40 nodes
// (randomGatherGraph), each loaded by `memoria load`, three random queries
// of one to three words each, gathered alone and together with every
// matcher and a random query vector: the same candidates, seeds and scores
// on Neo4j as on the embedded engine (sameGather). With no vector index
// the vector matcher reads every node's embedding and says so (an exact
// cosine); after CREATE VECTOR INDEX on Note's embedding it says the list
// is approximate, and on 40 nodes (k = gather.MaxCandidates ≥ 40) finds
// the same candidates.
func TestGatherNeo4jRandomEqualsEmbedded(t *testing.T) {
	r := rand.New(rand.NewSource(32))
	worst := 0.0
	for trial := range 3 {
		srv, d := freshServer(t)
		text, queries := randomGatherGraph(r, 40)
		dir := t.TempDir()
		file, vec := filepath.Join(dir, "g.jsonl"), filepath.Join(dir, "v.json")
		if err := os.WriteFile(file, []byte(text), 0o600); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(vec, []byte(fmt.Sprintf("[%v, %v, %v]", r.Float64(), r.Float64()-0.5, r.Float64())), 0o600); err != nil {
			t.Fatal(err)
		}
		if code, _, errs := runIn(t, serverSession(srv), "load", file, "--uri", srv.URI); code != 0 {
			t.Fatalf("load: exit %d: %s", code, errs)
		}
		for vi, withIndex := range []bool{false, true} {
			if withIndex {
				cypherExec(t, d, "CREATE VECTOR INDEX note_embedding FOR (n:Note) ON n.embedding OPTIONS {indexConfig: {`vector.dimensions`: 3, `vector.similarity_function`: 'cosine'}}")
			}
			for qi := range len(queries) + 1 {
				args := []string{"gather", "--match", "exact,token,fuzzy,bm25,vector", "--gather-min", "0.2", "--query-vector", vec, "--format", "json"}
				if qi < len(queries) {
					args = append(args, "--query", queries[qi])
				} else {
					for _, q := range queries {
						args = append(args, "--query", q)
					}
				}
				what := fmt.Sprintf("trial %d, vector index %v, queries %q", trial, withIndex, args)
				code, emb, errs := run(t, append(args, "--graph", file)...)
				if code != 0 {
					t.Fatalf("%s embedded: exit %d: %s", what, code, errs)
				}
				code, neo, errs := runIn(t, serverSession(srv), append(args, "--uri", srv.URI)...)
				if code != 0 {
					t.Fatalf("%s on Neo4j: exit %d: %s", what, code, errs)
				}
				want := []string{"vector: exact", "vector: approximate"}[vi]
				if !strings.Contains(neo, `"notices":["`+want) {
					t.Fatalf("%s: no %q notice: %s", what, want, neo)
				}
				worst = max(worst, sameGather(t, what, emb, neo))
			}
		}
	}
	t.Logf("largest relative difference of a raw BM25 score: %.3g", worst)
}

// TestGatherNeo4jHostile: on the demo graph loaded into Neo4j, queries
// made of Lucene's syntax (AND, OR, NOT, *, ~, ", \, :, field:value,
// brackets), terminal escapes and invalid UTF-8 are data: each gathers
// exactly what the embedded engine gathers (sameGather), nothing is read
// as a Lucene operator or field (the query "text:stock" is the one word
// "text:stock" to Lucene's tokenizer, and finds nothing on either side),
// and the output carries no raw escape. A query of 10,000 characters of
// one repeated word is gathered alike; one of more than
// gather.MaxQueryWords distinct words, an empty query and one of only
// punctuation are refused (exit 2) with the rule named, on both engines.
func TestGatherNeo4jHostile(t *testing.T) {
	srv, _ := freshServer(t)
	mustLoad(t, srv)
	long := strings.TrimSpace(strings.Repeat("stock ", 1667))
	for _, q := range []string{
		"safety AND stock", "stock*", "stock~2", `"safety stock`, `stock\`, "text:stock", "NOT OR AND", "(safety) [stock] {lead}^2",
		"safety\x1b]0;evil\x07 stock", "safety \xff\xfe stock", "+supplier -lead /reorder/", long,
	} {
		args := []string{"gather", "--query", q, "--match", "exact,token,fuzzy,bm25", "--format", "json"}
		code, emb, errs := run(t, args...)
		if code != 0 {
			t.Fatalf("%.40q embedded: exit %d: %s", q, code, errs)
		}
		code, neo, errs := runIn(t, serverSession(srv), append(args, "--uri", srv.URI)...)
		if code != 0 {
			t.Fatalf("%.40q on Neo4j: exit %d: %s", q, code, errs)
		}
		if strings.ContainsAny(neo, "\x1b\x07") {
			t.Errorf("%.40q: a raw escape in the output", q)
		}
		sameGather(t, fmt.Sprintf("%.40q", q), emb, neo)
		if q == "text:stock" && strings.Contains(neo, `"node_id"`) {
			t.Errorf("text:stock was read as a field query: %s", neo)
		}
	}
	var many []string
	for i := range gather.MaxQueryWords + 1 {
		many = append(many, fmt.Sprintf("w%d", i))
	}
	for _, c := range []struct{ q, want string }{
		{strings.Join(many, " "), "query 1 has 65 distinct words; a query may have at most 64 (gather.MaxQueryWords, retriever/gather/gather.go)"},
		{"", "query 1 has no letter or digit to match"},
		{"?!* -- ~\"", "query 1 has no letter or digit to match"},
	} {
		for _, extra := range [][]string{nil, {"--uri", srv.URI}} {
			code, _, errs := runIn(t, serverSession(srv), append([]string{"gather", "--query", c.q}, extra...)...)
			if code != ExitUsage || !strings.Contains(errs, c.want) {
				t.Errorf("%.30q %v: exit %d: %s", c.q, extra, code, errs)
			}
		}
	}
}

// TestGatherNeo4jRefusesWithoutIndex: with the gather's fulltext index
// dropped, gather on Neo4j (bm25 among the matchers, and the name matchers
// alone) is refused (exit 1) with the CREATE FULLTEXT INDEX statement of
// the demo graph's labels and memoria's properties, the statement
// `memoria load` runs; with an index of that name that does not serve,
// the statement drops it first; after running it, the gather works. And `explore
// --query` is refused the same way before it reads anything else. Then
// `why --query` says first whether N2006 (a candidate below --seed-k 2)
// and N2010 were gathered, in the words the embedded engine uses.
func TestGatherNeo4jRefusesWithoutIndex(t *testing.T) {
	srv, d := freshServer(t)
	mustLoad(t, srv)
	cypherExec(t, d, "DROP INDEX memoria_gather")
	want := "; to fix, run: CREATE FULLTEXT INDEX `memoria_gather` IF NOT EXISTS FOR (n:"
	for _, args := range [][]string{
		{"gather", "--query", "safety stock"},
		{"gather", "--query", "safety stock", "--match", "exact,token"},
		{"explore", "--query", "safety stock"},
	} {
		code, _, errs := runIn(t, serverSession(srv), append(args, "--uri", srv.URI)...)
		if code != 1 || !strings.Contains(errs, want) || !strings.Contains(errs, "OPTIONS {indexConfig: {`fulltext.analyzer`: 'standard-no-stop-words'}}") {
			t.Fatalf("%q: exit %d: %s", args, code, errs)
		}
		if args[1] == "--query" && len(args) == 3 && args[0] == "gather" {
			if !strings.Contains(errs, "ON EACH [n.`name`, n.`title`, n.`text`, n.`description`, n.`summary`]") {
				t.Errorf("the statement is not memoria load's: %s", errs)
			}
		}
	}
	// An index of the gather's name that does not serve (one property
	// only): the fix drops it before creating the one that does.
	cypherExec(t, d, "CREATE FULLTEXT INDEX memoria_gather FOR (n:UserRequest) ON EACH [n.name]")
	_, _, errs := runIn(t, serverSession(srv), "gather", "--query", "safety stock", "--uri", srv.URI)
	if !strings.Contains(errs, "; to fix, run: DROP INDEX `memoria_gather`; CREATE FULLTEXT INDEX `memoria_gather`") {
		t.Fatalf("with a clashing index: %s", errs)
	}
	cypherExec(t, d, fixStatements(t, errs)...)
	if code, out, errs := runIn(t, serverSession(srv), "gather", "--query", "safety stock", "--uri", srv.URI); code != 0 || !strings.Contains(out, "N2006") {
		t.Fatalf("after the fix: exit %d: %s%s", code, out, errs)
	}
	// why --query answers first whether the node was gathered, on Neo4j
	// as on the embedded engine (its scores read through the index).
	for _, node := range []string{"N2006", "N2010"} {
		args := []string{"why", "--query", "safety stock", "--seed-k", "2", "--node", node, "--retriever", "ppr"}
		_, emb, _ := run(t, args...)
		code, neo, errs := runIn(t, serverSession(srv), append(args, "--uri", srv.URI)...)
		first := func(s string) string { l, _, _ := strings.Cut(s, "\n"); return l }
		if code != 0 || first(neo) != first(emb) || !strings.Contains(first(emb), node) {
			t.Errorf("why %s: exit %d: %s (%s), embedded %s", node, code, first(neo), errs, first(emb))
		}
	}
}

// TestGatherPropertiesArePresets: the properties memoria load indexes are
// the memoria preset's names then texts (docs/RETRIEVERS.md, "Gather").
func TestGatherPropertiesArePresets(t *testing.T) {
	f, _ := gather.Preset("memoria")
	if want := append(slices.Clone(f.Names), f.Texts...); !slices.Equal(neo4jload.GatherProperties, want) {
		t.Errorf("neo4jload.GatherProperties %q, the preset's %q", neo4jload.GatherProperties, want)
	}
}

// TestGatherNeo4jHostileNames: testdata/hostile.jsonl (labels, ids and
// texts holding terminal escapes, bidi overrides and zero-width runes)
// loaded by `memoria load`, which creates the fulltext index over its
// hostile labels (each a quoted name): TestGatherHostileQuery's gather
// prints on Neo4j exactly what it prints on the embedded engine (text
// format: every id and query escaped), with no raw escape, and the same
// candidates in JSON (sameGather).
func TestGatherNeo4jHostileNames(t *testing.T) {
	srv, _ := freshServer(t)
	if code, _, errs := runIn(t, serverSession(srv), "load", "../../testdata/hostile.jsonl", "--uri", srv.URI); code != 0 {
		t.Fatalf("load: exit %d: %s", code, errs)
	}
	for _, format := range []string{"text", "json"} {
		args := []string{"gather", "--query", "evil\x1b]0;title\x07 text", "--match", "bm25,fuzzy,token", "--format", format}
		code, emb, errs := run(t, append(args, "--graph", "../../testdata/hostile.jsonl")...)
		if code != 0 {
			t.Fatalf("embedded: exit %d: %s", code, errs)
		}
		code, neo, errs := runIn(t, serverSession(srv), append(args, "--uri", srv.URI)...)
		if code != 0 {
			t.Fatalf("Neo4j: exit %d: %s", code, errs)
		}
		if strings.ContainsAny(neo+errs, "\x1b\x07\r") {
			t.Errorf("a raw escape reached the output: %q %q", neo, errs)
		}
		if format == "text" && (neo != emb || !strings.Contains(neo, `"H1\r\x1b[2J"`)) {
			t.Errorf("Neo4j printed\n%s\nthe embedded engine\n%s", neo, emb)
		}
		if format == "json" {
			sameGather(t, "hostile", emb, neo)
		}
	}
}

// TestGatherNeo4jGraphitiEqualsEmbedded: the Graphiti fixture
// (testdata/graphiti.jsonl: Entity nodes keyed by uuid, names in name,
// texts in summary, one name a Cypher injection) stored on a server as it
// is (--schema graphiti): without the fulltext index over name and summary
// the gather is refused with the statement that creates it; after it, the
// candidates, seeds and scores are the embedded engine's (sameGather), for
// an exact name, a name's word, a misspelt one (fuzzy) and words of the
// summaries, the injection's name among the candidates escaped alike.
func TestGatherNeo4jGraphitiEqualsEmbedded(t *testing.T) {
	srv, d := freshServer(t)
	neo4jfix.StoreAsIs(t, d, "../../testdata/graphiti.jsonl")
	neoArgs := []string{"--uri", srv.URI, "--schema", "graphiti"}
	code, _, errs := runIn(t, serverSession(srv), append([]string{"gather", "--query", "Alice"}, neoArgs...)...)
	if code != 1 || !strings.Contains(errs, "CREATE FULLTEXT INDEX `memoria_gather`") {
		t.Fatalf("no index: exit %d: %s", code, errs)
	}
	cypherExec(t, d, fixStatements(t, errs)...)
	for _, q := range []string{"Alice", "Leeds", "Sheffeld DC", "distribution centre warehouse", "Bob DETACH DELETE", "fastener family"} {
		args := []string{"gather", "--query", q, "--match", "exact,token,fuzzy,bm25", "--gather-min", "0.3", "--format", "json", "--schema", "graphiti"}
		code, emb, errs := run(t, append(args, "--graph", "../../testdata/graphiti.jsonl")...)
		if code != 0 {
			t.Fatalf("%q embedded: exit %d: %s", q, code, errs)
		}
		code, neo, errs := runIn(t, serverSession(srv), append(args, "--uri", srv.URI)...)
		if code != 0 {
			t.Fatalf("%q on Neo4j: exit %d: %s", q, code, errs)
		}
		if !strings.Contains(emb, `"node_id"`) {
			t.Fatalf("%q found nothing\n%s", q, emb)
		}
		sameGather(t, q, emb, neo)
	}
}
