package expr

import (
	"math"
	"math/rand/v2"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/cockroachdb/apd/v3"

	"github.com/weir-sql/weir/sql/sqlerr"
	"github.com/weir-sql/weir/sql/types"
)

// Mathematical functions.

func numFn1(fn func(x *apd.Decimal) (*apd.Decimal, error)) Overload {
	return Overload{Args: []types.T{types.Numeric}, Ret: types.Numeric, Impl: numericUnary(fn)}
}

func f8Fn1(fn func(x float64) (float64, error)) Overload {
	return Overload{Args: []types.T{types.Float8}, Ret: types.Float8, Impl: float8Unary(fn)}
}

func lnArg(x float64) (float64, error) {
	if x == 0 {
		return 0, sqlerr.New("2201E", "cannot take logarithm of zero")
	}
	if x < 0 {
		return 0, sqlerr.New("2201E", "cannot take logarithm of a negative number")
	}
	return x, nil
}

func init() {
	for _, t := range []types.T{types.Int2, types.Int4, types.Int8} {
		RegisterScalar("abs", Overload{Args: []types.T{t}, Ret: t, Impl: absIntKernel(t)})
	}
	RegisterScalar("abs", f8Fn1(func(x float64) (float64, error) { return math.Abs(x), nil }), numFn1(numAbs),
		Overload{Args: []types.T{types.Float4}, Ret: types.Float4, Impl: Strict(types.Float4, func(ctx *Ctx, a []Datum) (Datum, error) { return math.Abs(a[0].(float64)), nil })})
	ceil := numFn1(func(x *apd.Decimal) (*apd.Decimal, error) {
		var r apd.Decimal
		_, err := exactCtx.Ceil(&r, x)
		return &r, err
	})
	floor := numFn1(func(x *apd.Decimal) (*apd.Decimal, error) {
		var r apd.Decimal
		_, err := exactCtx.Floor(&r, x)
		return &r, err
	})
	RegisterScalar("ceil", f8Fn1(func(x float64) (float64, error) { return math.Ceil(x), nil }), ceil)
	RegisterScalar("ceiling", f8Fn1(func(x float64) (float64, error) { return math.Ceil(x), nil }), ceil)
	RegisterScalar("floor", f8Fn1(func(x float64) (float64, error) { return math.Floor(x), nil }), floor)
	RegisterScalar("round",
		f8Fn1(func(x float64) (float64, error) { return math.RoundToEven(x), nil }),
		numFn1(func(x *apd.Decimal) (*apd.Decimal, error) { return roundNumeric(x, 0), nil }),
		Overload{Args: []types.T{types.Numeric, types.Int4}, Ret: types.Numeric, Impl: Strict(types.Numeric, func(ctx *Ctx, a []Datum) (Datum, error) {
			x, err := parseNumeric(a[0].(string))
			if err != nil {
				return nil, err
			}
			return formatNumeric(roundNumeric(x, int32(max(min(a[1].(int64), 2000), -2000)))), nil
		})},
	)
	RegisterScalar("trunc",
		f8Fn1(func(x float64) (float64, error) { return math.Trunc(x), nil }),
		numFn1(func(x *apd.Decimal) (*apd.Decimal, error) { return truncNumeric(x, 0), nil }),
		Overload{Args: []types.T{types.Numeric, types.Int4}, Ret: types.Numeric, Impl: Strict(types.Numeric, func(ctx *Ctx, a []Datum) (Datum, error) {
			x, err := parseNumeric(a[0].(string))
			if err != nil {
				return nil, err
			}
			return formatNumeric(truncNumeric(x, int32(max(min(a[1].(int64), 2000), -2000)))), nil
		})},
	)
	RegisterScalar("sign",
		f8Fn1(func(x float64) (float64, error) {
			switch {
			case x > 0:
				return 1, nil
			case x < 0:
				return -1, nil
			}
			return 0, nil
		}),
		numFn1(func(x *apd.Decimal) (*apd.Decimal, error) { return apd.New(int64(x.Sign()), 0), nil }),
	)
	RegisterScalar("sqrt", f8Fn1(floatSqrt), numFn1(numSqrt))
	// scale, min_scale and trim_scale read a numeric's display scale.
	numScaleFn := func(fn func(x *apd.Decimal) int64) Overload {
		return Overload{Args: []types.T{types.Numeric}, Ret: types.Int4, Impl: Strict(types.Int4, func(ctx *Ctx, a []Datum) (Datum, error) {
			x, err := parseNumeric(a[0].(string))
			if err != nil {
				return nil, err
			}
			if x.Form != apd.Finite {
				return nil, nil
			}
			return fn(x), nil
		})}
	}
	RegisterScalar("scale", numScaleFn(func(x *apd.Decimal) int64 { return int64(numericScale(x)) }))
	RegisterScalar("min_scale", numScaleFn(func(x *apd.Decimal) int64 { return int64(numericScale(trimScale(x))) }))
	RegisterScalar("trim_scale", numFn1(func(x *apd.Decimal) (*apd.Decimal, error) { return trimScale(x), nil }))
	RegisterScalar("cbrt", f8Fn1(func(x float64) (float64, error) { return libmCbrt(x), nil }))
	pow := []Overload{
		{Args: []types.T{types.Float8, types.Float8}, Ret: types.Float8, Impl: float8Binary(floatPow)},
		{Args: []types.T{types.Numeric, types.Numeric}, Ret: types.Numeric, Impl: numericBinary(numPow)},
	}
	RegisterScalar("power", pow...)
	RegisterScalar("pow", pow...)
	RegisterScalar("exp", f8Fn1(func(x float64) (float64, error) {
		r := libmExp(x)
		if math.IsInf(r, 0) && !math.IsInf(x, 0) {
			return 0, errFloatOverflow()
		}
		return r, nil
	}), numFn1(numExp))
	RegisterScalar("ln", f8Fn1(func(x float64) (float64, error) {
		if _, err := lnArg(x); err != nil {
			return 0, err
		}
		return libmLog(x), nil
	}), numFn1(numLn))
	log10 := f8Fn1(func(x float64) (float64, error) {
		if _, err := lnArg(x); err != nil {
			return 0, err
		}
		return libmLog10(x), nil
	})
	log10Num := numFn1(func(x *apd.Decimal) (*apd.Decimal, error) { return numLogBase(apd.New(10, 0), x) })
	RegisterScalar("log10", log10, log10Num)
	RegisterScalar("log", log10, log10Num,
		Overload{Args: []types.T{types.Numeric, types.Numeric}, Ret: types.Numeric, Impl: numericBinary(numLogBase)})
	RegisterScalar("mod",
		Overload{Args: []types.T{types.Int2, types.Int2}, Ret: types.Int2, Impl: intArithKernel('%', types.OidInt2)},
		Overload{Args: []types.T{types.Int4, types.Int4}, Ret: types.Int4, Impl: intArithKernel('%', types.OidInt4)},
		Overload{Args: []types.T{types.Int8, types.Int8}, Ret: types.Int8, Impl: intArithKernel('%', types.OidInt8)},
		Overload{Args: []types.T{types.Numeric, types.Numeric}, Ret: types.Numeric, Impl: numericBinary(numMod)},
	)
	RegisterScalar("div", Overload{Args: []types.T{types.Numeric, types.Numeric}, Ret: types.Numeric, Impl: numericBinary(func(x, y *apd.Decimal) (*apd.Decimal, error) {
		if y.IsZero() {
			return nil, errDivisionByZero()
		}
		q, err := divNumericScale(x, y, 1)
		if err != nil {
			return nil, err
		}
		return truncNumeric(q, 0), nil
	})})
	RegisterScalar("pi", Overload{Args: nil, Ret: types.Float8, Impl: func(ctx *Ctx, args []arrow.Array, n int) (arrow.Array, error) {
		return Broadcast(ctx.Allocator(), types.Float8, math.Pi, n)
	}})
	RegisterScalar("random", Overload{Args: nil, Ret: types.Float8, Volatile: true, Impl: func(ctx *Ctx, args []arrow.Array, n int) (arrow.Array, error) {
		b := array.NewFloat64Builder(ctx.Allocator())
		defer b.Release()
		for i := 0; i < n; i++ {
			b.Append(rand.Float64())
		}
		return b.NewArray(), nil
	}})
	for _, name := range []string{"degrees", "radians", "sin", "cos", "tan", "asin", "acos", "atan"} {
		fns := map[string]func(float64) float64{"degrees": func(x float64) float64 { return x * 180 / math.Pi }, "radians": func(x float64) float64 { return x * math.Pi / 180 },
			"sin": math.Sin, "cos": math.Cos, "tan": math.Tan, "asin": math.Asin, "acos": math.Acos, "atan": math.Atan}
		fn := fns[name]
		RegisterScalar(name, f8Fn1(func(x float64) (float64, error) { return fn(x), nil }))
	}
	RegisterScalar("atan2", Overload{Args: []types.T{types.Float8, types.Float8}, Ret: types.Float8, Impl: float8Binary(func(a, b float64) (float64, error) { return libmAtan2(a, b), nil })})
	// greatest / least over anyelement; NULLs ignored.
	for _, name := range []string{"greatest", "least"} {
		isMax := name == "greatest"
		RegisterScalar(name, Overload{Args: []types.T{AnyElement}, Variadic: true, RetFn: func(a []types.T) types.T { return a[0] },
			Specialize: func(argTypes []types.T, ret types.T) ScalarImpl { return extremeImpl(argTypes, ret, isMax) }})
	}
	RegisterScalar("nullif", Overload{Args: []types.T{AnyElement, AnyElement}, RetFn: func(a []types.T) types.T { return a[0] },
		Specialize: nullifImpl})
	RegisterScalar("width_bucket", Overload{Args: []types.T{types.Float8, types.Float8, types.Float8, types.Int4}, Ret: types.Int4, Impl: Strict(types.Int4, func(ctx *Ctx, a []Datum) (Datum, error) {
		x, lo, hi, cnt := a[0].(float64), a[1].(float64), a[2].(float64), a[3].(int64)
		if cnt <= 0 {
			return nil, sqlerr.New("2201G", "count must be greater than zero")
		}
		if lo == hi {
			return nil, sqlerr.New("2201G", "lower bound cannot equal upper bound")
		}
		if lo < hi {
			if x < lo {
				return int64(0), nil
			}
			if x >= hi {
				return cnt + 1, nil
			}
			return int64(float64(cnt)*(x-lo)/(hi-lo)) + 1, nil
		}
		if x > lo {
			return int64(0), nil
		}
		if x <= hi {
			return cnt + 1, nil
		}
		return int64(float64(cnt)*(lo-x)/(lo-hi)) + 1, nil
	})})
}

