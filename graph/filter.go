package graph

import (
	"cmp"
	"slices"
	"strings"
	"unicode"
	"unicode/utf8"
)

// The node filter of Catalog.ListNodes, one definition for every engine
// (graph/inmem computes it in Go, graph/neo4jdb in Cypher; a test on a real
// server checks that both rank a graph alike). A filter matches a node's
// fields, ignoring case:
//
//   - its id, and its `text` property whatever its length;
//   - every other property whose value is a short string (ShortProp runes at
//     most), and every short string of a list of strings (e.g. synonyms).
//
// A field matches at one of three ranks: the whole field is the filter
// (RankExact), a word of the field starts with it (RankWordPrefix: the
// filter occurs where the field starts or after a rune that is neither a
// letter nor a digit, so "stock" starts a word of "safety stock" and of
// "FAST-stock"), or it occurs anywhere (RankSubstring). A node ranks by its
// best field; nodes of one rank by the length of that best field (a
// shorter field is a closer match: "dog" before "dog sled"), then by id.
//
// Case is folded by strings.ToLower (Unicode simple lower-casing) on both
// sides; lengths are counted in runes of the lower-cased field. Neo4j's
// toLower is Java's, which differs from Go's on a few characters (Greek
// final sigma, the dotted capital I): filters on such text may rank
// differently there.

// ShortProp is the most runes a property's string (or a string of its list)
// may have to be searched by the node filter: names, titles and synonyms
// are short; long texts other than `text` (descriptions, documents) are
// left out so that a common word does not match every node.
const ShortProp = 200

// Rank is how well a filter matches a field: lower is better.
type Rank int

const (
	RankExact Rank = iota
	RankWordPrefix
	RankSubstring
	// RankNone: the filter does not occur.
	RankNone
)

// Match is a node's best match: its rank and the length, in runes, of the
// (lower-cased) field that gave it.
type Match struct {
	Rank Rank
	Len  int
}

// NormalizeFilter is the filter as engines compare it: trimmed and
// lower-cased.
func NormalizeFilter(filter string) string {
	return strings.ToLower(strings.TrimSpace(filter))
}

// FilterFields lists the fields the node filter searches, as they are
// (not lower-cased): id first, then `text` when it is a string, then the
// other short strings and short strings of string lists, by property key.
// props is a node's property map (its `id` key is not read: id is given).
func FilterFields(id string, props map[string]any) []string {
	out := []string{id}
	if t, ok := props["text"].(string); ok {
		out = append(out, t)
	}
	keys := make([]string, 0, len(props))
	for k := range props {
		if k != "id" && k != "text" {
			keys = append(keys, k)
		}
	}
	slices.Sort(keys)
	for _, k := range keys {
		switch v := props[k].(type) {
		case string:
			if IsShort(v) {
				out = append(out, v)
			}
		case []string:
			for _, s := range v {
				if IsShort(s) {
					out = append(out, s)
				}
			}
		case []any:
			if !allStrings(v) {
				continue
			}
			for _, x := range v {
				if s := x.(string); IsShort(s) {
					out = append(out, s)
				}
			}
		}
	}
	return out
}

// IsShort reports whether s has at most ShortProp runes.
func IsShort(s string) bool {
	return len(s) <= ShortProp || utf8.RuneCountInString(s) <= ShortProp
}

func allStrings(v []any) bool {
	for _, x := range v {
		if _, ok := x.(string); !ok {
			return false
		}
	}
	return true
}

// ShortStrings returns props' short string properties (IsShort), by key,
// other than `id`: what can name a node (NodeSummary.Props). nil when there
// is none.
func ShortStrings(props map[string]any) map[string]string {
	var out map[string]string
	for k, v := range props {
		if s, ok := v.(string); ok && k != "id" && IsShort(s) {
			if out == nil {
				out = map[string]string{}
			}
			out[k] = s
		}
	}
	return out
}

// MatchFields returns the best match of q, a NormalizeFilter'ed filter,
// over fields, which must already be lower-cased (strings.ToLower). An
// empty q matches nothing.
func MatchFields(q string, fields []string) Match {
	best := Match{Rank: RankNone}
	if q == "" {
		return best
	}
	for _, f := range fields {
		r := MatchField(q, f)
		if r == RankNone {
			continue
		}
		m := Match{Rank: r, Len: utf8.RuneCountInString(f)}
		if m.Rank < best.Rank || (m.Rank == best.Rank && m.Len < best.Len) {
			best = m
		}
	}
	return best
}

// MatchField ranks one lower-cased field against q (normalised, not empty).
func MatchField(q, f string) Rank {
	i := strings.Index(f, q)
	if i < 0 {
		return RankNone
	}
	if len(f) == len(q) {
		return RankExact
	}
	for i >= 0 {
		if startsWord(f, i) {
			return RankWordPrefix
		}
		// The next occurrence may start inside this one ("aa" in "baaa").
		_, size := utf8.DecodeRuneInString(f[i:])
		j := strings.Index(f[i+size:], q)
		if j < 0 {
			break
		}
		i += size + j
	}
	return RankSubstring
}

// startsWord reports whether a word starts at byte i of f: i is 0, or the
// rune before it is neither a letter nor a digit (Unicode categories L and
// N, Java's \p{L} and \p{N}).
func startsWord(f string, i int) bool {
	if i == 0 {
		return true
	}
	r, _ := utf8.DecodeLastRuneInString(f[:i])
	return !unicode.IsLetter(r) && !unicode.IsNumber(r)
}

// CompareMatches orders two matching nodes as ListNodes lists them: by
// rank, then by the length of the best field, then by id (byte-wise).
func CompareMatches(a Match, idA string, b Match, idB string) int {
	if c := cmp.Compare(a.Rank, b.Rank); c != 0 {
		return c
	}
	if c := cmp.Compare(a.Len, b.Len); c != 0 {
		return c
	}
	return strings.Compare(idA, idB)
}
