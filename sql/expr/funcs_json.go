package expr

import (
	"bytes"
	"encoding/json"
	"math"
	"strconv"
	"strings"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"

	"github.com/weir-sql/weir/sql/sqlerr"
	"github.com/weir-sql/weir/sql/types"
)

// json/jsonb functions and operators.

// jsonFromValue converts arr[i] of SQL type t to a JSON value as to_json
// does. forJSONB canonicalises embedded json documents.
func jsonFromValue(ctx *Ctx, t types.T, arr arrow.Array, i int, forJSONB bool) any {
	if arr.IsNull(i) {
		return nil
	}
	switch t.OID {
	case types.OidBool:
		return arr.(*array.Boolean).Value(i)
	case types.OidInt2, types.OidInt4, types.OidInt8, types.OidNumeric, types.OidOid:
		s := valueText(ctx, t, arr, i)
		if s == "NaN" || strings.HasSuffix(s, "Infinity") {
			return s
		}
		return jsonNumber(s)
	case types.OidFloat4, types.OidFloat8:
		f := DatumAt(arr, i).(float64)
		if math.IsNaN(f) || math.IsInf(f, 0) {
			return valueText(ctx, t, arr, i)
		}
		return jsonNumber(valueText(ctx, t, arr, i))
	case types.OidJSON:
		s := arr.(*array.String).Value(i)
		if forJSONB {
			v, err := parseJSONDoc(s)
			if err != nil {
				return nil
			}
			return canonicalJSONB(v)
		}
		return rawJSON(strings.TrimSpace(s))
	case types.OidJSONB:
		v, err := parseJSONDoc(arr.(*array.String).Value(i))
		if err != nil {
			return nil
		}
		return v
	case types.OidDate:
		return valueText(ctx, t, arr, i)
	case types.OidTimestamp:
		return strings.Replace(valueText(ctx, t, arr, i), " ", "T", 1)
	case types.OidTimestampTZ:
		s := strings.Replace(valueText(ctx, t, arr, i), " ", "T", 1)
		if n := len(s); n >= 3 && (s[n-3] == '+' || s[n-3] == '-') {
			s += ":00"
		}
		return s
	}
	if sa, ok := arr.(*array.Struct); ok && t.IsStruct() {
		// A struct is an object of its fields, as row_to_json makes of a row.
		o := &jsonObject{}
		for j, f := range t.Fields() {
			o.keys = append(o.keys, f.Name)
			o.vals = append(o.vals, jsonFromValue(ctx, f.Type, sa.Field(j), i, forJSONB))
		}
		if !forJSONB {
			var buf bytes.Buffer
			writeJSONStyled(&buf, o, ",", ":")
			return rawJSON(buf.String())
		}
		return canonicalJSONB(o)
	}
	if l, ok := arr.(*array.List); ok && t.IsArray() {
		start, end := l.ValueOffsets(i)
		out := make([]any, 0, end-start)
		for j := start; j < end; j++ {
			out = append(out, jsonFromValue(ctx, t.Elem(), l.ListValues(), int(j), forJSONB))
		}
		if !forJSONB {
			var buf bytes.Buffer
			writeJSONStyled(&buf, out, ",", ":")
			return rawJSON(buf.String())
		}
		return out
	}
	return valueText(ctx, t, arr, i)
}