// extremeImpl is greatest/least: compare with the type's "<" operator.
func extremeImpl(argTypes []types.T, ret types.T, isMax bool) ScalarImpl {
	return func(ctx *Ctx, args []arrow.Array, n int) (arrow.Array, error) {
		t := ret
		r, err := ResolveScalar("<", []types.T{t, t})
		if err != nil {
			return nil, err
		}
		out := make([]Datum, n)
		best := make([]int, n)
		for i := range best {
			best[i] = -1
		}
		for j := range args {
			var lt arrow.Array
			for i := 0; i < n; i++ {
				if args[j].IsNull(i) {
					continue
				}
				if best[i] < 0 {
					best[i] = j
					continue
				}
				_ = lt
				// compare row i of args[j] with the current best
				pair := []arrow.Array{array.NewSlice(args[best[i]], int64(i), int64(i+1)), array.NewSlice(args[j], int64(i), int64(i+1))}
				if !isMax {
					pair[0], pair[1] = pair[1], pair[0]
				}
				res, err := r.Overload.Impl(ctx, pair, 1)
				pair[0].Release()
				pair[1].Release()
				if err != nil {
					return nil, err
				}
				if res.(*array.Boolean).Value(0) {
					best[i] = j
				}
				res.Release()
			}
		}
		for i := range out {
			if best[i] >= 0 {
				out[i] = DatumAt(args[best[i]], i)
			}
		}
		return ArrayFromDatums(ctx.Allocator(), t, out), nil
	}
}

