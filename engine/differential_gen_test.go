package engine_test

// Query and data generator for TestDifferential (differential_test.go).
//
// Everything here is driven by one *rand.Rand so that a seed reproduces the
// data and the query sequence exactly. Generated queries are type-correct
// and avoid behaviour PostgreSQL leaves unspecified:
//   - results are either totally ordered (ORDER BY every output column,
//     positionally) or compared as multisets;
//   - LIMIT/OFFSET only appear with that total order;
//   - row_number/lag/running sums order by a key ending in the unique id;
//   - string_agg orders by the aggregated value itself;
//   - float8 data are multiples of 0.25 of small magnitude, and the float
//     expressions fed to sum/avg keep that property, so sums are exact
//     whatever order rows are added in;
//   - integer arithmetic stays far away from overflow, divisors are non-zero
//     literals or NULLIF(...,0).
// A small share of queries errors on purpose (bad casts, division by zero)
// to compare SQLSTATEs.

import (
	"fmt"
	"math/rand"
	"strconv"
	"strings"
)

type dtype int

const (
	tInt4 dtype = iota
	tInt8
	tNum
	tFloat
	tText
	tBool
	tTs
	tDate
	numTypes
)

func (t dtype) String() string {
	return [...]string{"int4", "int8", "numeric", "float8", "text", "bool", "timestamptz", "date"}[t]
}

// orderable types usable with min/max, comparisons and ORDER BY.
var orderable = []dtype{tInt4, tInt8, tNum, tFloat, tText, tTs, tDate}

type column struct {
	name string
	typ  dtype
}

type table struct {
	name string
	cols []column
}

// t1 and t2 share a shape (so they can be UNIONed and joined on any
// column); t3 is a small lookup table keyed by g's values.
var diffTables = []table{
	{"t1", []column{{"id", tInt4}, {"g", tInt4}, {"a", tInt4}, {"b", tInt8}, {"c", tNum}, {"d", tFloat}, {"s", tText}, {"f", tBool}, {"ts", tTs}, {"dt", tDate}}},
	{"t2", []column{{"id", tInt4}, {"g", tInt4}, {"a", tInt4}, {"b", tInt8}, {"c", tNum}, {"d", tFloat}, {"s", tText}, {"f", tBool}, {"ts", tTs}, {"dt", tDate}}},
	{"t3", []column{{"k", tInt4}, {"name", tText}, {"w", tNum}, {"hit", tBool}}},
}

var sqlTypeName = map[dtype]string{tInt4: "int4", tInt8: "int8", tNum: "numeric(12,2)", tFloat: "float8", tText: "text", tBool: "bool", tTs: "timestamptz", tDate: "date"}

var textPool = []string{"", "a", "A", "abc", "Abc", "ABC", "b", "B", "hello world", "Hello", "x_y", "50%", "zeta", "z", " a", "a ", "it's", `back\slash`, "ünï", "aa", "ab", "Ab", "ba", "1", "10", "9"}

func quote(s string) string { return "'" + strings.ReplaceAll(s, "'", "''") + "'" }

// genData returns CREATE TABLE and INSERT statements (identical text for
// both servers).
func genData(r *rand.Rand) []string {
	var stmts []string
	for _, tb := range diffTables {
		var defs []string
		for _, c := range tb.cols {
			defs = append(defs, c.name+" "+sqlTypeName[c.typ])
		}
		stmts = append(stmts, fmt.Sprintf("CREATE TABLE %s (%s)", tb.name, strings.Join(defs, ", ")))
	}
	rowsFor := map[string]int{"t1": 300, "t2": 200, "t3": 10}
	for _, tb := range diffTables {
		var vals []string
		n := rowsFor[tb.name]
		for i := 0; i < n; i++ {
			var row []string
			for _, c := range tb.cols {
				row = append(row, dataValue(r, tb.name, c, i))
			}
			vals = append(vals, "("+strings.Join(row, ", ")+")")
		}
		for len(vals) > 0 {
			k := min(100, len(vals))
			stmts = append(stmts, fmt.Sprintf("INSERT INTO %s VALUES %s", tb.name, strings.Join(vals[:k], ", ")))
			vals = vals[k:]
		}
	}
	return stmts
}

func dataValue(r *rand.Rand, tbl string, c column, i int) string {
	switch c.name {
	case "id":
		return strconv.Itoa(i + 1)
	case "k":
		if i == 9 {
			return "NULL"
		}
		return strconv.Itoa(i - 1) // -1..8: overlaps g's 0..7 with extra keys
	case "name":
		return quote(textPool[r.Intn(len(textPool))])
	}
	if r.Intn(10) == 0 {
		return "NULL"
	}
	switch c.name {
	case "g":
		return strconv.Itoa(r.Intn(8))
	}
	switch c.typ {
	case tInt4:
		return strconv.Itoa(r.Intn(251) - 50)
	case tInt8:
		if r.Intn(3) == 0 {
			return strconv.Itoa(r.Intn(20) - 5)
		}
		return strconv.FormatInt(r.Int63n(10_000_000_000)-3_000_000_000, 10)
	case tNum:
		if r.Intn(4) == 0 {
			return fmt.Sprintf("%d", r.Intn(100)-20) // stored with scale 2 anyway
		}
		v := r.Int63n(20_000_000) - 5_000_000
		return formatCents(v)
	case tFloat:
		k := r.Intn(4001) - 2000
		if k == 0 {
			return "0"
		}
		return strconv.FormatFloat(float64(k)*0.25, 'f', -1, 64)
	case tText:
		return quote(textPool[r.Intn(len(textPool))])
	case tBool:
		return []string{"true", "false"}[r.Intn(2)]
	case tTs:
		sec := r.Int63n(2 * 365 * 86400)
		base := fmt.Sprintf("'2023-01-01 00:00:00+00'::timestamptz + interval '%d seconds'", sec)
		switch r.Intn(6) {
		case 0:
			return fmt.Sprintf("(%s + interval '0.5 seconds')", base)
		case 1:
			return fmt.Sprintf("'2024-%02d-%02d %02d:30:00+02'", 1+r.Intn(12), 1+r.Intn(28), r.Intn(24))
		}
		return base
	case tDate:
		return fmt.Sprintf("'2023-01-01'::date + %d", r.Intn(800))
	}
	panic("unreachable")
}

