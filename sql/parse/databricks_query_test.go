package parse

import (
	"strings"
	"testing"

	pg_query "github.com/pganalyze/pg_query_go/v6"
	"google.golang.org/protobuf/reflect/protoreflect"

	"github.com/weir-sql/weir/sql/sqlerr"
)

// Databricks' query spellings become PostgreSQL's tree (deparsed here to
// compare) plus the binder's markers.
func TestDatabricksQueries(t *testing.T) {
	tests := []struct{ sql, want string }{
		{"SELECT a, count(*) FROM t GROUP BY ALL", "SELECT a, count(*) FROM t GROUP BY $-1"},
		{"SELECT a FROM t GROUP BY ALL HAVING count(*) > 1 ORDER BY ALL DESC NULLS LAST LIMIT 3",
			"SELECT a FROM t GROUP BY $-1 HAVING count(*) > 1 ORDER BY $-1 DESC NULLS LAST LIMIT 3"},
		{"SELECT * FROM (SELECT a FROM t ORDER BY ALL) s", "SELECT * FROM (SELECT a FROM t ORDER BY $-1) s"},
		{"SELECT * FROM VALUES (1, 'a'), (2, 'b') AS t(a, b)", "SELECT * FROM (VALUES (1, 'a'), (2, 'b')) t(a, b)"},
		{"SELECT * FROM VALUES (1), (2)", `SELECT * FROM (VALUES (1), (2)) "*VALUES*"(col1)`},
		{"VALUES 1, 2, -3 ORDER BY 1", `SELECT * FROM (VALUES (1), (2), (-3)) "*VALUES*"(col1) ORDER BY 1`},
		{"SELECT a FROM VALUES 'x', 'y' AS t(a)", `SELECT a FROM (VALUES ('x'), ('y')) t(a)`},
		{"SELECT * FROM VALUES (1, 2) v JOIN VALUES (1, 3) AS w ON v.col1 = w.col1",
			"SELECT * FROM (VALUES (1, 2)) v(col1, col2) JOIN (VALUES (1, 3)) w(col1, col2) ON v.col1 = w.col1"},
		{"SELECT a, rank() OVER (ORDER BY b) AS r FROM t QUALIFY r = 1 ORDER BY a",
			"SELECT a, rank() OVER (ORDER BY b) AS r, r = 1 FROM t ORDER BY a"},
		{"SELECT a FROM t WHERE b > 0 QUALIFY row_number() OVER (PARTITION BY a ORDER BY b) = 1 LIMIT 5",
			"SELECT a, row_number() OVER (PARTITION BY a ORDER BY b) = 1 FROM t WHERE b > 0 LIMIT 5"},
		{"SELECT raw:store.bicycle.price::double precision FROM s",
			`SELECT _json_path_ci(raw::json, '{"store","bicycle","price"}', 'iii')::double precision FROM s`},
		{"SELECT raw:['store']['Bi,cy\"cle'], t.raw:a[0].b FROM s t",
			`SELECT raw::json #>> E'{"store","Bi,cy\\"cle"}', _json_path_ci(t.raw::json, '{"a","0","b"}', 'iei') FROM s t`},
		{"SELECT (raw):a, upper(x):b FROM s", `SELECT _json_path_ci(raw::json, '{"a"}', 'i'), _json_path_ci(upper(x)::json, '{"b"}', 'i') FROM s`},
		{"SELECT a[1:2], raw:x FROM s", `SELECT a[1:2], _json_path_ci(raw::json, '{"x"}', 'i') FROM s`},
		{"SELECT count(*) FROM t WHERE ts > now() - INTERVAL 10 SECONDS", "SELECT count(*) FROM t WHERE ts > (now() - '10 seconds'::interval)"},
		{"SELECT window.start, count(*) FROM t GROUP BY window(ts, '1 minute') QUALIFY true",
			`SELECT window_start, count(*), true FROM t GROUP BY "window"(ts, '1 minute')`},
	}
	for _, tc := range tests {
		stmts, err := Parse(tc.sql)
		if err != nil {
			e := sqlerr.From(err)
			t.Errorf("%s: %s at %d: %s", tc.sql, e.Code, e.Position, e.Message)
			continue
		}
		got, err := pg_query.Deparse(&pg_query.ParseResult{Version: version(t), Stmts: []*pg_query.RawStmt{{Stmt: stmts[0].Node}}})
		if err != nil {
			t.Fatal(err)
		}
		got = strings.ReplaceAll(got, "pg_catalog.", "")
		if got != tc.want {
			t.Errorf("%s:\n got %s\nwant %s", tc.sql, got, tc.want)
		}
		if stmts[0].Text != tc.sql && !strings.Contains(tc.sql, "window.") { // Spark's window fields are renamed in the text
			t.Errorf("%s: statement text %q", tc.sql, stmts[0].Text)
		}
	}
}

