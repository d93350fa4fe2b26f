package engine_test

import (
	"fmt"
	"math/rand"
	"strings"

	"github.com/weir-sql/weir/sql/expr"
	"github.com/weir-sql/weir/sql/types"
)

// sqlGen generates random, mostly well-typed SQL for the crash fuzzer
// (TestSQLFuzz): expressions of every type weir has, with casts, operators
// and calls of the functions in weir's registry (arguments of their
// declared types), subqueries of every kind (scalar, IN, EXISTS, ANY/ALL,
// ARRAY, derived tables, LATERAL), CTEs, arrays and subscripts, json
// operators, window functions with frames, set operations, joins,
// LIMIT/OFFSET and VALUES. Type errors are fine: the fuzzer only asks that
// every statement ends with a proper SQLSTATE.
type sqlGen struct {
	r     *rand.Rand
	funcs []string // registered scalar functions, without operators
}

// fuzzType is a SQL type the generator builds expressions of.
type fuzzType string

var fuzzTypes = []fuzzType{"int", "bigint", "numeric", "float8", "text", "bool", "timestamp", "timestamptz", "date", "interval", "jsonb", "json", "int[]", "text[]"}

// genCol is a column in scope: its qualified name and type.
type genCol struct {
	ref string
	t   fuzzType
}

// genScope is what an expression may refer to: its own FROM's columns and
// those of the queries around it (correlated subqueries).
type genScope struct {
	cols   []genCol
	parent *genScope
	agg    bool // aggregates and window functions allowed here
}

func (s *genScope) all() []genCol {
	var out []genCol
	for x := s; x != nil; x = x.parent {
		out = append(out, x.cols...)
	}
	return out
}

// fuzzTable is a table the fuzzer creates; its columns are one of each type.
var fuzzTableCols = []genCol{
	{"i", "int"}, {"j", "bigint"}, {"n", "numeric"}, {"x", "float8"}, {"s", "text"}, {"b", "bool"},
	{"ts", "timestamp"}, {"tz", "timestamptz"}, {"d", "date"}, {"iv", "interval"},
	{"js", "jsonb"}, {"ai", "int[]"}, {"at", "text[]"},
}

func newSQLGen(seed int64) *sqlGen {
	g := &sqlGen{r: rand.New(rand.NewSource(seed))}
	for _, name := range expr.ScalarNames() {
		if name == "" || strings.ContainsAny(name[:1], "+-*/<>=~!@#%^&|`?") {
			continue
		}
		switch name {
		case "pg_sleep", "pg_sleep_for", "pg_sleep_until", "pg_terminate_backend", "pg_cancel_backend", "set_config", "pg_reload_conf":
			continue // they do what they say (wait, end sessions); not what this fuzzer is after
		}
		g.funcs = append(g.funcs, name)
	}
	return g
}

func (g *sqlGen) n(k int) int           { return g.r.Intn(k) }
func (g *sqlGen) chance(p float64) bool { return g.r.Float64() < p }
func (g *sqlGen) pick(xs ...string) string {
	return xs[g.n(len(xs))]
}
func (g *sqlGen) anyType() fuzzType { return fuzzTypes[g.n(len(fuzzTypes))] }

