package subgraph

import (
	"bytes"
	"math"
	"strings"
	"testing"

	"github.com/memoria-graph/memoria/retriever"
)

// TestRefusesNonFinite: a ranking whose hit C scores +Inf and whose route
// to it has a factor of NaN (what a retriever's overflow would leave) is
// refused by the page and by GraphML with an error naming the node, or
// the link, and the value; the page used to die in encoding/json naming
// neither, and GraphML wrote "+Inf" as a score. Nothing is written.
func TestRefusesNonFinite(t *testing.T) {
	r := retriever.Ranking{Retriever: "spreading", Seeds: []retriever.SeedStatus{{NodeID: "A", Score: 1, Found: true}},
		Hits: []retriever.Hit{{Rank: 1, NodeID: "C", Score: math.Inf(1), Origin: retriever.OriginExpanded, Seed: "A",
			Route: []retriever.Hop{{From: "A", To: "C", Type: "RELATES", Weight: 1, Factor: 0.7}}}}}
	g := FromRanking(r, 0)
	want := `node "C": score +Inf is not a finite number`
	if b, err := HTML(g); err == nil || !strings.Contains(err.Error(), want) || b != nil {
		t.Errorf("HTML: %d bytes, error %v; want none and an error with %q", len(b), err, want)
	}
	var out bytes.Buffer
	if err := GraphML(&out, g); err == nil || !strings.Contains(err.Error(), "graphml: "+want) || out.Len() > 0 {
		t.Errorf("GraphML: %q, error %v; want nothing and an error with %q", out.String(), err, want)
	}

	r.Hits[0].Score = 0.7
	r.Hits[0].Route[0].Factor = math.NaN()
	want = `link ("A")-[:RELATES]->("C"): factor NaN is not a finite number`
	if b, err := HTML(FromRanking(r, 0)); err == nil || !strings.Contains(err.Error(), want) || b != nil {
		t.Errorf("HTML: %d bytes, error %v; want none and an error with %q", len(b), err, want)
	}
}
