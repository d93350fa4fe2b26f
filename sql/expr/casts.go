package expr

import (
	"math"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/apache/arrow-go/v18/arrow"

	"github.com/weir-sql/weir/sql/sqlerr"
	"github.com/weir-sql/weir/sql/types"
)

// Casts between built-in types (pg_cast), registered with RegisterCast.
// Pairs not listed fall back to the I/O conversion through text.

type rowCastFn func(ctx *Ctx, d Datum, from, to types.T) (Datum, error)

// rowCast applies fn to every non-null value.
func rowCast(fn rowCastFn) CastImpl {
	return func(ctx *Ctx, arr arrow.Array, from, to types.T) (arrow.Array, error) {
		b := NewBuilder(ctx.Allocator(), to)
		defer b.Release()
		n := arr.Len()
		b.Reserve(n)
		for i := 0; i < n; i++ {
			if arr.IsNull(i) {
				b.AppendNull()
				continue
			}
			d, err := fn(ctx, DatumAt(arr, i), from, to)
			if err != nil {
				return nil, err
			}
			AppendDatum(b, d)
		}
		return b.NewArray(), nil
	}
}

// floatToInt rounds half to even (rint) and range checks.
func floatToInt(f float64, oid uint32) (int64, error) {
	r := math.RoundToEven(f)
	if math.IsNaN(r) || r < -9.223372036854775808e18 || r >= 9.223372036854775808e18 || !intFits(int64(r), oid) {
		return 0, errIntOutOfRange(oid)
	}
	return int64(r), nil
}

// coerceString applies a character type's length to s: varchar(n)
// truncates (explicit cast), bpchar(n) truncates or pads, "char" keeps one
// byte.
func coerceString(s string, to types.T) string {
	switch to.OID {
	case types.OidChar:
		if len(s) > 1 {
			_, n := utf8.DecodeRuneInString(s)
			return s[:n]
		}
		return s
	case types.OidName:
		if len(s) > 63 {
			cut := 63
			for cut > 0 && !utf8.RuneStart(s[cut]) {
				cut--
			}
			return s[:cut]
		}
		return s
	}
	if to.Typmod < 4 || (to.OID != types.OidVarchar && to.OID != types.OidBpchar) {
		return s
	}
	n := int(to.Typmod - 4)
	count := 0
	for i := range s {
		if count == n {
			return s[:i]
		}
		count++
	}
	if to.OID == types.OidBpchar && count < n {
		return s + strings.Repeat(" ", n-count)
	}
	return s
}

func toStringCast(ctx *Ctx, d Datum, from, to types.T) (Datum, error) {
	var s string
	switch v := d.(type) {
	case bool:
		s = "false"
		if v {
			s = "true"
		}
	default:
		s = datumText(ctx, from, d)
	}
	if from.OID == types.OidBpchar && to.OID != types.OidBpchar {
		s = strings.TrimRight(s, " ")
	}
	return coerceString(s, to), nil
}

func regFromText(ctx *Ctx, d Datum, from, to types.T) (Datum, error) {
	s := strings.TrimSpace(d.(string))
	if n, err := strconv.ParseUint(s, 10, 32); err == nil {
		return int64(n), nil
	}
	if s == "-" {
		return int64(0), nil
	}
	cat := ctx.Catalog
	var oid uint32
	var err error
	switch to.OID {
	case types.OidRegclass:
		if cat == nil {
			return nil, sqlerr.New(sqlerr.UndefinedTable, "relation \"%s\" does not exist", s)
		}
		oid, err = cat.RelationOID(s)
	case types.OidRegtype:
		if t, ok := types.ByName(strings.ToLower(strings.TrimPrefix(s, "pg_catalog."))); ok {
			return int64(t.OID), nil
		}
		if cat == nil {
			return nil, sqlerr.New(sqlerr.UndefinedObject, "type \"%s\" does not exist", s)
		}
		oid, err = cat.TypeOID(s)
	case types.OidRegnamespace:
		if cat == nil {
			return nil, sqlerr.New(sqlerr.UndefinedObject, "schema \"%s\" does not exist", s)
		}
		oid, err = cat.NamespaceOID(s)
	case types.OidRegproc:
		if cat == nil {
			return nil, sqlerr.New(sqlerr.UndefinedFunction, "function \"%s\" does not exist", s)
		}
		oid, err = cat.ProcOID(s)
	case types.OidRegrole:
		return regroleIn(cat, s)
	default:
		return nil, sqlerr.New(sqlerr.InvalidTextRepresentation, "invalid input syntax for type oid: \"%s\"", s)
	}
	if err != nil {
		return nil, err
	}
	return int64(oid), nil
}

