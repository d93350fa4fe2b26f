package files

import (
	"bytes"
	"math"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/weir-sql/weir/sql/types"
)

// Column writers: one value of a file (a CSV cell, a JSON token) into its
// column's Arrow builder. The common types have a fast path that takes
// only what is unambiguous (plain digits, an ISO timestamp, valid UTF-8)
// and leaves everything else to PostgreSQL's input function
// (types.AppendParsedText), so a value means what the same text means to
// PostgreSQL. A value that does not parse appends nothing: the caller
// appends NULL and rescues the text.

// valueKind selects a column writer's fast path.
type valueKind uint8

const (
	kindGeneric valueKind = iota // types.AppendParsedText only
	kindText                     // text: valid UTF-8 without NUL, as is
	kindInt                      // int2/int4/int8
	kindFloat                    // float4/float8
	kindBool
	kindNumeric
	kindTimestamp // timestamp, timestamptz
	kindDate
	kindJSONB // jsonb, json
)

type colWriter struct {
	name string
	t    types.T
	kind valueKind
	b    array.Builder
	str  *array.StringBuilder    // kindText, kindNumeric, kindJSONB
	i64  *array.Int64Builder     // int8
	i32  *array.Int32Builder     // int4
	i16  *array.Int16Builder     // int2
	ts   *array.TimestampBuilder // kindTimestamp
	bl   *array.BooleanBuilder   // kindBool
	// numeric(p,s): the fraction digits a value may have as written to be
	// canonical already (-1: any), and the integer digits allowed.
	numScale, numIntDigits int
	lo, hi                 int64 // integer range
	// trial takes a struct value first: record input that fails part way
	// leaves a row in its builder, which the column's must not get.
	trial array.Builder
}

func newColWriter(name string, t types.T, b array.Builder) colWriter {
	c := colWriter{name: name, t: t, b: b, kind: kindGeneric}
	switch t.OID {
	case types.OidText:
		c.kind, c.str = kindText, b.(*array.StringBuilder)
	case types.OidInt8:
		c.kind, c.i64, c.lo, c.hi = kindInt, b.(*array.Int64Builder), math.MinInt64, math.MaxInt64
	case types.OidInt4:
		c.kind, c.i32, c.lo, c.hi = kindInt, b.(*array.Int32Builder), math.MinInt32, math.MaxInt32
	case types.OidInt2:
		c.kind, c.i16, c.lo, c.hi = kindInt, b.(*array.Int16Builder), math.MinInt16, math.MaxInt16
	case types.OidFloat4, types.OidFloat8:
		c.kind = kindFloat
	case types.OidBool:
		c.kind, c.bl = kindBool, b.(*array.BooleanBuilder)
	case types.OidNumeric:
		c.kind, c.str = kindNumeric, b.(*array.StringBuilder)
		c.numScale, c.numIntDigits = -1, math.MaxInt
		if t.Typmod >= 4 {
			m := t.Typmod - 4
			p, s := int((m>>16)&0xffff), int(((m&0x7ff)^1024)-1024)
			c.numScale, c.numIntDigits = s, p-s
			if s < 0 {
				c.kind = kindGeneric
			}
		}
	case types.OidTimestamp, types.OidTimestampTZ:
		c.kind, c.ts = kindTimestamp, b.(*array.TimestampBuilder)
	case types.OidDate:
		c.kind = kindDate
	case types.OidJSONB, types.OidJSON:
		c.kind, c.str = kindJSONB, b.(*array.StringBuilder)
	}
	return c
}

func (c *colWriter) appendNull() { c.b.AppendNull() }

