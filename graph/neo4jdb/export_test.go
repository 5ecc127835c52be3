package neo4jdb

import "context"

// PlainValue exposes plainValue to the external tests (package neo4jdb_test),
// which need onneo4j and neo4jload and so cannot be in package neo4jdb.
var PlainValue = plainValue

// SetKeptBounds lowers the bounds on the strengths and the arcs s keeps
// (MaxKeptStrengths, MaxKeptArcs) for a test of them.
func SetKeptBounds(s *Source, strengths, arcs int) {
	s.kept.mu.Lock()
	defer s.kept.mu.Unlock()
	s.kept.strengths.bound, s.kept.arcs.bound = strengths, arcs
}

// EmbeddingsUpTo is Embeddings under another bound, for a test of it.
func (s *Source) EmbeddingsUpTo(ctx context.Context, prop string, most int) ([]EmbeddedNode, error) {
	return s.embeddingsUpTo(ctx, prop, most)
}
