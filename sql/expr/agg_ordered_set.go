package expr

import (
	"math"
	"reflect"
	"sort"
	"strings"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"

	"github.com/weir-sql/weir/sql/sqlerr"
	"github.com/weir-sql/weir/sql/types"
)

// Ordered-set aggregates (f(direct) WITHIN GROUP (ORDER BY x)):
// percentile_cont, percentile_disc (scalar and array fractions) and mode.
//
// An ordered-set aggregate's arguments are its direct arguments followed
// by its one ordered argument; the aggregation sorts each group's input by
// the ordered argument (the path of aggregates with ORDER BY, which spills
// past work_mem) and feeds it to the accumulator in that order. Before the
// sorted rows are fed, the aggregation counts each group's input through
// InputCounter, so a percentile knows which row positions it needs and
// keeps only those: the state per group is O(number of fractions), never
// the group's rows.

// InputCounter is implemented by accumulators that need each group's row
// count before the sorted rows are fed. CountInput sees every row that
// passes FILTER, with the same arguments Update will see later (in sorted
// order); all CountInput calls happen before the first Update.
type InputCounter interface {
	CountInput(groups []uint32, args []arrow.Array)
}

// ConstDirectSetter is implemented by ordered-set accumulators whose direct
// argument matters for a group that received no rows at all (the empty
// input of a global aggregate: PostgreSQL still checks the fraction). The
// aggregation passes the direct argument when it is a constant.
type ConstDirectSetter interface {
	SetConstDirect(v Datum)
}

var orderedSetAggs = map[string][]AggOverload{}

// RegisterOrderedSetAggregate adds overloads of an ordered-set aggregate;
// an overload's last argument is the ordered one.
func RegisterOrderedSetAggregate(name string, ovs ...AggOverload) {
	orderedSetAggs[name] = append(orderedSetAggs[name], ovs...)
}

// IsOrderedSetAggregate reports whether name is an ordered-set aggregate
// (hypothetical-set ones included).
func IsOrderedSetAggregate(name string) bool { _, ok := orderedSetAggs[name]; return ok }

// ResolveOrderedSetAggregate picks the overload of an ordered-set aggregate
// for the direct arguments' types followed by the ordered argument's.
func ResolveOrderedSetAggregate(name string, args []types.T) (*ResolvedAgg, error) {
	return resolveAggOverload(name, orderedSetAggs[name], args)
}

// percentileAcc is percentile_cont and percentile_disc. args[0] is the
// fraction (float8, or float8[] for the array forms), args[1] the ordered
// value, fed in sorted order with NULLs (ignored) among them.
type percentileAcc struct {
	cont  bool
	multi bool    // the fraction is an array; the result too
	t     types.T // the ordered (and, but for float8 percentile_cont, result) type
	ret   types.T

	n      []int64 // non-NULL ordered values per group (CountInput)
	groups []pctGroup
	direct Datum // the constant fraction, for groups that saw no rows
	hasDir bool
}

// pctGroup is one group's state: its fractions, the row positions they
// need (sorted, distinct) and the values found there.
type pctGroup struct {
	started bool
	null    bool // the fraction (scalar form) or the array is NULL
	fracs   []float64
	fnull   []bool
	want    []int64
	vals    []Datum
	next    int   // index into want of the next position to capture
	pos     int64 // non-NULL rows fed so far
}

func (a *percentileAcc) CountInput(groups []uint32, args []arrow.Array) {
	col := args[1]
	for i, g := range groups {
		a.n = growTo(a.n, g)
		if !col.IsNull(i) {
			a.n[g]++
		}
	}
}

func (a *percentileAcc) SetConstDirect(v Datum) { a.direct, a.hasDir = v, true }

func pctRangeError(p float64) error {
	return sqlerr.New(sqlerr.NumericValueOutOfRange, "percentile value %s is not between 0 and 1", formatFloat8(p))
}

func formatFloat8(f float64) string {
	return types.FormatFloat64(f)
}

