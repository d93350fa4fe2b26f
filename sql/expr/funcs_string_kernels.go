package expr

import (
	"strings"
	"unicode/utf8"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"

	"github.com/weir-sql/weir/sql/types"
)

// Typed kernels for the string functions queries apply to every row
// (lower, upper, replace, split_part, substr): they read the Arrow string
// columns in place and write each result into the one output buffer of a
// string builder, so a row costs no string allocation and no boxing. The
// results are the row-wise functions' (same rules, ASCII short cuts that
// give the same bytes).

// textColumns returns args as string columns, or ok false when one is
// of another shape (the caller then uses its row-wise fallback).
func textColumns(args []arrow.Array, k int) ([]*array.String, bool) {
	out := make([]*array.String, k)
	for i := 0; i < k; i++ {
		s, ok := args[i].(*array.String)
		if !ok {
			return nil, false
		}
		out[i] = s
	}
	return out, true
}

func newTextBuilder(ctx *Ctx, n, dataHint int) *array.StringBuilder {
	b := NewBuilder(ctx.Allocator(), types.Text).(*array.StringBuilder)
	b.Reserve(n)
	b.ReserveData(dataHint)
	return b
}

func anyNull(i int, cols ...arrow.Array) bool {
	for _, c := range cols {
		if c.IsNull(i) {
			return true
		}
	}
	return false
}

func isASCII(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] >= utf8.RuneSelf {
			return false
		}
	}
	return true
}

// caseKernel is lower (upper false) or upper: ASCII text is mapped byte
// by byte into the buffer, other text as strings.ToLower/ToUpper map it.
func caseKernel(upper bool, rowWise ScalarImpl) ScalarImpl {
	return func(ctx *Ctx, args []arrow.Array, n int) (arrow.Array, error) {
		cols, ok := textColumns(args, 1)
		if !ok {
			return rowWise(ctx, args, n)
		}
		sa := cols[0]
		b := newTextBuilder(ctx, n, len(sa.ValueBytes()))
		defer b.Release()
		var buf []byte
		for i := 0; i < n; i++ {
			if sa.IsNull(i) {
				b.AppendNull()
				continue
			}
			s := sa.Value(i)
			if !isASCII(s) {
				if upper {
					b.Append(strings.ToUpper(s))
				} else {
					b.Append(strings.ToLower(s))
				}
				continue
			}
			buf = buf[:0]
			for k := 0; k < len(s); k++ {
				c := s[k]
				if upper && 'a' <= c && c <= 'z' {
					c -= 'a' - 'A'
				} else if !upper && 'A' <= c && c <= 'Z' {
					c += 'a' - 'A'
				}
				buf = append(buf, c)
			}
			b.BinaryBuilder.Append(buf)
		}
		return b.NewArray(), nil
	}
}

// replaceKernel is replace(s, from, to): every non-overlapping from,
// left to right, becomes to (strings.ReplaceAll's rule); an empty from
// leaves s as it is.
func replaceKernel(rowWise ScalarImpl) ScalarImpl {
	return func(ctx *Ctx, args []arrow.Array, n int) (arrow.Array, error) {
		cols, ok := textColumns(args, 3)
		if !ok {
			return rowWise(ctx, args, n)
		}
		sa, fa, ta := cols[0], cols[1], cols[2]
		b := newTextBuilder(ctx, n, len(sa.ValueBytes()))
		defer b.Release()
		var buf []byte
		for i := 0; i < n; i++ {
			if anyNull(i, sa, fa, ta) {
				b.AppendNull()
				continue
			}
			s, from, to := sa.Value(i), fa.Value(i), ta.Value(i)
			if from == "" {
				b.Append(s)
				continue
			}
			buf = buf[:0]
			for {
				k := strings.Index(s, from)
				if k < 0 {
					break
				}
				buf = append(buf, s[:k]...)
				buf = append(buf, to...)
				s = s[k+len(from):]
			}
			buf = append(buf, s...)
			b.BinaryBuilder.Append(buf)
		}
		return b.NewArray(), nil
	}
}

// splitPartOf is split_part's field without building the fields: field
// k (from 1; negative counts from the end) of s split at delim, "" past
// the ends. An empty delim makes s the only field.
func splitPartOf(s, delim string, k int64) string {
	if delim == "" {
		if k == 1 || k == -1 {
			return s
		}
		return ""
	}
	if k < 0 {
		k = int64(strings.Count(s, delim)) + 1 + k + 1
		if k < 1 {
			return ""
		}
	}
	for ; k > 1; k-- {
		j := strings.Index(s, delim)
		if j < 0 {
			return ""
		}
		s = s[j+len(delim):]
	}
	if j := strings.Index(s, delim); j >= 0 {
		return s[:j]
	}
	return s
}

func splitPartKernel(rowWise ScalarImpl) ScalarImpl {
	return func(ctx *Ctx, args []arrow.Array, n int) (arrow.Array, error) {
		cols, ok := textColumns(args, 2)
		if !ok {
			return rowWise(ctx, args, n)
		}
		sa, da := cols[0], cols[1]
		ks := intValues(args[2], nil)
		b := newTextBuilder(ctx, n, len(sa.ValueBytes())/2)
		defer b.Release()
		for i := 0; i < n; i++ {
			if anyNull(i, sa, da, args[2]) {
				b.AppendNull()
				continue
			}
			if ks[i] == 0 {
				_, err := splitPart("", "", 0) // the error of position zero
				return nil, err
			}
			b.Append(splitPartOf(sa.Value(i), da.Value(i), ks[i]))
		}
		return b.NewArray(), nil
	}
}

// substrKernel is substr(s, start[, count]) counting characters; ASCII
// text is sliced by bytes, other text by substrRunes.
func substrKernel(hasCount bool, rowWise ScalarImpl) ScalarImpl {
	return func(ctx *Ctx, args []arrow.Array, n int) (arrow.Array, error) {
		cols, ok := textColumns(args, 1)
		if !ok {
			return rowWise(ctx, args, n)
		}
		sa := cols[0]
		starts := intValues(args[1], nil)
		var counts []int64
		if hasCount {
			counts = intValues(args[2], nil)
		}
		b := newTextBuilder(ctx, n, len(sa.ValueBytes())/2)
		defer b.Release()
		for i := 0; i < n; i++ {
			if sa.IsNull(i) || args[1].IsNull(i) || (hasCount && args[2].IsNull(i)) {
				b.AppendNull()
				continue
			}
			s := sa.Value(i)
			var count int64
			if hasCount {
				count = counts[i]
			}
			if !isASCII(s) || (hasCount && count < 0) {
				r, err := substrRunes(s, starts[i], count, hasCount)
				if err != nil {
					return nil, err
				}
				b.Append(r)
				continue
			}
			from, to := starts[i]-1, int64(len(s))
			if hasCount {
				if to = from + count; to < from { // overflow
					to = int64(len(s))
				}
			}
			from, to = max(from, 0), min(to, int64(len(s)))
			if from >= to {
				b.Append("")
				continue
			}
			b.Append(s[from:to])
		}
		return b.NewArray(), nil
	}
}
