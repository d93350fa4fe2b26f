package engine_test

import (
	"context"
	"strings"
	"testing"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"

	"github.com/weir-sql/weir/internal/pgtest"
)

// TestCopyPartialColumnList: COPY t (a) FROM STDIN once dropped the
// connection (a nil allocator building the NULL columns). The columns the
// COPY does not name get their DEFAULT, as in PostgreSQL; the same COPYs
// run on both servers must leave the same rows.
func TestCopyPartialColumnList(t *testing.T) {
	w := startServer(t, t.TempDir()).connect(t)
	pg := pgConnFresh(t, pgtest.Shared(t))
	ctx := context.Background()
	steps := []struct{ sql, data string }{
		{"CREATE TABLE cp (a int, b text DEFAULT 'dflt', c int, d int DEFAULT 7 + 1)", ""},
		{"COPY cp (a) FROM STDIN", "1\n2\n"},
		{"COPY cp (c, a) FROM STDIN (FORMAT csv)", "30,3\n40,4\n"},
		{"COPY cp (d, b) FROM STDIN", "9\tnine\n"},
		{"COPY cp (a, a) FROM STDIN", "1\t1\n"},
		{"COPY cp (nope) FROM STDIN", "1\n"},
	}
	for _, s := range steps {
		var codes [2]string
		for i, c := range []*pgx.Conn{pg, w} {
			var err error
			if s.data == "" {
				_, err = c.Exec(ctx, s.sql)
			} else {
				_, err = c.PgConn().CopyFrom(ctx, strings.NewReader(s.data), s.sql)
			}
			if pe, ok := err.(*pgconn.PgError); ok {
				codes[i] = pe.Code
			} else if err != nil {
				t.Fatalf("%s: %v", s.sql, err)
			}
		}
		if codes[0] != codes[1] {
			t.Errorf("%s: PostgreSQL answered %q, weir %q", s.sql, codes[0], codes[1])
		}
	}
	q := "SELECT a, b, c, d FROM cp ORDER BY a NULLS FIRST, d"
	want, got := runQuery(pg, q), runQuery(w, q)
	if msg := compareOutcomes(want, got, true, q); msg != "" {
		t.Errorf("%s", msg)
	}
	if len(got.rows) != 5 {
		t.Errorf("weir holds %d rows, want 5: %v", len(got.rows), got.rows)
	}
}
