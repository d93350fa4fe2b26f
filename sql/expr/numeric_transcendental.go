package expr

import (
	"math"

	"github.com/cockroachdb/apd/v3"

	"github.com/weir-sql/weir/sql/sqlerr"
)

// exp, ln and log of numerics. PostgreSQL (numeric.c) gives each result at
// least NUMERIC_MIN_SIG_DIGITS significant digits from an estimate of its
// decimal weight, and never fewer fraction digits than an argument shows,
// so exp(0.0) is 1.0000000000000000 and ln(1.05) 0.048790164169432003.
// Here each value is computed well past that scale and rounded to it.

const numericMaxResultScale = 2000

// nbaseDigits returns PostgreSQL's base-10000 form of a finite non-zero d:
// its weight, first two digits and whether there are more than one.
func nbaseDigits(d *apd.Decimal) (weight, d0, d1 int64, many bool) {
	p := msdPower(d)
	weight = p / 4
	if p < 0 && p%4 != 0 {
		weight--
	}
	coef := d.Coeff.String()
	k := int(p - 4*weight + 1) // digits of coef in the first group
	digit := func(i int) int64 {
		if i < len(coef) {
			return int64(coef[i] - '0')
		}
		return 0
	}
	for i := 0; i < k; i++ {
		d0 = d0*10 + digit(i)
	}
	for i := k; i < k+4; i++ {
		d1 = d1*10 + digit(i)
	}
	many = len(trimRightZeros(coef)) > k
	return
}

func trimRightZeros(s string) string {
	i := len(s)
	for i > 0 && s[i-1] == '0' {
		i--
	}
	return s[:i]
}

// estimateLnDweight is estimate_ln_dweight: the decimal weight of ln(x).
func estimateLnDweight(x *apd.Decimal) int64 {
	if x.Negative || x.IsZero() || x.Form != apd.Finite {
		return 0
	}
	if x.Cmp(apd.New(9, -1)) >= 0 && x.Cmp(apd.New(11, -1)) <= 0 {
		// ln(1+y) ~ y near 1.
		var y apd.Decimal
		exactCtx.Sub(&y, x, apd.New(1, 0))
		if y.IsZero() {
			return 0
		}
		return msdPower(&y)
	}
	w, d0, d1, many := nbaseDigits(x)
	digits := float64(d0)
	dweight := w * 4
	if many {
		digits = digits*10000 + float64(d1)
		dweight -= 4
	}
	ln := libmLog(digits) + float64(dweight)*2.302585092994046
	return int64(libmLog10(math.Abs(ln))) // truncation as C's (int)
}

func clampScale(rs int64, floors ...int32) int32 {
	for _, f := range floors {
		rs = max(rs, int64(f))
	}
	return int32(min(max(rs, 0), numericMaxDisplayScal))
}

func errLogZero() error     { return sqlerr.New("2201E", "cannot take logarithm of zero") }
func errLogNegative() error { return sqlerr.New("2201E", "cannot take logarithm of a negative number") }

// lnAt returns ln(x) computed to at least digits significant digits.
func lnAt(x *apd.Decimal, digits int64) (*apd.Decimal, error) {
	c := exactCtx
	c.Precision = uint32(max(digits, 1) + 12)
	var r apd.Decimal
	if _, err := c.Ln(&r, x); err != nil {
		return nil, err
	}
	return &r, nil
}

func numLn(x *apd.Decimal) (*apd.Decimal, error) {
	switch {
	case x.Form == apd.NaN:
		return x, nil
	case x.Form == apd.Infinite && x.Negative || x.Negative && !x.IsZero():
		return nil, errLogNegative()
	case x.Form == apd.Infinite:
		return x, nil
	case x.IsZero():
		return nil, errLogZero()
	}
	dw := estimateLnDweight(x)
	rs := clampScale(numericMinSigDigits-dw, numericScale(x))
	r, err := lnAt(x, dw+1+int64(rs))
	if err != nil {
		return nil, err
	}
	return roundNumeric(r, rs), nil
}

// numLogBase is log(base, x) (log_var); log(x) and log10(x) are log(10, x).
func numLogBase(base, x *apd.Decimal) (*apd.Decimal, error) {
	if base.Form != apd.Finite || x.Form != apd.Finite {
		if base.Form == apd.NaN || x.Form == apd.NaN {
			return &apd.Decimal{Form: apd.NaN}, nil
		}
		if base.Negative || x.Negative {
			return nil, errLogNegative()
		}
		if base.IsZero() || x.IsZero() {
			return nil, errLogZero()
		}
		if base.Form == apd.Infinite {
			if x.Form == apd.Infinite {
				return &apd.Decimal{Form: apd.NaN}, nil
			}
			return apd.New(0, 0), nil
		}
		return &apd.Decimal{Form: apd.Infinite}, nil
	}
	for _, v := range []*apd.Decimal{base, x} {
		if v.Negative && !v.IsZero() {
			return nil, errLogNegative()
		}
		if v.IsZero() {
			return nil, errLogZero()
		}
	}
	bw, xw := estimateLnDweight(base), estimateLnDweight(x)
	rs := clampScale(numericMinSigDigits-(xw-bw), numericScale(base), numericScale(x))
	digits := int64(rs) + max(xw-bw, 0) + 1 + max(-bw, 0) + max(-xw, 0)
	lb, err := lnAt(base, digits)
	if err != nil {
		return nil, err
	}
	if lb.IsZero() {
		return nil, errDivisionByZero()
	}
	lx, err := lnAt(x, digits)
	if err != nil {
		return nil, err
	}
	c := exactCtx
	c.Precision = uint32(digits + 12)
	var q apd.Decimal
	if _, err := c.Quo(&q, lx, lb); err != nil {
		return nil, err
	}
	return roundNumeric(&q, rs), nil
}

// numExp is numeric_exp.
func numExp(x *apd.Decimal) (*apd.Decimal, error) {
	switch {
	case x.Form == apd.NaN:
		return x, nil
	case x.Form == apd.Infinite && x.Negative:
		return apd.New(0, 0), nil
	case x.Form == apd.Infinite:
		return x, nil
	}
	val := numericToFloat(x)
	w := val * 0.434294481903252
	w = min(max(w, -numericMaxResultScale), numericMaxResultScale)
	rs := clampScale(numericMinSigDigits-int64(w), numericScale(x))
	return expScaled(x, rs)
}

// expScaled is exp_var: e^x rounded to rs fraction digits.
func expScaled(x *apd.Decimal, rs int32) (*apd.Decimal, error) {
	val := numericToFloat(x)
	if math.Abs(val) >= numericMaxResultScale*3 {
		if val > 0 {
			return nil, sqlerr.New(sqlerr.NumericValueOutOfRange, "value overflows numeric format")
		}
		return apd.New(0, -rs), nil
	}
	intDigits := int64(max(val*0.434294481903252, 0)) + 1
	c := exactCtx
	c.Precision = uint32(intDigits + int64(rs) + 12)
	var r apd.Decimal
	if _, err := c.Exp(&r, x); err != nil {
		return nil, err
	}
	return roundNumeric(&r, rs), nil
}