func buildObjectImpl(jsonb bool) func(args []types.T, ret types.T) ScalarImpl {
	return func(argTypes []types.T, ret types.T) ScalarImpl {
		return func(ctx *Ctx, args []arrow.Array, n int) (arrow.Array, error) {
			if len(args)%2 != 0 {
				return nil, sqlerr.New(sqlerr.InvalidParameterValue, "argument list must have even number of elements").
					WithHint("The arguments of json_build_object() must consist of alternating keys and values.")
			}
			b := array.NewStringBuilder(ctx.Allocator())
			defer b.Release()
			for i := 0; i < n; i++ {
				o := &jsonObject{}
				for j := 0; j < len(args); j += 2 {
					if args[j].IsNull(i) {
						return nil, sqlerr.New(sqlerr.InvalidParameterValue, "null value not allowed for object key")
					}
					o.keys = append(o.keys, valueText(ctx, argTypes[j], args[j], i))
					o.vals = append(o.vals, jsonFromValue(ctx, argTypes[j+1], args[j+1], i, jsonb))
				}
				if jsonb {
					b.Append(jsonbText(canonicalJSONB(o)))
				} else {
					var buf bytes.Buffer
					writeJSONStyled(&buf, o, ", ", " : ")
					b.Append(buf.String())
				}
			}
			return b.NewArray(), nil
		}
	}
}

func buildArrayImpl(jsonb bool) func(args []types.T, ret types.T) ScalarImpl {
	return func(argTypes []types.T, ret types.T) ScalarImpl {
		return func(ctx *Ctx, args []arrow.Array, n int) (arrow.Array, error) {
			b := array.NewStringBuilder(ctx.Allocator())
			defer b.Release()
			for i := 0; i < n; i++ {
				vals := make([]any, len(args))
				for j := range args {
					vals[j] = jsonFromValue(ctx, argTypes[j], args[j], i, jsonb)
				}
				if jsonb {
					b.Append(jsonbText(canonicalJSONB(vals)))
				} else {
					var buf bytes.Buffer
					writeJSONStyled(&buf, vals, ", ", ": ")
					b.Append(buf.String())
				}
			}
			return b.NewArray(), nil
		}
	}
}

func toJSONImpl(jsonb bool) func(args []types.T, ret types.T) ScalarImpl {
	return func(argTypes []types.T, ret types.T) ScalarImpl {
		return func(ctx *Ctx, args []arrow.Array, n int) (arrow.Array, error) {
			b := array.NewStringBuilder(ctx.Allocator())
			defer b.Release()
			for i := 0; i < n; i++ {
				if args[0].IsNull(i) {
					b.AppendNull()
					continue
				}
				v := jsonFromValue(ctx, argTypes[0], args[0], i, jsonb)
				if jsonb {
					b.Append(jsonbText(canonicalJSONB(v)))
				} else {
					var buf bytes.Buffer
					writeJSONStyled(&buf, v, ",", ":")
					b.Append(buf.String())
				}
			}
			return b.NewArray(), nil
		}
	}
}

// jsonbArg parses a jsonb column value.
func jsonbArg(d Datum) (any, error) { return parseJSONDoc(d.(string)) }

// jsonField navigates one step: an object key, or an array index given as
// text (path elements) or int.
func jsonField(v any, key string, isIndex bool, idx int64) (any, bool) {
	switch x := v.(type) {
	case *jsonObject:
		if isIndex {
			return nil, false
		}
		return x.get(key)
	case []any:
		if !isIndex {
			n, err := strconv.ParseInt(strings.TrimSpace(key), 10, 64)
			if err != nil {
				return nil, false
			}
			idx = n
		}
		if idx < 0 {
			idx += int64(len(x))
		}
		if idx < 0 || idx >= int64(len(x)) {
			return nil, false
		}
		return x[idx], true
	}
	return nil, false
}

// jsonOut renders a navigated value: as json/jsonb text, or (asText) as
// ->> does: strings unquoted, null as SQL NULL.
func jsonOut(v any, asText, jsonb bool) Datum {
	if asText {
		switch x := v.(type) {
		case nil:
			return nil
		case string:
			return x
		case rawJSON:
			// (null first: encoding/json unmarshals null into a string
			// as a no-op, which would read as '')
			if strings.TrimSpace(string(x)) == "null" {
				return nil
			}
			var s string
			if json.Unmarshal([]byte(x), &s) == nil {
				return s
			}
			return string(x)
		}
	}
	if r, ok := v.(rawJSON); ok {
		return string(r)
	}
	if jsonb {
		return jsonbText(v)
	}
	var buf bytes.Buffer
	writeJSONStyled(&buf, v, ",", ":")
	return buf.String()
}

