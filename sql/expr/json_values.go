package expr

import (
	"bytes"
	"encoding/json"
	"io"
	"sort"
	"strings"
	"unicode/utf8"

	"github.com/weir-sql/weir/sql/sqlerr"
)

// A small JSON document model for the json/jsonb functions: nil, bool,
// jsonNumber, string, []any, *jsonObject.

type jsonNumber string

type jsonObject struct {
	keys []string
	vals []any
}

func (o *jsonObject) get(k string) (any, bool) {
	for i := len(o.keys) - 1; i >= 0; i-- {
		if o.keys[i] == k {
			return o.vals[i], true
		}
	}
	return nil, false
}

func errInvalidJSON() error {
	return sqlerr.New(sqlerr.InvalidTextRepresentation, "invalid input syntax for type json")
}

// parseJSONDoc parses s keeping key order and duplicates.
func parseJSONDoc(s string) (any, error) {
	dec := json.NewDecoder(strings.NewReader(s))
	dec.UseNumber()
	v, err := parseJSONValue(dec, 0)
	if err != nil {
		if se, ok := err.(*sqlerr.Error); ok && se.Code == sqlerr.StatementTooComplex {
			return nil, err
		}
		return nil, errInvalidJSON()
	}
	if _, err := dec.Token(); err != io.EOF {
		return nil, errInvalidJSON()
	}
	return v, nil
}

// maxJSONDocDepth bounds how deeply a document may nest, as
// sql/types' jsonb input does (maxJSONDepth there): parsing, and every
// walk over a parsed document (canonical form, printing, paths), recurse
// once per level, and a string of brackets costs the client nothing.
// PostgreSQL's own check (max_stack_depth) refuses somewhere past 10,000.
const maxJSONDocDepth = 6000

func parseJSONValue(dec *json.Decoder, depth int) (any, error) {
	if depth > maxJSONDocDepth {
		return nil, sqlerr.StackDepthExceeded()
	}
	tok, err := dec.Token()
	if err != nil {
		return nil, err
	}
	switch t := tok.(type) {
	case json.Delim:
		switch t {
		case '{':
			o := &jsonObject{}
			for dec.More() {
				kt, err := dec.Token()
				if err != nil {
					return nil, err
				}
				k, _ := kt.(string)
				v, err := parseJSONValue(dec, depth+1)
				if err != nil {
					return nil, err
				}
				o.keys = append(o.keys, k)
				o.vals = append(o.vals, v)
			}
			_, err := dec.Token()
			return o, err
		case '[':
			arr := []any{}
			for dec.More() {
				v, err := parseJSONValue(dec, depth+1)
				if err != nil {
					return nil, err
				}
				arr = append(arr, v)
			}
			_, err := dec.Token()
			return arr, err
		}
		return nil, errInvalidJSON()
	case json.Number:
		return jsonNumber(t), nil
	}
	return tok, nil
}

// canonicalJSONB sorts object keys as jsonb does (shorter first, then
// bytewise) and keeps the last of duplicate keys.
func canonicalJSONB(v any) any {
	switch x := v.(type) {
	case *jsonObject:
		m := map[string]int{}
		o := &jsonObject{}
		for i, k := range x.keys {
			if j, ok := m[k]; ok {
				o.vals[j] = canonicalJSONB(x.vals[i])
				continue
			}
			m[k] = len(o.keys)
			o.keys = append(o.keys, k)
			o.vals = append(o.vals, canonicalJSONB(x.vals[i]))
		}
		idx := make([]int, len(o.keys))
		for i := range idx {
			idx[i] = i
		}
		sort.SliceStable(idx, func(a, b int) bool { return jsonbKeyLess(o.keys[idx[a]], o.keys[idx[b]]) })
		out := &jsonObject{keys: make([]string, len(idx)), vals: make([]any, len(idx))}
		for i, j := range idx {
			out.keys[i], out.vals[i] = o.keys[j], o.vals[j]
		}
		return out
	case []any:
		out := make([]any, len(x))
		for i, e := range x {
			out[i] = canonicalJSONB(e)
		}
		return out
	case jsonNumber:
		if d, err := parseNumeric(string(x)); err == nil {
			return jsonNumber(formatNumeric(d))
		}
	}
	return v
}

