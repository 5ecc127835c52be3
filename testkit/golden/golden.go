// Package golden is the one golden-file mechanism of memoria's tests: Check
// compares a test's output with a file and rewrites the file instead when
// the tests run with -update.
//
// The -update flag is the one charmbracelet/x/exp/golden registers (teatest
// imports it too); importing it here makes sure it exists exactly once, so
// `go test ./... -update` means the same in every package.
package golden

import (
	"flag"
	"os"
	"path/filepath"
	"strings"
	"testing"

	_ "github.com/charmbracelet/x/exp/golden" // registers -update
)

// Updating reports whether the tests run with -update.
func Updating() bool {
	f := flag.Lookup("update")
	return f != nil && f.Value.String() == "true"
}

// Check compares got with the file at path byte for byte (trailing spaces
// count: they are part of a layout). With -update it writes got to path
// (creating its directory) instead. A difference fails the test naming the
// first line that differs, both versions of it, and how to accept the new
// output.
func Check(t testing.TB, path, got string) {
	t.Helper()
	if Updating() {
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, []byte(got), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run the test with -update to create it)", err)
	}
	if got == string(want) {
		return
	}
	gl, wl := strings.Split(got, "\n"), strings.Split(string(want), "\n")
	for i := 0; i < max(len(gl), len(wl)); i++ {
		var g, w string
		if i < len(gl) {
			g = gl[i]
		}
		if i < len(wl) {
			w = wl[i]
		}
		if g != w {
			t.Fatalf("%s differs at line %d:\n got: %q\nwant: %q\n--- got ---\n%s\n(run the test with -update to accept)", path, i+1, g, w, got)
		}
	}
	t.Fatalf("%s differs", path)
}