func formatCents(v int64) string {
	sign := ""
	if v < 0 {
		sign = "-"
		v = -v
	}
	return fmt.Sprintf("%s%d.%02d", sign, v/100, v%100)
}

// scopeCol is a column visible to expressions: qualifier.name.
type scopeCol struct {
	q    string
	name string
	typ  dtype
}

func (c scopeCol) ref() string { return c.q + "." + c.name }

type gen struct {
	r     *rand.Rand
	scope []scopeCol
	// exactFloat restricts float8 expressions to exact arithmetic on
	// multiples of 0.25 (used inside sum/avg).
	exactFloat bool
	// noErr suppresses deliberately erroring expressions.
	noErr   bool
	errItem bool
	// correlated is set while generating a correlated subquery's
	// predicate, evaluated once per outer row: slow functions (numeric
	// ln, exp, power) stay out of it so queries finish in time.
	correlated bool
	// usingKey is the column the last joinFrom merged with USING, or "".
	usingKey string
}

func (g *gen) n(k int) int       { return g.r.Intn(k) }
func (g *gen) chance(p int) bool { return g.r.Intn(100) < p }
func (g *gen) pick(xs ...string) string {
	return xs[g.r.Intn(len(xs))]
}

func scopeOf(tb table, alias string) []scopeCol {
	var s []scopeCol
	for _, c := range tb.cols {
		s = append(s, scopeCol{alias, c.name, c.typ})
	}
	return s
}

func (g *gen) colsOf(t dtype) []scopeCol {
	var out []scopeCol
	for _, c := range g.scope {
		if c.typ == t {
			out = append(out, c)
		}
	}
	return out
}

func (g *gen) column(t dtype) (string, bool) {
	cs := g.colsOf(t)
	if len(cs) == 0 {
		return "", false
	}
	return cs[g.n(len(cs))].ref(), true
}

func (g *gen) intLit(lo, hi int) string {
	v := lo + g.n(hi-lo+1)
	if v < 0 {
		return "(" + strconv.Itoa(v) + ")"
	}
	return strconv.Itoa(v)
}

func (g *gen) nonzeroLit() string {
	v := 1 + g.n(9)
	if g.chance(30) {
		v = -v
		return "(" + strconv.Itoa(v) + ")"
	}
	return strconv.Itoa(v)
}

func (g *gen) literal(t dtype) string {
	if g.chance(4) {
		return "NULL::" + t.String()
	}
	switch t {
	case tInt4:
		return g.intLit(-60, 210)
	case tInt8:
		if g.chance(50) {
			return strconv.FormatInt(g.r.Int63n(10_000_000_000)-3_000_000_000, 10) + "::int8"
		}
		return g.intLit(-5, 15) + "::int8"
	case tNum:
		return "(" + formatCents(g.r.Int63n(20_000_000)-5_000_000) + ")"
	case tFloat:
		return "(" + strconv.FormatFloat(float64(g.n(4001)-2000)*0.25, 'f', -1, 64) + "::float8)"
	case tText:
		return quote(textPool[g.n(len(textPool))])
	case tBool:
		return g.pick("true", "false")
	case tTs:
		return fmt.Sprintf("'2024-%02d-%02d %02d:00:00+00'::timestamptz", 1+g.n(12), 1+g.n(28), g.n(24))
	case tDate:
		return fmt.Sprintf("'2024-%02d-%02d'::date", 1+g.n(12), 1+g.n(28))
	}
	panic("unreachable")
}

func (g *gen) leaf(t dtype) string {
	if g.chance(75) {
		if c, ok := g.column(t); ok {
			return c
		}
		if t == tInt8 {
			if c, ok := g.column(tInt4); ok {
				return c + "::int8"
			}
		}
	}
	return g.literal(t)
}

