package tui

import (
	"bytes"
	"context"
	"encoding/base64"
	"io"
	"regexp"
	"sync"
	"testing"
	"time"

	tea "github.com/charmbracelet/bubbletea"
	"github.com/charmbracelet/x/exp/teatest"
)

// switchWriter forwards to a writer chosen after the model is built: the
// test program's output, so OSC 52 lands in the stream teatest reads.
type switchWriter struct {
	mu sync.Mutex
	w  io.Writer
}

func (s *switchWriter) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.w == nil {
		return len(p), nil
	}
	return s.w.Write(p)
}

func (s *switchWriter) set(w io.Writer) {
	s.mu.Lock()
	s.w = w
	s.mu.Unlock()
}

// TestAppStory drives the whole program: choose the query tags and N2006,
// see depth 1 (N2003, N2004, N2005, still running) and then the full tree
// of scenario A (N2010 under N2001), step MIN_ACTIVATION from 0.005 to 0.01
// and see N2001 become a leaf (N2001→N2010 has T = 0.006873 < 0.01), then
// copy N2001's path and find the OSC 52 sequence carrying its Cypher.
func TestAppStory(t *testing.T) {
	src := loadDemo(t)
	src.gate = make(chan struct{})
	sw := &switchWriter{}
	m, err := New(context.Background(), Options{Source: src, Out: sw, NoColor: true, OutDir: t.TempDir()})
	if err != nil {
		t.Fatal(err)
	}
	tm := teatest.NewTestModel(t, m, teatest.WithInitialTermSize(120, 40))
	out := tm.Output()
	sw.set(out.(io.Writer))
	var seen bytes.Buffer // everything read so far
	wait := func(what string, re *regexp.Regexp) {
		t.Helper()
		teatest.WaitFor(t, out, func(b []byte) bool {
			seen.Write(b)
			return re.Match(seen.Bytes())
		}, teatest.WithDuration(5*time.Second), teatest.WithCheckInterval(10*time.Millisecond))
	}
	key := func(k tea.KeyType) { tm.Send(tea.KeyMsg{Type: k}) }

	wait("the node list", regexp.MustCompile(`N2006 UserRequest`))
	key(tea.KeyTab) // tags
	for _, tag := range demoTags {
		tm.Type(tag)
		key(tea.KeyEnter)
	}
	wait("the chips", regexp.MustCompile(`\[inventory_policy\]`))
	key(tea.KeyShiftTab) // seeds
	tm.Type("/N2006")
	key(tea.KeyEnter)
	tm.Type(" ")
	wait("the seed", regexp.MustCompile(`▼ N2006 UserRequest|· N2006 UserRequest`))

	src.gate <- struct{}{} // level 1 only
	wait("depth 1", regexp.MustCompile(`(?s)running at depth 1.*├─ · N2003 AgentAnswer`))
	close(src.gate) // the rest
	wait("the full tree", regexp.MustCompile(`(?s)done in .*└─ · N2010 DataSource`))

	key(tea.KeyTab) // tags
	key(tea.KeyTab) // thresholds
	tm.Type("j+")
	wait("MIN_ACTIVATION 0.01 and its tree", regexp.MustCompile(`(?s)‹ 0\.01 ›.*└─ · N2001 AgentAction`))

	key(tea.KeyTab) // results
	tm.Type("jjy")
	browser := ":params {id0: \"N2006\", id1: \"N2003\", id2: \"N2001\"}\n" +
		"MATCH p = (n0 {id: $id0})-[:RELATES]-(n1 {id: $id1})-[:RELATES]-(n2 {id: $id2}) RETURN p;"
	osc := "\x1b]52;c;" + base64.StdEncoding.EncodeToString([]byte(browser)) + "\a"
	wait("the OSC 52 sequence", regexp.MustCompile(regexp.QuoteMeta(osc)))
	wait("the copy status", regexp.MustCompile(`copied Cypher for path N2006→N2003→N2001 \(3 nodes\)`))

	tm.Type("q")
	tm.WaitFinished(t, teatest.WithFinalTimeout(5*time.Second))
}
