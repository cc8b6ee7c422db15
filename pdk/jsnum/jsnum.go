// Package jsnum formats float64 values exactly as JavaScript's String(n)
// does, following the ECMAScript Number::toString algorithm (radix 10).
//
// It has no build constraints, so it is usable (and tested) on the host as
// well as inside wasip1 plugins.
package jsnum

import (
	"math"
	"strconv"
	"strings"
)

// Format returns the ECMAScript string form of f, as String(f) would in
// JavaScript: "8", "0.30000000000000004", "1e+21", "1e-7", "Infinity",
// "NaN". Negative zero is "0".
func Format(f float64) string {
	switch {
	case math.IsNaN(f):
		return "NaN"
	case f == 0: // +0 and -0
		return "0"
	case math.IsInf(f, 1):
		return "Infinity"
	case math.IsInf(f, -1):
		return "-Infinity"
	case f < 0:
		return "-" + Format(-f)
	case f < 1<<53 && f == math.Trunc(f):
		// An integer that a float64 holds exactly is written in full
		// below 1e21, as strconv writes it: the common case, made cheap.
		return strconv.FormatInt(int64(f), 10)
	}
	return format(f)
}

// format is Format for positive finite f, by the specification's algorithm.
func format(f float64) string {

	// Shortest digits that round-trip, as "d.ddde±x". Go's shortest
	// formatting picks the closest such digit string, as the specification
	// requires when several are equally short.
	e := strconv.FormatFloat(f, 'e', -1, 64)
	mant, exp, _ := strings.Cut(e, "e")
	digits := strings.Replace(mant, ".", "", 1) // s, with k = len(digits)
	x, err := strconv.Atoi(exp)
	if err != nil {
		panic("jsnum: unexpected FormatFloat output " + e)
	}
	k := len(digits)
	n := x + 1 // f = 0.digits × 10^n

	var b strings.Builder
	switch {
	case k <= n && n <= 21:
		// Integer: the digits followed by n-k zeros.
		b.WriteString(digits)
		b.WriteString(strings.Repeat("0", n-k))
	case 0 < n && n <= 21:
		// The decimal point falls inside the digits.
		b.WriteString(digits[:n])
		b.WriteByte('.')
		b.WriteString(digits[n:])
	case -6 < n && n <= 0:
		// A small number: "0." then -n zeros then the digits.
		b.WriteString("0.")
		b.WriteString(strings.Repeat("0", -n))
		b.WriteString(digits)
	default:
		// Exponential notation with an explicit exponent sign.
		b.WriteByte(digits[0])
		if k > 1 {
			b.WriteByte('.')
			b.WriteString(digits[1:])
		}
		b.WriteByte('e')
		if n-1 >= 0 {
			b.WriteByte('+')
		} else {
			b.WriteByte('-')
		}
		b.WriteString(strconv.Itoa(abs(n - 1)))
	}
	return b.String()
}

func abs(i int) int {
	if i < 0 {
		return -i
	}
	return i
}