// PostgreSQL's reading wins, and a text PostgreSQL rejects for another
// reason keeps PostgreSQL's error.
func TestDatabricksQueriesLeavePostgreSQLAlone(t *testing.T) {
	for _, sql := range []string{
		"SELECT a FROM t GROUP BY ALL a",        // PostgreSQL's set quantifier
		"SELECT $1::int FROM t",                 // parameters stay parameters
		"SELECT * FROM (VALUES (1)) AS qualify", // an alias named qualify
		"SELECT a[1:2] FROM t",
	} {
		stmts, err := Parse(sql)
		if err != nil {
			t.Fatalf("%s: %v", sql, err)
		}
		walkMessages(stmts[0].Node.ProtoReflect(), func(m protoreflect.Message) {
			if p, ok := m.Interface().(*pg_query.ParamRef); ok && p.Number == AllColumns {
				t.Errorf("%s: ALL marker", sql)
			}
		})
	}
	for _, tc := range []struct {
		sql string
		pos int
	}{
		{"SELECT a FROM t GROUP BY ALL WHERE", 30},
		{"SELECT raw:a FROM t WHERE", 11},
		{"SELECT $0, a FROM t GROUP BY ALL", 33},
	} {
		_, err := Parse(tc.sql)
		want, _ := pg_query.Parse(tc.sql)
		_ = want
		e := sqlerr.From(err)
		if err == nil || e.Code != sqlerr.SyntaxError || e.Position != tc.pos {
			t.Errorf("%s: got %v at %d, want 42601 at %d", tc.sql, err, e.Position, tc.pos)
		}
	}
}

// Locations in the rewritten tree point into the client's text.
func TestDatabricksQueryLocations(t *testing.T) {
	sql := "SELECT raw:a.b, nosuch FROM t QUALIFY missing = 1 ORDER BY ALL"
	stmts, err := Parse(sql)
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]int{"raw": strings.Index(sql, "raw"), "nosuch": strings.Index(sql, "nosuch"), "missing": strings.Index(sql, "missing")}
	seen := map[string]bool{}
	walkMessages(stmts[0].Node.ProtoReflect(), func(m protoreflect.Message) {
		cr, ok := m.Interface().(*pg_query.ColumnRef)
		if !ok || len(cr.Fields) != 1 || cr.Fields[0].GetString_() == nil {
			return
		}
		name := cr.Fields[0].GetString_().Sval
		if w, ok := want[name]; ok {
			seen[name] = true
			if int(cr.Location) != w {
				t.Errorf("%s at %d, want %d", name, cr.Location, w)
			}
		}
	})
	if len(seen) != len(want) {
		t.Errorf("saw %v", seen)
	}
}

func version(t *testing.T) int32 {
	r, err := pg_query.Parse("SELECT 1")
	if err != nil {
		t.Fatal(err)
	}
	return r.Version
}

func TestDatabricksRefused(t *testing.T) {
	for _, tc := range []struct {
		sql, msg string
		pos      int
	}{
		{"COPY INTO t FROM '/Volumes/a/b/c' FILEFORMAT = CSV", "COPY INTO is not supported", 6},
		{"LIST '/Volumes/a/b'", "Unity Catalog volumes", 6},
		{"SELECT * FROM json.`/Volumes/a/b.json`", "querying files by path (json.`path`)", 15},
		{"CREATE TABLE t (a int) LOCATION '/Volumes/a/b'", "Unity Catalog volumes", 33},
		{"SELECT raw:a[*].b FROM t", "JSON path step [*]", 13},
	} {
		_, err := Parse(tc.sql)
		e := sqlerr.From(err)
		if err == nil || e.Code != sqlerr.FeatureNotSupported || !strings.Contains(e.Message, tc.msg) || e.Position != tc.pos || e.Hint == "" {
			t.Errorf("%s: got %s %q at %d (hint %q)", tc.sql, e.Code, e.Message, e.Position, e.Hint)
		}
	}
	// A volume path in a statement PostgreSQL takes is PostgreSQL's.
	if _, err := Parse("SELECT '/Volumes/a/b'"); err != nil {
		t.Error(err)
	}
	// Backtick names become quoted names of the same length.
	stmts, err := Parse("SELECT `Zip Code` FROM `t`")
	if err != nil {
		t.Fatal(err)
	}
	cr := stmts[0].Node.GetSelectStmt().TargetList[0].GetResTarget().Val.GetColumnRef()
	if cr.Fields[0].GetString_().Sval != "zip code" || cr.Location != 7 {
		t.Errorf("got %v at %d", cr.Fields, cr.Location)
	}
}