// literal is a constant of t, sometimes an edge value.
func (g *sqlGen) literal(t fuzzType) string {
	switch t {
	case "int":
		return g.pick("0", "1", "-1", "2", "7", "42", "2147483647", "-2147483648", "(-3)", "NULL::int")
	case "bigint":
		return g.pick("0::bigint", "9223372036854775807", "(-9223372036854775808)", "3::int8", "NULL::bigint")
	case "numeric":
		return g.pick("0.0", "1.5", "33.4", "-2.25", "1e30", "'NaN'::numeric", "0.000001", "NULL::numeric", "1e-30")
	case "float8":
		return g.pick("0.5::float8", "'Infinity'::float8", "'-Infinity'::float8", "'NaN'::float8", "1e308::float8", "-0.0::float8", "NULL::float8")
	case "text":
		return g.pick("''", "'a'", "'abc'", "'héllo'", "'%'", "'{1,2}'", "'{\"a\": 1}'", "'2024-01-01'", "'1'", "NULL::text", "repeat('x', 100)", "' spaced '")
	case "bool":
		return g.pick("true", "false", "NULL::bool")
	case "timestamp":
		return g.pick("'2024-01-02 03:04:05'::timestamp", "'infinity'::timestamp", "'-infinity'::timestamp", "'1970-01-01'::timestamp", "'294276-12-31'::timestamp", "NULL::timestamp")
	case "timestamptz":
		return g.pick("'2024-01-02 03:04:05+02'::timestamptz", "'infinity'::timestamptz", "now()", "NULL::timestamptz")
	case "date":
		return g.pick("'2024-02-29'::date", "'infinity'::date", "current_date", "'4713-01-01 BC'::date", "NULL::date")
	case "interval":
		return g.pick("interval '1 day'", "interval '-1 month'", "interval '1 microsecond'", "interval '178000000 years'", "interval '0'", "interval '3' day", "NULL::interval")
	case "jsonb":
		return g.pick("'{\"a\": 1, \"b\": [1, 2, {\"c\": null}]}'::jsonb", "'[]'::jsonb", "'null'::jsonb", "'\"s\"'::jsonb", "'1.5'::jsonb", "'[[[[1]]]]'::jsonb", "NULL::jsonb")
	case "json":
		return g.pick("'{\"a\": 1, \"a\": 2}'::json", "'[1, \"x\", null]'::json", "'{}'::json", "NULL::json")
	case "int[]":
		return g.pick("ARRAY[1, 2, 3]", "'{}'::int[]", "ARRAY[NULL, 1]::int[]", "'{5,4}'::int[]", "NULL::int[]")
	case "text[]":
		return g.pick("ARRAY['a', 'b']", "'{}'::text[]", "ARRAY[NULL, 'x']", "'{\"q,1\",z}'::text[]", "NULL::text[]")
	}
	return "NULL"
}

// column returns a column of type t in scope, or "".
func (g *sqlGen) column(sc *genScope, t fuzzType) string {
	var cands []string
	for _, c := range sc.all() {
		if c.t == t {
			cands = append(cands, c.ref)
		}
	}
	if len(cands) == 0 {
		return ""
	}
	return cands[g.n(len(cands))]
}

// expr returns an expression of type t (as far as the generator knows).
func (g *sqlGen) expr(sc *genScope, t fuzzType, depth int) string {
	if depth <= 0 || g.chance(0.25) {
		if c := g.column(sc, t); c != "" && g.chance(0.7) {
			return c
		}
		return g.literal(t)
	}
	d := depth - 1
	switch k := g.n(20); {
	case k == 0:
		return g.funcCall(sc, d)
	case k == 1:
		return fmt.Sprintf("CAST(%s AS %s)", g.expr(sc, g.anyType(), d), t)
	case k == 2:
		return fmt.Sprintf("(%s)::%s", g.expr(sc, "text", d), t)
	case k == 3:
		return fmt.Sprintf("CASE WHEN %s THEN %s WHEN %s THEN %s ELSE %s END", g.expr(sc, "bool", d), g.expr(sc, t, d), g.expr(sc, "bool", d), g.expr(sc, t, d), g.expr(sc, t, d))
	case k == 4:
		return fmt.Sprintf("COALESCE(%s, %s)", g.expr(sc, t, d), g.expr(sc, t, d))
	case k == 5:
		return fmt.Sprintf("(%s)", g.query(sc, []fuzzType{t}, d, true))
	case k == 6:
		return fmt.Sprintf("NULLIF(%s, %s)", g.expr(sc, t, d), g.expr(sc, t, d))
	case k == 7 && sc.agg:
		return g.aggregate(sc, t, d)
	case k == 8 && sc.agg:
		return g.window(sc, t, d)
	}
	return g.typed(sc, t, d)
}

