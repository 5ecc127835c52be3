package tui

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// pageData is the graph data a page written by o carries (its JSON block,
// render/subgraph): what the checks below read back.
func pageData(t *testing.T, path string) string {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	s := string(b)
	if !strings.HasPrefix(s, "<!DOCTYPE html>") || !strings.Contains(s, "default-src 'none'") {
		t.Fatalf("%s is not the self-contained page", path)
	}
	return s
}

// TestExportPage: o writes the HTML page of what is shown and names its
// path: Activation Energy's scenario A (its 7 nodes, N2010 the deepest,
// and N2007 dashed: N2006 had kept MAX_BRANCHES 3 before it), then, in the compare view of Activation Energy and the expansion, both
// rankings (the expansion's N2007, which Activation Energy lacks, is on
// it). A second page in the same second gets its own name.
func TestExportPage(t *testing.T) {
	h := demoHarness(t)
	h.keys("o")
	h.settle()
	first := filepath.Join(h.m.OutDir, "memoria-page-20260302-093100.html")
	if st := h.lastStatus(); st.IsErr || !strings.Contains(st.Text, first) || !strings.Contains(st.Text, "1 seed of activation") {
		t.Fatalf("status = %+v", st)
	}
	if s := pageData(t, first); !strings.Contains(s, `"N2010"`) || !strings.Contains(s, `"N2007"`) || !strings.Contains(s, `"branch_limit"`) {
		t.Errorf("the Activation Energy page lacks N2010, or N2007 as a loser of the branch limit")
	}
	c := compareDemo(t)
	c.keys("o")
	c.settle()
	second := filepath.Join(c.m.OutDir, "memoria-page-20260302-093100.html")
	if st := c.lastStatus(); st.IsErr || !strings.Contains(st.Text, second) || !strings.Contains(st.Text, "2 rankings compared") {
		t.Fatalf("compare status = %+v", st)
	}
	if s := pageData(t, second); !strings.Contains(s, `"N2007"`) || !strings.Contains(s, `"expansion"`) || !strings.Contains(s, `"activation"`) {
		t.Errorf("the compare page lacks the expansion's N2007 or a retriever")
	}
	c.keys("o")
	c.settle()
	if _, err := os.Stat(filepath.Join(c.m.OutDir, "memoria-page-20260302-093100-2.html")); err != nil {
		t.Errorf("the second page of the same second: %v", err)
	}
}
