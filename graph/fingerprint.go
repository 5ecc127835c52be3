package graph

import "context"

// Fingerprint identifies a graph's content, so that an experiment saved on
// one graph can tell, when reopened, that the graph is not the same: the
// counts always, and a hash of the whole content where the engine can
// afford one (the embedded engine hashes its APOC export; Neo4j gives
// counts only).
type Fingerprint struct {
	// Source is the graph's description (Source.Describe), for messages.
	Source        string `json:"source"`
	Nodes         int64  `json:"nodes"`
	Relationships int64  `json:"relationships"`
	// ContentSHA256 is the hex SHA-256 of the graph's content, "" when the
	// engine does not compute one.
	ContentSHA256 string `json:"content_sha256,omitempty"`
}

// Fingerprinter is a Source that can fingerprint its graph.
type Fingerprinter interface {
	Fingerprint(ctx context.Context) (Fingerprint, error)
}
