package expr

import (
	"math"
	"strings"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"

	"github.com/weir-sql/weir/sql/sqlerr"
	"github.com/weir-sql/weir/sql/types"
)

// Hypothetical-set aggregates: rank, dense_rank, percent_rank and
// cume_dist of a hypothetical row (the direct argument) WITHIN GROUP
// (ORDER BY x): where the row would fall among the group's rows. NULLs are
// rows like any other, placed by NULLS FIRST/LAST. As in PostgreSQL, rank
// and percent_rank place the hypothetical row before its peers, cume_dist
// after them. One ordering column (PostgreSQL allows several).
//
// The rows arrive sorted (the path of aggregates with ORDER BY), which
// dense_rank needs: the distinct values before the hypothetical row are
// the runs of equal values among them.

// SortDirSetter is implemented by accumulators that compare values in the
// order of their WITHIN GROUP (ORDER BY ...): the aggregation passes the
// key's direction before feeding rows.
type SortDirSetter interface {
	SetSortDir(desc, nullsFirst bool)
}

type hypoKind uint8

const (
	hypoRank hypoKind = iota
	hypoDenseRank
	hypoPercentRank
	hypoCumeDist
)

type hypoAcc struct {
	kind       hypoKind
	t          types.T
	desc       bool
	nullsFirst bool
	cmp        func(a, b Datum) int
	groups     []hypoGroup
}

type hypoGroup struct {
	started  bool
	hyp      Datum
	n        int64 // rows
	before   int64 // rows sorting strictly before the hypothetical one
	peers    int64 // rows equal to it
	distinct int64 // distinct values before it
	last     Datum // dense_rank: the last value before it
}

func (a *hypoAcc) SetSortDir(desc, nullsFirst bool) { a.desc, a.nullsFirst = desc, nullsFirst }

// order compares v with the hypothetical value h in the sort order.
func (a *hypoAcc) order(v, h Datum) int {
	switch {
	case v == nil && h == nil:
		return 0
	case v == nil:
		if a.nullsFirst {
			return -1
		}
		return 1
	case h == nil:
		if a.nullsFirst {
			return 1
		}
		return -1
	}
	c := a.cmp(v, h)
	if a.desc {
		c = -c
	}
	return c
}

// orderAt is order for row i of col, reading the common column types
// without boxing the row's value.
func (a *hypoAcc) orderAt(col arrow.Array, i int, h Datum) int {
	if col.IsNull(i) || h == nil {
		return a.order(DatumAt(col, i), h)
	}
	var c int
	switch x := col.(type) {
	case *array.Int16:
		c = cmpInt64(int64(x.Value(i)), h.(int64))
	case *array.Int32:
		c = cmpInt64(int64(x.Value(i)), h.(int64))
	case *array.Int64:
		c = cmpInt64(x.Value(i), h.(int64))
	case *array.Timestamp:
		c = cmpInt64(int64(x.Value(i)), h.(int64))
	case *array.Date32:
		c = cmpInt64(int64(x.Value(i)), h.(int64))
	case *array.String:
		if a.t.OID != types.OidText && a.t.OID != types.OidVarchar {
			return a.order(DatumAt(col, i), h)
		}
		c = strings.Compare(x.Value(i), h.(string))
	default:
		return a.order(DatumAt(col, i), h)
	}
	if a.desc {
		c = -c
	}
	return c
}

func cmpInt64(x, y int64) int {
	switch {
	case x < y:
		return -1
	case x > y:
		return 1
	}
	return 0
}

func (a *hypoAcc) Update(ctx *Ctx, groups []uint32, args []arrow.Array) error {
	hypCol, col := args[0], args[1]
	for i, g := range groups {
		a.groups = growTo(a.groups, g)
		st := &a.groups[g]
		if !st.started {
			st.started, st.hyp = true, DatumAt(hypCol, i)
		}
		st.n++
		switch c := a.orderAt(col, i, st.hyp); {
		case c < 0:
			if a.kind == hypoDenseRank {
				// Only dense_rank needs the value before it, and only
				// when a new one starts a run.
				if st.before == 0 || a.orderAt(col, i, st.last) != 0 {
					st.distinct++
					st.last = DatumAt(col, i)
				}
			}
			st.before++
		case c == 0:
			st.peers++
		}
	}
	return nil
}