// typed returns an expression built with an operator or function of t.
func (g *sqlGen) typed(sc *genScope, t fuzzType, d int) string {
	e := func(t fuzzType) string { return g.expr(sc, t, d) }
	switch t {
	case "int", "bigint":
		switch g.n(9) {
		case 0:
			return fmt.Sprintf("(%s %s %s)", e(t), g.pick("+", "-", "*", "/", "%", "&", "|", "<<"), e(g.pickType("int", "bigint")))
		case 1:
			return fmt.Sprintf("length(%s)", e("text"))
		case 2:
			return fmt.Sprintf("array_length(%s, 1)", e("int[]"))
		case 3:
			return fmt.Sprintf("(%s)[%s]", e("int[]"), e("int"))
		case 4:
			return fmt.Sprintf("extract(%s FROM %s)::int", g.pick("year", "dow", "epoch", "microseconds", "isodow"), e("timestamp"))
		case 5:
			return fmt.Sprintf("greatest(%s, %s)", e(t), e(t))
		case 6:
			return fmt.Sprintf("(-%s)", e(t))
		case 7:
			return fmt.Sprintf("cardinality(%s)", e("text[]"))
		}
		return fmt.Sprintf("abs(%s)", e(t))
	case "numeric", "float8":
		switch g.n(6) {
		case 0:
			return fmt.Sprintf("(%s %s %s)", e(t), g.pick("+", "-", "*", "/", "%", "^"), e(g.pickType("numeric", "int", "float8")))
		case 1:
			return fmt.Sprintf("round(%s, %s)", e("numeric"), g.pick("0", "2", "-1", "1000"))
		case 2:
			return fmt.Sprintf("%s(%s)", g.pick("sqrt", "exp", "ln", "abs", "ceil", "floor", "sign"), e(t))
		case 3:
			return fmt.Sprintf("(%s)::%s", e("int"), t)
		case 4:
			return fmt.Sprintf("power(%s, %s)", e(t), e(t))
		}
		return fmt.Sprintf("(%s)", e(t))
	case "text":
		switch g.n(10) {
		case 0:
			return fmt.Sprintf("(%s || %s)", e("text"), e(g.anyType()))
		case 1:
			return fmt.Sprintf("%s(%s)", g.pick("upper", "lower", "md5", "reverse", "btrim", "quote_ident", "quote_literal", "initcap"), e("text"))
		case 2:
			return fmt.Sprintf("substr(%s, %s, %s)", e("text"), e("int"), e("int"))
		case 3:
			return fmt.Sprintf("(%s)::text", e(g.anyType()))
		case 4:
			return fmt.Sprintf("(%s ->> %s)", e("jsonb"), g.pick("'a'", "0", "'b'", "-1"))
		case 5:
			return fmt.Sprintf("to_char(%s, %s)", e("timestamp"), g.pick("'YYYY-MM-DD'", "'HH24:MI:SS.US'", "'Day Month'", "'FM9999'", "''"))
		case 6:
			return fmt.Sprintf("format(%s, %s, %s)", g.pick("'%s-%s'", "'%I'", "'%L %1$s'", "'%'", "'%*s'"), e(g.anyType()), e(g.anyType()))
		case 7:
			return fmt.Sprintf("array_to_string(%s, %s)", e("text[]"), e("text"))
		case 8:
			return fmt.Sprintf("regexp_replace(%s, %s, %s)", e("text"), g.pick("'a+'", "'('", "'[[:alpha:]]'", "'.*'"), e("text"))
		}
		return fmt.Sprintf("(%s #>> %s)", e("jsonb"), g.pick("'{}'", "'{b,2,c}'", "'{a}'"))
	case "bool":
		switch g.n(14) {
		case 0:
			t2 := g.anyType()
			return fmt.Sprintf("(%s %s %s)", e(t2), g.pick("=", "<>", "<", "<=", ">", ">="), e(t2))
		case 1:
			return fmt.Sprintf("(%s %s %s)", e("bool"), g.pick("AND", "OR"), e("bool"))
		case 2:
			return fmt.Sprintf("(NOT %s)", e("bool"))
		case 3:
			return fmt.Sprintf("(%s IS %sNULL)", e(g.anyType()), g.pick("", "NOT "))
		case 4:
			t2 := g.anyType()
			return fmt.Sprintf("(%s IN (%s, %s))", e(t2), e(t2), e(t2))
		case 5:
			t2 := g.anyType()
			return fmt.Sprintf("(%s %sIN (%s))", e(t2), g.pick("", "NOT "), g.query(sc, []fuzzType{t2}, d, false))
		case 6:
			return fmt.Sprintf("(%sEXISTS (%s))", g.pick("", "NOT "), g.query(sc, []fuzzType{g.anyType()}, d, false))
		case 7:
			return fmt.Sprintf("(%s %s %s (%s))", e("int"), g.pick("=", "<", "<>"), g.pick("ANY", "ALL", "SOME"), e("int[]"))
		case 8:
			t2 := g.anyType()
			return fmt.Sprintf("(%s %s %s (%s))", e(t2), g.pick("=", ">", "<>"), g.pick("ANY", "ALL"), g.query(sc, []fuzzType{t2}, d, false))
		case 9:
			return fmt.Sprintf("(%s %sLIKE %s)", e("text"), g.pick("", "NOT ", "I"), e("text"))
		case 10:
			t2 := g.anyType()
			return fmt.Sprintf("(%s BETWEEN %s AND %s)", e(t2), e(t2), e(t2))
		case 11:
			t2 := g.anyType()
			return fmt.Sprintf("(%s IS %sDISTINCT FROM %s)", e(t2), g.pick("", "NOT "), e(t2))
		case 12:
			return fmt.Sprintf("(%s %s %s)", e("jsonb"), g.pick("@>", "<@"), e("jsonb"))
		}
		return fmt.Sprintf("(%s ? %s)", e("jsonb"), e("text"))
	case "timestamp", "timestamptz", "date":
		switch g.n(5) {
		case 0:
			return fmt.Sprintf("(%s %s %s)", e(t), g.pick("+", "-"), e("interval"))
		case 1:
			return fmt.Sprintf("date_trunc(%s, %s)", g.pick("'hour'", "'month'", "'week'", "'millennium'", "'bogus'"), e(t))
		case 2:
			return fmt.Sprintf("date_bin(%s, %s, %s)", e("interval"), e("timestamp"), e("timestamp"))
		case 3:
			return fmt.Sprintf("(%s)::%s", e(g.pickType("timestamp", "timestamptz", "date", "text")), t)
		}
		return fmt.Sprintf("to_timestamp(%s)::%s", e("float8"), t)
	case "interval":
		switch g.n(4) {
		case 0:
			return fmt.Sprintf("(%s - %s)", e("timestamp"), e("timestamp"))
		case 1:
			return fmt.Sprintf("(%s * %s)", e("interval"), e("float8"))
		case 2:
			return fmt.Sprintf("justify_interval(%s)", e("interval"))
		}
		return fmt.Sprintf("make_interval(days => %s)", e("int"))
	case "jsonb", "json":
		switch g.n(7) {
		case 0:
			return fmt.Sprintf("(%s -> %s)", e(t), g.pick("'a'", "0", "1", "-1", "'b'"))
		case 1:
			return fmt.Sprintf("%s_build_object(%s, %s)", t, e("text"), e(g.anyType()))
		case 2:
			return fmt.Sprintf("%s_build_array(%s, %s)", t, e(g.anyType()), e(g.anyType()))
		case 3:
			return fmt.Sprintf("to_%s(%s)", t, e(g.anyType()))
		case 4:
			return fmt.Sprintf("(%s #> %s)", e(t), g.pick("'{}'", "'{b,2}'", "'{a,b,c}'"))
		case 5:
			return fmt.Sprintf("(%s)::%s", e(g.pickType("json", "jsonb", "text")), t)
		}
		return fmt.Sprintf("(%s || %s)", e("jsonb"), e("jsonb"))
	case "int[]", "text[]":
		el := fuzzType(strings.TrimSuffix(string(t), "[]"))
		switch g.n(6) {
		case 0:
			return fmt.Sprintf("ARRAY[%s, %s]", e(el), e(el))
		case 1:
			return fmt.Sprintf("(%s || %s)", e(t), e(g.pickType(el, t)))
		case 2:
			return fmt.Sprintf("array_append(%s, %s)", e(t), e(el))
		case 3:
			return fmt.Sprintf("ARRAY(%s)", g.query(sc, []fuzzType{el}, d, false))
		case 4:
			return fmt.Sprintf("string_to_array(%s, %s)::%s", e("text"), g.pick("','", "''", "NULL"), t)
		}
		return fmt.Sprintf("array_remove(%s, %s)", e(t), e(el))
	}
	return g.literal(t)
}

