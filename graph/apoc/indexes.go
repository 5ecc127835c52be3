package apoc

import "github.com/memoria-graph/memoria/internal/cypherlit"

// IndexStatements returns, for each label, the statement that creates its
// id index (docs/ALGORITHM.md, "Indexes"), named by IndexNames, names
// back-quoted only where Cypher needs it:
//
//	CREATE INDEX idx_event_id IF NOT EXISTS FOR (n:Event) ON (n.id)
//
// without a trailing semicolon. The Cypher script, `memoria load` and the
// advice memoria gives for a database whose labels lack an index all use it.
func IndexStatements(labels []string) []string {
	out := make([]string, len(labels))
	for i, name := range IndexNames(labels) {
		b := []byte("CREATE INDEX ")
		b = cypherlit.AppendName(b, name)
		b = append(b, " IF NOT EXISTS FOR (n:"...)
		b = cypherlit.AppendName(b, labels[i])
		b = append(b, ") ON (n.id)"...)
		out[i] = string(b)
	}
	return out
}

// WeightIndexName and WeightIndexStatement name and create the range index
// on the weight of RELATES relationships, which lets Neo4j say at once
// whether every weight lies in [0, 1] (neo4jdb.Source.UnitWeights), and
// so lets why stop reading early (docs/ALGORITHM.md, "Why not X").
const (
	WeightIndexName      = "idx_relates_weight"
	WeightIndexStatement = "CREATE INDEX " + WeightIndexName + " IF NOT EXISTS FOR ()-[r:RELATES]-() ON (r.weight)"
)