// appendText appends s (text as a CSV cell or a JSON string holds it)
// parsed as the column's type; false when it does not parse.
func (c *colWriter) appendText(s []byte) bool {
	switch c.kind {
	case kindText:
		if validText(s) {
			c.str.BinaryBuilder.Append(s)
			return true
		}
		return false
	case kindInt:
		if v, ok := plainInt(s); ok && v >= c.lo && v <= c.hi {
			switch {
			case c.i64 != nil:
				c.i64.Append(v)
			case c.i32 != nil:
				c.i32.Append(int32(v))
			default:
				c.i16.Append(int16(v))
			}
			return true
		}
	case kindNumeric:
		if c.plainNumeric(s) {
			c.str.BinaryBuilder.Append(s)
			return true
		}
	case kindTimestamp:
		if c.t.Typmod < 0 || c.t.Typmod >= 6 {
			// The common ISO form without the general parser's dispatch
			// (the same reading timestamp_in gives it).
			if civil, off, _, ok := types.ParseISOTimestamp(s); ok {
				if c.t.OID == types.OidTimestampTZ {
					// No zone written: the session's, UTC (as Spark's
					// default spark.sql.session.timeZone on a server).
					civil -= int64(off) * types.MicrosPerSecond
				}
				c.ts.Append(arrow.Timestamp(civil))
				return true
			}
		}
	}
	if c.t.IsStruct() {
		return c.appendRecordLiteral(s)
	}
	if (c.kind == kindTimestamp || c.kind == kindDate) && relativeTimeWord(s) {
		// PostgreSQL's input reads 'now', 'today', 'tomorrow' and
		// 'yesterday' relative to the moment of reading: in a file they
		// would change on every read, and a re-read after a crash must give
		// the rows it gave. Spark's reader takes none of them; they are
		// rescued. ('epoch' and 'infinity' are fixed values and read.)
		return false
	}
	return types.AppendParsedText(c.b, c.t, s, nil) == nil
}

// relativeTimeWord reports whether s is one of PostgreSQL's date/time
// input words that depend on the clock (case and surrounding spaces
// ignored, as the input function ignores them).
func relativeTimeWord(s []byte) bool {
	w := strings.ToLower(strings.TrimSpace(string(s)))
	return w == "now" || w == "today" || w == "tomorrow" || w == "yesterday"
}

// appendJSONText appends a JSON value that is not a string (a number, an
// object, an array), as its JSON text; false when it does not fit.
func (c *colWriter) appendJSONText(raw []byte, isNumber bool) bool {
	switch c.kind {
	case kindText:
		// A text column takes any JSON value as its JSON text, as Spark's
		// JSON reader does for a string column (checked JSON holds no
		// NUL, but may hold bytes that are not UTF-8).
		if !utf8.Valid(raw) {
			return false
		}
		c.str.BinaryBuilder.Append(raw)
		return true
	case kindJSONB:
		return types.AppendParsedText(c.b, c.t, raw, nil) == nil
	case kindTimestamp:
		if !isNumber {
			return false
		}
		// A JSON number in a timestamp column is seconds since the epoch,
		// as Spark's JSON reader reads it.
		return c.appendEpochSeconds(raw)
	case kindBool, kindDate:
		return false
	}
	if !isNumber && c.t.IsArray() {
		return c.appendJSONArray(raw)
	}
	if !isNumber && c.t.IsStruct() {
		return c.appendJSONRecord(raw)
	}
	if !isNumber {
		return false
	}
	return c.appendText(raw)
}

// appendJSONString appends a JSON string value: raw is the token with its
// quotes (what a jsonb column keeps), text its unescaped content.
func (c *colWriter) appendJSONString(raw, text []byte) bool {
	if c.kind == kindJSONB {
		return types.AppendParsedText(c.b, c.t, raw, nil) == nil
	}
	return c.appendText(text)
}

// appendJSONBool appends a JSON true or false.
func (c *colWriter) appendJSONBool(v bool) bool {
	switch c.kind {
	case kindBool:
		c.bl.Append(v)
		return true
	case kindText, kindJSONB:
		if v {
			c.str.Append("true")
		} else {
			c.str.Append("false")
		}
		return true
	}
	return false
}

