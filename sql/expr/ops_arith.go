package expr

import (
	"math"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/bitutil"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/cockroachdb/apd/v3"

	"github.com/weir-sql/weir/sql/sqlerr"
	"github.com/weir-sql/weir/sql/types"
)

// Arithmetic operators + - * / % and unary -, +, @, |/, ^ on numbers.

type arithOp byte

// rowValid reports whether row i is valid in a validity buffer (nil: all).
func rowValid(valid *memory.Buffer, i int) bool {
	return valid == nil || bitutil.BitIsSet(valid.Bytes(), i)
}

// intArith computes a op b in int64 for one row; ok=false means overflow.
func intArith(op arithOp, a, b int64, ret uint32) (int64, error) {
	var r int64
	switch op {
	case '+':
		r = a + b
		if (a >= 0) == (b >= 0) && (r >= 0) != (a >= 0) {
			return 0, errIntOutOfRange(ret)
		}
	case '-':
		r = a - b
		if (a >= 0) != (b >= 0) && (r >= 0) != (a >= 0) {
			return 0, errIntOutOfRange(ret)
		}
	case '*':
		r = a * b
		if a != 0 && (r/a != b || (a == -1 && b == math.MinInt64) || (b == -1 && a == math.MinInt64)) {
			return 0, errIntOutOfRange(ret)
		}
	case '/':
		if b == 0 {
			return 0, errDivisionByZero()
		}
		if b == -1 {
			if a == math.MinInt64 {
				return 0, errIntOutOfRange(ret)
			}
			r = -a
		} else {
			r = a / b
		}
	case '%':
		if b == 0 {
			return 0, errDivisionByZero()
		}
		if b == -1 {
			return 0, nil
		}
		r = a % b
	}
	if !intFits(r, ret) {
		return 0, errIntOutOfRange(ret)
	}
	return r, nil
}

// intArithKernel is a typed loop: operands widened to int64, the result
// stored in the return type's width.
func intArithKernel(op arithOp, ret uint32) ScalarImpl {
	return func(ctx *Ctx, args []arrow.Array, n int) (arrow.Array, error) {
		mem := ctx.Allocator()
		a := intValues(args[0], nil)
		b := intValues(args[1], nil)
		valid := unionValidity(mem, n, args...)
		res := make([]int64, n)
		for i := 0; i < n; i++ {
			r, err := intArith(op, a[i], b[i], ret)
			if err != nil {
				if rowValid(valid, i) {
					if valid != nil {
						valid.Release()
					}
					return nil, err
				}
				r = 0
			}
			res[i] = r
		}
		return intResult(mem, ret, res, valid), nil
	}
}

// intResult stores int64 results into an array of the integer type ret.
func intResult(mem memory.Allocator, ret uint32, res []int64, valid *memory.Buffer) arrow.Array {
	n := len(res)
	switch ret {
	case types.OidInt2:
		buf := newValueBuffer(mem, n*2)
		out := arrow.Int16Traits.CastFromBytes(buf.Bytes())
		for i, v := range res {
			out[i] = int16(v)
		}
		return primitiveResult(arrow.PrimitiveTypes.Int16, n, buf, valid)
	case types.OidInt4:
		buf := newValueBuffer(mem, n*4)
		out := arrow.Int32Traits.CastFromBytes(buf.Bytes())
		for i, v := range res {
			out[i] = int32(v)
		}
		return primitiveResult(arrow.PrimitiveTypes.Int32, n, buf, valid)
	}
	buf := newValueBuffer(mem, n*8)
	copy(arrow.Int64Traits.CastFromBytes(buf.Bytes()), res)
	return primitiveResult(arrow.PrimitiveTypes.Int64, n, buf, valid)
}

func errFloatOverflow() error {
	return sqlerr.New(sqlerr.NumericValueOutOfRange, "value out of range: overflow")
}

func errFloatUnderflow() error {
	return sqlerr.New(sqlerr.NumericValueOutOfRange, "value out of range: underflow")
}

