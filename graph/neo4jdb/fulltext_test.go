package neo4jdb

import "testing"

// TestEscapeLucene: every character of Lucene's classic query syntax and
// white space gets a backslash, and the words AND, OR and NOT one before
// them, so that a term is data: `a:b` → `a\:b`, `x y` → `x\ y`,
// `"q\"` → `\"q\\\"`, `AND` → `\AND`, `and` unchanged (the parser's
// operators are upper case).
func TestEscapeLucene(t *testing.T) {
	for in, want := range map[string]string{
		"a:b": `a\:b`, "x y": `x\ y`, `"q\"`: `\"q\\\"`, "AND": `\AND`, "and": "and", "OR": `\OR`,
		"+-&|!(){}[]^~*?/": `\+\-\&\|\!\(\)\{\}\[\]\^\~\*\?\/`, "école": "école",
	} {
		if got := EscapeLucene(in); got != want {
			t.Errorf("EscapeLucene(%q) = %q, want %q", in, got, want)
		}
	}
}

// TestTermsQuery: each field with each term, quoted (a term query), or
// followed by * (a prefix query), fields and terms escaped, joined by
// spaces (OR).
func TestTermsQuery(t *testing.T) {
	if got, want := TermsQuery([]string{"name", "my key"}, []string{"team's", "a:b"}, false),
		`name:"team's" name:"a\:b" my\ key:"team's" my\ key:"a\:b"`; got != want {
		t.Errorf("terms: %s, want %s", got, want)
	}
	if got, want := TermsQuery([]string{"name"}, []string{"saf", "AND"}, true), `name:saf* name:\AND*`; got != want {
		t.Errorf("prefixes: %s, want %s", got, want)
	}
}
