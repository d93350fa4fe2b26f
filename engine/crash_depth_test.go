package engine_test

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
)

// deepInputs builds statements that nest n levels deep in one way each.
var deepInputs = []struct {
	name string
	sql  func(n int) string
}{
	{"parentheses", func(n int) string { return "SELECT " + strings.Repeat("(", n) + "1" + strings.Repeat(")", n) }},
	{"plus chain", func(n int) string { return "SELECT " + strings.TrimSuffix(strings.Repeat("1+", n), "+") }},
	{"concat chain", func(n int) string { return "SELECT " + strings.TrimSuffix(strings.Repeat("'a'||", n), "||") }},
	{"unary minus", func(n int) string { return "SELECT " + strings.Repeat("- ", n) + "1" }},
	{"not", func(n int) string { return "SELECT " + strings.Repeat("NOT ", n) + "true" }},
	{"casts", func(n int) string { return "SELECT 1" + strings.Repeat("::int", n) }},
	{"function calls", func(n int) string { return "SELECT " + strings.Repeat("abs(", n) + "1" + strings.Repeat(")", n) }},
	{"coalesce", func(n int) string { return "SELECT " + strings.Repeat("coalesce(", n) + "1" + strings.Repeat(")", n) }},
	{"case", func(n int) string {
		return "SELECT " + strings.Repeat("CASE WHEN true THEN ", n) + "1" + strings.Repeat(" END", n)
	}},
	{"scalar subqueries", func(n int) string { return "SELECT " + strings.Repeat("(SELECT ", n) + "1" + strings.Repeat(")", n) }},
	{"exists", func(n int) string {
		return "SELECT " + strings.Repeat("EXISTS (SELECT ", n) + "1" + strings.Repeat(")", n)
	}},
	{"IN subqueries", func(n int) string {
		return strings.Repeat("SELECT 1 WHERE 1 IN (", n) + "SELECT 1" + strings.Repeat(")", n)
	}},
	{"derived tables", func(n int) string {
		return "SELECT * FROM " + strings.Repeat("(SELECT * FROM ", n) + "(SELECT 1) t0" + strings.Repeat(") t", n)
	}},
	{"array constructors", func(n int) string { return "SELECT " + strings.Repeat("ARRAY[", n) + "1" + strings.Repeat("]", n) }},
	{"union chain", func(n int) string { return strings.TrimSuffix(strings.Repeat("SELECT 1 UNION ", n), " UNION ") }},
	{"CTE chain", func(n int) string {
		var b strings.Builder
		b.WriteString("WITH c0 AS (SELECT 1 AS x)")
		for i := 1; i < n; i++ {
			fmt.Fprintf(&b, ", c%d AS (SELECT x FROM c%d)", i, i-1)
		}
		fmt.Fprintf(&b, " SELECT * FROM c%d", n-1)
		return b.String()
	}},
	{"nested WITH", func(n int) string {
		return strings.Repeat("WITH c AS (", n) + "SELECT 1" + strings.Repeat(") SELECT * FROM c", n)
	}},
	{"json literal", func(n int) string { return "SELECT '" + strings.Repeat("[", n) + strings.Repeat("]", n) + "'::jsonb" }},
	{"json object literal", func(n int) string {
		return "SELECT '" + strings.Repeat(`{"a":`, n) + "1" + strings.Repeat("}", n) + "'::json"
	}},
	{"json built at run time", func(n int) string {
		return fmt.Sprintf("SELECT (repeat('[', %d) || repeat(']', %d))::jsonb -> 0", n, n)
	}},
	{"json text at run time", func(n int) string {
		return fmt.Sprintf("SELECT json_typeof((repeat('{\"a\":', %d) || '1' || repeat('}', %d))::json)", n, n)
	}},
}

// TestDeepNestingIsBounded sends each deep input at depths PostgreSQL
// accepts and at 100,000 levels (and more for what the server builds
// itself). Shallow ones must answer; deep ones must fail with 54001
// (stack depth limit exceeded, PostgreSQL's answer) or another SQLSTATE
// PostgreSQL gives for them, and the server must go on serving, on the
// same connection and on a new one. A Go stack overflow would instead
// kill the test process.
func TestDeepNestingIsBounded(t *testing.T) {
	srv := startServer(t, t.TempDir())
	c := srv.connect(t)
	run := func(sql string) (string, error) {
		ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
		defer cancel()
		_, err := c.Exec(ctx, sql, pgx.QueryExecModeSimpleProtocol)
		var pe *pgconn.PgError
		if errors.As(err, &pe) {
			return pe.Code, nil
		}
		return "", err
	}
	alive := func(after string) {
		t.Helper()
		var one int
		if err := c.QueryRow(context.Background(), "SELECT 1").Scan(&one); err != nil {
			t.Fatalf("after %s the connection is gone: %v", after, err)
		}
		fresh := srv.connect(t)
		if err := fresh.QueryRow(context.Background(), "SELECT 1").Scan(&one); err != nil {
			t.Fatalf("after %s the server does not serve: %v", after, err)
		}
		fresh.Close(context.Background())
	}
	// Other answers PostgreSQL gives for some deep shapes: its grammar's
	// own stack ("memory exhausted", a syntax error) and its limit of six
	// array dimensions (weir: one dimension, 0A000).
	otherPostgresAnswer := map[string]string{"parentheses": "42601", "case": "42601", "array constructors": "0A000"}
	for _, in := range deepInputs {
		for _, n := range []int{50, 1000} {
			if in.name == "array constructors" || in.name == "CTE chain" && n > 100 {
				continue
			}
			code, err := run(in.sql(n))
			if err != nil || code != "" {
				t.Errorf("%s, %d deep: %v %s; PostgreSQL answers", in.name, n, err, code)
			}
		}
		for _, n := range []int{100_000, 1_000_000} {
			if n > 100_000 && !strings.Contains(in.name, "run time") {
				continue // the statement text itself would be tens of MB
			}
			start := time.Now()
			code, err := run(in.sql(n))
			t.Logf("%s, %d deep: %s in %v", in.name, n, code, time.Since(start))
			if err != nil {
				t.Fatalf("%s, %d deep: %v", in.name, n, err)
			}
			if code != "54001" && code != otherPostgresAnswer[in.name] {
				t.Errorf("%s, %d deep: SQLSTATE %q, want 54001", in.name, n, code)
			}
			alive(in.name)
		}
	}
}
