package types

import (
	"encoding/binary"
	"strconv"
	"strings"

	"github.com/weir-sql/weir/sql/sqlerr"
)

// Limits of PostgreSQL's numeric storage format.
const (
	numericMaxIntDigits = 131072 // NUMERIC_WEIGHT_MAX+1 base-10000 digits
	numericMaxDscale    = 0x3FFF // NUMERIC_DSCALE_MAX
)

// Binary sign words of numeric_send.
const (
	numericPos  = 0x0000
	numericNeg  = 0x4000
	numericNaN  = 0xC000
	numericPInf = 0xD000
	numericNInf = 0xF000
	// numericInfDscale is the dscale numeric_send reports for the
	// infinities (bits of their header word, not a real scale).
	numericInfDscale = 32
)

func errNumericSyntax(s []byte) error {
	return sqlerr.New(sqlerr.InvalidTextRepresentation, "invalid input syntax for type numeric: \"%s\"", s)
}

func errNumericOverflow() error {
	return sqlerr.New(sqlerr.NumericValueOutOfRange, "value overflows numeric format")
}

// ParseNumeric is numeric_in without a type modifier: it validates s and
// returns the canonical text PostgreSQL would print for it. The input's
// scale is kept ('1.50' stays '1.50'), an exponent is applied ('1.5e2' is
// '150', '1e-3' is '0.001'), and NaN, Infinity, -Infinity are spelled so.
func ParseNumeric(s []byte) (string, error) {
	v := trimSpace(s)
	if len(v) == 3 && strings.EqualFold(string(v), "nan") {
		return "NaN", nil
	}
	neg := false
	body := v
	if len(body) > 0 && (body[0] == '+' || body[0] == '-') {
		neg = body[0] == '-'
		body = body[1:]
	}
	if strings.EqualFold(string(body), "infinity") || strings.EqualFold(string(body), "inf") {
		if neg {
			return "-Infinity", nil
		}
		return "Infinity", nil
	}
	i := 0
	intStart := i
	for i < len(body) && isDigit(body[i]) {
		i++
	}
	intDigits := body[intStart:i]
	var fracDigits []byte
	if i < len(body) && body[i] == '.' {
		i++
		fs := i
		for i < len(body) && isDigit(body[i]) {
			i++
		}
		fracDigits = body[fs:i]
	}
	if len(intDigits)+len(fracDigits) == 0 {
		return "", errNumericSyntax(s)
	}
	exp := int64(0)
	if i < len(body) && (body[i] == 'e' || body[i] == 'E') {
		i++
		eneg := false
		if i < len(body) && (body[i] == '+' || body[i] == '-') {
			eneg = body[i] == '-'
			i++
		}
		es := i
		for i < len(body) && isDigit(body[i]) {
			if exp < 1<<40 {
				exp = exp*10 + int64(body[i]-'0')
			}
			i++
		}
		if i == es {
			return "", errNumericSyntax(s)
		}
		if exp >= 1<<30-1 {
			return "", errNumericOverflow()
		}
		if eneg {
			exp = -exp
		}
	}
	if i != len(body) {
		return "", errNumericSyntax(s)
	}
	return canonicalDecimal(neg, intDigits, fracDigits, int(exp))
}

// canonicalDecimal lays out sign·(int.frac)·10^exp with PostgreSQL's
// display scale max(0, len(frac)-exp).
func canonicalDecimal(neg bool, intDigits, fracDigits []byte, exp int) (string, error) {
	dscale := len(fracDigits) - exp
	if dscale < 0 {
		dscale = 0
	}
	point := len(intDigits) + exp // position of the point within int+frac
	// Strip leading zeros of the integer part for the weight check.
	all := make([]byte, 0, len(intDigits)+len(fracDigits))
	all = append(all, intDigits...)
	all = append(all, fracDigits...)
	lead := 0
	for lead < len(all) && all[lead] == '0' {
		lead++
	}
	if lead < len(all) && point-lead > numericMaxIntDigits {
		return "", errNumericOverflow()
	}
	if dscale > numericMaxDscale {
		return "", errNumericOverflow()
	}
	if lead == len(all) {
		// Zero, however large its exponent ('0e900000000'): laying out
		// the point's position digit by digit would take that long.
		out := make([]byte, 0, dscale+2)
		out = append(out, '0')
		if dscale > 0 {
			out = append(out, '.')
			for k := 0; k < dscale; k++ {
				out = append(out, '0')
			}
		}
		return string(out), nil
	}
	out := make([]byte, 0, max(point, 1)+dscale+3)
	if neg {
		out = append(out, '-')
	}
	intStart := len(out)
	// Integer part: digits all[0:point], zero-padded on the right when the
	// exponent moves the point past the written digits.
	for k := 0; k < point; k++ {
		c := byte('0')
		if k < len(all) {
			c = all[k]
		}
		if c == '0' && len(out) == intStart {
			continue // leading zero
		}
		out = append(out, c)
	}
	if len(out) == intStart {
		out = append(out, '0')
	}
	if dscale > 0 {
		out = append(out, '.')
		for k := point; k < point+dscale; k++ {
			c := byte('0')
			if k >= 0 && k < len(all) {
				c = all[k]
			}
			out = append(out, c)
		}
	}
	if neg && isZeroDecimal(out[1:]) {
		out = out[1:]
	}
	return string(out), nil
}

