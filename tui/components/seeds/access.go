package seeds

import (
	"fmt"
	"slices"
	"time"

	"github.com/memoria-graph/memoria/graph"
	"github.com/memoria-graph/memoria/retriever"
)

// What the root and the tests read of the picker: its state through these
// methods, never its fields (the compiler holds that rule, the package
// being its own; docs/ARCHITECTURE.md, "The explorer's components").

// Visible is the rows the list shows, in their order.
func (p *Picker) Visible() []graph.NodeSummary { return p.visible }

// Editing reports whether a seed's score is being typed.
func (p *Picker) Editing() bool { return p.editing }

// Focused reports whether the picker has the keyboard.
func (p *Picker) Focused() bool { return p.focused }

// Edits counts the filter's edits (the id of the last edit's tick).
func (p *Picker) Edits() int { return p.edits }

// Known reports whether node id came in a page of some stream.
func (p *Picker) Known(id string) bool { _, ok := p.known[id]; return ok }

// Clock is how long the filter rests before the server is searched and
// what starts that timer.
func (p *Picker) Clock() (time.Duration, TickFunc) { return p.debounce, p.tick }

// SetClock sets them (tests run the debounce on a fake clock).
func (p *Picker) SetClock(debounce time.Duration, tick TickFunc) {
	p.debounce = debounce
	if tick != nil {
		p.tick = tick
	}
}

// Stream is a copy of what a node stream holds: the filter it lists, its
// number, the nodes loaded so far, whether more may follow, whether a page
// is on its way and the last page's failure.
type Stream struct {
	Filter  string
	Seq     int
	Nodes   []graph.NodeSummary
	More    bool
	Loading bool
	Err     error
}

func (s *nodeStream) state() Stream {
	return Stream{Filter: s.filter, Seq: s.seq, Nodes: s.nodes, More: s.more, Loading: s.loading, Err: s.err}
}

// All is the unfiltered stream; Match the stream of the filter's server
// matches.
func (p *Picker) All() Stream   { return p.all.state() }
func (p *Picker) Match() Stream { return p.match.state() }

// Cursor is the row under the cursor.
func (p *Picker) Cursor() int { return p.cursor }

// FilterText is the filter as typed; FilterFocused whether it has the
// keyboard.
func (p *Picker) FilterText() string  { return p.filter.Value() }
func (p *Picker) FilterFocused() bool { return p.filter.Focused() }

// Replace makes seeds the seeds (the query line's choice), each with its
// R; it refuses more than the most allowed (Options.MaxSeeds) and leaves
// the seeds as they were.
func (p *Picker) Replace(seeds []retriever.Seed) error {
	if len(seeds) > p.maxSeeds {
		return fmt.Errorf("%d seeds chosen, at most %d (--max-seeds): untick some", len(seeds), p.maxSeeds)
	}
	if slices.Equal(seeds, p.seeds) {
		return nil
	}
	p.seeds = slices.Clone(seeds)
	p.version++
	return nil
}