func nullifImpl(argTypes []types.T, ret types.T) ScalarImpl {
	return func(ctx *Ctx, args []arrow.Array, n int) (arrow.Array, error) {
		r, err := ResolveScalar("=", []types.T{argTypes[0], argTypes[1]})
		if err != nil {
			return nil, err
		}
		eq, err := r.Overload.Impl(ctx, args, n)
		if err != nil {
			return nil, err
		}
		defer eq.Release()
		be := eq.(*array.Boolean)
		out := make([]Datum, n)
		for i := range out {
			if be.IsValid(i) && be.Value(i) {
				continue
			}
			out[i] = DatumAt(args[0], i)
		}
		return ArrayFromDatums(ctx.Allocator(), ret, out), nil
	}
}

// trimScale drops trailing fraction zeros (trim_scale).
func trimScale(x *apd.Decimal) *apd.Decimal {
	if x.Form != apd.Finite || x.Exponent >= 0 {
		return x
	}
	r := new(apd.Decimal).Set(x)
	var ten, q, rem apd.BigInt
	ten.SetInt64(10)
	for r.Exponent < 0 && r.Coeff.Sign() != 0 {
		q.QuoRem(&r.Coeff, &ten, &rem)
		if rem.Sign() != 0 {
			break
		}
		r.Coeff.Set(&q)
		r.Exponent++
	}
	if r.Coeff.Sign() == 0 {
		r.Exponent = 0
	}
	return r
}
