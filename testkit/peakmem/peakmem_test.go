package peakmem

import (
	"runtime"
	"testing"
)

var keep []byte

// TestPeakSeesAnAllocation: 64 MiB allocated and kept alive while the
// sampler runs raise the peak to at least 64 MiB above the heap before it.
func TestPeakSeesAnAllocation(t *testing.T) {
	runtime.GC()
	before := HeapObjects()
	p := Start()
	keep = make([]byte, 64<<20)
	for i := range keep {
		keep[i] = 1
	}
	peak := p.End()
	if peak < before+64<<20 {
		t.Fatalf("peak %d bytes, want at least %d (before %d + 64 MiB)", peak, before+64<<20, before)
	}
	keep = nil
}
