package expr

import (
	"crypto/md5"
	"encoding/hex"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"

	"github.com/weir-sql/weir/sql/sqlerr"
	"github.com/weir-sql/weir/sql/types"
)

// String functions and the || operator.

func textFn(fn func(a []Datum) (Datum, error)) ScalarImpl {
	return Strict(types.Text, func(ctx *Ctx, a []Datum) (Datum, error) { return fn(a) })
}

func intFn(fn func(a []Datum) (Datum, error)) ScalarImpl {
	return Strict(types.Int4, func(ctx *Ctx, a []Datum) (Datum, error) { return fn(a) })
}

func s0(a []Datum, i int) string { return a[i].(string) }
func i0(a []Datum, i int) int64  { return a[i].(int64) }

// substrRunes is substr(s, start[, count]) counting characters from 1.
func substrRunes(s string, start, count int64, hasCount bool) (string, error) {
	if hasCount && count < 0 {
		return "", sqlerr.New("22011", "negative substring length not allowed")
	}
	r := []rune(s)
	from := start - 1
	to := int64(len(r))
	if hasCount {
		to = from + count
		if to < from { // overflow
			to = int64(len(r))
		}
	}
	if from < 0 {
		from = 0
	}
	if to > int64(len(r)) {
		to = int64(len(r))
	}
	if from >= to {
		return "", nil
	}
	return string(r[from:to]), nil
}

func initcap(s string) string {
	var b strings.Builder
	prevAlnum := false
	for _, c := range s {
		if prevAlnum {
			b.WriteRune(unicode.ToLower(c))
		} else {
			b.WriteRune(unicode.ToUpper(c))
		}
		prevAlnum = unicode.IsLetter(c) || unicode.IsDigit(c)
	}
	return b.String()
}

func trimChars(s, chars string, left, right bool) string {
	set := func(r rune) bool { return strings.ContainsRune(chars, r) }
	if left {
		s = strings.TrimLeftFunc(s, set)
	}
	if right {
		s = strings.TrimRightFunc(s, set)
	}
	return s
}

// checkedPad is pad with PostgreSQL's limit: n characters of up to four
// bytes each must fit in 1 GB (a client asking for 2^31 characters would
// otherwise have the server build them).
func checkedPad(s string, n int64, fill string, left bool) (Datum, error) {
	if n > (1<<30-1)/4 {
		return nil, sqlerr.New(sqlerr.ProgramLimitExceeded, "requested length too large")
	}
	return pad(s, n, fill, left), nil
}

func pad(s string, n int64, fill string, left bool) string {
	r := []rune(s)
	if n <= 0 {
		return ""
	}
	if int64(len(r)) >= n {
		return string(r[:n])
	}
	f := []rune(fill)
	if len(f) == 0 {
		return s
	}
	need := int(n) - len(r)
	padding := make([]rune, need)
	for i := range padding {
		padding[i] = f[i%len(f)]
	}
	if left {
		return string(padding) + s
	}
	return s + string(padding)
}

func quoteIdent(s string) string {
	safe := s != ""
	for i, c := range s {
		if !(c == '_' || (c >= 'a' && c <= 'z') || (i > 0 && c >= '0' && c <= '9')) {
			safe = false
			break
		}
	}
	if safe && !isReservedKeyword(s) {
		return s
	}
	return `"` + strings.ReplaceAll(s, `"`, `""`) + `"`
}

