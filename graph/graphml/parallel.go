package graphml

import (
	"bytes"
	"encoding/xml"
	"fmt"
	"io"
	"runtime"
	"strconv"
	"strings"
	"sync"

	"github.com/memoria-graph/memoria/graph/apoc"
)

// The body of a graph is read in parts, by several goroutines
// (docs/PERFORMANCE.md, "GraphML files"): encoding/xml's token loop is
// most of the reading's time, and the nodes and edges of a <graph> are
// independent elements. The caller's goroutine reads the body's bytes and
// cuts them, by a scan that follows XML's markup (tags with their quoted
// attribute values, comments, CDATA sections, processing instructions,
// declarations), after a node or edge ends at the graph's level; each part
// (some PartSize bytes) is read by an encoding/xml decoder of its own, with
// every check of the one-goroutine reading (well-formedness, entities, the
// keys and types), on one of the worker goroutines (one fewer than
// GOMAXPROCS, at least 1, at most 4: on 2 cores one reads while the caller
// builds; two workers were slower on a loaded machine, docs/PERFORMANCE.md),
// into nodes and relationships; the caller checks them (apoc.Checker) and hands them over
// in document order, numbering the edges, while the workers read the next
// parts. At most Window parts are read ahead, so memory holds a few MiB
// of them beside the graph (8 ahead raised the peak heap by a fifth,
// the garbage collector running further behind). A problem is reported as the one-goroutine reading
// would: the first in document order, with the document's line; what
// follows it is never handed over.

// PartSize is how many bytes of the body a part holds, about (it ends
// after the element that crosses this size).
const PartSize = 128 << 10

// partSize is PartSize; tests cut smaller parts.
var partSize = PartSize

// Window is how many parts are read ahead of the one handed over.
const Window = 2

// recorder keeps what is read through it while on: the bytes the head's
// decoder read ahead of the body.
type recorder struct {
	r   io.Reader
	buf []byte
	on  bool
}

func (c *recorder) Read(p []byte) (int, error) {
	n, err := c.r.Read(p)
	if c.on {
		c.buf = append(c.buf, p[:n]...)
	}
	return n, err
}

// elem is a node or an edge read from a part, with its line.
type elem struct {
	line int
	rel  bool
	n    apoc.Node
	r    apoc.Relationship
}

type partResult struct {
	elems []elem
	err   error
}

type partJob struct {
	data []byte
	line int
	out  chan partResult
}

// bodyParallel reads the body (the bytes after <graph ...>, which ends on
// line) in parts, as the package comment of parallel.go says, then what
// follows the graph.
func (rd *reader) bodyParallel(body io.Reader, line int, onNode func(apoc.Node) error, onRel func(apoc.Relationship) error) error {
	limit := int64(MaxToken)
	if rd.lim.max > 0 {
		limit = rd.lim.max
	}
	sp := &splitter{r: body, line: line, limit: int(limit)}
	workers := max(1, min(runtime.GOMAXPROCS(0)-1, 4))
	jobs := make(chan partJob, Window)
	stop := make(chan struct{})
	var wg sync.WaitGroup
	for range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for j := range jobs {
				select {
				case <-stop:
					j.out <- partResult{}
					continue
				default:
				}
				elems, err := rd.parsePart(j.data, j.line)
				putBuf(j.data) // the elements hold copies of what they keep
				j.out <- partResult{elems, err}
			}
		}()
	}
	defer func() {
		close(stop)
		close(jobs)
		wg.Wait()
	}()
	var queue []chan partResult
	consume := func() error {
		res := <-queue[0]
		queue = queue[1:]
		for i := range res.elems {
			e := &res.elems[i]
			if e.rel {
				e.r.InternalID = strconv.Itoa(rd.edges)
				rd.edges++
				if rd.check.Rel(e.line, &e.r) && rd.check.OK() {
					if err := onRel(e.r); err != nil {
						return fmt.Errorf("line %d: %w", e.line, err)
					}
				}
			} else if rd.check.Node(e.line, &e.n) && rd.check.OK() {
				if err := onNode(e.n); err != nil {
					return fmt.Errorf("line %d: %w", e.line, err)
				}
			}
			if rd.check.Full() {
				return rd.check.Errors()
			}
			res.elems[i] = elem{} // the engine holds what it keeps; the part's copy goes
		}
		if res.elems != nil {
			e := res.elems[:0]
			elemPool.Put(&e)
		}
		return res.err
	}
	for {
		if len(queue) == Window {
			if err := consume(); err != nil {
				return err
			}
			continue
		}
		p, err := sp.next()
		if err != nil {
			// The parts before it are reported first.
			for len(queue) > 0 {
				if err := consume(); err != nil {
					return err
				}
			}
			return err
		}
		if len(p.data) > 0 {
			ch := make(chan partResult, 1)
			jobs <- partJob{p.data, p.line, ch}
			queue = append(queue, ch)
		}
		if p.last {
			break
		}
	}
	for len(queue) > 0 {
		if err := consume(); err != nil {
			return err
		}
	}
	if sp.tail == nil {
		return &apoc.ParseError{Line: sp.line, Msg: "the document ends inside <graph>"}
	}
	return rd.afterGraph(sp.tail, sp.tailLine)
}

