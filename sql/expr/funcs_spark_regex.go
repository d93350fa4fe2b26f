package expr

import (
	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"

	"github.com/weir-sql/weir/sql/sqlerr"
	"github.com/weir-sql/weir/sql/types"
)

// Databricks' regular-expression functions regexp_extract,
// regexp_extract_all and split. Their patterns are Java's; Go's RE2 reads
// the same syntax except lookaround, backreferences, possessive
// quantifiers and atomic groups, which it rejects: those patterns are an
// error (2201B) rather than a different match. Matching is Java's find():
// the leftmost match, leftmost-first alternation. Typed kernels: the
// pattern is compiled when it differs from the previous row's (through
// regexMemo, as the PostgreSQL regex kernels do).

func errRegexGroup(idx int64, groups int) error {
	return sqlerr.New(sqlerr.InvalidParameterValue, "INVALID_PARAMETER_VALUE.REGEX_GROUP_INDEX: the regex group index %d is not between 0 and the number of groups in the pattern, %d", idx, groups)
}

// groupIndex reads the optional group argument (default 1) of row i.
func groupIndex(args []arrow.Array, i int) (int64, bool) {
	if len(args) < 3 {
		return 1, true
	}
	if args[2].IsNull(i) {
		return 0, false
	}
	return DatumAt(args[2], i).(int64), true
}

// extractRow reads row i of regexp_extract[_all]'s arguments: the group
// index and the subject, with the row's pattern compiled into m; null
// when the result is NULL.
func (m *javaRegexMemo) extractRow(sa, pa *array.String, args []arrow.Array, i int) (idx int64, s string, null bool, err error) {
	idx, ok := groupIndex(args, i)
	if !ok || sa.IsNull(i) || pa.IsNull(i) {
		return 0, "", true, nil
	}
	if err := m.getJava(pa.Value(i)); err != nil {
		return 0, "", false, err
	}
	if groups := m.re.NumSubexp(); idx < 0 || idx > int64(groups) {
		return 0, "", false, errRegexGroup(idx, groups)
	}
	return idx, sa.Value(i), false, nil
}

// regexpExtractKernel is regexp_extract(str, regexp[, idx]): group idx of
// the first match, "" when nothing matches or the group took no part.
func regexpExtractKernel(ctx *Ctx, args []arrow.Array, n int) (arrow.Array, error) {
	sa, ok1 := args[0].(*array.String)
	pa, ok2 := args[1].(*array.String)
	if !ok1 || !ok2 {
		return nil, sqlerr.New(sqlerr.InternalError, "regexp_extract: unexpected argument columns")
	}
	b := newTextBuilder(ctx, n, len(sa.ValueBytes())/4)
	defer b.Release()
	var m javaRegexMemo
	var loc []int
	for i := 0; i < n; i++ {
		if i&255 == 255 && ctx.Canceled() {
			return nil, errCanceled()
		}
		idx, s, null, err := m.extractRow(sa, pa, args, i)
		if err != nil {
			return nil, err
		}
		if null {
			b.AppendNull()
			continue
		}
		if m.cannotMatch(s) {
			b.Append("")
			continue
		}
		loc = m.re.FindStringSubmatchIndex(s)
		if loc == nil || loc[2*idx] < 0 {
			b.Append("")
			continue
		}
		b.Append(s[loc[2*idx]:loc[2*idx+1]])
	}
	return b.NewArray(), nil
}

func newTextListBuilder(ctx *Ctx, n int) (*array.ListBuilder, *array.StringBuilder) {
	lb := NewBuilder(ctx.Allocator(), types.ArrayOf(types.Text)).(*array.ListBuilder)
	lb.Reserve(n)
	return lb, lb.ValueBuilder().(*array.StringBuilder)
}

