package tui

import (
	"context"
	"math"
	"sync/atomic"
	"testing"

	"github.com/memoria-graph/memoria/retriever"
	"github.com/memoria-graph/memoria/retriever/inmem"
)

// fakeSource is the real demo graph (testdata/demo.jsonl through inmem)
// with hooks for the tests: hold a run between levels, make the backend
// panic, count catalog calls.
type fakeSource struct {
	retriever.Source

	// gate, when set, is received from before every expansion, so a test
	// can hold a run at any depth.
	gate chan struct{}
	// panicOn makes FetchSeed panic for that id.
	panicOn string
	// listCalls counts ListNodes calls.
	listCalls atomic.Int32
}

func loadDemo(t testing.TB) *fakeSource {
	t.Helper()
	g, err := inmem.LoadFile("../testdata/demo.jsonl")
	if err != nil {
		t.Fatalf("demo graph: %v", err)
	}
	return &fakeSource{Source: g}
}

func (s *fakeSource) Open(ctx context.Context) (retriever.Connector, func(context.Context) error, error) {
	c, release, err := s.Source.Open(ctx)
	if err != nil {
		return nil, nil, err
	}
	return hookedConn{c, s}, release, nil
}

func (s *fakeSource) ListNodes(ctx context.Context, filter string, offset, limit int) ([]retriever.NodeSummary, bool, error) {
	s.listCalls.Add(1)
	return s.Source.ListNodes(ctx, filter, offset, limit)
}

type hookedConn struct {
	retriever.Connector
	s *fakeSource
}

func (c hookedConn) FetchSeed(ctx context.Context, id string) (retriever.SeedFetchResult, error) {
	if c.s.panicOn != "" && id == c.s.panicOn {
		panic("fake backend exploded")
	}
	return c.Connector.FetchSeed(ctx, id)
}

func (c hookedConn) ExpandFrontier(ctx context.Context, req retriever.ExpandRequest) ([]retriever.ExpansionCandidate, error) {
	if c.s.gate != nil {
		select {
		case <-c.s.gate:
		case <-ctx.Done():
			return nil, ctx.Err()
		}
	}
	return c.Connector.ExpandFrontier(ctx, req)
}

var _ retriever.Source = (*fakeSource)(nil)

// near reports whether a and b agree to 1e-9 (for hand-computed values).
func near(a, b float64) bool { return math.Abs(a-b) < 1e-9 }
