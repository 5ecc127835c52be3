package neo4jdb

// PlainValue exposes plainValue to the external tests (package neo4jdb_test),
// which need onneo4j and neo4jload and so cannot be in package neo4jdb.
var PlainValue = plainValue

// SetStrengthBound lowers the bound on the strengths s keeps
// (MaxKeptStrengths) for a test of it.
func SetStrengthBound(s *Source, n int) {
	s.strengths.mu.Lock()
	defer s.strengths.mu.Unlock()
	s.strengths.bound = n
}
