package expr

import (
	"bytes"
	"cmp"
	"math"
	"strings"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/bitutil"

	"github.com/weir-sql/weir/sql/types"
)

// Comparison operators = <> < <= > >= as typed loops over the columns.

type cmpOp int

const (
	opEq cmpOp = iota
	opNe
	opLt
	opLe
	opGt
	opGe
)

var cmpOpNames = []string{"=", "<>", "<", "<=", ">", ">="}

// holds reports whether a three-way comparison result c satisfies op.
func (o cmpOp) holds(c int) bool {
	switch o {
	case opEq:
		return c == 0
	case opNe:
		return c != 0
	case opLt:
		return c < 0
	case opLe:
		return c <= 0
	case opGt:
		return c > 0
	}
	return c >= 0
}

// compareSlices sets bit i of out when a[i] op b[i]; one loop per operator
// keeps the inner loop free of branches on op.
func compareSlices[T cmp.Ordered](op cmpOp, a, b []T, out []byte) {
	n := len(a)
	switch op {
	case opEq:
		for i := 0; i < n; i++ {
			if a[i] == b[i] {
				bitutil.SetBit(out, i)
			}
		}
	case opNe:
		for i := 0; i < n; i++ {
			if a[i] != b[i] {
				bitutil.SetBit(out, i)
			}
		}
	case opLt:
		for i := 0; i < n; i++ {
			if a[i] < b[i] {
				bitutil.SetBit(out, i)
			}
		}
	case opLe:
		for i := 0; i < n; i++ {
			if a[i] <= b[i] {
				bitutil.SetBit(out, i)
			}
		}
	case opGt:
		for i := 0; i < n; i++ {
			if a[i] > b[i] {
				bitutil.SetBit(out, i)
			}
		}
	case opGe:
		for i := 0; i < n; i++ {
			if a[i] >= b[i] {
				bitutil.SetBit(out, i)
			}
		}
	}
}

// cmpFloat orders floats as PostgreSQL does: NaN equals NaN and sorts above
// every other value.
func cmpFloat(a, b float64) int {
	an, bn := math.IsNaN(a), math.IsNaN(b)
	switch {
	case an && bn:
		return 0
	case an:
		return 1
	case bn:
		return -1
	case a < b:
		return -1
	case a > b:
		return 1
	}
	return 0
}

func compareIntKernel(op cmpOp) ScalarImpl {
	return func(ctx *Ctx, args []arrow.Array, n int) (arrow.Array, error) {
		mem := ctx.Allocator()
		out := newBitmap(mem, n)
		var a, b []int64
		if x, ok := args[0].(*array.Int64); ok {
			a = x.Int64Values()
		} else {
			a = intValues(args[0], nil)
		}
		if x, ok := args[1].(*array.Int64); ok {
			b = x.Int64Values()
		} else {
			b = intValues(args[1], nil)
		}
		compareSlices(op, a[:n], b[:n], out.Bytes())
		return boolResult(mem, n, out, unionValidity(mem, n, args...)), nil
	}
}

// compareDateTimestampKernel compares a date with a timestamp (or the
// reverse when swapped) by the date's midnight.
func compareDateTimestampKernel(op cmpOp, dateFirst bool) ScalarImpl {
	return func(ctx *Ctx, args []arrow.Array, n int) (arrow.Array, error) {
		mem := ctx.Allocator()
		out := newBitmap(mem, n)
		a := intValues(args[0], nil)
		b := intValues(args[1], nil)
		if dateFirst {
			for i := range a {
				a[i] = dateToTimestamp(a[i])
			}
		} else {
			for i := range b {
				b[i] = dateToTimestamp(b[i])
			}
		}
		compareSlices(op, a, b, out.Bytes())
		return boolResult(mem, n, out, unionValidity(mem, n, args...)), nil
	}
}

func compareFloatKernel(op cmpOp) ScalarImpl {
	return func(ctx *Ctx, args []arrow.Array, n int) (arrow.Array, error) {
		mem := ctx.Allocator()
		out := newBitmap(mem, n)
		a := floatValues(args[0], nil)
		b := floatValues(args[1], nil)
		bits := out.Bytes()
		hasNaN := false
		for i := 0; i < n; i++ {
			if a[i] != a[i] || b[i] != b[i] {
				hasNaN = true
				break
			}
		}
		if hasNaN {
			for i := 0; i < n; i++ {
				if op.holds(cmpFloat(a[i], b[i])) {
					bitutil.SetBit(bits, i)
				}
			}
		} else {
			compareSlices(op, a[:n], b[:n], bits)
		}
		return boolResult(mem, n, out, unionValidity(mem, n, args...)), nil
	}
}

