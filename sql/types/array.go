package types

import (
	"encoding/binary"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"

	"github.com/weir-sql/weir/sql/sqlerr"
)

// Arrays are carried as Arrow lists, so weir's arrays are one-dimensional
// with lower bound 1. A text or binary input with more dimensions or
// another lower bound is refused with 0A000.

// elemType is the element type of array type t; the array's modifier
// applies to its elements, as in PostgreSQL.
func elemType(t T) T { return T{OID: t.Info().Elem, Typmod: t.Typmod} }

func appendArrayText(buf []byte, t T, arr arrow.Array, i int, fs *FormatSettings) []byte {
	la, ok := arr.(*array.List)
	if !ok {
		return buf
	}
	start, end := la.ValueOffsets(i)
	vals := la.ListValues()
	et := elemType(t)
	buf = append(buf, '{')
	for j := int(start); j < int(end); j++ {
		if j > int(start) {
			buf = append(buf, ',')
		}
		if vals.IsNull(j) {
			buf = append(buf, "NULL"...)
			continue
		}
		es := len(buf)
		buf = AppendText(buf, et, vals, j, fs)
		buf = QuoteArrayElement(buf, es)
	}
	return append(buf, '}')
}

// QuoteArrayElement quotes, in place, the element text buf[start:] when
// array_out would: when it is empty, is NULL in any case, or contains
// a quote, backslash, brace, comma or whitespace. Quotes and backslashes
// inside are escaped with a backslash.
func QuoteArrayElement(buf []byte, start int) []byte {
	el := buf[start:]
	need := len(el) == 0 || len(el) == 4 && (el[0]|0x20) == 'n' && (el[1]|0x20) == 'u' && (el[2]|0x20) == 'l' && (el[3]|0x20) == 'l'
	esc := 0
	for _, c := range el {
		switch c {
		case '"', '\\':
			esc++
			need = true
		case '{', '}', ',', ' ', '\t', '\n', '\r', '\v', '\f':
			need = true
		}
	}
	if !need {
		return buf
	}
	return quoteInPlace(buf, start, esc, '\\')
}

// quoteInPlace wraps buf[start:] in double quotes, in place, with esc
// more bytes: every quote and backslash in it preceded by escape (a
// backslash for array_out; for record_out the character itself, doubled).
// Zero escape doubles the character.
func quoteInPlace(buf []byte, start, esc int, escape byte) []byte {
	n := len(buf) - start
	buf = append(buf, make([]byte, esc+2)...)
	w := len(buf) - 1
	buf[w] = '"'
	w--
	for r := start + n - 1; r >= start; r-- {
		c := buf[r]
		buf[w] = c
		w--
		if c == '"' || c == '\\' {
			buf[w] = escape
			if escape == 0 {
				buf[w] = c
			}
			w--
		}
	}
	buf[w] = '"'
	return buf
}

// FormatArray formats element texts as an array literal ({a,"b c",NULL});
// a nil element is NULL.
func FormatArray(elems [][]byte) string {
	buf := []byte{'{'}
	for i, e := range elems {
		if i > 0 {
			buf = append(buf, ',')
		}
		if e == nil {
			buf = append(buf, "NULL"...)
			continue
		}
		st := len(buf)
		buf = append(buf, e...)
		buf = QuoteArrayElement(buf, st)
	}
	return string(append(buf, '}'))
}

func errMalformedArray(s []byte, detail string) error {
	return sqlerr.New(sqlerr.InvalidTextRepresentation, "malformed array literal: \"%s\"", s).WithDetail(detail)
}

// SplitArrayLiteral is array_in's parser for a one-dimensional array
// literal: it returns the de-quoted element texts, nil for NULL.
func SplitArrayLiteral(s []byte) ([][]byte, error) {
	p := s
	i := 0
	skip := func() {
		for i < len(p) && isPGSpace(p[i]) {
			i++
		}
	}
	skip()
	if i < len(p) && p[i] == '[' {
		// Dimension decoration [lb:ub]= ; only lower bound 1 fits a list.
		j := i + 1
		lb, ub, hasLB := int64(1), int64(0), false
		k := j
		for k < len(p) && (isDigit(p[k]) || p[k] == '-' || p[k] == '+') {
			k++
		}
		if k < len(p) && p[k] == ':' {
			v, ok := parseSmallInt(p[j:k])
			if !ok {
				return nil, errMalformedArray(s, "\"[\" must introduce explicitly-specified array dimensions.")
			}
			lb, hasLB = v, true
			j = k + 1
			k = j
			for k < len(p) && (isDigit(p[k]) || p[k] == '-' || p[k] == '+') {
				k++
			}
		}
		v, ok := parseSmallInt(p[j:k])
		if !ok || k >= len(p) || p[k] != ']' {
			return nil, errMalformedArray(s, "Missing array dimension value.")
		}
		ub = v
		_ = hasLB
		i = k + 1
		if i < len(p) && p[i] == '[' {
			return nil, sqlerr.New(sqlerr.FeatureNotSupported, "multidimensional arrays are not supported")
		}
		skip()
		if i+1 >= len(p) || p[i] != '=' {
			return nil, errMalformedArray(s, "Missing \"=\" after array dimensions.")
		}
		i++
		skip()
		if lb != 1 {
			return nil, sqlerr.New(sqlerr.FeatureNotSupported, "array lower bounds other than 1 are not supported")
		}
		elems, err := splitBraces(s, p, i)
		if err != nil {
			return nil, err
		}
		if int64(len(elems)) != ub-lb+1 {
			return nil, errMalformedArray(s, "Specified array dimensions do not match array contents.")
		}
		return elems, nil
	}
	return splitBraces(s, p, i)
}

