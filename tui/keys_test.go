package tui

import (
	"strings"
	"testing"
)

// TestOneRefusalWhereOnlyActivationRuns: on a source with no graph reads
// but Activation Energy's, x (switch retriever), X (the picker) and a tick
// of a ranking retriever in the picker are refused with the same sentence
// (errOnlyActivation), which names the other retrievers: x used to say
// "for the expansion", from when the expansion was the only other one.
// Nothing changes: the retriever stays activation, the picker stays shut.
func TestOneRefusalWhereOnlyActivationRuns(t *testing.T) {
	const want = "only activation can run here: this source offers no graph reads for the other retrievers"
	h := demoHarness(t)
	h.m.runs.nb = nil
	h.focusPane(focusTree) // no text taken
	for _, k := range []string{"x", "X"} {
		h.keys(k)
		h.settle()
		if s := h.lastStatus(); s.Text != want || !s.IsErr {
			t.Errorf("%s: status %q (error %v), want %q", k, s.Text, s.IsErr, want)
		}
		if h.m.retriever != "activation" || h.m.top() != nil {
			t.Errorf("%s: retriever %s, overlay %v: want activation and none", k, h.m.retriever, h.m.top())
		}
	}
	// The picker itself, opened as the root opens it on such a source
	// (X refuses first, so it is opened by hand here): its tick of a
	// ranking retriever says the same.
	h2 := demoHarness(t)
	h2.focusPane(focusTree)
	h2.keys("X")
	if h2.m.top() != h2.m.ov.picker {
		t.Fatalf("X did not open the picker")
	}
	h2.m.ov.picker.Open([]string{"activation"}, errOnlyActivation)
	h2.keys("j", " ")
	h2.settle()
	if s := h2.lastStatus(); !strings.Contains(s.Text, want) {
		t.Errorf("picker tick: status %q, want %q", s.Text, want)
	}
}

// TestTreeHelpFollowsRefusals: the tree's help line offers n/N (to a
// match) and > (to a change) exactly when their keys would not be
// refused: after the first run there is no search and no baseline, so
// neither is offered and n says "no search: / searches the results";
// after a search for "data" n/N are offered; after p pins the run (a
// baseline) > is offered too. The line and the refusal read the same rule
// (noSearch, noBaseline).
func TestTreeHelpFollowsRefusals(t *testing.T) {
	h := demoHarness(t)
	h.focusPane(focusTree)
	offered := func(k string) bool {
		for _, b := range h.m.shortHelp() {
			if b.Help().Key == k {
				return true
			}
		}
		return false
	}
	if offered("n") || offered("N") || offered(">") {
		t.Fatalf("before a search and a baseline the line offers n, N or >: %v", h.m.shortHelp())
	}
	h.keys("n")
	h.settle()
	if s := h.lastStatus(); s.Text != "no search: / searches the results" {
		t.Fatalf("n before a search: status %q", s.Text)
	}
	h.keys("/")
	h.typeText("data")
	h.keys("enter")
	h.settle()
	if !offered("n") || !offered("N") || offered(">") {
		t.Fatalf("after a search: n %v, N %v, > %v; want n and N only", offered("n"), offered("N"), offered(">"))
	}
	h.keys("p")
	h.settle()
	if !offered(">") {
		t.Fatalf("after pinning the line does not offer >: %v", h.m.shortHelp())
	}
}
