package types

import (
	"bytes"
	"sort"
	"unicode/utf8"

	"github.com/weir-sql/weir/sql/sqlerr"
)

// maxJSONDepth bounds nesting, standing in for PostgreSQL's stack depth check.
const maxJSONDepth = 6000

// parseJSON is json_in: the text is validated and kept as written.
func parseJSON(s []byte) (datum, error) {
	if err := checkUTF8(s); err != nil {
		return datum{}, err
	}
	p := jsonParser{s: s, validate: true}
	if _, err := p.document(); err != nil {
		return datum{}, err
	}
	return datum{s: s}, nil
}

// NormalizeJSONB is jsonb_in followed by jsonb_out: it validates s and
// returns PostgreSQL's jsonb text form: object keys sorted by length then
// bytes with the last duplicate winning, ", " and ": " separators, strings
// re-escaped, numbers as numeric prints them (1e2 → 100, 1.50 stays 1.50).
func NormalizeJSONB(s string) (string, error) {
	out, err := normalizeJSONB([]byte(s))
	return string(out), err
}

func normalizeJSONB(s []byte) ([]byte, error) {
	if err := checkUTF8(s); err != nil {
		return nil, err
	}
	p := jsonParser{s: s}
	return p.document()
}

type jsonParser struct {
	s        []byte
	pos      int
	depth    int
	validate bool // json: check only, \u0000 allowed
}

func errJSON(detail string) error {
	return sqlerr.New(sqlerr.InvalidTextRepresentation, "invalid input syntax for type json").WithDetail(detail)
}

func (p *jsonParser) skipSpace() {
	for p.pos < len(p.s) {
		switch p.s[p.pos] {
		case ' ', '\t', '\n', '\r':
			p.pos++
		default:
			return
		}
	}
}

func (p *jsonParser) document() ([]byte, error) {
	out, err := p.value(nil)
	if err != nil {
		return nil, err
	}
	p.skipSpace()
	if p.pos != len(p.s) {
		return nil, p.badToken()
	}
	return out, nil
}

// badToken reports the token at pos the way PostgreSQL's lexer does.
func (p *jsonParser) badToken() error {
	if p.pos >= len(p.s) {
		return errJSON("The input string ended unexpectedly.")
	}
	end := p.pos + 1
	for end < len(p.s) && isAlnum(p.s[end]) && isAlnum(p.s[p.pos]) {
		end++
	}
	return errJSON("Token \"" + string(p.s[p.pos:end]) + "\" is invalid.")
}

func (p *jsonParser) value(out []byte) ([]byte, error) {
	p.skipSpace()
	if p.pos >= len(p.s) {
		return nil, errJSON("The input string ended unexpectedly.")
	}
	switch c := p.s[p.pos]; {
	case c == '{':
		return p.object(out)
	case c == '[':
		return p.array(out)
	case c == '"':
		str, err := p.str()
		if err != nil {
			return nil, err
		}
		return appendJSONString(out, str), nil
	case c == '-' || isDigit(c):
		return p.number(out)
	case isAlpha(c):
		st := p.pos
		for p.pos < len(p.s) && isAlnum(p.s[p.pos]) {
			p.pos++
		}
		w := string(p.s[st:p.pos])
		if w == "true" || w == "false" || w == "null" {
			return append(out, w...), nil
		}
		return nil, errJSON("Token \"" + w + "\" is invalid.")
	}
	return nil, p.badToken()
}

func (p *jsonParser) enter() error {
	p.depth++
	if p.depth > maxJSONDepth {
		return sqlerr.New(codeStackDepth, "stack depth limit exceeded")
	}
	return nil
}

type jsonPair struct {
	key, val []byte
	idx      int
}

