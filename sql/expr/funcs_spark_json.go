package expr

import (
	"bytes"
	"encoding/json"
	"strconv"
	"strings"
	"sync"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"

	"github.com/weir-sql/weir/sql/sqlerr"
	"github.com/weir-sql/weir/sql/types"
)

// get_json_object(json, path), Databricks' (Hive's) JSON path extraction:
// $ then .name, ['name'] or ["name"], [n] and [*]. The result is text: a
// string value unquoted, any other value as compact JSON; NULL when the
// path finds nothing, the JSON is malformed or the path is (as Databricks
// returns NULL for both). A path with [*] gathers its matches into a JSON
// array, except a single match, which is returned as itself.
//
// The document is scanned in place, byte by byte (no decoding into Go
// values): a row costs a pass over its text and no allocation unless the
// answer needs unescaping or compacting.

type sparkJSONStep struct {
	key   string
	index int
	kind  byte // '.' member, '[' index, '*' every element
}

type sparkJSONPath struct {
	steps    []sparkJSONStep
	wildcard bool
}

var sparkJSONPathCache sync.Map // string -> *sparkJSONPath (nil: invalid)

// parseSparkJSONPath compiles path; ok false for a path Databricks does not
// accept.
func parseSparkJSONPath(path string) (*sparkJSONPath, bool) {
	if p, ok := sparkJSONPathCache.Load(path); ok {
		jp := p.(*sparkJSONPath)
		return jp, jp != nil
	}
	jp := compileSparkJSONPath(path)
	sparkJSONPathCache.Store(path, jp)
	return jp, jp != nil
}

func compileSparkJSONPath(path string) *sparkJSONPath {
	if !strings.HasPrefix(path, "$") {
		return nil
	}
	p := &sparkJSONPath{}
	s := path[1:]
	for len(s) > 0 {
		switch s[0] {
		case '.':
			s = s[1:]
			end := strings.IndexAny(s, ".[")
			if end < 0 {
				end = len(s)
			}
			name := s[:end]
			if name == "" {
				return nil
			}
			if name == "*" {
				p.steps = append(p.steps, sparkJSONStep{kind: '*'})
				p.wildcard = true
			} else {
				p.steps = append(p.steps, sparkJSONStep{kind: '.', key: name})
			}
			s = s[end:]
		case '[':
			end := strings.IndexByte(s, ']')
			if end < 0 {
				return nil
			}
			inner := s[1:end]
			switch {
			case inner == "*":
				p.steps = append(p.steps, sparkJSONStep{kind: '*'})
				p.wildcard = true
			case len(inner) >= 2 && (inner[0] == '\'' && inner[len(inner)-1] == '\'' || inner[0] == '"' && inner[len(inner)-1] == '"'):
				p.steps = append(p.steps, sparkJSONStep{kind: '.', key: inner[1 : len(inner)-1]})
			default:
				n, err := strconv.Atoi(inner)
				if err != nil || n < 0 || inner[0] == '+' {
					return nil
				}
				p.steps = append(p.steps, sparkJSONStep{kind: '[', index: n})
			}
			s = s[end+1:]
		default:
			return nil
		}
	}
	return p
}

const maxJSONDepth = 1000

func jsonSkipSpace(s string, i int) int {
	for i < len(s) && (s[i] == ' ' || s[i] == '\t' || s[i] == '\n' || s[i] == '\r') {
		i++
	}
	return i
}

// jsonStringEnd returns the index after the string starting at s[i] ('"')
// and whether it holds an escape.
func jsonStringEnd(s string, i int) (int, bool, bool) {
	esc := false
	for j := i + 1; j < len(s); j++ {
		switch c := s[j]; {
		case c == '\\':
			esc = true
			j++
		case c == '"':
			return j + 1, esc, true
		case c < 0x20:
			return 0, false, false
		}
	}
	return 0, false, false
}

