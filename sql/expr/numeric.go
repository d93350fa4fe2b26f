package expr

import (
	"fmt"
	"math"
	"strconv"
	"strings"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/cockroachdb/apd/v3"

	"github.com/weir-sql/weir/sql/sqlerr"
	"github.com/weir-sql/weir/sql/types"
)

// Numeric values travel as their canonical decimal text; arithmetic parses
// them into apd decimals and prints the result with PostgreSQL's scale.

// exactCtx does exact addition, subtraction and multiplication.
var exactCtx = apd.Context{Precision: 0, MaxExponent: apd.MaxExponent, MinExponent: apd.MinExponent, Traps: apd.DefaultTraps &^ apd.Inexact &^ apd.Rounded}

const (
	numericMinSigDigits   = 16
	numericMaxDisplayScal = 1000
)

func parseNumeric(s string) (*apd.Decimal, error) {
	d, _, err := apd.NewFromString(strings.TrimSpace(s))
	if err != nil {
		return nil, sqlerr.New(sqlerr.InvalidTextRepresentation, "invalid input syntax for type numeric: \"%s\"", s)
	}
	return d, nil
}

// mustNumeric parses a canonical numeric column value (always valid).
func mustNumeric(s string) *apd.Decimal {
	d, err := parseNumeric(s)
	if err != nil {
		return apd.New(0, 0)
	}
	return d
}

// formatNumeric prints d as PostgreSQL's numeric_out: plain notation, the
// scale kept, no negative zero.
func formatNumeric(d *apd.Decimal) string {
	switch d.Form {
	case apd.NaN, apd.NaNSignaling:
		return "NaN"
	case apd.Infinite:
		if d.Negative {
			return "-Infinity"
		}
		return "Infinity"
	}
	if d.IsZero() {
		d.Negative = false
	}
	if d.Exponent > 0 {
		var r apd.Decimal
		exactCtx.Quantize(&r, d, 0)
		return r.Text('f')
	}
	return d.Text('f')
}

// numericScale is the display scale of a finite decimal.
func numericScale(d *apd.Decimal) int32 {
	if d.Exponent >= 0 {
		return 0
	}
	return -d.Exponent
}

// roundNumeric rounds d half away from zero to scale digits after the point
// (scale may be negative: round to tens, hundreds ...) and returns it with
// display scale max(scale, 0).
func roundNumeric(d *apd.Decimal, scale int32) *apd.Decimal {
	if d.Form != apd.Finite {
		return d
	}
	c := exactCtx
	c.Rounding = apd.RoundHalfUp
	c.Precision = quantizePrecision(d, scale)
	var r apd.Decimal
	c.Quantize(&r, d, -scale)
	if scale < 0 {
		c.Quantize(&r, &r, 0)
	}
	return &r
}

// quantizePrecision is enough digits to hold d at scale digits.
func quantizePrecision(d *apd.Decimal, scale int32) uint32 {
	p := msdPower(d) + int64(max(scale, 0)) + 3
	if p < 3 {
		p = 3
	}
	return uint32(p)
}

// truncNumeric truncates d toward zero at scale digits.
func truncNumeric(d *apd.Decimal, scale int32) *apd.Decimal {
	if d.Form != apd.Finite {
		return d
	}
	c := exactCtx
	c.Rounding = apd.RoundDown
	c.Precision = quantizePrecision(d, scale)
	var r apd.Decimal
	c.Quantize(&r, d, -scale)
	if scale < 0 {
		c.Quantize(&r, &r, 0)
	}
	return &r
}

// msdPower returns the power of ten of d's most significant digit.
func msdPower(d *apd.Decimal) int64 {
	return int64(d.NumDigits()) - 1 + int64(d.Exponent)
}

// baseWeight returns PostgreSQL's base-10000 weight of d and its first
// base-10000 digit (d finite, not zero).
func baseWeight(d *apd.Decimal) (int64, int64) {
	p := msdPower(d)
	w := p / 4
	if p < 0 && p%4 != 0 {
		w--
	}
	k := int(p - 4*w + 1) // digits of the first group present in the coefficient
	coef := d.Coeff.String()
	var first int64
	for i := 0; i < k; i++ {
		first *= 10
		if i < len(coef) {
			first += int64(coef[i] - '0')
		}
	}
	return w, first
}