// parseJSONShallow parses a json (not jsonb) value keeping the original text
// of its members.
func parseJSONShallow(s string) (any, error) {
	s = strings.TrimSpace(s)
	if strings.HasPrefix(s, "{") {
		dec := json.NewDecoder(strings.NewReader(s))
		if _, err := dec.Token(); err != nil {
			return nil, errInvalidJSON()
		}
		o := &jsonObject{}
		for dec.More() {
			kt, err := dec.Token()
			if err != nil {
				return nil, errInvalidJSON()
			}
			var raw json.RawMessage
			if err := dec.Decode(&raw); err != nil {
				return nil, errInvalidJSON()
			}
			k, _ := kt.(string)
			o.keys = append(o.keys, k)
			o.vals = append(o.vals, rawJSON(raw))
		}
		return o, nil
	}
	if strings.HasPrefix(s, "[") {
		var raws []json.RawMessage
		if err := json.Unmarshal([]byte(s), &raws); err != nil {
			return nil, errInvalidJSON()
		}
		out := make([]any, len(raws))
		for i, r := range raws {
			out[i] = rawJSON(r)
		}
		return out, nil
	}
	return rawJSON(s), nil
}

func jsonGetImpl(jsonb, asText, byIndex bool) ScalarImpl {
	ret := types.JSON
	if jsonb {
		ret = types.JSONB
	}
	if asText {
		ret = types.Text
	}
	return Strict(ret, func(ctx *Ctx, a []Datum) (Datum, error) {
		var doc any
		var err error
		if jsonb {
			doc, err = jsonbArg(a[0])
		} else {
			doc, err = parseJSONShallow(a[0].(string))
		}
		if err != nil {
			return nil, err
		}
		var v any
		var ok bool
		if byIndex {
			v, ok = jsonField(doc, "", true, a[1].(int64))
		} else {
			v, ok = jsonField(doc, a[1].(string), false, 0)
		}
		if !ok {
			return nil, nil
		}
		return jsonOut(v, asText, jsonb), nil
	})
}

func jsonPath(doc any, path []Datum, jsonb bool) (any, bool) {
	v := doc
	for _, p := range path {
		if p == nil {
			return nil, false
		}
		if !jsonb {
			if r, ok := v.(rawJSON); ok {
				d, err := parseJSONShallow(string(r))
				if err != nil {
					return nil, false
				}
				v = d
			}
		}
		var ok bool
		v, ok = jsonField(v, p.(string), false, 0)
		if !ok {
			return nil, false
		}
	}
	return v, true
}

func jsonPathImpl(jsonb, asText, variadic bool) ScalarImpl {
	ret := types.JSON
	if jsonb {
		ret = types.JSONB
	}
	if asText {
		ret = types.Text
	}
	return NonStrict(ret, func(ctx *Ctx, a []Datum) (Datum, error) {
		if a[0] == nil {
			return nil, nil
		}
		var path []Datum
		if variadic {
			path = a[1:]
		} else {
			if a[1] == nil {
				return nil, nil
			}
			path = a[1].([]Datum)
		}
		var doc any
		var err error
		if jsonb {
			doc, err = jsonbArg(a[0])
		} else {
			doc, err = parseJSONShallow(a[0].(string))
		}
		if err != nil {
			return nil, err
		}
		v, ok := jsonPath(doc, path, jsonb)
		if !ok {
			return nil, nil
		}
		return jsonOut(v, asText, jsonb), nil
	})
}

func cmpJSONBRow(a, b arrow.Array, i int) int {
	x, y := a.(*array.String).Value(i), b.(*array.String).Value(i)
	if x == y {
		return 0
	}
	dx, e1 := parseJSONDoc(x)
	dy, e2 := parseJSONDoc(y)
	if e1 == nil && e2 == nil && jsonbText(canonicalJSONB(dx)) == jsonbText(canonicalJSONB(dy)) {
		return 0
	}
	return strings.Compare(x, y)
}

