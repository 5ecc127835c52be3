package params

import "testing"

// TestStepLog checks the MIN_ACTIVATION 1-2-5 grid: one step from a grid
// value goes to its neighbour (0.005 → 0.01 / 0.002; 0.001 → 0.0005), and
// from a value between grid points to the nearest grid value in that
// direction (0.003 → 0.005 / 0.002; 0.0015 → 0.002 / 0.001). The ends
// stay put (1 up, 1e-6 down).
func TestStepLog(t *testing.T) {
	for _, c := range []struct{ v, up, down float64 }{
		{0.005, 0.01, 0.002},
		{0.0001, 0.0002, 0.00005},
		{0.0002, 0.0005, 0.0001},
		{0.001, 0.002, 0.0005},
		{0.05, 0.1, 0.02},
		{0.003, 0.005, 0.002},
		{0.0015, 0.002, 0.001},
		{1, 1, 0.5},
		{1e-6, 2e-6, 1e-6},
	} {
		if got := stepLog(c.v, 1); got != c.up {
			t.Errorf("stepLog(%v, +1) = %v, want %v", c.v, got, c.up)
		}
		if got := stepLog(c.v, -1); got != c.down {
			t.Errorf("stepLog(%v, -1) = %v, want %v", c.v, got, c.down)
		}
	}
}