// floatArith computes one float operation with PostgreSQL's checks.
func floatArith(op arithOp, a, b float64, single bool) (float64, error) {
	var r float64
	switch op {
	case '+':
		r = a + b
	case '-':
		r = a - b
	case '*':
		r = a * b
	case '/':
		if b == 0 {
			return 0, errDivisionByZero()
		}
		r = a / b
	}
	if single {
		r = float64(float32(r))
	}
	if math.IsInf(r, 0) && !math.IsInf(a, 0) && !math.IsInf(b, 0) {
		return 0, errFloatOverflow()
	}
	if r == 0 && (op == '*' && a != 0 && b != 0 || op == '/' && a != 0 && !math.IsInf(b, 0)) {
		return 0, errFloatUnderflow()
	}
	return r, nil
}

func floatArithKernel(op arithOp, ret uint32) ScalarImpl {
	single := ret == types.OidFloat4
	return func(ctx *Ctx, args []arrow.Array, n int) (arrow.Array, error) {
		mem := ctx.Allocator()
		a := floatValues(args[0], nil)
		b := floatValues(args[1], nil)
		valid := unionValidity(mem, n, args...)
		var out64 []float64
		var out32 []float32
		var buf *memory.Buffer
		if single {
			buf = newValueBuffer(mem, n*4)
			out32 = arrow.Float32Traits.CastFromBytes(buf.Bytes())
		} else {
			buf = newValueBuffer(mem, n*8)
			out64 = arrow.Float64Traits.CastFromBytes(buf.Bytes())
		}
		for i := 0; i < n; i++ {
			x, y := a[i], b[i]
			var r float64
			switch op {
			case '+':
				r = x + y
			case '-':
				r = x - y
			case '*':
				r = x * y
			default:
				r = math.NaN()
			}
			if op == '/' || math.IsInf(r, 0) || (r == 0 && op == '*') || single {
				var err error
				r, err = floatArith(op, x, y, single)
				if err != nil && rowValid(valid, i) {
					buf.Release()
					if valid != nil {
						valid.Release()
					}
					return nil, err
				}
			}
			if single {
				out32[i] = float32(r)
			} else {
				out64[i] = r
			}
		}
		if single {
			return primitiveResult(arrow.PrimitiveTypes.Float32, n, buf, valid), nil
		}
		return primitiveResult(arrow.PrimitiveTypes.Float64, n, buf, valid), nil
	}
}

// negKernel is unary minus on integers and floats.
func negKernel(t types.T) ScalarImpl {
	return func(ctx *Ctx, args []arrow.Array, n int) (arrow.Array, error) {
		mem := ctx.Allocator()
		valid := unionValidity(mem, n, args...)
		switch t.OID {
		case types.OidFloat4, types.OidFloat8:
			a := floatValues(args[0], nil)
			res := make([]float64, n)
			for i := range res {
				res[i] = -a[i]
			}
			return floatResult(mem, t.OID, res, valid), nil
		}
		a := intValues(args[0], nil)
		res := make([]int64, n)
		for i := range res {
			res[i] = -a[i]
			if !intFits(res[i], t.OID) || (t.OID == types.OidInt8 && a[i] == math.MinInt64) {
				if rowValid(valid, i) {
					return nil, errIntOutOfRange(t.OID)
				}
			}
		}
		return intResult(mem, t.OID, res, valid), nil
	}
}

func floatResult(mem memory.Allocator, ret uint32, res []float64, valid *memory.Buffer) arrow.Array {
	n := len(res)
	if ret == types.OidFloat4 {
		buf := newValueBuffer(mem, n*4)
		out := arrow.Float32Traits.CastFromBytes(buf.Bytes())
		for i, v := range res {
			out[i] = float32(v)
		}
		return primitiveResult(arrow.PrimitiveTypes.Float32, n, buf, valid)
	}
	buf := newValueBuffer(mem, n*8)
	copy(arrow.Float64Traits.CastFromBytes(buf.Bytes()), res)
	return primitiveResult(arrow.PrimitiveTypes.Float64, n, buf, valid)
}

func identityImpl(ctx *Ctx, args []arrow.Array, n int) (arrow.Array, error) {
	args[0].Retain()
	return args[0], nil
}

// absInt is @ / abs() on integers.
func absIntKernel(t types.T) ScalarImpl {
	return Strict(t, func(ctx *Ctx, args []Datum) (Datum, error) {
		v := args[0].(int64)
		if v < 0 {
			v = -v
			if !intFits(v, t.OID) || v < 0 {
				return nil, errIntOutOfRange(t.OID)
			}
		}
		return v, nil
	})
}