// expr returns an expression of type t.
func (g *gen) expr(t dtype, depth int) string {
	if depth <= 0 || g.chance(35) {
		return g.leaf(t)
	}
	d := depth - 1
	// Generic forms available for every type.
	switch g.n(14) {
	case 0:
		return fmt.Sprintf("CASE WHEN %s THEN %s ELSE %s END", g.expr(tBool, d), g.expr(t, d), g.expr(t, d))
	case 1:
		return fmt.Sprintf("COALESCE(%s, %s)", g.expr(t, d), g.expr(t, d))
	case 2:
		if t != tBool {
			return fmt.Sprintf("NULLIF(%s, %s)", g.expr(t, d), g.expr(t, d))
		}
	case 3:
		if t != tBool && g.chance(50) {
			return fmt.Sprintf("CASE %s WHEN %s THEN %s ELSE %s END", g.expr(t, d), g.literal(t), g.expr(t, d), g.expr(t, d))
		}
	}
	switch t {
	case tInt4:
		switch g.n(12) {
		case 0:
			return fmt.Sprintf("(%s + %s)", g.expr(tInt4, d), g.expr(tInt4, d))
		case 1:
			return fmt.Sprintf("(%s - %s)", g.expr(tInt4, d), g.expr(tInt4, d))
		case 2:
			return fmt.Sprintf("(%s * %s)", g.expr(tInt4, d), g.intLit(-4, 4))
		case 3:
			return fmt.Sprintf("(%s / %s)", g.expr(tInt4, d), g.nonzeroLit())
		case 4:
			return fmt.Sprintf("(%s %% %s)", g.expr(tInt4, d), g.nonzeroLit())
		case 5:
			return fmt.Sprintf("abs(%s)", g.expr(tInt4, d))
		case 6:
			return fmt.Sprintf("length(%s)", g.expr(tText, d))
		case 7:
			return fmt.Sprintf("(- %s)", g.expr(tInt4, d))
		case 8:
			return fmt.Sprintf("%s::int4", g.expr(tNum, d))
		case 9:
			if !g.exactFloat {
				return fmt.Sprintf("%s::int4", g.expr(tFloat, d))
			}
		case 10:
			return fmt.Sprintf("(%s - %s)", g.expr(tDate, d), g.expr(tDate, d))
		case 11:
			if !g.noErr && g.chance(50) {
				// May fail with 22P02 at run time.
				return fmt.Sprintf("%s::int4", g.expr(tText, d))
			}
			return fmt.Sprintf("(%s / NULLIF(%s, 0))", g.expr(tInt4, d), g.expr(tInt4, d))
		}
	case tInt8:
		switch g.n(7) {
		case 0:
			return fmt.Sprintf("(%s + %s)", g.expr(tInt8, d), g.expr(tInt8, d))
		case 1:
			return fmt.Sprintf("(%s - %s)", g.expr(tInt8, d), g.expr(tInt4, d))
		case 2:
			return fmt.Sprintf("(%s * %s)", g.expr(tInt8, d), g.intLit(-3, 3))
		case 3:
			return fmt.Sprintf("(%s / %s)", g.expr(tInt8, d), g.nonzeroLit())
		case 4:
			return fmt.Sprintf("(%s %% %s)", g.expr(tInt8, d), g.nonzeroLit())
		case 5:
			return fmt.Sprintf("abs(%s)", g.expr(tInt8, d))
		case 6:
			return fmt.Sprintf("%s::int8", g.expr(tInt4, d))
		}
	case tNum:
		if g.chance(12) && !g.correlated {
			// Transcendental functions: PostgreSQL's result-scale rules
			// (at least 16 significant digits, never fewer fraction
			// digits than the argument) and int/numeric resolution.
			a := fmt.Sprintf("(abs(%s) + 1)", g.expr(tNum, d))
			switch g.n(8) {
			case 0:
				return fmt.Sprintf("ln(%s)", a)
			case 1:
				return fmt.Sprintf("log(%s)", a)
			case 2:
				return fmt.Sprintf("log(%s, %s)", g.pick("2.0", "10", "0.5", "7.25"), a)
			case 3:
				return fmt.Sprintf("exp(%s / 100000.0)", g.expr(tNum, d))
			case 4:
				return fmt.Sprintf("sqrt(%s)", a)
			case 5:
				return fmt.Sprintf("power(%s, %s)", a, g.pick("0.5", "2", "-1", "1.5", "0", "3.0", "-0.25"))
			case 6:
				// (never 0 to a negative power: PostgreSQL folds that
				// constant error even in a branch no row takes)
				return fmt.Sprintf("(%s ^ %s)", g.pick("0", "2.0", "1.5", "10"), g.pick("0", "0.5", "2", "3.5"))
			case 7:
				return fmt.Sprintf("(%s ^ %s)", g.pick("2.0", "1.5", "10", "0.5"), g.pick("(-2)", "(-0.5)"))
			}
		}
		switch g.n(12) {
		case 0:
			return fmt.Sprintf("(%s + %s)", g.expr(tNum, d), g.expr(tNum, d))
		case 1:
			return fmt.Sprintf("(%s - %s)", g.expr(tNum, d), g.expr(tInt4, d))
		case 2:
			return fmt.Sprintf("(%s * %s)", g.expr(tNum, d), g.expr(tInt4, d))
		case 3:
			// numeric division: result scale rules deliberately exercised.
			return fmt.Sprintf("(%s / %s)", g.expr(tNum, d), g.nonzeroLit())
		case 4:
			return fmt.Sprintf("round(%s, %d)", g.expr(tNum, d), g.n(4))
		case 5:
			return fmt.Sprintf("round(%s)", g.expr(tNum, d))
		case 6:
			return fmt.Sprintf("trunc(%s, %d)", g.expr(tNum, d), g.n(3))
		case 7:
			return fmt.Sprintf("abs(%s)", g.expr(tNum, d))
		case 8:
			return fmt.Sprintf("%s::numeric", g.expr(tInt4, d))
		case 9:
			return fmt.Sprintf("%s::numeric(12,1)", g.expr(tNum, d))
		case 10:
			return fmt.Sprintf("(%s * %s)", g.expr(tNum, d), g.expr(tNum, 0))
		case 11:
			if !g.noErr && g.chance(40) {
				// Division by zero (22012) when a row has c = 0 ... or NULL.
				return fmt.Sprintf("(%s / (%s - %s))", g.expr(tNum, d), g.leaf(tInt4), g.leaf(tInt4))
			}
			return fmt.Sprintf("(%s / NULLIF(%s, 0))", g.expr(tNum, d), g.expr(tInt4, d))
		}
	case tFloat:
		switch g.n(9) {
		case 0:
			return fmt.Sprintf("(%s + %s)", g.expr(tFloat, d), g.expr(tFloat, d))
		case 1:
			return fmt.Sprintf("(%s - %s)", g.expr(tFloat, d), g.expr(tFloat, d))
		case 2:
			return fmt.Sprintf("(%s * %s)", g.expr(tFloat, d), g.pick("2", "0.5", "(-1)", "4"))
		case 3:
			return fmt.Sprintf("(%s / %s)", g.expr(tFloat, d), g.pick("2", "4", "(-2)"))
		case 4:
			return fmt.Sprintf("%s(%s)", g.pick("abs", "floor", "ceil", "round"), g.expr(tFloat, d))
		case 5:
			return fmt.Sprintf("%s::float8", g.expr(tInt4, d))
		case 6:
			if !g.exactFloat {
				return fmt.Sprintf("%s::float8", g.expr(tNum, d))
			}
		case 7:
			if !g.exactFloat {
				return fmt.Sprintf("(%s / %s)", g.expr(tFloat, d), g.pick("3", "7", "10"))
			}
		case 8:
			if !g.exactFloat {
				return fmt.Sprintf("sqrt(abs(%s))", g.expr(tFloat, d))
			}
			// Integer arguments resolve to the float8 overload (float8 is
			// the preferred numeric type): round(int), int ^ int.
			switch g.n(3) {
			case 0:
				return fmt.Sprintf("%s(%s)", g.pick("round", "trunc", "ceil", "floor"), g.expr(tInt4, d))
			case 1:
				return fmt.Sprintf("(%s ^ %s)", g.pick("0", "2", "(-3)", "5"), g.pick("0", "1", "2", "3"))
			}
		}
	case tText:
		if g.chance(6) {
			// JSON nulls read as text are SQL NULL; VARIADIC arrays are
			// argument lists.
			switch g.n(3) {
			case 0:
				return fmt.Sprintf("(json_build_array(%s, NULL) ->> %d)", g.expr(tText, d), g.n(3))
			case 1:
				return fmt.Sprintf("(json_build_object('k', %s) #>> '{k}')", g.expr(tText, d))
			case 2:
				return fmt.Sprintf("concat_ws('|', VARIADIC ARRAY[%s, %s])", g.expr(tText, d), g.expr(tText, d))
			}
		}
		switch g.n(14) {
		case 0:
			return fmt.Sprintf("lower(%s)", g.expr(tText, d))
		case 1:
			return fmt.Sprintf("upper(%s)", g.expr(tText, d))
		case 2:
			return fmt.Sprintf("substr(%s, %d, %d)", g.expr(tText, d), g.n(4), g.n(4))
		case 3:
			return fmt.Sprintf("(%s || %s)", g.expr(tText, d), g.expr(tText, d))
		case 4:
			return fmt.Sprintf("%s::text", g.expr(tInt4, d))
		case 5:
			return fmt.Sprintf("%s::text", g.expr(tNum, d))
		case 6:
			return fmt.Sprintf("%s::text", g.expr(tFloat, d))
		case 7:
			return fmt.Sprintf("%s::text", g.expr(tBool, d))
		case 8:
			return fmt.Sprintf("%s::text", g.expr(tDate, d))
		case 9:
			return fmt.Sprintf("trim(%s)", g.expr(tText, d))
		case 10:
			return fmt.Sprintf("left(%s, %d)", g.expr(tText, d), g.n(4))
		case 11:
			return fmt.Sprintf("replace(%s, 'a', 'X')", g.expr(tText, d))
		case 12:
			return fmt.Sprintf("NULLIF(%s, '')", g.expr(tText, d))
		case 13:
			return fmt.Sprintf("%s::text", g.expr(tTs, d))
		}
	case tBool:
		return g.boolExpr(d)
	case tTs:
		if g.chance(15) {
			// SQL-standard interval literals: the unit is the type's field
			// (interval '5' minute), not seconds.
			iv := fmt.Sprintf("interval '%d' %s", 1+g.n(20), g.pick("minute", "hour", "day", "second", "month", "year"))
			switch g.n(3) {
			case 0:
				iv = fmt.Sprintf("interval '%d %d:%02d' day to minute", g.n(3), g.n(24), g.n(60))
			case 1:
				iv = fmt.Sprintf("interval '%d-%d' year to month", g.n(3), g.n(12))
			}
			if g.chance(50) {
				return fmt.Sprintf("date_bin(interval '%d' %s, %s, '2023-01-01 00:00:00+00'::timestamptz)", 1+g.n(30), g.pick("minute", "hour", "day"), g.expr(tTs, d))
			}
			return fmt.Sprintf("(%s + %s)", g.expr(tTs, d), iv)
		}
		switch g.n(4) {
		case 0:
			return fmt.Sprintf("(%s + interval '%d hours')", g.expr(tTs, d), g.n(100)-20)
		case 1:
			return fmt.Sprintf("date_trunc('%s', %s)", g.pick("day", "month", "hour"), g.expr(tTs, d))
		case 2:
			return fmt.Sprintf("%s::timestamptz", g.expr(tDate, d))
		case 3:
			return fmt.Sprintf("(%s - interval '1 day 30 minutes')", g.expr(tTs, d))
		}
	case tDate:
		switch g.n(3) {
		case 0:
			return fmt.Sprintf("(%s + %s)", g.expr(tDate, d), g.intLit(-30, 30))
		case 1:
			return fmt.Sprintf("%s::date", g.expr(tTs, d))
		case 2:
			return fmt.Sprintf("(%s - %d)", g.expr(tDate, d), g.n(10))
		}
	}
	return g.leaf(t)
}