// start reads a group's fraction(s) and works out the positions needed.
func (a *percentileAcc) start(st *pctGroup, frac Datum, n int64) error {
	st.started = true
	if frac == nil {
		st.null = true
		return nil
	}
	if a.multi {
		for _, e := range frac.([]Datum) {
			if e == nil {
				st.fracs, st.fnull = append(st.fracs, 0), append(st.fnull, true)
				continue
			}
			st.fracs, st.fnull = append(st.fracs, e.(float64)), append(st.fnull, false)
		}
		if n == 0 {
			return nil // PostgreSQL: NULL before looking at the fractions
		}
	} else {
		st.fracs, st.fnull = []float64{frac.(float64)}, []bool{false}
	}
	for i, p := range st.fracs {
		if st.fnull[i] {
			continue
		}
		if p < 0 || p > 1 || math.IsNaN(p) {
			return pctRangeError(p)
		}
		if n == 0 {
			continue
		}
		if a.cont {
			lo, hi := pctContRows(p, n)
			st.want = append(st.want, lo, hi)
		} else {
			st.want = append(st.want, pctDiscRow(p, n))
		}
	}
	sort.Slice(st.want, func(i, j int) bool { return st.want[i] < st.want[j] })
	w := st.want[:0]
	for i, x := range st.want {
		if i == 0 || x != st.want[i-1] {
			w = append(w, x)
		}
	}
	st.want = w
	st.vals = make([]Datum, len(w))
	return nil
}

// pctContRows: the 0-based rows percentile_cont interpolates between.
func pctContRows(p float64, n int64) (int64, int64) {
	x := p * float64(n-1)
	return int64(math.Floor(x)), int64(math.Ceil(x))
}

// pctDiscRow: the 0-based row percentile_disc returns, the first whose
// cumulative distribution reaches p.
func pctDiscRow(p float64, n int64) int64 {
	r := int64(math.Ceil(p * float64(n)))
	if r < 1 {
		r = 1
	}
	return r - 1
}

func (a *percentileAcc) Update(ctx *Ctx, groups []uint32, args []arrow.Array) error {
	fracCol, col := args[0], args[1]
	for i, g := range groups {
		a.groups = growTo(a.groups, g)
		a.n = growTo(a.n, g)
		st := &a.groups[g]
		if !st.started {
			if err := a.start(st, DatumAt(fracCol, i), a.n[g]); err != nil {
				return err
			}
		}
		if col.IsNull(i) {
			continue
		}
		for st.next < len(st.want) && st.want[st.next] == st.pos {
			st.vals[st.next] = DatumAt(col, i)
			st.next++
		}
		st.pos++
	}
	return nil
}

func (a *percentileAcc) value(st *pctGroup, k int, n int64) (Datum, error) {
	if st.fnull[k] {
		return nil, nil
	}
	p := st.fracs[k]
	at := func(row int64) Datum {
		j := sort.Search(len(st.want), func(i int) bool { return st.want[i] >= row })
		return st.vals[j]
	}
	if !a.cont {
		return at(pctDiscRow(p, n)), nil
	}
	lo, hi := pctContRows(p, n)
	lv, hv := at(lo), at(hi)
	if lo == hi {
		return lv, nil
	}
	frac := p*float64(n-1) - float64(lo)
	if a.t.OID == types.OidInterval {
		l, h := lv.(arrow.MonthDayNanoInterval), hv.(arrow.MonthDayNanoInterval)
		diff, err := addInterval(h, negInterval(l))
		if err != nil {
			return nil, err
		}
		mul, err := intervalScale(diff, frac, false)
		if err != nil {
			return nil, err
		}
		return addInterval(l, mul)
	}
	l, h := lv.(float64), hv.(float64)
	return l + (h-l)*frac, nil
}

func (a *percentileAcc) Finish(ctx *Ctx, ngroups int) (arrow.Array, error) {
	out := make([]Datum, ngroups)
	for g := range out {
		var st *pctGroup
		if g < len(a.groups) && a.groups[g].started {
			st = &a.groups[g]
		} else {
			// No rows at all: only the scalar form looks at its fraction.
			if a.hasDir && !a.multi {
				if p, ok := a.direct.(float64); ok && (p < 0 || p > 1 || math.IsNaN(p)) {
					return nil, pctRangeError(p)
				}
			}
			continue
		}
		var n int64
		if g < len(a.n) {
			n = a.n[g]
		}
		if st.null || n == 0 {
			continue
		}
		if !a.multi {
			v, err := a.value(st, 0, n)
			if err != nil {
				return nil, err
			}
			out[g] = v
			continue
		}
		vs := make([]Datum, len(st.fracs))
		for k := range vs {
			v, err := a.value(st, k, n)
			if err != nil {
				return nil, err
			}
			vs[k] = v
		}
		out[g] = vs
	}
	return ArrayFromDatums(ctx.Allocator(), a.ret, out), nil
}

