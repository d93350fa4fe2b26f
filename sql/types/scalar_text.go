package types

import (
	"strconv"
	"unicode/utf8"

	"github.com/weir-sql/weir/sql/sqlerr"
)

// isPGSpace is C isspace in the C locale, which PostgreSQL's input
// functions use to trim.
func isPGSpace(c byte) bool {
	return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\v' || c == '\f'
}

func trimSpace(s []byte) []byte {
	for len(s) > 0 && isPGSpace(s[0]) {
		s = s[1:]
	}
	for len(s) > 0 && isPGSpace(s[len(s)-1]) {
		s = s[:len(s)-1]
	}
	return s
}

func appendInt(buf []byte, v int64) []byte { return strconv.AppendInt(buf, v, 10) }

// parseBool is boolin: whitespace-trimmed, case-insensitive, and any
// unambiguous prefix of true/false/yes/no, plus on/off/1/0.
func parseBool(t T, s []byte) (datum, error) {
	v := trimSpace(s)
	if v, ok := parseBoolWord(v); ok {
		if v {
			return datum{i: 1}, nil
		}
		return datum{}, nil
	}
	return datum{}, errInvalidSyntax(t, s)
}

func parseBoolWord(v []byte) (bool, bool) {
	prefixOf := func(word string, min int) bool {
		if len(v) < min || len(v) > len(word) {
			return false
		}
		for i := range v {
			if lower(v[i]) != word[i] {
				return false
			}
		}
		return true
	}
	if len(v) == 0 {
		return false, false
	}
	switch lower(v[0]) {
	case 't':
		return true, prefixOf("true", 1)
	case 'y':
		return true, prefixOf("yes", 1)
	case 'f':
		return false, prefixOf("false", 1)
	case 'n':
		return false, prefixOf("no", 1)
	case 'o':
		if prefixOf("on", 2) {
			return true, true
		}
		return false, prefixOf("off", 2)
	case '1':
		return true, len(v) == 1
	case '0':
		return false, len(v) == 1
	}
	return false, false
}

func lower(c byte) byte {
	if 'A' <= c && c <= 'Z' {
		return c + 'a' - 'A'
	}
	return c
}

// parseIntText is pg_strtoint16/32/64: optional whitespace, sign, decimal
// digits, optional whitespace.
func parseIntText(t T, s []byte) (datum, error) {
	v := trimSpace(s)
	neg := false
	if len(v) > 0 && (v[0] == '-' || v[0] == '+') {
		neg = v[0] == '-'
		v = v[1:]
	}
	if len(v) == 0 {
		return datum{}, errInvalidSyntax(t, s)
	}
	// Accumulate negatively so that the minimum value fits.
	var acc int64
	overflow := false
	for _, c := range v {
		if c < '0' || c > '9' {
			return datum{}, errInvalidSyntax(t, s)
		}
		d := int64(c - '0')
		if acc < (-1<<63+d)/10 {
			overflow = true
			continue
		}
		acc = acc*10 - d
	}
	if !neg {
		if acc == -1<<63 {
			overflow = true
		}
		acc = -acc
	}
	lo, hi := intRange(t.OID)
	if overflow || acc < lo || acc > hi {
		return datum{}, errOutOfRange(t, s)
	}
	return datum{i: acc}, nil
}

func intRange(oid uint32) (int64, int64) {
	switch oid {
	case OidInt2:
		return -1 << 15, 1<<15 - 1
	case OidInt4:
		return -1 << 31, 1<<31 - 1
	}
	return -1 << 63, 1<<63 - 1
}

// parseOidText is oidin: strtoul semantics, where a negative number that
// fits in int32 wraps around as PostgreSQL allows.
func parseOidText(t T, s []byte) (datum, error) {
	v := trimSpace(s)
	neg := false
	body := v
	if len(body) > 0 && (body[0] == '-' || body[0] == '+') {
		neg = body[0] == '-'
		body = body[1:]
	}
	if len(body) == 0 {
		return datum{}, errInvalidSyntax(t, s)
	}
	var acc uint64
	for _, c := range body {
		if c < '0' || c > '9' {
			return datum{}, errInvalidSyntax(t, s)
		}
		acc = acc*10 + uint64(c-'0')
		if acc > 1<<32 {
			return datum{}, errOutOfRange(t, s)
		}
	}
	if neg {
		if acc > 1<<31 {
			return datum{}, errOutOfRange(t, s)
		}
		return datum{i: int64(uint32(-int64(acc)))}, nil
	}
	if acc > 1<<32-1 {
		return datum{}, errOutOfRange(t, s)
	}
	return datum{i: int64(acc)}, nil
}

