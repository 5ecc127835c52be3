package cli

import (
	"flag"
	"fmt"
	"net/url"
	"slices"
	"strings"
	"time"

	"github.com/memoria-graph/memoria/graph/neo4jdb"
)

// neo4jFlags are the connection settings, named as Neo4j's own tools name
// them. The password is deliberately not a flag.
type neo4jFlags struct {
	uri, username, database string
	timeout                 timeouts
}

func (n *neo4jFlags) register(fs *flag.FlagSet) {
	fs.StringVar(&n.uri, "uri", "", "Neo4j `URI` (default $NEO4J_URI); password from $NEO4J_PASSWORD or a prompt")
	fs.StringVar(&n.username, "username", "", "Neo4j user `name` (default $NEO4J_USERNAME, else neo4j)")
	fs.StringVar(&n.database, "database", "", "Neo4j database `name` (default $NEO4J_DATABASE, else the server's default)")
	n.timeout = timeouts{connect: neo4jdb.DefaultConnectTimeout, query: neo4jdb.DefaultQueryTimeout}
	fs.Var(&n.timeout, "timeout", "Neo4j deadlines: `D` for every step, or connect=D,query=D; connecting\n"+
		"(TCP, TLS, Bolt handshake, login) and each query fail after them; ctrl+c stops them at once")
}

// timeouts is the --timeout flag: the deadline of connecting and of each
// query (graph/neo4jdb, "Deadlines"). It collects its two deadlines
// across repeats (--timeout connect=5s --timeout query=1m), each of which
// keeps one value: given says which were set.
type timeouts struct {
	connect, query time.Duration
	given          struct{ connect, query bool }
}

func (t *timeouts) String() string {
	if t == nil {
		return ""
	}
	return fmt.Sprintf("connect=%s,query=%s", t.connect, t.query)
}

// Set parses "D" (both deadlines) or "connect=D,query=D" (either or both);
// a D is a Go duration such as 10s or 1m30s, and must be positive: without
// a deadline the driver could not be interrupted (neo4jdb, "Deadlines").
// A deadline given again with another value is refused, as a flag given
// twice is (docs/CLI.md).
func (t *timeouts) Set(v string) error {
	set := func(name string, into *time.Duration, given *bool, d time.Duration) error {
		if *given && *into != d {
			return fmt.Errorf("the %s deadline is given twice, %s and then %s: give it once", name, *into, d)
		}
		*into, *given = d, true
		return nil
	}
	dur := func(s string) (time.Duration, error) {
		d, err := time.ParseDuration(strings.TrimSpace(s))
		if err != nil {
			return 0, fmt.Errorf("%q is not a duration like 10s or 1m", s)
		}
		if d <= 0 {
			return 0, fmt.Errorf("%q: a deadline must be positive", s)
		}
		return d, nil
	}
	if !strings.Contains(v, "=") {
		d, err := dur(v)
		if err != nil {
			return err
		}
		if err := set("connect", &t.connect, &t.given.connect, d); err != nil {
			return err
		}
		return set("query", &t.query, &t.given.query, d)
	}
	parts, err := listItems(v, "deadline")
	if err != nil {
		return err
	}
	for _, part := range parts {
		name, val, _ := strings.Cut(part, "=")
		name = strings.TrimSpace(name)
		var into *time.Duration
		var given *bool
		switch name {
		case "connect":
			into, given = &t.connect, &t.given.connect
		case "query":
			into, given = &t.query, &t.given.query
		default:
			return fmt.Errorf("want D, or connect=D,query=D: %q is neither connect nor query", name)
		}
		d, err := dur(val)
		if err != nil {
			return fmt.Errorf("%s: %w", name, err)
		}
		if err := set(name, into, given, d); err != nil {
			return err
		}
	}
	return nil
}

var schemes = []string{"bolt", "bolt+s", "bolt+ssc", "neo4j", "neo4j+s", "neo4j+ssc"}

// settings resolves flags and environment; ok is false when no URI is set.
func (n *neo4jFlags) settings(env Env) (st neo4jdb.Settings, ok bool, err error) {
	pick := func(flagVal, envName, def string) string {
		if flagVal != "" {
			return flagVal
		}
		if v := env.Getenv(envName); v != "" {
			return v
		}
		return def
	}
	st.URI = pick(n.uri, "NEO4J_URI", "")
	if st.URI == "" {
		return st, false, nil
	}
	u, perr := url.Parse(st.URI)
	if perr != nil || u.Host == "" {
		return st, false, usagef("Neo4j URI %q is not a URI like bolt://localhost:7687", st.URI)
	}
	if !slices.Contains(schemes, strings.ToLower(u.Scheme)) {
		return st, false, usagef("Neo4j URI %q: scheme %q is not one of %s", st.URI, u.Scheme, strings.Join(schemes, ", "))
	}
	if u.User != nil {
		return st, false, usagef("Neo4j URI %q carries credentials: give the user with --username and the password in $NEO4J_PASSWORD", u.Redacted())
	}
	st.Username = pick(n.username, "NEO4J_USERNAME", "neo4j")
	st.Database = pick(n.database, "NEO4J_DATABASE", "")
	st.Password = env.Getenv("NEO4J_PASSWORD")
	st.ConnectTimeout, st.QueryTimeout = n.timeout.connect, n.timeout.query
	return st, true, nil
}
