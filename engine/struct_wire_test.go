package engine_test

import (
	"bytes"
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5/pgconn"

	"github.com/weir-sql/weir/internal/pgtest"
)

// TestStructWireFormsMatchPostgres checks that a struct value reaches the
// client as PostgreSQL's anonymous record does: the same column type
// (record, typmod -1), record_out's text and record_send's binary bytes,
// for the ROW(...) expressions PostgreSQL itself evaluates, and row
// comparisons give PostgreSQL's answers (NULL fields included).
func TestStructWireFormsMatchPostgres(t *testing.T) {
	pg := pgtest.Shared(t)
	w := startServer(t, t.TempDir())
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	pgc := pg.Connect(t).PgConn()
	wc := w.connect(t).PgConn()
	queries := []string{
		`SELECT ROW(1, 'a b', NULL::int, 2.5::numeric, true)`,
		`SELECT ROW('x"y\z', '', '(p)', 'a,b', 'tab	here')`,
		`SELECT ROW(ROW(1, 2), 'q', ROW(NULL::int, 'r s'))`,
		`SELECT ROW('2024-01-01 00:00:00'::timestamp, '2024-01-01 00:00:10'::timestamp)`,
		`SELECT ROW(1::int8, 1.5::float8, 'ab'::bytea, '2024-02-29'::date, 7::int2)`,
		`SELECT ROW(NULL::text), ROW('NULL'), ROW()`,
		`SELECT (ROW(1, 'x'::text)).f2, ROW(1, 'x'::text)::text`,
		`SELECT a < b, a <= b, a > b, a >= b, a = b, a <> b, a IS DISTINCT FROM b, a IS NOT DISTINCT FROM b FROM (VALUES (ROW(1, NULL::int), ROW(1, 2)), (ROW(1, 2), ROW(1, 2)), (ROW(2, 1), ROW(1, 9)), (ROW(NULL::int, 1), ROW(NULL::int, 1)), (NULL, ROW(1, 1)), (ROW(1, 1), ROW(1, NULL::int))) AS v(a, b)`,
		`SELECT a IN (ROW(1, 2), ROW(2, 1)), a NOT IN (ROW(1, 2), ROW(2, 1)), COALESCE(a, ROW(0, 0)) FROM (VALUES (ROW(1, 2)), (ROW(1, NULL::int)), (ROW(3, 3)), (NULL)) AS v(a)`,
		`SELECT ROW(1, 2) = ROW(1, 2), ROW(1, 2) <> ROW(1, 3), ROW(1, NULL) = ROW(1, 2), ROW(1, NULL) = ROW(2, 2), ROW(1, 2) < ROW(1, 3), ROW(1, 2) < ROW(0, 3), ROW(1, NULL) < ROW(2, 0), ROW(1, NULL) < ROW(1, 0), ROW(1, 2) <= ROW(1, 2), ROW(1, 2) >= ROW(1, 3), ROW(1, 'a') > ROW(1, 'b')`,
	}
	for _, q := range queries {
		for _, format := range []int16{0, 1} {
			want := runFormat(ctx, t, pgc, q, format)
			got := runFormat(ctx, t, wc, q, format)
			if want.err != nil || got.err != nil {
				t.Fatalf("%s (format %d)\n  PostgreSQL: %v\n  weir:       %v", q, format, want.err, got.err)
			}
			if len(want.fields) != len(got.fields) {
				t.Fatalf("%s: %d columns from PostgreSQL, %d from weir", q, len(want.fields), len(got.fields))
			}
			for i := range want.fields {
				wf, gf := want.fields[i], got.fields[i]
				if wf.DataTypeOID != gf.DataTypeOID || wf.TypeModifier != gf.TypeModifier || wf.DataTypeSize != gf.DataTypeSize {
					t.Errorf("%s column %d: PostgreSQL oid %d typmod %d len %d, weir oid %d typmod %d len %d", q, i,
						wf.DataTypeOID, wf.TypeModifier, wf.DataTypeSize, gf.DataTypeOID, gf.TypeModifier, gf.DataTypeSize)
				}
			}
			if len(want.values) != len(got.values) {
				t.Fatalf("%s: %d values from PostgreSQL, %d from weir", q, len(want.values), len(got.values))
			}
			for k := range want.values {
				if !bytes.Equal(want.values[k], got.values[k]) || (want.values[k] == nil) != (got.values[k] == nil) {
					t.Errorf("%s row %d column %d (format %d):\n  PostgreSQL: %q\n  weir:       %q", q, k/len(want.fields), k%len(want.fields), format, want.values[k], got.values[k])
				}
			}
		}
	}
}

type formatResult struct {
	fields []pgconn.FieldDescription
	values [][]byte
	err    error
}

func runFormat(ctx context.Context, t *testing.T, c *pgconn.PgConn, q string, format int16) formatResult {
	t.Helper()
	rr := c.ExecParams(ctx, q, nil, nil, nil, []int16{format})
	var out formatResult
	out.fields = append(out.fields, rr.FieldDescriptions()...)
	for rr.NextRow() {
		for _, v := range rr.Values() {
			if v == nil {
				out.values = append(out.values, nil)
				continue
			}
			out.values = append(out.values, append([]byte{}, v...))
		}
	}
	_, out.err = rr.Close()
	return out
}

// TestStructTextInputMatchesPostgres reads composite literals into a
// STRUCT<...> as PostgreSQL reads them into a row type of the same fields
// (record_in), and prints them back (record_out): same text, or the same
// SQLSTATE.
func TestStructTextInputMatchesPostgres(t *testing.T) {
	pg := pgtest.Shared(t)
	w := startServer(t, t.TempDir())
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	pgc := pg.Connect(t)
	wc := w.connect(t).PgConn()
	if _, err := pgc.Exec(ctx, `DROP TYPE IF EXISTS weir_ab; CREATE TYPE weir_ab AS (a int, b text, c timestamp)`); err != nil {
		t.Fatal(err)
	}
	defer pgc.Exec(context.Background(), `DROP TYPE IF EXISTS weir_ab`)
	inputs := []string{
		`(1,x,2024-01-01)`, ` (2,"a b","2024-01-01 00:00:10") `, `(,,)`, `(3,"q""r\\s",)`,
		`(4,(p),)`, `(5,"",)`, `(6,a"b"c,)`, `(7, spaced ,)`,
		`(1,x)`, `(1,x,2024-01-01,9)`, `1,x,y`, `(1,x,2024-01-01)z`, `(x,y,)`, `(1,"x,)`, ``,
	}
	for _, in := range inputs {
		lit := "'" + strings.ReplaceAll(in, "'", "''") + "'"
		want := runFormat(ctx, t, pgc.PgConn(), "SELECT "+lit+"::weir_ab::text", 0)
		got := runFormat(ctx, t, wc, "SELECT CAST("+lit+" AS STRUCT<a: INT, b: STRING, c: TIMESTAMP_NTZ>)::text", 0)
		if want.err != nil || got.err != nil {
			if sqlstate(want.err) != sqlstate(got.err) {
				t.Errorf("%q\n  PostgreSQL: %v\n  weir:       %v", in, want.err, got.err)
			}
			continue
		}
		if string(want.values[0]) != string(got.values[0]) {
			t.Errorf("%q\n  PostgreSQL: %s\n  weir:       %s", in, want.values[0], got.values[0])
		}
	}
}

func sqlstate(err error) string {
	var pe *pgconn.PgError
	if errors.As(err, &pe) {
		return pe.Code
	}
	if err == nil {
		return ""
	}
	return err.Error()
}
