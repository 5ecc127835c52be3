package neo4jtest

import (
	"fmt"
	"runtime"
	"strings"
	"testing"
)

// fakeTB records Fatal instead of stopping the test.
type fakeTB struct {
	testing.TB
	failed string
}

func (f *fakeTB) Helper() {}

// Fatal and Fatalf record the message and end the goroutine, as testing.T does.
func (f *fakeTB) Fatal(args ...any) { f.failed = fmt.Sprint(args...); runtime.Goexit() }
func (f *fakeTB) Fatalf(format string, args ...any) {
	f.failed = fmt.Sprintf(format, args...)
	runtime.Goexit()
}

// TestWipeRefusesExternalServer: Wipe and DropSchema on the NEO4J_URI server fail with a
// message naming the server and MEMORIA_TEST_ALLOW_WIPE unless it is set to 1, and never
// touch the server (the fake server's URI is unreachable; reaching it would fail
// differently). A server this package started may always be wiped.
func TestWipeRefusesExternalServer(t *testing.T) {
	ext := &Server{URI: "bolt://127.0.0.1:1", external: true}
	t.Setenv(EnvAllowWipe, "")
	for name, f := range map[string]func(testing.TB){"Wipe": ext.Wipe, "DropSchema": ext.DropSchema} {
		tb := &fakeTB{TB: t}
		done := make(chan struct{})
		go func() { defer close(done); f(tb) }()
		<-done
		if !strings.Contains(tb.failed, "refusing to delete") || !strings.Contains(tb.failed, EnvAllowWipe) ||
			!strings.Contains(tb.failed, ext.URI) {
			t.Errorf("%s on the external server: failure %q", name, tb.failed)
		}
	}
	t.Setenv(EnvAllowWipe, "1")
	if err := ext.WipeAllowed(); err != nil {
		t.Errorf("with %s=1: %v", EnvAllowWipe, err)
	}
	t.Setenv(EnvAllowWipe, "")
	if err := (&Server{URI: "bolt://127.0.0.1:2"}).WipeAllowed(); err != nil {
		t.Errorf("own server: %v", err)
	}
}