func floatPow(x, y float64) (float64, error) {
	if x == 0 && y < 0 {
		return 0, sqlerr.New("2201F", "zero raised to a negative power is undefined")
	}
	if x < 0 && math.Floor(y) != y && !math.IsInf(y, 0) {
		return 0, sqlerr.New("2201F", "a negative number raised to a non-integer power yields a complex result")
	}
	r := libmPow(x, y)
	if math.IsInf(r, 0) && !math.IsInf(x, 0) && !math.IsInf(y, 0) {
		return 0, errFloatOverflow()
	}
	if r == 0 && x != 0 && !math.IsInf(y, 0) {
		return 0, errFloatUnderflow()
	}
	return r, nil
}

func floatSqrt(x float64) (float64, error) {
	if x < 0 {
		return 0, sqlerr.New("2201F", "cannot take square root of a negative number")
	}
	return math.Sqrt(x), nil
}

// numPow is numeric ^ numeric with PostgreSQL's result scale.
func numPow(x, y *apd.Decimal) (*apd.Decimal, error) {
	if x.Form != apd.Finite || y.Form != apd.Finite {
		return &apd.Decimal{Form: apd.NaN}, nil
	}
	if x.IsZero() && y.Negative && !y.IsZero() {
		return nil, sqlerr.New("2201F", "zero raised to a negative power is undefined")
	}
	var yint apd.Decimal
	exactCtx.RoundToIntegralValue(&yint, y)
	isInt := yint.Cmp(y) == 0
	if x.Negative && !isInt {
		return nil, sqlerr.New("2201F", "a negative number raised to a non-integer power yields a complex result")
	}
	if isInt && math.Abs(numericToFloat(y)) <= math.MaxInt32 {
		// power_var_int: at least 16 digits after the point, or the base's.
		rs := clampScale(numericMinSigDigits, numericScale(x))
		if x.IsZero() {
			if y.IsZero() {
				return roundNumeric(apd.New(1, 0), rs), nil
			}
			return apd.New(0, -rs), nil
		}
		est := numericToFloat(y) * libmLog10(math.Abs(numericToFloat(x)))
		if est > 3*numericMaxResultScale {
			return nil, sqlerr.New(sqlerr.NumericValueOutOfRange, "value overflows numeric format")
		}
		if est+1 < -float64(rs) {
			return apd.New(0, -rs), nil
		}
		c := exactCtx
		c.Precision = uint32(int64(math.Max(est, 0)) + int64(rs) + 12)
		var r apd.Decimal
		if _, err := c.Pow(&r, x, y); err != nil {
			return nil, err
		}
		return roundNumeric(&r, rs), nil
	}
	if x.IsZero() {
		return apd.New(0, -numericMinSigDigits), nil
	}
	// e^(y ln x), with the scale chosen from the result's estimated weight.
	absX := new(apd.Decimal).Abs(x)
	lnEst := libmLog(numericToFloat(absX))
	if math.IsInf(lnEst, 0) || math.IsNaN(lnEst) {
		l, err := lnAt(absX, 20)
		if err != nil {
			return nil, err
		}
		lnEst = numericToFloat(l)
	}
	val := lnEst * numericToFloat(y)
	if math.Abs(val) > numericMaxResultScale*3.01 {
		if val > 0 {
			return nil, sqlerr.New(sqlerr.NumericValueOutOfRange, "value overflows numeric format")
		}
		return apd.New(0, -numericMaxDisplayScal), nil
	}
	rs := clampScale(numericMinSigDigits-int64(val*0.434294481903252), numericScale(x), numericScale(y))
	digits := int64(math.Max(val*0.434294481903252, 0)) + int64(rs) + 12
	lnx, err := lnAt(absX, digits+int64(math.Abs(libmLog10(math.Abs(numericToFloat(y))+1)))+2)
	if err != nil {
		return nil, err
	}
	c := exactCtx
	c.Precision = uint32(digits + 10)
	var prod apd.Decimal
	if _, err := c.Mul(&prod, lnx, y); err != nil {
		return nil, err
	}
	return expScaled(&prod, rs)
}

func float8Unary(fn func(float64) (float64, error)) ScalarImpl {
	return Strict(types.Float8, func(ctx *Ctx, args []Datum) (Datum, error) {
		return fn(args[0].(float64))
	})
}

func float8Binary(fn func(a, b float64) (float64, error)) ScalarImpl {
	return Strict(types.Float8, func(ctx *Ctx, args []Datum) (Datum, error) {
		return fn(args[0].(float64), args[1].(float64))
	})
}

