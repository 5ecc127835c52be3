// Package retry is the one retry loop of memoria: the retriever's query
// retries (docs/ALGORITHM.md, "Streaming and retries"), the catalog's single
// retry and the loader's batch retries all call Do.
package retry

import (
	"context"
	"time"

	"github.com/memoria-graph/memoria/graph"
)

// Backoff is the pause before retry attempt (0-based): 0.05 s × 2^attempt,
// so 50 ms, 100 ms, 200 ms ...
func Backoff(attempt int) time.Duration {
	return 50 * time.Millisecond << attempt
}

// Do calls fn until it succeeds, fails with an error not marked
// graph.Transient, or has been retried retries times, pausing
// pause(attempt) in between (Backoff when pause is nil). It gives up at
// once when ctx ends, returning ctx's error if it ended during a pause.
func Do(ctx context.Context, retries int, pause func(attempt int) time.Duration, fn func() error) error {
	if pause == nil {
		pause = Backoff
	}
	for attempt := 0; ; attempt++ {
		err := fn()
		if err == nil || !graph.IsTransient(err) || attempt >= retries || ctx.Err() != nil {
			return err
		}
		t := time.NewTimer(pause(attempt))
		select {
		case <-ctx.Done():
			t.Stop()
			return ctx.Err()
		case <-t.C:
		}
	}
}
