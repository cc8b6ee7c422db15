package jsnum

import (
	"math"
	"math/rand/v2"
	"strconv"
	"testing"
)

// tenth and fifth are variables so that 0.1+0.2 is computed in float64 at
// run time, not exactly as an untyped constant.
var tenth, fifth = 0.1, 0.2

func TestFormat(t *testing.T) {
	tests := []struct {
		in   float64
		want string
	}{
		// The calculator's documented examples.
		{8, "8"},
		{5, "5"},
		{tenth + fifth, "0.30000000000000004"},
		{1e21, "1e+21"},
		{1e-7, "1e-7"},
		{123456789012, "123456789012"},
		{0.000001, "0.000001"},
		{math.Copysign(0, -1), "0"},
		{0, "0"},
		{math.Inf(1), "Infinity"},
		{math.Inf(-1), "-Infinity"},
		{math.NaN(), "NaN"},

		// Integers, up to the 21-digit boundary.
		{1, "1"},
		{-1, "-1"},
		{10, "10"},
		{100, "100"},
		{-8, "-8"},
		{1e20, "100000000000000000000"},
		{123e18, "123000000000000000000"},
		{9.999999999999999e20, "999999999999999900000"},
		{1.5e21, "1.5e+21"},
		{-1e21, "-1e+21"},
		{1 << 53, "9007199254740992"},
		{1<<53 + 2, "9007199254740994"},
		{math.MaxInt64, "9223372036854776000"},
		{1e22, "1e+22"},

		// Decimal point inside the digits.
		{1.5, "1.5"},
		{-1.5, "-1.5"},
		{123.456, "123.456"},
		{0.5, "0.5"},
		{3.14159, "3.14159"},
		{12345678901234567890.5, "12345678901234567000"},
		{100.25, "100.25"},
		{1.0000000000000002, "1.0000000000000002"},
		{2.5e20 + 0.5, "250000000000000000000"},
		{123456789.12345679, "123456789.12345679"},

		// Small numbers down to the 1e-6 boundary.
		{0.1, "0.1"},
		{0.01, "0.01"},
		{0.001, "0.001"},
		{0.0001, "0.0001"},
		{0.00001, "0.00001"},
		{0.0000012345, "0.0000012345"},
		{-0.000001, "-0.000001"},
		{0.000009999999, "0.000009999999"},

		// Exponential notation.
		{1.2345e-7, "1.2345e-7"},
		{9.99e-7, "9.99e-7"},
		{-1e-7, "-1e-7"},
		{123e-20, "1.23e-18"},
		{5e-324, "5e-324"},
		{-5e-324, "-5e-324"},
		{math.SmallestNonzeroFloat64 * 3, "1.5e-323"},
		{math.MaxFloat64, "1.7976931348623157e+308"},
		{1.5e300, "1.5e+300"},
		{1e100, "1e+100"},
		{2.2250738585072014e-308, "2.2250738585072014e-308"},
		{4.35, "4.35"},
		{0.3, "0.3"},
		{2.0 / 3, "0.6666666666666666"},
		{1.0 / 3, "0.3333333333333333"},
		{10.0 / 3, "3.3333333333333335"},
		{0.0000015, "0.0000015"},
		{1.5e-7, "1.5e-7"},
		{tenth * 3, "0.30000000000000004"},
		{fifth * 3, "0.6000000000000001"},
	}
	for _, tt := range tests {
		if got := Format(tt.in); got != tt.want {
			t.Errorf("Format(%v) = %q, want %q", tt.in, got, tt.want)
		}
	}
}

// TestFormatRoundTrip checks, over many random values, that Format's output
// parses back to the same float64 and has the shape the specification
// allows.
func TestFormatRoundTrip(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	for range 200000 {
		f := math.Float64frombits(r.Uint64())
		if math.IsNaN(f) || math.IsInf(f, 0) {
			continue
		}
		s := Format(f)
		back, err := strconv.ParseFloat(s, 64)
		if err != nil {
			t.Fatalf("Format(%v) = %q: does not parse: %v", f, s, err)
		}
		if back != f && !(f == 0 && back == 0) {
			t.Fatalf("Format(%v) = %q parses back as %v", f, s, back)
		}
		abs := math.Abs(f)
		exp := false
		for i := range len(s) {
			if s[i] == 'e' {
				exp = true
			}
		}
		// Plain notation exactly when 1e-7 < |f| < 1e21 (or zero).
		if plain := f == 0 || (abs >= 1e-6 && abs < 1e21); plain == exp {
			t.Fatalf("Format(%v) = %q: exponent notation %v, want %v", f, s, exp, !plain)
		}
	}
}

// TestFormatIntegers checks that the integers Format writes on its fast
// path are written as the specification's algorithm writes them.
func TestFormatIntegers(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 4))
	check := func(f float64) {
		if got, want := Format(f), format(f); got != want {
			t.Fatalf("Format(%v) = %q, the algorithm gives %q", f, got, want)
		}
	}
	for _, f := range []float64{1, 9, 10, 100, 1e15, 1e16, 1<<53 - 1, 123456789012} {
		check(f)
	}
	for range 100000 {
		check(float64(r.Int64N(1 << 53)))
		check(float64(r.Int64N(1 << 20)))
	}
}
