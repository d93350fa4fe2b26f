package files

import (
	"bytes"
	"encoding/binary"
	"unicode/utf8"
)

// JSON lines: one JSON object per line (Spark's json format without
// multiLine). The scanner is written here rather than taken from a JSON
// library because a line is read in two passes that a library's
// decoder does not offer cheaply: the first checks the whole line and
// finds its top-level fields (so a malformed line is rescued whole, before
// any column has a value from it), the second converts each field straight
// into its column's builder, with no map, interface or string per value.
// (BenchmarkDecodeJSON measures it against goccy/go-json and
// encoding/json decoding the same lines into structs.)
//
// Blank lines are skipped; a line that is not one JSON object is rescued
// whole (_corrupt_record); a field given twice keeps its first value and
// rescues the later one.

type jsonKind uint8

const (
	jsonString jsonKind = iota
	jsonNumber
	jsonTrue
	jsonFalse
	jsonNull
	jsonObject
	jsonArray
)

// jsonField is one top-level field of a line, as spans of the line.
type jsonField struct {
	key    []byte // the key token, quotes included
	val    []byte // the value's JSON text
	kind   jsonKind
	keyEsc bool // key has escapes
	valEsc bool // a string value has escapes
	isInt  bool // a number without fraction or exponent; a string all ASCII
	col    int  // its column when the key was predicted (-1: none), -2 unknown yet
}

// jsonScanner checks JSON text and splits a line into its fields. Its
// buffers are reused line to line.
type jsonScanner struct {
	fields  []jsonField
	stack   []byte
	scratch []byte
	order   []int // column of each field position in the previous line
	// expect holds, per field position, the key token ("name") of the
	// column the previous line had there, when that name is a plain
	// token (no quote, backslash or control character); else nil.
	expect [][]byte
}

func skipWS(s []byte, i int) int {
	for i < len(s) {
		switch s[i] {
		case ' ', '\t', '\r', '\n':
			i++
		default:
			return i
		}
	}
	return i
}

const (
	lsb = 0x0101010101010101
	msb = 0x8080808080808080
)

// strStop marks the bytes a string scan stops at: the closing quote, a
// backslash, and control characters (invalid in JSON strings).
var strStop = func() (t [256]bool) {
	for c := 0; c < 0x20; c++ {
		t[c] = true
	}
	t['"'], t['\\'] = true, true
	return t
}()

// str scans the string token starting at s[i] == '"'; it returns the
// index after the closing quote, whether it has escapes, and whether it
// is all ASCII (then, without escapes, it is valid text as it stands).
func (sc *jsonScanner) str(s []byte, i int) (end int, esc, ascii, ok bool) {
	i++
	var acc byte
	// Eight bytes at a time while none of them stops the scan (SWAR: a
	// word has a byte below 0x20, or equal to '"' or '\\', exactly when
	// these tests set a high bit).
	var acc8 uint64
	for i+8 <= len(s) {
		x := binary.LittleEndian.Uint64(s[i:])
		q := x ^ (lsb * '"')
		bs := x ^ (lsb * '\\')
		stop := ((x - lsb*0x20) & ^x) | ((q - lsb) & ^q) | ((bs - lsb) & ^bs)
		if stop&msb != 0 {
			break
		}
		acc8 |= x
		i += 8
	}
	if acc8&msb != 0 {
		acc = 0x80
	}
	for {
		for i < len(s) && !strStop[s[i]] {
			acc |= s[i]
			i++
		}
		if i >= len(s) {
			return 0, false, false, false
		}
		switch c := s[i]; {
		case c == '"':
			return i + 1, esc, !esc && acc < utf8.RuneSelf, true
		case c == '\\':
			esc = true
			if i+1 >= len(s) {
				return 0, false, false, false
			}
			switch s[i+1] {
			case '"', '\\', '/', 'b', 'f', 'n', 'r', 't':
				i += 2
			case 'u':
				if i+6 > len(s) || !isHex(s[i+2]) || !isHex(s[i+3]) || !isHex(s[i+4]) || !isHex(s[i+5]) {
					return 0, false, false, false
				}
				i += 6
			default:
				return 0, false, false, false
			}
		default: // a control character
			return 0, false, false, false
		}
	}
}

func isHex(c byte) bool {
	return c >= '0' && c <= '9' || c >= 'a' && c <= 'f' || c >= 'A' && c <= 'F'
}

