package tui

import (
	"context"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/memoria-graph/memoria/retriever"
	"github.com/memoria-graph/memoria/retriever/activation"
)

// fakeSnapshot is the demo graph behind a pretend snapshot: a run whose
// Open finds read set "reads" 3 nodes from the server; the others replay.
type fakeSnapshot struct {
	*fakeSource
	mu             sync.Mutex
	read           bool
	nodes, fetched int
	since          time.Time
	resets         int
}

func (f *fakeSnapshot) Open(ctx context.Context) (activation.Expander, func(context.Context) error, error) {
	f.mu.Lock()
	if f.read {
		f.read = false
		f.nodes, f.fetched = f.nodes+3, f.fetched+3
		if f.since.IsZero() {
			f.since = time.Date(2026, 3, 2, 9, 30, 0, 0, time.UTC)
		}
	}
	f.mu.Unlock()
	return f.fakeSource.Open(ctx)
}

func (f *fakeSnapshot) Held() (int, int, time.Time) {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.nodes, f.fetched, f.since
}

func (f *fakeSnapshot) Reset() {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.nodes, f.fetched, f.since, f.read = 0, 0, time.Time{}, true // as onneo4j.Snapshot.Reset
	f.resets++
}

// TestSnapshotStatusAndReread: the explorer over a snapshot backend
// (docs/ALGORITHM.md "Replaying from a snapshot"). The first run reads 3
// nodes: the status line says "read 3 nodes from Neo4j · snapshot: 3 nodes
// · R re-runs on the server". A threshold key (MAX_DEPTH 5 → 6) replays:
// "replayed from snapshot: 3 nodes, 1 min 0 s old · R re-runs on the
// server" (the snapshot was taken at 9:30:00, the harness's clock reads
// 9:31:00). R forgets the snapshot (one Reset) and runs again, which reads
// again: "read 3 nodes from Neo4j · snapshot: 3 nodes".
func TestSnapshotStatusAndReread(t *testing.T) {
	snap := &fakeSnapshot{fakeSource: loadDemo(t), read: true}
	h := newHarness(t, snap.fakeSource, Options{Backend: snap, Seeds: []retriever.Seed{demoSeed}, Tags: demoTags})
	status := func() string { return h.lastStatus().Text }
	h.waitFor("the first run's status", func() bool { return strings.HasPrefix(status(), "read ") })
	if want := "read 3 nodes from Neo4j · snapshot: 3 nodes · R re-runs on the server"; status() != want {
		t.Errorf("first run: %q, want %q", status(), want)
	}
	h.focusPane(focusParams)
	h.keys("+")
	h.waitFor("the replay's status", func() bool { return strings.HasPrefix(status(), "replayed") })
	if want := "replayed from snapshot: 3 nodes, 1 min 0 s old · R re-runs on the server"; status() != want {
		t.Errorf("replay: %q, want %q", status(), want)
	}
	h.keys("R")
	h.waitFor("the re-read's status", func() bool { return strings.HasPrefix(status(), "read ") })
	if snap.resets != 1 || status() != "read 3 nodes from Neo4j · snapshot: 3 nodes · R re-runs on the server" {
		t.Errorf("after R: %d resets, status %q", snap.resets, status())
	}
}