func parseSmallInt(b []byte) (int64, bool) {
	neg := false
	if len(b) > 0 && (b[0] == '-' || b[0] == '+') {
		neg = b[0] == '-'
		b = b[1:]
	}
	v, ok := atoiField(b)
	if neg {
		v = -v
	}
	return v, ok
}

func splitBraces(s, p []byte, i int) ([][]byte, error) {
	if i >= len(p) || p[i] != '{' {
		return nil, errMalformedArray(s, "Array value must start with \"{\" or dimension information.")
	}
	i++
	var elems [][]byte
	skip := func() {
		for i < len(p) && isPGSpace(p[i]) {
			i++
		}
	}
	skip()
	if i < len(p) && p[i] == '}' {
		i++
	} else {
		for {
			skip()
			if i >= len(p) {
				return nil, errMalformedArray(s, "Unexpected end of input.")
			}
			switch p[i] {
			case '{':
				return nil, sqlerr.New(sqlerr.FeatureNotSupported, "multidimensional arrays are not supported")
			case ',', '}':
				return nil, errMalformedArray(s, "Unexpected \""+string(p[i])+"\" character.")
			}
			var el []byte
			if p[i] == '"' {
				i++
				el = []byte{}
				for {
					if i >= len(p) {
						return nil, errMalformedArray(s, "Unexpected end of input.")
					}
					c := p[i]
					if c == '"' {
						i++
						break
					}
					if c == '\\' {
						i++
						if i >= len(p) {
							return nil, errMalformedArray(s, "Unexpected end of input.")
						}
						c = p[i]
					}
					el = append(el, c)
					i++
				}
				skip()
			} else {
				el = []byte{}
				keep := 0 // length that trailing-space trimming may not cut
				escaped := false
				for {
					if i >= len(p) {
						return nil, errMalformedArray(s, "Unexpected end of input.")
					}
					c := p[i]
					if c == ',' || c == '}' {
						break
					}
					if c == '"' || c == '{' {
						return nil, errMalformedArray(s, "Unexpected \""+string(c)+"\" character.")
					}
					if c == '\\' {
						i++
						if i >= len(p) {
							return nil, errMalformedArray(s, "Unexpected end of input.")
						}
						el = append(el, p[i])
						keep = len(el)
						escaped = true
						i++
						continue
					}
					el = append(el, c)
					if !isPGSpace(c) {
						keep = len(el)
					}
					i++
				}
				el = el[:keep]
				if !escaped && len(el) == 4 && (el[0]|0x20) == 'n' && (el[1]|0x20) == 'u' && (el[2]|0x20) == 'l' && (el[3]|0x20) == 'l' {
					el = nil
				}
			}
			elems = append(elems, el)
			if i >= len(p) {
				return nil, errMalformedArray(s, "Unexpected end of input.")
			}
			if p[i] == ',' {
				i++
				continue
			}
			if p[i] == '}' {
				i++
				break
			}
			return nil, errMalformedArray(s, "Unexpected array element.")
		}
	}
	skip()
	if i != len(p) {
		return nil, errMalformedArray(s, "Junk after closing right brace.")
	}
	return elems, nil
}

func appendParsedArrayText(b array.Builder, t T, s []byte, fs *FormatSettings) error {
	lb, ok := b.(*array.ListBuilder)
	if !ok {
		return sqlerr.New(sqlerr.InternalError, "builder %T cannot hold values of type %s", b, t)
	}
	elems, err := SplitArrayLiteral(s)
	if err != nil {
		return err
	}
	et := elemType(t)
	ds := make([]datum, len(elems))
	for k, e := range elems {
		if e == nil {
			continue
		}
		if ds[k], err = parseText(et, e, fs); err != nil {
			return err
		}
	}
	return appendArrayDatums(lb, et, elems, ds)
}

