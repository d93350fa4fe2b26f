package engine_test

// TestExplainGolden compares EXPLAIN CREATE STREAMING TABLE and EXPLAIN
// STREAMING TABLE output with golden files in testdata/explain, and checks
// that every plan states the seven answers a streaming design owes.
//
//	go test ./engine -run TestExplainGolden -update-golden   # rewrite the golden files

import (
	"context"
	"errors"
	"flag"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
)

var updateGolden = flag.Bool("update-golden", false, "TestExplainGolden: rewrite testdata/explain/*.txt from weir's output")

// sevenAnswers are the line prefixes every streaming EXPLAIN must have.
var sevenAnswers = []string{
	"Where progress is stored",
	"What a crash does",
	"How much state",
	"Late data",
	"Delivery guarantee",
	"Latency target",
	"Cost",
}

func explainLines(t *testing.T, c *pgx.Conn, sql string) []string {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	rows, err := c.Query(ctx, sql, pgx.QueryExecModeSimpleProtocol)
	if err != nil {
		t.Fatalf("%s: %v", sql, err)
	}
	defer rows.Close()
	if fd := rows.FieldDescriptions(); len(fd) != 1 || fd[0].Name != "QUERY PLAN" {
		t.Errorf("%s: columns %v, want one column \"QUERY PLAN\"", sql, fd)
	}
	var out []string
	for rows.Next() {
		var l string
		if err := rows.Scan(&l); err != nil {
			t.Fatal(err)
		}
		out = append(out, l)
	}
	if err := rows.Err(); err != nil {
		t.Fatalf("%s: %v", sql, err)
	}
	return out
}

func checkGolden(t *testing.T, name string, lines []string) {
	t.Helper()
	path := filepath.Join("..", "testdata", "explain", name+".txt")
	got := strings.Join(lines, "\n") + "\n"
	if *updateGolden {
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, []byte(got), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run with -update-golden to create it)", err)
	}
	if got != string(want) {
		d, _ := diffLines(strings.Split(strings.TrimSuffix(string(want), "\n"), "\n"), lines)
		t.Errorf("%s differs from %s (- golden, + weir; rerun with -update-golden if the change is intended):%s", name, path, d)
	}
}

// diffLines is a small LCS line diff.
func diffLines(a, b []string) (string, int) {
	n, m := len(a), len(b)
	lcs := make([][]int, n+1)
	for i := range lcs {
		lcs[i] = make([]int, m+1)
	}
	for i := n - 1; i >= 0; i-- {
		for j := m - 1; j >= 0; j-- {
			if a[i] == b[j] {
				lcs[i][j] = lcs[i+1][j+1] + 1
			} else {
				lcs[i][j] = max(lcs[i+1][j], lcs[i][j+1])
			}
		}
	}
	var sb strings.Builder
	changes := 0
	i, j := 0, 0
	for i < n || j < m {
		switch {
		case i < n && j < m && a[i] == b[j]:
			sb.WriteString("\n    " + a[i])
			i++
			j++
		case j < m && (i == n || lcs[i][j+1] >= lcs[i+1][j]):
			sb.WriteString("\n  + " + b[j])
			j++
			changes++
		default:
			sb.WriteString("\n  - " + a[i])
			i++
			changes++
		}
	}
	return sb.String(), changes
}

func checkSevenAnswers(t *testing.T, name string, lines []string) {
	t.Helper()
	for _, p := range sevenAnswers {
		n := 0
		for _, l := range lines {
			if strings.HasPrefix(l, p) {
				n++
				if len(strings.TrimSpace(strings.TrimPrefix(strings.TrimPrefix(l, p), ":"))) == 0 {
					t.Errorf("%s: %q has no answer", name, l)
				}
			}
		}
		if n != 1 {
			t.Errorf("%s: %d lines start with %q, want exactly 1", name, n, p)
		}
	}
}

func lineWithPrefix(lines []string, p string) string {
	for _, l := range lines {
		if strings.HasPrefix(l, p) {
			return l
		}
	}
	return ""
}

