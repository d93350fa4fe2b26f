package exec

import (
	"math"
	"strings"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/cockroachdb/apd/v3"

	"github.com/weir-sql/weir/sql/expr"
	"github.com/weir-sql/weir/sql/types"
)

// valueKind is how a column's values are held for hashing and comparing.
// The common key types get a typed representation so that the hot loops of
// aggregation, joins and sorting run over plain slices.
type valueKind uint8

const (
	// kindInt: integers, oids, bool, date, time, timestamps and intervals
	// (by their normalised span in microseconds, as PostgreSQL compares them).
	kindInt valueKind = iota
	// kindFloat: float4/float8; NaN equals NaN and sorts above everything.
	kindFloat
	// kindString: text-like values, compared by bytes (C collation).
	kindString
	// kindNumeric: numeric for sorting, parsed to apd decimals.
	kindNumeric
	// kindEncoded: any other type, for hashing only: a canonical byte
	// encoding in which equal values (numeric 1.0 and 1.00) are equal.
	kindEncoded
	// kindDatum: any other type, for sorting only, through expr.Datum.
	kindDatum
)

func kindOf(t types.T, forSort bool) valueKind {
	switch t.Arrow().ID() {
	case arrow.BOOL, arrow.INT16, arrow.INT32, arrow.INT64, arrow.UINT32, arrow.DATE32,
		arrow.TIME64, arrow.TIMESTAMP, arrow.INTERVAL_MONTH_DAY_NANO:
		return kindInt
	case arrow.FLOAT32, arrow.FLOAT64:
		return kindFloat
	case arrow.STRING:
		if t.OID == types.OidNumeric {
			if forSort {
				return kindNumeric
			}
			return kindEncoded
		}
		if t.OID == types.OidJSONB && !forSort {
			return kindEncoded
		}
		return kindString
	}
	if forSort {
		return kindDatum
	}
	return kindEncoded
}

// colVec is one column of values in their typed representation. For a
// batch it is scratch space reused from batch to batch; a groupTable keeps
// one per key column for the stored groups.
type colVec struct {
	kind   valueKind
	t      types.T
	ints   []int64
	floats []float64
	strs   []string
	decs   []apd.Decimal
	datums []expr.Datum
	nulls  []bool // nil when the column has no NULLs
}

const usPerDay = 86400 * 1000000

// intervalSpan is an interval's total length in microseconds with months
// as 30 days, the value PostgreSQL's interval comparison uses.
func intervalSpan(v arrow.MonthDayNanoInterval) int64 {
	return int64(v.Months)*30*usPerDay + int64(v.Days)*usPerDay + v.Nanoseconds/1000
}

// load fills v with the n values of arr, which holds values of t.
func (v *colVec) load(arr arrow.Array, t types.T, forSort bool) {
	n := arr.Len()
	v.t = t
	v.kind = kindOf(t, forSort)
	v.nulls = v.nulls[:0]
	if arr.NullN() > 0 {
		v.nulls = growBools(v.nulls, n)
		for i := 0; i < n; i++ {
			v.nulls[i] = arr.IsNull(i)
		}
	} else {
		v.nulls = nil
	}
	switch v.kind {
	case kindInt:
		v.ints = growInts(v.ints, n)
		loadInts(v.ints, arr)
	case kindFloat:
		v.floats = growFloats(v.floats, n)
		switch a := arr.(type) {
		case *array.Float64:
			for i, x := range a.Float64Values() {
				v.floats[i] = normFloat(x)
			}
		case *array.Float32:
			for i, x := range a.Float32Values() {
				v.floats[i] = normFloat(float64(x))
			}
		}
	case kindString:
		v.strs = growStrings(v.strs, n)
		a := arr.(*array.String)
		trim := t.OID == types.OidBpchar
		for i := 0; i < n; i++ {
			s := a.Value(i)
			if trim {
				s = strings.TrimRight(s, " ")
			}
			v.strs[i] = s
		}
	case kindNumeric:
		if cap(v.decs) < n {
			v.decs = make([]apd.Decimal, n)
		}
		v.decs = v.decs[:n]
		a := arr.(*array.String)
		for i := 0; i < n; i++ {
			if !a.IsNull(i) {
				if _, _, err := v.decs[i].SetString(a.Value(i)); err != nil {
					v.decs[i].SetInt64(0)
				}
			}
		}
	case kindEncoded:
		v.strs = growStrings(v.strs, n)
		var buf []byte
		for i := 0; i < n; i++ {
			if arr.IsNull(i) {
				v.strs[i] = ""
				continue
			}
			buf = encodeDatum(buf[:0], t, expr.DatumAt(arr, i))
			v.strs[i] = string(buf)
		}
	case kindDatum:
		if cap(v.datums) < n {
			v.datums = make([]expr.Datum, n)
		}
		v.datums = v.datums[:n]
		for i := 0; i < n; i++ {
			v.datums[i] = expr.DatumAt(arr, i)
		}
	}
	v.clearNullSlots(n)
}

