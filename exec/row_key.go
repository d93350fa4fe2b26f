package exec

import (
	"encoding/binary"
	"fmt"
	"math"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"

	"github.com/weir-sql/weir/sql/expr"
)

// appendRowKey appends to buf a byte string identifying the values of row
// i of cols: equal for values a GROUP BY puts in one group, different
// otherwise (for the types below; -0 and 0 are one float, as are all
// NaNs). Session partitions and deduplication keys are map keys built
// this way, without formatting or boxing the values.
func appendRowKey(buf []byte, cols []arrow.Array, i int) []byte {
	for _, a := range cols {
		if a.IsNull(i) {
			buf = append(buf, 0)
			continue
		}
		switch c := a.(type) {
		case *array.Int64:
			buf = appendTagged(buf, 1, uint64(c.Value(i)))
		case *array.Int32:
			buf = appendTagged(buf, 1, uint64(int64(c.Value(i))))
		case *array.Int16:
			buf = appendTagged(buf, 1, uint64(int64(c.Value(i))))
		case *array.Uint32:
			buf = appendTagged(buf, 1, uint64(c.Value(i)))
		case *array.Date32:
			buf = appendTagged(buf, 1, uint64(int64(c.Value(i))))
		case *array.Time64:
			buf = appendTagged(buf, 1, uint64(c.Value(i)))
		case *array.Timestamp:
			buf = appendTagged(buf, 1, uint64(c.Value(i)))
		case *array.Float64:
			buf = appendTagged(buf, 2, floatKey(c.Value(i)))
		case *array.Float32:
			buf = appendTagged(buf, 2, floatKey(float64(c.Value(i))))
		case *array.Boolean:
			v := byte(0)
			if c.Value(i) {
				v = 1
			}
			buf = append(buf, 3, v)
		case *array.String:
			buf = appendBytes(buf, 4, []byte(c.Value(i)))
		case *array.Binary:
			buf = appendBytes(buf, 5, c.Value(i))
		case *array.MonthDayNanoInterval:
			v := c.Value(i)
			buf = append(buf, 6)
			buf = binary.BigEndian.AppendUint32(buf, uint32(v.Months))
			buf = binary.BigEndian.AppendUint32(buf, uint32(v.Days))
			buf = binary.BigEndian.AppendUint64(buf, uint64(v.Nanoseconds))
		default:
			// Other types (arrays, fixed-size binary): their Go syntax.
			buf = appendBytes(buf, 7, fmt.Appendf(nil, "%#v", expr.DatumAt(a, i)))
		}
	}
	return buf
}

func appendTagged(buf []byte, tag byte, v uint64) []byte {
	return binary.BigEndian.AppendUint64(append(buf, tag), v)
}

func appendBytes(buf []byte, tag byte, b []byte) []byte {
	buf = binary.AppendUvarint(append(buf, tag), uint64(len(b)))
	return append(buf, b...)
}

// floatKey maps equal floats (0 and -0, every NaN) to one key.
func floatKey(f float64) uint64 {
	switch {
	case f == 0:
		return 0
	case math.IsNaN(f):
		return math.Float64bits(math.NaN())
	}
	return math.Float64bits(f)
}
