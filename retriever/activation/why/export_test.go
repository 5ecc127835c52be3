package why

// ReferenceExplain is the whole-ball Explain (reference_test.go), for the
// tests of package why_test that compare Explain with it.
var ReferenceExplain = referenceExplain