// divScale is PostgreSQL's select_div_scale.
func divScale(x, y *apd.Decimal) int32 {
	var w1, f1, w2, f2 int64
	if !x.IsZero() {
		w1, f1 = baseWeight(x)
	}
	if !y.IsZero() {
		w2, f2 = baseWeight(y)
	}
	qw := w1 - w2
	if f1 <= f2 {
		qw--
	}
	rs := int64(numericMinSigDigits) - qw*4
	rs = max(rs, int64(numericScale(x)), int64(numericScale(y)), 0)
	rs = min(rs, numericMaxDisplayScal)
	return int32(rs)
}

// divNumericScale divides x by y and rounds half away from zero at scale.
func divNumericScale(x, y *apd.Decimal, scale int32) (*apd.Decimal, error) {
	if y.IsZero() && y.Form == apd.Finite {
		return nil, errDivisionByZero()
	}
	if x.Form != apd.Finite || y.Form != apd.Finite {
		return numericSpecialDiv(x, y), nil
	}
	if x.IsZero() {
		r := apd.New(0, -scale)
		return r, nil
	}
	// Truncate well past the wanted scale, then round: equals rounding the
	// exact quotient.
	prec := msdPower(x) - msdPower(y) + int64(scale) + 4
	if prec < 1 {
		prec = 1
	}
	c := exactCtx
	c.Precision = uint32(prec)
	c.Rounding = apd.RoundDown
	var q apd.Decimal
	if _, err := c.Quo(&q, x, y); err != nil {
		return nil, err
	}
	return roundNumeric(&q, scale), nil
}

func numericSpecialDiv(x, y *apd.Decimal) *apd.Decimal {
	if x.Form == apd.NaN || y.Form == apd.NaN || (x.Form == apd.Infinite && y.Form == apd.Infinite) {
		return &apd.Decimal{Form: apd.NaN}
	}
	if y.Form == apd.Infinite {
		return apd.New(0, 0)
	}
	return &apd.Decimal{Form: apd.Infinite, Negative: x.Negative != y.Negative}
}

// cmpNumeric orders numerics, NaN above everything.
func cmpNumeric(x, y *apd.Decimal) int {
	xn, yn := x.Form == apd.NaN, y.Form == apd.NaN
	switch {
	case xn && yn:
		return 0
	case xn:
		return 1
	case yn:
		return -1
	}
	return x.Cmp(y)
}

func cmpNumericText(a, b string) int {
	if a == b {
		return 0
	}
	if x, ok := parseFastDec(a); ok {
		if y, ok := parseFastDec(b); ok {
			if c, ok := fastCmp(x, y); ok {
				return c
			}
		}
	}
	return cmpNumeric(mustNumeric(a), mustNumeric(b))
}

// applyNumericTypmod rounds to numeric(p,s) and checks the precision.
func applyNumericTypmod(d *apd.Decimal, typmod int32) (*apd.Decimal, error) {
	if typmod < 4 || d.Form != apd.Finite {
		return d, nil
	}
	m := typmod - 4
	p, s := (m>>16)&0xffff, int32(int16(m&0xffff))
	r := roundNumeric(d, s)
	if !r.IsZero() && msdPower(r)+1 > int64(p-s) {
		return nil, sqlerr.New(sqlerr.NumericValueOutOfRange, "numeric field overflow").
			WithDetail(fmt.Sprintf("A field with precision %d, scale %d must round to an absolute value less than %s.", p, s, pow10Text(p-s)))
	}
	return r, nil
}

func pow10Text(e int32) string {
	if e <= 0 {
		return "1"
	}
	return "10^" + strconv.Itoa(int(e))
}

// numericFromFloat converts as float8_numeric: DBL_DIG (or FLT_DIG)
// significant digits.
func numericFromFloat(f float64, digits int) *apd.Decimal {
	switch {
	case math.IsNaN(f):
		return &apd.Decimal{Form: apd.NaN}
	case math.IsInf(f, 1):
		return &apd.Decimal{Form: apd.Infinite}
	case math.IsInf(f, -1):
		return &apd.Decimal{Form: apd.Infinite, Negative: true}
	}
	s := strconv.FormatFloat(f, 'g', digits, 64)
	// %g drops trailing zeros of the fraction; strconv keeps them.
	if i := strings.IndexAny(s, "e"); i >= 0 {
		s = trimFracZeros(s[:i]) + s[i:]
	} else {
		s = trimFracZeros(s)
	}
	d, _, _ := apd.NewFromString(s)
	return d
}

