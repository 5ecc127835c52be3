package render

import (
	"math"
	"strconv"
	"strings"
)

// Num is the one way memoria writes the numbers of the algorithm (T, R, w,
// tag_sim) for people, in every text format and in the explorer: 4
// significant digits, plain decimal notation, trailing zeros dropped.
// 0.101645… → "0.1016", 0.0024017… → "0.002402", 1.782e-06 →
// "0.000001782", 0.85 → "0.85", 1 → "1". A number too small or too large
// for that to stay short, below PlainMin or from PlainMax on, is written
// with an exponent instead, its mantissa of the same 4 digits
// ("4.941e-324", "1e+308"), so that no number
// shown is wider than 16 characters (a 324-character R and 309-digit
// weights stretched a tree's lines). Non-finite values print as Go writes
// them ("NaN", "+Inf"). JSON keeps full precision and does not use it.
func Num(v float64) string { return numDigits(v, 4) }

// PlainMin and PlainMax bound the magnitudes Num writes in plain decimal
// notation: 0.000000001234 and 999999999999999 are the widest.
const (
	PlainMin = 1e-9
	PlainMax = 1e15
)

// numDigits is Num with a chosen number of significant digits (1 to 17).
func numDigits(v float64, digits int) string {
	if v == 0 || math.IsNaN(v) || math.IsInf(v, 0) {
		return strconv.FormatFloat(v, 'g', -1, 64)
	}
	e := strconv.FormatFloat(v, 'e', digits-1, 64)
	r, err := strconv.ParseFloat(e, 64)
	if a := math.Abs(r); err != nil || a < PlainMin || a >= PlainMax {
		// The rounded mantissa, its trailing zeros dropped: "1e+308",
		// "4.941e-324" (err: MaxFloat64 rounded up past the range).
		mant, exp, _ := strings.Cut(e, "e")
		if strings.Contains(mant, ".") {
			mant = strings.TrimRight(strings.TrimRight(mant, "0"), ".")
		}
		return mant + "e" + exp
	}
	return strconv.FormatFloat(r, 'f', -1, 64)
}
