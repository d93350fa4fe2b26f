package expr

import (
	"strings"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"

	"github.com/weir-sql/weir/sql/sqlerr"
	"github.com/weir-sql/weir/sql/types"
)

// Databricks' null and collection functions (names PostgreSQL does not
// have): nvl, ifnull, nvl2, array_contains, size, element_at,
// try_element_at; and concat_ws over arrays. ANSI mode, as Databricks SQL
// runs: size(NULL) is NULL (the reference page's -1 is the legacy
// setting) and element_at past the end is an error (try_element_at:
// NULL).

// pickKernel returns, per row, the value of args[pick(i)]: the inputs
// are returned as they are when one of them serves every row, and rows
// are copied otherwise.
func pickKernel(ret types.T, pick func(args []arrow.Array, i int) int) ScalarImpl {
	return func(ctx *Ctx, args []arrow.Array, n int) (arrow.Array, error) {
		first := -1
		same := true
		for i := 0; i < n && same; i++ {
			k := pick(args, i)
			if first < 0 {
				first = k
			}
			same = k == first
		}
		if n > 0 && same && args[first].DataType().ID() == ret.Arrow().ID() {
			args[first].Retain()
			return args[first], nil
		}
		b := NewBuilder(ctx.Allocator(), ret)
		defer b.Release()
		b.Reserve(n)
		for i := 0; i < n; i++ {
			a := args[pick(args, i)]
			if a.IsNull(i) {
				b.AppendNull()
				continue
			}
			appendValueFrom(b, a, i)
		}
		return b.NewArray(), nil
	}
}

// appendValueFrom appends a's value at i (not NULL) to b, a column of
// the same type: the common shapes by a typed copy, others through Datum.
func appendValueFrom(b array.Builder, a arrow.Array, i int) {
	switch bb := b.(type) {
	case *array.Int64Builder:
		if c, ok := a.(*array.Int64); ok {
			bb.Append(c.Value(i))
			return
		}
	case *array.Int32Builder:
		if c, ok := a.(*array.Int32); ok {
			bb.Append(c.Value(i))
			return
		}
	case *array.Float64Builder:
		if c, ok := a.(*array.Float64); ok {
			bb.Append(c.Value(i))
			return
		}
	case *array.StringBuilder:
		if c, ok := a.(*array.String); ok {
			bb.Append(c.Value(i))
			return
		}
	case *array.TimestampBuilder:
		if c, ok := a.(*array.Timestamp); ok {
			bb.Append(c.Value(i))
			return
		}
	case *array.Date32Builder:
		if c, ok := a.(*array.Date32); ok {
			bb.Append(c.Value(i))
			return
		}
	case *array.BooleanBuilder:
		if c, ok := a.(*array.Boolean); ok {
			bb.Append(c.Value(i))
			return
		}
	}
	AppendDatum(b, DatumAt(a, i))
}

func firstArgType(args []types.T) types.T { return args[0] }

// listBounds returns the list column of an array argument and the
// [start, end) of row i's elements.
func listBounds(a arrow.Array, i int) (arrow.Array, int, int, bool) {
	switch l := a.(type) {
	case *array.List:
		s, e := l.ValueOffsets(i)
		return l.ListValues(), int(s), int(e), true
	case *array.LargeList:
		s, e := l.ValueOffsets(i)
		return l.ListValues(), int(s), int(e), true
	}
	return nil, 0, 0, false
}

