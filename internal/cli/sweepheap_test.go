package cli

import (
	"math"
	"runtime"
	"runtime/debug"
	"testing"
)

// TestHoldHeapToLoad: with no limit set (GOMEMLIMIT unset: the runtime's
// math.MaxInt64), holdHeapToLoad sets one no lower than the collector's
// current goal (so it never asks for less than the default rule already
// allows) nor than sweepHeapFloor, and its function puts math.MaxInt64
// back; with a lower limit
// already set (1 MiB: below the collector's smallest goal, 4 MB), it keeps
// that one.
func TestHoldHeapToLoad(t *testing.T) {
	old := debug.SetMemoryLimit(math.MaxInt64)
	defer debug.SetMemoryLimit(old)
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	restore := holdHeapToLoad()
	got := debug.SetMemoryLimit(-1)
	if got == math.MaxInt64 || uint64(got) < ms.NextGC*9/10 || got < sweepHeapFloor {
		t.Errorf("limit %d, want one set, near or above the goal %d and at least %d", got, ms.NextGC, sweepHeapFloor)
	}
	restore()
	if got := debug.SetMemoryLimit(-1); got != math.MaxInt64 {
		t.Errorf("after restore the limit is %d, want %d", got, int64(math.MaxInt64))
	}
	low := int64(1 << 20)
	debug.SetMemoryLimit(low)
	restore = holdHeapToLoad()
	if got := debug.SetMemoryLimit(-1); got != low {
		t.Errorf("with GOMEMLIMIT %d the limit is %d, want it kept", low, got)
	}
	restore()
}
