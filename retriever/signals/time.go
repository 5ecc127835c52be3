package signals

import (
	"fmt"
	"math"
	"strings"
	"time"

	"github.com/neo4j/neo4j-go-driver/v5/neo4j/dbtype"
)

// timeLayouts are the ISO 8601 forms a timestamp string may take, tried
// in order: with a zone (an offset with or without a colon, or Z), then
// without one (taken as UTC, as Neo4j's LocalDateTime), with or without
// seconds; Go's parser takes a fraction of a second after the seconds in
// every one. A date alone is midnight UTC.
var timeLayouts = []string{
	"2006-01-02T15:04:05Z07:00",
	"2006-01-02T15:04:05Z0700",
	"2006-01-02T15:04Z07:00",
	"2006-01-02T15:04:05",
	"2006-01-02T15:04",
	"2006-01-02",
}

// maxEpoch bounds epoch seconds (about 3 million years either way), so
// that a number too large for an instant is unreadable, not wrapped.
const maxEpoch = 1e14

// Timestamp reads a property value as an instant: an ISO 8601 / RFC 3339
// string (timeLayouts; a Neo4j DateTime's string with a named zone after
// its offset, "…+01:00[Europe/Paris]", by its offset), a time.Time, the
// Neo4j driver's Date (midnight UTC) or LocalDateTime (its clock read as
// UTC), or epoch seconds as an integer or a float. graph/neo4jdb turns
// Neo4j's temporal values into such strings before they reach a node's
// properties, and the embedded engine's are strings and numbers; the
// driver's own types are read too, for a caller that kept them. Anything
// else is an error saying why.
func Timestamp(v any) (time.Time, error) {
	switch x := v.(type) {
	case string:
		return parseTime(x)
	case time.Time:
		return x, nil
	case dbtype.Date:
		y, m, d := time.Time(x).Date()
		return time.Date(y, m, d, 0, 0, 0, 0, time.UTC), nil
	case dbtype.LocalDateTime:
		t := time.Time(x)
		return time.Date(t.Year(), t.Month(), t.Day(), t.Hour(), t.Minute(), t.Second(), t.Nanosecond(), time.UTC), nil
	case int64:
		if math.Abs(float64(x)) > maxEpoch {
			return time.Time{}, fmt.Errorf("%d epoch seconds is out of range", x)
		}
		return time.Unix(x, 0).UTC(), nil
	case int:
		return Timestamp(int64(x))
	case float64:
		if math.IsNaN(x) || math.IsInf(x, 0) || math.Abs(x) > maxEpoch {
			return time.Time{}, fmt.Errorf("%v epoch seconds is out of range", x)
		}
		sec := math.Floor(x)
		return time.Unix(int64(sec), int64(math.Round((x-sec)*1e9))).UTC(), nil
	case nil:
		return time.Time{}, fmt.Errorf("null is not a timestamp")
	}
	return time.Time{}, fmt.Errorf("a %T is not a timestamp", v)
}

func parseTime(s string) (time.Time, error) {
	t := s
	// A named zone after an offset: the offset says the instant.
	if i := strings.IndexByte(t, '['); i > 0 && strings.HasSuffix(t, "]") {
		t = t[:i]
	}
	for _, layout := range timeLayouts {
		if x, err := time.Parse(layout, t); err == nil {
			return x, nil
		}
	}
	return time.Time{}, fmt.Errorf("not an ISO 8601 timestamp")
}

// Days is (now − t) in days of 24 hours, as a float; 0 when t is after
// now (future is true then).
func Days(now, t time.Time) (days float64, future bool) {
	if t.After(now) {
		return 0, true
	}
	// Seconds and nanoseconds apart: time.Sub saturates beyond 292 years.
	return float64(now.Unix()-t.Unix())/86400 + float64(now.Nanosecond()-t.Nanosecond())/86400e9, false
}
