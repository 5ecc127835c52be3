package randgraph

import (
	"fmt"
	"math"
	"math/rand/v2"
	"strconv"

	"github.com/memoria-graph/memoria/retriever"
)

// ScaleVocab is the number of distinct tags Scale draws from.
const ScaleVocab = 50

var scaleLabels = []string{"UserRequest", "UserPreference", "AgentAnswer", "AgentAction", "Event", "DataSource"}

// ScaleTag is the i-th tag of Scale's vocabulary: topic_00, topic_01, ...
func ScaleTag(i int) string { return fmt.Sprintf("topic_%02d", i) }

// ScaleSeeds are the five seeds of the benchmarks on Scale's graph of n
// nodes (docs/PERFORMANCE.md): N%06d of (i × 37813 + 11) mod n, R 0.95 −
// 0.05i, for i = 0 … 4.
func ScaleSeeds(n int) []retriever.Seed {
	seeds := make([]retriever.Seed, 5)
	for i := range seeds {
		seeds[i] = retriever.Seed{NodeID: fmt.Sprintf("N%06d", (i*37_813+11)%n), Score: 0.95 - 0.05*float64(i)}
	}
	return seeds
}

// Scale writes a deterministic random graph as APOC JSON lines, for
// benchmarks: n nodes (application ids N000000..., one of the six memory
// labels each) and m RELATES relationships. One endpoint of each
// relationship is uniform, the other is drawn over a shuffled node order at
// index n·u^hubPower, so degrees follow a power-law-like tail: with
// hubPower 2.5 the largest hub has about 1% of all relationships' hub ends
// ((1/n)^(1/2.5) of them), with 2 about 0.3%.
// Weights are uniform in [0.25, 1] with two decimals; each relationship
// has 0–4 tags (duplicates possible) from a vocabulary of ScaleVocab,
// skewed towards the first ones (index = vocab·u²).
func Scale(n, m int, hubPower float64, seed uint64) []byte { return scale(n, m, hubPower, seed, false) }

// ScaleLightRAG is Scale's graph written in LightRAG's shape (the
// lightrag schema preset, docs/RETRIEVERS.md "Other schemas"), from the
// same draws, so the same nodes, relationships, weights and tags: each
// node has the workspace label base and its memory label (also its
// entity_type), is keyed by entity_id (N000000...) and holds its text as
// description; each relationship is DIRECTED, with its weight and its
// tags joined by commas as one keywords string.
func ScaleLightRAG(n, m int, hubPower float64, seed uint64) []byte {
	return scale(n, m, hubPower, seed, true)
}

// scale writes Scale's graph, in LightRAG's shape when lightrag.
func scale(n, m int, hubPower float64, seed uint64, lightrag bool) []byte {
	r := rand.New(rand.NewPCG(seed, 0x9e3779b97f4a7c15))
	hubs := r.Perm(n)
	b := make([]byte, 0, n*110+m*180)
	for i := 0; i < n; i++ {
		label := scaleLabels[r.IntN(len(scaleLabels))]
		b = append(b, `{"type":"node","id":"`...)
		b = strconv.AppendInt(b, int64(i), 10)
		if lightrag {
			b = append(b, `","labels":["base","`...)
			b = append(b, label...)
			b = append(b, `"],"properties":{"entity_id":"N`...)
			b = fmt.Appendf(b, "%06d", i)
			b = append(b, `","entity_type":"`...)
			b = append(b, label...)
			b = append(b, `","description":"memory `...)
		} else {
			b = append(b, `","labels":["`...)
			b = append(b, label...)
			b = append(b, `"],"properties":{"id":"N`...)
			b = fmt.Appendf(b, "%06d", i)
			b = append(b, `","text":"memory `...)
		}
		b = strconv.AppendInt(b, int64(i), 10)
		b = append(b, ` about `...)
		b = append(b, ScaleTag(r.IntN(ScaleVocab))...)
		b = append(b, ` and what followed from it"}}`...)
		b = append(b, '\n')
	}
	for j := 0; j < m; j++ {
		a := r.IntN(n)
		h := hubs[int(float64(n)*math.Pow(r.Float64(), hubPower))]
		if r.IntN(2) == 0 {
			a, h = h, a
		}
		w := math.Round((0.25+0.75*r.Float64())*100) / 100
		b = append(b, `{"type":"relationship","id":"`...)
		b = strconv.AppendInt(b, int64(j), 10)
		if lightrag {
			b = append(b, `","label":"DIRECTED","properties":{"keywords":"`...)
		} else {
			b = append(b, `","label":"RELATES","properties":{"tags":[`...)
		}
		for k := r.IntN(5); k > 0; k-- {
			if !lightrag {
				b = append(b, '"')
			}
			b = append(b, ScaleTag(int(ScaleVocab*math.Pow(r.Float64(), 2)))...)
			if !lightrag {
				b = append(b, '"')
			}
			if k > 1 {
				b = append(b, ',')
			}
		}
		if lightrag {
			b = append(b, `","weight":`...)
		} else {
			b = append(b, `],"weight":`...)
		}
		b = strconv.AppendFloat(b, w, 'f', -1, 64)
		if w == math.Trunc(w) {
			b = append(b, ".0"...)
		}
		if lightrag {
			b = appendEndsLabelled(b, a, h, "base")
		} else {
			b = appendEnds(b, a, h)
		}
	}
	return b
}

// appendEnds closes a relationship line whose properties are open: the
// properties' brace, its start and end nodes, the newline.
func appendEnds(b []byte, start, end int) []byte { return appendEndsLabelled(b, start, end, "Memory") }

// appendEndsLabelled is appendEnds with the ends' label.
func appendEndsLabelled(b []byte, start, end int, label string) []byte {
	b = append(b, `},"start":{"id":"`...)
	b = strconv.AppendInt(b, int64(start), 10)
	b = append(b, `","labels":["`...)
	b = append(b, label...)
	b = append(b, `"]},"end":{"id":"`...)
	b = strconv.AppendInt(b, int64(end), 10)
	b = append(b, `","labels":["`...)
	b = append(b, label...)
	b = append(b, `"]}}`...)
	return append(b, '\n')
}
