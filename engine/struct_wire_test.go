package engine_test

import (
	"bytes"
	"context"
	"testing"
	"time"

	"github.com/jackc/pgx/v5/pgconn"

	"github.com/weir-sql/weir/internal/pgtest"
)

// TestStructWireFormsMatchPostgres checks that a struct value reaches the
// client as PostgreSQL's anonymous record does: the same column type
// (record, typmod -1), record_out's text and record_send's binary bytes,
// for the ROW(...) expressions PostgreSQL itself evaluates.
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
				if !bytes.Equal(want.values[i], got.values[i]) || (want.values[i] == nil) != (got.values[i] == nil) {
					t.Errorf("%s column %d (format %d):\n  PostgreSQL: %q\n  weir:       %q", q, i, format, want.values[i], got.values[i])
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