// regText is the output of a reg* value: its name, or the number.
func regText(ctx *Ctx, oid uint32, t uint32) string {
	if oid == 0 && t != types.OidOid {
		return "-"
	}
	cat := ctx.Catalog
	switch t {
	case types.OidRegtype:
		if _, ok := types.Lookup(oid); ok {
			return types.FormatType(oid, -1)
		}
		if cat != nil {
			if s, ok := cat.TypeName(oid); ok {
				return s
			}
		}
	case types.OidRegclass:
		if cat != nil {
			if s, ok := cat.RelationName(oid); ok {
				return s
			}
		}
	case types.OidRegnamespace:
		if cat != nil {
			if s, ok := cat.NamespaceName(oid); ok {
				return s
			}
		}
	case types.OidRegproc:
		if cat != nil {
			if s, ok := cat.ProcName(oid); ok {
				return s
			}
		}
	case types.OidRegrole:
		if cat != nil {
			if s, ok := cat.RoleName(oid); ok {
				return s
			}
		}
	}
	return strconv.FormatUint(uint64(oid), 10)
}

func init() {
	ints := []uint32{types.OidInt2, types.OidInt4, types.OidInt8}
	for _, f := range ints {
		for _, t := range ints {
			if f == t {
				continue
			}
			RegisterCast(f, t, rowCast(func(ctx *Ctx, d Datum, from, to types.T) (Datum, error) {
				v := d.(int64)
				if !intFits(v, to.OID) {
					return nil, errIntOutOfRange(to.OID)
				}
				return v, nil
			}))
		}
		RegisterCast(f, types.OidFloat4, rowCast(func(ctx *Ctx, d Datum, from, to types.T) (Datum, error) { return float64(float32(d.(int64))), nil }))
		RegisterCast(f, types.OidFloat8, rowCast(func(ctx *Ctx, d Datum, from, to types.T) (Datum, error) { return float64(d.(int64)), nil }))
		RegisterCast(f, types.OidNumeric, func(ctx *Ctx, arr arrow.Array, from, to types.T) (arrow.Array, error) {
			if to.Typmod < 4 {
				return intToNumericKernel(ctx, arr), nil
			}
			return numericTypmodKernel(ctx, arr, to.Typmod, func(d Datum) (Datum, error) {
				r, err := applyNumericTypmod(mustNumeric(strconv.FormatInt(d.(int64), 10)), to.Typmod)
				if err != nil {
					return nil, err
				}
				return formatNumeric(r), nil
			})
		})
		for _, fl := range []uint32{types.OidFloat4, types.OidFloat8} {
			RegisterCast(fl, f, rowCast(func(ctx *Ctx, d Datum, from, to types.T) (Datum, error) { return floatToInt(d.(float64), to.OID) }))
		}
		RegisterCast(types.OidNumeric, f, rowCast(func(ctx *Ctx, d Datum, from, to types.T) (Datum, error) {
			x, err := parseNumeric(d.(string))
			if err != nil {
				return nil, err
			}
			return numericToInt(x, to.OID)
		}))
		for _, r := range []uint32{types.OidOid, types.OidRegclass, types.OidRegtype, types.OidRegproc, types.OidRegnamespace, types.OidRegrole} {
			RegisterCast(f, r, rowCast(func(ctx *Ctx, d Datum, from, to types.T) (Datum, error) {
				v := d.(int64)
				if v < math.MinInt32 || v > math.MaxUint32 {
					return nil, errIntOutOfRange(types.OidOid)
				}
				return int64(uint32(v)), nil
			}))
			RegisterCast(r, f, rowCast(func(ctx *Ctx, d Datum, from, to types.T) (Datum, error) {
				v := d.(int64)
				if to.OID == types.OidInt4 {
					return int64(int32(uint32(v))), nil
				}
				if to.OID == types.OidInt2 {
					return nil, sqlerr.New(sqlerr.CannotCoerce, "cannot cast type %s to smallint", from)
				}
				return v, nil
			}))
		}
	}
	regs := []uint32{types.OidOid, types.OidRegclass, types.OidRegtype, types.OidRegproc, types.OidRegnamespace, types.OidRegrole}
	for _, f := range regs {
		for _, t := range regs {
			if f != t {
				RegisterCast(f, t, identityCast)
			}
		}
		if f != types.OidOid {
			for _, s := range []uint32{types.OidText, types.OidVarchar, types.OidName, types.OidBpchar, types.OidUnknown} {
				RegisterCast(s, f, rowCast(regFromText))
			}
		}
		RegisterCast(f, types.OidText, rowCast(func(ctx *Ctx, d Datum, from, to types.T) (Datum, error) {
			return regText(ctx, uint32(d.(int64)), from.OID), nil
		}))
	}
	RegisterCast(types.OidFloat4, types.OidFloat8, rowCast(func(ctx *Ctx, d Datum, from, to types.T) (Datum, error) { return d, nil }))
	RegisterCast(types.OidFloat8, types.OidFloat4, rowCast(func(ctx *Ctx, d Datum, from, to types.T) (Datum, error) {
		f := d.(float64)
		r := float32(f)
		if math.IsInf(float64(r), 0) && !math.IsInf(f, 0) {
			return nil, errFloatOverflow()
		}
		if r == 0 && f != 0 {
			return nil, errFloatUnderflow()
		}
		return float64(r), nil
	}))
	for _, fl := range []uint32{types.OidFloat4, types.OidFloat8} {
		digits := 15
		if fl == types.OidFloat4 {
			digits = 6
		}
		RegisterCast(fl, types.OidNumeric, rowCast(func(ctx *Ctx, d Datum, from, to types.T) (Datum, error) {
			r, err := applyNumericTypmod(numericFromFloat(d.(float64), digits), to.Typmod)
			if err != nil {
				return nil, err
			}
			return formatNumeric(r), nil
		}))
		RegisterCast(types.OidNumeric, fl, rowCast(func(ctx *Ctx, d Datum, from, to types.T) (Datum, error) {
			x, err := parseNumeric(d.(string))
			if err != nil {
				return nil, err
			}
			f := numericToFloat(x)
			if to.OID == types.OidFloat4 {
				f = float64(float32(f))
			}
			return f, nil
		}))
	}
	numericToNumeric := func(d Datum, typmod int32) (Datum, error) {
		x, err := parseNumeric(d.(string))
		if err != nil {
			return nil, err
		}
		r, err := applyNumericTypmod(x, typmod)
		if err != nil {
			return nil, err
		}
		return formatNumeric(r), nil
	}
	RegisterCast(types.OidNumeric, types.OidNumeric, func(ctx *Ctx, arr arrow.Array, from, to types.T) (arrow.Array, error) {
		if to.Typmod < 4 {
			return rowCast(func(ctx *Ctx, d Datum, from, to types.T) (Datum, error) { return numericToNumeric(d, to.Typmod) })(ctx, arr, from, to)
		}
		return numericTypmodKernel(ctx, arr, to.Typmod, func(d Datum) (Datum, error) { return numericToNumeric(d, to.Typmod) })
	})
	RegisterCast(types.OidInt4, types.OidBool, rowCast(func(ctx *Ctx, d Datum, from, to types.T) (Datum, error) { return d.(int64) != 0, nil }))
	RegisterCast(types.OidBool, types.OidInt4, rowCast(func(ctx *Ctx, d Datum, from, to types.T) (Datum, error) { return int64(btoi(d.(bool))), nil }))

	// date/time
	RegisterCast(types.OidDate, types.OidTimestamp, rowCast(func(ctx *Ctx, d Datum, from, to types.T) (Datum, error) {
		return dateToTimestamp(d.(int64)), nil
	}))
	RegisterCast(types.OidDate, types.OidTimestampTZ, rowCast(func(ctx *Ctx, d Datum, from, to types.T) (Datum, error) {
		return fromLocal(dateToTimestamp(d.(int64)), ctx.location()), nil
	}))
	RegisterCast(types.OidTimestamp, types.OidDate, rowCast(func(ctx *Ctx, d Datum, from, to types.T) (Datum, error) {
		return floorDiv(d.(int64), usPerDay), nil
	}))
	RegisterCast(types.OidTimestampTZ, types.OidDate, rowCast(func(ctx *Ctx, d Datum, from, to types.T) (Datum, error) {
		return floorDiv(toLocal(d.(int64), ctx.location()), usPerDay), nil
	}))
	RegisterCast(types.OidTimestamp, types.OidTimestampTZ, rowCast(func(ctx *Ctx, d Datum, from, to types.T) (Datum, error) {
		return fromLocal(d.(int64), ctx.location()), nil
	}))
	RegisterCast(types.OidTimestampTZ, types.OidTimestamp, rowCast(func(ctx *Ctx, d Datum, from, to types.T) (Datum, error) {
		return toLocal(d.(int64), ctx.location()), nil
	}))
	RegisterCast(types.OidTimestamp, types.OidTime, rowCast(func(ctx *Ctx, d Datum, from, to types.T) (Datum, error) {
		return floorMod(d.(int64), usPerDay), nil
	}))
	RegisterCast(types.OidTimestampTZ, types.OidTime, rowCast(func(ctx *Ctx, d Datum, from, to types.T) (Datum, error) {
		return floorMod(toLocal(d.(int64), ctx.location()), usPerDay), nil
	}))
	RegisterCast(types.OidTime, types.OidInterval, rowCast(func(ctx *Ctx, d Datum, from, to types.T) (Datum, error) {
		return makeIv(0, 0, d.(int64)), nil
	}))

	// json
	canon := rowCast(func(ctx *Ctx, d Datum, from, to types.T) (Datum, error) {
		v, err := parseJSONDoc(d.(string))
		if err != nil {
			return nil, err
		}
		return jsonbText(canonicalJSONB(v)), nil
	})
	validate := rowCast(func(ctx *Ctx, d Datum, from, to types.T) (Datum, error) {
		if _, err := parseJSONDoc(d.(string)); err != nil {
			return nil, err
		}
		return d, nil
	})
	RegisterCast(types.OidJSON, types.OidJSONB, canon)
	RegisterCast(types.OidJSONB, types.OidJSON, identityCast)
	for _, s := range []uint32{types.OidText, types.OidVarchar, types.OidUnknown, types.OidBpchar} {
		RegisterCast(s, types.OidJSONB, canon)
		RegisterCast(s, types.OidJSON, validate)
	}

	// anything to a character type: the output function, then the length.
	for _, s := range []uint32{types.OidText, types.OidVarchar, types.OidBpchar, types.OidName, types.OidChar} {
		RegisterCast(types.OidAny, s, rowCast(toStringCast))
	}
}
