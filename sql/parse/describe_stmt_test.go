package parse

import (
	"reflect"
	"strings"
	"testing"

	"github.com/weir-sql/weir/sql/sqlerr"
)

func TestParseDescribe(t *testing.T) {
	for _, c := range []struct {
		sql  string
		kind StreamingKind
		want DescribeSpec
	}{
		{"DESCRIBE customer", DescribeTable, DescribeSpec{Name: []string{"customer"}, NamePos: 10}},
		{"desc TABLE Sales.Customer;", DescribeTable, DescribeSpec{Name: []string{"sales", "customer"}, NamePos: 12}},
		{"DESCRIBE TABLE EXTENDED weir.salesdb.customer", DescribeTable, DescribeSpec{Name: []string{"weir", "salesdb", "customer"}, NamePos: 25, Extended: true}},
		{"DESC FORMATTED customer", DescribeTable, DescribeSpec{Name: []string{"customer"}, NamePos: 16, Extended: true}},
		// A table called extended.
		{"DESCRIBE extended", DescribeTable, DescribeSpec{Name: []string{"extended"}, NamePos: 10}},
		{"DESCRIBE customer salesdb.customer.name", DescribeTable, DescribeSpec{Name: []string{"customer"}, NamePos: 10,
			Column: "name", ColumnQualifier: []string{"salesdb", "customer"}, ColumnPos: 19}},
		{`DESCRIBE EXTENDED "My Table" "Col"`, DescribeTable, DescribeSpec{Name: []string{"My Table"}, NamePos: 19, Extended: true, Column: "Col", ColumnQualifier: []string{}, ColumnPos: 30}},
		{"SHOW CREATE TABLE s.t", ShowCreateTable, DescribeSpec{Name: []string{"s", "t"}, NamePos: 19}},
		{"SHOW TBLPROPERTIES customer", ShowTblProperties, DescribeSpec{Name: []string{"customer"}, NamePos: 20}},
		{"SHOW TBLPROPERTIES customer (created.by.user)", ShowTblProperties, DescribeSpec{Name: []string{"customer"}, NamePos: 20, Key: "created.by.user", HasKey: true}},
		{"SHOW TBLPROPERTIES customer (delta.appendOnly)", ShowTblProperties, DescribeSpec{Name: []string{"customer"}, NamePos: 20, Key: "delta.appendOnly", HasKey: true}},
		{"SHOW TBLPROPERTIES customer ('created.date')", ShowTblProperties, DescribeSpec{Name: []string{"customer"}, NamePos: 20, Key: "created.date", HasKey: true}},
	} {
		st, err := ParseStreaming(c.sql)
		if err != nil || st == nil {
			t.Errorf("%s: %v, %v", c.sql, st, err)
			continue
		}
		if st.Kind != c.kind || st.Describe == nil {
			t.Errorf("%s: kind %v, spec %v", c.sql, st.Kind, st.Describe)
			continue
		}
		got := *st.Describe
		if len(got.ColumnQualifier) == 0 && len(c.want.ColumnQualifier) == 0 {
			got.ColumnQualifier, c.want.ColumnQualifier = nil, nil
		}
		if !reflect.DeepEqual(got, c.want) {
			t.Errorf("%s:\n got %+v\nwant %+v", c.sql, got, c.want)
		}
	}
}

func TestParseDescribeErrors(t *testing.T) {
	for _, c := range []struct {
		sql, code, msg string
		pos            int
	}{
		{"DESCRIBE customer name extra", sqlerr.SyntaxError, `syntax error at or near "extra"`, 24},
		{"DESCRIBE", sqlerr.SyntaxError, "syntax error at or near end of input", 9},
		{"DESCRIBE TABLE", sqlerr.SyntaxError, "expected a table name", 15},
		{"DESC a.b.c.d", sqlerr.SyntaxError, "improper qualified name (too many dotted names): a.b.c.d", 11},
		{"SHOW CREATE TABLE t AS SERDE", sqlerr.FeatureNotSupported, "AS SERDE", 21},
		{"SHOW CREATE TABLE", sqlerr.SyntaxError, "expected a table name", 18},
		{"SHOW TBLPROPERTIES t (", sqlerr.SyntaxError, "missing )", 22},
		{"SHOW TBLPROPERTIES t ()", sqlerr.SyntaxError, "expected a property key", 23},
		{"SHOW TBLPROPERTIES t ('a', 'b')", sqlerr.SyntaxError, "expected ) after the property key", 26},
		{"SHOW TBLPROPERTIES t ('a') x", sqlerr.SyntaxError, `syntax error at or near "x"`, 28},
		{"DESCRIBE FUNCTION abs", sqlerr.FeatureNotSupported, "DESCRIBE FUNCTION is not supported", 10},
		{"DESCRIBE SCHEMA EXTENDED s", sqlerr.FeatureNotSupported, "DESCRIBE SCHEMA is not supported", 10},
		{"DESCRIBE HISTORY t", sqlerr.FeatureNotSupported, "DESCRIBE HISTORY is not supported", 10},
		{"DESCRIBE DETAIL t", sqlerr.FeatureNotSupported, "DESCRIBE DETAIL is not supported", 10},
		{"DESCRIBE t PARTITION (d = 1)", sqlerr.FeatureNotSupported, "PARTITION is not supported", 12},
		{"DESCRIBE t AS JSON", sqlerr.FeatureNotSupported, "AS JSON is not supported", 12},
	} {
		_, err := ParseStreaming(c.sql)
		e := sqlerr.From(err)
		if err == nil || e.Code != c.code || !strings.Contains(e.Message, c.msg) || e.Position != c.pos {
			t.Errorf("%s: got %v (code %s, position %d), want %s %q at %d", c.sql, err, e.Code, e.Position, c.code, c.msg, c.pos)
		}
	}
}

// Statements that only look alike are left to PostgreSQL's grammar.
func TestParseDescribeLeavesOthers(t *testing.T) {
	for _, sql := range []string{"SHOW search_path", "SHOW ALL", "SELECT a FROM t ORDER BY a DESC", "SHOW STREAMING TABLES"} {
		st, err := ParseStreaming(sql)
		if err != nil || st != nil && IsDescribe(st.Kind) {
			t.Errorf("%s: %+v, %v", sql, st, err)
		}
	}
}

func FuzzParseDescribe(f *testing.F) {
	for _, s := range []string{
		"DESCRIBE TABLE EXTENDED a.b.c col", "DESC t", "SHOW CREATE TABLE t", "SHOW TBLPROPERTIES t (a.b)",
		"SHOW TBLPROPERTIES t ('x')", "DESCRIBE FUNCTION f", "DESC t.", "SHOW TBLPROPERTIES t (", "DESCRIBE t PARTITION (",
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		st, err := ParseStreaming(s)
		if err != nil {
			e := sqlerr.From(err)
			if e.Code == "" || e.Code == sqlerr.InternalError || e.Position < 0 || e.Position > len([]rune(s))+1 {
				t.Fatalf("bad error for %q: %#v", s, e)
			}
			return
		}
		if st != nil && IsDescribe(st.Kind) && (st.Describe == nil || len(st.Describe.Name) == 0 || len(st.Describe.Name) > 3) {
			t.Fatalf("%q: bad spec %+v", s, st.Describe)
		}
	})
}
