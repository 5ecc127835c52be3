// Package render turns retriever results into the formats people and tools
// read: a D3 node-link graph (ToD3), an LLM context block (ToLLMContext),
// paste-ready Cypher to replay a path in Neo4j Browser (DebugCypher), a
// plain-text tree (Tree) and the transfer-energy arithmetic of one hop
// (EnergyFormula, TagBreakdown). It implements the exporters of
// docs/EXPORTS.md.
//
// Every function is pure: it reads only its arguments, never mutates them,
// and writes nothing. Output is deterministic: the same results always give
// the same bytes.
package render
