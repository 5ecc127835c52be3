package neo4jdb

// PlainValue exposes plainValue to the external tests (package neo4jdb_test),
// which need onneo4j and neo4jload and so cannot be in package neo4jdb.
var PlainValue = plainValue