var likePatterns = []string{"a%", "%a", "%b%", "A%", "_", "__", "%", "", "a_c", "%\\%%", "%l%o%", "x\\_y", "%'%", "z%", "ü%"}

func (g *gen) boolExpr(d int) string {
	if d < 0 {
		d = 0
	}
	switch g.n(13) {
	case 0, 1, 2:
		t := orderable[g.n(len(orderable))]
		if g.exactFloat == false && t == tFloat && g.chance(50) {
			// keep float comparisons on exact values mostly
			t = tInt4
		}
		return fmt.Sprintf("(%s %s %s)", g.expr(t, d), g.pick("=", "<>", "<", "<=", ">", ">="), g.expr(t, d))
	case 3:
		return fmt.Sprintf("(%s IS %sNULL)", g.expr(g.anyType(), d), g.pick("", "NOT "))
	case 4:
		return fmt.Sprintf("(NOT %s)", g.boolExpr(d-1))
	case 5:
		return fmt.Sprintf("(%s AND %s)", g.boolExpr(d-1), g.boolExpr(d-1))
	case 6:
		return fmt.Sprintf("(%s OR %s)", g.boolExpr(d-1), g.boolExpr(d-1))
	case 7:
		t := orderable[g.n(len(orderable))]
		var lits []string
		for i := 0; i < 1+g.n(4); i++ {
			if t == tInt4 || t == tInt8 {
				lits = append(lits, g.leaf(t))
			} else {
				lits = append(lits, g.literal(t))
			}
		}
		return fmt.Sprintf("(%s %sIN (%s))", g.expr(t, d), g.pick("", "NOT "), strings.Join(lits, ", "))
	case 8:
		t := orderable[g.n(len(orderable))]
		return fmt.Sprintf("(%s %sBETWEEN %s AND %s)", g.expr(t, d), g.pick("", "NOT "), g.literal(t), g.literal(t))
	case 9:
		return fmt.Sprintf("(%s %s %s)", g.expr(tText, d), g.pick("LIKE", "NOT LIKE", "LIKE", "ILIKE"), quote(likePatterns[g.n(len(likePatterns))]))
	case 10:
		if c, ok := g.column(tBool); ok {
			return c
		}
		return g.literal(tBool)
	case 11:
		t := g.anyType()
		return fmt.Sprintf("(%s IS %sDISTINCT FROM %s)", g.expr(t, d), g.pick("", "NOT "), g.expr(t, d))
	case 12:
		return fmt.Sprintf("(%s IS %s)", g.expr(tBool, d), g.pick("TRUE", "FALSE", "NOT TRUE", "UNKNOWN"))
	}
	panic("unreachable")
}