func (g *sqlGen) pickType(ts ...fuzzType) fuzzType { return ts[g.n(len(ts))] }

// funcCall calls a registered function with arguments of one of its
// signatures (polymorphic ones filled with a random type).
func (g *sqlGen) funcCall(sc *genScope, d int) string {
	name := g.funcs[g.n(len(g.funcs))]
	sigs, variadic := expr.OverloadArgs(name)
	if len(sigs) == 0 {
		return g.literal("int")
	}
	k := g.n(len(sigs))
	args := sigs[k]
	if variadic[k] && len(args) > 0 {
		for extra := g.n(3); extra > 0; extra-- {
			args = append(args, args[len(args)-1])
		}
	}
	poly := g.anyType()
	var parts []string
	for _, a := range args {
		parts = append(parts, g.expr(sc, g.fuzzTypeOf(a, poly), d))
	}
	return fmt.Sprintf("%s(%s)", name, strings.Join(parts, ", "))
}

// fuzzTypeOf maps a declared argument type onto a generated type.
func (g *sqlGen) fuzzTypeOf(t types.T, poly fuzzType) fuzzType {
	switch t.OID {
	case types.OidInt2, types.OidInt4, types.OidOid:
		return "int"
	case types.OidInt8:
		return "bigint"
	case types.OidNumeric:
		return "numeric"
	case types.OidFloat4, types.OidFloat8:
		return "float8"
	case types.OidBool:
		return "bool"
	case types.OidTimestamp:
		return "timestamp"
	case types.OidTimestampTZ:
		return "timestamptz"
	case types.OidDate:
		return "date"
	case types.OidInterval:
		return "interval"
	case types.OidJSONB:
		return "jsonb"
	case types.OidJSON:
		return "json"
	case types.OidAnyElement, types.OidAny:
		return poly
	case types.OidAnyArray:
		return g.pickType("int[]", "text[]")
	}
	if t.IsArray() {
		if t.Elem().OID == types.OidText {
			return "text[]"
		}
		return "int[]"
	}
	return "text"
}