func wider(a, b types.T) types.T {
	if numericRank[a.OID] >= numericRank[b.OID] {
		return a
	}
	return b
}

func init() {
	intTypes := []types.T{types.Int2, types.Int4, types.Int8}
	for _, op := range []arithOp{'+', '-', '*', '/', '%'} {
		name := string(rune(op))
		for _, l := range intTypes {
			for _, r := range intTypes {
				ret := wider(l, r)
				RegisterScalar(name, Overload{Args: []types.T{l, r}, Ret: ret, Impl: intArithKernel(op, ret.OID)})
			}
		}
	}
	for _, op := range []arithOp{'+', '-', '*', '/'} {
		name := string(rune(op))
		RegisterScalar(name,
			Overload{Args: []types.T{types.Float8, types.Float8}, Ret: types.Float8, Impl: floatArithKernel(op, types.OidFloat8)},
			Overload{Args: []types.T{types.Float4, types.Float4}, Ret: types.Float4, Impl: floatArithKernel(op, types.OidFloat4)},
			Overload{Args: []types.T{types.Float4, types.Float8}, Ret: types.Float8, Impl: floatArithKernel(op, types.OidFloat8)},
			Overload{Args: []types.T{types.Float8, types.Float4}, Ret: types.Float8, Impl: floatArithKernel(op, types.OidFloat8)},
		)
	}
	RegisterScalar("+", Overload{Args: []types.T{types.Numeric, types.Numeric}, Ret: types.Numeric, Impl: numericArith(fastAdd, numAdd)})
	RegisterScalar("-", Overload{Args: []types.T{types.Numeric, types.Numeric}, Ret: types.Numeric, Impl: numericArith(fastSub, numSub)})
	RegisterScalar("*", Overload{Args: []types.T{types.Numeric, types.Numeric}, Ret: types.Numeric, Impl: numericArith(fastMul, numMul)})
	RegisterScalar("/", Overload{Args: []types.T{types.Numeric, types.Numeric}, Ret: types.Numeric, Impl: numericBinary(numDiv)})
	RegisterScalar("%", Overload{Args: []types.T{types.Numeric, types.Numeric}, Ret: types.Numeric, Impl: numericBinary(numMod)})
	RegisterScalar("^",
		Overload{Args: []types.T{types.Float8, types.Float8}, Ret: types.Float8, Impl: float8Binary(floatPow)},
		Overload{Args: []types.T{types.Numeric, types.Numeric}, Ret: types.Numeric, Impl: numericBinary(numPow)},
	)
	RegisterScalar("|/", Overload{Args: []types.T{types.Float8}, Ret: types.Float8, Impl: float8Unary(floatSqrt)})
	RegisterScalar("||/", Overload{Args: []types.T{types.Float8}, Ret: types.Float8, Impl: float8Unary(func(x float64) (float64, error) { return libmCbrt(x), nil })})
	for _, t := range []types.T{types.Int2, types.Int4, types.Int8, types.Float4, types.Float8} {
		RegisterScalar("-", Overload{Args: []types.T{t}, Ret: t, Impl: negKernel(t)})
		RegisterScalar("+", Overload{Args: []types.T{t}, Ret: t, Impl: identityImpl})
	}
	RegisterScalar("-", Overload{Args: []types.T{types.Numeric}, Ret: types.Numeric, Impl: numericUnary(numNeg)})
	RegisterScalar("+", Overload{Args: []types.T{types.Numeric}, Ret: types.Numeric, Impl: identityImpl})
	for _, t := range []types.T{types.Int2, types.Int4, types.Int8} {
		RegisterScalar("@", Overload{Args: []types.T{t}, Ret: t, Impl: absIntKernel(t)})
	}
	RegisterScalar("@",
		Overload{Args: []types.T{types.Float4}, Ret: types.Float4, Impl: Strict(types.Float4, func(ctx *Ctx, a []Datum) (Datum, error) { return math.Abs(a[0].(float64)), nil })},
		Overload{Args: []types.T{types.Float8}, Ret: types.Float8, Impl: float8Unary(func(x float64) (float64, error) { return math.Abs(x), nil })},
		Overload{Args: []types.T{types.Numeric}, Ret: types.Numeric, Impl: numericUnary(numAbs)},
	)
	_ = array.NewBooleanBuilder
}
