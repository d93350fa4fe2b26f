package types

import (
	"encoding/binary"
	"math"
	"strconv"
	"strings"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"

	"github.com/weir-sql/weir/sql/sqlerr"
)

// appendScalarBinary is the typsend function of a non-array type.
func appendScalarBinary(buf []byte, t T, arr arrow.Array, i int) ([]byte, error) {
	be := binary.BigEndian
	switch a := arr.(type) {
	case *array.Boolean:
		if a.Value(i) {
			return append(buf, 1), nil
		}
		return append(buf, 0), nil
	case *array.Int16:
		return be.AppendUint16(buf, uint16(a.Value(i))), nil
	case *array.Int32:
		return be.AppendUint32(buf, uint32(a.Value(i))), nil
	case *array.Int64:
		return be.AppendUint64(buf, uint64(a.Value(i))), nil
	case *array.Uint32:
		return be.AppendUint32(buf, a.Value(i)), nil
	case *array.Float32:
		f := a.Value(i)
		if f != f {
			return be.AppendUint32(buf, canonicalNaN32), nil
		}
		return be.AppendUint32(buf, math.Float32bits(f)), nil
	case *array.Float64:
		f := a.Value(i)
		if f != f {
			return be.AppendUint64(buf, canonicalNaN64), nil
		}
		return be.AppendUint64(buf, math.Float64bits(f)), nil
	case *array.String:
		v := a.Value(i)
		switch t.OID {
		case OidNumeric:
			return appendNumericBinary(buf, v)
		case OidJSONB:
			buf = append(buf, 1)
		case OidChar:
			if len(v) == 0 {
				return append(buf, 0), nil
			}
			return append(buf, v[0]), nil
		case OidInt2Vector, OidOidVector:
			return appendVectorBinary(buf, t, v)
		case OidACLItem, OidPgNodeTree, OidRecord, OidAny, OidAnyArray, OidAnyElement:
			return buf, sqlerr.New(sqlerr.FeatureNotSupported, "no binary output function available for type %s", typeName(t))
		}
		return append(buf, v...), nil
	case *array.Binary:
		return append(buf, a.Value(i)...), nil
	case *array.Date32:
		d := int32(a.Value(i))
		if d != DateInfinity && d != DateNegInfinity {
			d -= PostgresEpochUnixDays
		}
		return be.AppendUint32(buf, uint32(d)), nil
	case *array.Time64:
		return be.AppendUint64(buf, uint64(a.Value(i))), nil
	case *array.Timestamp:
		us := int64(a.Value(i))
		if us != TimestampInfinity && us != TimestampNegInfinity {
			us -= PostgresEpochUnixMicros
		}
		return be.AppendUint64(buf, uint64(us)), nil
	case *array.MonthDayNanoInterval:
		v := a.Value(i)
		buf = be.AppendUint64(buf, uint64(v.Nanoseconds/1000))
		buf = be.AppendUint32(buf, uint32(v.Days))
		return be.AppendUint32(buf, uint32(v.Months)), nil
	case *array.FixedSizeBinary:
		return append(buf, a.Value(i)...), nil
	case *array.Null:
		return buf, nil
	}
	return buf, sqlerr.New(sqlerr.FeatureNotSupported, "binary format for %s is not supported", t)
}

// appendVectorBinary sends int2vector/oidvector (space-separated text in
// weir) as the one-dimensional arrays PostgreSQL sends.
func appendVectorBinary(buf []byte, t T, v string) ([]byte, error) {
	elem, size := OidOid, 4
	if t.OID == OidInt2Vector {
		elem, size = OidInt2, 2
	}
	parts := strings.Fields(v)
	buf = binary.BigEndian.AppendUint32(buf, 1)
	buf = binary.BigEndian.AppendUint32(buf, 0)
	buf = binary.BigEndian.AppendUint32(buf, elem)
	buf = binary.BigEndian.AppendUint32(buf, uint32(len(parts)))
	buf = binary.BigEndian.AppendUint32(buf, 0) // these vectors are zero-based
	for _, p := range parts {
		n, err := strconv.ParseInt(p, 10, 64)
		if err != nil {
			return buf, sqlerr.New(sqlerr.InternalError, "bad %s value %q", typeName(t), v)
		}
		buf = binary.BigEndian.AppendUint32(buf, uint32(size))
		if size == 2 {
			buf = binary.BigEndian.AppendUint16(buf, uint16(n))
		} else {
			buf = binary.BigEndian.AppendUint32(buf, uint32(n))
		}
	}
	return buf, nil
}

// fixedLen checks the exact size of a fixed-width binary value.
func fixedLen(data []byte, n int) error {
	if len(data) < n {
		return errInsufficientData()
	}
	if len(data) > n {
		return errBadBinary("incorrect binary data format")
	}
	return nil
}

