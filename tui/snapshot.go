package tui

import (
	"fmt"
	"time"

	tea "github.com/charmbracelet/bubbletea"
	"github.com/memoria-graph/memoria/tui/common"
)

// snapshotter is a backend that keeps what runs read from the server and
// replays threshold experiments from it (onneo4j.Snapshot,
// docs/ALGORITHM.md "Replaying from a snapshot"). The status line says
// whether a run was replayed or read the server, and the Reread key
// forgets the snapshot and runs again on the server.
type snapshotter interface {
	// Held returns the frontier nodes held, the nodes read from the server
	// so far, and when the oldest was read. Safe from any goroutine.
	Held() (nodes, fetched int, since time.Time)
	// Reset forgets everything.
	Reset()
}

// snapshotState is a snapshot's counters at one moment.
type snapshotState struct {
	nodes, fetched int
	since          time.Time
}

// heldFunc reads a snapshot's counters, or is nil for other backends.
// Commands call it (it takes the snapshot's lock); Update never does.
func heldFunc(b any) func() snapshotState {
	s, ok := b.(snapshotter)
	if !ok {
		return nil
	}
	return func() snapshotState {
		n, f, t := s.Held()
		return snapshotState{n, f, t}
	}
}

// snapshotResetMsg says the snapshot was forgotten: run again.
type snapshotResetMsg struct{}

// resetSnapshotCmd forgets the snapshot off the UI goroutine.
func resetSnapshotCmd(s snapshotter) tea.Cmd {
	return common.SafeCmd(func() tea.Msg {
		s.Reset()
		return snapshotResetMsg{}
	})
}

// snapshotStatus is the status line after a run through a snapshot:
// replayed (nothing read) or how much the run read.
func snapshotStatus(before, after snapshotState, now time.Time, reread string) string {
	if after.fetched == before.fetched && after.nodes > 0 {
		return fmt.Sprintf("replayed from snapshot: %s nodes, %s old · %s re-runs on the server",
			common.Thousands(after.nodes), fmtAge(now.Sub(after.since)), reread)
	}
	return fmt.Sprintf("read %s nodes from Neo4j · snapshot: %s nodes · %s re-runs on the server",
		common.Thousands(after.fetched-before.fetched), common.Thousands(after.nodes), reread)
}

// fmtAge is a duration to the second, as a person reads it: 3 s, 2 min 5 s.
func fmtAge(d time.Duration) string {
	s := int(d.Round(time.Second) / time.Second)
	if s < 60 {
		return fmt.Sprintf("%d s", s)
	}
	return fmt.Sprintf("%d min %d s", s/60, s%60)
}