func (p *jsonParser) object(out []byte) ([]byte, error) {
	if err := p.enter(); err != nil {
		return nil, err
	}
	p.pos++ // {
	var pairs []jsonPair
	p.skipSpace()
	if p.pos < len(p.s) && p.s[p.pos] == '}' {
		p.pos++
	} else {
		for {
			p.skipSpace()
			if p.pos >= len(p.s) || p.s[p.pos] != '"' {
				return nil, p.badToken()
			}
			key, err := p.str()
			if err != nil {
				return nil, err
			}
			p.skipSpace()
			if p.pos >= len(p.s) || p.s[p.pos] != ':' {
				return nil, p.badToken()
			}
			p.pos++
			var val []byte
			if val, err = p.value(nil); err != nil {
				return nil, err
			}
			if !p.validate {
				pairs = append(pairs, jsonPair{key: key, val: val, idx: len(pairs)})
			}
			p.skipSpace()
			if p.pos < len(p.s) && p.s[p.pos] == ',' {
				p.pos++
				continue
			}
			if p.pos < len(p.s) && p.s[p.pos] == '}' {
				p.pos++
				break
			}
			return nil, p.badToken()
		}
	}
	p.depth--
	if p.validate {
		return out, nil
	}
	sort.SliceStable(pairs, func(i, j int) bool {
		a, b := pairs[i].key, pairs[j].key
		if len(a) != len(b) {
			return len(a) < len(b)
		}
		return bytes.Compare(a, b) < 0
	})
	out = append(out, '{')
	first := true
	for i := range pairs {
		if i+1 < len(pairs) && bytes.Equal(pairs[i].key, pairs[i+1].key) {
			continue // a later duplicate wins
		}
		if !first {
			out = append(out, ", "...)
		}
		first = false
		out = appendJSONString(out, pairs[i].key)
		out = append(out, ": "...)
		out = append(out, pairs[i].val...)
	}
	return append(out, '}'), nil
}

func (p *jsonParser) array(out []byte) ([]byte, error) {
	if err := p.enter(); err != nil {
		return nil, err
	}
	p.pos++ // [
	out = append(out, '[')
	p.skipSpace()
	if p.pos < len(p.s) && p.s[p.pos] == ']' {
		p.pos++
	} else {
		for n := 0; ; n++ {
			if n > 0 && !p.validate {
				out = append(out, ", "...)
			}
			var err error
			if p.validate {
				_, err = p.value(nil)
			} else {
				out, err = p.value(out)
			}
			if err != nil {
				return nil, err
			}
			p.skipSpace()
			if p.pos < len(p.s) && p.s[p.pos] == ',' {
				p.pos++
				continue
			}
			if p.pos < len(p.s) && p.s[p.pos] == ']' {
				p.pos++
				break
			}
			return nil, p.badToken()
		}
	}
	p.depth--
	return append(out, ']'), nil
}

// number reads a JSON number; jsonb keeps it as numeric, so it is printed
// in numeric's canonical form.
func (p *jsonParser) number(out []byte) ([]byte, error) {
	st := p.pos
	i := p.pos
	if p.s[i] == '-' {
		i++
	}
	bad := func() error {
		end := i
		for end < len(p.s) && (isAlnum(p.s[end]) || p.s[end] == '.' || p.s[end] == '-' || p.s[end] == '+') {
			end++
		}
		return errJSON("Token \"" + string(p.s[st:max(end, st+1)]) + "\" is invalid.")
	}
	if i >= len(p.s) || !isDigit(p.s[i]) {
		return nil, bad()
	}
	if p.s[i] == '0' {
		i++
	} else {
		for i < len(p.s) && isDigit(p.s[i]) {
			i++
		}
	}
	if i < len(p.s) && p.s[i] == '.' {
		i++
		if i >= len(p.s) || !isDigit(p.s[i]) {
			return nil, bad()
		}
		for i < len(p.s) && isDigit(p.s[i]) {
			i++
		}
	}
	if i < len(p.s) && (p.s[i] == 'e' || p.s[i] == 'E') {
		i++
		if i < len(p.s) && (p.s[i] == '+' || p.s[i] == '-') {
			i++
		}
		if i >= len(p.s) || !isDigit(p.s[i]) {
			return nil, bad()
		}
		for i < len(p.s) && isDigit(p.s[i]) {
			i++
		}
	}
	if i < len(p.s) && (isAlnum(p.s[i]) || p.s[i] == '.') {
		return nil, bad()
	}
	p.pos = i
	if p.validate {
		return out, nil
	}
	v, err := ParseNumeric(p.s[st:i])
	if err != nil {
		return nil, err
	}
	return append(out, v...), nil
}

