// Command housemetrics prints the figures of the house's targets
// (docs/ARCHITECTURE.md, "Targets"): how many files outside each ranking
// retriever import it, the switches over retriever names and the names
// written as string literals outside retriever/, the explorer's root model's
// fields, the functions over their length limit, and the imports that run
// from a lower layer up to a higher one. Each figure is one line, its
// offenders listed under it.
//
//	go run ./scripts/housemetrics          # from the module's root; exits 0
//	go run ./scripts/housemetrics -check   # exits 1 when a target is missed
//
// It reads the source with go/parser only (nothing is built or run), so it
// measures any tree, a half-finished one included. It exits 2 when it
// cannot read the tree at all (no go.mod, a file that does not parse).
package main

import (
	"bufio"
	"errors"
	"flag"
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"io"
	"io/fs"
	"maps"
	"os"
	"path"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
)

// The limits of docs/ARCHITECTURE.md's targets.
const (
	// maxRootFields is the most fields the explorer's root model may have.
	maxRootFields = 20
	// maxFrontLines is the longest a function in tui/ or internal/cli/
	// may be, in lines from `func` to its closing brace.
	maxFrontLines = 80
	// maxLines is the longest any other non-test function may be.
	maxLines = 120
	// registryFile is the one file outside a ranking retriever's package
	// that may import it.
	registryFile = "retriever/registry/registry.go"
	// rootModelFile holds rootModel, the explorer's root model.
	rootModelFile = "tui/model.go"
	rootModel     = "Model"
)

// hotLoops are the functions allowed over their length limit, each with
// the reason, as docs/ARCHITECTURE.md names them; the key is the package
// directory, a dot, and the function's name (Type.Method for a method).
var hotLoops = map[string]string{
	"retriever/activation/oninmem.InMemory.expand": "Activation Energy's per-level expansion in the embedded engine: the inner loop of every run on 10^6 edges, kept whole so that the candidates of a level stay in registers and slices (docs/PERFORMANCE.md)",
	"graph/inmem.builder.addRel":                   "the load's per-relationship step, run 10^6 times for the benchmark graph: numbering, weight, tags and adjacency in one pass (docs/PERFORMANCE.md, the load)",
}

// otherMeanings are the files where a retriever's name is a string literal
// in another sense, with the reason: the word "activation" names an
// activation value as well as the retriever.
var otherMeanings = map[[2]string]string{
	{"render/rankingwhy.go", "activation"}:       "spreading activation's A(v), a fact of its why-not",
	{"render/subgraph/graphml.go", "activation"}: "the GraphML attribute holding a node's activation (T)",
}

// Layers, lowest first (docs/ARCHITECTURE.md): a package may import from
// its own layer and those below it, never from one above.
const (
	layerGraph = iota
	layerRetriever
	layerRender
	layerFeatures
	layerTUI
	layerCLI
	layerMain
	layerHelper // usable from any layer; imports only graph and helpers
	layerSkip   // test support and tools: not part of the house
)

var layerNames = []string{"graph", "retriever", "render", "features", "tui", "cli", "main", "helper", "skip"}

// layerOf lists each layer's package directories: a directory is in the
// first whose entry is itself or one of its parents ("" is the module's
// root, main).
var layerOf = []struct {
	dir   string
	layer int
}{
	{"graph", layerGraph},
	{"retriever", layerRetriever},
	{"render", layerRender},
	{"internal/experiment", layerFeatures},
	{"internal/textsafe", layerHelper},
	{"internal/cypherlit", layerHelper},
	{"internal/retry", layerHelper},
	{"keymap", layerTUI},
	{"tui", layerTUI},
	{"internal/cli", layerCLI},
	{"testkit", layerSkip},
	{"scripts", layerSkip},
}

func main() {
	check := flag.Bool("check", false, "exit 1 when any target is missed")
	root := flag.String("root", ".", "the module's root `directory` (the one holding go.mod)")
	flag.Parse()
	if flag.NArg() > 0 {
		fmt.Fprintln(os.Stderr, "housemetrics: no arguments; flags are -check and -root")
		os.Exit(2)
	}
	figs, err := analyse(*root)
	if err != nil {
		fmt.Fprintln(os.Stderr, "housemetrics:", err)
		os.Exit(2)
	}
	w := bufio.NewWriter(os.Stdout)
	missed := report(w, figs)
	if err := w.Flush(); err != nil {
		fmt.Fprintln(os.Stderr, "housemetrics:", err)
		os.Exit(2)
	}
	if *check && missed > 0 {
		os.Exit(1)
	}
}

