package expr

import (
	"regexp"
	"strings"
	"sync"
	"unicode/utf8"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/bitutil"

	"github.com/weir-sql/weir/sql/sqlerr"
	"github.com/weir-sql/weir/sql/types"
)

// LIKE / ILIKE and POSIX regular expressions (~, regexp_replace, ...).

var regexCache sync.Map // pattern+flags -> *regexp.Regexp

func compileRegex(pattern string, caseInsensitive bool) (*regexp.Regexp, error) {
	key := pattern
	if caseInsensitive {
		key = "(?i)" + pattern
	}
	if re, ok := regexCache.Load(key); ok {
		return re.(*regexp.Regexp), nil
	}
	re, err := regexp.Compile(key)
	if err != nil {
		return nil, sqlerr.New(sqlerr.InvalidRegularExpression, "invalid regular expression: %s", regexErrText(err))
	}
	regexCache.Store(key, re)
	return re, nil
}

func regexErrText(err error) string {
	msg := err.Error()
	msg = strings.TrimPrefix(msg, "error parsing regexp: ")
	return msg
}

// likeMatch matches s against a LIKE pattern with escape character '\'.
func likeMatch(s, p string) bool {
	for len(p) > 0 {
		c, n := utf8.DecodeRuneInString(p)
		switch c {
		case '%':
			p = p[n:]
			for len(p) > 0 && p[0] == '%' {
				p = p[1:]
			}
			if p == "" {
				return true
			}
			for i := 0; i <= len(s); {
				if likeMatch(s[i:], p) {
					return true
				}
				if i == len(s) {
					break
				}
				_, m := utf8.DecodeRuneInString(s[i:])
				i += m
			}
			return false
		case '_':
			if s == "" {
				return false
			}
			_, m := utf8.DecodeRuneInString(s)
			s, p = s[m:], p[n:]
		default:
			if c == '\\' && len(p) > n {
				p = p[n:]
				c, n = utf8.DecodeRuneInString(p)
			}
			sc, m := utf8.DecodeRuneInString(s)
			if s == "" || sc != c {
				return false
			}
			s, p = s[m:], p[n:]
		}
	}
	return s == ""
}

func likeKernel(negate, fold bool) ScalarImpl {
	return func(ctx *Ctx, args []arrow.Array, n int) (arrow.Array, error) {
		mem := ctx.Allocator()
		out := newBitmap(mem, n)
		valid := unionValidity(mem, n, args...)
		sa, pa := args[0].(*array.String), args[1].(*array.String)
		bits := out.Bytes()
		for i := 0; i < n; i++ {
			if i&63 == 63 && ctx.Canceled() {
				return nil, errCanceled()
			}
			if !rowValid(valid, i) {
				continue
			}
			s, p := sa.Value(i), pa.Value(i)
			if strings.HasSuffix(p, "\\") && !strings.HasSuffix(p, "\\\\") {
				return nil, sqlerr.New(sqlerr.InvalidEscapeSequence, "LIKE pattern must not end with escape character")
			}
			if fold {
				s, p = strings.ToLower(s), strings.ToLower(p)
			}
			if likeMatch(s, p) != negate {
				bitutil.SetBit(bits, i)
			}
		}
		return boolResult(mem, n, out, valid), nil
	}
}

func regexKernel(negate, fold bool) ScalarImpl {
	return func(ctx *Ctx, args []arrow.Array, n int) (arrow.Array, error) {
		mem := ctx.Allocator()
		out := newBitmap(mem, n)
		valid := unionValidity(mem, n, args...)
		sa, pa := args[0].(*array.String), args[1].(*array.String)
		bits := out.Bytes()
		for i := 0; i < n; i++ {
			if i&15 == 15 && ctx.Canceled() {
				return nil, errCanceled()
			}
			if !rowValid(valid, i) {
				continue
			}
			re, err := compileRegex(pa.Value(i), fold)
			if err != nil {
				return nil, err
			}
			if re.MatchString(sa.Value(i)) != negate {
				bitutil.SetBit(bits, i)
			}
		}
		return boolResult(mem, n, out, valid), nil
	}
}

// regexSubstring is substring(s from pattern): the first parenthesised
// subexpression's match, or the whole match.
func regexSubstring(s, pattern string) (Datum, error) {
	re, err := compileRegex(pattern, false)
	if err != nil {
		return nil, err
	}
	m := re.FindStringSubmatchIndex(s)
	if m == nil {
		return nil, nil
	}
	if len(m) > 2 {
		if m[2] < 0 {
			return nil, nil
		}
		return s[m[2]:m[3]], nil
	}
	return s[m[0]:m[1]], nil
}

func parseRegexFlags(flags string) (global, fold bool, err error) {
	for _, c := range flags {
		switch c {
		case 'g':
			global = true
		case 'i':
			fold = true
		case 'c', 'n', 'p', 'w', 's', 't', 'x':
		default:
			return false, false, sqlerr.New(sqlerr.InvalidParameterValue, "invalid regular expression option: \"%c\"", c)
		}
	}
	return
}

