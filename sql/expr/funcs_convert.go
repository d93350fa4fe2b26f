package expr

import (
	"encoding/base64"
	"encoding/hex"
	"strings"
	"unicode/utf8"

	"github.com/weir-sql/weir/sql/sqlerr"
	"github.com/weir-sql/weir/sql/types"
)

// PostgreSQL's conversions between bytea and text: convert_from(bytes,
// 'UTF8') and convert_to(text, 'UTF8') (weir's only encoding), encode
// and decode (hex, base64, escape). A message bus's values are bytea
// (read_kafka's key and value): convert_from is how they become text.

func checkUTF8Name(enc string) error {
	switch strings.ToUpper(strings.ReplaceAll(enc, "-", "")) {
	case "UTF8", "UNICODE", "SQL_ASCII":
		return nil
	}
	return sqlerr.New(sqlerr.InvalidParameterValue, "invalid encoding name \"%s\"", enc).WithHint("weir's only encoding is UTF8.")
}

func init() {
	RegisterScalar("convert_from", Overload{Args: []types.T{types.Bytea, types.Text}, Ret: types.Text, Impl: textFn(func(a []Datum) (Datum, error) {
		if err := checkUTF8Name(s0(a, 1)); err != nil {
			return nil, err
		}
		b := a[0].([]byte)
		if !utf8.Valid(b) || strings.IndexByte(string(b), 0) >= 0 {
			return nil, sqlerr.New("22021", "invalid byte sequence for encoding \"UTF8\"")
		}
		return string(b), nil
	})})
	RegisterScalar("convert_to", Overload{Args: []types.T{types.Text, types.Text}, Ret: types.Bytea, Impl: Strict(types.Bytea, func(ctx *Ctx, a []Datum) (Datum, error) {
		if err := checkUTF8Name(s0(a, 1)); err != nil {
			return nil, err
		}
		return []byte(s0(a, 0)), nil
	})})
	RegisterScalar("encode", Overload{Args: []types.T{types.Bytea, types.Text}, Ret: types.Text, Impl: textFn(func(a []Datum) (Datum, error) {
		b := a[0].([]byte)
		switch strings.ToLower(s0(a, 1)) {
		case "hex":
			return hex.EncodeToString(b), nil
		case "base64":
			return base64.StdEncoding.EncodeToString(b), nil
		case "escape":
			var sb strings.Builder
			for _, c := range b {
				switch {
				case c == '\\':
					sb.WriteString(`\\`)
				case c == 0 || c >= 0x80:
					sb.WriteByte('\\')
					sb.WriteByte('0' + c>>6)
					sb.WriteByte('0' + (c>>3)&7)
					sb.WriteByte('0' + c&7)
				default:
					sb.WriteByte(c)
				}
			}
			return sb.String(), nil
		}
		return nil, sqlerr.New(sqlerr.InvalidParameterValue, "unrecognized encoding: \"%s\"", s0(a, 1))
	})})
	RegisterScalar("decode", Overload{Args: []types.T{types.Text, types.Text}, Ret: types.Bytea, Impl: Strict(types.Bytea, func(ctx *Ctx, a []Datum) (Datum, error) {
		s := s0(a, 0)
		switch strings.ToLower(s0(a, 1)) {
		case "hex":
			b, err := hex.DecodeString(s)
			if err != nil {
				return nil, sqlerr.New(sqlerr.InvalidParameterValue, "invalid hexadecimal data")
			}
			return b, nil
		case "base64":
			b, err := base64.StdEncoding.DecodeString(strings.Map(func(r rune) rune {
				if r == '\n' || r == '\r' || r == ' ' || r == '\t' {
					return -1
				}
				return r
			}, s))
			if err != nil {
				return nil, sqlerr.New(sqlerr.InvalidParameterValue, "invalid base64 data")
			}
			return b, nil
		}
		return nil, sqlerr.New(sqlerr.InvalidParameterValue, "unrecognized encoding: \"%s\"", s0(a, 1))
	})})
}