func trimFracZeros(s string) string {
	if strings.IndexByte(s, '.') < 0 {
		return s
	}
	s = strings.TrimRight(s, "0")
	return strings.TrimSuffix(s, ".")
}

// numericToFloat converts numeric to float8.
func numericToFloat(d *apd.Decimal) float64 {
	switch d.Form {
	case apd.NaN, apd.NaNSignaling:
		return math.NaN()
	case apd.Infinite:
		if d.Negative {
			return math.Inf(-1)
		}
		return math.Inf(1)
	}
	f, _ := strconv.ParseFloat(d.Text('e'), 64)
	return f
}

// numericToInt rounds half away from zero and range checks for oid.
func numericToInt(d *apd.Decimal, oid uint32) (int64, error) {
	if d.Form == apd.NaN {
		return 0, sqlerr.New(sqlerr.FeatureNotSupported, "cannot convert NaN to %s", intTypeName(oid))
	}
	if d.Form == apd.Infinite {
		return 0, sqlerr.New(sqlerr.FeatureNotSupported, "cannot convert infinity to %s", intTypeName(oid))
	}
	r := roundNumeric(d, 0)
	v, err := r.Int64()
	if err != nil || !intFits(v, oid) {
		return 0, errIntOutOfRange(oid)
	}
	return v, nil
}

func intTypeName(oid uint32) string {
	switch oid {
	case types.OidInt2:
		return "smallint"
	case types.OidInt8:
		return "bigint"
	}
	return "integer"
}

func intFits(v int64, oid uint32) bool {
	switch oid {
	case types.OidInt2:
		return v >= math.MinInt16 && v <= math.MaxInt16
	case types.OidInt4:
		return v >= math.MinInt32 && v <= math.MaxInt32
	}
	return true
}

// numericBinary and numericUnary compute a numeric function row by row
// through apd. The results of a batch are remembered by argument text
// (up to numericMemoRows of them): the slow functions (ln, log, exp,
// power: a millisecond a row) then run once per distinct value, which
// matters where a join repeats a table's values.
const numericMemoRows = 4096

func numericBinary(fn func(x, y *apd.Decimal) (*apd.Decimal, error)) ScalarImpl {
	row := Strict(types.Numeric, func(ctx *Ctx, args []Datum) (Datum, error) {
		x, err := parseNumeric(args[0].(string))
		if err != nil {
			return nil, err
		}
		y, err := parseNumeric(args[1].(string))
		if err != nil {
			return nil, err
		}
		r, err := fn(x, y)
		if err != nil {
			return nil, err
		}
		return formatNumeric(r), nil
	})
	return func(ctx *Ctx, args []arrow.Array, n int) (arrow.Array, error) {
		xa, ok1 := args[0].(*array.String)
		ya, ok2 := args[1].(*array.String)
		if !ok1 || !ok2 {
			return row(ctx, args, n)
		}
		type pair struct{ x, y string }
		memo := map[pair]string{}
		b := NewBuilder(ctx.Allocator(), types.Numeric).(*array.StringBuilder)
		defer b.Release()
		b.Reserve(n)
		for i := 0; i < n; i++ {
			if i&7 == 7 && ctx.Canceled() {
				return nil, errCanceled()
			}
			if xa.IsNull(i) || ya.IsNull(i) {
				b.AppendNull()
				continue
			}
			k := pair{xa.Value(i), ya.Value(i)}
			if r, ok := memo[k]; ok {
				b.Append(r)
				continue
			}
			x, err := parseNumeric(k.x)
			if err != nil {
				return nil, err
			}
			y, err := parseNumeric(k.y)
			if err != nil {
				return nil, err
			}
			r, err := fn(x, y)
			if err != nil {
				return nil, err
			}
			out := formatNumeric(r)
			if len(memo) < numericMemoRows {
				memo[k] = out
			}
			b.Append(out)
		}
		return b.NewArray(), nil
	}
}