// isReservedKeyword lists the keywords quote_ident must quote (reserved and
// the non-reserved-but-not-a-name categories most often met).
func isReservedKeyword(s string) bool {
	switch s {
	case "all", "analyse", "analyze", "and", "any", "array", "as", "asc", "asymmetric", "authorization", "binary", "both", "case", "cast", "check", "collate", "collation", "column", "concurrently", "constraint", "create", "cross", "current_catalog", "current_date", "current_role", "current_schema", "current_time", "current_timestamp", "current_user", "default", "deferrable", "desc", "distinct", "do", "else", "end", "except", "false", "fetch", "for", "foreign", "freeze", "from", "full", "grant", "group", "having", "ilike", "in", "initially", "inner", "intersect", "into", "is", "isnull", "join", "lateral", "leading", "left", "like", "limit", "localtime", "localtimestamp", "natural", "not", "notnull", "null", "offset", "on", "only", "or", "order", "outer", "overlaps", "placing", "primary", "references", "returning", "right", "select", "session_user", "similar", "some", "symmetric", "table", "tablesample", "then", "to", "trailing", "true", "union", "unique", "user", "using", "variadic", "verbose", "when", "where", "window", "with",
		"between", "bigint", "bit", "boolean", "char", "character", "coalesce", "dec", "decimal", "exists", "extract", "float", "greatest", "grouping", "inout", "int", "integer", "interval", "least", "national", "nchar", "none", "normalize", "nullif", "numeric", "out", "overlay", "position", "precision", "real", "row", "setof", "smallint", "substring", "time", "timestamp", "treat", "trim", "values", "varchar", "xmlattributes", "xmlconcat", "xmlelement", "xmlexists", "xmlforest", "xmlnamespaces", "xmlparse", "xmlpi", "xmlroot", "xmlserialize", "xmltable":
		return true
	}
	return false
}