// number scans a JSON number at s[i]; it returns the end and whether it
// is an integer.
func number(s []byte, i int) (int, bool, bool) {
	if i < len(s) && s[i] == '-' {
		i++
	}
	if i >= len(s) {
		return 0, false, false
	}
	if s[i] == '0' {
		i++
	} else if s[i] >= '1' && s[i] <= '9' {
		for i < len(s) && s[i] >= '0' && s[i] <= '9' {
			i++
		}
	} else {
		return 0, false, false
	}
	isInt := true
	if i < len(s) && s[i] == '.' {
		isInt = false
		i++
		st := i
		for i < len(s) && s[i] >= '0' && s[i] <= '9' {
			i++
		}
		if i == st {
			return 0, false, false
		}
	}
	if i < len(s) && (s[i] == 'e' || s[i] == 'E') {
		isInt = false
		i++
		if i < len(s) && (s[i] == '+' || s[i] == '-') {
			i++
		}
		st := i
		for i < len(s) && s[i] >= '0' && s[i] <= '9' {
			i++
		}
		if i == st {
			return 0, false, false
		}
	}
	return i, isInt, true
}

// scalar scans a value that is not a container.
func (sc *jsonScanner) scalar(s []byte, i int) (end int, kind jsonKind, esc, isInt, ok bool) {
	if i >= len(s) {
		return 0, 0, false, false, false
	}
	switch c := s[i]; {
	case c == '"':
		// isInt reports, for strings, that they are ASCII.
		end, esc, isInt, ok = sc.str(s, i)
		return end, jsonString, esc, isInt, ok
	case c == '-' || c >= '0' && c <= '9':
		end, isInt, ok = number(s, i)
		return end, jsonNumber, false, isInt, ok
	case c == 't':
		return i + 4, jsonTrue, false, false, bytes.HasPrefix(s[i:], []byte("true"))
	case c == 'f':
		return i + 5, jsonFalse, false, false, bytes.HasPrefix(s[i:], []byte("false"))
	case c == 'n':
		return i + 4, jsonNull, false, false, bytes.HasPrefix(s[i:], []byte("null"))
	}
	return 0, 0, false, false, false
}

// key scans `"key" :` at s[i] and the space after it.
func (sc *jsonScanner) key(s []byte, i int) (int, bool) {
	if i >= len(s) || s[i] != '"' {
		return 0, false
	}
	end, _, _, ok := sc.str(s, i)
	if !ok {
		return 0, false
	}
	i = skipWS(s, end)
	if i >= len(s) || s[i] != ':' {
		return 0, false
	}
	return skipWS(s, i+1), true
}

// container scans the object or array starting at s[i], however deeply
// nested (iteratively: its depth is bounded by memory, not the stack).
func (sc *jsonScanner) container(s []byte, i int) (int, bool) {
	stack := sc.stack[:0]
	defer func() { sc.stack = stack[:0] }()
	for {
		// i is at the start of a value.
		if i >= len(s) {
			return 0, false
		}
		c := s[i]
		if c == '{' || c == '[' {
			stack = append(stack, c)
			i = skipWS(s, i+1)
			if i >= len(s) {
				return 0, false
			}
			if c == '{' && s[i] == '}' || c == '[' && s[i] == ']' {
				i++
				stack = stack[:len(stack)-1]
			} else {
				if c == '{' {
					var ok bool
					if i, ok = sc.key(s, i); !ok {
						return 0, false
					}
				}
				continue
			}
		} else {
			end, _, _, _, ok := sc.scalar(s, i)
			if !ok {
				return 0, false
			}
			i = end
		}
		// After a value: close containers or go on to the next element.
		for {
			if len(stack) == 0 {
				return i, true
			}
			i = skipWS(s, i)
			if i >= len(s) {
				return 0, false
			}
			top := stack[len(stack)-1]
			if s[i] == ',' {
				i = skipWS(s, i+1)
				if top == '{' {
					var ok bool
					if i, ok = sc.key(s, i); !ok {
						return 0, false
					}
				}
				break
			}
			if top == '{' && s[i] == '}' || top == '[' && s[i] == ']' {
				i++
				stack = stack[:len(stack)-1]
				continue
			}
			return 0, false
		}
	}
}

// value scans any value at s[i] into f's value fields.
func (sc *jsonScanner) value(s []byte, i int, f *jsonField) (int, bool) {
	if i < len(s) && (s[i] == '{' || s[i] == '[') {
		end, ok := sc.container(s, i)
		if !ok {
			return 0, false
		}
		f.kind = jsonObject
		if s[i] == '[' {
			f.kind = jsonArray
		}
		f.val = s[i:end]
		return end, true
	}
	end, kind, esc, isInt, ok := sc.scalar(s, i)
	if !ok {
		return 0, false
	}
	f.kind, f.valEsc, f.isInt, f.val = kind, esc, isInt, s[i:end]
	return end, true
}

