package common

import (
	"fmt"
	"time"
)

// Thousands writes n with a comma every three digits: 1,204.
func Thousands(n int) string {
	s := fmt.Sprint(n)
	for i := len(s) - 3; i > 0 && s[i-1] != '-'; i -= 3 {
		s = s[:i] + "," + s[i:]
	}
	return s
}

// FmtDur shows a duration in ms (or µs below 1 ms).
func FmtDur(d time.Duration) string {
	if d < time.Millisecond {
		return fmt.Sprintf("%d µs", d.Microseconds())
	}
	return fmt.Sprintf("%d ms", d.Milliseconds())
}

// Plural is n and word, with an s when n is not 1: "1 seed", "3 seeds".
func Plural(n int, word string) string {
	if n == 1 {
		return "1 " + word
	}
	return fmt.Sprintf("%d %ss", n, word)
}
