package planner

import (
	"math"

	"github.com/apache/arrow-go/v18/arrow"

	"github.com/weir-sql/weir/sql/expr"
)

// TimeBounds is what a join condition says of right.t - left.t, the
// distance between the event times of a matching right and left row
// (microseconds): a join of two streams keeps each side's rows only as
// long as the other side's watermark allows a match within it.
type TimeBounds struct {
	Lo, Hi       int64
	HasLo, HasHi bool
}

// Bounded reports whether both sides' state expires.
func (b TimeBounds) Bounded() bool { return b.HasLo && b.HasHi }

// JoinTimeBounds finds the time bounds in join j's condition between left
// column lt and right column rt (indexes within each side); an equality of
// the two times among the hash keys bounds both ways at 0. It understands the
// spellings of Databricks, Flink and RisingWave: BETWEEN (bound as >= and
// <=), >, >=, <, <= and = between the two times, either side plus or minus
// a constant interval, in any order. Conditions it does not understand
// bound nothing; they still decide which rows match.
func JoinTimeBounds(j *Join, lt, rt int) TimeBounds {
	var b TimeBounds
	for i := range j.LeftKeys {
		l, okL := j.LeftKeys[i].(*expr.ColumnRef)
		r, okR := j.RightKeys[i].(*expr.ColumnRef)
		if okL && okR && l.Index == lt && r.Index == rt {
			b = TimeBounds{HasLo: true, HasHi: true}
		}
	}
	if j.Cond == nil {
		return b
	}
	nLeft := len(j.Left.Columns())
	for _, c := range conjuncts(j.Cond) {
		f, ok := c.(*expr.FuncCall)
		if !ok || !f.Op || len(f.Args) != 2 {
			continue
		}
		ca, oa, okA := timeTerm(f.Args[0])
		cb, ob, okB := timeTerm(f.Args[1])
		if !okA || !okB {
			continue
		}
		// Normalise to: right.t - left.t OP k.
		var k int64
		op := f.Name
		switch {
		case ca == lt && cb == nLeft+rt:
			// lt + oa OP rt + ob  ⇔  rt - lt  OP'  oa - ob
			k = oa - ob
			op = flipOp(op)
		case ca == nLeft+rt && cb == lt:
			// rt + oa OP lt + ob  ⇔  rt - lt  OP  ob - oa
			k = ob - oa
		default:
			continue
		}
		switch op {
		case ">", ">=":
			if !b.HasLo || k > b.Lo {
				b.Lo, b.HasLo = k, true
			}
		case "<", "<=":
			if !b.HasHi || k < b.Hi {
				b.Hi, b.HasHi = k, true
			}
		case "=":
			if !b.HasLo || k > b.Lo {
				b.Lo, b.HasLo = k, true
			}
			if !b.HasHi || k < b.Hi {
				b.Hi, b.HasHi = k, true
			}
		}
	}
	return b
}

// flipOp is the operator with its sides swapped (a < b ⇔ b > a).
func flipOp(op string) string {
	switch op {
	case "<":
		return ">"
	case "<=":
		return ">="
	case ">":
		return "<"
	case ">=":
		return "<="
	}
	return op
}

// timeTerm reads e as column + constant offset (microseconds). An
// interval's months have no fixed length and are refused; its days count
// as 24 hours, as they do for timestamp arithmetic.
func timeTerm(e expr.Expr) (col int, off int64, ok bool) {
	switch x := e.(type) {
	case *expr.ColumnRef:
		return x.Index, 0, true
	case *expr.FuncCall:
		if !x.Op || len(x.Args) != 2 || (x.Name != "+" && x.Name != "-") {
			return 0, 0, false
		}
		if iv, isConst := intervalMicros(x.Args[1]); isConst {
			c, o, ok := timeTerm(x.Args[0])
			if !ok {
				return 0, 0, false
			}
			if x.Name == "-" {
				iv = -iv
			}
			return c, o + iv, true
		}
		if iv, isConst := intervalMicros(x.Args[0]); isConst && x.Name == "+" {
			c, o, ok := timeTerm(x.Args[1])
			return c, o + iv, ok
		}
	}
	return 0, 0, false
}

// intervalMicros is a constant interval without months, in microseconds.
func intervalMicros(e expr.Expr) (int64, bool) {
	c, ok := e.(*expr.Const)
	if !ok {
		if cast, isCast := e.(*expr.Cast); isCast {
			c, ok = cast.Arg.(*expr.Const)
			if ok {
				if _, isIv := c.Val.(arrow.MonthDayNanoInterval); !isIv {
					return 0, false
				}
			}
		}
		if !ok {
			return 0, false
		}
	}
	iv, ok := c.Val.(arrow.MonthDayNanoInterval)
	if !ok || iv.Months != 0 {
		return 0, false
	}
	us := int64(iv.Days)*86400_000_000 + iv.Nanoseconds/1000
	if us == math.MinInt64 {
		return 0, false
	}
	return us, true
}
