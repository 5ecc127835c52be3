package retry_test

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/memoria-graph/memoria/graph"
	"github.com/memoria-graph/memoria/internal/retry"
)

// TestBackoff is the specification's schedule, 0.05 s × 2^attempt: 50 ms,
// 100 ms, 200 ms, 400 ms for attempts 0 to 3.
func TestBackoff(t *testing.T) {
	for i, want := range []time.Duration{50 * time.Millisecond, 100 * time.Millisecond, 200 * time.Millisecond, 400 * time.Millisecond} {
		if got := retry.Backoff(i); got != want {
			t.Errorf("Backoff(%d) = %v, want %v", i, got, want)
		}
	}
}

// TestDo: a transient error is tried retries+1 times in all; a permanent
// one once; success stops at once.
func TestDo(t *testing.T) {
	fast := func(int) time.Duration { return time.Microsecond }
	for _, c := range []struct {
		name    string
		err     error
		retries int
		want    int
	}{
		{"transient", graph.Transient(errors.New("reset")), 2, 3},
		{"permanent", errors.New("syntax"), 2, 1},
		{"ok", nil, 2, 1},
	} {
		calls := 0
		err := retry.Do(context.Background(), c.retries, fast, func() error { calls++; return c.err })
		if calls != c.want || !errors.Is(err, c.err) {
			t.Errorf("%s: %d calls, err %v; want %d calls", c.name, calls, err, c.want)
		}
	}
}