// parseLine checks that line is one JSON object and splits it into
// sc.fields; false when it is not (sc.fields then means nothing).
func (sc *jsonScanner) parseLine(s []byte) bool {
	sc.fields = sc.fields[:0]
	i := skipWS(s, 0)
	if i >= len(s) || s[i] != '{' {
		return false
	}
	i = skipWS(s, i+1)
	if i < len(s) && s[i] == '}' {
		return skipWS(s, i+1) == len(s)
	}
	for {
		if i >= len(s) || s[i] != '"' {
			return false
		}
		// The field is built in its slot: no copy of it per field.
		k := len(sc.fields)
		if k < cap(sc.fields) {
			sc.fields = sc.fields[:k+1]
			sc.fields[k] = jsonField{}
		} else {
			sc.fields = append(sc.fields, jsonField{})
		}
		f := &sc.fields[k]
		var end int
		if k < len(sc.expect) && len(sc.expect[k]) > 0 && bytes.HasPrefix(s[i:], sc.expect[k]) {
			// The key the previous line had here, as written: a plain
			// string token, no need to scan it.
			end = i + len(sc.expect[k])
			f.col = sc.order[k]
		} else {
			var esc, ok bool
			if end, esc, _, ok = sc.str(s, i); !ok {
				return false
			}
			f.keyEsc, f.col = esc, -2
		}
		f.key = s[i:end]
		var ok bool
		i = skipWS(s, end)
		if i >= len(s) || s[i] != ':' {
			return false
		}
		if i, ok = sc.value(s, skipWS(s, i+1), f); !ok {
			return false
		}
		i = skipWS(s, i)
		if i >= len(s) {
			return false
		}
		if s[i] == '}' {
			return skipWS(s, i+1) == len(s)
		}
		if s[i] != ',' {
			return false
		}
		i = skipWS(s, i+1)
	}
}

// unescape appends the content of a checked string token (quotes
// included) with its escapes resolved; a lone surrogate becomes U+FFFD.
func unescape(dst, tok []byte) []byte {
	s := tok[1 : len(tok)-1]
	for i := 0; i < len(s); {
		c := s[i]
		if c != '\\' {
			j := bytes.IndexByte(s[i:], '\\')
			if j < 0 {
				return append(dst, s[i:]...)
			}
			dst = append(dst, s[i:i+j]...)
			i += j
			continue
		}
		switch s[i+1] {
		case 'b':
			dst = append(dst, '\b')
		case 'f':
			dst = append(dst, '\f')
		case 'n':
			dst = append(dst, '\n')
		case 'r':
			dst = append(dst, '\r')
		case 't':
			dst = append(dst, '\t')
		case 'u':
			r := rune(hex4(s[i+2 : i+6]))
			i += 6
			if r >= 0xD800 && r < 0xDC00 {
				if i+6 <= len(s) && s[i] == '\\' && s[i+1] == 'u' {
					if lo := rune(hex4(s[i+2 : i+6])); lo >= 0xDC00 && lo < 0xE000 {
						r = 0x10000 + (r-0xD800)<<10 + (lo - 0xDC00)
						i += 6
						dst = utf8.AppendRune(dst, r)
						continue
					}
				}
				r = utf8.RuneError
			} else if r >= 0xDC00 && r < 0xE000 {
				r = utf8.RuneError
			}
			dst = utf8.AppendRune(dst, r)
			continue
		default: // " \ /
			dst = append(dst, s[i+1])
		}
		i += 2
	}
	return dst
}

func hex4(h []byte) int {
	v := 0
	for _, c := range h {
		v <<= 4
		switch {
		case c >= '0' && c <= '9':
			v |= int(c - '0')
		case c >= 'a' && c <= 'f':
			v |= int(c-'a') + 10
		default:
			v |= int(c-'A') + 10
		}
	}
	return v
}

// content is a string token's text: a span of the token, or its
// unescaped form in sc.scratch.
func (sc *jsonScanner) content(tok []byte, esc bool) []byte {
	if !esc {
		return tok[1 : len(tok)-1]
	}
	st := len(sc.scratch)
	sc.scratch = unescape(sc.scratch, tok)
	return sc.scratch[st:]
}

