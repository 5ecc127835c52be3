package cli

import (
	"flag"
	"net/url"
	"slices"
	"strings"
)

// neo4jFlags are the connection settings, named as Neo4j's own tools name
// them. The password is deliberately not a flag.
type neo4jFlags struct {
	uri, username, database string
}

func (n *neo4jFlags) register(fs *flag.FlagSet) {
	fs.StringVar(&n.uri, "uri", "", "Neo4j `URI` (default $NEO4J_URI); password from $NEO4J_PASSWORD or a prompt")
	fs.StringVar(&n.username, "username", "", "Neo4j user `name` (default $NEO4J_USERNAME, else neo4j)")
	fs.StringVar(&n.database, "database", "", "Neo4j database `name` (default $NEO4J_DATABASE, else the server's default)")
}

// neo4jSettings is a resolved connection.
type neo4jSettings struct {
	URI, Username, Password, Database string
}

var schemes = []string{"bolt", "bolt+s", "bolt+ssc", "neo4j", "neo4j+s", "neo4j+ssc"}

// settings resolves flags and environment; ok is false when no URI is set.
func (n *neo4jFlags) settings(env Env) (st neo4jSettings, ok bool, err error) {
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
	return st, true, nil
}