// regexpExtractAllKernel is regexp_extract_all(str, regexp[, idx]): group
// idx of every match, left to right.
func regexpExtractAllKernel(ctx *Ctx, args []arrow.Array, n int) (arrow.Array, error) {
	sa, ok1 := args[0].(*array.String)
	pa, ok2 := args[1].(*array.String)
	if !ok1 || !ok2 {
		return nil, sqlerr.New(sqlerr.InternalError, "regexp_extract_all: unexpected argument columns")
	}
	lb, vb := newTextListBuilder(ctx, n)
	defer lb.Release()
	var m javaRegexMemo
	for i := 0; i < n; i++ {
		if i&255 == 255 && ctx.Canceled() {
			return nil, errCanceled()
		}
		idx, s, null, err := m.extractRow(sa, pa, args, i)
		if err != nil {
			return nil, err
		}
		if null {
			lb.AppendNull()
			continue
		}
		lb.Append(true)
		if m.cannotMatch(s) {
			continue
		}
		for _, loc := range m.re.FindAllStringSubmatchIndex(s, -1) {
			if loc[2*idx] < 0 {
				vb.Append("")
				continue
			}
			vb.Append(s[loc[2*idx]:loc[2*idx+1]])
		}
	}
	return lb.NewArray(), nil
}

// splitKernel is split(str, regex[, limit]), Java's String.split with
// Spark's limit: limit > 0 gives at most limit pieces, the last holding
// the rest; limit <= 0 splits at every match and keeps trailing empty
// pieces. A match of nothing at the very start makes no empty first
// piece; an empty pattern splits between characters.
func splitKernel(ctx *Ctx, args []arrow.Array, n int) (arrow.Array, error) {
	sa, ok1 := args[0].(*array.String)
	pa, ok2 := args[1].(*array.String)
	if !ok1 || !ok2 {
		return nil, sqlerr.New(sqlerr.InternalError, "split: unexpected argument columns")
	}
	lb, vb := newTextListBuilder(ctx, n)
	defer lb.Release()
	var m javaRegexMemo
	for i := 0; i < n; i++ {
		if i&255 == 255 && ctx.Canceled() {
			return nil, errCanceled()
		}
		limit := int64(-1)
		if len(args) > 2 {
			if args[2].IsNull(i) {
				lb.AppendNull()
				continue
			}
			limit = DatumAt(args[2], i).(int64)
		}
		if sa.IsNull(i) || pa.IsNull(i) {
			lb.AppendNull()
			continue
		}
		s, pattern := sa.Value(i), pa.Value(i)
		lb.Append(true)
		if pattern == "" {
			// Between characters, no trailing empty piece.
			k := int64(0)
			for j, r := range s {
				if limit > 0 && k == limit-1 {
					vb.Append(s[j:])
					k = -1
					break
				}
				vb.Append(string(r))
				k++
			}
			if s == "" {
				vb.Append("")
			}
			continue
		}
		if err := m.getJava(pattern); err != nil {
			return nil, err
		}
		last, pieces := 0, int64(0)
		if !m.cannotMatch(s) {
			for _, loc := range m.re.FindAllStringIndex(s, -1) {
				if limit > 0 && pieces == limit-1 {
					break
				}
				if loc[1] == 0 {
					continue // zero-width match at the start
				}
				vb.Append(s[last:loc[0]])
				last = loc[1]
				pieces++
			}
		}
		vb.Append(s[last:])
	}
	return lb.NewArray(), nil
}

func init() {
	tt := []types.T{types.Text, types.Text}
	RegisterScalar("regexp_extract", Overload{Args: tt, Ret: types.Text, Impl: regexpExtractKernel})
	RegisterScalar("regexp_extract_all", Overload{Args: tt, Ret: types.ArrayOf(types.Text), Impl: regexpExtractAllKernel})
	RegisterScalar("split", Overload{Args: tt, Ret: types.ArrayOf(types.Text), Impl: splitKernel})
	for _, it := range []types.T{types.Int4, types.Int8} {
		tti := []types.T{types.Text, types.Text, it}
		RegisterScalar("regexp_extract", Overload{Args: tti, Ret: types.Text, Impl: regexpExtractKernel})
		RegisterScalar("regexp_extract_all", Overload{Args: tti, Ret: types.ArrayOf(types.Text), Impl: regexpExtractAllKernel})
		RegisterScalar("split", Overload{Args: tti, Ret: types.ArrayOf(types.Text), Impl: splitKernel})
	}
}