func isDigit(c byte) bool { return '0' <= c && c <= '9' }

func isZeroDecimal(s []byte) bool {
	for _, c := range s {
		if c != '0' && c != '.' {
			return false
		}
	}
	return true
}

// NumericTypmod builds the type modifier of numeric(precision, scale).
func NumericTypmod(precision, scale int) int32 {
	return int32(precision<<16|(scale&0x7ff)) + 4
}

// numericPrecisionScale decodes a numeric typmod as PostgreSQL 15 does
// (the scale is an 11-bit signed field).
func numericPrecisionScale(typmod int32) (int, int) {
	m := typmod - 4
	return int((m >> 16) & 0xffff), int(((m & 0x7ff) ^ 1024) - 1024)
}

// CoerceNumeric applies numeric(p,s)'s type modifier to canonical numeric
// text: it rounds half away from zero to s fractional digits (padding with
// zeros) and fails with 22003 "numeric field overflow" when the result needs
// more than p-s integer digits. A typmod below 4 leaves text unchanged.
func CoerceNumeric(text string, typmod int32) (string, error) {
	if typmod < 4 || text == "NaN" {
		return text, nil
	}
	prec, scale := numericPrecisionScale(typmod)
	if text == "Infinity" || text == "-Infinity" {
		return "", sqlerr.New(sqlerr.NumericValueOutOfRange, "numeric field overflow").WithDetail(
			"A field with precision " + strconv.Itoa(prec) + ", scale " + strconv.Itoa(scale) + " cannot hold an infinite value.")
	}
	neg := strings.HasPrefix(text, "-")
	body := strings.TrimPrefix(text, "-")
	intPart, fracPart, _ := strings.Cut(body, ".")
	digits := []byte(intPart + fracPart)
	point := len(intPart)
	// Keep point+scale digits, rounding on the next one.
	keep := point + scale
	if keep < 0 {
		digits = []byte{'0'}
		point = 1
		keep = 0
	} else if keep < len(digits) {
		roundUp := digits[keep] >= '5'
		digits = digits[:keep]
		if roundUp {
			k := keep - 1
			for ; k >= 0; k-- {
				if digits[k] == '9' {
					digits[k] = '0'
					continue
				}
				digits[k]++
				break
			}
			if k < 0 {
				digits = append([]byte{'1'}, digits...)
				point++
				keep++
			}
		}
	}
	for len(digits) < keep || len(digits) < point {
		digits = append(digits, '0')
	}
	// Count significant integer digits.
	ip := digits[:point]
	intDigits := ip
	for len(intDigits) > 0 && intDigits[0] == '0' {
		intDigits = intDigits[1:]
	}
	maxDigits := prec - scale
	if len(intDigits) > maxDigits && !allZero(digits) {
		detail := "A field with precision " + strconv.Itoa(prec) + ", scale " + strconv.Itoa(scale) +
			" must round to an absolute value less than "
		if maxDigits > 0 {
			detail += "10^" + strconv.Itoa(maxDigits) + "."
		} else {
			detail += "1."
		}
		return "", sqlerr.New(sqlerr.NumericValueOutOfRange, "numeric field overflow").WithDetail(detail)
	}
	var frac []byte
	if scale > 0 {
		frac = digits[point:]
	}
	return canonicalDecimal(neg, ip, frac, 0)
}

func allZero(d []byte) bool {
	for _, c := range d {
		if c != '0' {
			return false
		}
	}
	return true
}