func jsonbKeyLess(a, b string) bool {
	if len(a) != len(b) {
		return len(a) < len(b)
	}
	return a < b
}

// writeJSONB appends v in jsonb's output form (", " and ": " separators).
func writeJSONB(buf *bytes.Buffer, v any) {
	writeJSONStyled(buf, v, ", ", ": ")
}

func writeJSONStyled(buf *bytes.Buffer, v any, comma, colon string) {
	switch x := v.(type) {
	case nil:
		buf.WriteString("null")
	case bool:
		if x {
			buf.WriteString("true")
		} else {
			buf.WriteString("false")
		}
	case jsonNumber:
		buf.WriteString(string(x))
	case string:
		writeJSONString(buf, x)
	case []any:
		buf.WriteByte('[')
		for i, e := range x {
			if i > 0 {
				buf.WriteString(comma)
			}
			writeJSONStyled(buf, e, comma, colon)
		}
		buf.WriteByte(']')
	case *jsonObject:
		buf.WriteByte('{')
		for i, k := range x.keys {
			if i > 0 {
				buf.WriteString(comma)
			}
			writeJSONString(buf, k)
			buf.WriteString(colon)
			writeJSONStyled(buf, x.vals[i], comma, colon)
		}
		buf.WriteByte('}')
	case rawJSON:
		buf.WriteString(string(x))
	}
}

// rawJSON is already-formatted json text embedded as is (json values).
type rawJSON string

// writeJSONString escapes as PostgreSQL's escape_json.
func writeJSONString(buf *bytes.Buffer, s string) {
	buf.WriteByte('"')
	for i := 0; i < len(s); {
		c := s[i]
		switch c {
		case '"':
			buf.WriteString(`\"`)
		case '\\':
			buf.WriteString(`\\`)
		case '\b':
			buf.WriteString(`\b`)
		case '\f':
			buf.WriteString(`\f`)
		case '\n':
			buf.WriteString(`\n`)
		case '\r':
			buf.WriteString(`\r`)
		case '\t':
			buf.WriteString(`\t`)
		default:
			if c < 0x20 {
				buf.WriteString(`\u00`)
				buf.WriteByte("0123456789abcdef"[c>>4])
				buf.WriteByte("0123456789abcdef"[c&15])
			} else if c < utf8.RuneSelf {
				buf.WriteByte(c)
			} else {
				_, n := utf8.DecodeRuneInString(s[i:])
				buf.WriteString(s[i : i+n])
				i += n
				continue
			}
		}
		i++
	}
	buf.WriteByte('"')
}

func jsonbText(v any) string {
	var buf bytes.Buffer
	writeJSONB(&buf, v)
	return buf.String()
}

// jsonTypeof names a value's JSON type.
func jsonTypeof(v any) string {
	switch v.(type) {
	case nil:
		return "null"
	case bool:
		return "boolean"
	case jsonNumber:
		return "number"
	case string:
		return "string"
	case []any:
		return "array"
	}
	return "object"
}

// jsonContains is jsonb @>.
func jsonContains(a, b any) bool {
	switch y := b.(type) {
	case *jsonObject:
		x, ok := a.(*jsonObject)
		if !ok {
			return false
		}
		for i, k := range y.keys {
			v, ok := x.get(k)
			if !ok || !jsonContains(v, y.vals[i]) {
				return false
			}
		}
		return true
	case []any:
		x, ok := a.([]any)
		if !ok {
			return false
		}
		for _, e := range y {
			found := false
			for _, f := range x {
				if jsonContains(f, e) {
					found = true
					break
				}
			}
			if !found {
				return false
			}
		}
		return true
	}
	if x, ok := a.([]any); ok {
		// A scalar is contained in an array holding it (top level).
		for _, f := range x {
			if jsonScalarEqual(f, b) {
				return true
			}
		}
		return false
	}
	return jsonScalarEqual(a, b)
}

func jsonScalarEqual(a, b any) bool {
	switch x := a.(type) {
	case jsonNumber:
		y, ok := b.(jsonNumber)
		return ok && cmpNumericText(string(x), string(y)) == 0
	case string:
		y, ok := b.(string)
		return ok && x == y
	case bool:
		y, ok := b.(bool)
		return ok && x == y
	case nil:
		return b == nil
	}
	return false
}