func (g *gen) anyType() dtype { return dtype(g.n(int(numTypes))) }

// aggregate returns an aggregate expression and its result type.
func (g *gen) aggregate() (string, dtype) {
	saveExact := g.exactFloat
	g.exactFloat = true
	defer func() { g.exactFloat = saveExact }()
	d := 1 + g.n(2)
	switch g.n(13) {
	case 0:
		return "count(*)", tInt8
	case 1:
		return fmt.Sprintf("count(%s)", g.expr(g.anyType(), d)), tInt8
	case 2:
		return fmt.Sprintf("count(DISTINCT %s)", g.expr(g.anyType(), d)), tInt8
	case 3:
		switch g.n(4) {
		case 0:
			return fmt.Sprintf("sum(%s)", g.expr(tInt4, d)), tInt8
		case 1:
			return fmt.Sprintf("sum(%s)", g.expr(tInt8, d)), tNum
		case 2:
			return fmt.Sprintf("sum(%s)", g.expr(tNum, d)), tNum
		default:
			return fmt.Sprintf("sum(%s)", g.expr(tFloat, d)), tFloat
		}
	case 4:
		switch g.n(4) {
		case 0:
			return fmt.Sprintf("avg(%s)", g.expr(tInt4, d)), tNum
		case 1:
			return fmt.Sprintf("avg(%s)", g.expr(tInt8, d)), tNum
		case 2:
			return fmt.Sprintf("avg(%s)", g.expr(tNum, d)), tNum
		default:
			return fmt.Sprintf("avg(%s)", g.expr(tFloat, d)), tFloat
		}
	case 5, 6:
		t := orderable[g.n(len(orderable))]
		return fmt.Sprintf("%s(%s)", g.pick("min", "max"), g.expr(t, d)), t
	case 7:
		return fmt.Sprintf("%s(%s)", g.pick("bool_and", "bool_or"), g.boolExpr(d)), tBool
	case 8:
		e := g.expr(tText, d)
		return fmt.Sprintf("string_agg(%s, %s ORDER BY %s%s)", e, g.pick("','", "'|'", "''"), e, g.pick("", " DESC")), tText
	case 9:
		t := g.pick("int4", "num")
		if t == "int4" {
			return fmt.Sprintf("sum(DISTINCT %s)", g.expr(tInt4, d)), tInt8
		}
		return fmt.Sprintf("avg(DISTINCT %s)", g.expr(tNum, d)), tNum
	case 10:
		return fmt.Sprintf("count(*) FILTER (WHERE %s)", g.boolExpr(d)), tInt8
	case 11:
		return fmt.Sprintf("(count(*) %s %s)", g.pick("+", "-", "*"), g.intLit(0, 5)), tInt8
	case 12:
		return fmt.Sprintf("(sum(%s) %s %s)", g.expr(tInt4, d), g.pick("+", "-"), g.intLit(0, 5)), tInt8
	}
	panic("unreachable")
}

// ---------------------------------------------------------------------------
// Query structure (kept structured so failures can be shrunk).

type selectQ struct {
	distinct bool
	items    []string
	types    []dtype
	from     string
	where    string
	groupBy  []string
	having   string
}

func (s *selectQ) sql() string {
	var b strings.Builder
	b.WriteString("SELECT ")
	if s.distinct {
		b.WriteString("DISTINCT ")
	}
	b.WriteString(strings.Join(s.items, ", "))
	b.WriteString(" FROM ")
	b.WriteString(s.from)
	if s.where != "" {
		b.WriteString(" WHERE " + s.where)
	}
	if len(s.groupBy) > 0 {
		b.WriteString(" GROUP BY " + strings.Join(s.groupBy, ", "))
	}
	if s.having != "" {
		b.WriteString(" HAVING " + s.having)
	}
	return b.String()
}

type query struct {
	kind  string
	left  selectQ
	op    string // set operation, "" for none
	right selectQ
	// order: ORDER BY over every output column, in this permutation
	// (1-based positions, negative for DESC). nil: unordered (multiset).
	order  []int
	limit  int // -1: none
	offset int // -1: none
	// ties: ORDER BY these positions (a prefix of the columns, so rows
	// tie) then FETCH FIRST limit ROWS WITH TIES; the rows are then
	// determined as a multiset though not in order.
	ties []int
	// using writes DESC / ASC as USING > / USING <.
	using bool
}

func (q *query) ordered() bool { return q.order != nil }

func (q *query) sql() string {
	var b strings.Builder
	if q.op != "" {
		b.WriteString("(" + q.left.sql() + ") " + q.op + " (" + q.right.sql() + ")")
	} else {
		b.WriteString(q.left.sql())
	}
	keys := q.order
	if q.ties != nil {
		keys = q.ties
	}
	if keys != nil {
		var parts []string
		for _, p := range keys {
			switch {
			case p < 0 && q.using:
				parts = append(parts, strconv.Itoa(-p)+" USING >")
			case p < 0:
				parts = append(parts, strconv.Itoa(-p)+" DESC")
			case q.using:
				parts = append(parts, strconv.Itoa(p)+" USING <")
			default:
				parts = append(parts, strconv.Itoa(p))
			}
		}
		b.WriteString(" ORDER BY " + strings.Join(parts, ", "))
	}
	if q.ties != nil && q.limit >= 0 {
		if q.offset >= 0 {
			fmt.Fprintf(&b, " OFFSET %d ROWS", q.offset)
		}
		fmt.Fprintf(&b, " FETCH FIRST %d ROWS WITH TIES", q.limit)
		return b.String()
	}
	if q.limit >= 0 {
		fmt.Fprintf(&b, " LIMIT %d", q.limit)
	}
	if q.offset >= 0 {
		fmt.Fprintf(&b, " OFFSET %d", q.offset)
	}
	return b.String()
}

