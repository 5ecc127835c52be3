package apoc

// Checker is the one checker (check.go) for a reader of another file
// format that hands over APOC nodes and relationships one at a time (the
// GraphML reader, graph/graphml): positions are the file's lines, and a
// file gets the same verdict as an APOC file of the same graph.
type Checker struct{ c checker }

// NewChecker returns a checker of a file by rules.
func NewChecker(rules Rules) *Checker { return &Checker{c: newChecker(true, rules, 0)} }

// Node checks a node read at line; it reports whether the node is fine.
func (k *Checker) Node(line int, n *Node) bool { return k.c.node(line, n) }

// Rel checks a relationship read at line (its endpoints are checked by
// Finish when they are not nodes seen already); it reports whether it is
// fine so far.
func (k *Checker) Rel(line int, r *Relationship) bool { return k.c.rel(line, r, false, false) }

// Errorf records a problem of the reader's own at line.
func (k *Checker) Errorf(line int, format string, args ...any) { k.c.errorf(line, format, args...) }

// OK reports whether no problem was found so far.
func (k *Checker) OK() bool { return k.c.ok() }

// Full reports whether MaxErrors problems were found: the reader stops and
// returns Errors.
func (k *Checker) Full() bool { return k.c.full() }

// Errors is the problems so far, for a reader that stops early.
func (k *Checker) Errors() error { return k.c.errors() }

// Finish checks what holds for the whole file and returns the report or
// the problems, by line (ParseReport's error).
func (k *Checker) Finish() (Report, error) { return k.c.finish() }