// jsonValueEnd returns the index after the JSON value at s[i] (after
// spaces), checking its syntax.
func jsonValueEnd(s string, i, depth int) (int, bool) {
	i = jsonSkipSpace(s, i)
	if i >= len(s) || depth > maxJSONDepth {
		return 0, false
	}
	switch c := s[i]; {
	case c == '"':
		end, _, ok := jsonStringEnd(s, i)
		return end, ok
	case c == '{' || c == '[':
		close := byte('}')
		if c == '[' {
			close = ']'
		}
		i = jsonSkipSpace(s, i+1)
		if i < len(s) && s[i] == close {
			return i + 1, true
		}
		for {
			if c == '{' {
				i = jsonSkipSpace(s, i)
				if i >= len(s) || s[i] != '"' {
					return 0, false
				}
				end, _, ok := jsonStringEnd(s, i)
				if !ok {
					return 0, false
				}
				i = jsonSkipSpace(s, end)
				if i >= len(s) || s[i] != ':' {
					return 0, false
				}
				i++
			}
			end, ok := jsonValueEnd(s, i, depth+1)
			if !ok {
				return 0, false
			}
			i = jsonSkipSpace(s, end)
			if i >= len(s) {
				return 0, false
			}
			if s[i] == close {
				return i + 1, true
			}
			if s[i] != ',' {
				return 0, false
			}
			i++
		}
	case c == 't':
		return jsonLiteralEnd(s, i, "true")
	case c == 'f':
		return jsonLiteralEnd(s, i, "false")
	case c == 'n':
		return jsonLiteralEnd(s, i, "null")
	case c == '-' || '0' <= c && c <= '9':
		j := i
		if s[j] == '-' {
			j++
		}
		start := j
		for j < len(s) && ('0' <= s[j] && s[j] <= '9' || s[j] == '.' || s[j] == 'e' || s[j] == 'E' || s[j] == '+' || s[j] == '-') {
			j++
		}
		if j == start || !json.Valid([]byte(s[i:j])) {
			return 0, false
		}
		return j, true
	}
	return 0, false
}

func jsonLiteralEnd(s string, i int, lit string) (int, bool) {
	if strings.HasPrefix(s[i:], lit) {
		return i + len(lit), true
	}
	return 0, false
}

// jsonMember finds key in the object at s[i:end] (a valid object): the
// [start, end) of its value (first occurrence).
func jsonMember(s string, i int, key string) (int, int, bool) {
	i = jsonSkipSpace(s, i+1)
	for i < len(s) && s[i] == '"' {
		kend, esc, _ := jsonStringEnd(s, i)
		k := s[i+1 : kend-1]
		if esc {
			k = jsonUnquote(s[i:kend])
		}
		vstart := jsonSkipSpace(s, jsonSkipSpace(s, kend)+1)
		vend, _ := jsonValueEnd(s, vstart, 0)
		if k == key {
			return vstart, vend, true
		}
		i = jsonSkipSpace(s, vend)
		if i < len(s) && s[i] == ',' {
			i = jsonSkipSpace(s, i+1)
		}
	}
	return 0, 0, false
}

// jsonElements calls f with the [start, end) of each element of the
// array at s[i] (a valid array).
func jsonElements(s string, i int, f func(start, end int)) {
	i = jsonSkipSpace(s, i+1)
	for i < len(s) && s[i] != ']' {
		end, _ := jsonValueEnd(s, i, 0)
		f(i, end)
		i = jsonSkipSpace(s, end)
		if i < len(s) && s[i] == ',' {
			i = jsonSkipSpace(s, i+1)
		}
	}
}

func jsonUnquote(q string) string {
	var out string
	if err := json.Unmarshal([]byte(q), &out); err != nil {
		return q[1 : len(q)-1]
	}
	return out
}

// evalJSONPath collects the values steps reach from the value at
// s[start:end], appending their bounds to out.
func evalJSONPath(s string, start, end int, steps []sparkJSONStep, out [][2]int) [][2]int {
	if len(steps) == 0 {
		return append(out, [2]int{start, end})
	}
	st := steps[0]
	switch st.kind {
	case '.':
		if s[start] != '{' {
			return out
		}
		if vs, ve, ok := jsonMember(s, start, st.key); ok {
			return evalJSONPath(s, vs, ve, steps[1:], out)
		}
	case '[':
		if s[start] != '[' {
			return out
		}
		k := 0
		jsonElements(s, start, func(es, ee int) {
			if k == st.index {
				out = evalJSONPath(s, es, ee, steps[1:], out)
			}
			k++
		})
	case '*':
		if s[start] != '[' {
			return out
		}
		jsonElements(s, start, func(es, ee int) {
			out = evalJSONPath(s, es, ee, steps[1:], out)
		})
	}
	return out
}

// appendJSONCompact appends the JSON value s without insignificant
// spaces.
func appendJSONCompact(buf []byte, s string) []byte {
	if !strings.ContainsAny(s, " \t\n\r") {
		return append(buf, s...)
	}
	var b bytes.Buffer
	if err := json.Compact(&b, []byte(s)); err != nil {
		return append(buf, s...)
	}
	return append(buf, b.Bytes()...)
}

