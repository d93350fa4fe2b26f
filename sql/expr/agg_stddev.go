package expr

import (
	"math"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/cockroachdb/apd/v3"

	"github.com/weir-sql/weir/sql/types"
)

// stddev/variance families: float8 with Youngs-Cramer accumulation as
// PostgreSQL's float8_accum; numeric (for integer and numeric input) from
// exact N, sum(x), sum(x*x).

type varKind struct {
	sample bool
	sqrt   bool
}

type floatVarAcc struct {
	n, sx, sxx []float64
	kind       varKind
	buf        []float64
}

func (a *floatVarAcc) Update(ctx *Ctx, groups []uint32, args []arrow.Array) error {
	col := args[0]
	a.buf = floatValues(col, a.buf)
	vals := a.buf
	for i, g := range groups {
		a.n = growTo(a.n, g)
		a.sx = growTo(a.sx, g)
		a.sxx = growTo(a.sxx, g)
		if col.IsNull(i) {
			continue
		}
		v := vals[i]
		oldN := a.n[g]
		n := oldN + 1
		sx := a.sx[g] + v
		if oldN > 0 {
			tmp := v*n - sx
			a.sxx[g] += tmp * tmp / (n * oldN)
		} else {
			a.sxx[g] = 0
		}
		a.n[g], a.sx[g] = n, sx
	}
	return nil
}

func (a *floatVarAcc) Finish(ctx *Ctx, ngroups int) (arrow.Array, error) {
	out := make([]Datum, ngroups)
	for g := range out {
		if g >= len(a.n) {
			continue
		}
		n := a.n[g]
		if n == 0 || (a.kind.sample && n == 1) {
			continue
		}
		d := n
		if a.kind.sample {
			d = n - 1
		}
		v := a.sxx[g] / d
		if a.kind.sqrt {
			v = math.Sqrt(v)
		}
		out[g] = v
	}
	return ArrayFromDatums(ctx.Allocator(), types.Float8, out), nil
}

type numericVarAcc struct {
	n       []int64
	sx, sxx []*apd.Decimal
	kind    varKind
}

func (a *numericVarAcc) Update(ctx *Ctx, groups []uint32, args []arrow.Array) error {
	col := args[0]
	for i, g := range groups {
		a.n = growTo(a.n, g)
		a.sx = growTo(a.sx, g)
		a.sxx = growTo(a.sxx, g)
		if col.IsNull(i) {
			continue
		}
		var x *apd.Decimal
		switch d := DatumAt(col, i).(type) {
		case int64:
			x = apd.New(d, 0)
		case string:
			var err error
			if x, err = parseNumeric(d); err != nil {
				return err
			}
		}
		sq, _ := numMul(x, x)
		if a.n[g] == 0 {
			a.sx[g], a.sxx[g] = x, sq
		} else {
			a.sx[g], _ = numAdd(a.sx[g], x)
			a.sxx[g], _ = numAdd(a.sxx[g], sq)
		}
		a.n[g]++
	}
	return nil
}

func (a *numericVarAcc) Finish(ctx *Ctx, ngroups int) (arrow.Array, error) {
	out := make([]Datum, ngroups)
	for g := range out {
		if g >= len(a.n) {
			continue
		}
		n := a.n[g]
		if n == 0 || (a.kind.sample && n == 1) {
			continue
		}
		r, err := numericVariance(apd.New(n, 0), a.sx[g], a.sxx[g], a.kind)
		if err != nil {
			return nil, err
		}
		out[g] = formatNumeric(r)
	}
	return ArrayFromDatums(ctx.Allocator(), types.Numeric, out), nil
}

// numericVariance follows numeric_stddev_internal.
func numericVariance(n, sx, sxx *apd.Decimal, kind varKind) (*apd.Decimal, error) {
	if sx.Form != apd.Finite || sxx.Form != apd.Finite {
		return &apd.Decimal{Form: apd.NaN}, nil
	}
	sx2, _ := numMul(sx, sx)
	nsxx, _ := numMul(n, sxx)
	num, _ := numSub(nsxx, sx2)
	if num.Sign() <= 0 {
		return apd.New(0, 0), nil
	}
	var den *apd.Decimal
	if kind.sample {
		nm1, _ := numSub(n, apd.New(1, 0))
		den, _ = numMul(n, nm1)
	} else {
		den, _ = numMul(n, n)
	}
	rs := divScale(num, den)
	if !kind.sqrt {
		return divNumericScale(num, den, rs)
	}
	// sqrt of the quotient computed well past the result scale.
	q, err := divNumericScale(num, den, rs+int32(msdPower(num)-msdPower(den))+20)
	if err != nil {
		return nil, err
	}
	c := exactCtx
	c.Precision = uint32(max(msdPower(q)/2+int64(rs)+10, 20))
	c.Rounding = apd.RoundDown
	var r apd.Decimal
	if _, err := c.Sqrt(&r, q); err != nil {
		return nil, err
	}
	return roundNumeric(&r, rs), nil
}

func init() {
	kinds := map[string]varKind{
		"stddev": {true, true}, "stddev_samp": {true, true}, "stddev_pop": {false, true},
		"variance": {true, false}, "var_samp": {true, false}, "var_pop": {false, false},
	}
	for name, k := range kinds {
		k := k
		for _, t := range []types.T{types.Int2, types.Int4, types.Int8, types.Numeric} {
			RegisterAggregate(name, AggOverload{Args: []types.T{t}, Ret: types.Numeric, New: func([]types.T, types.T) Accumulator { return &numericVarAcc{kind: k} }})
		}
		for _, t := range []types.T{types.Float4, types.Float8} {
			RegisterAggregate(name, AggOverload{Args: []types.T{t}, Ret: types.Float8, New: func([]types.T, types.T) Accumulator { return &floatVarAcc{kind: k} }})
		}
	}
}