// figure is one measured target: a line of text, whether the target is
// met, and the offenders.
type figure struct {
	line      string
	met       bool
	offenders []string
}

// report writes the figures and returns how many missed their target.
func report(w io.Writer, figs []figure) int {
	missed := 0
	for _, f := range figs {
		mark := "ok"
		if !f.met {
			mark = "MISSED"
			missed++
		}
		fmt.Fprintf(w, "%-6s %s\n", mark, f.line)
		for _, o := range f.offenders {
			fmt.Fprintf(w, "         %s\n", o)
		}
	}
	fmt.Fprintf(w, "%d of %d targets missed\n", missed, len(figs))
	return missed
}

// file is one parsed Go file.
type file struct {
	rel  string // slash path from the root
	dir  string // its package directory ("" for the root)
	test bool
	ast  *ast.File
}

// tree is the parsed module.
type tree struct {
	module string
	fset   *token.FileSet
	files  []file
}

func (t *tree) pos(p token.Pos) string {
	at := t.fset.Position(p)
	return fmt.Sprintf("%s:%d", filepath.ToSlash(at.Filename), at.Line)
}

// load parses every Go file below root (hidden directories, testdata and
// bin left out), with file names relative to root.
func load(root string) (*tree, error) {
	mod, err := os.ReadFile(filepath.Join(root, "go.mod"))
	if err != nil {
		return nil, fmt.Errorf("%v (run it from the module's root, or give -root)", err)
	}
	t := &tree{fset: token.NewFileSet()}
	for l := range strings.SplitSeq(string(mod), "\n") {
		if rest, ok := strings.CutPrefix(strings.TrimSpace(l), "module "); ok {
			t.module = strings.Trim(strings.TrimSpace(rest), `"`)
			break
		}
	}
	if t.module == "" {
		return nil, errors.New(filepath.Join(root, "go.mod") + " names no module")
	}
	err = filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, err := filepath.Rel(root, p)
		if err != nil {
			return err
		}
		rel = filepath.ToSlash(rel)
		if d.IsDir() {
			if name := d.Name(); rel != "." && (strings.HasPrefix(name, ".") || name == "testdata" || name == "bin" || name == "vendor") {
				return filepath.SkipDir
			}
			return nil
		}
		if !strings.HasSuffix(rel, ".go") {
			return nil
		}
		src, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		f, err := parser.ParseFile(t.fset, rel, src, parser.SkipObjectResolution)
		if err != nil {
			return err
		}
		dir := path.Dir(rel)
		if dir == "." {
			dir = ""
		}
		t.files = append(t.files, file{rel: rel, dir: dir, test: strings.HasSuffix(rel, "_test.go"), ast: f})
		return nil
	})
	return t, err
}

// local is the module-relative directory an import path names, ok false
// for a path outside the module.
func (t *tree) local(importPath string) (string, bool) {
	if importPath == t.module {
		return "", true
	}
	rest, ok := strings.CutPrefix(importPath, t.module+"/")
	return rest, ok
}

// imports are a file's imports of the module's packages, with where each
// is written.
func (t *tree) imports(f file) (dirs []string, at []token.Pos) {
	for _, imp := range f.ast.Imports {
		p, err := strconv.Unquote(imp.Path.Value)
		if err != nil {
			continue
		}
		if dir, ok := t.local(p); ok {
			dirs, at = append(dirs, dir), append(at, imp.Pos())
		}
	}
	return dirs, at
}

// within reports whether dir is base or below it.
func within(dir, base string) bool {
	return dir == base || strings.HasPrefix(dir, base+"/")
}

// analyse measures every target of the tree at root.
func analyse(root string) ([]figure, error) {
	t, err := load(root)
	if err != nil {
		return nil, err
	}
	ranking, all := t.retrievers()
	var figs []figure
	for _, r := range ranking {
		figs = append(figs, t.importers(r))
	}
	figs = append(figs, t.nameLiterals(all)...)
	figs = append(figs, t.rootFields(), t.longFunctions(), t.layering())
	return figs, nil
}

// retriever is one retriever's package directory and name.
type retriever struct{ dir, name string }

