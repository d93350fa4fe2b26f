package expr

import (
	"regexp"
	"regexp/syntax"
	"strings"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/bitutil"

	"github.com/weir-sql/weir/sql/types"
)

// Typed kernels for the regular-expression functions. A pattern is
// compiled when it differs from the previous row's (a constant pattern:
// once per batch, and through regexCache once per statement), and the
// results go straight into the output builders. Matching is the
// row-wise functions' (same compiled expressions, same rules).

// regexMemo holds the last pattern (and flags) a kernel compiled.
type regexMemo struct {
	pattern, flags string
	have           bool
	re             *regexp.Regexp
	global         bool
	tmpl           string // regexp_replace's replacement in Go's syntax
	// lit is a literal every match contains ("" if none is known): a row
	// without it cannot match, which strings.Contains tells far faster
	// than the matcher (Nexmark q21's '(&|^)channel_id=([^&]*)').
	lit string
}

// cannotMatch says whether s surely has no match.
func (m *regexMemo) cannotMatch(s string) bool {
	return m.lit != "" && !strings.Contains(s, m.lit)
}

// requiredLiteral is the longest case-sensitive literal among the parts
// of pattern's top-level concatenation (each must occur in a match), or
// "".
func requiredLiteral(pattern string, fold bool) string {
	if fold {
		return ""
	}
	re, err := syntax.Parse(pattern, syntax.Perl)
	if err != nil {
		return ""
	}
	best := ""
	consider := func(r *syntax.Regexp) {
		for r.Op == syntax.OpCapture && len(r.Sub) == 1 {
			r = r.Sub[0]
		}
		if r.Op == syntax.OpLiteral && r.Flags&syntax.FoldCase == 0 {
			if lit := string(r.Rune); len(lit) > len(best) {
				best = lit
			}
		}
	}
	for re.Op == syntax.OpCapture && len(re.Sub) == 1 {
		re = re.Sub[0]
	}
	if re.Op == syntax.OpConcat {
		for _, sub := range re.Sub {
			consider(sub)
		}
	} else {
		consider(re)
	}
	return best
}

// get returns the compiled pattern for (pattern, flags); fold forces case
// folding (the ~* operators).
func (m *regexMemo) get(pattern, flags string, fold bool) error {
	if m.have && pattern == m.pattern && flags == m.flags {
		return nil
	}
	global, foldFlag, err := parseRegexFlags(flags)
	if err != nil {
		return err
	}
	re, err := compileRegex(pattern, fold || foldFlag)
	if err != nil {
		return err
	}
	m.pattern, m.flags, m.have, m.re, m.global = pattern, flags, true, re, global
	m.lit = requiredLiteral(pattern, fold || foldFlag)
	return nil
}

// regexMatchKernel is s ~ pattern (and !~, ~*, !~*).
func regexMatchKernel(negate, fold bool) ScalarImpl {
	return func(ctx *Ctx, args []arrow.Array, n int) (arrow.Array, error) {
		sa, ok1 := args[0].(*array.String)
		pa, ok2 := args[1].(*array.String)
		if !ok1 || !ok2 {
			return regexKernel(negate, fold)(ctx, args, n)
		}
		mem := ctx.Allocator()
		out := newBitmap(mem, n)
		valid := unionValidity(mem, n, args...)
		bits := out.Bytes()
		var m regexMemo
		for i := 0; i < n; i++ {
			if i&255 == 255 && ctx.Canceled() {
				return nil, errCanceled()
			}
			if !rowValid(valid, i) {
				continue
			}
			if err := m.get(pa.Value(i), "", fold); err != nil {
				return nil, err
			}
			if s := sa.Value(i); (!m.cannotMatch(s) && m.re.MatchString(s)) != negate {
				bitutil.SetBit(bits, i)
			}
		}
		return boolResult(mem, n, out, valid), nil
	}
}

// regexSubstringKernel is substring(s from pattern): the first
// parenthesised subexpression's match, or the whole match; NULL when
// nothing matches.
func regexSubstringKernel(rowWise ScalarImpl) ScalarImpl {
	return func(ctx *Ctx, args []arrow.Array, n int) (arrow.Array, error) {
		cols, ok := textColumns(args, 2)
		if !ok {
			return rowWise(ctx, args, n)
		}
		sa, pa := cols[0], cols[1]
		b := newTextBuilder(ctx, n, len(sa.ValueBytes())/4)
		defer b.Release()
		var m regexMemo
		for i := 0; i < n; i++ {
			if i&255 == 255 && ctx.Canceled() {
				return nil, errCanceled()
			}
			if sa.IsNull(i) || pa.IsNull(i) {
				b.AppendNull()
				continue
			}
			if err := m.get(pa.Value(i), "", false); err != nil {
				return nil, err
			}
			s := sa.Value(i)
			if m.cannotMatch(s) {
				b.AppendNull()
				continue
			}
			loc := m.re.FindStringSubmatchIndex(s)
			switch {
			case loc == nil:
				b.AppendNull()
			case len(loc) > 2 && loc[2] < 0:
				b.AppendNull()
			case len(loc) > 2:
				b.Append(s[loc[2]:loc[3]])
			default:
				b.Append(s[loc[0]:loc[1]])
			}
		}
		return b.NewArray(), nil
	}
}