// modeAcc is mode(): the most frequent value, the first of them in the
// sort order on ties (each group's values arrive sorted, so runs of equal
// values are contiguous within a group).
type modeAcc struct {
	t      types.T
	equal  func(a, b Datum) bool
	groups []modeGroup
}

type modeGroup struct {
	cur, best   Datum
	curN, bestN int64
}

func (a *modeAcc) Update(ctx *Ctx, groups []uint32, args []arrow.Array) error {
	col := args[0]
	for i, g := range groups {
		a.groups = growTo(a.groups, g)
		if col.IsNull(i) {
			continue
		}
		st := &a.groups[g]
		if st.curN > 0 && a.sameAt(st.cur, col, i) {
			st.curN++
		} else {
			st.cur, st.curN = DatumAt(col, i), 1
		}
		if st.curN > st.bestN {
			st.best, st.bestN = st.cur, st.curN
		}
	}
	return nil
}

// sameAt compares the run's value with row i without boxing the common
// types.
func (a *modeAcc) sameAt(cur Datum, col arrow.Array, i int) bool {
	switch c := col.(type) {
	case *array.Int16:
		return cur.(int64) == int64(c.Value(i))
	case *array.Int32:
		return cur.(int64) == int64(c.Value(i))
	case *array.Int64:
		return cur.(int64) == c.Value(i)
	case *array.Float64:
		return cur.(float64) == c.Value(i)
	case *array.Timestamp:
		return cur.(int64) == int64(c.Value(i))
	case *array.Date32:
		return cur.(int64) == int64(c.Value(i))
	case *array.String:
		if a.t.OID == types.OidText || a.t.OID == types.OidVarchar {
			return cur.(string) == c.Value(i)
		}
	}
	return a.equal(cur, DatumAt(col, i))
}

func (a *modeAcc) Finish(ctx *Ctx, ngroups int) (arrow.Array, error) {
	out := make([]Datum, ngroups)
	for g := range out {
		if g < len(a.groups) && a.groups[g].bestN > 0 {
			out[g] = a.groups[g].best
		}
	}
	return ArrayFromDatums(ctx.Allocator(), a.t, out), nil
}

// datumEqual is equality as the type's = operator has it, for the types
// whose Datum can be equal under different representations.
func datumEqual(t types.T) func(a, b Datum) bool {
	switch t.OID {
	case types.OidNumeric:
		return func(a, b Datum) bool { return cmpNumericText(a.(string), b.(string)) == 0 }
	case types.OidBpchar:
		return func(a, b Datum) bool {
			return strings.TrimRight(a.(string), " ") == strings.TrimRight(b.(string), " ")
		}
	case types.OidInterval:
		return func(a, b Datum) bool {
			return cmpInterval(a.(arrow.MonthDayNanoInterval), b.(arrow.MonthDayNanoInterval)) == 0
		}
	}
	return func(a, b Datum) bool { return reflect.DeepEqual(a, b) }
}

func init() {
	f8, f8arr := types.Float8, types.ArrayOf(types.Float8)
	newPct := func(cont, multi bool) func(args []types.T, ret types.T) Accumulator {
		return func(args []types.T, ret types.T) Accumulator {
			return &percentileAcc{cont: cont, multi: multi, t: args[1], ret: ret}
		}
	}
	RegisterOrderedSetAggregate("percentile_cont",
		AggOverload{Args: []types.T{f8, f8}, Ret: f8, New: newPct(true, false)},
		AggOverload{Args: []types.T{f8, types.Interval}, Ret: types.Interval, New: newPct(true, false)},
		AggOverload{Args: []types.T{f8arr, f8}, Ret: f8arr, New: newPct(true, true)},
		AggOverload{Args: []types.T{f8arr, types.Interval}, Ret: types.ArrayOf(types.Interval), New: newPct(true, true)},
	)
	RegisterOrderedSetAggregate("percentile_disc",
		AggOverload{Args: []types.T{f8, AnyElement}, RetFn: func(args []types.T) types.T { return args[1] }, New: newPct(false, false)},
		AggOverload{Args: []types.T{f8arr, AnyElement}, RetFn: func(args []types.T) types.T { return types.ArrayOf(args[1]) }, New: newPct(false, true)},
	)
	RegisterOrderedSetAggregate("mode",
		AggOverload{Args: []types.T{AnyElement}, RetFn: func(args []types.T) types.T { return args[0] },
			New: func(args []types.T, ret types.T) Accumulator { return &modeAcc{t: ret, equal: datumEqual(ret)} }},
	)
}
