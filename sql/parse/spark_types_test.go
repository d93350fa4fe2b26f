package parse

import (
	"strings"
	"testing"

	"github.com/weir-sql/weir/sql/sqlerr"
)

func TestSparkTypeNamesRewrite(t *testing.T) {
	cases := map[string]string{
		"SELECT CAST(x AS STRUCT<a: INT, b: ARRAY<STRING>>) FROM t":   "SELECT CAST(x AS weir_spark_type('STRUCT<a: INT, b: ARRAY<STRING>>')) FROM t",
		"CREATE TABLE t (a ARRAY<INT>, b BINARY, c MAP<STRING, INT>)": "CREATE TABLE t (a weir_spark_type('ARRAY<INT>'), b bytea, c weir_spark_type('MAP<STRING, INT>'))",
		"SELECT x::binary, 'STRUCT<a INT>' FROM t":                    "SELECT x::bytea, 'STRUCT<a INT>' FROM t",
		"SELECT from_json(j, 'a INT')::STRUCT<a INT COMMENT 'it''s'>": "SELECT from_json(j, 'a INT')::weir_spark_type('STRUCT<a INT COMMENT ''it''''s''>')",
	}
	for in, want := range cases {
		got, ok := SparkTypeNames(in)
		if !ok || got != want {
			t.Errorf("%s\n  got  %s\n  want %s", in, got, want)
		}
	}
	if _, ok := SparkTypeNames("SELECT a < b FROM t"); ok {
		t.Error("a comparison was rewritten")
	}
}

// PostgreSQL's grammar decides first: a query it parses is never rewritten,
// and one it refuses parses after the rewrite.
func TestSparkTypesParse(t *testing.T) {
	for _, q := range []string{
		"CREATE TABLE t (a STRING, b STRUCT<x: INT, y ARRAY<DOUBLE>>, c BINARY NOT NULL)",
		"SELECT CAST(v AS ARRAY<BIGINT>), w.start, window_time(window) FROM t GROUP BY window(ts, '1 minute')",
	} {
		stmts, err := Parse(q)
		if err != nil || len(stmts) != 1 {
			t.Errorf("%s: %v", q, err)
		}
	}
	stmts, err := Parse("SELECT struct < 3 FROM t")
	if err != nil || strings.Contains(stmts[0].Text, SparkTypeNameFunc) {
		t.Errorf("a column named struct: %v %v", stmts, err)
	}
	_, err = Parse("SELECT CAST(x AS STRUCT<a INT)")
	if se, ok := err.(*sqlerr.Error); !ok || se.Code != sqlerr.SyntaxError {
		t.Errorf("an unclosed STRUCT<: %v", err)
	}
}

func TestSparkStructAliases(t *testing.T) {
	cases := map[string]string{
		"SELECT struct(1, 2 AS two, 3)":                      "SELECT struct(1, weir_struct_field(2, 'two'), 3)",
		"SELECT struct(a + 1 AS \"X\", CAST(b AS int) AS c)": "SELECT struct(weir_struct_field(a + 1, 'X'), weir_struct_field(CAST(b AS int), 'c'))",
		"SELECT struct(struct(1 AS a) AS b)":                 "SELECT struct(weir_struct_field(struct(weir_struct_field(1, 'a')), 'b'))",
	}
	for in, want := range cases {
		got, ok := SparkStructAliases(in)
		if !ok || got != want {
			t.Errorf("%s\n  got  %s\n  want %s", in, got, want)
		}
	}
	if _, ok := SparkStructAliases("SELECT struct(1, CAST(x AS int))"); ok {
		t.Error("a CAST inside struct() was rewritten")
	}
}
