package neo4jdb

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"syscall"
	"testing"

	"github.com/memoria-graph/memoria/graph"
	"github.com/neo4j/neo4j-go-driver/v5/neo4j"
)

// TestClassify pins down, without a server, how driver errors reach the
// user and whether the orchestrator retries them: transient server errors
// and lost connections (also inside the TransactionExecutionLimit the
// driver returns when it does not retry, e.g. after a server stop) are
// marked transient; credentials, missing databases and query errors are
// not, and each is one sentence.
func TestClassify(t *testing.T) {
	ec := errCtx{uri: "bolt://127.0.0.1:7687", user: "neo4j", database: "nosuchdb"}
	refused := &net.OpError{Op: "dial", Net: "tcp", Err: syscall.ECONNREFUSED}
	cases := []struct {
		name      string
		err       error
		ph        phase
		want      string
		transient bool
	}{
		{"unauthorized", &neo4j.Neo4jError{Code: "Neo.ClientError.Security.Unauthorized", Msg: "The client is unauthorized due to authentication failure."}, phaseConnect,
			`Neo4j at bolt://127.0.0.1:7687 refused the credentials of user "neo4j" (Neo.ClientError.Security.Unauthorized)`, false},
		{"no database", &neo4j.Neo4jError{Code: "Neo.ClientError.Database.DatabaseNotFound", Msg: "Graph not found: nosuchdb"}, phaseQuery,
			`Neo4j database "nosuchdb" does not exist`, false},
		{"syntax", &neo4j.Neo4jError{Code: "Neo.ClientError.Statement.SyntaxError", Msg: "Invalid input 'x'\n\"RETURN x(\"\n        ^"}, phaseQuery,
			`Neo4j rejected the query: Invalid input 'x' (Neo.ClientError.Statement.SyntaxError)`, false},
		{"transient", &neo4j.Neo4jError{Code: "Neo.TransientError.Transaction.DeadlockDetected", Msg: "deadlock"}, phaseQuery,
			`Neo4j at bolt://127.0.0.1:7687 reported a transient error: deadlock (Neo.TransientError.Transaction.DeadlockDetected)`, true},
		{"connectivity", &neo4j.ConnectivityError{Inner: io.EOF}, phaseQuery,
			`lost the connection to Neo4j at bolt://127.0.0.1:7687: EOF`, true},
		{"limit wrapping a lost connection", &neo4j.TransactionExecutionLimit{Cause: "timeout (exceeded max retry time: 0s)", Errors: []error{io.EOF, refused}}, phaseQuery,
			`lost the connection to Neo4j at bolt://127.0.0.1:7687: dial tcp: connection refused`, true},
		{"limit wrapping a transient error", &neo4j.TransactionExecutionLimit{Cause: "timeout", Errors: []error{&neo4j.Neo4jError{Code: "Neo.TransientError.General.MemoryPoolOutOfMemoryError", Msg: "out of memory"}}}, phaseQuery,
			`Neo4j at bolt://127.0.0.1:7687 reported a transient error: out of memory (Neo.TransientError.General.MemoryPoolOutOfMemoryError)`, true},
		{"refused at connect", &neo4j.ConnectivityError{Inner: refused}, phaseConnect,
			`cannot reach Neo4j at bolt://127.0.0.1:7687: dial tcp: connection refused`, true},
		{"wrapped net error", fmt.Errorf("reading: %w", syscall.ECONNRESET), phaseQuery,
			`lost the connection to Neo4j at bolt://127.0.0.1:7687: reading: connection reset by peer`, true},
	}
	for _, tc := range cases {
		got := ec.classify(context.Background(), tc.err, tc.ph)
		if got.Error() != tc.want || graph.IsTransient(got) != tc.transient {
			t.Errorf("%s: %q (transient %v), want %q (transient %v)", tc.name, got, graph.IsTransient(got), tc.want, tc.transient)
		}
		if !errors.Is(got, tc.err) {
			t.Errorf("%s: the driver's error is not wrapped", tc.name)
		}
	}
	if !IsAuthError(ec.classify(context.Background(), cases[0].err, phaseConnect)) || !IsDatabaseNotFound(ec.classify(context.Background(), cases[1].err, phaseQuery)) {
		t.Error("IsAuthError / IsDatabaseNotFound")
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if got := ec.classify(ctx, &neo4j.ConnectivityError{Inner: io.EOF}, phaseQuery); got != context.Canceled {
		t.Errorf("cancelled: %v", got)
	}
}