// arrayLiteral turns a JSON array of scalars into PostgreSQL's array
// literal; false when it holds a container or is not an array.
func (sc *jsonScanner) arrayLiteral(raw []byte) ([]byte, bool) {
	out := []byte{'{'}
	i := skipWS(raw, 0)
	if i >= len(raw) || raw[i] != '[' {
		return nil, false
	}
	i = skipWS(raw, i+1)
	if i < len(raw) && raw[i] == ']' {
		return append(out, '}'), true
	}
	var tmp []byte
	for n := 0; ; n++ {
		end, kind, esc, _, ok := sc.scalar(raw, i)
		if !ok {
			return nil, false
		}
		if n > 0 {
			out = append(out, ',')
		}
		switch kind {
		case jsonString:
			tmp = unescape(tmp[:0], raw[i:end])
			if !esc {
				tmp = append(tmp[:0], raw[i+1:end-1]...)
			}
			out = append(out, '"')
			for _, c := range tmp {
				if c == '"' || c == '\\' {
					out = append(out, '\\')
				}
				out = append(out, c)
			}
			out = append(out, '"')
		case jsonNull:
			out = append(out, "NULL"...)
		default:
			out = append(out, raw[i:end]...)
		}
		i = skipWS(raw, end)
		if i >= len(raw) {
			return nil, false
		}
		if raw[i] == ']' {
			return append(out, '}'), skipWS(raw, i+1) == len(raw)
		}
		if raw[i] != ',' {
			return nil, false
		}
		i = skipWS(raw, i+1)
	}
}

// decodeJSON decodes JSON lines into w.
func decodeJSON(data []byte, w *batchWriter) {
	var sc jsonScanner
	data = bytes.TrimPrefix(data, utf8BOM)
	line := int64(0)
	for pos := 0; pos < len(data); {
		end := bytes.IndexByte(data[pos:], '\n')
		if end < 0 {
			end = len(data)
		} else {
			end += pos
		}
		l := data[pos:end]
		pos = end + 1
		line++
		if len(l) > 0 && l[len(l)-1] == '\r' {
			l = l[:len(l)-1]
		}
		if skipWS(l, 0) == len(l) {
			continue
		}
		w.beginRow(line, l)
		if !sc.parseLine(l) {
			if w.rescuing() {
				w.resc.addString("_corrupt_record", l)
			}
			w.endRow()
			continue
		}
		sc.jsonRow(w)
		w.endRow()
	}
}

// jsonRow puts the fields of a parsed line into their columns.
func (sc *jsonScanner) jsonRow(w *batchWriter) {
	sc.scratch = sc.scratch[:0]
	for k := range sc.fields {
		f := &sc.fields[k]
		name := sc.content(f.key, f.keyEsc)
		ci := f.col
		if ci == -2 {
			ci = w.column(name)
			for len(sc.order) <= k {
				sc.order = append(sc.order, -1)
				sc.expect = append(sc.expect, nil)
			}
			sc.order[k] = ci
			sc.expect[k] = nil
			if ci >= 0 && !f.keyEsc {
				sc.expect[k] = w.keyTokens[ci]
			}
		}
		if ci >= 0 && w.skipped(ci) {
			continue // not read: the line was checked, the value is not needed
		}
		if ci < 0 {
			if f.kind == jsonNull {
				continue
			}
			w.newCols.observe(name, jsonInferKind(f, w.inferOff))
			sc.rescue(w, f, name)
			continue
		}
		if w.has(ci) {
			if f.kind != jsonNull {
				sc.rescue(w, f, name)
			}
			continue
		}
		c := &w.cols[ci]
		var ok bool
		switch f.kind {
		case jsonNull:
			w.setNull(ci)
			continue
		case jsonString:
			if c.kind == kindText && f.isInt && !f.valEsc {
				// ASCII without control characters: text as it stands.
				c.str.BinaryBuilder.Append(f.val[1 : len(f.val)-1])
				ok = true
			} else {
				ok = c.appendJSONString(f.val, sc.content(f.val, f.valEsc))
			}
		case jsonNumber:
			ok = c.appendJSONText(f.val, true)
		case jsonTrue, jsonFalse:
			ok = c.appendJSONBool(f.kind == jsonTrue)
		default:
			ok = c.appendJSONText(f.val, false)
		}
		if ok {
			w.mark(ci)
			continue
		}
		w.failed(ci)
		sc.rescue(w, f, name)
	}
}

// rescue adds field f to the row's rescued data as written, unless its
// text is not UTF-8 (which jsonb cannot hold): then its key and a string
// value with the bad bytes replaced.
func (sc *jsonScanner) rescue(w *batchWriter, f *jsonField, name []byte) {
	if !w.rescuing() {
		return
	}
	if utf8.Valid(f.key) && utf8.Valid(f.val) {
		w.resc.addRawKey(f.key, f.val)
		return
	}
	text := f.val
	if f.kind == jsonString {
		text = sc.content(f.val, f.valEsc)
	}
	w.resc.addString(string(name), text)
}

var utf8BOM = []byte{0xEF, 0xBB, 0xBF}
