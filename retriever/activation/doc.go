// Package activation is the Activation Energy retriever: from seed nodes,
// each with a score R, it spreads energy along RELATES relationships and
// keeps the paths whose energy stays above a threshold.
//
// Energy moves from node i to its neighbour j as
//
//	T(i→j) = R(i) · w_ij / √degree(i) · tag_sim
//
// where w_ij is the edge's weight (0.01 when missing), degree(i) counts
// every RELATES edge of i and tag_sim is the floored Jaccard similarity of
// the edge's tags and the query's (1 without query tags). A neighbour is a
// candidate when T
// exceeds MIN_ACTIVATION; each level takes the candidates of all frontier
// nodes in one order (T descending, then parent id, then neighbour id, then
// EdgeKey for parallel edges) and keeps each one whose neighbour is not yet
// claimed and whose parent has kept fewer than MAX_BRANCHES, down to
// MAX_DEPTH levels. The rules, with worked examples, are docs/ALGORITHM.md
// (rule 1 the formula, rule 2 tag_sim, rule 3 the threshold, rule 4
// claims, rule 5 paths, rule 6 end reasons, rule 7 seeds); the code cites
// them by number.
//
// The package holds the parameters (Params, Options), the energy
// (TransferEnergy, TagSim), the traversal, the streaming orchestrator
// (Retriever: one goroutine per seed, an Event per level, then the seed's
// Result), its result types (Result, Path, Step, end reasons, ResultDiff),
// and
// Expander, the small interface it reads a graph through. The engines and
// tools around it are its subpackages:
//
//   - oninmem: the expansion over the embedded engine (graph/inmem);
//   - onneo4j: the expansion over Neo4j (the specification's Cypher, and
//     the fast path); both compute the same numbers to the bit;
//   - sweep: the retriever at each value of one parameter, with
//     MIN_ACTIVATION's exact breakpoints;
//   - why: why a node is, or is not, in the result.
package activation
