package expr

import (
	"context"
	"fmt"
	"os"
	"strconv"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"

	"github.com/weir-sql/weir/internal/pgtest"
	"github.com/weir-sql/weir/sql/sqlerr"
	"github.com/weir-sql/weir/sql/types"
)

func TestMain(m *testing.M) {
	code := m.Run()
	pgtest.StopShared()
	os.Exit(code)
}

type arg struct {
	t types.T
	d Datum
}

func i4(v int64) arg   { return arg{types.Int4, v} }
func i8(v int64) arg   { return arg{types.Int8, v} }
func num(s string) arg { return arg{types.Numeric, s} }
func txt(s string) arg { return arg{types.Text, s} }
func f8(v float64) arg { return arg{types.Float8, v} }
func ts(us int64) arg  { return arg{types.Timestamp, us} }
func ivl(m, d int32, us int64) arg {
	return arg{types.Interval, arrow.MonthDayNanoInterval{Months: m, Days: d, Nanoseconds: us * 1000}}
}

// evalFunc resolves name over the argument types and evaluates one row.
func evalFunc(t *testing.T, name string, args []arg) (Datum, types.T, error) {
	t.Helper()
	ts := make([]types.T, len(args))
	arrs := make([]arrow.Array, len(args))
	for i, a := range args {
		ts[i] = a.t
	}
	r, err := ResolveScalar(name, ts)
	if err != nil {
		t.Fatalf("resolve %s%v: %v", name, ts, err)
	}
	ctx := &Ctx{}
	for i, a := range args {
		arrs[i] = ArrayFromDatums(nil, a.t, []Datum{a.d})
		if r.ArgTypes[i].OID != a.t.OID {
			c, err := LookupCast(a.t, r.ArgTypes[i])
			if err != nil {
				t.Fatal(err)
			}
			if arrs[i], err = c(ctx, arrs[i], a.t, r.ArgTypes[i]); err != nil {
				t.Fatalf("cast: %v", err)
			}
		}
	}
	out, err := r.Overload.Impl(ctx, arrs, 1)
	if err != nil {
		return nil, r.Ret, err
	}
	return DatumAt(out, 0), r.Ret, nil
}

// simpleText renders the Datum kinds the oracle tests compare.
func simpleText(d Datum, t types.T) string {
	switch v := d.(type) {
	case nil:
		return "<NULL>"
	case bool:
		if v {
			return "true"
		}
		return "false"
	case int64:
		if t.OID == types.OidTimestamp {
			w := splitTimestamp(v)
			return fmt.Sprintf("%04d-%02d-%02d %02d:%02d:%02d", w.y, w.mon, w.d, w.h, w.min, w.s)
		}
		return strconv.FormatInt(v, 10)
	case string:
		return v
	case arrow.MonthDayNanoInterval:
		return strconv.Itoa(int(v.Months)) + "m " + strconv.Itoa(int(v.Days)) + "d " + strconv.FormatInt(v.Nanoseconds/1000, 10) + "us"
	}
	return "?"
}