func (g *gen) totalOrder(n int) []int {
	perm := g.r.Perm(n)
	out := make([]int, n)
	for i, p := range perm {
		out[i] = p + 1
		if g.chance(30) {
			out[i] = -out[i]
		}
	}
	return out
}

// finish adds ORDER BY / LIMIT / OFFSET to q.
func (g *gen) finish(q *query) {
	q.limit, q.offset = -1, -1
	q.using = g.chance(10)
	if g.chance(8) {
		n := len(q.left.items)
		// (no OFFSET: which tied rows it skips is unspecified)
		q.ties = g.totalOrder(n)[:1+g.n(n)]
		q.limit = g.n(12)
		return
	}
	if g.chance(55) {
		q.order = g.totalOrder(len(q.left.items))
		if g.chance(35) {
			q.limit = g.n(30)
		}
		if g.chance(25) {
			q.offset = g.n(20)
		}
	}
}

func (g *gen) from1() (string, []scopeCol) {
	tb := diffTables[g.n(2)]
	if g.chance(10) {
		tb = diffTables[2]
	}
	return tb.name + " x", scopeOf(tb, "x")
}

func (g *gen) items(k int) ([]string, []dtype) {
	var items []string
	var types []dtype
	for i := 0; i < k; i++ {
		t := g.anyType()
		items = append(items, g.expr(t, 1+g.n(3)))
		types = append(types, t)
	}
	return items, types
}

func (g *gen) maybeWhere(p int) string {
	if g.chance(p) {
		return g.boolExpr(1 + g.n(3))
	}
	return ""
}

// genQuery produces the next random query.
func (g *gen) genQuery() *query {
	// Error-raising expressions only appear as one whole select item of a
	// single-table query (genSimple): inside AND/OR, or with several error
	// sources, which error (if any) PostgreSQL raises depends on its
	// evaluation order and constant folding, which SQL leaves open.
	g.noErr = true
	g.errItem = g.chance(12)
	switch n := g.n(100); {
	case n < 22:
		return g.genSimple()
	case n < 44:
		return g.genGrouped()
	case n < 60:
		return g.genJoin()
	case n < 72:
		return g.genSubquery()
	case n < 86:
		return g.genSetOp()
	default:
		return g.genWindow()
	}
}

func (g *gen) genSimple() *query {
	from, sc := g.from1()
	g.scope = sc
	q := &query{kind: "simple"}
	q.left.from = from
	q.left.items, q.left.types = g.items(1 + g.n(4))
	if g.errItem {
		// An expression that fails for some (or all) rows, or that must
		// not fail because CASE/COALESCE evaluate lazily.
		q.left.items = append(q.left.items, g.pick(
			"(x.a / 0)", "(x.a % 0)", "(x.c / 0)", "(x.d / 0)", "x.s::int4", "x.s::numeric", "x.s::date", "x.s::bool",
			"(x.b * 4000000000)", "(x.a * 30000000)", "sqrt(-1 - abs(x.d))", "ln(x.d)", "x.b::int4",
			"'2024-13-01'::date", "'abc'::int4", "x.c::numeric(3,1)", "(x.id + 2147483600)",
			"CASE WHEN x.a > 1000 THEN x.a / 0 ELSE 1 END", "CASE WHEN x.s = 'nope' THEN x.s::int4 END",
			"COALESCE(x.id, x.a / 0)", "CASE WHEN x.s ~ '^[0-9]+$' THEN x.s::int4 END"))
		q.left.types = append(q.left.types, tInt4)
		if strings.HasPrefix(from, "t3") {
			q.left.items = q.left.items[:len(q.left.items)-1]
			q.left.types = q.left.types[:len(q.left.types)-1]
		}
	}
	q.left.where = g.maybeWhere(70)
	q.left.distinct = g.chance(20)
	g.finish(q)
	return q
}

func (g *gen) groupKeys() []string {
	var keys []string
	for i := 0; i < 1+g.n(2); i++ {
		var k string
		switch g.n(6) {
		case 0, 1, 2:
			c := g.scope[g.n(len(g.scope))]
			if c.name == "id" || c.name == "ts" || c.name == "c" || c.name == "b" {
				c = g.scope[1] // g or name
			}
			k = c.ref()
		case 3:
			k = fmt.Sprintf("(%s %% %d)", g.leaf(tInt4), 2+g.n(4))
		case 4:
			k = fmt.Sprintf("lower(%s)", g.leaf(tText))
		case 5:
			k = fmt.Sprintf("date_trunc('month', %s)", g.leaf(tTs))
		}
		keys = append(keys, k)
	}
	return keys
}

func (g *gen) genGrouped() *query {
	q := &query{kind: "grouped"}
	if g.chance(25) {
		from, sc := g.joinFrom()
		q.left.from = from
		g.scope = sc
	} else {
		from, sc := g.from1()
		q.left.from = from
		g.scope = sc
	}
	noGroup := g.chance(15)
	if !noGroup {
		q.left.groupBy = g.groupKeys()
		for _, k := range q.left.groupBy {
			if g.chance(85) {
				q.left.items = append(q.left.items, k)
				q.left.types = append(q.left.types, tInt4) // type unused for keys
			}
		}
	}
	for i := 0; i < 1+g.n(3); i++ {
		a, t := g.aggregate()
		switch {
		case g.chance(8):
			// An aggregate of outer columns inside a subquery belongs to
			// this query (agglevelsup).
			a = "(SELECT " + a + ")"
		case g.chance(5) && !noGroup:
			// A correlated subquery reading a GROUP BY key.
			a = fmt.Sprintf("(SELECT count(*) FROM t3 z WHERE z.k::text = (%s)::text)", q.left.groupBy[0])
			t = tInt8
		}
		q.left.items = append(q.left.items, a)
		q.left.types = append(q.left.types, t)
	}
	q.left.where = g.maybeWhere(50)
	if !noGroup && g.chance(35) {
		a, t := g.aggregate()
		if t == tBool {
			q.left.having = a
		} else {
			q.left.having = fmt.Sprintf("%s %s %s", a, g.pick("<", ">", ">=", "<>"), g.aggLiteral(t))
		}
	}
	g.finish(q)
	return q
}