// checkUTF8 rejects what PostgreSQL's UTF8 encoding check rejects: invalid
// sequences and NUL bytes.
func checkUTF8(s []byte) error {
	for i := 0; i < len(s); {
		c := s[i]
		if c != 0 && c < utf8.RuneSelf {
			i++
			continue
		}
		r, n := utf8.DecodeRune(s[i:])
		if c == 0 || r == utf8.RuneError && n <= 1 {
			return errBadEncoding(s[i:])
		}
		i += n
	}
	return nil
}

// errBadEncoding reports the bytes of the offending character as
// PostgreSQL's report_invalid_encoding does.
func errBadEncoding(s []byte) *sqlerr.Error {
	l := 1
	switch c := s[0]; {
	case c&0xe0 == 0xc0:
		l = 2
	case c&0xf0 == 0xe0:
		l = 3
	case c&0xf8 == 0xf0:
		l = 4
	}
	if l > len(s) {
		l = len(s)
	}
	msg := make([]byte, 0, 5*l)
	for j := 0; j < l; j++ {
		if j > 0 {
			msg = append(msg, ' ')
		}
		msg = append(msg, '0', 'x', hexDigits[s[j]>>4], hexDigits[s[j]&15])
	}
	return sqlerr.New(codeCharacterNotInRepertoire, "invalid byte sequence for encoding \"UTF8\": %s", msg)
}

// maxNameBytes is NAMEDATALEN-1.
const maxNameBytes = 63

// parseString is the input function of the string types, applying the
// length modifier of varchar(n) and char(n).
func parseString(t T, s []byte) (datum, error) {
	if err := checkUTF8(s); err != nil {
		return datum{}, err
	}
	switch t.OID {
	case OidVarchar, OidBpchar:
		out, err := applyCharLength(t, s, false)
		return datum{s: out}, err
	case OidName:
		if len(s) > maxNameBytes {
			n := maxNameBytes
			for n > 0 && !utf8.RuneStart(s[n]) {
				n--
			}
			s = s[:n]
		}
	}
	return datum{s: s}, nil
}

// CoerceString applies the length modifier of varchar(n) or char(n) to s.
// explicit is true for an explicit cast, which truncates instead of failing
// (PostgreSQL's varchar/bpchar length coercion functions).
func CoerceString(s string, t T, explicit bool) (string, error) {
	out, err := applyCharLength(t, []byte(s), explicit)
	return string(out), err
}

func applyCharLength(t T, s []byte, explicit bool) ([]byte, error) {
	if t.Typmod < 4 {
		return s, nil
	}
	maxLen := int(t.Typmod - 4)
	n := utf8.RuneCount(s)
	if n > maxLen {
		// Byte offset of the first character beyond the limit.
		cut, k := 0, 0
		for cut < len(s) && k < maxLen {
			_, w := utf8.DecodeRune(s[cut:])
			cut += w
			k++
		}
		if !explicit {
			for _, c := range s[cut:] {
				if c != ' ' {
					name := "character varying"
					if t.OID == OidBpchar {
						name = "character"
					}
					return nil, sqlerr.New(sqlerr.StringDataRightTruncation, "value too long for type %s(%d)", name, maxLen)
				}
			}
		}
		return s[:cut], nil
	}
	if t.OID == OidBpchar && n < maxLen {
		out := make([]byte, len(s), len(s)+maxLen-n)
		copy(out, s)
		for ; n < maxLen; n++ {
			out = append(out, ' ')
		}
		return out, nil
	}
	return s, nil
}

// parseChar is charin for the one-byte "char" type: the first byte, or an
// octal escape \ooo; the empty string is the zero byte, kept as "".
func parseChar(s []byte) datum {
	if len(s) == 4 && s[0] == '\\' && isOctal(s[1]) && isOctal(s[2]) && isOctal(s[3]) {
		c := (s[1]-'0')<<6 | (s[2]-'0')<<3 | (s[3] - '0')
		if c == 0 {
			return datum{s: nil}
		}
		return datum{s: []byte{c}}
	}
	if len(s) == 0 || s[0] == 0 {
		return datum{}
	}
	return datum{s: s[:1]}
}

func isOctal(c byte) bool { return '0' <= c && c <= '7' }

// appendCharText is charout: bytes with the high bit set are shown as \ooo.
func appendCharText(buf []byte, v string) []byte {
	if len(v) == 0 {
		return buf
	}
	c := v[0]
	if c >= 0x80 {
		return append(buf, '\\', '0'+c>>6, '0'+(c>>3)&7, '0'+c&7)
	}
	return append(buf, c)
}

const hexDigits = "0123456789abcdef"

// appendByteaHex is byteaout with bytea_output = hex.
func appendByteaHex(buf []byte, v []byte) []byte {
	buf = append(buf, '\\', 'x')
	for _, c := range v {
		buf = append(buf, hexDigits[c>>4], hexDigits[c&15])
	}
	return buf
}