func numericUnary(fn func(x *apd.Decimal) (*apd.Decimal, error)) ScalarImpl {
	row := Strict(types.Numeric, func(ctx *Ctx, args []Datum) (Datum, error) {
		x, err := parseNumeric(args[0].(string))
		if err != nil {
			return nil, err
		}
		r, err := fn(x)
		if err != nil {
			return nil, err
		}
		return formatNumeric(r), nil
	})
	return func(ctx *Ctx, args []arrow.Array, n int) (arrow.Array, error) {
		xa, ok := args[0].(*array.String)
		if !ok {
			return row(ctx, args, n)
		}
		memo := map[string]string{}
		b := NewBuilder(ctx.Allocator(), types.Numeric).(*array.StringBuilder)
		defer b.Release()
		b.Reserve(n)
		for i := 0; i < n; i++ {
			if i&7 == 7 && ctx.Canceled() {
				return nil, errCanceled()
			}
			if xa.IsNull(i) {
				b.AppendNull()
				continue
			}
			v := xa.Value(i)
			if r, ok := memo[v]; ok {
				b.Append(r)
				continue
			}
			x, err := parseNumeric(v)
			if err != nil {
				return nil, err
			}
			r, err := fn(x)
			if err != nil {
				return nil, err
			}
			out := formatNumeric(r)
			if len(memo) < numericMemoRows {
				memo[v] = out
			}
			b.Append(out)
		}
		return b.NewArray(), nil
	}
}

func numAdd(x, y *apd.Decimal) (*apd.Decimal, error) {
	var r apd.Decimal
	if x.Form == apd.Infinite && y.Form == apd.Infinite && x.Negative != y.Negative {
		return &apd.Decimal{Form: apd.NaN}, nil
	}
	_, err := exactCtx.Add(&r, x, y)
	return &r, err
}

func numSub(x, y *apd.Decimal) (*apd.Decimal, error) {
	var ny apd.Decimal
	ny.Neg(y)
	return numAdd(x, &ny)
}

func numMul(x, y *apd.Decimal) (*apd.Decimal, error) {
	if (x.Form == apd.Infinite && y.IsZero() && y.Form == apd.Finite) || (y.Form == apd.Infinite && x.IsZero() && x.Form == apd.Finite) {
		return &apd.Decimal{Form: apd.NaN}, nil
	}
	var r apd.Decimal
	_, err := exactCtx.Mul(&r, x, y)
	return &r, err
}

func numDiv(x, y *apd.Decimal) (*apd.Decimal, error) {
	if y.Form == apd.Finite && y.IsZero() {
		return nil, errDivisionByZero()
	}
	if x.Form != apd.Finite || y.Form != apd.Finite {
		return numericSpecialDiv(x, y), nil
	}
	return divNumericScale(x, y, divScale(x, y))
}

func numMod(x, y *apd.Decimal) (*apd.Decimal, error) {
	if y.Form == apd.Finite && y.IsZero() {
		return nil, errDivisionByZero()
	}
	if x.Form != apd.Finite || y.Form != apd.Finite {
		if x.Form == apd.Finite && y.Form == apd.Infinite {
			return x, nil
		}
		return &apd.Decimal{Form: apd.NaN}, nil
	}
	var r apd.Decimal
	c := exactCtx
	c.Precision = uint32(max(x.NumDigits(), y.NumDigits()) + 10 + int64(abs32(x.Exponent-y.Exponent)))
	_, err := c.Rem(&r, x, y)
	return &r, err
}

func abs32(v int32) int32 {
	if v < 0 {
		return -v
	}
	return v
}

func numNeg(x *apd.Decimal) (*apd.Decimal, error) {
	var r apd.Decimal
	r.Neg(x)
	return &r, nil
}

func numAbs(x *apd.Decimal) (*apd.Decimal, error) {
	var r apd.Decimal
	r.Abs(x)
	return &r, nil
}

// numSqrt computes sqrt with PostgreSQL's result scale.
func numSqrt(x *apd.Decimal) (*apd.Decimal, error) {
	if x.Negative && !x.IsZero() {
		return nil, sqlerr.New("2201F", "cannot take square root of a negative number")
	}
	if x.Form != apd.Finite {
		return x, nil
	}
	var w int64
	if !x.IsZero() {
		w, _ = baseWeight(x)
	}
	sweight := (w+1)*4/2 - 1
	rs := int64(numericMinSigDigits) - sweight
	rs = max(rs, int64(numericScale(x)), 0)
	rs = min(rs, numericMaxDisplayScal)
	c := exactCtx
	c.Precision = uint32(max(msdPower(x)/2+rs+6, 8))
	c.Rounding = apd.RoundDown
	var r apd.Decimal
	if _, err := c.Sqrt(&r, x); err != nil {
		return nil, err
	}
	return roundNumeric(&r, int32(rs)), nil
}
