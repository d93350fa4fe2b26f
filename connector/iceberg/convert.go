package iceberg

import (
	"strconv"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/decimal128"
	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/weir-sql/weir/sql/sqlerr"
	"github.com/weir-sql/weir/sql/types"
)

// converter turns the streaming table's batches (weir's Arrow
// representation, sql/types) into batches of the Iceberg table's Arrow
// schema, whose fields carry the Iceberg field IDs the writer matches
// columns by. Most columns pass through as they are (the same array);
// smallint is widened and numeric parsed from its text, a column at a
// time.
type converter struct {
	cols   []Column
	kinds  []convKind
	schema *arrow.Schema // the Iceberg table's, with field IDs
	mem    memory.Allocator
}

// convert returns b as a batch of c.schema; the caller releases it.
func (c *converter) convert(b arrow.RecordBatch) (arrow.RecordBatch, error) {
	if int(b.NumCols()) != len(c.cols) {
		return nil, sqlerr.New(sqlerr.InternalError, "iceberg sink: a batch of %d columns for a table of %d", b.NumCols(), len(c.cols))
	}
	return c.convertColumns(b.Columns(), b.NumRows())
}

// convertColumns is convert of the table's columns of a batch (a change
// feed's batch has more after them).
func (c *converter) convertColumns(cols []arrow.Array, rows int64) (arrow.RecordBatch, error) {
	out := make([]arrow.Array, len(c.cols))
	defer func() {
		for _, a := range out {
			if a != nil {
				a.Release()
			}
		}
	}()
	for i, k := range c.kinds {
		col := cols[i]
		want := c.schema.Field(i).Type
		switch k {
		case convSame:
			if !arrow.TypeEqual(col.DataType(), want) {
				return nil, sqlerr.New(sqlerr.InternalError, "iceberg sink: column \"%s\" arrives as %s, the Iceberg table's is %s",
					c.cols[i].Name, col.DataType(), want)
			}
			col.Retain()
			out[i] = col
		case convInt16:
			a, err := widenInt16(c.mem, col)
			if err != nil {
				return nil, err
			}
			out[i] = a
		case convNumeric:
			a, err := numericToDecimal(c.mem, c.cols[i], col, want.(*arrow.Decimal128Type))
			if err != nil {
				return nil, err
			}
			out[i] = a
		}
	}
	return array.NewRecordBatch(c.schema, out, rows), nil
}

func widenInt16(mem memory.Allocator, col arrow.Array) (arrow.Array, error) {
	in, ok := col.(*array.Int16)
	if !ok {
		return nil, sqlerr.New(sqlerr.InternalError, "iceberg sink: a smallint column arrives as %s", col.DataType())
	}
	bld := array.NewInt32Builder(mem)
	defer bld.Release()
	bld.Reserve(in.Len())
	for i, v := range in.Int16Values() {
		if in.IsNull(i) {
			bld.UnsafeAppendBoolToBitmap(false)
			continue
		}
		bld.UnsafeAppend(int32(v))
	}
	return bld.NewArray(), nil
}

// numericToDecimal parses numeric's canonical decimal text into
// decimal128 values of the column's scale. weir keeps a numeric(p,s)
// column's values coerced to its modifier; a value with more fractional
// digits is rounded as PostgreSQL's cast would (CoerceNumeric), and one
// that does not fit, or NaN, is 22003.
func numericToDecimal(mem memory.Allocator, c Column, col arrow.Array, dt *arrow.Decimal128Type) (arrow.Array, error) {
	in, ok := col.(*array.String)
	if !ok {
		return nil, sqlerr.New(sqlerr.InternalError, "iceberg sink: a numeric column arrives as %s", col.DataType())
	}
	bld := array.NewDecimal128Builder(mem, dt)
	defer bld.Release()
	bld.Reserve(in.Len())
	for i := 0; i < in.Len(); i++ {
		if in.IsNull(i) {
			bld.UnsafeAppendBoolToBitmap(false)
			continue
		}
		n, err := parseDecimal(in.Value(i), int(dt.Precision), int(dt.Scale))
		if err != nil {
			if sqlerr.Code(err) != sqlerr.InvalidTextRepresentation {
				return nil, err
			}
			// More fractional digits than the scale: round as the cast does.
			text, cerr := types.CoerceNumeric(in.Value(i), c.Type.Typmod)
			if cerr != nil {
				return nil, cerr
			}
			if n, err = parseDecimal(text, int(dt.Precision), int(dt.Scale)); err != nil {
				return nil, err
			}
		}
		bld.UnsafeAppend(n)
	}
	return bld.NewArray(), nil
}

var ten = decimal128.FromU64(10)

// parseDecimal parses canonical decimal text (-?digits[.digits]) as an
// integer scaled by 10^scale, with at most prec digits. An error coded
// 22P02 says the text has more fractional digits than scale (or is not
// canonical); 22003 that the value does not fit (or is NaN/Infinity).
func parseDecimal(s string, prec, scale int) (decimal128.Num, error) {
	if s == "NaN" || s == "Infinity" || s == "-Infinity" {
		return decimal128.Num{}, sqlerr.New(sqlerr.NumericValueOutOfRange, "cannot write numeric value %s to an Iceberg decimal column", s)
	}
	neg := false
	if len(s) > 0 && s[0] == '-' {
		neg, s = true, s[1:]
	}
	var acc decimalDigits
	intDigits, frac, seenPoint := 0, 0, false
	for i := 0; i < len(s); i++ {
		ch := s[i]
		switch {
		case ch == '.' && !seenPoint:
			seenPoint = true
			continue
		case ch < '0' || ch > '9':
			return decimal128.Num{}, sqlerr.New(sqlerr.InvalidTextRepresentation, "invalid numeric text %q", s)
		}
		if seenPoint {
			if frac++; frac > scale {
				return decimal128.Num{}, sqlerr.New(sqlerr.InvalidTextRepresentation, "more fractional digits than the scale")
			}
		} else if intDigits > 0 || ch != '0' {
			intDigits++ // significant integer digits: leading zeros count for nothing
		}
		acc.push(ch - '0')
	}
	for ; frac < scale; frac++ {
		acc.push(0)
	}
	if intDigits > prec-scale {
		return decimal128.Num{}, sqlerr.New(sqlerr.NumericValueOutOfRange, "numeric field overflow").
			WithDetail("A field with precision " + strconv.Itoa(prec) + ", scale " + strconv.Itoa(scale) + " cannot hold " + sign(neg) + s + ".")
	}
	n := acc.num()
	if neg {
		n = n.Negate()
	}
	return n, nil
}

// decimalDigits accumulates decimal digits into an integer: in a uint64
// while it stays below 10^18, then in 128 bits.
type decimalDigits struct {
	small uint64
	big   decimal128.Num
	wide  bool
}

func (a *decimalDigits) push(d byte) {
	if !a.wide && a.small < 1e17 {
		a.small = a.small*10 + uint64(d)
		return
	}
	if !a.wide {
		a.big, a.wide = decimal128.FromU64(a.small), true
	}
	a.big = a.big.Mul(ten).Add(decimal128.FromU64(uint64(d)))
}

func (a *decimalDigits) num() decimal128.Num {
	if a.wide {
		return a.big
	}
	return decimal128.FromU64(a.small)
}

func sign(neg bool) string {
	if neg {
		return "-"
	}
	return ""
}