func TestFunctionsAgainstPostgres(t *testing.T) {
	pg := pgtest.Shared(t)
	conn := pg.Connect(t)
	cases := []struct {
		sql  string
		name string
		args []arg
	}{
		{"1 + 2", "+", []arg{i4(1), i4(2)}},
		{"7 / 2", "/", []arg{i4(7), i4(2)}},
		{"-7 / 2", "/", []arg{i4(-7), i4(2)}},
		{"-7 % 3", "%", []arg{i4(-7), i4(3)}},
		{"5::int8 * 3::int4", "*", []arg{i8(5), i4(3)}},
		{"1::numeric / 3", "/", []arg{num("1"), num("3")}},
		{"10::numeric / 4", "/", []arg{num("10"), num("4")}},
		{"1.50::numeric + 2.250", "+", []arg{num("1.50"), num("2.250")}},
		{"1.5::numeric * 2.25", "*", []arg{num("1.5"), num("2.25")}},
		{"123456789.123::numeric / 0.001", "/", []arg{num("123456789.123"), num("0.001")}},
		{"0.0001::numeric / 7", "/", []arg{num("0.0001"), num("7")}},
		{"10.5::numeric % 3", "%", []arg{num("10.5"), num("3")}},
		{"2::numeric ^ 10", "^", []arg{num("2"), num("10")}},
		{"2::numeric ^ 0.5", "^", []arg{num("2"), num("0.5")}},
		{"sqrt(2::numeric)", "sqrt", []arg{num("2")}},
		{"round(2.5::numeric)", "round", []arg{num("2.5")}},
		{"round(-2.5::numeric)", "round", []arg{num("-2.5")}},
		{"round(1234.5678::numeric, 2)", "round", []arg{num("1234.5678"), i4(2)}},
		{"round(1234.5678::numeric, -2)", "round", []arg{num("1234.5678"), i4(-2)}},
		{"trunc(1234.5678::numeric, 1)", "trunc", []arg{num("1234.5678"), i4(1)}},
		{"ceil(1.2::numeric)", "ceil", []arg{num("1.2")}},
		{"floor(-1.2::numeric)", "floor", []arg{num("-1.2")}},
		{"abs(-3)", "abs", []arg{i4(-3)}},
		{"3 < 5", "<", []arg{i4(3), i4(5)}},
		{"3::int8 = 3::int4", "=", []arg{i8(3), i4(3)}},
		{"'abc' < 'abd'", "<", []arg{txt("abc"), txt("abd")}},
		{"'B' < 'a'", "<", []arg{txt("B"), txt("a")}},
		{"1.10::numeric = 1.1", "=", []arg{num("1.10"), num("1.1")}},
		{"'hello' like 'h%o'", "~~", []arg{txt("hello"), txt("h%o")}},
		{"'hello' ilike 'H_LLO'", "~~*", []arg{txt("hello"), txt("H_LLO")}},
		{"'abc123' ~ '[0-9]+'", "~", []arg{txt("abc123"), txt("[0-9]+")}},
		{"length('héllo')", "length", []arg{txt("héllo")}},
		{"upper('abc')", "upper", []arg{txt("abc")}},
		{"initcap('hello wORLD-foo')", "initcap", []arg{txt("hello wORLD-foo")}},
		{"substr('hello', 2, 3)", "substr", []arg{txt("hello"), i4(2), i4(3)}},
		{"substr('hello', -1, 3)", "substr", []arg{txt("hello"), i4(-1), i4(3)}},
		{"strpos('hello', 'll')", "strpos", []arg{txt("hello"), txt("ll")}},
		{"replace('abcabc', 'b', 'X')", "replace", []arg{txt("abcabc"), txt("b"), txt("X")}},
		{"translate('12345', '143', 'ax')", "translate", []arg{txt("12345"), txt("143"), txt("ax")}},
		{"btrim('xxabcxx', 'x')", "btrim", []arg{txt("xxabcxx"), txt("x")}},
		{"lpad('hi', 5, 'xy')", "lpad", []arg{txt("hi"), i4(5), txt("xy")}},
		{"rpad('hello', 3)", "rpad", []arg{txt("hello"), i4(3)}},
		{"left('hello', -2)", "left", []arg{txt("hello"), i4(-2)}},
		{"right('hello', 2)", "right", []arg{txt("hello"), i4(2)}},
		{"repeat('ab', 3)", "repeat", []arg{txt("ab"), i4(3)}},
		{"reverse('abc')", "reverse", []arg{txt("abc")}},
		{"split_part('a,b,c', ',', 2)", "split_part", []arg{txt("a,b,c"), txt(","), i4(2)}},
		{"split_part('a,b,c', ',', -1)", "split_part", []arg{txt("a,b,c"), txt(","), i4(-1)}},
		{"concat('a', NULL::text, 'b')", "concat", []arg{txt("a"), {types.Text, nil}, txt("b")}},
		{"concat_ws('-', 'a', NULL::text, 'b')", "concat_ws", []arg{txt("-"), txt("a"), {types.Text, nil}, txt("b")}},
		{"format('%s=%L %I', 'x', 'it''s', 'Foo')", "format", []arg{txt("%s=%L %I"), txt("x"), txt("it's"), txt("Foo")}},
		{"quote_ident('select')", "quote_ident", []arg{txt("select")}},
		{"quote_ident('abc_1')", "quote_ident", []arg{txt("abc_1")}},
		{"quote_literal('O''Reilly')", "quote_literal", []arg{txt("O'Reilly")}},
		{"md5('abc')", "md5", []arg{txt("abc")}},
		{"to_hex(255)", "to_hex", []arg{i4(255)}},
		{"to_hex(-1)", "to_hex", []arg{i4(-1)}},
		{"ascii('A')", "ascii", []arg{txt("A")}},
		{"chr(65)", "chr", []arg{i4(65)}},
		{"regexp_replace('foobarbaz', 'b(..)', 'X\\1Y', 'g')", "regexp_replace", []arg{txt("foobarbaz"), txt("b(..)"), txt(`X\1Y`), txt("g")}},
		{"regexp_replace('Hello', 'l', 'L')", "regexp_replace", []arg{txt("Hello"), txt("l"), txt("L")}},
		{"substring('foobar' from 'o(b.)')", "substring", []arg{txt("foobar"), txt("o(b.)")}},
		{"starts_with('alphabet', 'alph')", "starts_with", []arg{txt("alphabet"), txt("alph")}},
		{"'{\"a\": {\"b\": [1, 2]}}'::jsonb -> 'a'", "->", []arg{{types.JSONB, `{"a": {"b": [1, 2]}}`}, txt("a")}},
		{"'{\"a\": \"x\"}'::jsonb ->> 'a'", "->>", []arg{{types.JSONB, `{"a": "x"}`}, txt("a")}},
		{"'[1, 2, 3]'::jsonb -> -1", "->", []arg{{types.JSONB, `[1, 2, 3]`}, i4(-1)}},
		{"'{\"a\": 1, \"b\": 2}'::jsonb @> '{\"b\": 2}'", "@>", []arg{{types.JSONB, `{"a": 1, "b": 2}`}, {types.JSONB, `{"b": 2}`}}},
		{"'{\"a\": 1}'::jsonb ? 'a'", "?", []arg{{types.JSONB, `{"a": 1}`}, txt("a")}},
		{"jsonb_typeof('[1]')", "jsonb_typeof", []arg{{types.JSONB, `[1]`}}},
		{"jsonb_array_length('[1,2,3]')", "jsonb_array_length", []arg{{types.JSONB, `[1, 2, 3]`}}},
		{"jsonb_build_object('b', 1, 'a', 'x')", "jsonb_build_object", []arg{txt("b"), i4(1), txt("a"), txt("x")}},
		{"json_build_object('b', 1, 'a', 'x')", "json_build_object", []arg{txt("b"), i4(1), txt("a"), txt("x")}},
		{"jsonb_build_array(1, 'x', true)", "jsonb_build_array", []arg{i4(1), txt("x"), {types.Bool, true}}},
		{"to_jsonb('a\"b'::text)", "to_jsonb", []arg{txt(`a"b`)}},
		{"'2020-01-31 10:00'::timestamp + interval '1 month'", "+", []arg{ts(1580464800000000), ivl(1, 0, 0)}},
		{"'2020-03-01'::timestamp - '2020-01-01 12:00'::timestamp", "-", []arg{ts(1583020800000000), ts(1577880000000000)}},
		{"interval '1 month 3 days' * 1.5", "*", []arg{ivl(1, 3, 0), f8(1.5)}},
		{"interval '1 day' / 3", "/", []arg{ivl(0, 1, 0), f8(3)}},
		{"interval '1 month' > interval '29 days'", ">", []arg{ivl(1, 0, 0), ivl(0, 29, 0)}},
		{"interval '1 day' = interval '24 hours'", "=", []arg{ivl(0, 1, 0), ivl(0, 0, 86400000000)}},
		{"extract(epoch from '2020-01-01 10:00:01.5'::timestamp)", "extract", []arg{txt("epoch"), ts(1577872801500000)}},
		{"extract(second from '2020-01-01 10:00:01.5'::timestamp)", "extract", []arg{txt("second"), ts(1577872801500000)}},
		{"extract(dow from '2020-01-01 10:00:01.5'::timestamp)", "extract", []arg{txt("dow"), ts(1577872801500000)}},
		{"extract(week from '2020-01-01 10:00:01.5'::timestamp)", "extract", []arg{txt("week"), ts(1577872801500000)}},
		{"extract(doy from '2020-03-01'::timestamp)", "extract", []arg{txt("doy"), ts(1583020800000000)}},
		{"extract(epoch from interval '1 year 2 days')", "extract", []arg{txt("epoch"), ivl(12, 2, 0)}},
		{"extract(century from '2020-03-01'::timestamp)", "extract", []arg{txt("century"), ts(1583020800000000)}},
		{"pg_size_pretty(123456789::int8)", "pg_size_pretty", []arg{i8(123456789)}},
		{"pg_size_pretty(10240::int8)", "pg_size_pretty", []arg{i8(10240)}},
		{"format_type(1043, 20)", "format_type", []arg{{types.Oid, int64(1043)}, i4(20)}},
		{"format_type(1700, 655366)", "format_type", []arg{{types.Oid, int64(1700)}, i4(655366)}},
		{"array_to_string(ARRAY['a', NULL, 'c'], ',', '*')", "array_to_string", []arg{{types.ArrayOf(types.Text), []Datum{"a", nil, "c"}}, txt(","), txt("*")}},
		{"array_length(ARRAY[1,2,3], 1)", "array_length", []arg{{types.ArrayOf(types.Int4), []Datum{int64(1), int64(2), int64(3)}}, i4(1)}},
		{"nullif(1, 1)", "nullif", []arg{i4(1), i4(1)}},
		{"greatest(1, 5, 3)", "greatest", []arg{i4(1), i4(5), i4(3)}},
		{"least('b'::text, 'a')", "least", []arg{txt("b"), txt("a")}},
	}
	for _, c := range cases {
		var want *string
		if err := conn.QueryRow(context.Background(), "SELECT ("+c.sql+")::text").Scan(&want); err != nil {
			t.Errorf("%s: postgres: %v", c.sql, err)
			continue
		}
		got, rt, err := evalFunc(t, c.name, c.args)
		if err != nil {
			t.Errorf("%s: %v", c.sql, err)
			continue
		}
		w := "<NULL>"
		if want != nil {
			w = *want
		}
		g := simpleText(got, rt)
		if iv, ok := got.(arrow.MonthDayNanoInterval); ok && want != nil {
			// compare intervals through PostgreSQL's own rendering of ours
			var pgText string
			q := "SELECT make_interval(months => $1, days => $2, secs => $3::float8 / 1000000)::text"
			if err := conn.QueryRow(context.Background(), q, int(iv.Months), int(iv.Days), iv.Nanoseconds/1000).Scan(&pgText); err != nil {
				t.Fatal(err)
			}
			g = pgText
		}
		if g != w {
			t.Errorf("%s: got %q, PostgreSQL %q", c.sql, g, w)
		}
	}
}

