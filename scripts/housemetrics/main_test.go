package main

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// writeTree writes files (slash path to source) under a new temporary
// directory and returns it.
func writeTree(t *testing.T, files map[string]string) string {
	t.Helper()
	root := t.TempDir()
	for name, src := range files {
		p := filepath.Join(root, filepath.FromSlash(name))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(src), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return root
}

// body is a function of n lines in all, from `func` to its closing brace.
func body(name string, n int) string {
	return "func " + name + "() {\n" + strings.Repeat("\t_ = 0\n", n-2) + "}\n"
}

// fakeHouse is a tiny module with one offence of each kind, and the same
// offences in test files, which do not count: ppr (a ranking retriever: it
// exports Spec) imported by the registry and by tui/pick.go; `case "ppr"`
// at internal/cli/run.go:5; "activation" (a retriever through the
// registry's import and its const Name, but no Spec) as a literal at
// render/r.go:3; a Model of 21 fields (a, b on one line count two, the
// embedded one counts one); tui/long.go's f of 81 lines (over 80 in tui/)
// and graph/long.go's g of 121 (over 120), beside tui/short.go's 80 and
// graph/ok.go's 120, which are within; graph importing render (graph is
// below render); and experimental/, which no layer holds.
func fakeHouse(t *testing.T) string {
	var fields strings.Builder
	fields.WriteString("package tui\n\ntype Model struct {\n\ta, b int\n\tfmt.Stringer\n")
	for i := range 18 {
		fields.WriteString("\tf" + string(rune('a'+i)) + " int\n")
	}
	fields.WriteString("}\n")
	return writeTree(t, map[string]string{
		"go.mod":                         "module example.com/fake\n\ngo 1.26\n",
		"retriever/ppr/ppr.go":           "package ppr\n\nconst Name = \"ppr\"\n\nvar Spec = 1\n",
		"retriever/activation/a.go":      "package activation\n\nconst Name = \"activation\"\n",
		"retriever/signals/s.go":         "package signals\n\nconst Name = \"signals\"\n",
		"retriever/registry/registry.go": "package registry\n\nimport (\n\t_ \"example.com/fake/retriever/activation\"\n\t_ \"example.com/fake/retriever/ppr\"\n)\n",
		"tui/pick.go":                    "package tui\n\nimport _ \"example.com/fake/retriever/ppr\"\n",
		"tui/pick_test.go":               "package tui\n\nimport _ \"example.com/fake/retriever/ppr\"\n\nvar _ = \"ppr\"\n\n" + body("long", 200),
		"tui/model.go":                   fields.String(),
		"tui/long.go":                    "package tui\n\n" + body("f", 81),
		"tui/short.go":                   "package tui\n\n" + body("s", 80),
		"graph/long.go":                  "package graph\n\n" + body("g", 121),
		"graph/ok.go":                    "package graph\n\n" + body("h", 120),
		"graph/up.go":                    "package graph\n\nimport _ \"example.com/fake/render\"\n",
		"render/r.go":                    "package render\n\nvar x = \"activation\"\nvar y = \"signals\"\n",
		"internal/cli/run.go":            "package cli\n\nfunc run(n string) {\n\tswitch n {\n\tcase \"ppr\":\n\t}\n}\n",
		"internal/textsafe/t.go":         "package textsafe\n",
		"experimental/e.go":              "package experimental\n",
		"main.go":                        "package main\n\nimport _ \"example.com/fake/internal/cli\"\n",
	})
}

// TestFakeHouse: each offence of fakeHouse is reported under its figure,
// nothing else is, and every figure misses its target.
func TestFakeHouse(t *testing.T) {
	figs, err := analyse(fakeHouse(t))
	if err != nil {
		t.Fatal(err)
	}
	var out bytes.Buffer
	if missed := report(&out, figs); missed != len(figs) || len(figs) != 6 {
		t.Fatalf("%d of %d figures missed, want all 6:\n%s", missed, len(figs), out.String())
	}
	want := []struct {
		line      string
		offenders []string
	}{
		{"retriever ppr: imported by 2 non-test file(s) outside retriever/ppr", []string{"tui/pick.go"}},
		{"case clauses over a retriever's name (activation, ppr) outside retriever/: 1", []string{`internal/cli/run.go:5 case "ppr"`}},
		{"string literals equal to a retriever's name outside retriever/: 2", []string{`internal/cli/run.go:5 "ppr"`, `render/r.go:3 "activation"`}},
		{"fields of the explorer's root model (Model, tui/model.go:3): 21 (target ≤ 20)", nil},
		{"functions over 80 lines in tui/ and internal/cli/, over 120 elsewhere (non-test, 2 hot loops allowed): 2", []string{"graph/long.go:3 g 121", "tui/long.go:3 f 81"}},
		{"imports from a lower layer up to a higher one", []string{"graph/up.go:3 graph (graph) imports render (render)", "experimental: a package no layer holds (add it to layerOf)"}},
	}
	for i, w := range want {
		f := figs[i]
		if !strings.HasPrefix(f.line, w.line) || f.met || strings.Join(f.offenders, "\n") != strings.Join(w.offenders, "\n") {
			t.Errorf("figure %d: %q met %v offenders %q\nwant %q offenders %q", i, f.line, f.met, f.offenders, w.line, w.offenders)
		}
	}
}

// TestCleanHouse: a tree that meets every target (the retriever imported by
// the registry alone, helpers imported from the lowest layer, a 20-field
// model, functions at their limits) reports no offender.
func TestCleanHouse(t *testing.T) {
	root := writeTree(t, map[string]string{
		"go.mod":                         "module example.com/clean\n",
		"retriever/ppr/ppr.go":           "package ppr\n\nconst Name = \"ppr\"\n\nvar Spec = 1\n",
		"retriever/registry/registry.go": "package registry\n\nimport _ \"example.com/clean/retriever/ppr\"\n",
		"graph/g.go":                     "package graph\n\nimport _ \"example.com/clean/internal/textsafe\"\n\n" + body("g", 120),
		"internal/textsafe/t.go":         "package textsafe\n",
		"testkit/k/k.go":                 "package k\n\nimport _ \"example.com/clean/tui\"\n",
		"tui/model.go":                   "package tui\n\ntype Model struct {\n\ta, b, c, d, e, f, g, h, i, j, k, l, m, n, o, p, q, r, s, t int\n}\n\n" + body("f", 80),
	})
	figs, err := analyse(root)
	if err != nil {
		t.Fatal(err)
	}
	var out bytes.Buffer
	if missed := report(&out, figs); missed != 0 {
		t.Fatalf("%d missed:\n%s", missed, out.String())
	}
}
