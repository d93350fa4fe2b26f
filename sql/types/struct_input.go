package types

import (
	"github.com/apache/arrow-go/v18/arrow/array"

	"github.com/weir-sql/weir/sql/sqlerr"
)

// parseStructText is record_in for a struct type with known fields:
// "(a,b)", an empty field is NULL, a field may be double-quoted (a doubled
// quote or a backslash escapes the next character), white space around
// the parentheses is allowed. PostgreSQL's anonymous record has no input
// function; weir's struct columns (STRUCT<...> in CREATE TABLE) take the
// composite form PostgreSQL's named row types take.
func parseStructText(b array.Builder, t T, s []byte, fs *FormatSettings) error {
	sb, ok := b.(*array.StructBuilder)
	if !ok {
		return sqlerr.New(sqlerr.InternalError, "builder %T cannot hold values of type %s", b, t)
	}
	fields := t.Fields()
	bad := func(detail string) error {
		return &sqlerr.Error{Code: sqlerr.InvalidTextRepresentation, Message: "malformed record literal: \"" + string(s) + "\"", Detail: detail}
	}
	p := 0
	for p < len(s) && isSpaceByte(s[p]) {
		p++
	}
	if p >= len(s) || s[p] != '(' {
		return bad("Missing left parenthesis.")
	}
	p++
	vals := make([][]byte, len(fields))
	nulls := make([]bool, len(fields))
	for k := range fields {
		if p >= len(s) {
			return bad("Unexpected end of input.")
		}
		if s[p] == ',' || s[p] == ')' {
			nulls[k] = true
		} else {
			var v []byte
			inQuote := false
			for {
				if p >= len(s) {
					return bad("Unexpected end of input.")
				}
				c := s[p]
				if !inQuote && (c == ',' || c == ')') {
					break
				}
				p++
				switch {
				case c == '\\':
					if p >= len(s) {
						return bad("Unexpected end of input.")
					}
					v = append(v, s[p])
					p++
				case c == '"' && !inQuote:
					inQuote = true
				case c == '"' && p < len(s) && s[p] == '"':
					v = append(v, '"')
					p++
				case c == '"':
					inQuote = false
				default:
					v = append(v, c)
				}
			}
			if v == nil {
				v = []byte{}
			}
			vals[k] = v
		}
		if k < len(fields)-1 {
			if s[p] != ',' {
				return bad("Too few columns.")
			}
			p++
		}
	}
	if p >= len(s) || s[p] != ')' {
		return bad("Too many columns.")
	}
	p++
	for p < len(s) && isSpaceByte(s[p]) {
		p++
	}
	if p != len(s) {
		return bad("Junk after right parenthesis.")
	}
	at := sb.Len()
	sb.Append(true)
	for k, f := range fields {
		fb := sb.FieldBuilder(k)
		if nulls[k] {
			fb.AppendNull()
			continue
		}
		if err := AppendParsedText(fb, f.Type, vals[k], fs); err != nil {
			// Keep the children as long as the struct: the statement fails,
			// but the builder must stay consistent until it is released.
			for j := range fields {
				for sb.FieldBuilder(j).Len() <= at {
					sb.FieldBuilder(j).AppendNull()
				}
			}
			return err
		}
	}
	return nil
}

func isSpaceByte(c byte) bool {
	switch c {
	case ' ', '\t', '\n', '\r', '\v', '\f':
		return true
	}
	return false
}
