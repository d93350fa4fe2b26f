package expr

import (
	"bytes"
	"strings"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"

	"github.com/weir-sql/weir/sql/types"
)

// FromJSONImpl is Spark's from_json(jsonStr, schema) for the struct type
// t the schema describes (the binder parses the schema; the second
// argument is only there to tell two schemas apart). Spark's PERMISSIVE
// mode: a NULL string gives NULL, a string that is not a JSON object gives
// a struct whose fields are all NULL, and a field whose JSON value does not
// fit its type is NULL. Field names match the document's keys exactly, as
// Spark's do.
func FromJSONImpl(t types.T) ScalarImpl {
	return func(ctx *Ctx, args []arrow.Array, n int) (arrow.Array, error) {
		in := args[0].(*array.String)
		b := NewBuilder(ctx.Allocator(), t)
		defer b.Release()
		sb := b.(*array.StructBuilder)
		sb.Reserve(n)
		fs := ctx.textFormat()
		for i := 0; i < n; i++ {
			if in.IsNull(i) {
				sb.AppendNull()
				continue
			}
			doc, err := parseJSONDoc(in.Value(i))
			obj, isObj := doc.(*jsonObject)
			if err != nil || !isObj {
				obj = &jsonObject{}
			}
			appendJSONStruct(sb, t, obj, &fs)
		}
		return b.NewArray(), nil
	}
}

func appendJSONStruct(sb *array.StructBuilder, t types.T, obj *jsonObject, fs *types.FormatSettings) {
	sb.Append(true)
	for j, f := range t.Fields() {
		v, ok := obj.get(f.Name)
		fb := sb.FieldBuilder(j)
		if !ok || v == nil {
			fb.AppendNull()
			continue
		}
		appendJSONValue(fb, f.Type, v, fs)
	}
}

// appendJSONValue appends a JSON value converted to t, or NULL when it
// does not convert.
func appendJSONValue(b array.Builder, t types.T, v any, fs *types.FormatSettings) {
	if v == nil {
		b.AppendNull()
		return
	}
	if t.IsStruct() {
		obj, ok := v.(*jsonObject)
		if !ok {
			b.AppendNull()
			return
		}
		appendJSONStruct(b.(*array.StructBuilder), t, obj, fs)
		return
	}
	if t.IsArray() {
		arr, ok := v.([]any)
		lb, isList := b.(*array.ListBuilder)
		if !ok || !isList {
			b.AppendNull()
			return
		}
		lb.Append(true)
		for _, e := range arr {
			appendJSONValue(lb.ValueBuilder(), t.Elem(), e, fs)
		}
		return
	}
	var text string
	switch x := v.(type) {
	case bool:
		if t.OID != types.OidBool && !jsonTextField(t) {
			b.AppendNull()
			return
		}
		text = "false"
		if x {
			text = "true"
		}
	case jsonNumber:
		if t.OID == types.OidBool || t.OID == types.OidDate || t.OID == types.OidTimestamp || t.OID == types.OidTimestampTZ {
			b.AppendNull()
			return
		}
		text = string(x)
		if jsonIntField(t) && strings.ContainsAny(text, ".eE") {
			b.AppendNull() // Spark refuses 1.5 for an INT field
			return
		}
	case string:
		if !jsonTextField(t) && (jsonIntField(t) || t.OID == types.OidFloat4 || t.OID == types.OidFloat8 || t.OID == types.OidNumeric || t.OID == types.OidBool) {
			b.AppendNull() // a quoted number is a string to Spark
			return
		}
		text = x
	default: // an object or array for a scalar field: a string field keeps its JSON text
		if !jsonTextField(t) {
			b.AppendNull()
			return
		}
		var buf bytes.Buffer
		writeJSONStyled(&buf, v, ",", ":")
		text = buf.String()
	}
	if err := types.AppendParsedText(b, t, []byte(text), fs); err != nil {
		b.AppendNull()
	}
}

func jsonTextField(t types.T) bool {
	switch t.OID {
	case types.OidText, types.OidVarchar, types.OidBpchar, types.OidJSON, types.OidJSONB:
		return true
	}
	return false
}

func jsonIntField(t types.T) bool {
	switch t.OID {
	case types.OidInt2, types.OidInt4, types.OidInt8:
		return true
	}
	return false
}