// pgReplacement converts PostgreSQL's \1 and \& to Go's ${1} and ${0}.
func pgReplacement(r string) string {
	var b strings.Builder
	for i := 0; i < len(r); i++ {
		c := r[i]
		if c == '\\' && i+1 < len(r) {
			n := r[i+1]
			switch {
			case n >= '1' && n <= '9':
				b.WriteString("${" + string(n) + "}")
				i++
				continue
			case n == '&':
				b.WriteString("${0}")
				i++
				continue
			case n == '\\':
				b.WriteByte('\\')
				i++
				continue
			}
		}
		if c == '$' {
			b.WriteString("$$")
			continue
		}
		b.WriteByte(c)
	}
	return b.String()
}

func regexpReplace(s, pattern, repl, flags string) (Datum, error) {
	global, fold, err := parseRegexFlags(flags)
	if err != nil {
		return nil, err
	}
	re, err := compileRegex(pattern, fold)
	if err != nil {
		return nil, err
	}
	tmpl := pgReplacement(repl)
	if global {
		return re.ReplaceAllString(s, tmpl), nil
	}
	m := re.FindStringSubmatchIndex(s)
	if m == nil {
		return s, nil
	}
	var out []byte
	out = append(out, s[:m[0]]...)
	out = re.ExpandString(out, tmpl, s, m)
	out = append(out, s[m[1]:]...)
	return string(out), nil
}

func regexpMatch(s, pattern, flags string) (Datum, error) {
	global, fold, err := parseRegexFlags(flags)
	if err != nil {
		return nil, err
	}
	if global {
		return nil, sqlerr.New(sqlerr.InvalidParameterValue, "regexp_match() does not support the \"global\" option").WithHint("Use the regexp_matches function instead.")
	}
	re, err := compileRegex(pattern, fold)
	if err != nil {
		return nil, err
	}
	m := re.FindStringSubmatch(s)
	if m == nil {
		return nil, nil
	}
	idx := re.FindStringSubmatchIndex(s)
	if len(m) == 1 {
		return []Datum{m[0]}, nil
	}
	out := make([]Datum, len(m)-1)
	for i := 1; i < len(m); i++ {
		if idx[2*i] < 0 {
			out[i-1] = nil
		} else {
			out[i-1] = m[i]
		}
	}
	return out, nil
}

func init() {
	for _, t := range []types.T{types.Text, types.Name, types.Bpchar} {
		RegisterScalar("~~", Overload{Args: []types.T{t, types.Text}, Ret: types.Bool, Impl: likeKernel(false, false)})
		RegisterScalar("!~~", Overload{Args: []types.T{t, types.Text}, Ret: types.Bool, Impl: likeKernel(true, false)})
		RegisterScalar("~~*", Overload{Args: []types.T{t, types.Text}, Ret: types.Bool, Impl: likeKernel(false, true)})
		RegisterScalar("!~~*", Overload{Args: []types.T{t, types.Text}, Ret: types.Bool, Impl: likeKernel(true, true)})
		RegisterScalar("~", Overload{Args: []types.T{t, types.Text}, Ret: types.Bool, Impl: regexMatchKernel(false, false)})
		RegisterScalar("!~", Overload{Args: []types.T{t, types.Text}, Ret: types.Bool, Impl: regexMatchKernel(true, false)})
		RegisterScalar("~*", Overload{Args: []types.T{t, types.Text}, Ret: types.Bool, Impl: regexMatchKernel(false, true)})
		RegisterScalar("!~*", Overload{Args: []types.T{t, types.Text}, Ret: types.Bool, Impl: regexMatchKernel(true, true)})
	}
	RegisterScalar("regexp_replace",
		Overload{Args: []types.T{types.Text, types.Text, types.Text}, Ret: types.Text, Impl: regexpReplaceKernel(false, textFn(func(a []Datum) (Datum, error) {
			return regexpReplace(s0(a, 0), s0(a, 1), s0(a, 2), "")
		}))},
		Overload{Args: []types.T{types.Text, types.Text, types.Text, types.Text}, Ret: types.Text, Impl: regexpReplaceKernel(true, textFn(func(a []Datum) (Datum, error) {
			return regexpReplace(s0(a, 0), s0(a, 1), s0(a, 2), s0(a, 3))
		}))},
	)
	ta := types.ArrayOf(types.Text)
	RegisterScalar("regexp_match",
		Overload{Args: []types.T{types.Text, types.Text}, Ret: ta, Impl: regexpMatchKernel(false, Strict(ta, func(ctx *Ctx, a []Datum) (Datum, error) { return regexpMatch(s0(a, 0), s0(a, 1), "") }))},
		Overload{Args: []types.T{types.Text, types.Text, types.Text}, Ret: ta, Impl: regexpMatchKernel(true, Strict(ta, func(ctx *Ctx, a []Datum) (Datum, error) { return regexpMatch(s0(a, 0), s0(a, 1), s0(a, 2)) }))},
	)
	RegisterScalar("like", Overload{Args: []types.T{types.Text, types.Text}, Ret: types.Bool, Impl: likeKernel(false, false)})
}