func (g *gen) aggLiteral(t dtype) string {
	switch t {
	case tInt8:
		return g.intLit(0, 40)
	default:
		return g.literal(t)
	}
}

func (g *gen) joinFrom() (string, []scopeCol) {
	l := diffTables[g.n(2)]
	r := diffTables[g.n(2)]
	kind := g.pick("JOIN", "LEFT JOIN", "FULL JOIN", "RIGHT JOIN", "JOIN", "LEFT JOIN")
	if g.chance(25) {
		r = diffTables[2]
		cond := "x.g = y.k"
		return fmt.Sprintf("%s x %s %s y ON %s", l.name, kind, r.name, cond), append(scopeOf(l, "x"), scopeOf(r, "y")...)
	}
	key := g.pick("a", "a", "s", "g", "dt", "c")
	g.usingKey = ""
	if key != "g" && g.chance(25) {
		// USING merges the key: COALESCE of both sides for FULL JOIN, and
		// a chained USING joins on the merged column.
		g.usingKey = key
		sc := append(scopeOf(l, "x"), scopeOf(r, "y")...)
		from := fmt.Sprintf("%s x %s %s y USING (%s)", l.name, kind, r.name, key)
		if g.chance(40) {
			from += fmt.Sprintf(" %s %s w USING (%s)", g.pick("FULL JOIN", "LEFT JOIN", "JOIN"), diffTables[g.n(2)].name, key)
		}
		return from, sc
	}
	cond := fmt.Sprintf("x.%s = y.%s", key, key)
	if key == "g" {
		// g has 8 values: keep the result small.
		cond += " AND x.a < y.a"
	}
	sc := append(scopeOf(l, "x"), scopeOf(r, "y")...)
	if g.chance(25) {
		g.scope = sc
		cond += " AND " + g.boolExpr(1)
	}
	return fmt.Sprintf("%s x %s %s y ON %s", l.name, kind, r.name, cond), sc
}

func (g *gen) genJoin() *query {
	if g.chance(40) {
		return g.genMultiJoin()
	}
	q := &query{kind: "join"}
	from, sc := g.joinFrom()
	g.scope = sc
	q.left.from = from
	q.left.items, q.left.types = g.items(1 + g.n(4))
	if g.usingKey != "" {
		q.left.items = append(q.left.items, g.usingKey)
		q.left.types = append(q.left.types, tInt4)
	}
	q.left.where = g.maybeWhere(50)
	q.left.distinct = g.chance(15)
	g.finish(q)
	return q
}

func (g *gen) genSubquery() *query {
	q := &query{kind: "subquery"}
	tb := diffTables[g.n(2)]
	inner := diffTables[g.n(2)]
	outerScope := scopeOf(tb, "x")
	innerScope := scopeOf(inner, "y")
	q.left.from = tb.name + " x"
	g.scope = outerScope
	q.left.items, q.left.types = g.items(1 + g.n(3))
	// inner predicate over y only (and sometimes correlated with x)
	g.scope = innerScope
	g.correlated = true
	innerWhere := g.boolExpr(1 + g.n(2))
	g.correlated = false
	g.scope = outerScope
	switch g.n(5) {
	case 0:
		key := g.pick("a", "g", "s", "dt")
		q.left.where = fmt.Sprintf("x.%s %sIN (SELECT y.%s FROM %s y WHERE %s)", key, g.pick("", "NOT "), key, inner.name, innerWhere)
	case 1:
		key := g.pick("a", "g", "s", "dt")
		q.left.where = fmt.Sprintf("%sEXISTS (SELECT 1 FROM %s y WHERE y.%s = x.%s AND %s)", g.pick("", "NOT "), inner.name, key, key, innerWhere)
	case 2:
		t := g.pick("a", "c", "d", "s")
		q.left.items = append(q.left.items, fmt.Sprintf("(SELECT %s(y.%s) FROM %s y WHERE y.g = x.g AND %s)", g.pick("max", "min", "count"), t, inner.name, innerWhere))
		q.left.types = append(q.left.types, tInt4)
		q.left.where = g.maybeWhere(40)
	case 3:
		q.left.where = fmt.Sprintf("x.a %s (SELECT %s(y.a) FROM %s y WHERE %s)", g.pick("<", ">", "=", ">="), g.pick("avg", "max", "min"), inner.name, innerWhere)
	case 4:
		q.left.items = append(q.left.items, fmt.Sprintf("(SELECT count(*) FROM %s y WHERE %s)", inner.name, innerWhere))
		q.left.types = append(q.left.types, tInt8)
		q.left.where = "x.g IN (SELECT y.k FROM t3 y WHERE y.hit)"
	}
	g.finish(q)
	return q
}

func (g *gen) genSetOp() *query {
	q := &query{kind: "setop"}
	q.op = g.pick("UNION", "UNION ALL", "INTERSECT", "INTERSECT ALL", "EXCEPT", "EXCEPT ALL")
	k := 1 + g.n(3)
	var types []dtype
	for i := 0; i < k; i++ {
		types = append(types, g.anyType())
	}
	side := func(s *selectQ) {
		from, sc := g.from1()
		for strings.HasPrefix(from, "t3") {
			from, sc = g.from1()
		}
		g.scope = sc
		s.from = from
		for _, t := range types {
			// Keep sides overlapping: mostly plain columns or shallow expressions.
			s.items = append(s.items, g.expr(t, g.n(2)))
			s.types = append(s.types, t)
		}
		s.where = g.maybeWhere(60)
	}
	if g.chance(8) {
		// Zero-column rows (SELECT FROM t): all equal, so UNION keeps
		// one and INTERSECT/EXCEPT ALL count them.
		types = nil
		side(&q.left)
		side(&q.right)
		q.limit, q.offset = -1, -1
		return q
	}
	side(&q.left)
	side(&q.right)
	g.finish(q)
	return q
}

