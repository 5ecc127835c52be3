package inmem

import (
	"fmt"
	"strings"
	"testing"
)

// TestLoadProgress loads 20,000 nodes and 19,999 relationships (a chain),
// about 3.3 MB, with a size given. Expected: reports at least every
// progressStep (1 MiB) bytes, so at least 3 before the last (3.3 MB /
// 1 MiB, rounded down); byte counts and node and relationship counts
// never go down, two reports are at least 1 MiB apart, and the last says
// every byte (the total) and the whole graph: 20,000 nodes, 19,999
// relationships.
func TestLoadProgress(t *testing.T) {
	var sb strings.Builder
	const n = 20000
	for i := 0; i < n; i++ {
		fmt.Fprintf(&sb, `{"type":"node","id":"%d","labels":["Memory"],"properties":{"id":"N%d","text":"node number %d of a chain built for the progress test"}}`+"\n", i, i, i)
	}
	for i := 1; i < n; i++ {
		fmt.Fprintf(&sb, `{"type":"relationship","id":"%d","label":"RELATES","properties":{"weight":0.5,"tags":["a"]},"start":{"id":"%d"},"end":{"id":"%d"}}`+"\n", i, i-1, i)
	}
	in := sb.String()
	total := int64(len(in))
	var got []Progress
	g, err := LoadProgress(strings.NewReader(in), "chain", total, func(p Progress) { got = append(got, p) })
	if err != nil {
		t.Fatal(err)
	}
	if g.NodeCount() != n {
		t.Fatalf("%d nodes", g.NodeCount())
	}
	if want := int(total/progressStep) + 1; len(got) < want {
		t.Fatalf("%d reports for %d bytes, want at least %d", len(got), total, want)
	}
	for i := 1; i < len(got); i++ {
		a, b := got[i-1], got[i]
		if b.Bytes < a.Bytes || b.Nodes < a.Nodes || b.Rels < a.Rels || b.Total != total {
			t.Fatalf("report %d went back or changed total: %+v after %+v", i, b, a)
		}
		if i < len(got)-1 && b.Bytes-a.Bytes < progressStep {
			t.Fatalf("reports %d and %d only %d bytes apart", i-1, i, b.Bytes-a.Bytes)
		}
	}
	if last := got[len(got)-1]; last != (Progress{Bytes: total, Total: total, Nodes: n, Rels: n - 1}) {
		t.Fatalf("last report %+v, want every byte, %d nodes, %d relationships", last, n, n-1)
	}
	if mid := got[len(got)/2]; mid.Nodes == 0 {
		t.Errorf("a report in the middle counts no nodes: %+v", mid)
	}
}
