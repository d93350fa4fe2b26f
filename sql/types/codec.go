package types

import (
	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"

	"github.com/weir-sql/weir/sql/sqlerr"
)

// AppendText appends the PostgreSQL text form of arr[i] (which must not be
// null) to buf, exactly as PostgreSQL 15 prints it.
func AppendText(buf []byte, t T, arr arrow.Array, i int, fs *FormatSettings) []byte {
	if fs == nil {
		fs = &DefaultFormat
	}
	if t.IsArray() {
		return appendArrayText(buf, t, arr, i, fs)
	}
	if t.IsStruct() {
		return appendStructText(buf, t, arr, i, fs)
	}
	switch a := arr.(type) {
	case *array.Boolean:
		if a.Value(i) {
			return append(buf, 't')
		}
		return append(buf, 'f')
	case *array.Int16:
		return appendInt(buf, int64(a.Value(i)))
	case *array.Int32:
		return appendInt(buf, int64(a.Value(i)))
	case *array.Int64:
		return appendInt(buf, a.Value(i))
	case *array.Uint32:
		return appendInt(buf, int64(a.Value(i)))
	case *array.Float32:
		return AppendFloat32(buf, a.Value(i), fs.ExtraFloatDigits)
	case *array.Float64:
		return AppendFloat64(buf, a.Value(i), fs.ExtraFloatDigits)
	case *array.String:
		if t.OID == OidChar {
			return appendCharText(buf, a.Value(i))
		}
		return append(buf, a.Value(i)...)
	case *array.Binary:
		if fs.ByteaEscape {
			return appendByteaEscape(buf, a.Value(i))
		}
		return appendByteaHex(buf, a.Value(i))
	case *array.Date32:
		return AppendDateStyled(buf, int32(a.Value(i)), fs)
	case *array.Time64:
		return AppendTime(buf, int64(a.Value(i)))
	case *array.Timestamp:
		return AppendTimestampStyled(buf, int64(a.Value(i)), t.OID == OidTimestampTZ, fs)
	case *array.MonthDayNanoInterval:
		return AppendIntervalStyled(buf, a.Value(i), fs.IntervalStyle)
	case *array.FixedSizeBinary:
		return AppendUUID(buf, a.Value(i))
	case *array.Null:
		return buf
	}
	return buf
}

// AppendBinary appends the PostgreSQL binary wire form of arr[i] (not null).
func AppendBinary(buf []byte, t T, arr arrow.Array, i int) ([]byte, error) {
	if t.IsArray() {
		return appendArrayBinary(buf, t, arr, i)
	}
	if t.IsStruct() {
		return appendStructBinary(buf, t, arr, i)
	}
	return appendScalarBinary(buf, t, arr, i)
}

// AppendParsedText parses s as PostgreSQL's input function for t would and
// appends it to b (a builder of t.Arrow()). Errors carry 22P02/22007/22008/22003
// with PostgreSQL's message.
func AppendParsedText(b array.Builder, t T, s []byte, fs *FormatSettings) error {
	if fs == nil {
		fs = &DefaultFormat
	}
	if t.IsArray() {
		return appendParsedArrayText(b, t, s, fs)
	}
	if t.IsStruct() {
		return parseStructText(b, t, s, fs)
	}
	d, err := parseText(t, s, fs)
	if err != nil {
		return err
	}
	return appendDatum(b, t, d)
}

// AppendParsedBinary decodes PostgreSQL's binary form of t and appends it to b.
func AppendParsedBinary(b array.Builder, t T, data []byte) error {
	if t.IsArray() {
		return appendParsedArrayBinary(b, t, data)
	}
	if t.IsStruct() {
		return sqlerr.New(sqlerr.FeatureNotSupported, "binary input of struct values is not supported")
	}
	d, err := parseBinary(t, data)
	if err != nil {
		return err
	}
	return appendDatum(b, t, d)
}

// datum is one decoded value in its Arrow representation, held until it is
// appended. Decoding into a datum first lets an array be validated entirely
// before any element reaches the builder, which cannot take values back.
type datum struct {
	i  int64   // bool (0/1), integers, oid, date, time, timestamp
	f  float64 // float4, float8
	s  []byte  // strings, numeric text, bytea, uuid (16 bytes)
	iv arrow.MonthDayNanoInterval
}

// appendDatum appends d to b, whose type must be t's Arrow type.
func appendDatum(b array.Builder, t T, d datum) error {
	switch bb := b.(type) {
	case *array.BooleanBuilder:
		bb.Append(d.i != 0)
	case *array.Int16Builder:
		bb.Append(int16(d.i))
	case *array.Int32Builder:
		bb.Append(int32(d.i))
	case *array.Int64Builder:
		bb.Append(d.i)
	case *array.Uint32Builder:
		bb.Append(uint32(d.i))
	case *array.Float32Builder:
		bb.Append(float32(d.f))
	case *array.Float64Builder:
		bb.Append(d.f)
	case *array.StringBuilder:
		bb.BinaryBuilder.Append(d.s)
	case *array.BinaryBuilder:
		bb.Append(d.s)
	case *array.Date32Builder:
		bb.Append(arrow.Date32(d.i))
	case *array.Time64Builder:
		bb.Append(arrow.Time64(d.i))
	case *array.TimestampBuilder:
		bb.Append(arrow.Timestamp(d.i))
	case *array.MonthDayNanoIntervalBuilder:
		bb.Append(d.iv)
	case *array.FixedSizeBinaryBuilder:
		bb.Append(d.s)
	case *array.NullBuilder:
		bb.AppendNull()
	default:
		return sqlerr.New(sqlerr.InternalError, "builder %T cannot hold values of type %s", b, t)
	}
	return nil
}

// parseText runs the input function of the scalar type t.
func parseText(t T, s []byte, fs *FormatSettings) (datum, error) {
	switch t.OID {
	case OidBool:
		return parseBool(t, s)
	case OidInt2, OidInt4, OidInt8:
		return parseIntText(t, s)
	case OidOid, OidRegclass, OidRegtype, OidRegproc, OidRegnamespace, OidRegrole, OidXid:
		return parseOidText(t, s)
	case OidFloat4, OidFloat8:
		return parseFloatText(t, s)
	case OidNumeric:
		v, err := ParseNumeric(s)
		if err != nil {
			return datum{}, err
		}
		v, err = CoerceNumeric(v, t.Typmod)
		return datum{s: []byte(v)}, err
	case OidBytea:
		return parseBytea(s)
	case OidDate:
		v, err := parseDateText(t, s, fs)
		return datum{i: int64(v)}, err
	case OidTime:
		v, err := parseTimeText(t, s, fs)
		return datum{i: v}, err
	case OidTimestamp, OidTimestampTZ:
		v, err := parseTimestampText(t, s, fs)
		return datum{i: v}, err
	case OidInterval:
		v, err := parseIntervalBytes(s, t.Typmod)
		return datum{iv: v}, err
	case OidUUID:
		return parseUUID(t, s)
	case OidJSON:
		return parseJSON(s)
	case OidJSONB:
		v, err := normalizeJSONB(s)
		return datum{s: v}, err
	case OidChar:
		return parseChar(s), nil
	case OidVoid:
		return datum{}, nil
	case OidInt2Vector, OidOidVector:
		return parseVectorText(t, s)
	}
	return parseString(t, s)
}
