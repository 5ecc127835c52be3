package common

import (
	"maps"

	"github.com/memoria-graph/memoria/tui/theme"
)

// MarkK is the cut-off of the found line's recall and nDCG, and of the
// sweep's charts of them.
const MarkK = 10

// MarkSet is the analyst's relevance marks, node id → grade (1 relevant,
// 2 highly relevant; a saved experiment may hold up to
// experiment.MaxGrade). version changes with every mark, so the panes and
// the judgement know to follow.
type MarkSet struct {
	grades  map[string]int
	version int
}

// NewMarkSet holds a copy of grades.
func NewMarkSet(grades map[string]int) *MarkSet {
	return &MarkSet{grades: maps.Clone(grades)}
}

// Grade is node id's grade, 0 when it is not marked (or there is no set).
func (s *MarkSet) Grade(id string) int {
	if s == nil {
		return 0
	}
	return s.grades[id]
}

// Cycle marks id relevant, then highly relevant, then not at all, and
// returns its new grade.
func (s *MarkSet) Cycle(id string) int {
	if s.grades == nil {
		s.grades = map[string]int{}
	}
	s.version++
	switch g := s.grades[id]; {
	case g == 0:
		s.grades[id] = 1
	case g == 1:
		s.grades[id] = 2
	default:
		delete(s.grades, id)
	}
	return s.grades[id]
}

// Snapshot is a copy of the marks for work in a command or a file; nil
// when there are none.
func (s *MarkSet) Snapshot() map[string]int {
	if s == nil || len(s.grades) == 0 {
		return nil
	}
	return maps.Clone(s.grades)
}

// MarkGlyph is the mark beside a node of grade g: ✓ relevant, ✓✓ highly
// relevant, "" unmarked.
func MarkGlyph(g int) string {
	switch {
	case g >= 2:
		return theme.GlyphRelevant + theme.GlyphRelevant
	case g == 1:
		return theme.GlyphRelevant
	}
	return ""
}

// Version changes with every mark (Cycle).
func (s *MarkSet) Version() int { return s.version }
