package graph

import (
	"slices"
	"testing"
)

// TestPercentileNearestRank works the nearest-rank rule by hand. Degrees
// 0, 1, 1, 2, 3, 3, 3, 5, 8, 13 (N = 10): p50 is rank ⌈5⌉ = 5, the fifth
// smallest, 3; p90 rank 9, 8; p99 rank ⌈9.9⌉ = 10, 13; p100 the maximum.
// For a single node every percentile is its degree.
func TestPercentileNearestRank(t *testing.T) {
	hist := []DegreeCount{{0, 1}, {1, 2}, {2, 1}, {3, 3}, {5, 1}, {8, 1}, {13, 1}}
	for _, c := range []struct{ p, want int64 }{{1, 0}, {10, 0}, {11, 1}, {30, 1}, {40, 2}, {50, 3}, {70, 3}, {71, 5}, {90, 8}, {99, 13}, {100, 13}} {
		if got := Percentile(hist, c.p); got != c.want {
			t.Errorf("p%d = %d, want %d", c.p, got, c.want)
		}
	}
	if got := Percentile([]DegreeCount{{7, 1}}, 50); got != 7 {
		t.Errorf("one node: p50 = %d, want 7", got)
	}
	if got := Percentile(nil, 50); got != 0 {
		t.Errorf("empty: p50 = %d, want 0", got)
	}
}

// TestFillDegreesAndHubs: a triangle A, B, C with D hanging off C has
// degrees 2, 2, 3, 1: average 8 / 4 = 2, p50 = 2 (rank 2), p90 = p99 = 3
// (rank 4), so the hub degree is 3 (above the median): C alone. Its
// percentile rank is 100 (4 of 4 nodes at most 3), A's 75, D's 25. When
// the top degree is the median's (degrees 0, 3, 3, 3) nobody is a hub.
func TestFillDegreesAndHubs(t *testing.T) {
	var m Metrics
	m.FillDegrees([]DegreeCount{{3, 1}, {1, 1}, {2, 2}})
	if m.Nodes != 4 || m.AverageDegree != 2 || m.Degree != (DegreePercentiles{P50: 2, P90: 3, P99: 3, Max: 3}) || m.HubDegree != 3 {
		t.Fatalf("got nodes %d, average %v, %+v, hub degree %d", m.Nodes, m.AverageDegree, m.Degree, m.HubDegree)
	}
	if !m.IsHub(3) || m.IsHub(2) {
		t.Error("IsHub: want degree 3 a hub and 2 not")
	}
	for d, want := range map[int64]float64{3: 100, 2: 75, 1: 25, 0: 0} {
		if got := m.PercentileRank(d); got != want {
			t.Errorf("PercentileRank(%d) = %v, want %v", d, got, want)
		}
	}
	m.FillDegrees([]DegreeCount{{0, 1}, {3, 3}})
	if m.HubDegree != 0 || m.IsHub(3) {
		t.Errorf("degrees 0,3,3,3: hub degree %d, want 0 (p99 = p50)", m.HubDegree)
	}
	// 1000 nodes: 990 of degree 1, 10 of degree 50: p99 is rank 990, 1,
	// equal to the median: no hubs; one more of degree 50 in place of a 1
	// puts rank 990 at 50.
	m.FillDegrees([]DegreeCount{{1, 990}, {50, 10}})
	if m.HubDegree != 0 {
		t.Errorf("990×1, 10×50: hub degree %d, want 0", m.HubDegree)
	}
	m.FillDegrees([]DegreeCount{{1, 989}, {50, 11}})
	if m.HubDegree != 50 || m.PercentileRank(50) != 100 || m.PercentileRank(1) != 98.9 {
		t.Errorf("989×1, 11×50: hub degree %d, ranks %v %v", m.HubDegree, m.PercentileRank(50), m.PercentileRank(1))
	}
}

// TestAverageClustering: locals (k 2, 1 link) = 1, (k 3, 1 link) = 1/3,
// a node with k = 1 left out: (1 + 1/3) / 2 = 2/3 over 2 nodes, whatever
// the order.
func TestAverageClustering(t *testing.T) {
	a, n := AverageClustering([]LocalClustering{{3, 1}, {1, 0}, {2, 1}})
	b, _ := AverageClustering([]LocalClustering{{2, 1}, {3, 1}})
	if n != 2 || a != b || a < 0.6666666 || a > 0.6666667 {
		t.Errorf("got %v over %d (other order %v), want 2/3 over 2", a, n, b)
	}
	if c, n := AverageClustering(nil); c != 0 || n != 0 {
		t.Errorf("empty: %v over %d", c, n)
	}
}

// TestSamplePositions: distinct, sorted, in range, the same for the same
// seed, another for another seed, and everything when the sample is at
// least the population.
func TestSamplePositions(t *testing.T) {
	a := SamplePositions(1000, 50, 7)
	if len(a) != 50 || !slices.IsSorted(a) || a[0] < 0 || a[49] >= 1000 {
		t.Fatalf("got %v", a)
	}
	if len(slices.Compact(slices.Clone(a))) != 50 {
		t.Error("duplicate positions")
	}
	if !slices.Equal(a, SamplePositions(1000, 50, 7)) {
		t.Error("same seed, other sample")
	}
	if slices.Equal(a, SamplePositions(1000, 50, 8)) {
		t.Error("other seed, same sample")
	}
	if got := SamplePositions(3, 5, 1); !slices.Equal(got, []int64{0, 1, 2}) {
		t.Errorf("small population: %v", got)
	}
}