// compareRowsKernel compares with a per-row three-way function, for types
// whose representation is not directly ordered.
func compareRowsKernel(op cmpOp, cmpRow func(a, b arrow.Array, i int) int) ScalarImpl {
	return func(ctx *Ctx, args []arrow.Array, n int) (arrow.Array, error) {
		mem := ctx.Allocator()
		out := newBitmap(mem, n)
		valid := unionValidity(mem, n, args...)
		bits := out.Bytes()
		for i := 0; i < n; i++ {
			if valid != nil && !bitutil.BitIsSet(valid.Bytes(), i) {
				continue
			}
			if op.holds(cmpRow(args[0], args[1], i)) {
				bitutil.SetBit(bits, i)
			}
		}
		return boolResult(mem, n, out, valid), nil
	}
}

func cmpStringRow(a, b arrow.Array, i int) int {
	return strings.Compare(a.(*array.String).Value(i), b.(*array.String).Value(i))
}

func cmpBpcharRow(a, b arrow.Array, i int) int {
	return strings.Compare(strings.TrimRight(a.(*array.String).Value(i), " "), strings.TrimRight(b.(*array.String).Value(i), " "))
}

func cmpBoolRow(a, b arrow.Array, i int) int {
	x, y := a.(*array.Boolean).Value(i), b.(*array.Boolean).Value(i)
	return btoi(x) - btoi(y)
}

func cmpBinaryRow(a, b arrow.Array, i int) int {
	return bytes.Compare(binaryValue(a, i), binaryValue(b, i))
}

func binaryValue(a arrow.Array, i int) []byte {
	switch x := a.(type) {
	case *array.Binary:
		return x.Value(i)
	case *array.FixedSizeBinary:
		return x.Value(i)
	}
	return nil
}

func cmpIntervalRow(a, b arrow.Array, i int) int {
	return cmpInterval(a.(*array.MonthDayNanoInterval).Value(i), b.(*array.MonthDayNanoInterval).Value(i))
}

func cmpNumericRow(a, b arrow.Array, i int) int {
	return cmpNumericText(a.(*array.String).Value(i), b.(*array.String).Value(i))
}

func init() {
	intTypes := []types.T{types.Int2, types.Int4, types.Int8}
	for op, name := range cmpOpNames {
		op := cmpOp(op)
		for _, l := range intTypes {
			for _, r := range intTypes {
				RegisterScalar(name, Overload{Args: []types.T{l, r}, Ret: types.Bool, Impl: compareIntKernel(op)})
			}
		}
		for _, t := range []types.T{types.Date, types.Timestamp, types.TimestampTZ, types.Time, types.Oid,
			types.Regclass, types.Regtype, types.Regproc, types.Regnamespace, types.Regrole} {
			RegisterScalar(name, Overload{Args: []types.T{t, t}, Ret: types.Bool, Impl: compareIntKernel(op)})
		}
		RegisterScalar(name,
			Overload{Args: []types.T{types.Date, types.Timestamp}, Ret: types.Bool, Impl: compareDateTimestampKernel(op, true)},
			Overload{Args: []types.T{types.Timestamp, types.Date}, Ret: types.Bool, Impl: compareDateTimestampKernel(op, false)},
		)
		for _, l := range []types.T{types.Float4, types.Float8} {
			for _, r := range []types.T{types.Float4, types.Float8} {
				RegisterScalar(name, Overload{Args: []types.T{l, r}, Ret: types.Bool, Impl: compareFloatKernel(op)})
			}
		}
		for _, t := range []types.T{types.Text, types.Name, types.Char} {
			RegisterScalar(name, Overload{Args: []types.T{t, t}, Ret: types.Bool, Impl: compareRowsKernel(op, cmpStringRow)})
		}
		RegisterScalar(name,
			Overload{Args: []types.T{types.Bpchar, types.Bpchar}, Ret: types.Bool, Impl: compareRowsKernel(op, cmpBpcharRow)},
			Overload{Args: []types.T{types.Numeric, types.Numeric}, Ret: types.Bool, Impl: compareRowsKernel(op, cmpNumericRow)},
			Overload{Args: []types.T{types.Bool, types.Bool}, Ret: types.Bool, Impl: compareRowsKernel(op, cmpBoolRow)},
			Overload{Args: []types.T{types.Bytea, types.Bytea}, Ret: types.Bool, Impl: compareRowsKernel(op, cmpBinaryRow)},
			Overload{Args: []types.T{types.UUID, types.UUID}, Ret: types.Bool, Impl: compareRowsKernel(op, cmpBinaryRow)},
			Overload{Args: []types.T{types.Interval, types.Interval}, Ret: types.Bool, Impl: compareRowsKernel(op, cmpIntervalRow)},
		)
	}
	RegisterScalar("=", Overload{Args: []types.T{types.JSONB, types.JSONB}, Ret: types.Bool, Impl: compareRowsKernel(opEq, cmpJSONBRow)})
	RegisterScalar("<>", Overload{Args: []types.T{types.JSONB, types.JSONB}, Ret: types.Bool, Impl: compareRowsKernel(opNe, cmpJSONBRow)})
}
