package files

import (
	"math"
	"strconv"

	"github.com/weir-sql/weir/sql/types"
)

// STRUCT columns (a schema's STRUCT<a: INT, b: STRING>) from JSON
// objects. The object becomes the composite literal PostgreSQL's
// record_in reads ("(1,\"x\")"), which types.AppendParsedText then checks
// field by field: a field that does not parse rescues the whole object.
// Fields are matched to the struct's by name (exactly, then ignoring
// case, as Spark's are); fields the struct lacks are dropped, as Spark's
// JSON reader drops them. Values mean what they mean in a column of the
// field's type: a number in a timestamp field is seconds since the epoch,
// an object in a text field its JSON text.

// recordLiteral appends the composite literal of the JSON object raw for
// struct type t; false when raw is not an object or a value cannot be
// written for its field.
func (sc *jsonScanner) recordLiteral(out, raw []byte, t types.T) ([]byte, bool) {
	fields := t.Fields()
	vals := make([][]byte, len(fields))
	set := make([]bool, len(fields))
	i := skipWS(raw, 0)
	if i >= len(raw) || raw[i] != '{' {
		return nil, false
	}
	i = skipWS(raw, i+1)
	if i < len(raw) && raw[i] == '}' {
		i = len(raw)
	}
	var f jsonField
	for i < len(raw) {
		if raw[i] != '"' {
			return nil, false
		}
		end, esc, _, ok := sc.str(raw, i)
		if !ok {
			return nil, false
		}
		name := unescapeOrSpan(raw[i:end], esc)
		i = skipWS(raw, end)
		if i >= len(raw) || raw[i] != ':' {
			return nil, false
		}
		if i, ok = sc.value(raw, skipWS(raw, i+1), &f); !ok {
			return nil, false
		}
		if k := t.FieldIndex(string(name)); k >= 0 && !set[k] && f.kind != jsonNull {
			v, ok := sc.fieldText(&f, fields[k].Type)
			if !ok {
				return nil, false
			}
			vals[k], set[k] = v, true
		}
		i = skipWS(raw, i)
		if i >= len(raw) {
			return nil, false
		}
		if raw[i] == '}' {
			break
		}
		if raw[i] != ',' {
			return nil, false
		}
		i = skipWS(raw, i+1)
	}
	out = append(out, '(')
	for k := range fields {
		if k > 0 {
			out = append(out, ',')
		}
		if !set[k] {
			continue // empty: NULL
		}
		out = append(out, '"')
		for _, c := range vals[k] {
			if c == '"' || c == '\\' {
				out = append(out, '\\')
			}
			out = append(out, c)
		}
		out = append(out, '"')
	}
	return append(out, ')'), true
}

func unescapeOrSpan(tok []byte, esc bool) []byte {
	if !esc {
		return tok[1 : len(tok)-1]
	}
	return unescape(nil, tok)
}

// fieldText is the PostgreSQL input text of JSON value f for type ft.
func (sc *jsonScanner) fieldText(f *jsonField, ft types.T) ([]byte, bool) {
	switch {
	case ft.IsStruct():
		if f.kind != jsonObject {
			return nil, false
		}
		return sc.recordLiteral(nil, f.val, ft)
	case ft.IsArray():
		if f.kind != jsonArray {
			return nil, false
		}
		return sc.arrayLiteral(f.val)
	}
	switch f.kind {
	case jsonString:
		if ft.OID == types.OidJSONB || ft.OID == types.OidJSON {
			return f.val, true
		}
		return unescapeOrSpan(f.val, f.valEsc), true
	case jsonNumber:
		if ft.OID == types.OidTimestamp || ft.OID == types.OidTimestampTZ {
			sec, err := strconv.ParseFloat(string(f.val), 64)
			if err != nil || math.IsNaN(sec) || math.Abs(sec) > 9e12 {
				return nil, false
			}
			return types.AppendTimestamp(nil, int64(math.Round(sec*1e6))), true
		}
		if ft.OID == types.OidBool || ft.OID == types.OidDate {
			return nil, false
		}
		return f.val, true
	case jsonTrue, jsonFalse:
		switch ft.OID {
		case types.OidBool, types.OidText, types.OidVarchar, types.OidJSONB, types.OidJSON:
			return f.val, true // true/false: bool_in reads them too
		}
		return nil, false
	case jsonObject, jsonArray:
		switch ft.OID {
		case types.OidText, types.OidVarchar, types.OidJSONB, types.OidJSON:
			return f.val, true
		}
	}
	return nil, false
}