// retrievers finds the ranking retrievers (the directories right under
// retriever/ whose non-test files declare `var Spec`) and every retriever:
// those, and the other directories right under retriever/ that the
// registry (retriever/registry) imports and that declare `const Name`
// (Activation Energy). A retriever's name is its `const Name` string, else
// its directory's name.
func (t *tree) retrievers() (ranking, all []retriever) {
	spec, name := map[string]bool{}, map[string]string{}
	registryImports := map[string]bool{}
	for _, f := range t.files {
		if f.test {
			continue
		}
		if f.dir == "retriever/registry" {
			dirs, _ := t.imports(f)
			for _, d := range dirs {
				registryImports[d] = true
			}
		}
		if path.Dir(f.dir) != "retriever" {
			continue
		}
		for _, decl := range f.ast.Decls {
			g, ok := decl.(*ast.GenDecl)
			if !ok {
				continue
			}
			for _, s := range g.Specs {
				v, ok := s.(*ast.ValueSpec)
				if !ok {
					continue
				}
				for i, id := range v.Names {
					switch {
					case g.Tok == token.VAR && id.Name == "Spec":
						spec[f.dir] = true
					case g.Tok == token.CONST && id.Name == "Name" && i < len(v.Values):
						if lit, ok := v.Values[i].(*ast.BasicLit); ok && lit.Kind == token.STRING {
							if s, err := strconv.Unquote(lit.Value); err == nil {
								name[f.dir] = s
							}
						}
					}
				}
			}
		}
	}
	nameOf := func(dir string) string {
		if n, ok := name[dir]; ok {
			return n
		}
		return path.Base(dir)
	}
	for dir := range spec {
		ranking = append(ranking, retriever{dir, nameOf(dir)})
	}
	all = slices.Clone(ranking)
	for dir := range registryImports {
		if _, ok := name[dir]; ok && !spec[dir] && path.Dir(dir) == "retriever" {
			all = append(all, retriever{dir, nameOf(dir)})
		}
	}
	byDir := func(a, b retriever) int { return strings.Compare(a.dir, b.dir) }
	slices.SortFunc(ranking, byDir)
	slices.SortFunc(all, byDir)
	return ranking, all
}

// importers: the non-test files outside r's package (and its
// subpackages) that import it; the target is the registry's file alone.
func (t *tree) importers(r retriever) figure {
	var files, offenders []string
	for _, f := range t.files {
		if f.test || within(f.dir, r.dir) {
			continue
		}
		dirs, _ := t.imports(f)
		if slices.ContainsFunc(dirs, func(d string) bool { return within(d, r.dir) }) {
			files = append(files, f.rel)
			if f.rel != registryFile {
				offenders = append(offenders, f.rel)
			}
		}
	}
	return figure{
		line:      fmt.Sprintf("retriever %s: imported by %d non-test file(s) outside %s (target: %s alone)", r.name, len(files), r.dir, registryFile),
		met:       len(offenders) == 0,
		offenders: offenders,
	}
}

// nameLiterals: every `case "NAME"` and every string literal equal to a
// retriever's name in a non-test file outside retriever/.
func (t *tree) nameLiterals(all []retriever) []figure {
	names := map[string]bool{}
	for _, r := range all {
		names[r.name] = true
	}
	isName := func(e ast.Expr) (string, bool) {
		lit, ok := e.(*ast.BasicLit)
		if !ok || lit.Kind != token.STRING {
			return "", false
		}
		s, err := strconv.Unquote(lit.Value)
		return s, err == nil && names[s]
	}
	var cases, lits []string
	for _, f := range t.files {
		if f.test || within(f.dir, "retriever") || within(f.dir, "scripts") {
			continue
		}
		ast.Inspect(f.ast, func(n ast.Node) bool {
			switch n := n.(type) {
			case *ast.CaseClause:
				for _, e := range n.List {
					if s, ok := isName(e); ok {
						cases = append(cases, fmt.Sprintf("%s case %q", t.pos(e.Pos()), s))
					}
				}
			case *ast.BasicLit:
				if s, ok := isName(n); ok && otherMeanings[[2]string{f.rel, s}] == "" {
					lits = append(lits, fmt.Sprintf("%s %q", t.pos(n.Pos()), s))
				}
			}
			return true
		})
	}
	var list []string
	for _, r := range all {
		list = append(list, r.name)
	}
	return []figure{
		{line: fmt.Sprintf("case clauses over a retriever's name (%s) outside retriever/: %d (target 0)", strings.Join(list, ", "), len(cases)),
			met: len(cases) == 0, offenders: cases},
		{line: fmt.Sprintf("string literals equal to a retriever's name outside retriever/: %d (target 0)", len(lits)),
			met: len(lits) == 0, offenders: lits},
	}
}