func TestErrorsMatchPostgres(t *testing.T) {
	cases := []struct {
		name string
		args []arg
		code string
		msg  string
	}{
		{"/", []arg{i4(1), i4(0)}, "22012", "division by zero"},
		{"+", []arg{i4(2147483647), i4(1)}, "22003", "integer out of range"},
		{"*", []arg{i8(1 << 62), i8(4)}, "22003", "bigint out of range"},
		{"/", []arg{num("1"), num("0")}, "22012", "division by zero"},
		{"/", []arg{f8(1), f8(0)}, "22012", "division by zero"},
	}
	for _, c := range cases {
		_, _, err := evalFunc(t, c.name, c.args)
		e := sqlerr.From(err)
		if err == nil || e.Code != c.code || e.Message != c.msg {
			t.Errorf("%s%v: got %v, want %s %s", c.name, c.args, err, c.code, c.msg)
		}
	}
}

func TestAggregatesAgainstPostgres(t *testing.T) {
	pg := pgtest.Shared(t)
	conn := pg.Connect(t)
	ints := []Datum{int64(1), int64(2), nil, int64(3), int64(4)}
	cases := []struct {
		sql  string
		name string
		t    types.T
		vals []Datum
	}{
		{"sum(x) FROM (VALUES (1),(2),(NULL),(3),(4)) v(x)", "sum", types.Int4, ints},
		{"avg(x) FROM (VALUES (1),(2),(NULL),(3),(4)) v(x)", "avg", types.Int4, ints},
		{"count(x) FROM (VALUES (1),(2),(NULL),(3),(4)) v(x)", "count", types.Int4, ints},
		{"max(x) FROM (VALUES (1),(2),(NULL),(3),(4)) v(x)", "max", types.Int4, ints},
		{"variance(x) FROM (VALUES (1),(2),(NULL),(3),(4)) v(x)", "variance", types.Int4, ints},
		{"stddev(x) FROM (VALUES (1),(2),(NULL),(3),(4)) v(x)", "stddev", types.Int4, ints},
		{"stddev_pop(x) FROM (VALUES (1),(2),(NULL),(3),(4)) v(x)", "stddev_pop", types.Int4, ints},
		{"sum(x::int8) FROM (VALUES (9223372036854775807),(10)) v(x)", "sum", types.Int8, []Datum{int64(9223372036854775807), int64(10)}},
		{"avg(x::numeric) FROM (VALUES (1.5),(2.25)) v(x)", "avg", types.Numeric, []Datum{"1.5", "2.25"}},
		{"min(x) FROM (VALUES ('b'),('a'),('c')) v(x)", "min", types.Text, []Datum{"b", "a", "c"}},
		{"string_agg(x, ',') FROM (VALUES ('b'),('a'),('c')) v(x)", "string_agg", types.Text, []Datum{"b", "a", "c"}},
		{"jsonb_agg(x) FROM (VALUES (1),(2),(NULL),(3),(4)) v(x)", "jsonb_agg", types.Int4, ints},
		{"json_agg(x) FROM (VALUES (1),(2),(NULL),(3),(4)) v(x)", "json_agg", types.Int4, ints},
		{"sum(x) FROM (VALUES (1),(2)) v(x) WHERE false", "sum", types.Int4, nil},
	}
	for _, c := range cases {
		var want *string
		cut := len(c.name) + indexOfFrom(c.sql[len(c.name):])
		if err := conn.QueryRow(context.Background(), "SELECT ("+c.sql[:cut]+")::text"+c.sql[cut:]).Scan(&want); err != nil {
			t.Errorf("%s: postgres: %v", c.sql, err)
			continue
		}
		argTypes := []types.T{c.t}
		if c.name == "string_agg" {
			argTypes = append(argTypes, types.Text)
		}
		r, err := ResolveAggregate(c.name, argTypes)
		if err != nil {
			t.Fatal(err)
		}
		acc := r.Overload.New(r.ArgTypes, r.Ret)
		ctx := &Ctx{}
		args := []arrow.Array{ArrayFromDatums(nil, c.t, c.vals)}
		if c.name == "string_agg" {
			seps := make([]Datum, len(c.vals))
			for i := range seps {
				seps[i] = ","
			}
			args = append(args, ArrayFromDatums(nil, types.Text, seps))
		}
		groups := make([]uint32, len(c.vals))
		if len(c.vals) > 0 {
			if err := acc.Update(ctx, groups, args); err != nil {
				t.Errorf("%s: %v", c.sql, err)
				continue
			}
		}
		out, err := acc.Finish(ctx, 1)
		if err != nil {
			t.Errorf("%s: %v", c.sql, err)
			continue
		}
		g := simpleText(DatumAt(out, 0), r.Ret)
		w := "<NULL>"
		if want != nil {
			w = *want
		}
		if g != w {
			t.Errorf("%s: got %q, PostgreSQL %q", c.sql, g, w)
		}
	}
}

// indexOfFrom finds the " FROM" that ends the aggregate call.
func indexOfFrom(s string) int {
	depth := 0
	for i := 0; i < len(s); i++ {
		switch s[i] {
		case '(':
			depth++
		case ')':
			depth--
			if depth == 0 {
				return i + 1
			}
		}
	}
	return len(s)
}
