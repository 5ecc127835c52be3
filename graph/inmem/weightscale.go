package inmem

// MaxWeight is the largest weight of a traversed relationship (RelWeight:
// its stored weight, or the mapping's default weight for one without),
// 0 when none has one.
func (g *Graph) MaxWeight() float64 {
	largest := 0.0
	for e := range g.relWeight {
		if g.trav[g.relType[e]] && g.relFlags[e]&fWeight != 0 && g.relWeight[e] > largest {
			largest = g.relWeight[e]
		}
	}
	return largest
}

// ScaleWeightsByMax divides the weight every traversed relationship is
// walked with by the largest (MaxWeight), so that it lies in (0, 1]
// (--weight-scale max, docs/CLI.md): LightRAG sums an edge's weight when
// it merges duplicates. The weight properties stay as stored (shown,
// filtered on and exported so). It returns the divisor, and does nothing
// when no weight is above 0. It must be called before the graph is used
// or shared: a *Graph is immutable from then on.
func (g *Graph) ScaleWeightsByMax() float64 {
	largest := g.MaxWeight()
	if largest <= 0 {
		return 0
	}
	for e := range g.relWeight {
		if !g.trav[g.relType[e]] || g.relFlags[e]&fWeight == 0 {
			continue
		}
		if f := g.relFlags[e]; f&fWeightCompact != 0 {
			// The property as stored moves to extra, as a weight that is
			// not rebuilt from the arrays is kept.
			var stored any = g.relWeight[e]
			if f&fWeightInt != 0 {
				stored = int64(g.relWeight[e])
			}
			if g.extra == nil {
				g.extra = make(map[int32]map[string]any)
			}
			m := g.extra[int32(e)]
			if m == nil {
				m = make(map[string]any, 1)
				g.extra[int32(e)] = m
			}
			m[g.weightKey] = stored
			g.relFlags[e] = f &^ (fWeightCompact | fWeightInt)
		}
		g.relWeight[e] /= largest
	}
	g.strengths = nil
	return largest
}
