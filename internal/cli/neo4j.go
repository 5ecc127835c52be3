package cli

import (
	"context"
	"fmt"

	"github.com/memoria-graph/memoria/graph/neo4jdb"
)

// connectNeo4j connects with st. When the server refuses the credentials,
// no password came from $NEO4J_PASSWORD and a terminal can be asked, it
// prompts for the password once and retries. The password is never part
// of an error or any output.
func connectNeo4j(ctx context.Context, st neo4jdb.Settings, env Env) (*neo4jdb.Source, error) {
	src, err := neo4jdb.Connect(ctx, st)
	if err == nil {
		return src, nil
	}
	if !neo4jdb.IsAuthError(err) {
		return nil, err
	}
	if st.Password != "" || env.PromptPassword == nil {
		return nil, newAuthError(st, err)
	}
	pw, perr := env.PromptPassword(fmt.Sprintf("Password for %s at %s: ", st.Username, st.URI))
	if perr != nil {
		return nil, fmt.Errorf("reading the password for user %q: %w", st.Username, perr)
	}
	if pw == "" {
		return nil, newAuthError(st, err)
	}
	st.Password = pw
	src, err = neo4jdb.Connect(ctx, st)
	if err == nil {
		return src, nil
	}
	if neo4jdb.IsAuthError(err) {
		return nil, newAuthError(st, err)
	}
	return nil, err
}

// authError is a refused login, told in one sentence that names the user
// and the server. It holds no password (so no %#v can show one) and wraps
// the driver's error.
type authError struct {
	uri, user   string
	hadPassword bool
	err         error
}

func newAuthError(st neo4jdb.Settings, err error) authError {
	return authError{uri: st.URI, user: st.Username, hadPassword: st.Password != "", err: err}
}

func (e authError) Error() string {
	if !e.hadPassword {
		return fmt.Sprintf("Neo4j at %s refused user %q without a password: set $NEO4J_PASSWORD, or run memoria on a terminal to be asked for it", e.uri, e.user)
	}
	return fmt.Sprintf("Neo4j at %s refused user %q: wrong user name or password", e.uri, e.user)
}

func (e authError) Unwrap() error { return e.err }
