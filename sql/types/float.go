package types

import (
	"math"
	"strconv"

	"github.com/weir-sql/weir/sql/sqlerr"
)

// The NaN bit patterns PostgreSQL's float input produces and that weir
// sends for every NaN.
const (
	canonicalNaN64 = 0x7ff8000000000000
	canonicalNaN32 = 0x7fc00000
)

// FormatFloat64 is float8out with extra_float_digits = 1.
func FormatFloat64(f float64) string { return string(AppendFloat64(nil, f, 1)) }

// FormatFloat32 is float4out with extra_float_digits = 1.
func FormatFloat32(f float32) string { return string(AppendFloat32(nil, f, 1)) }

// AppendFloat64 is float8out: with extraDigits > 0 the shortest string that
// reads back exactly, in PostgreSQL's layout (fixed notation for decimal
// exponents in [-4, 15), else d.ddde+XX); otherwise %.{15+extraDigits}g.
func AppendFloat64(buf []byte, f float64, extraDigits int) []byte {
	return appendFloat(buf, f, 64, extraDigits, 15)
}

// AppendFloat32 is float4out: like AppendFloat64 with a fixed-notation range
// of [-4, 6) and 6 significant digits as the %g base.
func AppendFloat32(buf []byte, f float32, extraDigits int) []byte {
	return appendFloat(buf, float64(f), 32, extraDigits, 6)
}

func appendFloat(buf []byte, f float64, bits, extraDigits, digits int) []byte {
	switch {
	case math.IsNaN(f):
		return append(buf, "NaN"...)
	case math.IsInf(f, 1):
		return append(buf, "Infinity"...)
	case math.IsInf(f, -1):
		return append(buf, "-Infinity"...)
	}
	if extraDigits <= 0 {
		p := digits + extraDigits
		if p < 1 {
			p = 1
		}
		return strconv.AppendFloat(buf, f, 'g', p, bits)
	}
	// Shortest digits in exponent form, then laid out as PostgreSQL's Ryu
	// output does.
	var scratch [32]byte
	e := strconv.AppendFloat(scratch[:0], f, 'e', -1, bits)
	neg := false
	if e[0] == '-' {
		neg = true
		e = e[1:]
	}
	// e is d[.ddd]e±XX
	var mant [24]byte
	nd := 0
	k := 0
	for ; e[k] != 'e'; k++ {
		if e[k] != '.' {
			mant[nd] = e[k]
			nd++
		}
	}
	exp := 0
	esign := e[k+1]
	for _, c := range e[k+2:] {
		exp = exp*10 + int(c-'0')
	}
	if esign == '-' {
		exp = -exp
	}
	if neg {
		buf = append(buf, '-')
	}
	if f == 0 {
		return append(buf, '0')
	}
	if exp < -4 || exp >= digits {
		return append(buf, e...)
	}
	if exp < 0 {
		buf = append(buf, '0', '.')
		for i := -1; i > exp; i-- {
			buf = append(buf, '0')
		}
		return append(buf, mant[:nd]...)
	}
	if nd <= exp+1 {
		buf = append(buf, mant[:nd]...)
		for i := nd; i <= exp; i++ {
			buf = append(buf, '0')
		}
		return buf
	}
	buf = append(buf, mant[:exp+1]...)
	buf = append(buf, '.')
	return append(buf, mant[exp+1:nd]...)
}

// parseFloatText is float8in/float4in: strtod syntax including Infinity,
// inf and NaN in any case, surrounded by optional whitespace. Overflow and
// underflow to zero are errors, as in PostgreSQL.
func parseFloatText(t T, s []byte) (datum, error) {
	v := trimSpace(s)
	bits := 64
	if t.OID == OidFloat4 {
		bits = 32
	}
	if len(v) == 0 {
		return datum{}, errInvalidSyntax(t, s)
	}
	if f, ok := parseFloatWord(v); ok {
		return datum{f: f}, nil
	}
	// Go accepts underscores and a few spellings strtod does not; allow
	// only the characters of a decimal or hex float.
	for _, c := range v {
		if !(c >= '0' && c <= '9' || c == '.' || c == 'e' || c == 'E' || c == '+' || c == '-' ||
			c == 'x' || c == 'X' || c == 'p' || c == 'P' || c >= 'a' && c <= 'f' || c >= 'A' && c <= 'F') {
			return datum{}, errInvalidSyntax(t, s)
		}
	}
	f, err := strconv.ParseFloat(string(v), bits)
	if err != nil {
		if ne, ok := err.(*strconv.NumError); ok && ne.Err == strconv.ErrRange {
			return datum{}, errFloatRange(t, v)
		}
		return datum{}, errInvalidSyntax(t, s)
	}
	if f == 0 && hasNonZeroMantissa(v) {
		return datum{}, errFloatRange(t, v)
	}
	return datum{f: f}, nil
}

func errFloatRange(t T, v []byte) error {
	return sqlerr.New(sqlerr.NumericValueOutOfRange, "\"%s\" is out of range for type %s", v, typeName(t))
}

// hasNonZeroMantissa reports whether a decimal float literal has a nonzero
// digit before its exponent, i.e. whether a zero result is an underflow.
func hasNonZeroMantissa(v []byte) bool {
	hex := len(v) > 2 && (v[1] == 'x' || v[1] == 'X' || len(v) > 3 && (v[2] == 'x' || v[2] == 'X'))
	for i, c := range v {
		if hex && i < 3 && (c == 'x' || c == 'X' || c == '0' && i < 2) {
			continue
		}
		if !hex && (c == 'e' || c == 'E') || hex && (c == 'p' || c == 'P') {
			return false
		}
		if c >= '1' && c <= '9' || hex && (c >= 'a' && c <= 'f' || c >= 'A' && c <= 'F') {
			return true
		}
	}
	return false
}

func parseFloatWord(v []byte) (float64, bool) {
	neg := false
	w := v
	if w[0] == '+' || w[0] == '-' {
		neg = w[0] == '-'
		w = w[1:]
	}
	eq := func(word string) bool {
		if len(w) != len(word) {
			return false
		}
		for i := range w {
			if lower(w[i]) != word[i] {
				return false
			}
		}
		return true
	}
	switch {
	case eq("nan"):
		return math.Float64frombits(canonicalNaN64), true
	case eq("infinity"), eq("inf"):
		if neg {
			return math.Inf(-1), true
		}
		return math.Inf(1), true
	}
	return 0, false
}
