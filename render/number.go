package render

import (
	"math"
	"strconv"
)

// Num is the one way memoria writes the numbers of the algorithm (T, R, w,
// tag_sim) for people, in every text format and in the explorer: 4
// significant digits, plain decimal notation (never an exponent), trailing
// zeros dropped. 0.101645… → "0.1016", 0.0024017… → "0.002402", 1.782e-06
// → "0.000001782", 0.85 → "0.85", 1 → "1". Non-finite values print as Go
// writes them ("NaN", "+Inf"). JSON keeps full precision and does not use it.
func Num(v float64) string { return numDigits(v, 4) }

// numDigits is Num with a chosen number of significant digits (1 to 17).
func numDigits(v float64, digits int) string {
	if v == 0 || math.IsNaN(v) || math.IsInf(v, 0) {
		return strconv.FormatFloat(v, 'g', -1, 64)
	}
	r, err := strconv.ParseFloat(strconv.FormatFloat(v, 'e', digits-1, 64), 64)
	if err != nil { // cannot happen for a finite v
		r = v
	}
	return strconv.FormatFloat(r, 'f', -1, 64)
}