// parsePart reads one part (whole elements at the graph's level, its first
// byte on line) into its nodes and edges; the edges are numbered by the
// caller. It stops at the first problem, returning what it read before.
func (rd *reader) parsePart(data []byte, line int) ([]elem, error) {
	d := xml.NewDecoder(bytes.NewReader(data))
	d.Strict = true
	d.Entity = nil
	c := &reader{d: d, h: rd.h, keys: rd.keys, opt: rd.opt, fillID: rd.fillID, depth: 2, base: line - 1, part: true}
	var out []elem
	if p, ok := elemPool.Get().(*[]elem); ok {
		out = *p
	}
	for {
		t, err := c.token()
		if err == io.EOF {
			return out, nil
		}
		if err != nil {
			return out, err
		}
		x, ok := t.(xml.StartElement)
		if !ok {
			continue // text between elements, comments; an end tag without its start is malformed XML
		}
		eline := c.line()
		switch x.Name.Local {
		case "node":
			n, err := c.node(x)
			if err != nil {
				return out, err
			}
			out = append(out, elem{line: eline, n: n})
		case "edge":
			r, err := c.edge(x)
			if err != nil {
				return out, err
			}
			out = append(out, elem{line: eline, rel: true, r: r})
		case "hyperedge":
			return out, c.errorf("a <hyperedge>: memoria reads edges of two ends only")
		default:
			if err := c.skip(); err != nil {
				return out, err
			}
		}
	}
}

// afterGraph reads from the graph's end tag (on line) to the end of the
// document, by reader.rest's rules. Its decoder is handed the two start
// tags the end tags close first, on the same line.
func (rd *reader) afterGraph(r io.Reader, line int) error {
	lim := &limitReader{r: io.MultiReader(strings.NewReader("<graphml><graph>"), r), max: rd.lim.max}
	d := xml.NewDecoder(lim)
	d.Strict = true
	d.Entity = nil
	c := &reader{d: d, lim: lim, keys: rd.keys, base: line - 1}
	for range 3 { // <graphml>, <graph>, then </graph>
		if _, err := c.token(); err != nil {
			return eofIn(err, c, "<graph>")
		}
	}
	return c.rest()
}

// part is a run of the body's bytes, from line; last says it is the last.
type part struct {
	data []byte
	line int
	last bool
}

// The scanner's states.
const (
	stText = iota
	stTag
	stComment
	stCDATA
	stPI
	stDecl
)

// splitter cuts the body into parts after elements at the graph's level.
type splitter struct {
	r     io.Reader
	buf   []byte // from the last cut
	pos   int    // scanned up to
	line  int    // the document's line of buf[0]
	limit int
	eof   bool

	st       int
	depth    int  // elements open in the graph
	endTag   bool // the tag being scanned is an end tag
	quote    byte // inside a quoted value of this quote
	from     int  // where the comment, CDATA, PI or tag being scanned starts
	declOpen int  // '<' open inside a declaration

	cut  int // the end of the last element at the graph's level in buf
	tail io.Reader
	// tailLine is the line of the graph's end tag.
	tailLine int
}

// next returns the next part; the last one ends before the graph's end
// tag (then tail reads from it) or at the end of the input.
func (s *splitter) next() (part, error) {
	for {
		end, ended := s.scan()
		if ended {
			p := part{data: s.buf[:end], line: s.line, last: true}
			s.tailLine = s.line + bytes.Count(p.data, []byte{'\n'})
			s.tail = io.MultiReader(bytes.NewReader(s.buf[end:]), s.r)
			return p, nil
		}
		if s.cut >= partSize || (s.eof && s.cut > 0) {
			return s.take(), nil
		}
		if s.eof {
			p := part{data: s.buf, line: s.line, last: true}
			s.line += bytes.Count(s.buf, []byte{'\n'})
			s.buf = nil
			return p, nil
		}
		if len(s.buf)-s.cut > s.limit {
			line := s.line + bytes.Count(s.buf[:s.cut], []byte{'\n'})
			return part{}, &apoc.ParseError{Line: line, Msg: fmt.Sprintf("an element (or a text between elements) longer than %d MiB (graphml.MaxToken), the longest memoria reads", s.limit>>20)}
		}
		if err := s.fill(); err != nil {
			return part{}, err
		}
	}
}