// str reads a JSON string and returns its decoded bytes.
func (p *jsonParser) str() ([]byte, error) {
	p.pos++ // opening quote
	st := p.pos
	// Fast path: no escapes.
	for p.pos < len(p.s) {
		c := p.s[p.pos]
		if c == '"' {
			v := p.s[st:p.pos]
			p.pos++
			return v, nil
		}
		if c == '\\' {
			break
		}
		if c < 0x20 {
			return nil, errJSON("Character with value 0x" + string([]byte{hexDigits[c>>4], hexDigits[c&15]}) + " must be escaped.")
		}
		p.pos++
	}
	out := append([]byte(nil), p.s[st:p.pos]...)
	for p.pos < len(p.s) {
		c := p.s[p.pos]
		switch {
		case c == '"':
			p.pos++
			return out, nil
		case c < 0x20:
			return nil, errJSON("Character with value 0x" + string([]byte{hexDigits[c>>4], hexDigits[c&15]}) + " must be escaped.")
		case c != '\\':
			out = append(out, c)
			p.pos++
			continue
		}
		p.pos++
		if p.pos >= len(p.s) {
			break
		}
		e := p.s[p.pos]
		p.pos++
		switch e {
		case '"', '\\', '/':
			out = append(out, e)
		case 'b':
			out = append(out, '\b')
		case 'f':
			out = append(out, '\f')
		case 'n':
			out = append(out, '\n')
		case 'r':
			out = append(out, '\r')
		case 't':
			out = append(out, '\t')
		case 'u':
			r, ok := p.hex4()
			if !ok {
				return nil, errJSON("\"\\u\" must be followed by four hexadecimal digits.")
			}
			switch {
			case r >= 0xD800 && r <= 0xDBFF:
				if p.pos+1 < len(p.s) && p.s[p.pos] == '\\' && p.s[p.pos+1] == 'u' {
					p.pos += 2
					lo, ok := p.hex4()
					if !ok {
						return nil, errJSON("\"\\u\" must be followed by four hexadecimal digits.")
					}
					if lo < 0xDC00 || lo > 0xDFFF {
						return nil, errJSON("Unicode high surrogate must not follow a high surrogate.")
					}
					r = 0x10000 + (r-0xD800)<<10 + (lo - 0xDC00)
				} else {
					return nil, errJSON("Unicode low surrogate must follow a high surrogate.")
				}
			case r >= 0xDC00 && r <= 0xDFFF:
				return nil, errJSON("Unicode low surrogate must follow a high surrogate.")
			case r == 0 && !p.validate:
				return nil, sqlerr.New(codeUntranslatableCharacter, "unsupported Unicode escape sequence").WithDetail("\\u0000 cannot be converted to text.")
			}
			out = utf8.AppendRune(out, rune(r))
		default:
			return nil, errJSON("Escape sequence \"\\" + string(e) + "\" is invalid.")
		}
	}
	return nil, errJSON("The input string ended unexpectedly.")
}

func (p *jsonParser) hex4() (int, bool) {
	if p.pos+4 > len(p.s) {
		return 0, false
	}
	v := 0
	for k := 0; k < 4; k++ {
		d, ok := unhex(p.s[p.pos+k])
		if !ok {
			return 0, false
		}
		v = v<<4 | int(d)
	}
	p.pos += 4
	return v, true
}

// appendJSONString is escape_json.
func appendJSONString(out, s []byte) []byte {
	out = append(out, '"')
	for _, c := range s {
		switch c {
		case '\b':
			out = append(out, '\\', 'b')
		case '\f':
			out = append(out, '\\', 'f')
		case '\n':
			out = append(out, '\\', 'n')
		case '\r':
			out = append(out, '\\', 'r')
		case '\t':
			out = append(out, '\\', 't')
		case '"':
			out = append(out, '\\', '"')
		case '\\':
			out = append(out, '\\', '\\')
		default:
			if c < 0x20 {
				out = append(out, '\\', 'u', '0', '0', hexDigits[c>>4], hexDigits[c&15])
			} else {
				out = append(out, c)
			}
		}
	}
	return append(out, '"')
}