func jsonKeyExists(doc any, k string) bool {
	switch x := doc.(type) {
	case *jsonObject:
		_, ok := x.get(k)
		return ok
	case []any:
		for _, e := range x {
			if s, ok := e.(string); ok && s == k {
				return true
			}
		}
	case string:
		return x == k
	}
	return false
}

func init() {
	RegisterScalar("json_build_object", Overload{Args: []types.T{Any}, Variadic: true, Ret: types.JSON, Specialize: buildObjectImpl(false), Impl: buildObjectImpl(false)(nil, types.JSON)})
	RegisterScalar("jsonb_build_object", Overload{Args: []types.T{Any}, Variadic: true, Ret: types.JSONB, Specialize: buildObjectImpl(true), Impl: buildObjectImpl(true)(nil, types.JSONB)})
	RegisterScalar("json_build_array", Overload{Args: []types.T{Any}, Variadic: true, Ret: types.JSON, Specialize: buildArrayImpl(false)})
	RegisterScalar("jsonb_build_array", Overload{Args: []types.T{Any}, Variadic: true, Ret: types.JSONB, Specialize: buildArrayImpl(true)})
	RegisterScalar("to_json", Overload{Args: []types.T{AnyElement}, Ret: types.JSON, Specialize: toJSONImpl(false)})
	RegisterScalar("to_jsonb", Overload{Args: []types.T{AnyElement}, Ret: types.JSONB, Specialize: toJSONImpl(true)})
	for _, jt := range []types.T{types.JSON, types.JSONB} {
		jb := jt.OID == types.OidJSONB
		prefix := "json"
		if jb {
			prefix = "jsonb"
		}
		RegisterScalar("->",
			Overload{Args: []types.T{jt, types.Text}, Ret: jt, Impl: jsonGetImpl(jb, false, false)},
			Overload{Args: []types.T{jt, types.Int4}, Ret: jt, Impl: jsonGetImpl(jb, false, true)},
		)
		RegisterScalar("->>",
			Overload{Args: []types.T{jt, types.Text}, Ret: types.Text, Impl: jsonGetImpl(jb, true, false)},
			Overload{Args: []types.T{jt, types.Int4}, Ret: types.Text, Impl: jsonGetImpl(jb, true, true)},
		)
		textArr := types.ArrayOf(types.Text)
		RegisterScalar("#>", Overload{Args: []types.T{jt, textArr}, Ret: jt, Impl: jsonPathImpl(jb, false, false)})
		RegisterScalar("#>>", Overload{Args: []types.T{jt, textArr}, Ret: types.Text, Impl: jsonPathImpl(jb, true, false)})
		RegisterScalar(prefix+"_extract_path", Overload{Args: []types.T{jt, types.Text}, Variadic: true, Ret: jt, Impl: jsonPathImpl(jb, false, true)})
		RegisterScalar(prefix+"_extract_path_text", Overload{Args: []types.T{jt, types.Text}, Variadic: true, Ret: types.Text, Impl: jsonPathImpl(jb, true, true)})
		RegisterScalar(prefix+"_typeof", Overload{Args: []types.T{jt}, Ret: types.Text, Impl: Strict(types.Text, func(ctx *Ctx, a []Datum) (Datum, error) {
			v, err := parseJSONDoc(a[0].(string))
			if err != nil {
				return nil, err
			}
			return jsonTypeof(v), nil
		})})
		name := prefix
		RegisterScalar(prefix+"_array_length", Overload{Args: []types.T{jt}, Ret: types.Int4, Impl: Strict(types.Int4, func(ctx *Ctx, a []Datum) (Datum, error) {
			v, err := parseJSONDoc(a[0].(string))
			if err != nil {
				return nil, err
			}
			arr, ok := v.([]any)
			if !ok {
				if _, isObj := v.(*jsonObject); !isObj {
					return nil, sqlerr.New(sqlerr.InvalidParameterValue, "cannot get array length of a scalar")
				}
				return nil, sqlerr.New(sqlerr.InvalidParameterValue, "cannot get array length of a non-array")
			}
			_ = name
			return int64(len(arr)), nil
		})})
	}
	RegisterScalar("jsonb_pretty", Overload{Args: []types.T{types.JSONB}, Ret: types.Text, Impl: Strict(types.Text, func(ctx *Ctx, a []Datum) (Datum, error) {
		v, err := jsonbArg(a[0])
		if err != nil {
			return nil, err
		}
		var buf bytes.Buffer
		writeJSONPretty(&buf, v, 0)
		return buf.String(), nil
	})})
	RegisterScalar("@>", Overload{Args: []types.T{types.JSONB, types.JSONB}, Ret: types.Bool, Impl: Strict(types.Bool, func(ctx *Ctx, a []Datum) (Datum, error) {
		x, err := jsonbArg(a[0])
		if err != nil {
			return nil, err
		}
		y, err := jsonbArg(a[1])
		if err != nil {
			return nil, err
		}
		return jsonContains(x, y), nil
	})})
	RegisterScalar("<@", Overload{Args: []types.T{types.JSONB, types.JSONB}, Ret: types.Bool, Impl: Strict(types.Bool, func(ctx *Ctx, a []Datum) (Datum, error) {
		x, err := jsonbArg(a[1])
		if err != nil {
			return nil, err
		}
		y, err := jsonbArg(a[0])
		if err != nil {
			return nil, err
		}
		return jsonContains(x, y), nil
	})})
	RegisterScalar("?", Overload{Args: []types.T{types.JSONB, types.Text}, Ret: types.Bool, Impl: Strict(types.Bool, func(ctx *Ctx, a []Datum) (Datum, error) {
		x, err := jsonbArg(a[0])
		if err != nil {
			return nil, err
		}
		return jsonKeyExists(x, a[1].(string)), nil
	})})
	for _, op := range []string{"?|", "?&"} {
		all := op == "?&"
		RegisterScalar(op, Overload{Args: []types.T{types.JSONB, types.ArrayOf(types.Text)}, Ret: types.Bool, Impl: Strict(types.Bool, func(ctx *Ctx, a []Datum) (Datum, error) {
			x, err := jsonbArg(a[0])
			if err != nil {
				return nil, err
			}
			for _, k := range a[1].([]Datum) {
				if k == nil {
					continue
				}
				has := jsonKeyExists(x, k.(string))
				if has && !all {
					return true, nil
				}
				if !has && all {
					return false, nil
				}
			}
			return all, nil
		})})
	}
}

func writeJSONPretty(buf *bytes.Buffer, v any, level int) {
	indent := func(l int) {
		for i := 0; i < l; i++ {
			buf.WriteString("    ")
		}
	}
	switch x := v.(type) {
	case []any:
		if len(x) == 0 {
			buf.WriteString("[\n")
			indent(level)
			buf.WriteString("]")
			return
		}
		buf.WriteString("[\n")
		for i, e := range x {
			if i > 0 {
				buf.WriteString(",\n")
			}
			indent(level + 1)
			writeJSONPretty(buf, e, level+1)
		}
		buf.WriteString("\n")
		indent(level)
		buf.WriteString("]")
	case *jsonObject:
		if len(x.keys) == 0 {
			buf.WriteString("{\n")
			indent(level)
			buf.WriteString("}")
			return
		}
		buf.WriteString("{\n")
		for i, k := range x.keys {
			if i > 0 {
				buf.WriteString(",\n")
			}
			indent(level + 1)
			writeJSONString(buf, k)
			buf.WriteString(": ")
			writeJSONPretty(buf, x.vals[i], level+1)
		}
		buf.WriteString("\n")
		indent(level)
		buf.WriteString("}")
	default:
		writeJSONB(buf, v)
	}
}
