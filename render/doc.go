// Package render turns what the retrievers return into the formats people
// and tools read: Activation Energy's results (a D3 node-link graph, an LLM
// context block, a plain-text tree, debug and check Cypher per path, the
// transfer-energy arithmetic of one hop), any retriever's ranking (JSON,
// text, D3, LLM context, Cypher per hit), comparisons of rankings, why-not
// answers (retriever/rankwhy's and Activation Energy's), sweeps,
// evaluation reports and graph metrics. It implements the exporters of
// docs/EXPORTS.md.
//
// Every function is pure: it reads only its arguments, never mutates them,
// and writes nothing. Output is deterministic: the same results always give
// the same bytes.
package render