func quoteLiteral(s string) string {
	if strings.Contains(s, `\`) {
		return "E'" + strings.ReplaceAll(strings.ReplaceAll(s, `\`, `\\`), "'", "''") + "'"
	}
	return "'" + strings.ReplaceAll(s, "'", "''") + "'"
}

// concatImpl is concat/concat_ws over "any": NULLs are skipped.
func concatSpecialize(withSep bool) func(args []types.T, ret types.T) ScalarImpl {
	return func(argTypes []types.T, ret types.T) ScalarImpl {
		return func(ctx *Ctx, args []arrow.Array, n int) (arrow.Array, error) {
			b := array.NewStringBuilder(ctx.Allocator())
			defer b.Release()
			var sb strings.Builder
			for i := 0; i < n; i++ {
				sb.Reset()
				start := 0
				sep := ""
				if withSep {
					if args[0].IsNull(i) {
						b.AppendNull()
						continue
					}
					sep = valueText(ctx, argTypes[0], args[0], i)
					start = 1
				}
				first := true
				for j := start; j < len(args); j++ {
					if args[j].IsNull(i) {
						continue
					}
					if !first {
						sb.WriteString(sep)
					}
					first = false
					t := types.Text
					if argTypes != nil {
						t = argTypes[j]
					}
					sb.WriteString(valueText(ctx, t, args[j], i))
				}
				b.Append(sb.String())
			}
			return b.NewArray(), nil
		}
	}
}

// formatSpecialize is format(fmt, VARIADIC any) with %s %I %L %% and
// positions (%1$s) and widths (%-10s).
func formatSpecialize(argTypes []types.T, ret types.T) ScalarImpl {
	return func(ctx *Ctx, args []arrow.Array, n int) (arrow.Array, error) {
		b := array.NewStringBuilder(ctx.Allocator())
		defer b.Release()
		for i := 0; i < n; i++ {
			if args[0].IsNull(i) {
				b.AppendNull()
				continue
			}
			s, err := formatRow(ctx, argTypes, args, i)
			if err != nil {
				return nil, err
			}
			b.Append(s)
		}
		return b.NewArray(), nil
	}
}

func formatRow(ctx *Ctx, argTypes []types.T, args []arrow.Array, row int) (string, error) {
	f := args[0].(*array.String).Value(row)
	var sb strings.Builder
	next := 1
	for i := 0; i < len(f); i++ {
		c := f[i]
		if c != '%' {
			sb.WriteByte(c)
			continue
		}
		i++
		if i >= len(f) {
			return "", sqlerr.New(sqlerr.InvalidParameterValue, "unterminated format() type specifier").WithHint("For a single \"%%\" use \"%%%%\".")
		}
		if f[i] == '%' {
			sb.WriteByte('%')
			continue
		}
		// [argpos$][flags][width]type
		j := i
		for j < len(f) && f[j] >= '0' && f[j] <= '9' {
			j++
		}
		argIdx := -1
		if j < len(f) && f[j] == '$' && j > i {
			p, _ := strconv.Atoi(f[i:j])
			if p == 0 {
				return "", sqlerr.New(sqlerr.InvalidParameterValue, "format specifies argument 0, but arguments are numbered from 1")
			}
			argIdx = p
			i = j + 1
		}
		leftAlign := false
		if i < len(f) && f[i] == '-' {
			leftAlign = true
			i++
		}
		j = i
		for j < len(f) && f[j] >= '0' && f[j] <= '9' {
			j++
		}
		width := 0
		if j > i {
			width, _ = strconv.Atoi(f[i:j])
		}
		i = j
		if i >= len(f) {
			return "", sqlerr.New(sqlerr.InvalidParameterValue, "unterminated format() type specifier").WithHint("For a single \"%%\" use \"%%%%\".")
		}
		if argIdx < 0 {
			argIdx = next
		}
		next = argIdx + 1
		if argIdx >= len(args) {
			return "", sqlerr.New(sqlerr.InvalidParameterValue, "too few arguments for format()")
		}
		var val string
		isNull := args[argIdx].IsNull(row)
		if !isNull {
			t := types.Text
			if argTypes != nil {
				t = argTypes[argIdx]
			}
			val = valueText(ctx, t, args[argIdx], row)
		}
		switch f[i] {
		case 's':
		case 'I':
			if isNull {
				return "", sqlerr.New("22004", "null values cannot be formatted as an SQL identifier")
			}
			val = quoteIdent(val)
		case 'L':
			if isNull {
				val = "NULL"
			} else {
				val = quoteLiteral(val)
			}
		default:
			return "", sqlerr.New(sqlerr.InvalidParameterValue, "unrecognized format() type specifier \"%c\"", f[i]).WithHint("For a single \"%%\" use \"%%%%\".")
		}
		if w := utf8.RuneCountInString(val); w < width {
			if leftAlign {
				val += strings.Repeat(" ", width-w)
			} else {
				val = strings.Repeat(" ", width-w) + val
			}
		}
		sb.WriteString(val)
	}
	return sb.String(), nil
}

func splitPart(s, delim string, n int64) (string, error) {
	if n == 0 {
		return "", sqlerr.New(sqlerr.InvalidParameterValue, "field position must not be zero")
	}
	var parts []string
	if delim == "" {
		parts = []string{s}
	} else {
		parts = strings.Split(s, delim)
	}
	if n < 0 {
		n = int64(len(parts)) + n + 1
	}
	if n < 1 || n > int64(len(parts)) {
		return "", nil
	}
	return parts[n-1], nil
}

func translate(s, from, to string) string {
	f, t := []rune(from), []rune(to)
	var b strings.Builder
	for _, c := range s {
		idx := -1
		for k, x := range f {
			if x == c {
				idx = k
				break
			}
		}
		switch {
		case idx < 0:
			b.WriteRune(c)
		case idx < len(t):
			b.WriteRune(t[idx])
		}
	}
	return b.String()
}

func parseIdent(s string, strict bool) ([]Datum, error) {
	var out []Datum
	i := 0
	bad := func() error {
		return sqlerr.New(sqlerr.InvalidParameterValue, "string is not a valid identifier: \"%s\"", s)
	}
	for {
		for i < len(s) && s[i] == ' ' {
			i++
		}
		if i >= len(s) {
			return nil, bad()
		}
		if s[i] == '"' {
			var b strings.Builder
			i++
			for {
				if i >= len(s) {
					return nil, sqlerr.New(sqlerr.InvalidParameterValue, "string is not a valid identifier: \"%s\"", s).WithDetail("String has unclosed double quotes.")
				}
				if s[i] == '"' {
					if i+1 < len(s) && s[i+1] == '"' {
						b.WriteByte('"')
						i += 2
						continue
					}
					i++
					break
				}
				b.WriteByte(s[i])
				i++
			}
			out = append(out, b.String())
		} else {
			j := i
			for j < len(s) && (s[j] == '_' || s[j] == '$' || unicode.IsLetter(rune(s[j])) || unicode.IsDigit(rune(s[j])) || s[j] >= 0x80) {
				j++
			}
			if j == i {
				return nil, bad()
			}
			out = append(out, strings.ToLower(s[i:j]))
			i = j
		}
		for i < len(s) && s[i] == ' ' {
			i++
		}
		if i >= len(s) {
			return out, nil
		}
		if s[i] == '.' {
			i++
			continue
		}
		if strict {
			return nil, bad()
		}
		return out, nil
	}
}

func init() {
	length := intFn(func(a []Datum) (Datum, error) { return int64(utf8.RuneCountInString(s0(a, 0))), nil })
	for _, name := range []string{"length", "char_length", "character_length"} {
		RegisterScalar(name, Overload{Args: []types.T{types.Text}, Ret: types.Int4, Impl: length})
		RegisterScalar(name, Overload{Args: []types.T{types.Bpchar}, Ret: types.Int4, Impl: intFn(func(a []Datum) (Datum, error) {
			return int64(utf8.RuneCountInString(strings.TrimRight(s0(a, 0), " "))), nil
		})})
	}
	RegisterScalar("length", Overload{Args: []types.T{types.Bytea}, Ret: types.Int4, Impl: intFn(func(a []Datum) (Datum, error) { return int64(len(a[0].([]byte))), nil })})
	RegisterScalar("octet_length",
		Overload{Args: []types.T{types.Text}, Ret: types.Int4, Impl: intFn(func(a []Datum) (Datum, error) { return int64(len(s0(a, 0))), nil })},
		Overload{Args: []types.T{types.Bytea}, Ret: types.Int4, Impl: intFn(func(a []Datum) (Datum, error) { return int64(len(a[0].([]byte))), nil })},
	)
	RegisterScalar("bit_length", Overload{Args: []types.T{types.Text}, Ret: types.Int4, Impl: intFn(func(a []Datum) (Datum, error) { return int64(8 * len(s0(a, 0))), nil })})
	RegisterScalar("lower", Overload{Args: []types.T{types.Text}, Ret: types.Text, Impl: caseKernel(false, textFn(func(a []Datum) (Datum, error) { return strings.ToLower(s0(a, 0)), nil }))})
	RegisterScalar("upper", Overload{Args: []types.T{types.Text}, Ret: types.Text, Impl: caseKernel(true, textFn(func(a []Datum) (Datum, error) { return strings.ToUpper(s0(a, 0)), nil }))})
	RegisterScalar("initcap", Overload{Args: []types.T{types.Text}, Ret: types.Text, Impl: textFn(func(a []Datum) (Datum, error) { return initcap(s0(a, 0)), nil })})
	substr := []Overload{
		{Args: []types.T{types.Text, types.Int4}, Ret: types.Text, Impl: substrKernel(false, textFn(func(a []Datum) (Datum, error) { return substrRunes(s0(a, 0), i0(a, 1), 0, false) }))},
		{Args: []types.T{types.Text, types.Int4, types.Int4}, Ret: types.Text, Impl: substrKernel(true, textFn(func(a []Datum) (Datum, error) { return substrRunes(s0(a, 0), i0(a, 1), i0(a, 2), true) }))},
	}
	RegisterScalar("substr", substr...)
	RegisterScalar("substring", substr...)
	RegisterScalar("substring", Overload{Args: []types.T{types.Text, types.Text}, Ret: types.Text, Impl: regexSubstringKernel(textFn(func(a []Datum) (Datum, error) {
		return regexSubstring(s0(a, 0), s0(a, 1))
	}))})
	pos := intFn(func(a []Datum) (Datum, error) {
		idx := strings.Index(s0(a, 0), s0(a, 1))
		if idx < 0 {
			return int64(0), nil
		}
		return int64(utf8.RuneCountInString(s0(a, 0)[:idx]) + 1), nil
	})
	RegisterScalar("strpos", Overload{Args: []types.T{types.Text, types.Text}, Ret: types.Int4, Impl: pos})
	// position(sub IN s) is bound as position(s, sub), as PostgreSQL does.
	RegisterScalar("position", Overload{Args: []types.T{types.Text, types.Text}, Ret: types.Int4, Impl: pos})
	RegisterScalar("replace", Overload{Args: []types.T{types.Text, types.Text, types.Text}, Ret: types.Text, Impl: replaceKernel(textFn(func(a []Datum) (Datum, error) {
		if s0(a, 1) == "" {
			return s0(a, 0), nil
		}
		return strings.ReplaceAll(s0(a, 0), s0(a, 1), s0(a, 2)), nil
	}))})
	RegisterScalar("translate", Overload{Args: []types.T{types.Text, types.Text, types.Text}, Ret: types.Text, Impl: textFn(func(a []Datum) (Datum, error) {
		return translate(s0(a, 0), s0(a, 1), s0(a, 2)), nil
	})})
	for _, tr := range []struct {
		name        string
		left, right bool
	}{{"btrim", true, true}, {"trim", true, true}, {"ltrim", true, false}, {"rtrim", false, true}} {
		tr := tr
		RegisterScalar(tr.name,
			Overload{Args: []types.T{types.Text}, Ret: types.Text, Impl: textFn(func(a []Datum) (Datum, error) { return trimChars(s0(a, 0), " ", tr.left, tr.right), nil })},
			Overload{Args: []types.T{types.Text, types.Text}, Ret: types.Text, Impl: textFn(func(a []Datum) (Datum, error) { return trimChars(s0(a, 0), s0(a, 1), tr.left, tr.right), nil })},
		)
	}
	for _, p := range []struct {
		name string
		left bool
	}{{"lpad", true}, {"rpad", false}} {
		p := p
		RegisterScalar(p.name,
			Overload{Args: []types.T{types.Text, types.Int4}, Ret: types.Text, Impl: textFn(func(a []Datum) (Datum, error) { return checkedPad(s0(a, 0), i0(a, 1), " ", p.left) })},
			Overload{Args: []types.T{types.Text, types.Int4, types.Text}, Ret: types.Text, Impl: textFn(func(a []Datum) (Datum, error) { return checkedPad(s0(a, 0), i0(a, 1), s0(a, 2), p.left) })},
		)
	}
	RegisterScalar("left", Overload{Args: []types.T{types.Text, types.Int4}, Ret: types.Text, Impl: textFn(func(a []Datum) (Datum, error) {
		r := []rune(s0(a, 0))
		n := i0(a, 1)
		if n < 0 {
			n = max(int64(len(r))+n, 0)
		}
		return string(r[:min(n, int64(len(r)))]), nil
	})})
	RegisterScalar("right", Overload{Args: []types.T{types.Text, types.Int4}, Ret: types.Text, Impl: textFn(func(a []Datum) (Datum, error) {
		r := []rune(s0(a, 0))
		n := i0(a, 1)
		if n < 0 {
			n = max(int64(len(r))+n, 0)
		}
		n = min(n, int64(len(r)))
		return string(r[int64(len(r))-n:]), nil
	})})
	RegisterScalar("repeat", Overload{Args: []types.T{types.Text, types.Int4}, Ret: types.Text, Impl: textFn(func(a []Datum) (Datum, error) {
		n := i0(a, 1)
		if n <= 0 {
			return "", nil
		}
		if int64(len(s0(a, 0)))*n > 1<<30 {
			return nil, sqlerr.New(sqlerr.ProgramLimitExceeded, "requested length too large")
		}
		return strings.Repeat(s0(a, 0), int(n)), nil
	})})
	RegisterScalar("reverse", Overload{Args: []types.T{types.Text}, Ret: types.Text, Impl: textFn(func(a []Datum) (Datum, error) {
		r := []rune(s0(a, 0))
		for i, j := 0, len(r)-1; i < j; i, j = i+1, j-1 {
			r[i], r[j] = r[j], r[i]
		}
		return string(r), nil
	})})
	RegisterScalar("split_part", Overload{Args: []types.T{types.Text, types.Text, types.Int4}, Ret: types.Text, Impl: splitPartKernel(textFn(func(a []Datum) (Datum, error) {
		return splitPart(s0(a, 0), s0(a, 1), i0(a, 2))
	}))})
	RegisterScalar("concat", Overload{Args: []types.T{Any}, Variadic: true, Ret: types.Text, Specialize: concatSpecialize(false), Impl: concatSpecialize(false)(nil, types.Text)})
	RegisterScalar("concat_ws", Overload{Args: []types.T{types.Text, Any}, Variadic: true, Ret: types.Text, Specialize: concatWSSpecialize, Impl: concatSpecialize(true)(nil, types.Text)})
	RegisterScalar("format", Overload{Args: []types.T{types.Text, Any}, Variadic: true, Ret: types.Text, Specialize: formatSpecialize, Impl: formatSpecialize(nil, types.Text)})
	RegisterScalar("quote_ident", Overload{Args: []types.T{types.Text}, Ret: types.Text, Impl: textFn(func(a []Datum) (Datum, error) { return quoteIdent(s0(a, 0)), nil })})
	RegisterScalar("quote_literal", Overload{Args: []types.T{types.Text}, Ret: types.Text, Impl: textFn(func(a []Datum) (Datum, error) { return quoteLiteral(s0(a, 0)), nil })})
	RegisterScalar("quote_nullable", Overload{Args: []types.T{types.Text}, Ret: types.Text, Impl: NonStrict(types.Text, func(ctx *Ctx, a []Datum) (Datum, error) {
		if a[0] == nil {
			return "NULL", nil
		}
		return quoteLiteral(s0(a, 0)), nil
	})})
	RegisterScalar("starts_with", Overload{Args: []types.T{types.Text, types.Text}, Ret: types.Bool, Impl: Strict(types.Bool, func(ctx *Ctx, a []Datum) (Datum, error) {
		return strings.HasPrefix(s0(a, 0), s0(a, 1)), nil
	})})
	md5fn := func(b []byte) string { h := md5.Sum(b); return hex.EncodeToString(h[:]) }
	RegisterScalar("md5",
		Overload{Args: []types.T{types.Text}, Ret: types.Text, Impl: textFn(func(a []Datum) (Datum, error) { return md5fn([]byte(s0(a, 0))), nil })},
		Overload{Args: []types.T{types.Bytea}, Ret: types.Text, Impl: textFn(func(a []Datum) (Datum, error) { return md5fn(a[0].([]byte)), nil })},
	)
	RegisterScalar("to_hex",
		Overload{Args: []types.T{types.Int4}, Ret: types.Text, Impl: textFn(func(a []Datum) (Datum, error) { return strconv.FormatUint(uint64(uint32(i0(a, 0))), 16), nil })},
		Overload{Args: []types.T{types.Int8}, Ret: types.Text, Impl: textFn(func(a []Datum) (Datum, error) { return strconv.FormatUint(uint64(i0(a, 0)), 16), nil })},
	)
	RegisterScalar("ascii", Overload{Args: []types.T{types.Text}, Ret: types.Int4, Impl: intFn(func(a []Datum) (Datum, error) {
		r, _ := utf8.DecodeRuneInString(s0(a, 0))
		if s0(a, 0) == "" {
			r = 0
		}
		return int64(r), nil
	})})
	RegisterScalar("chr", Overload{Args: []types.T{types.Int4}, Ret: types.Text, Impl: textFn(func(a []Datum) (Datum, error) {
		c := i0(a, 0)
		if c == 0 {
			return nil, sqlerr.New("54000", "null character not permitted")
		}
		if c < 0 || c > unicode.MaxRune || (c >= 0xD800 && c <= 0xDFFF) {
			return nil, sqlerr.New(sqlerr.ProgramLimitExceeded, "requested character too large for encoding: %d", c)
		}
		return string(rune(c)), nil
	})})
	RegisterScalar("parse_ident",
		Overload{Args: []types.T{types.Text}, Ret: types.ArrayOf(types.Text), Impl: Strict(types.ArrayOf(types.Text), func(ctx *Ctx, a []Datum) (Datum, error) { return parseIdent(s0(a, 0), true) })},
		Overload{Args: []types.T{types.Text, types.Bool}, Ret: types.ArrayOf(types.Text), Impl: Strict(types.ArrayOf(types.Text), func(ctx *Ctx, a []Datum) (Datum, error) { return parseIdent(s0(a, 0), a[1].(bool)) })},
	)
	// || on text; anything || text goes through the implicit/explicit text cast
	// the binder inserts (anynonarray || text).
	RegisterScalar("||",
		Overload{Args: []types.T{types.Text, types.Text}, Ret: types.Text, Impl: textFn(func(a []Datum) (Datum, error) { return s0(a, 0) + s0(a, 1), nil })},
		Overload{Args: []types.T{types.Text, Any}, Ret: types.Text, Specialize: textConcatAny, Impl: textConcatAny(nil, types.Text)},
		Overload{Args: []types.T{Any, types.Text}, Ret: types.Text, Specialize: textConcatAny, Impl: textConcatAny(nil, types.Text)},
		Overload{Args: []types.T{types.Bytea, types.Bytea}, Ret: types.Bytea, Impl: Strict(types.Bytea, func(ctx *Ctx, a []Datum) (Datum, error) {
			return append(append([]byte{}, a[0].([]byte)...), a[1].([]byte)...), nil
		})},
		Overload{Args: []types.T{types.JSONB, types.JSONB}, Ret: types.JSONB, Impl: Strict(types.JSONB, func(ctx *Ctx, a []Datum) (Datum, error) {
			return jsonbConcat(s0(a, 0), s0(a, 1))
		})},
	)
}

// textConcatAny is text || anynonarray (and the reverse): strict, the
// other operand through its output function.
func textConcatAny(argTypes []types.T, ret types.T) ScalarImpl {
	return func(ctx *Ctx, args []arrow.Array, n int) (arrow.Array, error) {
		b := array.NewStringBuilder(ctx.Allocator())
		defer b.Release()
		for i := 0; i < n; i++ {
			if args[0].IsNull(i) || args[1].IsNull(i) {
				b.AppendNull()
				continue
			}
			t0, t1 := types.Text, types.Text
			if argTypes != nil {
				t0, t1 = argTypes[0], argTypes[1]
			}
			b.Append(valueText(ctx, t0, args[0], i) + valueText(ctx, t1, args[1], i))
		}
		return b.NewArray(), nil
	}
}

func jsonbConcat(a, b string) (Datum, error) {
	x, err := parseJSONDoc(a)
	if err != nil {
		return nil, err
	}
	y, err := parseJSONDoc(b)
	if err != nil {
		return nil, err
	}
	xo, ok1 := x.(*jsonObject)
	yo, ok2 := y.(*jsonObject)
	if ok1 && ok2 {
		o := &jsonObject{keys: append(append([]string{}, xo.keys...), yo.keys...), vals: append(append([]any{}, xo.vals...), yo.vals...)}
		return jsonbText(canonicalJSONB(o)), nil
	}
	toArr := func(v any) []any {
		if arr, ok := v.([]any); ok {
			return arr
		}
		return []any{v}
	}
	return jsonbText(canonicalJSONB(append(append([]any{}, toArr(x)...), toArr(y)...))), nil
}
