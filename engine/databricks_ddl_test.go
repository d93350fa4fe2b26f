package engine_test

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/jackc/pgx/v5/pgconn"
)

// Errors of Databricks' streaming-table DDL carry their SQLSTATE and point
// at the clause or column at fault; the notices say what is stored but not
// acted on.
func TestDatabricksDDLErrorsAndNotices(t *testing.T) {
	srv := startServer(t, t.TempDir())
	var notices []string
	cfg, err := pgconn.ParseConfig(srv.url())
	if err != nil {
		t.Fatal(err)
	}
	cfg.OnNotice = func(_ *pgconn.PgConn, n *pgconn.Notice) { notices = append(notices, n.Message) }
	ctx := context.Background()
	conn, err := pgconn.ConnectConfig(ctx, cfg)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close(ctx)
	exec := func(sql string) error {
		_, err := conn.Exec(ctx, sql).ReadAll()
		return err
	}
	if err := exec("CREATE TABLE raw (id int, ts timestamp, event text)"); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct{ sql, code, at string }{
		{"CREATE STREAMING TABLE bad (id bigint, event string) AS SELECT id, event FROM STREAM raw", "42804", "id bigint"},
		{"CREATE STREAMING TABLE bad (id int, missing string) AS SELECT id FROM STREAM raw", "42P10", "missing string"},
		{"CREATE STREAMING TABLE bad (id int) CLUSTER BY AUTO SCHEDULE CRON '0 0 0 * * * *' AS SELECT id FROM STREAM raw", "22023", "'0 0 0"},
		{"CREATE STREAMING TABLE bad (id int) TBLPROPERTIES ('a' = 'b') LOCATION '/x' AS SELECT id FROM STREAM raw", "0A000", "LOCATION"},
		{"CREATE STREAMING TABLE bad (id int, ssn string MASK m) AS SELECT id FROM STREAM raw", "42883", "m) AS"}, // the mask function must exist
		{"CREATE STREAMING TABLE bad (id int) REFRESH EVERY 1 HOUR AS SELECT id FROM STREAM raw", "42601", "REFRESH"},
		{"ALTER STREAMING TABLE raw ADD SCHEDULE EVERY 73 HOURS", "22023", "73"},
	} {
		err := exec(tc.sql)
		var pe *pgconn.PgError
		if !errors.As(err, &pe) {
			t.Fatalf("%s: %v, want %s", tc.sql, err, tc.code)
		}
		if want := int32(strings.Index(tc.sql, tc.at) + 1); pe.Code != tc.code || pe.Position != want {
			t.Errorf("%s: %s at %d (%s), want %s at %d", tc.sql, pe.Code, pe.Position, pe.Message, tc.code, want)
		}
	}
	notices = nil
	if err := exec("CREATE STREAMING TABLE kept (CONSTRAINT positive EXPECT (id > 0) ON VIOLATION DROP ROW) SCHEDULE EVERY 2 HOURS AS SELECT id FROM STREAM raw"); err != nil {
		t.Fatal(err)
	}
	// Expectations are enforced (expectations.go): no notice says otherwise.
	want := []string{"streaming table kept refreshes on schedule EVERY 2 HOURS"}
	if len(notices) != len(want) {
		t.Fatalf("notices %q, want %q", notices, want)
	}
	for i := range want {
		if !strings.HasPrefix(notices[i], want[i]) {
			t.Errorf("notice %q, want it to start %q", notices[i], want[i])
		}
	}
}
