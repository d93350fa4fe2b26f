package files

import (
	"strconv"
	"unicode/utf8"
)

// Rescued data, as Databricks' _rescued_data: a JSON object per row that
// had something not fitting its schema, else NULL. It holds
//   - each value that did not parse as its column's type, under the
//     column's name, as it was written (a JSON value as its JSON text, a
//     CSV cell as a string);
//   - each field the schema lacks (also one whose name differs from a
//     column's only in case: names are matched exactly, as Auto Loader's
//     readerCaseSensitive default does);
//   - a line that is not a JSON object, or a CSV row whose cell count is
//     not the header's, whole, under "_corrupt_record";
//   - and, when any of those is there, "_file_path" and "_line" (the
//     1-based line the row starts on), so a bad value can be found again.
// The column is jsonb: the object is normalized as jsonb input is.

// rescueBuf collects one row's rescued entries as JSON object text.
type rescueBuf struct {
	buf []byte
	n   int // entries so far
}

func (r *rescueBuf) reset() { r.buf = r.buf[:0]; r.n = 0 }

func (r *rescueBuf) empty() bool { return r.n == 0 }

func (r *rescueBuf) sep() {
	if r.n == 0 {
		r.buf = append(r.buf, '{')
	} else {
		r.buf = append(r.buf, ',')
	}
	r.n++
}

// addRawKey adds an entry whose key is a JSON string token as written
// (quotes included) and whose value is valid JSON text.
func (r *rescueBuf) addRawKey(rawKey, rawValue []byte) {
	r.sep()
	r.buf = append(r.buf, rawKey...)
	r.buf = append(r.buf, ':')
	r.buf = append(r.buf, rawValue...)
}

// addJSON adds key: rawValue, rawValue being valid JSON text.
func (r *rescueBuf) addJSON(key string, rawValue []byte) {
	r.sep()
	r.buf = appendJSONString(r.buf, key)
	r.buf = append(r.buf, ':')
	r.buf = append(r.buf, rawValue...)
}

// addString adds key: "text", text JSON-escaped.
func (r *rescueBuf) addString(key string, text []byte) {
	r.sep()
	r.buf = appendJSONString(r.buf, key)
	r.buf = append(r.buf, ':')
	r.buf = appendJSONString(r.buf, text)
}

// finish closes the object with where the row came from.
func (r *rescueBuf) finish(path string, line int64) []byte {
	r.sep()
	r.buf = append(r.buf, `"_file_path":`...)
	r.buf = appendJSONString(r.buf, path)
	r.buf = append(r.buf, `,"_line":`...)
	r.buf = strconv.AppendInt(r.buf, line, 10)
	r.buf = append(r.buf, '}')
	return r.buf
}

// appendJSONString appends s as a JSON string that jsonb accepts whatever
// s holds: bytes that are not UTF-8, and NUL (which jsonb's text cannot
// hold), become U+FFFD.
func appendJSONString[S ~string | ~[]byte](out []byte, s S) []byte {
	out = append(out, '"')
	for i := 0; i < len(s); {
		c := s[i]
		if c >= 0x20 && c < utf8.RuneSelf && c != '"' && c != '\\' {
			out = append(out, c)
			i++
			continue
		}
		switch c {
		case '"':
			out = append(out, '\\', '"')
		case '\\':
			out = append(out, '\\', '\\')
		case '\n':
			out = append(out, '\\', 'n')
		case '\r':
			out = append(out, '\\', 'r')
		case '\t':
			out = append(out, '\\', 't')
		case 0:
			out = append(out, "\uFFFD"...)
		default:
			if c < 0x20 {
				out = append(out, '\\', 'u', '0', '0', hexDigit[c>>4], hexDigit[c&15])
				break
			}
			rn, n := decodeRune(s[i:])
			if rn == utf8.RuneError && n <= 1 {
				out = append(out, "\uFFFD"...)
				i++
				continue
			}
			out = append(out, s[i:i+n]...)
			i += n
			continue
		}
		i++
	}
	return append(out, '"')
}

func decodeRune[S ~string | ~[]byte](s S) (rune, int) {
	switch v := any(s).(type) {
	case string:
		return utf8.DecodeRuneInString(v)
	case []byte:
		return utf8.DecodeRune(v)
	}
	return utf8.DecodeRuneInString(string(s))
}

const hexDigit = "0123456789abcdef"
