package cli

import (
	"fmt"
	"strings"

	"github.com/memoria-graph/memoria/internal/textsafe"
)

// listItems is the one rule every comma-separated list flag is read by
// (docs/CLI.md, "Lists"): --rel-types, --exclude-rel-types,
// --traverse-types, --per-label-top, --retrievers, --fuse, --k,
// --signal-weights, sweep's --values and --timeout's connect=D,query=D. The value is split at each comma
// and every item trimmed of white space at both ends ("RELATES, MENTIONS"
// is RELATES and MENTIONS, where " MENTIONS" matched no relationship and
// no message told); an item left empty ("A,,B", a trailing comma, an
// empty value) is refused, the error naming it by its place, what an item
// is (what) and the whole value. Inside an item spaces are kept: a type or
// a label is then matched as written. The flag's own parser reads the
// items; a parser of the library that takes the whole text gets them
// joined again with commas (listText).
func listItems(v, what string) ([]string, error) {
	items := strings.Split(v, ",")
	for i, it := range items {
		items[i] = strings.TrimSpace(it)
		if items[i] == "" {
			return nil, fmt.Errorf("an empty %s (item %d of %s)", what, i+1, textsafe.Quote(v))
		}
	}
	return items, nil
}

// listText is v read by listItems and joined again, for a parser of the
// library that takes a list as one text (the fusion's --fuse,
// signals.ParseWeights, signals.ParseCaps); an item of the form KEY=VALUE
// has its key and its value trimmed too when pairs is true (--per-label-top
// 'A = 1' is A=1).
func listText(v, what string, pairs bool) (string, error) {
	items, err := listItems(v, what)
	if err != nil {
		return "", err
	}
	if pairs {
		for i, it := range items {
			if k, val, ok := cutLast(it, "="); ok {
				items[i] = strings.TrimSpace(k) + "=" + strings.TrimSpace(val)
			}
		}
	}
	return strings.Join(items, ","), nil
}

// cutLast is strings.Cut at the last sep (a label is taken up to the last
// '=', signals.ParseCaps).
func cutLast(s, sep string) (before, after string, found bool) {
	i := strings.LastIndex(s, sep)
	if i < 0 {
		return s, "", false
	}
	return s[:i], s[i+len(sep):], true
}