// arrayContains is Databricks' array_contains: true when some element
// equals v; NULL when v is NULL, or when no element equals v and one is
// NULL; false otherwise.
func arrayContains(argTypes []types.T, _ types.T) ScalarImpl {
	if cmp := datumOrder(argTypes[1]); cmp != nil {
		return func(ctx *Ctx, args []arrow.Array, n int) (arrow.Array, error) {
			return arrayContainsRows(ctx, args, n, cmp)
		}
	}
	// Other element types compare by their = operator, one row's
	// elements at a time, as = ANY does.
	eq, err := ResolveScalar("=", []types.T{argTypes[1], argTypes[1]})
	return func(ctx *Ctx, args []arrow.Array, n int) (arrow.Array, error) {
		if err != nil {
			return nil, err
		}
		return arrayContainsRows(ctx, args, n, func(a, b Datum) int {
			l := ArrayFromDatums(ctx.Allocator(), argTypes[1], []Datum{a})
			r := ArrayFromDatums(ctx.Allocator(), argTypes[1], []Datum{b})
			defer l.Release()
			defer r.Release()
			res, e := eq.Overload.Impl(ctx, []arrow.Array{l, r}, 1)
			if e != nil || res.IsNull(0) {
				return 1
			}
			defer res.Release()
			if res.(*array.Boolean).Value(0) {
				return 0
			}
			return 1
		})
	}
}

func arrayContainsRows(ctx *Ctx, args []arrow.Array, n int, cmp func(a, b Datum) int) (arrow.Array, error) {
	b := NewBuilder(ctx.Allocator(), types.Bool).(*array.BooleanBuilder)
	defer b.Release()
	b.Reserve(n)
	for i := 0; i < n; i++ {
		if args[0].IsNull(i) || args[1].IsNull(i) {
			b.AppendNull()
			continue
		}
		vals, s, e, ok := listBounds(args[0], i)
		if !ok {
			return nil, sqlerr.New(sqlerr.InternalError, "array_contains: not an array column")
		}
		found, sawNull, typed := containsTyped(vals, s, e, args[1], i)
		if !typed {
			v := DatumAt(args[1], i)
			for k := s; k < e && !found; k++ {
				if vals.IsNull(k) {
					sawNull = true
					continue
				}
				found = cmp(DatumAt(vals, k), v) == 0
			}
		}
		switch {
		case found:
			b.UnsafeAppend(true)
		case sawNull:
			b.AppendNull()
		default:
			b.UnsafeAppend(false)
		}
	}
	return b.NewArray(), nil
}

// containsTyped looks for value row i among vals[s:e] without boxing
// when both are int4, int8 or text columns (typed false otherwise).
func containsTyped(vals arrow.Array, s, e int, value arrow.Array, i int) (found, sawNull, typed bool) {
	switch ev := vals.(type) {
	case *array.Int32:
		c, ok := value.(*array.Int32)
		if !ok {
			return false, false, false
		}
		return scanFor(ev, s, e, c.Value(i))
	case *array.Int64:
		c, ok := value.(*array.Int64)
		if !ok {
			return false, false, false
		}
		return scanFor(ev, s, e, c.Value(i))
	case *array.String:
		c, ok := value.(*array.String)
		if !ok {
			return false, false, false
		}
		return scanFor(ev, s, e, c.Value(i))
	}
	return false, false, false
}

func scanFor[T comparable, A interface {
	IsNull(int) bool
	Value(int) T
}](vals A, s, e int, v T) (found, sawNull, typed bool) {
	for k := s; k < e; k++ {
		if vals.IsNull(k) {
			sawNull = true
			continue
		}
		if vals.Value(k) == v {
			return true, sawNull, true
		}
	}
	return false, sawNull, true
}

// arraySize is size(array): its number of elements (NULL for NULL).
func arraySize(ctx *Ctx, args []arrow.Array, n int) (arrow.Array, error) {
	b := NewBuilder(ctx.Allocator(), types.Int4).(*array.Int32Builder)
	defer b.Release()
	b.Reserve(n)
	for i := 0; i < n; i++ {
		if args[0].IsNull(i) {
			b.AppendNull()
			continue
		}
		_, s, e, ok := listBounds(args[0], i)
		if !ok {
			return nil, sqlerr.New(sqlerr.InternalError, "size: not an array column")
		}
		b.UnsafeAppend(int32(e - s))
	}
	return b.NewArray(), nil
}