// clearNullSlots zeroes the values under NULLs. Arrow leaves whatever a
// kernel wrote there, and hashing reads the value before it looks at the
// NULL flag, so two NULLs must carry the same value to hash alike.
func (v *colVec) clearNullSlots(n int) {
	if v.nulls == nil {
		return
	}
	for i, isNull := range v.nulls[:n] {
		if !isNull {
			continue
		}
		switch v.kind {
		case kindInt:
			v.ints[i] = 0
		case kindFloat:
			v.floats[i] = 0
		case kindNumeric:
			v.decs[i].SetInt64(0)
		case kindString, kindEncoded:
			v.strs[i] = ""
		}
	}
}

func loadInts(dst []int64, arr arrow.Array) {
	switch a := arr.(type) {
	case *array.Int64:
		copy(dst, a.Int64Values())
	case *array.Int32:
		for i, x := range a.Int32Values() {
			dst[i] = int64(x)
		}
	case *array.Int16:
		for i, x := range a.Int16Values() {
			dst[i] = int64(x)
		}
	case *array.Uint32:
		for i, x := range a.Uint32Values() {
			dst[i] = int64(x)
		}
	case *array.Timestamp:
		for i, x := range a.TimestampValues() {
			dst[i] = int64(x)
		}
	case *array.Date32:
		for i, x := range a.Date32Values() {
			dst[i] = int64(x)
		}
	case *array.Time64:
		for i, x := range a.Time64Values() {
			dst[i] = int64(x)
		}
	case *array.Boolean:
		for i := range dst {
			if a.Value(i) {
				dst[i] = 1
			} else {
				dst[i] = 0
			}
		}
	case *array.MonthDayNanoInterval:
		for i, x := range a.MonthDayNanoIntervalValues() {
			dst[i] = intervalSpan(x)
		}
	}
}

func normFloat(x float64) float64 {
	if x == 0 {
		return 0 // -0 equals 0
	}
	if x != x {
		return math.NaN()
	}
	return x
}

func (v *colVec) isNull(i int) bool { return v.nulls != nil && v.nulls[i] }

// compare orders non-null values i of v and j of w (same kind).
func (v *colVec) compare(i int, w *colVec, j int) int {
	switch v.kind {
	case kindInt:
		a, b := v.ints[i], w.ints[j]
		if a < b {
			return -1
		}
		if a > b {
			return 1
		}
		return 0
	case kindFloat:
		return compareFloat(v.floats[i], w.floats[j])
	case kindString, kindEncoded:
		return strings.Compare(v.strs[i], w.strs[j])
	case kindNumeric:
		return v.decs[i].Cmp(&w.decs[j])
	default:
		return compareDatum(v.datums[i], w.datums[j])
	}
}

// compareFloat orders floats as PostgreSQL: NaN is equal to NaN and larger
// than any other value.
func compareFloat(a, b float64) int {
	switch {
	case a < b:
		return -1
	case a > b:
		return 1
	case a == b:
		return 0
	}
	an, bn := a != a, b != b
	switch {
	case an && bn:
		return 0
	case an:
		return 1
	}
	return -1
}