func (c *colWriter) appendEpochSeconds(raw []byte) bool {
	if v, ok := plainInt(raw); ok {
		if v > math.MaxInt64/1_000_000 || v < math.MinInt64/1_000_000 {
			return false
		}
		c.ts.Append(arrow.Timestamp(v * 1_000_000))
		return true
	}
	f, err := strconv.ParseFloat(string(raw), 64)
	if err != nil || math.IsNaN(f) || math.Abs(f) > 9e12 {
		return false
	}
	c.ts.Append(arrow.Timestamp(math.Round(f * 1e6)))
	return true
}

// appendJSONArray appends a JSON array of scalars to an array column, by
// way of PostgreSQL's array literal ({1,2,"a b"}): elements that are
// themselves arrays or objects do not fit.
func (c *colWriter) appendJSONArray(raw []byte) bool {
	var sc jsonScanner
	lit, ok := sc.arrayLiteral(raw)
	if !ok {
		return false
	}
	return types.AppendParsedText(c.b, c.t, lit, nil) == nil
}

// appendJSONRecord appends a JSON object to a struct column.
func (c *colWriter) appendJSONRecord(raw []byte) bool {
	var sc jsonScanner
	lit, ok := sc.recordLiteral(nil, raw, c.t)
	return ok && c.appendRecordLiteral(lit)
}

// appendRecordLiteral appends PostgreSQL's composite literal to a struct
// column, tried first on the side.
func (c *colWriter) appendRecordLiteral(lit []byte) bool {
	if c.trial == nil {
		c.trial = array.NewBuilder(memory.DefaultAllocator, c.t.Arrow())
	}
	if c.trial.Len() >= 1024 {
		c.trial.NewArray().Release()
	}
	if types.AppendParsedText(c.trial, c.t, lit, nil) != nil {
		return false
	}
	return types.AppendParsedText(c.b, c.t, lit, nil) == nil
}

// release frees what the writer holds besides its column's builder.
func (c *colWriter) release() {
	if c.trial != nil {
		c.trial.Release()
		c.trial = nil
	}
}

// plainNumeric reports whether s is numeric text that is canonical for
// the column as written: [-]digits[.digits], no superfluous leading zero,
// not a negative zero, and as many fraction digits as the scale wants.
func (c *colWriter) plainNumeric(s []byte) bool {
	i := 0
	neg := len(s) > 0 && s[0] == '-'
	if neg {
		i = 1
	}
	st := i
	nonzero := false
	for i < len(s) && s[i] >= '0' && s[i] <= '9' {
		nonzero = nonzero || s[i] != '0'
		i++
	}
	intDigits := i - st
	if intDigits == 0 || intDigits > 1 && s[st] == '0' {
		return false
	}
	frac := 0
	if i < len(s) && s[i] == '.' {
		i++
		fs := i
		for i < len(s) && s[i] >= '0' && s[i] <= '9' {
			nonzero = nonzero || s[i] != '0'
			i++
		}
		frac = i - fs
		if frac == 0 {
			return false
		}
	}
	if i != len(s) || neg && !nonzero {
		return false
	}
	if c.numScale >= 0 {
		sig := intDigits
		if s[st] == '0' {
			sig = 0
		}
		return frac == c.numScale && sig <= c.numIntDigits
	}
	return true
}

// plainInt reads [-]digits (at most 18) exactly; anything else (spaces,
// a sign +, longer numbers) is left to the full parser.
func plainInt(s []byte) (int64, bool) {
	i := 0
	neg := false
	if len(s) > 0 && s[0] == '-' {
		neg, i = true, 1
	}
	if i == len(s) || len(s)-i > 18 {
		return 0, false
	}
	var v int64
	for ; i < len(s); i++ {
		d := s[i] - '0'
		if d > 9 {
			return 0, false
		}
		v = v*10 + int64(d)
	}
	if neg {
		v = -v
	}
	return v, true
}

// validText is what PostgreSQL's text input accepts: UTF-8 without NUL.
func validText(s []byte) bool {
	return bytes.IndexByte(s, 0) < 0 && utf8.Valid(s)
}
