package render

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/memoria-graph/memoria/graph"
	"github.com/memoria-graph/memoria/internal/textsafe"
)

// StatsHubsShown is how many hubs StatsText names.
const StatsHubsShown = 10

// StatsText writes a graph's metrics (`memoria stats`, the explorer's
// stats overlay) as aligned lines: counts, relationships by type (type
// names escaped), the degree figures, tags, the clustering coefficient
// (saying when it comes from a sample) and the hubs (ids by DisplayID).
// Averages and the coefficient have 4 significant digits (Num).
func StatsText(m graph.Metrics) string {
	var b strings.Builder
	line := func(label, value string) { fmt.Fprintf(&b, "%-22s %s\n", label, value) }
	line("nodes", strconv.FormatInt(m.Nodes, 10))
	line("relationships", strconv.FormatInt(m.Relationships, 10))
	for _, tc := range m.ByType {
		v := strconv.FormatInt(tc.Count, 10)
		if tc.Type == graph.Relates && m.SelfLoops > 0 {
			v += fmt.Sprintf(" (%d self-loop%s)", m.SelfLoops, plural(m.SelfLoops))
		}
		line("  "+textsafe.Escape(tc.Type), v)
	}
	line("average degree", Num(m.AverageDegree)+" (RELATES, a self-loop once)")
	line("degree p50/p90/p99", fmt.Sprintf("%d / %d / %d (nearest rank)", m.Degree.P50, m.Degree.P90, m.Degree.P99))
	line("max degree", strconv.FormatInt(m.Degree.Max, 10))
	line("distinct tags", strconv.Itoa(m.Tags))
	line("clustering", ClusteringText(m.Clustering))
	line("hubs", HubsText(m))
	return b.String()
}

// ClusteringText is the coefficient with what it was computed over.
func ClusteringText(c graph.Clustering) string {
	if c.Sampled {
		return fmt.Sprintf("%s (clustering from a sample of %d nodes of the %d of degree ≥ 2, seed %d; %d with 2+ neighbours)",
			Num(c.Coefficient), c.Sample, c.Population, c.Seed, c.Nodes)
	}
	return fmt.Sprintf("%s (exact, over the %d nodes with 2+ neighbours)", Num(c.Coefficient), c.Nodes)
}

// HubsText says which nodes are hubs (graph.Metrics.IsHub): their number,
// the least hub degree, and the first StatsHubsShown of them.
func HubsText(m graph.Metrics) string {
	if m.HubDegree == 0 {
		return fmt.Sprintf("none (p99 degree %d is not above the median %d)", m.Degree.P99, m.Degree.P50)
	}
	var b strings.Builder
	fmt.Fprintf(&b, "%d node%s of degree ≥ %d (p99):", m.HubCount, plural(m.HubCount), m.HubDegree)
	for i, h := range m.Hubs {
		if i == StatsHubsShown {
			fmt.Fprintf(&b, " …")
			break
		}
		fmt.Fprintf(&b, " %s (%d)", DisplayID(h.ID), h.Degree)
	}
	return b.String()
}

func plural(n int64) string {
	if n == 1 {
		return ""
	}
	return "s"
}
