package engine_test

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
)

// TestRefreshFullWaitsAndReports: REFRESH … FULL returns once the table
// is recomputed (a query right after it sees the whole result, no
// polling), and reports it with NOTICE messages.
func TestRefreshFullWaitsAndReports(t *testing.T) {
	srv := startServer(t, t.TempDir())
	ctx := context.Background()
	var notices []string
	cfg, err := pgx.ParseConfig(srv.url())
	if err != nil {
		t.Fatal(err)
	}
	cfg.OnNotice = func(_ *pgconn.PgConn, n *pgconn.Notice) { notices = append(notices, n.Severity+": "+n.Message) }
	c, err := pgx.ConnectConfig(ctx, cfg)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close(ctx)
	for _, q := range []string{
		"CREATE TABLE ev (k int, v int)",
		"INSERT INTO ev SELECT g % 100, g FROM generate_series(1, 50000) g",
		"INSERT INTO ev SELECT g % 100, g FROM generate_series(1, 50000) g",
		"CREATE STREAMING TABLE st AS SELECT k, count(*) AS n, sum(v) AS s FROM ev GROUP BY k",
	} {
		if _, err := c.Exec(ctx, q); err != nil {
			t.Fatalf("%s: %v", q, err)
		}
	}
	waitConsumed(t, c, []string{"st"}, 100000, 10*time.Second)
	notices = nil
	if _, err := c.Exec(ctx, "REFRESH STREAMING TABLE st FULL"); err != nil {
		t.Fatal(err)
	}
	var groups, rows int64
	if err := c.QueryRow(ctx, "SELECT count(*), sum(n) FROM st").Scan(&groups, &rows); err != nil {
		t.Fatal(err)
	}
	if groups != 100 || rows != 100000 {
		t.Fatalf("right after REFRESH FULL: %d groups, %d rows; want 100 and 100000", groups, rows)
	}
	all := strings.Join(notices, "\n")
	if !strings.Contains(all, "recomputing streaming table st from its retained input") ||
		!strings.Contains(all, "streaming table st recomputed: 100000 input rows") {
		t.Fatalf("REFRESH FULL notices:\n%s", all)
	}
}