func (g *sqlGen) aggregate(sc *genScope, t fuzzType, d int) string {
	inner := &genScope{cols: sc.cols, parent: sc.parent}
	e := func(t fuzzType) string { return g.expr(inner, t, d) }
	switch t {
	case "int", "bigint":
		return fmt.Sprintf("count(%s)::%s", g.pick("*", e(g.anyType()), "DISTINCT "+e(g.anyType())), t)
	case "numeric", "float8":
		return fmt.Sprintf("%s(%s)::%s", g.pick("sum", "avg", "stddev", "variance", "min", "max"), e(g.pickType("int", "numeric", "float8")), t)
	case "text":
		return fmt.Sprintf("string_agg(%s, %s%s)", e("text"), g.pick("','", "''"), g.pick("", " ORDER BY 1"))
	case "bool":
		return fmt.Sprintf("%s(%s)", g.pick("bool_and", "bool_or", "every"), e("bool"))
	case "jsonb", "json":
		return fmt.Sprintf("%s_agg(%s)", t, e(g.anyType()))
	case "int[]", "text[]":
		return fmt.Sprintf("array_agg(%s)", e(fuzzType(strings.TrimSuffix(string(t), "[]"))))
	}
	return fmt.Sprintf("%s(%s)", g.pick("min", "max"), e(t))
}

