package main

import (
	"go/parser"
	"go/token"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
)

const module = "github.com/memoria-graph/memoria"

// allowedImports is the import table of docs/ARCHITECTURE.md: for each
// package, the packages of this module its non-test files may import. A
// package missing from the table fails the test, so a new package must be
// placed in the architecture first.
var allowedImports = map[string][]string{
	"graph":                        {},
	"graph/apoc":                   {"graph", "internal/cypherlit", "internal/textsafe"},
	"graph/inmem":                  {"graph", "graph/apoc"},
	"graph/graphml":                {"graph", "graph/apoc"},
	"graph/graphrag":               {"graph", "graph/apoc"},
	"graph/neo4jdb":                {"graph", "graph/apoc", "internal/cypherlit", "internal/retry"},
	"graph/neo4jload":              {"graph", "graph/apoc", "graph/neo4jdb", "internal/cypherlit", "internal/retry"},
	"retriever":                    {"graph"},
	"retriever/activation":         {"graph", "retriever", "internal/retry"},
	"retriever/activation/oninmem": {"graph", "graph/inmem", "retriever/activation"},
	"retriever/activation/sweep":   {"graph", "retriever", "retriever/activation"},
	"retriever/activation/why":     {"graph", "retriever", "retriever/activation", "internal/retry"},
	"retriever/activation/onneo4j": {"graph", "graph/neo4jdb", "retriever/activation", "internal/cypherlit"},
	"retriever/expansion":          {"graph", "retriever"},
	"retriever/spreading":          {"graph", "retriever"},
	"retriever/ppr":                {"graph", "retriever"},
	"retriever/fusion":             {"retriever"},
	"retriever/signals":            {"retriever"},
	"retriever/rankwhy":            {"graph", "internal/textsafe", "retriever", "retriever/activation/why", "retriever/registry"},
	"retriever/gather":             {"graph", "retriever"},
	"retriever/registry":           {"retriever", "retriever/activation", "retriever/expansion", "retriever/spreading", "retriever/ppr", "retriever/fusion"},
	"render":                       {"graph", "graph/apoc", "retriever", "retriever/activation", "retriever/activation/sweep", "retriever/activation/why", "internal/cypherlit", "retriever/eval", "retriever/overlap", "internal/textsafe", "retriever/rankwhy", "retriever/gather", "retriever/tune"},
	"render/subgraph":              {"graph", "graph/apoc", "retriever", "retriever/activation", "render", "retriever/overlap", "internal/textsafe"},
	"keymap":                       {},
	"tui":                          {"graph", "retriever", "retriever/activation", "retriever/expansion", "retriever/spreading", "retriever/ppr", "retriever/activation/sweep", "retriever/activation/why", "render", "keymap", "internal/textsafe", "internal/experiment", "retriever/overlap", "retriever/rankwhy", "retriever/fusion", "retriever/registry", "retriever/eval", "render/subgraph", "tui/theme", "tui/common", "tui/components/cmptable", "tui/components/detail", "tui/components/params", "tui/components/ranklist", "tui/components/seeds", "tui/components/status", "tui/components/tags", "tui/components/tree", "tui/overlays/picker", "tui/overlays/query", "tui/overlays/statsview", "tui/overlays/sweepview", "tui/overlays/whypanel", "retriever/gather", "tui/overlays/helpview"},
	"tui/common":                   {"graph", "keymap", "render", "internal/textsafe", "tui/theme"},
	"tui/components/cmptable":      {"graph", "internal/textsafe", "render", "retriever", "retriever/overlap", "tui/common", "tui/theme"},
	"tui/components/detail":        {"tui/common"},
	"tui/components/params":        {"graph", "internal/textsafe", "render", "retriever", "retriever/activation", "tui/common", "tui/theme"},
	"tui/components/ranklist":      {"internal/textsafe", "render", "retriever", "tui/common", "tui/components/params", "tui/theme"},
	"tui/components/seeds":         {"graph", "internal/textsafe", "render", "retriever", "tui/common", "tui/theme"},
	"tui/components/status":        {"internal/textsafe", "keymap", "tui/common", "tui/theme"},
	"tui/components/tags":          {"graph", "internal/textsafe", "retriever", "tui/common", "tui/theme"},
	"tui/components/tree":          {"graph", "internal/textsafe", "keymap", "render", "retriever", "retriever/activation", "tui/common", "tui/components/status", "tui/theme"},
	"tui/overlays/helpview":        {"internal/textsafe", "keymap", "tui/theme"},
	"tui/overlays/sweepview":       {"graph", "internal/textsafe", "keymap", "render", "retriever", "retriever/activation", "retriever/activation/sweep", "retriever/eval", "retriever/tune", "tui/common"},
	"tui/overlays/statsview":       {"graph", "internal/textsafe", "keymap", "render", "tui/common"},
	"tui/overlays/whypanel":        {"internal/textsafe", "keymap", "render", "retriever/activation/why", "retriever/rankwhy", "tui/common"},
	"tui/overlays/query":           {"graph", "internal/textsafe", "keymap", "render", "retriever", "retriever/gather", "tui/common", "tui/theme"},
	"tui/overlays/picker":          {"internal/textsafe", "keymap", "retriever/activation", "tui/theme"},
	"tui/theme":                    {},
	"internal/experiment":          {"graph", "retriever", "retriever/activation", "internal/textsafe"},
	"internal/retry":               {"graph"},
	"internal/cypherlit":           {"internal/textsafe"},
	"internal/textsafe":            {},
	"retriever/overlap":            {"retriever"},
	"retriever/tune":               {"retriever/eval"},
	"retriever/eval":               {"retriever", "internal/textsafe"},
	"testkit/naive":                {"graph", "graph/apoc", "retriever", "retriever/activation"},
	"testkit/randgraph":            {"graph/apoc", "retriever"},
	"testkit/naiveexp":             {"graph", "graph/apoc"},
	"testkit/tinygraph":            {"graph/apoc", "graph/inmem", "retriever"},
	"testkit/naivespread":          {"graph/apoc"},
	"testkit/naiveppr":             {"graph/apoc"},
	"testkit/naivefusion":          {},
	"testkit/scale1m":              {"graph", "graph/apoc", "graph/inmem", "graph/neo4jdb", "graph/neo4jload", "testkit/neo4jtest", "testkit/randgraph", "retriever"},
	"testkit/neo4jtest":            {"graph"},
	"testkit/neo4jfix":             {"graph", "graph/apoc", "render", "graph/neo4jdb", "retriever", "retriever/activation", "internal/cypherlit", "testkit/neo4jtest"},
	"testkit/endless":              {},
	"testkit/golden":               {},
	"testkit/toyretriever":         {"graph", "retriever"},
	"testkit/peakmem":              {},
	"testkit/parquetgraph":         {"graph/apoc"},
	"internal/cli":                 nil, // the wiring: anything
	"scripts/housemetrics":         {},
	"":                             {"internal/cli"},
}