// regexpReplaceKernel is regexp_replace(s, pattern, replacement [,
// flags]): the first match, or every match with 'g', replaced, the
// replacement's \1 and \& expanded.
func regexpReplaceKernel(withFlags bool, rowWise ScalarImpl) ScalarImpl {
	k := 3
	if withFlags {
		k = 4
	}
	return func(ctx *Ctx, args []arrow.Array, n int) (arrow.Array, error) {
		cols, ok := textColumns(args, k)
		if !ok {
			return rowWise(ctx, args, n)
		}
		sa, pa, ra := cols[0], cols[1], cols[2]
		b := newTextBuilder(ctx, n, len(sa.ValueBytes()))
		defer b.Release()
		var m regexMemo
		var lastRepl string
		haveRepl := false
		var buf []byte
		for i := 0; i < n; i++ {
			if i&255 == 255 && ctx.Canceled() {
				return nil, errCanceled()
			}
			if sa.IsNull(i) || pa.IsNull(i) || ra.IsNull(i) || (withFlags && cols[3].IsNull(i)) {
				b.AppendNull()
				continue
			}
			flags := ""
			if withFlags {
				flags = cols[3].Value(i)
			}
			if err := m.get(pa.Value(i), flags, false); err != nil {
				return nil, err
			}
			if r := ra.Value(i); !haveRepl || r != lastRepl {
				lastRepl, haveRepl = r, true
				m.tmpl = pgReplacement(r)
			}
			s := sa.Value(i)
			if m.cannotMatch(s) {
				b.Append(s)
				continue
			}
			buf = buf[:0]
			if m.global {
				// ReplaceAllString's rule for empty matches next to
				// others is its own; it is kept by calling it.
				b.Append(m.re.ReplaceAllString(s, m.tmpl))
				continue
			} else if loc := m.re.FindStringSubmatchIndex(s); loc != nil {
				buf = append(buf, s[:loc[0]]...)
				buf = m.re.ExpandString(buf, m.tmpl, s, loc)
				buf = append(buf, s[loc[1]:]...)
			} else {
				buf = append(buf, s...)
			}
			b.BinaryBuilder.Append(buf)
		}
		return b.NewArray(), nil
	}
}

// regexpMatchKernel is regexp_match(s, pattern [, flags]): the
// parenthesised subexpressions' matches (NULL for one that took no
// part), or the whole match when there are none; NULL without a match.
func regexpMatchKernel(withFlags bool, rowWise ScalarImpl) ScalarImpl {
	k := 2
	if withFlags {
		k = 3
	}
	return func(ctx *Ctx, args []arrow.Array, n int) (arrow.Array, error) {
		cols, ok := textColumns(args, k)
		if !ok {
			return rowWise(ctx, args, n)
		}
		sa, pa := cols[0], cols[1]
		lb, ok := NewBuilder(ctx.Allocator(), types.ArrayOf(types.Text)).(*array.ListBuilder)
		if !ok {
			return rowWise(ctx, args, n)
		}
		defer lb.Release()
		vb, ok := lb.ValueBuilder().(*array.StringBuilder)
		if !ok {
			return rowWise(ctx, args, n)
		}
		lb.Reserve(n)
		var m regexMemo
		for i := 0; i < n; i++ {
			if i&255 == 255 && ctx.Canceled() {
				return nil, errCanceled()
			}
			if sa.IsNull(i) || pa.IsNull(i) || (withFlags && cols[2].IsNull(i)) {
				lb.AppendNull()
				continue
			}
			flags := ""
			if withFlags {
				flags = cols[2].Value(i)
				if global, _, err := parseRegexFlags(flags); err == nil && global {
					_, err := regexpMatch("", "", flags) // the error of the 'g' flag
					return nil, err
				}
			}
			if err := m.get(pa.Value(i), flags, false); err != nil {
				return nil, err
			}
			s := sa.Value(i)
			if m.cannotMatch(s) {
				lb.AppendNull()
				continue
			}
			loc := m.re.FindStringSubmatchIndex(s)
			if loc == nil {
				lb.AppendNull()
				continue
			}
			lb.Append(true)
			if len(loc) == 2 {
				vb.Append(s[loc[0]:loc[1]])
				continue
			}
			for g := 1; 2*g < len(loc); g++ {
				if loc[2*g] < 0 {
					vb.AppendNull()
				} else {
					vb.Append(s[loc[2*g]:loc[2*g+1]])
				}
			}
		}
		return lb.NewArray(), nil
	}
}
