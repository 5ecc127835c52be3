package randgraph

import (
	"fmt"
	"math/rand"
	"strings"
)

// ScaleQueries is a query set (memoria eval's JSON lines) of n queries for
// the Scale graph of 100,000 nodes (ids N000000 … N099999): each query 1
// to 3 random seeds, R from {1, 0.9, 0.5}, and 5 random relevant nodes of
// grade 1 or 2; seed makes it.
func ScaleQueries(n int, seed int64) []byte {
	r := rand.New(rand.NewSource(seed))
	id := func() string { return fmt.Sprintf("N%06d", r.Intn(100_000)) }
	var b strings.Builder
	for i := range n {
		fmt.Fprintf(&b, `{"id":"q%d","seeds":[`, i)
		for j := range 1 + r.Intn(3) {
			if j > 0 {
				b.WriteString(",")
			}
			fmt.Fprintf(&b, `{"node_id":%q,"score":%v}`, id(), []float64{1, 0.9, 0.5}[r.Intn(3)])
		}
		b.WriteString(`],"relevant":{`)
		for j := range 5 {
			if j > 0 {
				b.WriteString(",")
			}
			fmt.Fprintf(&b, "%q:%d", id(), 1+r.Intn(2))
		}
		b.WriteString("}}\n")
	}
	return []byte(b.String())
}