// appendNumericBinary is numeric_send of canonical numeric text.
func appendNumericBinary(buf []byte, text string) ([]byte, error) {
	switch text {
	case "NaN":
		return appendNumericHeader(buf, 0, 0, numericNaN, 0), nil
	case "Infinity":
		return appendNumericHeader(buf, 0, 0, numericPInf, numericInfDscale), nil
	case "-Infinity":
		return appendNumericHeader(buf, 0, 0, numericNInf, numericInfDscale), nil
	}
	sign := uint16(numericPos)
	if strings.HasPrefix(text, "-") {
		sign = numericNeg
		text = text[1:]
	}
	intPart, fracPart, _ := strings.Cut(text, ".")
	for _, c := range []byte(intPart + fracPart) {
		if !isDigit(c) {
			return buf, sqlerr.New(sqlerr.InternalError, "invalid numeric value %q", text)
		}
	}
	dscale := len(fracPart)
	// Base-10000 groups aligned on the decimal point.
	intPad := (4 - len(intPart)%4) % 4
	nInt := (len(intPart) + intPad) / 4
	nFrac := (len(fracPart) + 3) / 4
	groups := make([]uint16, 0, nInt+nFrac)
	digitAt := func(k int) int { // k indexes the left-padded int part
		k -= intPad
		if k < 0 || k >= len(intPart) {
			return 0
		}
		return int(intPart[k] - '0')
	}
	for g := 0; g < nInt; g++ {
		v := 0
		for j := 0; j < 4; j++ {
			v = v*10 + digitAt(g*4+j)
		}
		groups = append(groups, uint16(v))
	}
	for g := 0; g < nFrac; g++ {
		v := 0
		for j := 0; j < 4; j++ {
			k := g*4 + j
			d := 0
			if k < len(fracPart) {
				d = int(fracPart[k] - '0')
			}
			v = v*10 + d
		}
		groups = append(groups, uint16(v))
	}
	weight := nInt - 1
	for len(groups) > 0 && groups[0] == 0 {
		groups = groups[1:]
		weight--
	}
	for len(groups) > 0 && groups[len(groups)-1] == 0 {
		groups = groups[:len(groups)-1]
	}
	if len(groups) == 0 {
		weight = 0
		sign = numericPos
	}
	buf = appendNumericHeader(buf, len(groups), weight, sign, dscale)
	for _, g := range groups {
		buf = binary.BigEndian.AppendUint16(buf, g)
	}
	return buf, nil
}

func appendNumericHeader(buf []byte, ndigits, weight int, sign uint16, dscale int) []byte {
	buf = binary.BigEndian.AppendUint16(buf, uint16(ndigits))
	buf = binary.BigEndian.AppendUint16(buf, uint16(int16(weight)))
	buf = binary.BigEndian.AppendUint16(buf, sign)
	return binary.BigEndian.AppendUint16(buf, uint16(dscale))
}

// parseNumericBinary is numeric_recv, returning canonical text. Digits
// beyond the display scale are truncated, as PostgreSQL does.
func parseNumericBinary(data []byte) (string, error) {
	if len(data) < 8 {
		return "", errInsufficientData()
	}
	ndigits := int(int16(binary.BigEndian.Uint16(data)))
	weight := int(int16(binary.BigEndian.Uint16(data[2:])))
	sign := binary.BigEndian.Uint16(data[4:])
	dscale := int(binary.BigEndian.Uint16(data[6:]))
	data = data[8:]
	if ndigits < 0 || ndigits > numericMaxIntDigits/4+numericMaxDscale {
		return "", errBadBinary("invalid length in external \"numeric\" value")
	}
	switch sign {
	case numericNaN:
		return "NaN", nil
	case numericPInf:
		return "Infinity", nil
	case numericNInf:
		return "-Infinity", nil
	case numericPos, numericNeg:
	default:
		return "", errBadBinary("invalid sign in external \"numeric\" value")
	}
	if dscale > numericMaxDscale {
		return "", errBadBinary("invalid scale in external \"numeric\" value")
	}
	if len(data) < 2*ndigits {
		return "", errInsufficientData()
	}
	if len(data) > 2*ndigits {
		return "", errBadBinary("incorrect binary data format")
	}
	groups := make([]int, ndigits)
	for k := range groups {
		g := int(binary.BigEndian.Uint16(data[2*k:]))
		if g >= 10000 {
			return "", errBadBinary("invalid digit in external \"numeric\" value")
		}
		groups[k] = g
	}
	groupAt := func(w int) int { // the group of base-10000 weight w
		k := weight - w
		if k < 0 || k >= len(groups) {
			return 0
		}
		return groups[k]
	}
	var intDigits []byte
	for w := weight; w >= 0; w-- {
		intDigits = append(intDigits, byte('0'+groupAt(w)/1000), byte('0'+groupAt(w)/100%10),
			byte('0'+groupAt(w)/10%10), byte('0'+groupAt(w)%10))
	}
	fracDigits := make([]byte, 0, dscale+4)
	for w := -1; len(fracDigits) < dscale; w-- {
		g := groupAt(w)
		fracDigits = append(fracDigits, byte('0'+g/1000), byte('0'+g/100%10), byte('0'+g/10%10), byte('0'+g%10))
	}
	fracDigits = fracDigits[:dscale]
	return canonicalDecimal(sign == numericNeg, intDigits, fracDigits, 0)
}
