package graph

import (
	"cmp"
	"context"
	"math/rand/v2"
	"slices"
)

// Metrics describes a whole graph (`memoria stats`, the explorer's stats
// overlay and hub marks). Every node counts, with an id or without; a
// node's degree is its RELATES degree as docs/ALGORITHM.md's rule 1 counts
// it: each RELATES relationship once, in either direction, a self-loop
// once, parallel relationships each.
type Metrics struct {
	Nodes         int64       `json:"nodes"`
	Relationships int64       `json:"relationships"`
	ByType        []TypeCount `json:"relationships_by_type"`
	// Relates is the number of RELATES relationships, SelfLoops those of
	// them whose two ends are one node.
	Relates   int64 `json:"relates"`
	SelfLoops int64 `json:"relates_self_loops"`
	// AverageDegree is the sum of the degrees over Nodes (2 × Relates −
	// SelfLoops, over Nodes); 0 for an empty graph.
	AverageDegree float64 `json:"average_degree"`
	// Degree holds the degree percentiles (nearest rank: Percentile).
	Degree DegreePercentiles `json:"degree"`
	// Histogram counts the nodes of each degree, by degree: every other
	// degree figure derives from it.
	Histogram []DegreeCount `json:"degree_histogram"`
	// Tags is the number of distinct tags on RELATES relationships.
	Tags       int        `json:"distinct_tags"`
	Clustering Clustering `json:"clustering"`
	// HubDegree is the least degree of a hub (IsHub), 0 when the graph
	// has none; HubCount the number of nodes with an id that are hubs.
	HubDegree int64 `json:"hub_degree"`
	HubCount  int64 `json:"hubs"`
	// Hubs lists hubs with an id, highest degree first, then by id: at
	// most MetricsOptions.MaxHubs of them.
	Hubs []NodeDegree `json:"hub_nodes"`
}

// TypeCount is a relationship type with its number of relationships.
type TypeCount struct {
	Type  string `json:"type"`
	Count int64  `json:"count"`
}

// DegreeCount is how many nodes have one degree.
type DegreeCount struct {
	Degree int64 `json:"degree"`
	Nodes  int64 `json:"nodes"`
}

// NodeDegree is a node's id with its degree.
type NodeDegree struct {
	ID     string `json:"id"`
	Degree int64  `json:"degree"`
}

// DegreePercentiles are the degree's nearest-rank percentiles and maximum.
type DegreePercentiles struct {
	P50 int64 `json:"p50"`
	P90 int64 `json:"p90"`
	P99 int64 `json:"p99"`
	Max int64 `json:"max"`
}

// Clustering is the average local clustering coefficient on the simple
// undirected RELATES graph: parallel relationships count as one link and
// self-loops are ignored. A node's local coefficient is the number of
// linked pairs among its k distinct other neighbours over k(k−1)/2; the
// average is over the nodes with k ≥ 2 (0 when there are none). An engine
// may compute it over a sample of the nodes of degree ≥ 2 (Sampled).
type Clustering struct {
	Coefficient float64 `json:"coefficient"`
	// Nodes is the number of nodes averaged over (k ≥ 2, in the sample
	// when Sampled).
	Nodes int64 `json:"nodes"`
	// Sampled is set when the average is over a seeded sample of Sample
	// of the Population nodes of degree ≥ 2, drawn with Seed
	// (SamplePositions); an exact figure (every such node) leaves it unset.
	Sampled    bool   `json:"sampled"`
	Sample     int64  `json:"sample_size,omitempty"`
	Population int64  `json:"population,omitempty"`
	Seed       uint64 `json:"seed,omitempty"`
}

// MetricsOptions tune a MetricsReader.
type MetricsOptions struct {
	// Sample is how many nodes an engine that samples (Neo4j) computes
	// the clustering over, at most; 0 means DefaultSample.
	Sample int
	// Seed draws the sample (SamplePositions).
	Seed uint64
	// MaxHubs bounds Metrics.Hubs; 0 means DefaultMaxHubs.
	MaxHubs int
}

// Defaults of MetricsOptions.
const (
	DefaultSample  = 1000
	DefaultSeed    = 1
	DefaultMaxHubs = 10000
)

// Normalized fills in MetricsOptions' defaults.
func (o MetricsOptions) Normalized() MetricsOptions {
	if o.Sample <= 0 {
		o.Sample = DefaultSample
	}
	if o.MaxHubs <= 0 {
		o.MaxHubs = DefaultMaxHubs
	}
	return o
}

// MetricsReader computes a graph's Metrics and looks nodes' degrees up.
// Both engines implement it; implementations are safe for concurrent use
// and only read.
type MetricsReader interface {
	Metrics(ctx context.Context, opt MetricsOptions) (Metrics, error)
	// Degrees returns the degree of each node of ids that exists (a node
	// with no RELATES relationship has degree 0; an unknown id is absent).
	Degrees(ctx context.Context, ids []string) (map[string]int64, error)
}

