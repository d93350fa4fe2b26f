package engine_test

import (
	"context"
	"os"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/jackc/pgx/v5"
)

// TestREADMEQualityGate runs the SQL of the README's "Bronze → quality
// gate → Silver / quarantine" section as written, statement by statement,
// as psql -f would, and checks what each of its SELECTs shows and that
// the statement it says fails fails with its SQLSTATE: the README cannot
// drift from what weir does.
var readmeErrorCode = regexp.MustCompile(`-- ERROR:.*\(SQLSTATE ([0-9A-Z]{5})\)`)

func TestREADMEQualityGate(t *testing.T) {
	text, err := os.ReadFile("../README.md")
	if err != nil {
		t.Fatal(err)
	}
	stmts := readmeSQL(t, string(text), "### Bronze → quality gate → Silver / quarantine")
	want := map[string][]string{
		"SELECT * FROM silver ORDER BY event_time": {
			"1|10.00|view|2024-01-01 10:00:00+00", "NULL|5.00|buy|2024-01-01 10:01:00+00"},
		"SELECT event_id, amount, failed_expectations FROM silver_quarantine": {"3|-2.00|{pos_amount}"},
		"SELECT expectation, action, passed, failed FROM weir_catalog.expectations ORDER BY expectation": {
			"has_id|warn|2|1", "known_type|fail|3|0", "pos_amount|drop|2|1"},
		"SELECT status, last_error FROM weir_catalog.streaming_progress WHERE name = 'silver'": {
			"failed|[EXPECTATION_VIOLATION] streaming table 'silver' failed to meet the expectation. Violated expectations: 'known_type'. Input data: '{\"amount\": 1.00, \"event_id\": 4, \"event_time\": \"2024-01-01T10:03:00+00:00\", \"event_type\": \"click\"}'"},
	}
	srv := startServer(t, t.TempDir())
	c := srv.connect(t)
	sdExec(t, c, "weir", "SET TimeZone = 'UTC'")
	checked := 0
	for _, s := range stmts {
		key := strings.TrimSuffix(stripComments(s), ";")
		w, isSelect := want[key]
		if !isSelect {
			// A statement the README says fails ("-- ERROR: … (SQLSTATE
			// 23514)") must fail with that code; any other must succeed.
			_, err := c.Exec(context.Background(), s, pgx.QueryExecModeSimpleProtocol)
			if m := readmeErrorCode.FindStringSubmatch(s); m != nil {
				if pe := asPgError(err); pe == nil || pe.Code != m[1] {
					t.Errorf("README: %s\n should fail with %s, got %v", key, m[1], err)
				}
			} else if err != nil {
				t.Fatalf("README: %s: %v", key, err)
			}
			continue
		}
		// After the REFRESH before it, every SELECT shows its rows at once:
		// no waiting.
		checked++
		if got := textRowsOf(t, c, s); !slices.Equal(got, w) {
			t.Errorf("README: %s\n got %q\nwant %q", key, got, w)
		}
	}
	if checked != len(want) {
		t.Errorf("the README's section has %d of the %d SELECTs this test checks: update one or the other", checked, len(want))
	}
}

// readmeSQL returns the statements of the first sql block after heading.
func readmeSQL(t *testing.T, text, heading string) []string {
	t.Helper()
	i := strings.Index(text, heading)
	if i < 0 {
		t.Fatalf("README has no %q", heading)
	}
	rest := text[i:]
	start := strings.Index(rest, "```sql\n")
	if start < 0 {
		t.Fatalf("no sql block after %q", heading)
	}
	rest = rest[start+len("```sql\n"):]
	block := rest[:strings.Index(rest, "```")]
	var out []string
	var cur strings.Builder
	for _, line := range strings.Split(block, "\n") {
		cur.WriteString(line + "\n")
		if strings.HasSuffix(strings.TrimSpace(stripComments(line)), ";") {
			out = append(out, strings.TrimSpace(cur.String()))
			cur.Reset()
		}
	}
	return out
}

// stripComments drops -- comments (the README's SQL has no "--" in a
// string) and joins the lines.
func stripComments(s string) string {
	var parts []string
	for _, l := range strings.Split(s, "\n") {
		if i := strings.Index(l, "--"); i >= 0 {
			l = l[:i]
		}
		if l = strings.TrimSpace(l); l != "" {
			parts = append(parts, l)
		}
	}
	return strings.Join(parts, " ")
}

// textRowsOf runs sql and gives each row as its text values joined by |.
func textRowsOf(t *testing.T, c *pgx.Conn, sql string) []string {
	t.Helper()
	rows, err := c.Query(context.Background(), sql, pgx.QueryExecModeSimpleProtocol)
	if err != nil {
		t.Fatalf("%s: %v", sql, err)
	}
	defer rows.Close()
	var out []string
	for rows.Next() {
		var vals []string
		for _, v := range rows.RawValues() {
			if v == nil {
				vals = append(vals, "NULL")
			} else {
				vals = append(vals, string(v))
			}
		}
		out = append(out, strings.Join(vals, "|"))
	}
	if err := rows.Err(); err != nil {
		t.Fatalf("%s: %v", sql, err)
	}
	return out
}