// elementAt is element_at(array, index): 1-based, negative from the end;
// index 0 is an error, an index past either end an error too (try: NULL).
func elementAt(try bool) func(args []types.T, ret types.T) ScalarImpl {
	return func(argTypes []types.T, ret types.T) ScalarImpl {
		return func(ctx *Ctx, args []arrow.Array, n int) (arrow.Array, error) {
			b := NewBuilder(ctx.Allocator(), ret)
			defer b.Release()
			b.Reserve(n)
			for i := 0; i < n; i++ {
				if args[0].IsNull(i) || args[1].IsNull(i) {
					b.AppendNull()
					continue
				}
				vals, s, e, ok := listBounds(args[0], i)
				if !ok {
					return nil, sqlerr.New(sqlerr.InternalError, "element_at: not an array column")
				}
				idx := DatumAt(args[1], i).(int64)
				size := int64(e - s)
				var k int64
				switch {
				case idx == 0 && !try:
					return nil, sqlerr.New(sqlerr.NumericValueOutOfRange, "INVALID_INDEX_OF_ZERO: the index 0 is invalid: an index shall be either < 0 or > 0 (the first element has index 1)").
						WithHint("Use try_element_at to return NULL instead.")
				case idx > 0 && idx <= size:
					k = int64(s) + idx - 1
				case idx < 0 && -idx <= size:
					k = int64(e) + idx
				default:
					if try || idx == 0 {
						b.AppendNull()
						continue
					}
					return nil, sqlerr.New(sqlerr.NumericValueOutOfRange, "INVALID_ARRAY_INDEX_IN_ELEMENT_AT: the index %d is out of bounds: the array has %d elements", idx, size).
						WithHint("Use try_element_at to return NULL instead.")
				}
				if vals.IsNull(int(k)) {
					b.AppendNull()
					continue
				}
				AppendDatum(b, DatumAt(vals, int(k)))
			}
			return b.NewArray(), nil
		}
	}
}

// concatWSSpecialize is concat_ws: PostgreSQL's over scalar arguments;
// when an argument is an array, Databricks' form, where each non-NULL
// element of an array is one more string to join (NULLs skipped).
func concatWSSpecialize(argTypes []types.T, ret types.T) ScalarImpl {
	hasArray := false
	for _, t := range argTypes {
		hasArray = hasArray || t.IsArray()
	}
	if !hasArray {
		return concatSpecialize(true)(argTypes, ret)
	}
	return func(ctx *Ctx, args []arrow.Array, n int) (arrow.Array, error) {
		b := array.NewStringBuilder(ctx.Allocator())
		defer b.Release()
		var sb strings.Builder
		for i := 0; i < n; i++ {
			if args[0].IsNull(i) {
				b.AppendNull()
				continue
			}
			sep := valueText(ctx, argTypes[0], args[0], i)
			sb.Reset()
			first := true
			add := func(s string) {
				if !first {
					sb.WriteString(sep)
				}
				first = false
				sb.WriteString(s)
			}
			for j := 1; j < len(args); j++ {
				if args[j].IsNull(i) {
					continue
				}
				if !argTypes[j].IsArray() {
					add(valueText(ctx, argTypes[j], args[j], i))
					continue
				}
				vals, s, e, ok := listBounds(args[j], i)
				if !ok {
					return nil, sqlerr.New(sqlerr.InternalError, "concat_ws: not an array column")
				}
				for k := s; k < e; k++ {
					if !vals.IsNull(k) {
						add(valueText(ctx, argTypes[j].Elem(), vals, k))
					}
				}
			}
			b.Append(sb.String())
		}
		return b.NewArray(), nil
	}
}