// packageImports parses the import clauses of every Go file below the
// module root, grouped by package directory; test files go in the second
// map.
func packageImports(t *testing.T) (prod, tests map[string][]string, files map[string][]string) {
	t.Helper()
	prod, tests, files = map[string][]string{}, map[string][]string{}, map[string][]string{}
	fset := token.NewFileSet()
	err := filepath.WalkDir(".", func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() {
			if name := d.Name(); path != "." && (strings.HasPrefix(name, ".") || name == "testdata" || name == "bin") {
				return filepath.SkipDir
			}
			return nil
		}
		if !strings.HasSuffix(path, ".go") {
			return nil
		}
		f, err := parser.ParseFile(fset, path, nil, parser.ImportsOnly)
		if err != nil {
			return err
		}
		dir := filepath.ToSlash(filepath.Dir(path))
		if dir == "." {
			dir = ""
		}
		into := prod
		if strings.HasSuffix(path, "_test.go") {
			into = tests
		} else {
			files[dir] = append(files[dir], path)
		}
		for _, imp := range f.Imports {
			p, _ := strconv.Unquote(imp.Path.Value)
			if p == module || strings.HasPrefix(p, module+"/") {
				into[dir] = append(into[dir], strings.TrimPrefix(strings.TrimPrefix(p, module), "/"))
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return prod, tests, files
}

// TestImportRules holds every package to its row of docs/ARCHITECTURE.md.
func TestImportRules(t *testing.T) {
	prod, tests, files := packageImports(t)
	for dir := range files {
		allowed, known := allowedImports[dir]
		if !known {
			t.Errorf("package %q is not in docs/ARCHITECTURE.md's table (allowedImports)", dir)
			continue
		}
		if allowed == nil && dir == "internal/cli" {
			continue
		}
		for _, imp := range prod[dir] {
			if !slices.Contains(allowed, imp) {
				t.Errorf("%s imports %s, which docs/ARCHITECTURE.md does not allow", dir, imp)
			}
		}
	}
	// Test files too: the library's tests never pull in the front ends.
	for dir, imps := range tests {
		for _, imp := range imps {
			front := imp == "tui" || imp == "internal/cli"
			if front && dir != "tui" && dir != "internal/cli" && dir != "" {
				t.Errorf("a test of %s imports %s", dir, imp)
			}
		}
	}
}

// TestTestkitOnlyInTests: the test support under testkit is
// imported by test files (benchmarks included) and by other testkit
// packages, never by the library, the front ends or main
// (docs/ARCHITECTURE.md). internal/cli may import anything else, so its
// row of the table cannot say this.
func TestTestkitOnlyInTests(t *testing.T) {
	prod, tests, _ := packageImports(t)
	for dir, imps := range prod {
		for _, imp := range imps {
			if isTestkit(imp) && !isTestkit(dir) {
				t.Errorf("%s (not a test file) imports %s", dir, imp)
			}
		}
	}
	if !slices.Contains(tests["render"], "testkit/golden") {
		t.Fatalf("the import walk missed render's tests' import of testkit/golden: %v", tests["render"])
	}
}

func isTestkit(dir string) bool { return strings.HasPrefix(dir, "testkit/") }

// TestRetrieversDoNotWrite: no package under retriever/ writes to a
// database: none imports the loader, opens a write session or runs a write
// transaction (docs/ARCHITECTURE.md).
func TestRetrieversDoNotWrite(t *testing.T) {
	prod, _, files := packageImports(t)
	for dir, paths := range files {
		if dir != "retriever" && !strings.HasPrefix(dir, "retriever/") {
			continue
		}
		if slices.Contains(prod[dir], "graph/neo4jload") {
			t.Errorf("%s imports the loader", dir)
		}
		for _, p := range paths {
			b, err := os.ReadFile(p)
			if err != nil {
				t.Fatal(err)
			}
			for _, bad := range []string{"ExecuteWrite", "AccessModeWrite", "ExecuteQuery("} {
				if strings.Contains(string(b), bad) {
					t.Errorf("%s uses %s", p, bad)
				}
			}
		}
	}
}

// TestRetrieversStandApart: each retriever is a package (with its
// subpackages) under retriever/ that never imports another retriever's, in
// its code or its tests; one other than Activation Energy reads a graph
// only through package graph (docs/ARCHITECTURE.md).
// notRetriever are the packages under retriever/ that are not retrievers:
// the registry that lists them, the why-not that reads them through it,
// the measures over any retriever's rankings, and the gather stage that
// finds their seeds (docs/ARCHITECTURE.md).
var notRetriever = map[string]bool{"registry": true, "rankwhy": true, "eval": true, "overlap": true, "gather": true, "tune": true}

func TestRetrieversStandApart(t *testing.T) {
	prod, tests, files := packageImports(t)
	owner := func(dir string) string {
		rest, ok := strings.CutPrefix(dir, "retriever/")
		if !ok {
			return ""
		}
		name, _, _ := strings.Cut(rest, "/")
		return name
	}
	retrievers := 0
	for dir := range files {
		me := owner(dir)
		if me == "" || notRetriever[me] {
			continue
		}
		retrievers++
		for _, imp := range append(slices.Clone(prod[dir]), tests[dir]...) {
			if other := owner(imp); other != "" && other != me {
				t.Errorf("%s (retriever %s) imports %s, another retriever's package", dir, me, imp)
			}
		}
		if me == "activation" {
			continue
		}
		for _, imp := range prod[dir] {
			if imp != "graph" && imp != "retriever" && owner(imp) != me {
				t.Errorf("%s imports %s: a retriever reads through graph and shares only retriever", dir, imp)
			}
		}
	}
	if retrievers < 2 {
		t.Fatalf("found %d retriever packages; the walk is broken", retrievers)
	}
}

// TestImportRulesCanFail: the checker sees a forbidden import when one is
// there (a guard against a walk that finds nothing).
func TestImportRulesCanFail(t *testing.T) {
	prod, _, _ := packageImports(t)
	if !slices.Contains(prod["tui"], "keymap") || !slices.Contains(prod["retriever/activation"], "retriever") {
		t.Fatalf("the import walk missed known imports: tui %v, activation %v", prod["tui"], prod["retriever/activation"])
	}
	if slices.Contains(allowedImports["render"], "tui") || len(allowedImports["keymap"]) != 0 {
		t.Fatal("the table allows what docs/ARCHITECTURE.md forbids")
	}
}
