package cli

import "testing"

// TestWhyRankingOnNeo4jEqualsEmbedded: why --retriever answers alike on
// Neo4j and on the embedded demo graph, in both formats, for a cut, a
// kept and each kind of unreached answer (the distance search, spreading's
// A(v) from the arcs, fusion's lists with Activation Energy's why-not).
func TestWhyRankingOnNeo4jEqualsEmbedded(t *testing.T) {
	srv, _ := freshServer(t)
	mustLoad(t, srv)
	for _, args := range [][]string{
		{"--retriever", "expansion", "--top-k", "3", "--node", "N2007"},
		{"--retriever", "expansion", "--node", "N2002"},
		{"--retriever", "spreading", "--node", "N2012"},
		{"--retriever", "spreading", "--node", "T4008"},
		{"--retriever", "ppr", "--top-k", "6", "--node", "N2003"},
		{"--retriever", "fusion", "--node", "T4008"},
	} {
		sameOnNeo4j(t, srv, append([]string{"why", "--seed", "N2006=0.85"}, args...), "text", "json")
	}
}