func init() {
	nvl := Overload{Args: []types.T{AnyElement, AnyElement}, RetFn: firstArgType,
		Specialize: func(args []types.T, ret types.T) ScalarImpl {
			return pickKernel(ret, func(a []arrow.Array, i int) int {
				if a[0].IsNull(i) {
					return 1
				}
				return 0
			})
		}}
	nvl.Impl = nvl.Specialize([]types.T{types.Text, types.Text}, types.Text)
	RegisterScalar("nvl", nvl)
	RegisterScalar("ifnull", nvl)
	nvl2 := Overload{Args: []types.T{Any, AnyElement, AnyElement}, RetFn: func(a []types.T) types.T { return a[1] },
		Specialize: func(args []types.T, ret types.T) ScalarImpl {
			return pickKernel(ret, func(a []arrow.Array, i int) int {
				if a[0].IsNull(i) {
					return 2
				}
				return 1
			})
		}}
	nvl2.Impl = nvl2.Specialize([]types.T{types.Text, types.Text, types.Text}, types.Text)
	RegisterScalar("nvl2", nvl2)

	RegisterScalar("array_contains", Overload{Args: []types.T{AnyArray, AnyElement}, Ret: types.Bool, Specialize: arrayContains,
		Impl: arrayContains([]types.T{types.ArrayOf(types.Text), types.Text}, types.Bool)})
	RegisterScalar("size", Overload{Args: []types.T{AnyArray}, Ret: types.Int4, Impl: arraySize})
	RegisterScalar("array_size", Overload{Args: []types.T{AnyArray}, Ret: types.Int4, Impl: arraySize})
	for _, name := range []string{"element_at", "try_element_at"} {
		try := name == "try_element_at"
		for _, it := range []types.T{types.Int4, types.Int8} {
			ov := Overload{Args: []types.T{AnyArray, it}, RetFn: func(a []types.T) types.T { return a[0].Elem() }, Specialize: elementAt(try)}
			ov.Impl = elementAt(try)([]types.T{types.ArrayOf(types.Text), it}, types.Text)
			RegisterScalar(name, ov)
		}
	}
}

// arrayPositions is _posexplode_positions(array): the 0-based positions
// of the array's elements as int[], which FROM posexplode(array) unnests
// beside the array (the planner's spelling of Databricks' posexplode).
func arrayPositions(ctx *Ctx, args []arrow.Array, n int) (arrow.Array, error) {
	lb := NewBuilder(ctx.Allocator(), types.ArrayOf(types.Int4)).(*array.ListBuilder)
	defer lb.Release()
	vb := lb.ValueBuilder().(*array.Int32Builder)
	for i := 0; i < n; i++ {
		if args[0].IsNull(i) {
			lb.AppendNull()
			continue
		}
		_, s, e, ok := listBounds(args[0], i)
		if !ok {
			return nil, sqlerr.New(sqlerr.InternalError, "posexplode: not an array column")
		}
		lb.Append(true)
		for k := 0; k < e-s; k++ {
			vb.Append(int32(k))
		}
	}
	return lb.NewArray(), nil
}

func init() {
	RegisterScalar("_posexplode_positions", Overload{Args: []types.T{AnyArray}, Ret: types.ArrayOf(types.Int4), Impl: arrayPositions})
}

// outerArray is _explode_outer_array(array): the array itself, or one
// NULL element for a NULL or empty array (explode_outer is unnest of it:
// one row of NULL where explode gives none).
func outerArray(argTypes []types.T, ret types.T) ScalarImpl {
	return func(ctx *Ctx, args []arrow.Array, n int) (arrow.Array, error) {
		b := NewBuilder(ctx.Allocator(), ret)
		defer b.Release()
		b.Reserve(n)
		for i := 0; i < n; i++ {
			if !args[0].IsNull(i) {
				if _, s, e, ok := listBounds(args[0], i); ok && e > s {
					AppendDatum(b, DatumAt(args[0], i))
					continue
				}
			}
			AppendDatum(b, []Datum{nil})
		}
		return b.NewArray(), nil
	}
}

func init() {
	ov := Overload{Args: []types.T{AnyArray}, RetFn: firstArgType, Specialize: outerArray}
	ov.Impl = outerArray([]types.T{types.ArrayOf(types.Text)}, types.ArrayOf(types.Text))
	RegisterScalar("_explode_outer_array", ov)
}
