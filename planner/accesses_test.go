package planner

import (
	"fmt"
	"strings"
	"testing"

	"github.com/weir-sql/weir/sql/parse"
	"github.com/weir-sql/weir/sql/types"
)

// TestAccesses: the binder records each scan of a stored relation with
// the columns the query references (PostgreSQL's selectedCols), INSERT's
// target columns, and ties the relations a view reads to the view.
func TestAccesses(t *testing.T) {
	cols := []RelColumn{{Name: "a", T: types.Int4}, {Name: "b", T: types.Int4}, {Name: "c", T: types.Int4}}
	cat := streamCatalog{
		"t": {OID: 1, Schema: "public", Name: "t", Kind: StoredTable, Cols: cols},
		"u": {OID: 2, Schema: "public", Name: "u", Kind: StoredTable, Cols: cols},
		"v": {OID: 3, Schema: "public", Name: "v", Kind: StoredTable, ViewSQL: "SELECT a, b FROM t", Cols: cols[:2]},
	}
	show := func(accs []Access) string {
		var out []string
		for _, a := range accs {
			s := fmt.Sprintf("%s:%d%v", a.Name, a.Privs, a.Columns)
			if a.ViaView != 0 {
				s += fmt.Sprintf("@view%d", a.ViaView)
			}
			out = append(out, s)
		}
		return strings.Join(out, " ")
	}
	for _, c := range []struct{ sql, want string }{
		{"SELECT a FROM t", "t:1[a]"},
		{"SELECT count(*) FROM t", "t:1[]"},
		{"SELECT * FROM t", "t:1[a b c]"},
		{"SELECT a FROM t WHERE c > 1 ORDER BY b", "t:1[a b c]"},
		{"SELECT t.a FROM t JOIN u USING (b)", "t:1[a b] u:1[b]"},
		{"SELECT a FROM t GROUP BY a HAVING max(c) > 0", "t:1[a c]"},
		{"SELECT (SELECT max(u.c) FROM u WHERE u.a = t.a) FROM t", "t:1[a] u:1[a c]"},
		{"SELECT x FROM t AS r(x, y)", "t:1[a]"},
		{"SELECT b FROM v", "v:1[b] t:1[a b]@view3"},
		{"WITH w AS (SELECT c FROM t) SELECT 1 FROM w", "t:1[c]"},
	} {
		stmts, err := parse.Parse(c.sql)
		if err != nil {
			t.Fatal(err)
		}
		q, err := BindQuery(cat, stmts[0].Node, nil)
		if err != nil {
			t.Fatalf("%s: %v", c.sql, err)
		}
		if got := show(q.Accesses); got != c.want {
			t.Errorf("%s: %s, want %s", c.sql, got, c.want)
		}
	}
	stmts, _ := parse.Parse("INSERT INTO t (c, a) SELECT b FROM u, (SELECT 1) s")
	ins, err := BindInsert(cat, stmts[0].Node.GetInsertStmt(), nil)
	if err == nil {
		t.Fatalf("INSERT with fewer expressions than columns bound: %s", show(ins.Accesses))
	}
	stmts, _ = parse.Parse("INSERT INTO t (c, a) SELECT b, b FROM u")
	if ins, err = BindInsert(cat, stmts[0].Node.GetInsertStmt(), nil); err != nil {
		t.Fatal(err)
	}
	if got, want := show(ins.Accesses), "t:2[a c] u:1[b]"; got != want {
		t.Errorf("INSERT ... SELECT: %s, want %s", got, want)
	}
}