func (g *sqlGen) window(sc *genScope, t fuzzType, d int) string {
	inner := &genScope{cols: sc.cols, parent: sc.parent}
	e := func(t fuzzType) string { return g.expr(inner, t, d) }
	var call string
	switch g.n(6) {
	case 0:
		call = fmt.Sprintf("(%s)::%s", g.pick("row_number()", "rank()", "dense_rank()", "ntile(3)", "percent_rank()", "cume_dist()"), t)
	case 1:
		call = fmt.Sprintf("lag(%s, %s, %s)", e(t), g.pick("1", "0", "3", "-1"), e(t))
	case 2:
		call = fmt.Sprintf("%s(%s)", g.pick("first_value", "last_value", "min", "max"), e(t))
	case 3:
		call = fmt.Sprintf("nth_value(%s, %s)", e(t), g.pick("1", "2", "0"))
	case 4:
		call = fmt.Sprintf("lead(%s)", e(t))
	default:
		call = fmt.Sprintf("sum(%s)::%s", e(g.pickType("int", "numeric")), t)
	}
	var w []string
	if g.chance(0.5) {
		w = append(w, "PARTITION BY "+e(g.anyType()))
	}
	if g.chance(0.7) {
		w = append(w, "ORDER BY "+e(g.anyType())+g.pick("", " DESC", " NULLS FIRST"))
	}
	if g.chance(0.5) {
		bound := func() string {
			return g.pick("UNBOUNDED PRECEDING", "CURRENT ROW", "UNBOUNDED FOLLOWING",
				g.pick("0", "1", "3", "(SELECT 1)", "NULL")+" PRECEDING", g.pick("0", "2", "-1")+" FOLLOWING")
		}
		w = append(w, fmt.Sprintf("%s BETWEEN %s AND %s%s", g.pick("ROWS", "RANGE", "GROUPS"), bound(), bound(),
			g.pick("", "", " EXCLUDE CURRENT ROW", " EXCLUDE TIES")))
	}
	return fmt.Sprintf("%s OVER (%s)", call, strings.Join(w, " "))
}

// query returns a SELECT whose result columns have types ts. scalar asks
// for at most one row (a scalar subquery).
func (g *sqlGen) query(parent *genScope, ts []fuzzType, depth int, scalar bool) string {
	if depth < 0 {
		depth = 0
	}
	var b strings.Builder
	if depth > 0 && g.chance(0.15) {
		// A CTE, used in FROM below.
		name := fmt.Sprintf("cte%d", g.n(1000))
		ct := g.anyType()
		fmt.Fprintf(&b, "WITH %s(v) AS (%s) ", name, g.query(parent, []fuzzType{ct}, depth-1, false))
		sc := &genScope{parent: parent, agg: true, cols: []genCol{{name + ".v", ct}}}
		g.selectBody(&b, sc, ts, depth, name)
	} else if depth > 0 && !scalar && g.chance(0.15) {
		op := g.pick("UNION", "UNION ALL", "INTERSECT", "EXCEPT", "EXCEPT ALL", "INTERSECT ALL")
		fmt.Fprintf(&b, "(%s) %s (%s)", g.query(parent, ts, depth-1, false), op, g.query(parent, ts, depth-1, false))
	} else if !scalar && g.chance(0.1) {
		b.WriteString("VALUES ")
		for r := 0; r < 1+g.n(3); r++ {
			if r > 0 {
				b.WriteString(", ")
			}
			var row []string
			for _, t := range ts {
				row = append(row, g.expr(&genScope{parent: parent}, t, 1))
			}
			b.WriteString("(" + strings.Join(row, ", ") + ")")
		}
	} else {
		sc := &genScope{parent: parent, agg: true}
		from := g.fromList(sc, depth)
		g.selectBody(&b, sc, ts, depth, from)
	}
	if scalar {
		b.WriteString(" LIMIT 1")
	}
	return b.String()
}