func (g *gen) genWindow() *query {
	q := &query{kind: "window"}
	tb := diffTables[g.n(2)]
	g.scope = scopeOf(tb, "x")
	q.left.from = tb.name + " x"
	q.left.items = []string{"x.id"}
	q.left.types = []dtype{tInt4}
	for i := 0; i < 1+g.n(3); i++ {
		part := ""
		if g.chance(75) {
			part = "PARTITION BY " + g.groupKeys()[0] + " "
		}
		ot := orderable[g.n(len(orderable))]
		okey := g.expr(ot, 1)
		dir := g.pick("", " DESC")
		total := fmt.Sprintf("ORDER BY %s%s, x.id", okey, dir)
		var w string
		switch g.n(11) {
		case 8:
			// A frame with an exclusion; over a RANGE of ORDER BY peers
			// the frame's multiset, so sum and count, are determined.
			bounds := g.pick("UNBOUNDED PRECEDING AND CURRENT ROW", "UNBOUNDED PRECEDING AND UNBOUNDED FOLLOWING", "CURRENT ROW AND UNBOUNDED FOLLOWING")
			excl := g.pick("CURRENT ROW", "GROUP", "TIES", "NO OTHERS")
			fn := g.pick("count(*)", "sum("+g.expr(tInt4, 1)+")", "count("+g.expr(tText, 1)+")")
			w = fmt.Sprintf("%s OVER (%sORDER BY %s%s RANGE BETWEEN %s EXCLUDE %s)", fn, part, okey, dir, bounds, excl)
		case 9:
			// ROWS frames over a total order, with exclusions, for the
			// functions that read single rows of the frame.
			bounds := g.pick("1 PRECEDING AND 1 FOLLOWING", "UNBOUNDED PRECEDING AND UNBOUNDED FOLLOWING", "2 PRECEDING AND CURRENT ROW", "CURRENT ROW AND 3 FOLLOWING")
			excl := g.pick("CURRENT ROW", "GROUP", "TIES", "NO OTHERS")
			t := orderable[g.n(len(orderable))]
			fn := g.pick("first_value(%s)", "last_value(%s)", "nth_value(%s, 2)")
			w = fmt.Sprintf(fn+" OVER (%s%s ROWS BETWEEN %s EXCLUDE %s)", g.expr(t, 1), part, total, bounds, excl)
		case 10:
			// lag/lead(anycompatible, int, anycompatible): the default's
			// type widens the result.
			def := g.pick("0.5", "(-1)", "NULL", "2.25::float8", "x.id")
			w = fmt.Sprintf("%s(%s, %d, %s) OVER (%s%s)", g.pick("lag", "lead"), g.expr(g.pick2(tInt4, tInt8, tNum), 1), 1+g.n(3), def, part, total)
		case 0:
			w = fmt.Sprintf("row_number() OVER (%s%s)", part, total)
		case 1:
			w = fmt.Sprintf("rank() OVER (%sORDER BY %s%s)", part, okey, dir)
		case 2:
			w = fmt.Sprintf("dense_rank() OVER (%sORDER BY %s%s)", part, okey, dir)
		case 3:
			g.exactFloat = true
			w = fmt.Sprintf("sum(%s) OVER (%s%s)", g.expr(g.pick2(tInt4, tNum, tFloat, tInt8), 1), part, total)
			g.exactFloat = false
		case 4:
			w = fmt.Sprintf("sum(%s) OVER (%sORDER BY %s%s)", g.expr(tInt4, 1), part, okey, dir)
		case 5:
			w = fmt.Sprintf("count(*) OVER (%s)", strings.TrimSpace(part))
		case 6:
			t := orderable[g.n(len(orderable))]
			w = fmt.Sprintf("%s(%s) OVER (%s%s)", g.pick("lag", "lead"), g.expr(t, 1), part, total)
		case 7:
			t := orderable[g.n(len(orderable))]
			w = fmt.Sprintf("%s(%s) OVER (%s)", g.pick("min", "max"), g.expr(t, 1), strings.TrimSpace(part))
		}
		q.left.items = append(q.left.items, w)
		q.left.types = append(q.left.types, tInt8)
	}
	if g.chance(50) {
		more, mt := g.items(1)
		q.left.items = append(q.left.items, more...)
		q.left.types = append(q.left.types, mt...)
	}
	q.left.where = g.maybeWhere(40)
	g.finish(q)
	return q
}

func (g *gen) pick2(ts ...dtype) dtype { return ts[g.n(len(ts))] }

// shrinkCandidates returns simpler variants of q, each still a valid query
// if q is (removing one output column, a clause, DISTINCT, the limit...).
func shrinkCandidates(q *query) []*query {
	var out []*query
	clone := func() *query {
		c := *q
		c.left.items = append([]string(nil), q.left.items...)
		c.left.types = append([]dtype(nil), q.left.types...)
		c.right.items = append([]string(nil), q.right.items...)
		c.right.types = append([]dtype(nil), q.right.types...)
		c.left.groupBy = append([]string(nil), q.left.groupBy...)
		if q.order != nil {
			c.order = append([]int(nil), q.order...)
		}
		return &c
	}
	if len(q.left.items) > 1 {
		for i := range q.left.items {
			c := clone()
			c.left.items = append(c.left.items[:i], c.left.items[i+1:]...)
			if c.op != "" {
				c.right.items = append(c.right.items[:i], c.right.items[i+1:]...)
			}
			if c.order != nil {
				c.order = nil
				for j := 1; j <= len(c.left.items); j++ {
					c.order = append(c.order, j)
				}
			}
			out = append(out, c)
		}
	}
	if q.limit >= 0 {
		c := clone()
		c.limit, c.ties = -1, nil
		out = append(out, c)
	}
	if q.offset >= 0 {
		c := clone()
		c.offset = -1
		out = append(out, c)
	}
	if q.limit < 0 && q.offset < 0 && q.order != nil {
		c := clone()
		c.order = nil
		out = append(out, c)
	}
	if q.left.where != "" {
		c := clone()
		c.left.where = ""
		out = append(out, c)
	}
	if q.op != "" && q.right.where != "" {
		c := clone()
		c.right.where = ""
		out = append(out, c)
	}
	if q.left.having != "" {
		c := clone()
		c.left.having = ""
		out = append(out, c)
	}
	if q.left.distinct {
		c := clone()
		c.left.distinct = false
		out = append(out, c)
	}
	return out
}