func TestExplainGolden(t *testing.T) {
	srv := startServer(t, t.TempDir())
	c := srv.connect(t)
	for _, s := range []string{
		"SET TimeZone = 'UTC'",
		"CREATE TABLE orders (order_id bigint, region text, amount numeric(18,2), event_time timestamptz)",
	} {
		if _, err := c.Exec(context.Background(), s); err != nil {
			t.Fatalf("%s: %v", s, err)
		}
	}
	cases := []struct {
		golden string
		create string
		check  func(t *testing.T, lines []string)
	}{
		{
			golden: "tumbling_append",
			create: "CREATE STREAMING TABLE orders_5m AS SELECT region, window_start, window_end, count(*) AS n, sum(amount) AS total FROM STREAM orders WATERMARK event_time DELAY OF INTERVAL 10 MINUTES WINDOW TUMBLING (SIZE INTERVAL 5 MINUTES) GROUP BY region, window_start, window_end",
			check: func(t *testing.T, lines []string) {
				wantContains(t, lines, "output mode: append", "Windowed Aggregate", "Window: tumbling", "Watermark: max(event_time)")
				if l := lineWithPrefix(lines, "Late data"); strings.Contains(l, "no row is late") {
					t.Errorf("tumbling_append: a watermarked window aggregate must drop late rows: %q", l)
				}
			},
		},
		{
			golden: "hopping_append",
			create: "CREATE STREAMING TABLE orders_hop AS SELECT window_start, window_end, count(*) AS n FROM HOP(orders, event_time, INTERVAL '5 minutes', INTERVAL '10 minutes') WATERMARK event_time DELAY OF INTERVAL '1 minute' GROUP BY window_start, window_end",
			check: func(t *testing.T, lines []string) {
				wantContains(t, lines, "output mode: append", "Window: hopping")
			},
		},
		{
			golden: "update_unbounded",
			create: "CREATE STREAMING TABLE orders_by_region AS SELECT region, count(*) AS n, max(amount) AS biggest FROM orders GROUP BY region",
			check: func(t *testing.T, lines []string) {
				wantContains(t, lines, "output mode: update", "Watermark: none")
				if l := lineWithPrefix(lines, "How much state"); !strings.Contains(l, "unbounded") {
					t.Errorf("update_unbounded: state must be called unbounded: %q", l)
				}
				if l := lineWithPrefix(lines, "What a crash does"); !strings.Contains(l, "restores its latest state snapshot") {
					t.Errorf("update_unbounded: count and max snapshot their state: %q", l)
				}
			},
		},
		{
			golden: "no_snapshot",
			create: "CREATE STREAMING TABLE orders_distinct AS SELECT region, count(DISTINCT order_id) AS n FROM orders GROUP BY region",
			check: func(t *testing.T, lines []string) {
				if l := lineWithPrefix(lines, "What a crash does"); !strings.Contains(l, "no state snapshot") || !strings.Contains(l, "re-runs every logged epoch") {
					t.Errorf("no_snapshot: a DISTINCT aggregate must say it recovers by re-running every epoch: %q", l)
				}
				if l := lineWithPrefix(lines, "Where progress is stored"); strings.Contains(l, "snapshot") {
					t.Errorf("no_snapshot: %q promises a snapshot", l)
				}
			},
		},
		{
			golden: "expectations",
			create: "CREATE STREAMING TABLE checked_orders (CONSTRAINT has_region EXPECT (region IS NOT NULL), CONSTRAINT positive EXPECT (amount > 0) ON VIOLATION DROP ROW, CONSTRAINT sane EXPECT (amount < 1000000) ON VIOLATION FAIL UPDATE) WITH (quarantine = rejected_orders) AS SELECT order_id, region, amount FROM STREAM orders",
			check: func(t *testing.T, lines []string) {
				wantContains(t, lines, "has_region EXPECT (region IS NOT NULL): warn", "positive EXPECT (amount > 0): ON VIOLATION DROP ROW: dropped, counted, written to rejected_orders",
					"sane EXPECT (amount < 1000000): ON VIOLATION FAIL UPDATE")
			},
		},
		{
			golden: "stateless",
			create: "CREATE STREAMING TABLE big_orders AS SELECT order_id, amount FROM STREAM orders WHERE amount >= 100",
			check: func(t *testing.T, lines []string) {
				if l := lineWithPrefix(lines, "How much state"); !strings.Contains(l, "none") {
					t.Errorf("stateless: %q, want no state", l)
				}
			},
		},
	}
	for _, tc := range cases {
		t.Run(tc.golden, func(t *testing.T) {
			lines := explainLines(t, c, "EXPLAIN "+tc.create)
			checkGolden(t, tc.golden, lines)
			checkSevenAnswers(t, tc.golden, lines)
			tc.check(t, lines)

			// EXPLAIN creates nothing.
			name := strings.Fields(tc.create)[3]
			if _, err := c.Exec(context.Background(), "SELECT * FROM "+name); err == nil {
				t.Errorf("EXPLAIN CREATE created %s", name)
			}

			// The CREATE itself: its warnings (unbounded state) must be
			// shown by EXPLAIN too (dialect.md: "EXPLAIN shows it").
			var warnings []string
			cfg, err := pgx.ParseConfig(srv.url())
			if err != nil {
				t.Fatal(err)
			}
			cfg.OnNotice = func(_ *pgconn.PgConn, n *pgconn.Notice) {
				if n.Severity == "WARNING" {
					warnings = append(warnings, n.Message)
				}
			}
			wc, err := pgx.ConnectConfig(context.Background(), cfg)
			if err != nil {
				t.Fatal(err)
			}
			defer wc.Close(context.Background())
			if _, err := wc.Exec(context.Background(), tc.create); err != nil {
				t.Fatalf("%s: %v", tc.create, err)
			}
			unbounded := tc.golden == "update_unbounded" || tc.golden == "no_snapshot"
			if unbounded && len(warnings) == 0 {
				t.Errorf("CREATE of an unbounded aggregate sent no WARNING")
			}
			if !unbounded && len(warnings) > 0 {
				t.Errorf("CREATE sent unexpected warnings %q", warnings)
			}
			all := strings.Join(lines, "\n")
			for _, w := range warnings {
				if !strings.Contains(all, w) {
					t.Errorf("EXPLAIN does not show the CREATE warning %q", w)
				}
			}

			// EXPLAIN STREAMING TABLE of the created table: the same plan.
			got := explainLines(t, c, "EXPLAIN STREAMING TABLE "+name)
			checkGolden(t, tc.golden+".table", got)
			checkSevenAnswers(t, tc.golden+".table", got)
			if d, n := diffLines(lines, got); n > 0 {
				t.Errorf("EXPLAIN STREAMING TABLE %s differs from EXPLAIN CREATE (- create, + table):%s", name, d)
			}
		})
	}

	// EXPLAIN STREAMING TABLE of something that is not one.
	_, err := c.Exec(context.Background(), "EXPLAIN STREAMING TABLE orders")
	var pe *pgconn.PgError
	if !errors.As(err, &pe) || pe.Code != "42809" {
		t.Errorf("EXPLAIN STREAMING TABLE orders (a plain table): %v, want SQLSTATE 42809", err)
	}
	_, err = c.Exec(context.Background(), "EXPLAIN STREAMING TABLE no_such_table")
	if !errors.As(err, &pe) || pe.Code != "42P01" {
		t.Errorf("EXPLAIN STREAMING TABLE no_such_table: %v, want SQLSTATE 42P01", err)
	}
}

func wantContains(t *testing.T, lines []string, subs ...string) {
	t.Helper()
	all := strings.Join(lines, "\n")
	for _, s := range subs {
		if !strings.Contains(all, s) {
			t.Errorf("EXPLAIN output lacks %q", s)
		}
	}
}
