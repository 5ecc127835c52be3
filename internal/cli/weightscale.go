package cli

import (
	"context"
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/memoria-graph/memoria/graph"
	"github.com/memoria-graph/memoria/graph/apoc"
	"github.com/memoria-graph/memoria/graph/inmem"
	"github.com/memoria-graph/memoria/internal/textsafe"
)

// scaleWeights applies --weight-scale to a source just opened
// (docs/CLI.md): max divides every traversed weight of an in-memory graph
// by the largest, said on stderr; none keeps them, and a graph whose
// traversed weights exceed 1 gets the hint on stderr. Neo4j is refused
// with max: its weights are read in its queries, which do not scale them.
func (s *sourceFlags) scaleWeights(ctx context.Context, env Env, src graph.Source) (graph.Source, error) {
	g, ok := src.(*inmem.Graph)
	if !ok {
		if s.weightScale == "max" {
			_ = src.Close(ctx)
			return nil, usagef("--weight-scale max applies to --graph files and the demo graph: %s reads its weights in its queries, unscaled",
				textsafe.Escape(src.Describe()))
		}
		return src, nil
	}
	name := s.graph
	if name == "" {
		name = "demo graph"
	}
	if s.weightScale == "max" {
		if by := g.ScaleWeightsByMax(); by > 0 {
			fmt.Fprintln(env.Stderr, textsafe.Escape(fmt.Sprintf("memoria: %s: --weight-scale max: every traversed weight divided by %s, the largest",
				name, strconv.FormatFloat(by, 'g', -1, 64))))
		}
		return g, nil
	}
	if largest := g.MaxWeight(); largest > 1 && !s.hinted {
		fmt.Fprintln(env.Stderr, textsafe.Escape(fmt.Sprintf("memoria: %s: traversed weights run to %s, above 1, where Activation Energy's rules expect [0, 1]: %s",
			name, strconv.FormatFloat(largest, 'g', -1, 64), weightScaleHint)))
	}
	return g, nil
}

// weightScaleHint is the hint where traversed weights exceed 1.
const weightScaleHint = "--weight-scale max divides each by the largest"

// hintWeights is g's report with the hint added to the checker's warning
// of weights outside the specification's range when one exceeds 1 and
// --weight-scale is not max (scaleWeights then prints no line of its
// own).
func (s *sourceFlags) hintWeights(g *inmem.Graph) apoc.Report {
	rep := g.Report()
	if s.weightScale == "max" || g.MaxWeight() <= 1 {
		return rep
	}
	warns := slices.Clone(rep.Warnings)
	for i, w := range warns {
		if strings.HasPrefix(w.What, "RELATES weights outside") {
			warns[i].Example += "; " + weightScaleHint
			s.hinted = true
		}
	}
	rep.Warnings = warns
	return rep
}
