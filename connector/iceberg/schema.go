package iceberg

import (
	"strconv"

	ice "github.com/apache/iceberg-go"

	"github.com/weir-sql/weir/sql/sqlerr"
	"github.com/weir-sql/weir/sql/types"
)

// Column is one column of the streaming table, with its SQL type: the
// Arrow type alone does not say enough (numeric and jsonb travel as text).
type Column struct {
	Name string
	Type types.T
}

// convKind is how a column's Arrow array becomes the Iceberg column's.
type convKind int

const (
	convSame    convKind = iota // the array is already of the Iceberg column's Arrow type
	convInt16                   // smallint: Iceberg has no 16-bit integer, widened to int
	convNumeric                 // numeric(p,s) text → decimal128(p,s)
)

// columnType maps a weir column to its Iceberg type and the conversion of
// its values, or refuses it (0A000, naming the column).
func columnType(c Column) (ice.Type, convKind, error) {
	switch c.Type.OID {
	case types.OidBool:
		return ice.PrimitiveTypes.Bool, convSame, nil
	case types.OidInt2:
		return ice.PrimitiveTypes.Int32, convInt16, nil
	case types.OidInt4:
		return ice.PrimitiveTypes.Int32, convSame, nil
	case types.OidInt8:
		return ice.PrimitiveTypes.Int64, convSame, nil
	case types.OidFloat4:
		return ice.PrimitiveTypes.Float32, convSame, nil
	case types.OidFloat8:
		return ice.PrimitiveTypes.Float64, convSame, nil
	case types.OidText, types.OidVarchar, types.OidBpchar, types.OidName, types.OidChar,
		types.OidJSON, types.OidJSONB:
		return ice.PrimitiveTypes.String, convSame, nil
	case types.OidBytea:
		return ice.PrimitiveTypes.Binary, convSame, nil
	case types.OidDate:
		return ice.PrimitiveTypes.Date, convSame, nil
	case types.OidTime:
		return ice.PrimitiveTypes.Time, convSame, nil
	case types.OidTimestamp:
		return ice.PrimitiveTypes.Timestamp, convSame, nil
	case types.OidTimestampTZ:
		return ice.PrimitiveTypes.TimestampTz, convSame, nil
	case types.OidNumeric:
		p, s, ok := numericPrecisionScale(c.Type.Typmod)
		if !ok {
			return nil, 0, sqlerr.New(sqlerr.FeatureNotSupported,
				"column \"%s\" of type %s cannot be written to an Iceberg table", c.Name, c.Type).
				WithHint("Iceberg decimals have a precision of at most 38 and a scale from 0 to the precision: cast the column to numeric(p,s) with those bounds, or to double precision.")
		}
		return ice.DecimalTypeOf(p, s), convNumeric, nil
	}
	return nil, 0, sqlerr.New(sqlerr.FeatureNotSupported,
		"column \"%s\" of type %s cannot be written to an Iceberg table", c.Name, c.Type).
		WithHint("Iceberg sinks take boolean, smallint, integer, bigint, real, double precision, numeric(p,s), text, json, jsonb, bytea, date, time, timestamp and timestamptz columns: cast the column to one of them.")
}

// numericPrecisionScale decodes numeric(p,s)'s type modifier (PostgreSQL
// 15's: the scale is an 11-bit signed field), if Iceberg can hold it:
// unconstrained numeric has no precision, and Iceberg's decimals take
// 1 ≤ p ≤ 38 and 0 ≤ s ≤ p.
func numericPrecisionScale(typmod int32) (p, s int, ok bool) {
	if typmod < 4 {
		return 0, 0, false
	}
	m := typmod - 4
	p, s = int((m>>16)&0xffff), int(((m&0x7ff)^1024)-1024)
	return p, s, p >= 1 && p <= 38 && s >= 0 && s <= p
}

// tableSchema is the Iceberg schema of the streaming table's columns:
// field IDs 1..n in column order, every field optional (SQL columns are
// nullable).
func tableSchema(cols []Column) (*ice.Schema, []convKind, error) {
	fields := make([]ice.NestedField, len(cols))
	kinds := make([]convKind, len(cols))
	for i, c := range cols {
		t, k, err := columnType(c)
		if err != nil {
			return nil, nil, err
		}
		fields[i] = ice.NestedField{ID: i + 1, Name: c.Name, Type: t}
		kinds[i] = k
	}
	return ice.NewSchema(0, fields...), kinds, nil
}

// sameShape reports whether an existing Iceberg table's schema is the one
// the streaming table would create (names and types in order), and if not,
// the first column that differs.
func sameShape(have, want *ice.Schema) (bool, string) {
	hf, wf := have.Fields(), want.Fields()
	for i, w := range wf {
		if i >= len(hf) {
			return false, "the Iceberg table has no column \"" + w.Name + "\""
		}
		if hf[i].Name != w.Name || !hf[i].Type.Equals(w.Type) {
			return false, "column " + strconv.Itoa(i+1) + " is \"" + hf[i].Name + "\" " + hf[i].Type.String() +
				" in the Iceberg table, \"" + w.Name + "\" " + w.Type.String() + " in the streaming table"
		}
	}
	if len(hf) > len(wf) {
		return false, "the Iceberg table has more columns (\"" + hf[len(wf)].Name + "\")"
	}
	return true, ""
}
