package apoc

// DisagreeMark is disagreeMark, for FuzzParse (package apoc_test).
const DisagreeMark = disagreeMark