// take cuts buf at cut: the part is buf's bytes up to it, and a new buf
// holds the rest.
func (s *splitter) take() part {
	p := part{data: s.buf[:s.cut], line: s.line}
	rest := getBuf(max(len(s.buf)-s.cut, partSize) + partSize/2)[:len(s.buf)-s.cut]
	copy(rest, s.buf[s.cut:])
	s.line += bytes.Count(p.data, []byte{'\n'})
	s.pos -= s.cut
	s.from -= s.cut
	s.buf, s.cut = rest, 0
	return p
}

// fill reads more of the body into buf.
func (s *splitter) fill() error {
	if cap(s.buf)-len(s.buf) < 32<<10 {
		nb := getBuf(2*cap(s.buf) + 64<<10)[:len(s.buf)]
		copy(nb, s.buf)
		putBuf(s.buf)
		s.buf = nb
	}
	n, err := s.r.Read(s.buf[len(s.buf):cap(s.buf)])
	s.buf = s.buf[:len(s.buf)+n]
	if err == io.EOF {
		s.eof = true
		return nil
	}
	if err != nil {
		return &apoc.ParseError{Line: s.line + bytes.Count(s.buf, []byte{'\n'}), Msg: err.Error()}
	}
	return nil
}

// scan follows the markup from pos, noting in cut where elements at the
// graph's level end; ended says the graph's end tag starts at end. It stops
// where it needs bytes not read yet.
func (s *splitter) scan() (end int, ended bool) {
	b := s.buf
	i := s.pos
	defer func() { s.pos = i }()
	for ; i < len(b); i++ {
		c := b[i]
		switch s.st {
		case stText:
			if c != '<' {
				continue
			}
			if len(b)-i < 9 && !s.eof {
				return 0, false // "<![CDATA[" needs 9 bytes to be told
			}
			rest := b[i+1:]
			s.from = i
			switch {
			case len(rest) > 0 && rest[0] == '/':
				s.st, s.endTag = stTag, true
			case len(rest) > 0 && rest[0] == '?':
				s.st = stPI
				i++
			case bytes.HasPrefix(rest, []byte("!--")):
				s.st = stComment
				i += 3
			case bytes.HasPrefix(rest, []byte("![CDATA[")):
				s.st = stCDATA
				i += 8
			case len(rest) > 0 && rest[0] == '!':
				s.st, s.declOpen = stDecl, 1
				i++
			default:
				s.st, s.endTag = stTag, false
			}
		case stTag:
			switch {
			case s.quote != 0:
				if c == s.quote {
					s.quote = 0
				}
			case c == '"' || c == '\'':
				if !s.endTag {
					s.quote = c
				}
			case c == '>':
				s.st = stText
				switch {
				case s.endTag:
					s.depth--
					if s.depth < 0 {
						i = s.from
						return s.from, true
					}
					if s.depth == 0 {
						if s.cut = i + 1; s.cut >= partSize {
							i++
							return 0, false // a part's worth
						}
					}
				case b[i-1] == '/':
					if s.depth == 0 {
						if s.cut = i + 1; s.cut >= partSize {
							i++
							return 0, false
						}
					}
				default:
					s.depth++
				}
			}
		case stComment:
			if c == '>' && i-2 > s.from+3 && b[i-1] == '-' && b[i-2] == '-' {
				s.st = stText
			}
		case stCDATA:
			if c == '>' && i-2 > s.from+8 && b[i-1] == ']' && b[i-2] == ']' {
				s.st = stText
			}
		case stPI:
			if c == '>' && i-1 > s.from+1 && b[i-1] == '?' {
				s.st = stText
			}
		case stDecl:
			switch {
			case s.quote != 0:
				if c == s.quote {
					s.quote = 0
				}
			case c == '"' || c == '\'':
				s.quote = c
			case c == '<':
				s.declOpen++
			case c == '>':
				if s.declOpen--; s.declOpen == 0 {
					s.st = stText
				}
			}
		}
	}
	return 0, false
}

// The parts' buffers and their elements are used again once read and
// handed over: reading a 151 MB file would otherwise leave some 400 MB of
// them to the garbage collector, which runs behind the goroutines that
// read the parts (docs/PERFORMANCE.md, "GraphML files").
var (
	bufPool  sync.Pool // *[]byte
	elemPool sync.Pool // *[]elem, empty
)

// getBuf is a buffer of at least n bytes' capacity, of length 0.
func getBuf(n int) []byte {
	if b, ok := bufPool.Get().(*[]byte); ok && cap(*b) >= n {
		return (*b)[:0]
	}
	return make([]byte, 0, n)
}

// putBuf gives b's array back to getBuf.
func putBuf(b []byte) {
	if cap(b) == 0 {
		return
	}
	b = b[:0]
	bufPool.Put(&b)
}