// FillDegrees sets m's Histogram (sorted here), Nodes, AverageDegree,
// Degree and HubDegree from hist, the number of nodes of each degree.
func (m *Metrics) FillDegrees(hist []DegreeCount) {
	hist = slices.Clone(hist)
	slices.SortFunc(hist, func(a, b DegreeCount) int { return cmp.Compare(a.Degree, b.Degree) })
	m.Histogram = hist
	var nodes, sum int64
	for _, h := range hist {
		nodes += h.Nodes
		sum += h.Degree * h.Nodes
	}
	m.Nodes = nodes
	m.AverageDegree = 0
	if nodes > 0 {
		m.AverageDegree = float64(sum) / float64(nodes)
	}
	m.Degree = DegreePercentiles{
		P50: Percentile(hist, 50), P90: Percentile(hist, 90), P99: Percentile(hist, 99), Max: Percentile(hist, 100),
	}
	m.HubDegree = 0
	if m.Degree.P99 > m.Degree.P50 {
		m.HubDegree = m.Degree.P99
	}
}

// Percentile is the nearest-rank p-th percentile (0 < p ≤ 100, whole) of the
// degrees hist counts (sorted by degree): the least degree d such that at
// least ⌈p/100 × N⌉ of the N nodes have a degree ≤ d. It is 0 for an empty
// histogram. Example: degrees 1, 1, 2, 3 give p50 = 1 (rank 2), p90 = 3
// (rank ⌈3.6⌉ = 4).
func Percentile(hist []DegreeCount, p int64) int64 {
	var n int64
	for _, h := range hist {
		n += h.Nodes
	}
	if n == 0 {
		return 0
	}
	rank := max((p*n+99)/100, 1) // ⌈p × n / 100⌉, in integers
	var seen int64
	for _, h := range hist {
		seen += h.Nodes
		if seen >= rank {
			return h.Degree
		}
	}
	return hist[len(hist)-1].Degree
}

// PercentileRank is the percentage of nodes whose degree is at most d, in
// tenths of a percent rounded down (so a hub, whose degree is at least
// p99, is at p99.0 or above, and only the nodes of the highest degree reach
// p100). It is 0 for an empty histogram.
func (m Metrics) PercentileRank(d int64) float64 {
	var n, le int64
	for _, h := range m.Histogram {
		n += h.Nodes
		if h.Degree <= d {
			le += h.Nodes
		}
	}
	if n == 0 {
		return 0
	}
	return float64(le*1000/n) / 10
}

// IsHub reports whether a node of degree d is a hub: its degree is at
// least the p99 degree and the p99 degree is above the median (p50), so a
// graph whose nodes mostly share the top degree has no hubs (HubDegree 0).
// On a graph of 100 or more nodes the hubs are thus the top 1% by degree,
// with the nodes tied with its last; on a smaller one, the nodes of the
// highest degree (nearest rank p99 is then the maximum).
func (m Metrics) IsHub(d int64) bool { return m.HubDegree > 0 && d >= m.HubDegree }

// LocalClustering is one node's figures for the clustering coefficient: k
// its distinct other neighbours, Links the linked pairs among them.
type LocalClustering struct {
	K, Links int64
}

// AverageClustering averages 2 × Links / (K × (K − 1)) over the nodes with
// K ≥ 2, summed in order of (K, Links) so that engines that list the nodes
// in different orders get the same bits. The second result is the number
// of nodes averaged over.
func AverageClustering(locals []LocalClustering) (float64, int64) {
	ls := make([]LocalClustering, 0, len(locals))
	for _, l := range locals {
		if l.K >= 2 {
			ls = append(ls, l)
		}
	}
	if len(ls) == 0 {
		return 0, 0
	}
	slices.SortFunc(ls, func(a, b LocalClustering) int {
		if c := cmp.Compare(a.K, b.K); c != 0 {
			return c
		}
		return cmp.Compare(a.Links, b.Links)
	})
	var sum float64
	for _, l := range ls {
		sum += 2 * float64(l.Links) / float64(l.K*(l.K-1))
	}
	return sum / float64(len(ls)), int64(len(ls))
}

// SamplePositions draws min(size, population) distinct positions in
// [0, population) with a PCG seeded by seed (Floyd's algorithm), sorted:
// the same arguments give the same positions. When size ≥ population it
// is every position.
func SamplePositions(population int64, size int, seed uint64) []int64 {
	if population <= 0 || size <= 0 {
		return nil
	}
	if int64(size) >= population {
		out := make([]int64, population)
		for i := range out {
			out[i] = int64(i)
		}
		return out
	}
	r := rand.New(rand.NewPCG(seed, 0x6d656d6f726961)) // "memoria"
	chosen := make(map[int64]bool, size)
	out := make([]int64, 0, size)
	for j := population - int64(size); j < population; j++ {
		t := r.Int64N(j + 1)
		if chosen[t] {
			t = j
		}
		chosen[t] = true
		out = append(out, t)
	}
	slices.Sort(out)
	return out
}
