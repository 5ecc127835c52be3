package cli

import "math"

// twice is 2k, saturating at math.MaxInt: the ranking retrievers of an
// HTML page run to 2K (the hits beyond K its losers), and --top-k
// 9223372036854775807 doubled wrapped to -2 ("top k must be at least 1,
// got -2", exit 1). A K that large is as good as unbounded either way.
func twice(k int) int {
	if k > math.MaxInt/2 {
		return math.MaxInt
	}
	return 2 * k
}