// parseBinary is the typreceive function of a non-array type.
func parseBinary(t T, data []byte) (datum, error) {
	be := binary.BigEndian
	switch t.OID {
	case OidBool:
		if err := fixedLen(data, 1); err != nil {
			return datum{}, err
		}
		if data[0] != 0 {
			return datum{i: 1}, nil
		}
		return datum{}, nil
	case OidInt2:
		if err := fixedLen(data, 2); err != nil {
			return datum{}, err
		}
		return datum{i: int64(int16(be.Uint16(data)))}, nil
	case OidInt4:
		if err := fixedLen(data, 4); err != nil {
			return datum{}, err
		}
		return datum{i: int64(int32(be.Uint32(data)))}, nil
	case OidInt8:
		if err := fixedLen(data, 8); err != nil {
			return datum{}, err
		}
		return datum{i: int64(be.Uint64(data))}, nil
	case OidOid, OidRegclass, OidRegtype, OidRegproc, OidRegnamespace, OidRegrole, OidXid:
		if err := fixedLen(data, 4); err != nil {
			return datum{}, err
		}
		return datum{i: int64(be.Uint32(data))}, nil
	case OidFloat4:
		if err := fixedLen(data, 4); err != nil {
			return datum{}, err
		}
		return datum{f: float64(math.Float32frombits(be.Uint32(data)))}, nil
	case OidFloat8:
		if err := fixedLen(data, 8); err != nil {
			return datum{}, err
		}
		return datum{f: math.Float64frombits(be.Uint64(data))}, nil
	case OidNumeric:
		v, err := parseNumericBinary(data)
		if err != nil {
			return datum{}, err
		}
		v, err = CoerceNumeric(v, t.Typmod)
		return datum{s: []byte(v)}, err
	case OidBytea:
		return datum{s: data}, nil
	case OidChar:
		if err := fixedLen(data, 1); err != nil {
			return datum{}, err
		}
		if data[0] == 0 {
			return datum{}, nil
		}
		return datum{s: data}, nil
	case OidJSONB:
		if len(data) < 1 {
			return datum{}, errInsufficientData()
		}
		if data[0] != 1 {
			return datum{}, sqlerr.New(sqlerr.InternalError, "unsupported jsonb version number %d", data[0])
		}
		v, err := normalizeJSONB(data[1:])
		return datum{s: v}, err
	case OidJSON:
		return parseJSON(data)
	case OidDate:
		if err := fixedLen(data, 4); err != nil {
			return datum{}, err
		}
		d := int32(be.Uint32(data))
		if d == DateInfinity || d == DateNegInfinity {
			return datum{i: int64(d)}, nil
		}
		days := int64(d) + PostgresEpochUnixDays
		if days < minDateDays || days > maxDateDays {
			return datum{}, sqlerr.New(sqlerr.DatetimeFieldOverflow, "date out of range")
		}
		return datum{i: days}, nil
	case OidTime:
		if err := fixedLen(data, 8); err != nil {
			return datum{}, err
		}
		us := int64(be.Uint64(data))
		if us < 0 || us > MicrosPerDay {
			return datum{}, sqlerr.New(sqlerr.DatetimeFieldOverflow, "time out of range")
		}
		return datum{i: RoundMicros(us, t.Typmod)}, nil
	case OidTimestamp, OidTimestampTZ:
		if err := fixedLen(data, 8); err != nil {
			return datum{}, err
		}
		us := int64(be.Uint64(data))
		if us == TimestampInfinity || us == TimestampNegInfinity {
			return datum{i: us}, nil
		}
		if us > TimestampInfinity-PostgresEpochUnixMicros-1 || us+PostgresEpochUnixMicros < minTimestampMicros {
			return datum{}, sqlerr.New(sqlerr.DatetimeFieldOverflow, "timestamp out of range")
		}
		return datum{i: RoundMicros(us+PostgresEpochUnixMicros, t.Typmod)}, nil
	case OidInterval:
		if err := fixedLen(data, 16); err != nil {
			return datum{}, err
		}
		iv, err := MakeInterval(int32(be.Uint32(data[12:])), int32(be.Uint32(data[8:])), int64(be.Uint64(data)))
		return datum{iv: iv}, err
	case OidUUID:
		if err := fixedLen(data, 16); err != nil {
			return datum{}, err
		}
		return datum{s: data}, nil
	case OidVoid:
		return datum{}, nil
	case OidText, OidVarchar, OidBpchar, OidName, OidUnknown:
		return parseString(t, data)
	case OidInt2Vector, OidOidVector:
		return parseVectorBinary(t, data)
	}
	return datum{}, sqlerr.New(sqlerr.FeatureNotSupported, "no binary input function available for type %s", typeName(t))
}

// parseVectorBinary reads the array form of int2vector/oidvector back into
// weir's space-separated text.
func parseVectorBinary(t T, data []byte) (datum, error) {
	be := binary.BigEndian
	if len(data) < 12 {
		return datum{}, errInsufficientData()
	}
	ndim, elem := be.Uint32(data), be.Uint32(data[8:])
	data = data[12:]
	want, size := OidOid, 4
	if t.OID == OidInt2Vector {
		want, size = OidInt2, 2
	}
	if ndim > 1 || elem != want {
		return datum{}, errBadBinary("invalid %s data", typeName(t))
	}
	n := 0
	if ndim == 1 {
		if len(data) < 8 {
			return datum{}, errInsufficientData()
		}
		n = int(be.Uint32(data))
		data = data[8:]
	}
	var out []byte
	for k := 0; k < n; k++ {
		if len(data) < 4+size || int(be.Uint32(data)) != size {
			return datum{}, errBadBinary("invalid %s data", typeName(t))
		}
		if k > 0 {
			out = append(out, ' ')
		}
		if size == 2 {
			out = strconv.AppendInt(out, int64(int16(be.Uint16(data[4:]))), 10)
		} else {
			out = strconv.AppendUint(out, uint64(be.Uint32(data[4:])), 10)
		}
		data = data[4+size:]
	}
	if len(data) != 0 {
		return datum{}, errBadBinary("incorrect binary data format")
	}
	return datum{s: out}, nil
}