// rootFields counts the fields of the explorer's root model (a field list
// `a, b int` is two fields, an embedded type one).
func (t *tree) rootFields() figure {
	for _, f := range t.files {
		if f.rel != rootModelFile {
			continue
		}
		for _, decl := range f.ast.Decls {
			g, ok := decl.(*ast.GenDecl)
			if !ok || g.Tok != token.TYPE {
				continue
			}
			for _, s := range g.Specs {
				ts := s.(*ast.TypeSpec)
				st, ok := ts.Type.(*ast.StructType)
				if ts.Name.Name != rootModel || !ok {
					continue
				}
				n := 0
				for _, fl := range st.Fields.List {
					n += max(1, len(fl.Names))
				}
				return figure{line: fmt.Sprintf("fields of the explorer's root model (%s, %s): %d (target ≤ %d)", rootModel, t.pos(ts.Pos()), n, maxRootFields),
					met: n <= maxRootFields}
			}
		}
	}
	return figure{line: fmt.Sprintf("fields of the explorer's root model: no struct %s in %s", rootModel, rootModelFile)}
}

// frontEnd reports whether dir is held to maxFrontLines.
func frontEnd(dir string) bool { return within(dir, "tui") || within(dir, "internal/cli") }

// longFunctions: the non-test functions over their limit, less hotLoops.
func (t *tree) longFunctions() figure {
	type long struct {
		at, name string
		n        int
	}
	var found []long
	for _, f := range t.files {
		if f.test {
			continue
		}
		limit := maxLines
		if frontEnd(f.dir) {
			limit = maxFrontLines
		}
		for _, decl := range f.ast.Decls {
			fn, ok := decl.(*ast.FuncDecl)
			if !ok {
				continue
			}
			n := t.fset.Position(fn.End()).Line - t.fset.Position(fn.Pos()).Line + 1
			name := funcName(fn)
			if _, allowed := hotLoops[f.dir+"."+name]; n <= limit || allowed {
				continue
			}
			found = append(found, long{t.pos(fn.Pos()), name, n})
		}
	}
	slices.SortStableFunc(found, func(a, b long) int { return b.n - a.n })
	var offenders []string
	for _, l := range found {
		offenders = append(offenders, fmt.Sprintf("%s %s %d", l.at, l.name, l.n))
	}
	return figure{
		line: fmt.Sprintf("functions over %d lines in tui/ and internal/cli/, over %d elsewhere (non-test, %d hot loops allowed): %d (target 0)",
			maxFrontLines, maxLines, len(hotLoops), len(found)),
		met:       len(found) == 0,
		offenders: offenders,
	}
}

// funcName is a function's name, Type.Method for a method.
func funcName(fn *ast.FuncDecl) string {
	if fn.Recv == nil || len(fn.Recv.List) == 0 {
		return fn.Name.Name
	}
	typ := fn.Recv.List[0].Type
	for {
		switch x := typ.(type) {
		case *ast.StarExpr:
			typ = x.X
			continue
		case *ast.IndexExpr:
			typ = x.X
			continue
		case *ast.IndexListExpr:
			typ = x.X
			continue
		case *ast.Ident:
			return x.Name + "." + fn.Name.Name
		}
		return fn.Name.Name
	}
}

// layer is the layer of the package directory dir, ok false when layerOf
// places it nowhere.
func layer(dir string) (int, bool) {
	if dir == "" {
		return layerMain, true
	}
	for _, l := range layerOf {
		if within(dir, l.dir) {
			return l.layer, true
		}
	}
	return 0, false
}

// layering: every import of a non-test file from a package of a lower
// layer of one of a higher layer, and the package directories no layer
// holds (their imports cannot be judged). A helper imports as the lowest
// layer does (graph and other helpers only) and may be imported by any.
func (t *tree) layering() figure {
	var offenders []string
	unplaced := map[string]bool{}
	for _, f := range t.files {
		if f.test {
			continue
		}
		from, ok := layer(f.dir)
		if !ok {
			unplaced[f.dir] = true
			continue
		}
		if from == layerSkip {
			continue
		}
		if from == layerHelper {
			from = layerGraph
		}
		dirs, at := t.imports(f)
		for i, d := range dirs {
			to, ok := layer(d)
			if !ok || to == layerSkip || to == layerHelper || to <= from {
				continue
			}
			offenders = append(offenders, fmt.Sprintf("%s %s (%s) imports %s (%s)", t.pos(at[i]), f.dir, layerNames[from], d, layerNames[to]))
		}
	}
	for _, d := range slices.Sorted(maps.Keys(unplaced)) {
		offenders = append(offenders, fmt.Sprintf("%s: a package no layer holds (add it to layerOf)", d))
	}
	return figure{
		line: fmt.Sprintf("imports from a lower layer up to a higher one (%s), and unplaced packages: %d (target 0)",
			strings.Join(layerNames[:layerMain+1], " → "), len(offenders)),
		met:       len(offenders) == 0,
		offenders: offenders,
	}
}