func unhex(c byte) (byte, bool) {
	switch {
	case '0' <= c && c <= '9':
		return c - '0', true
	case 'a' <= c && c <= 'f':
		return c - 'a' + 10, true
	case 'A' <= c && c <= 'F':
		return c - 'A' + 10, true
	}
	return 0, false
}

// parseBytea is byteain: \x followed by hex pairs (whitespace between
// pairs allowed), or the escape format with \\ and \ooo.
func parseBytea(s []byte) (datum, error) {
	if len(s) >= 2 && s[0] == '\\' && s[1] == 'x' {
		out := make([]byte, 0, (len(s)-2)/2)
		for i := 2; i < len(s); {
			c := s[i]
			if c == ' ' || c == '\n' || c == '\t' || c == '\r' {
				i++
				continue
			}
			hi, ok := unhex(c)
			if !ok {
				return datum{}, errBadHexDigit(s[i:])
			}
			if i+1 >= len(s) {
				return datum{}, sqlerr.New(sqlerr.InvalidParameterValue, "invalid hexadecimal data: odd number of digits")
			}
			lo, ok := unhex(s[i+1])
			if !ok {
				return datum{}, errBadHexDigit(s[i+1:])
			}
			out = append(out, hi<<4|lo)
			i += 2
		}
		return datum{s: out}, nil
	}
	out := make([]byte, 0, len(s))
	for i := 0; i < len(s); {
		c := s[i]
		if c != '\\' {
			out = append(out, c)
			i++
			continue
		}
		if i+3 < len(s)+0 && s[i+1] >= '0' && s[i+1] <= '3' && isOctal(s[i+2]) && isOctal(s[i+3]) {
			out = append(out, (s[i+1]-'0')<<6|(s[i+2]-'0')<<3|(s[i+3]-'0'))
			i += 4
			continue
		}
		if i+1 < len(s) && s[i+1] == '\\' {
			out = append(out, '\\')
			i += 2
			continue
		}
		return datum{}, sqlerr.New(sqlerr.InvalidTextRepresentation, "invalid input syntax for type bytea")
	}
	return datum{s: out}, nil
}

func errBadHexDigit(s []byte) *sqlerr.Error {
	n := 1
	if s[0] >= 0x80 {
		_, n = utf8.DecodeRune(s)
	}
	return sqlerr.New(sqlerr.InvalidParameterValue, "invalid hexadecimal digit: \"%s\"", s[:n])
}

// parseUUID is uuid_in: 32 hex digits, a hyphen allowed after any group of
// four, optionally in braces; nothing else, not even whitespace.
func parseUUID(t T, s []byte) (datum, error) {
	src := s
	braces := false
	if len(src) > 0 && src[0] == '{' {
		src = src[1:]
		braces = true
	}
	out := make([]byte, 16)
	for i := 0; i < 16; i++ {
		if len(src) < 2 {
			return datum{}, errInvalidSyntax(t, s)
		}
		hi, ok1 := unhex(src[0])
		lo, ok2 := unhex(src[1])
		if !ok1 || !ok2 {
			return datum{}, errInvalidSyntax(t, s)
		}
		out[i] = hi<<4 | lo
		src = src[2:]
		if len(src) > 0 && src[0] == '-' && i%2 == 1 && i < 15 {
			src = src[1:]
		}
	}
	if braces {
		if len(src) == 0 || src[0] != '}' {
			return datum{}, errInvalidSyntax(t, s)
		}
		src = src[1:]
	}
	if len(src) != 0 {
		return datum{}, errInvalidSyntax(t, s)
	}
	return datum{s: out}, nil
}

// AppendUUID appends the lowercase dashed form of a 16-byte uuid.
func AppendUUID(buf []byte, v []byte) []byte {
	for i, c := range v {
		if i == 4 || i == 6 || i == 8 || i == 10 {
			buf = append(buf, '-')
		}
		buf = append(buf, hexDigits[c>>4], hexDigits[c&15])
	}
	return buf
}

// parseVectorText is int2vectorin/oidvectorin: whitespace-separated
// numbers, kept as single-space-separated text.
func parseVectorText(t T, s []byte) (datum, error) {
	elem := Oid
	if t.OID == OidInt2Vector {
		elem = Int2
	}
	var out []byte
	for i := 0; i < len(s); {
		for i < len(s) && isPGSpace(s[i]) {
			i++
		}
		if i >= len(s) {
			break
		}
		st := i
		for i < len(s) && !isPGSpace(s[i]) {
			i++
		}
		var d datum
		var err error
		if elem.OID == OidInt2 {
			d, err = parseIntText(elem, s[st:i])
		} else {
			d, err = parseOidText(elem, s[st:i])
		}
		if err != nil {
			return datum{}, err
		}
		if len(out) > 0 {
			out = append(out, ' ')
		}
		out = strconv.AppendInt(out, d.i, 10)
	}
	return datum{s: out}, nil
}