func appendArrayDatums(lb *array.ListBuilder, et T, elems [][]byte, ds []datum) error {
	vb := lb.ValueBuilder()
	lb.Append(true)
	for k := range ds {
		if elems[k] == nil {
			vb.AppendNull()
			continue
		}
		if err := appendDatum(vb, et, ds[k]); err != nil {
			return err
		}
	}
	return nil
}

// appendArrayBinary is array_send for a one-dimensional array.
func appendArrayBinary(buf []byte, t T, arr arrow.Array, i int) ([]byte, error) {
	la, ok := arr.(*array.List)
	if !ok {
		return buf, sqlerr.New(sqlerr.InternalError, "array value of %s is not a list", t)
	}
	start, end := la.ValueOffsets(i)
	vals := la.ListValues()
	et := elemType(t)
	n := int(end - start)
	hasNull := 0
	for j := int(start); j < int(end); j++ {
		if vals.IsNull(j) {
			hasNull = 1
			break
		}
	}
	ndim := 1
	if n == 0 {
		ndim = 0
	}
	buf = binary.BigEndian.AppendUint32(buf, uint32(ndim))
	buf = binary.BigEndian.AppendUint32(buf, uint32(hasNull))
	buf = binary.BigEndian.AppendUint32(buf, et.OID)
	if ndim == 1 {
		buf = binary.BigEndian.AppendUint32(buf, uint32(n))
		buf = binary.BigEndian.AppendUint32(buf, 1)
	}
	for j := int(start); j < int(end); j++ {
		if vals.IsNull(j) {
			buf = binary.BigEndian.AppendUint32(buf, 0xFFFFFFFF)
			continue
		}
		lp := len(buf)
		buf = append(buf, 0, 0, 0, 0)
		var err error
		if buf, err = appendScalarBinary(buf, et, vals, j); err != nil {
			return buf, err
		}
		binary.BigEndian.PutUint32(buf[lp:], uint32(len(buf)-lp-4))
	}
	return buf, nil
}

// appendParsedArrayBinary is array_recv for a one-dimensional array.
func appendParsedArrayBinary(b array.Builder, t T, data []byte) error {
	lb, ok := b.(*array.ListBuilder)
	if !ok {
		return sqlerr.New(sqlerr.InternalError, "builder %T cannot hold values of type %s", b, t)
	}
	if len(data) < 12 {
		return errInsufficientData()
	}
	ndim := int32(binary.BigEndian.Uint32(data))
	flags := int32(binary.BigEndian.Uint32(data[4:]))
	elemOID := binary.BigEndian.Uint32(data[8:])
	data = data[12:]
	et := elemType(t)
	switch {
	case ndim < 0 || ndim > 6:
		return errBadBinary("invalid number of dimensions: %d", ndim)
	case ndim > 1:
		return sqlerr.New(sqlerr.FeatureNotSupported, "multidimensional arrays are not supported")
	case flags != 0 && flags != 1:
		return errBadBinary("invalid array flags")
	case elemOID != et.OID:
		return sqlerr.New(sqlerr.DatatypeMismatch, "binary data has array element type %d (%s) instead of expected %d (%s)",
			elemOID, FormatType(elemOID, -1), et.OID, FormatType(et.OID, -1))
	}
	n := 0
	if ndim == 1 {
		if len(data) < 8 {
			return errInsufficientData()
		}
		dim := int32(binary.BigEndian.Uint32(data))
		lbound := int32(binary.BigEndian.Uint32(data[4:]))
		data = data[8:]
		if dim < 0 {
			return errBadBinary("invalid array dimensions")
		}
		if lbound != 1 && dim > 0 {
			return sqlerr.New(sqlerr.FeatureNotSupported, "array lower bounds other than 1 are not supported")
		}
		n = int(dim)
		if n > len(data)/4 {
			return errInsufficientData()
		}
	}
	elems := make([][]byte, n)
	ds := make([]datum, n)
	for k := 0; k < n; k++ {
		if len(data) < 4 {
			return errInsufficientData()
		}
		l := int32(binary.BigEndian.Uint32(data))
		data = data[4:]
		if l == -1 {
			continue
		}
		if l < 0 || int(l) > len(data) {
			return errInsufficientData()
		}
		elems[k] = data[:l:l]
		var err error
		if ds[k], err = parseBinary(et, data[:l]); err != nil {
			return err
		}
		data = data[l:]
	}
	if len(data) != 0 {
		return errBadBinary("incorrect binary data format")
	}
	return appendArrayDatums(lb, et, elems, ds)
}
