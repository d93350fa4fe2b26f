package parse

import (
	"testing"

	"github.com/weir-sql/weir/sql/sqlerr"
)

// FuzzParse feeds arbitrary text to the SQL front end: it must return
// statements or a 42601-style error with a position inside the text, and
// never panic.
func FuzzParse(f *testing.F) {
	for _, s := range []string{
		"SELECT 1", "select a, b from t where x = $1 order by 2 desc", "SELEC 1", "", ";",
		"SELECT 'unterminated", "CREATE TABLE t (a int, b text)", "SELECT 1; SELECT 2",
		"SELECT c.relname FROM pg_catalog.pg_class c WHERE c.relname OPERATOR(pg_catalog.~) '^(x)$' COLLATE pg_catalog.default",
		// Databricks' spellings (databricks_query.go).
		"SELECT a, count(*) FROM t GROUP BY ALL ORDER BY ALL DESC", "SELECT * FROM VALUES (1, 'a'), (2, 'b') AS t(a, b)",
		"SELECT a, rank() OVER (ORDER BY b) AS r FROM t QUALIFY r = 1", "SELECT raw:store.fruit[0]['type']::text FROM s",
		"SELECT * FROM VALUES (", "SELECT x: FROM t", "SELECT 1 QUALIFY", "SELECT (a):[0] FROM t GROUP BY ALL,",
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		stmts, err := Parse(s)
		if err != nil {
			e := sqlerr.From(err)
			if e.Code == "" || e.Message == "" {
				t.Fatalf("error without SQLSTATE or message: %#v", e)
			}
			if e.Position < 0 || e.Position > len([]rune(s))+1 {
				t.Fatalf("position %d outside the text of %d characters", e.Position, len([]rune(s)))
			}
			return
		}
		for _, st := range stmts {
			if st.Offset < 0 || st.Offset > len(s) {
				t.Fatalf("statement offset %d outside text", st.Offset)
			}
		}
	})
}

func TestParseErrorPosition(t *testing.T) {
	_, err := Parse("SELECT 1 FROM WHERE x")
	e := sqlerr.From(err)
	if e.Code != sqlerr.SyntaxError || e.Position != 15 {
		t.Fatalf("got %s at %d (%s), want 42601 at 15", e.Code, e.Position, e.Message)
	}
	stmts, err := Parse("SELECT 1; SELECT 2")
	if err != nil || len(stmts) != 2 || stmts[1].Text != " SELECT 2" && stmts[1].Text != "SELECT 2" {
		t.Fatalf("split: %v %#v", err, stmts)
	}
}
