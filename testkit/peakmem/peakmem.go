// Package peakmem is test support for the memory benchmarks: it samples the
// Go heap every millisecond and reports the largest value seen, so a
// benchmark can state a peak next to its time (docs/PERFORMANCE.md).
package peakmem

import (
	"runtime"
	"runtime/metrics"
	"testing"
	"time"
)

// HeapObjects is the bytes of live and not-yet-swept heap objects.
func HeapObjects() uint64 {
	s := []metrics.Sample{{Name: "/memory/classes/heap/objects:bytes"}}
	metrics.Read(s)
	return s[0].Value.Uint64()
}

// Sampler records the largest HeapObjects value seen every millisecond
// between Start and End.
type Sampler struct {
	stop chan struct{}
	done chan uint64
}

// Start begins sampling.
func Start() *Sampler {
	p := &Sampler{stop: make(chan struct{}), done: make(chan uint64)}
	go func() {
		peak := HeapObjects()
		t := time.NewTicker(time.Millisecond)
		defer t.Stop()
		for {
			select {
			case <-p.stop:
				p.done <- max(peak, HeapObjects())
				return
			case <-t.C:
				peak = max(peak, HeapObjects())
			}
		}
	}()
	return p
}

// End stops sampling and returns the peak in bytes.
func (p *Sampler) End() uint64 { close(p.stop); return <-p.done }

// Report runs f once more, after a garbage collection, and reports on b
// the heap live before it (base-MB: what the benchmark holds, its graph
// above all) and the peak heap above that while f ran (peak-MB: what one
// run needs at most, garbage not yet collected included).
func Report(b *testing.B, f func()) {
	runtime.GC()
	base := HeapObjects()
	p := Start()
	f()
	peak := p.End()
	b.ReportMetric(float64(base)/(1<<20), "base-MB")
	b.ReportMetric(float64(peak-min(peak, base))/(1<<20), "peak-MB")
}

// Measure runs f after a garbage collection and returns how long it took
// and the peak heap above what was live before it: the figures the load
// benchmarks set beside each other (a reader against the APOC reader).
func Measure(f func() error) (time.Duration, uint64, error) {
	runtime.GC()
	base := HeapObjects()
	p := Start()
	t0 := time.Now()
	err := f()
	d := time.Since(t0)
	peak := p.End()
	return d, peak - min(base, peak), err
}
