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
func ScaleQueries(n int, seed int64) []byte { return scaleQueries(n, seed, false) }

// ScaleTextQueries are ScaleQueries (the same draws) with a question on
// each line too: "query" is "what followed memory I", I the number of the
// query's first seed, whose text ("memory I about … and what followed
// from it") alone holds the word I: the gather's bm25 finds that seed
// first, and the common words bring the rest of its candidates.
func ScaleTextQueries(n int, seed int64) []byte { return scaleQueries(n, seed, true) }

func scaleQueries(n int, seed int64, text bool) []byte {
	r := rand.New(rand.NewSource(seed))
	var b strings.Builder
	for i := range n {
		fmt.Fprintf(&b, `{"id":"q%d","seeds":[`, i)
		first := -1
		for j := range 1 + r.Intn(3) {
			if j > 0 {
				b.WriteString(",")
			}
			k := r.Intn(100_000)
			if first < 0 {
				first = k
			}
			fmt.Fprintf(&b, `{"node_id":"N%06d","score":%v}`, k, []float64{1, 0.9, 0.5}[r.Intn(3)])
		}
		b.WriteString("]")
		if text {
			fmt.Fprintf(&b, `,"query":"what followed memory %d"`, first)
		}
		b.WriteString(`,"relevant":{`)
		for j := range 5 {
			if j > 0 {
				b.WriteString(",")
			}
			fmt.Fprintf(&b, "\"N%06d\":%d", r.Intn(100_000), 1+r.Intn(2))
		}
		b.WriteString("}}\n")
	}
	return []byte(b.String())
}
