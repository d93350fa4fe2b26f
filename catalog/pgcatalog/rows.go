package pgcatalog

import (
	"time"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/weir-sql/weir/catalog"
	"github.com/weir-sql/weir/sql/sqlerr"
	"github.com/weir-sql/weir/sql/types"
)

// Column types used by the catalogs that sql/types has no variable for.
var (
	oidArray     = types.ArrayOf(types.Oid)
	textArray    = types.ArrayOf(types.Text)
	charArray    = types.ArrayOf(types.Char)
	int2Array    = types.ArrayOf(types.Int2)
	aclitemArray = types.ArrayOf(types.T{OID: types.OidACLItem, Typmod: -1})
	int2Vector   = types.T{OID: types.OidInt2Vector, Typmod: -1}
	oidVector    = types.T{OID: types.OidOidVector, Typmod: -1}
	xid          = types.T{OID: types.OidXid, Typmod: -1}
	anyArray     = types.T{OID: types.OidAnyArray, Typmod: -1}
	// yesOrNo is information_schema.yes_or_no: varchar(3).
	yesOrNo = types.T{OID: types.OidVarchar, Typmod: 3 + 4}
)

// col declares a nullable column without default, as all catalog columns
// are to weir (it never writes them).
func col(name string, t types.T) catalog.Column {
	return catalog.Column{Name: name, Type: t}
}

func arrowSchema(cols []catalog.Column) *arrow.Schema {
	fields := make([]arrow.Field, len(cols))
	for i, c := range cols {
		fields[i] = arrow.Field{Name: c.Name, Type: c.Type.Arrow(), Nullable: true}
	}
	return arrow.NewSchema(fields, nil)
}

// rowBuilder accumulates rows of a virtual relation. Values are Go values
// matching the column's Arrow representation (string, uint32, int16/32/64
// or int, bool, float32/64, time.Time, []string/[]uint32/[]int16 for lists,
// []byte for bytea); nil is NULL; a byte is a one-letter "char". The first
// mismatch is remembered and returned by finish, so callers can add rows
// without checking each.
type rowBuilder struct {
	b   *array.RecordBuilder
	err error
}

func newRows(cols []catalog.Column) *rowBuilder {
	return &rowBuilder{b: array.NewRecordBuilder(memory.DefaultAllocator, arrowSchema(cols))}
}

// emptyRows is the Rows function of relations that never have rows.
func emptyRows(cols []catalog.Column) func(*Snapshot) (arrow.RecordBatch, error) {
	return func(*Snapshot) (arrow.RecordBatch, error) { return newRows(cols).finish() }
}

func (r *rowBuilder) add(vals ...any) {
	if r.err != nil {
		return
	}
	if n := len(r.b.Fields()); len(vals) != n {
		r.err = sqlerr.New(sqlerr.InternalError, "pgcatalog: row of %d values for %d columns", len(vals), n)
		return
	}
	for i, v := range vals {
		if err := appendValue(r.b.Field(i), v); err != nil {
			r.err = sqlerr.New(sqlerr.InternalError, "pgcatalog: column %s: %v", r.b.Schema().Field(i).Name, err)
			return
		}
	}
}

func (r *rowBuilder) finish() (arrow.RecordBatch, error) {
	defer r.b.Release()
	if r.err != nil {
		return nil, r.err
	}
	return r.b.NewRecordBatch(), nil
}

func appendValue(b array.Builder, v any) error {
	if v == nil {
		b.AppendNull()
		return nil
	}
	ok := true
	switch bb := b.(type) {
	case *array.StringBuilder:
		switch x := v.(type) {
		case string:
			bb.Append(x)
		case byte:
			bb.Append(string(rune(x)))
		default:
			ok = false
		}
	case *array.Uint32Builder:
		x, isU := v.(uint32)
		if ok = isU; ok {
			bb.Append(x)
		}
	case *array.Int16Builder:
		switch x := v.(type) {
		case int16:
			bb.Append(x)
		case int:
			bb.Append(int16(x))
		default:
			ok = false
		}
	case *array.Int32Builder:
		switch x := v.(type) {
		case int32:
			bb.Append(x)
		case int:
			bb.Append(int32(x))
		default:
			ok = false
		}
	case *array.Int64Builder:
		switch x := v.(type) {
		case int64:
			bb.Append(x)
		case int:
			bb.Append(int64(x))
		default:
			ok = false
		}
	case *array.Float32Builder:
		x, isF := v.(float32)
		if ok = isF; ok {
			bb.Append(x)
		}
	case *array.Float64Builder:
		x, isF := v.(float64)
		if ok = isF; ok {
			bb.Append(x)
		}
	case *array.BooleanBuilder:
		x, isB := v.(bool)
		if ok = isB; ok {
			bb.Append(x)
		}
	case *array.TimestampBuilder:
		x, isT := v.(time.Time)
		if ok = isT; ok {
			bb.Append(arrow.Timestamp(x.UnixMicro()))
		}
	case *array.BinaryBuilder:
		x, isB := v.([]byte)
		if ok = isB; ok {
			bb.Append(x)
		}
	case *array.ListBuilder:
		return appendList(bb, v)
	default:
		return sqlerr.New(sqlerr.InternalError, "unsupported builder %T", b)
	}
	if !ok {
		return sqlerr.New(sqlerr.InternalError, "value %v (%T) does not fit %T", v, v, b)
	}
	return nil
}

func appendList(b *array.ListBuilder, v any) error {
	var elems []any
	switch x := v.(type) {
	case []string:
		for _, e := range x {
			elems = append(elems, e)
		}
	case []uint32:
		for _, e := range x {
			elems = append(elems, e)
		}
	case []int16:
		for _, e := range x {
			elems = append(elems, e)
		}
	case []any:
		elems = x
	default:
		return sqlerr.New(sqlerr.InternalError, "value %v (%T) is not a list", v, v)
	}
	b.Append(true)
	for _, e := range elems {
		if err := appendValue(b.ValueBuilder(), e); err != nil {
			return err
		}
	}
	return nil
}
