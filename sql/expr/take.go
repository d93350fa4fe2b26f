package expr

import (
	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
)

// takeVarBytes copies rows idx of a string or binary array with the
// builder's data buffer sized once: the sum of the values' lengths is
// known before the first append, so nothing is moved as it grows (a
// join's output copies every kept row's strings).
func takeVarBytes(a interface {
	IsNull(int) bool
	ValueLen(int) int
}, b interface {
	ReserveData(int)
}, idx []int, appendOne func(i int)) {
	total := 0
	for _, i := range idx {
		if !a.IsNull(i) {
			total += a.ValueLen(i)
		}
	}
	b.ReserveData(total)
	for _, i := range idx {
		appendOne(i)
	}
}

// takeFast copies rows idx of arr for the types whose values need no
// boxing; ok is false for the others.
func takeFast(arr arrow.Array, b array.Builder, idx []int) (arrow.Array, bool) {
	switch a := arr.(type) {
	case *array.Int64:
		return takeTyped(a, b.(*array.Int64Builder), idx), true
	case *array.Int32:
		return takeTyped(a, b.(*array.Int32Builder), idx), true
	case *array.Int16:
		return takeTyped(a, b.(*array.Int16Builder), idx), true
	case *array.Uint32:
		return takeTyped(a, b.(*array.Uint32Builder), idx), true
	case *array.Float64:
		return takeTyped(a, b.(*array.Float64Builder), idx), true
	case *array.Float32:
		return takeTyped(a, b.(*array.Float32Builder), idx), true
	case *array.Boolean:
		return takeTyped(a, b.(*array.BooleanBuilder), idx), true
	case *array.Date32:
		return takeTyped(a, b.(*array.Date32Builder), idx), true
	case *array.Time64:
		return takeTyped(a, b.(*array.Time64Builder), idx), true
	case *array.Timestamp:
		return takeTyped(a, b.(*array.TimestampBuilder), idx), true
	case *array.MonthDayNanoInterval:
		return takeTyped(a, b.(*array.MonthDayNanoIntervalBuilder), idx), true
	case *array.String:
		sb := b.(*array.StringBuilder)
		takeVarBytes(a, sb, idx, func(i int) {
			if a.IsNull(i) {
				sb.AppendNull()
			} else {
				sb.Append(a.Value(i))
			}
		})
		return sb.NewArray(), true
	case *array.Binary:
		bb := b.(*array.BinaryBuilder)
		takeVarBytes(a, bb, idx, func(i int) {
			if a.IsNull(i) {
				bb.AppendNull()
			} else {
				bb.Append(a.Value(i))
			}
		})
		return bb.NewArray(), true
	}
	return nil, false
}