// getJSONObject answers one row; ok false is NULL.
func getJSONObject(buf []byte, doc string, p *sparkJSONPath, matches [][2]int) ([]byte, [][2]int, bool) {
	start := jsonSkipSpace(doc, 0)
	end, ok := jsonValueEnd(doc, start, 0)
	if !ok || jsonSkipSpace(doc, end) != len(doc) {
		return buf, matches, false
	}
	matches = evalJSONPath(doc, start, end, p.steps, matches[:0])
	switch {
	case len(matches) == 0:
		return buf, matches, false
	case len(matches) == 1 || !p.wildcard:
		v := doc[matches[0][0]:matches[0][1]]
		switch v[0] {
		case 'n':
			return buf, matches, false
		case '"':
			if _, esc, _ := jsonStringEnd(v, 0); esc {
				return append(buf, jsonUnquote(v)...), matches, true
			}
			return append(buf, v[1:len(v)-1]...), matches, true
		}
		return appendJSONCompact(buf, v), matches, true
	}
	buf = append(buf, '[')
	for k, m := range matches {
		if k > 0 {
			buf = append(buf, ',')
		}
		buf = appendJSONCompact(buf, doc[m[0]:m[1]])
	}
	return append(buf, ']'), matches, true
}

func getJSONObjectKernel(ctx *Ctx, args []arrow.Array, n int) (arrow.Array, error) {
	ja, ok1 := args[0].(*array.String)
	pa, ok2 := args[1].(*array.String)
	if !ok1 || !ok2 {
		return nil, sqlerr.New(sqlerr.InternalError, "get_json_object: unexpected argument columns")
	}
	b := newTextBuilder(ctx, n, len(ja.ValueBytes())/4)
	defer b.Release()
	var buf []byte
	var matches [][2]int
	var lastPath string
	var path *sparkJSONPath
	pathOK, havePath := false, false
	for i := 0; i < n; i++ {
		if i&255 == 255 && ctx.Canceled() {
			return nil, errCanceled()
		}
		if ja.IsNull(i) || pa.IsNull(i) {
			b.AppendNull()
			continue
		}
		if p := pa.Value(i); !havePath || p != lastPath {
			lastPath, havePath = p, true
			path, pathOK = parseSparkJSONPath(p)
		}
		if !pathOK {
			b.AppendNull()
			continue
		}
		var ok bool
		buf, matches, ok = getJSONObject(buf[:0], ja.Value(i), path, matches)
		if !ok {
			b.AppendNull()
			continue
		}
		b.BinaryBuilder.Append(buf)
	}
	return b.NewArray(), nil
}

func init() {
	for _, t := range []types.T{types.Text, types.JSON, types.JSONB} {
		RegisterScalar("get_json_object", Overload{Args: []types.T{t, types.Text}, Ret: types.Text, Impl: getJSONObjectKernel})
	}
}

// jsonTupleField is _json_tuple_field(json, key): json_tuple's value of
// one top-level key (FROM json_tuple(json, k1, k2, ...) unnests one of
// these per key), as get_json_object(json, '$.key') reads it, the key
// taken literally (dots and brackets included).
func jsonTupleField(ctx *Ctx, args []arrow.Array, n int) (arrow.Array, error) {
	ja, ok1 := args[0].(*array.String)
	ka, ok2 := args[1].(*array.String)
	if !ok1 || !ok2 {
		return nil, sqlerr.New(sqlerr.InternalError, "json_tuple: unexpected argument columns")
	}
	b := newTextBuilder(ctx, n, len(ja.ValueBytes())/4)
	defer b.Release()
	var buf []byte
	var matches [][2]int
	path := &sparkJSONPath{steps: []sparkJSONStep{{kind: '.'}}}
	for i := 0; i < n; i++ {
		if ja.IsNull(i) || ka.IsNull(i) {
			b.AppendNull()
			continue
		}
		path.steps[0].key = ka.Value(i)
		var ok bool
		buf, matches, ok = getJSONObject(buf[:0], ja.Value(i), path, matches)
		if !ok {
			b.AppendNull()
			continue
		}
		b.BinaryBuilder.Append(buf)
	}
	return b.NewArray(), nil
}

func init() {
	RegisterScalar("_json_tuple_field", Overload{Args: []types.T{types.Text, types.Text}, Ret: types.Text, Impl: jsonTupleField})
}
