package planner

import (
	"testing"

	"github.com/weir-sql/weir/sql/parse"
	"github.com/weir-sql/weir/sql/sqlerr"
)

func TestCheckDatabaseNames(t *testing.T) {
	tests := []struct {
		sql, code string
		pos       int
	}{
		{"SELECT * FROM weir.public.t", "", 0},
		{"SELECT * FROM public.t JOIN other.public.u ON true", sqlerr.FeatureNotSupported, 29},
		{"INSERT INTO other.s.t VALUES (1)", sqlerr.FeatureNotSupported, 13},
		{"SELECT other.s.t.a FROM t", sqlerr.FeatureNotSupported, 8},
		{"SELECT weir.s.t.a FROM t", "", 0},
		{"DROP TABLE other.s.t", sqlerr.FeatureNotSupported, 0},
		{"SELECT * FROM (SELECT * FROM x.y.z) AS q", sqlerr.FeatureNotSupported, 30},
	}
	for _, tc := range tests {
		stmts, err := parse.Parse(tc.sql)
		if err != nil {
			t.Fatal(err)
		}
		err = CheckDatabaseNames(stmts[0].Node, "weir")
		if tc.code == "" {
			if err != nil {
				t.Errorf("%s: %v", tc.sql, err)
			}
			continue
		}
		e := sqlerr.From(err)
		if err == nil || e.Code != tc.code || e.Position != tc.pos {
			t.Errorf("%s: got %v (position %d), want %s at %d", tc.sql, err, e.Position, tc.code, tc.pos)
		}
	}
}