func (a *hypoAcc) Finish(ctx *Ctx, ngroups int) (arrow.Array, error) {
	out := make([]Datum, ngroups)
	for g := range out {
		var st hypoGroup
		if g < len(a.groups) {
			st = a.groups[g]
		}
		switch a.kind {
		case hypoRank:
			out[g] = st.before + 1
		case hypoDenseRank:
			out[g] = st.distinct + 1
		case hypoPercentRank:
			if st.n == 0 {
				out[g] = 0.0
			} else {
				out[g] = float64(st.before) / float64(st.n)
			}
		case hypoCumeDist:
			out[g] = float64(st.before+st.peers+1) / float64(st.n+1)
		}
	}
	ret := types.Int8
	if a.kind == hypoPercentRank || a.kind == hypoCumeDist {
		ret = types.Float8
	}
	return ArrayFromDatums(ctx.Allocator(), ret, out), nil
}

// datumOrder is the sort order of non-NULL values of t, as the sort has it
// (NaN above every other float8, text in byte order as under the C
// collation); nil for types it does not cover.
func datumOrder(t types.T) func(a, b Datum) int {
	switch t.OID {
	case types.OidInt2, types.OidInt4, types.OidInt8, types.OidOid, types.OidDate, types.OidTime, types.OidTimestamp, types.OidTimestampTZ:
		return func(a, b Datum) int {
			x, y := a.(int64), b.(int64)
			switch {
			case x < y:
				return -1
			case x > y:
				return 1
			}
			return 0
		}
	case types.OidFloat4, types.OidFloat8:
		return func(a, b Datum) int {
			x, y := a.(float64), b.(float64)
			switch xn, yn := math.IsNaN(x), math.IsNaN(y); {
			case xn && yn:
				return 0
			case xn:
				return 1
			case yn:
				return -1
			case x < y:
				return -1
			case x > y:
				return 1
			}
			return 0
		}
	case types.OidNumeric:
		return func(a, b Datum) int { return cmpNumericText(a.(string), b.(string)) }
	case types.OidBpchar:
		return func(a, b Datum) int {
			return strings.Compare(strings.TrimRight(a.(string), " "), strings.TrimRight(b.(string), " "))
		}
	case types.OidText, types.OidVarchar, types.OidName:
		return func(a, b Datum) int { return strings.Compare(a.(string), b.(string)) }
	case types.OidInterval:
		return func(a, b Datum) int {
			return cmpInterval(a.(arrow.MonthDayNanoInterval), b.(arrow.MonthDayNanoInterval))
		}
	case types.OidBool:
		return func(a, b Datum) int {
			x, y := a.(bool), b.(bool)
			switch {
			case x == y:
				return 0
			case !x:
				return -1
			}
			return 1
		}
	}
	return nil
}

// hypotheticalSet names the hypothetical-set aggregates: also window
// functions, so they are aggregates only with WITHIN GROUP.
var hypotheticalSet = map[string]hypoKind{
	"rank": hypoRank, "dense_rank": hypoDenseRank, "percent_rank": hypoPercentRank, "cume_dist": hypoCumeDist,
}

// IsHypotheticalSetAggregate reports whether name is a hypothetical-set
// aggregate (an aggregate only when called WITHIN GROUP).
func IsHypotheticalSetAggregate(name string) bool { _, ok := hypotheticalSet[name]; return ok }

func init() {
	for name, kind := range hypotheticalSet {
		ret := types.Int8
		if kind == hypoPercentRank || kind == hypoCumeDist {
			ret = types.Float8
		}
		RegisterOrderedSetAggregate(name, AggOverload{Args: []types.T{AnyElement, AnyElement}, Ret: ret,
			New: func(args []types.T, ret types.T) Accumulator {
				cmp := datumOrder(args[1])
				if cmp == nil {
					return &refusedAcc{err: sqlerr.New(sqlerr.FeatureNotSupported, "%s WITHIN GROUP over type %s is not supported", name, args[1])}
				}
				return &hypoAcc{kind: kind, t: args[1], cmp: cmp}
			}})
	}
}

// refusedAcc fails its first use: an aggregate resolved for a type it
// cannot run over.
type refusedAcc struct{ err error }

func (a *refusedAcc) Update(*Ctx, []uint32, []arrow.Array) error { return a.err }
func (a *refusedAcc) Finish(*Ctx, int) (arrow.Array, error)      { return nil, a.err }