func (g *sqlGen) selectBody(b *strings.Builder, sc *genScope, ts []fuzzType, depth int, from string) {
	d := min(depth, 3)
	b.WriteString("SELECT ")
	if g.chance(0.1) {
		b.WriteString("DISTINCT ")
	}
	for i, t := range ts {
		if i > 0 {
			b.WriteString(", ")
		}
		b.WriteString(g.expr(sc, t, d))
	}
	if from != "" {
		b.WriteString(" FROM " + from)
	}
	noAgg := &genScope{cols: sc.cols, parent: sc.parent}
	if g.chance(0.5) {
		b.WriteString(" WHERE " + g.expr(noAgg, "bool", d))
	}
	if g.chance(0.15) {
		b.WriteString(" GROUP BY " + g.expr(noAgg, g.anyType(), 1))
		if g.chance(0.3) {
			b.WriteString(" HAVING " + g.expr(sc, "bool", 1))
		}
	}
	if g.chance(0.3) {
		b.WriteString(" ORDER BY " + g.pick("1", "1 DESC", g.expr(noAgg, g.anyType(), 1)+" NULLS LAST"))
	}
	if g.chance(0.3) {
		b.WriteString(" LIMIT " + g.pick("0", "1", "3", "NULL", "ALL", "(SELECT 2)"))
	}
	if g.chance(0.15) {
		b.WriteString(" OFFSET " + g.pick("0", "1", "5", "(SELECT 1)"))
	}
}

// fromList returns a FROM clause and adds its columns to sc.
func (g *sqlGen) fromList(sc *genScope, depth int) string {
	if g.chance(0.1) {
		return ""
	}
	var items []string
	for k := 0; k < 1+g.n(2); k++ {
		item := g.fromItem(sc, depth, fmt.Sprintf("r%d_%d", depth, k))
		if k > 0 && g.chance(0.6) {
			kind := g.pick("JOIN", "LEFT JOIN", "RIGHT JOIN", "FULL JOIN", "CROSS JOIN")
			if kind == "CROSS JOIN" {
				items[len(items)-1] += " CROSS JOIN " + item
			} else {
				items[len(items)-1] += fmt.Sprintf(" %s %s ON %s", kind, item, g.expr(&genScope{cols: sc.cols, parent: sc.parent}, "bool", 1))
			}
			continue
		}
		items = append(items, item)
	}
	return strings.Join(items, ", ")
}

func (g *sqlGen) fromItem(sc *genScope, depth int, alias string) string {
	switch k := g.n(10); {
	case k < 5:
		tbl := g.pick("fz1", "fz2", "fz_empty")
		for _, c := range fuzzTableCols {
			sc.cols = append(sc.cols, genCol{alias + "." + c.ref, c.t})
		}
		return tbl + " " + alias
	case k == 5:
		sc.cols = append(sc.cols, genCol{alias + ".v", "int"})
		// Small bounds: a series of billions is a long query, not a bug.
		return fmt.Sprintf("generate_series(%s, %s) %s(v)", g.pick("1", "0", "-3", "NULL::int"), g.pick("3", "10", "0", "-2"), alias)
	case k == 6:
		sc.cols = append(sc.cols, genCol{alias + ".v", "text"})
		return fmt.Sprintf("unnest(%s) %s(v)", g.expr(&genScope{parent: sc.parent}, "text[]", 1), alias)
	case k == 7 && len(sc.cols) > 0:
		t := g.anyType()
		q := g.query(&genScope{cols: sc.cols, parent: sc.parent}, []fuzzType{t}, depth-1, false)
		sc.cols = append(sc.cols, genCol{alias + ".v", t})
		return fmt.Sprintf("LATERAL (%s) %s(v)", q, alias)
	}
	t := g.anyType()
	q := g.query(sc.parent, []fuzzType{t, "int"}, depth-1, false)
	sc.cols = append(sc.cols, genCol{alias + ".v", t}, genCol{alias + ".w", "int"})
	return fmt.Sprintf("(%s) %s(v, w)", q, alias)
}

// statement returns one top-level statement.
func (g *sqlGen) statement() string {
	n := 1 + g.n(3)
	ts := make([]fuzzType, n)
	for i := range ts {
		ts[i] = g.anyType()
	}
	q := g.query(nil, ts, 1+g.n(3), false)
	if g.chance(0.05) {
		return "EXPLAIN " + q
	}
	return q
}
