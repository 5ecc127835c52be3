package neo4jtest

import (
	"fmt"
	"io"
	"net"
	"net/url"
	"sync"
	"sync/atomic"
	"testing"
)

// boltHandshakeLen is the size of a Bolt client's opening: 4 bytes of magic
// and four 4-byte version proposals.
const boltHandshakeLen = 20

// Silent is a TCP server on 127.0.0.1 that accepts connections, reads what
// clients send and never writes a byte: a Neo4j that hangs, or a port of
// something that does not speak Bolt. It is closed when the test ends.
type Silent struct {
	// URI is bolt://127.0.0.1:PORT.
	URI string
	ln  net.Listener
	// handshake is closed once a client has sent a whole Bolt handshake
	// and is waiting for the server's answer.
	handshake chan struct{}
	once      sync.Once
}

// NewSilent starts a Silent server.
func NewSilent(t testing.TB) *Silent {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	s := &Silent{URI: fmt.Sprintf("bolt://%s", ln.Addr()), ln: ln, handshake: make(chan struct{})}
	var cs connSet
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		for {
			c, err := ln.Accept()
			if err != nil || !cs.add(c) {
				return
			}
			wg.Add(1)
			go func() {
				defer wg.Done()
				buf := make([]byte, boltHandshakeLen)
				if _, err := io.ReadFull(c, buf); err == nil {
					s.once.Do(func() { close(s.handshake) })
				}
				_, _ = io.Copy(io.Discard, c) // read on, answer nothing
			}()
		}
	}()
	t.Cleanup(func() {
		ln.Close()
		cs.closeAll()
		wg.Wait()
	})
	return s
}

// connSet holds a server's connections, to close them all at the end; a
// connection added after that is closed at once.
type connSet struct {
	mu     sync.Mutex
	conns  []net.Conn
	closed bool
}

func (cs *connSet) add(c net.Conn) bool {
	cs.mu.Lock()
	defer cs.mu.Unlock()
	if cs.closed {
		c.Close()
		return false
	}
	cs.conns = append(cs.conns, c)
	return true
}

func (cs *connSet) closeAll() {
	cs.mu.Lock()
	defer cs.mu.Unlock()
	cs.closed = true
	for _, c := range cs.conns {
		c.Close()
	}
}

// Handshake is closed once a client has sent its Bolt handshake: from then
// on it is blocked reading the answer that never comes.
func (s *Silent) Handshake() <-chan struct{} { return s.handshake }

// Proxy forwards TCP connections on 127.0.0.1 to a Neo4j server until
// Freeze; from then on it keeps every connection open, reads what either
// side sends and forwards nothing: a server that stopped answering in the
// middle of a session. It is closed when the test ends.
type Proxy struct {
	// URI is the server's URI with the proxy's address.
	URI    string
	frozen atomic.Bool
}

// NewProxy starts a proxy to the server of uri (bolt://host:port, as
// Server.URI).
func NewProxy(t testing.TB, uri string) *Proxy {
	t.Helper()
	u, err := url.Parse(uri)
	if err != nil {
		t.Fatal(err)
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	pu := *u
	pu.Host = ln.Addr().String()
	p := &Proxy{URI: pu.String()}
	var cs connSet
	var wg sync.WaitGroup
	// pipe copies from src to dst while the proxy is not frozen, and
	// discards from then on.
	pipe := func(dst, src net.Conn) {
		defer wg.Done()
		buf := make([]byte, 32<<10)
		for {
			n, err := src.Read(buf)
			if n > 0 && !p.frozen.Load() {
				if _, werr := dst.Write(buf[:n]); werr != nil {
					return
				}
			}
			if err != nil {
				if !p.frozen.Load() {
					dst.Close() // pass a close on while forwarding
				}
				return
			}
		}
	}
	wg.Add(1)
	go func() {
		defer wg.Done()
		for {
			c, err := ln.Accept()
			if err != nil || !cs.add(c) {
				return
			}
			s, err := net.Dial("tcp", u.Host)
			if err != nil {
				c.Close()
				continue
			}
			if !cs.add(s) {
				return
			}
			wg.Add(2)
			go pipe(s, c)
			go pipe(c, s)
		}
	}()
	t.Cleanup(func() {
		ln.Close()
		cs.closeAll()
		wg.Wait()
	})
	return p
}

// Freeze stops all forwarding, for good.
func (p *Proxy) Freeze() { p.frozen.Store(true) }