// compareDatum orders two non-null datums of the same type (the rare types
// without a typed representation).
func compareDatum(a, b expr.Datum) int {
	if a == nil || b == nil {
		switch {
		case a == nil && b == nil:
			return 0
		case a == nil:
			return 1
		}
		return -1
	}
	switch x := a.(type) {
	case bool:
		y := b.(bool)
		if x == y {
			return 0
		}
		if !x {
			return -1
		}
		return 1
	case int64:
		y := b.(int64)
		if x < y {
			return -1
		} else if x > y {
			return 1
		}
		return 0
	case float64:
		return compareFloat(x, b.(float64))
	case string:
		return strings.Compare(x, b.(string))
	case []byte:
		return strings.Compare(string(x), string(b.([]byte)))
	case arrow.MonthDayNanoInterval:
		s, t := intervalSpan(x), intervalSpan(b.(arrow.MonthDayNanoInterval))
		if s < t {
			return -1
		} else if s > t {
			return 1
		}
		return 0
	case []expr.Datum:
		y := b.([]expr.Datum)
		for k := 0; k < len(x) && k < len(y); k++ {
			if c := compareDatum(x[k], y[k]); c != 0 {
				return c
			}
		}
		return len(x) - len(y)
	}
	return 0
}

// encodeDatum appends a canonical encoding of d: equal SQL values encode
// equally (numerics by value, intervals by span).
func encodeDatum(buf []byte, t types.T, d expr.Datum) []byte {
	switch x := d.(type) {
	case nil:
		return append(buf, 0)
	case bool:
		if x {
			return append(buf, 1, 1)
		}
		return append(buf, 1, 0)
	case int64:
		buf = append(buf, 2)
		return appendUint64(buf, uint64(x))
	case float64:
		buf = append(buf, 3)
		return appendUint64(buf, math.Float64bits(normFloat(x)))
	case string:
		if t.OID == types.OidNumeric {
			x = normalizeNumeric(x)
		}
		buf = append(buf, 4)
		buf = appendUint64(buf, uint64(len(x)))
		return append(buf, x...)
	case []byte:
		buf = append(buf, 5)
		buf = appendUint64(buf, uint64(len(x)))
		return append(buf, x...)
	case arrow.MonthDayNanoInterval:
		buf = append(buf, 6)
		return appendUint64(buf, uint64(intervalSpan(x)))
	case []expr.Datum:
		buf = append(buf, 7)
		buf = appendUint64(buf, uint64(len(x)))
		et := t
		if t.IsArray() {
			et = t.Elem()
		}
		for _, e := range x {
			buf = encodeDatum(buf, et, e)
		}
		return buf
	}
	return append(buf, 9)
}

func appendUint64(buf []byte, x uint64) []byte {
	return append(buf, byte(x), byte(x>>8), byte(x>>16), byte(x>>24), byte(x>>32), byte(x>>40), byte(x>>48), byte(x>>56))
}

// normalizeNumeric gives one spelling per numeric value (1.0 and 1.00 are
// the same group).
func normalizeNumeric(s string) string {
	var d apd.Decimal
	if _, _, err := d.SetString(s); err != nil {
		return s
	}
	if d.Form != apd.Finite {
		return d.String()
	}
	if d.IsZero() {
		return "0"
	}
	d.Reduce(&d)
	return d.String()
}

func growInts(s []int64, n int) []int64 {
	if cap(s) < n {
		return make([]int64, n)
	}
	return s[:n]
}

func growFloats(s []float64, n int) []float64 {
	if cap(s) < n {
		return make([]float64, n)
	}
	return s[:n]
}

func growStrings(s []string, n int) []string {
	if cap(s) < n {
		return make([]string, n)
	}
	return s[:n]
}

func growBools(s []bool, n int) []bool {
	if cap(s) < n {
		return make([]bool, n)
	}
	return s[:n]
}
