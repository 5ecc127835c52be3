package cypherlit

import "strings"

// AppendName appends a label, relationship type, property key or index
// name: bare when it is a plain identifier and not a keyword, else between
// backticks (a backtick inside doubled). Cypher has no escapes inside
// backticks, so every other character is written as it is; callers that
// write for a terminal check the name with textsafe.Safe first.
func AppendName(b []byte, name string) []byte {
	if plainName(name) {
		return append(b, name...)
	}
	b = append(b, '`')
	b = append(b, strings.ReplaceAll(name, "`", "``")...)
	return append(b, '`')
}

func plainName(s string) bool {
	if s == "" {
		return false
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c == '_' || i > 0 && c >= '0' && c <= '9') {
			return false
		}
	}
	return !cypherKeywords[strings.ToUpper(s)]
}

// cypherKeywords are Cypher's reserved words (Cypher manual, "Reserved
// keywords"), quoted to be safe wherever a name is written.
var cypherKeywords = func() map[string]bool {
	m := map[string]bool{}
	for _, k := range strings.Fields(`CALL CREATE DELETE DETACH EXISTS FOREACH LOAD MATCH MERGE
		OPTIONAL REMOVE RETURN SET START UNION UNWIND WITH LIMIT ORDER SKIP WHERE YIELD
		ASC ASCENDING ASSERT BY CSV DESC DESCENDING ON ALL CASE COUNT ELSE END THEN WHEN
		AND AS CONTAINS DISTINCT ENDS IN IS NOT OR STARTS XOR CONSTRAINT DROP INDEX NODE
		KEY UNIQUE JOIN SCAN USING FALSE NULL TRUE ADD DO FOR MANDATORY OF REQUIRE SCALAR`) {
		m[k] = true
	}
	return m
}()
