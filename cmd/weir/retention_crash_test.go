package main

import (
	"context"
	"fmt"
	"math/rand/v2"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/weir-sql/weir/internal/pgtest"
)

// TestRetentionSurvivesKill feeds an input table created WITH (retention =
// '1 second') that the crash test's append-mode streaming tables read
// (tumbling and session windows; an update-mode table re-reads its whole
// input on restart, so it keeps all of it). In each round it waits
// until retention has deleted old input, kills the server with SIGKILL,
// restarts it and compares every streaming table with PostgreSQL's batch
// result over every row the test ever wrote: retention may only delete
// input that no restart re-reads, so nothing may be missing.
func TestRetentionSurvivesKill(t *testing.T) {
	ctx := context.Background()
	dir := filepath.Join(t.TempDir(), "data")
	port := freePort(t)
	srv, _ := startCrashServer(t, dir, port, nil)
	t.Cleanup(func() { srv.kill() })
	conn, err := pgx.Connect(ctx, srv.url())
	if err != nil {
		t.Fatal(err)
	}
	const ddl = "CREATE TABLE ev (chunk int, id bigint, region text, amount numeric(12,2), ts timestamptz)"
	if _, err := conn.Exec(ctx, ddl+" WITH (retention = '1 second')"); err != nil {
		t.Fatal(err)
	}
	var tables []string
	oracle := map[string]string{}
	for _, ct := range crashTables {
		if !strings.HasSuffix(ct.name, "_append") {
			continue
		}
		tables = append(tables, ct.name)
		oracle[ct.name] = ct.oracle
		if _, err := conn.Exec(ctx, ct.ddl); err != nil {
			t.Fatalf("%s: %v", ct.name, err)
		}
	}
	conn.Close(ctx)
	pg, err := pgx.Connect(ctx, pgtest.Shared(t).FreshDatabase(t))
	if err != nil {
		t.Fatal(err)
	}
	defer pg.Close(ctx)
	if _, err := pg.Exec(ctx, "SET TimeZone = 'UTC'; "+ddl); err != nil {
		t.Fatal(err)
	}

	r := rand.New(rand.NewPCG(1, 2))
	clock := time.Date(2024, 1, 1, 10, 0, 0, 0, time.UTC)
	var id int64
	written := 0
	for round := 1; round <= 4; round++ {
		conn, err := pgx.Connect(ctx, srv.url())
		if err != nil {
			t.Fatal(err)
		}
		// Ten chunks of about 2.5 minutes of event time each, out of
		// order by less than the watermark delay.
		for chunk := 0; chunk < 10; chunk++ {
			rows := make([][]any, 100)
			for i := range rows {
				clock = clock.Add(time.Duration(r.IntN(3000)) * time.Millisecond)
				ts := clock.Add(-time.Duration(r.IntN(90_000)) * time.Millisecond)
				id++
				rows[i] = []any{int32(round*100 + chunk), id, fmt.Sprintf("r%d", r.IntN(4)), fmt.Sprintf("%d.%02d", r.IntN(500), r.IntN(100)), ts}
			}
			cols := []string{"chunk", "id", "region", "amount", "ts"}
			if _, err := conn.CopyFrom(ctx, pgx.Identifier{"ev"}, cols, pgx.CopyFromRows(rows)); err != nil {
				t.Fatalf("round %d: COPY: %v", round, err)
			}
			if _, err := pg.CopyFrom(ctx, pgx.Identifier{"ev"}, cols, pgx.CopyFromRows(rows)); err != nil {
				t.Fatal(err)
			}
			written += len(rows)
			// A pause in event time between chunks lets sessions close,
			// so the input behind them can go.
			clock = clock.Add(10 * time.Minute)
		}
		waitFor(t, conn, fmt.Sprintf("round %d: streaming tables consume %d rows", round, written),
			"SELECT count(*) = 0 FROM weir_catalog.streaming_progress WHERE input_rows <> $1 OR backlog_rows <> 0 OR status <> 'running'", int64(written))
		// Every chunk but the last is behind closed windows and sessions.
		waitFor(t, conn, fmt.Sprintf("round %d: retention deletes old input", round),
			"SELECT count(*) <= 100 FROM ev")
		conn.Close(ctx)

		srv.kill()
		srv, _ = startCrashServer(t, dir, port, nil)
		conn, err = pgx.Connect(ctx, srv.url())
		if err != nil {
			t.Fatal(err)
		}
		waitFor(t, conn, fmt.Sprintf("round %d: streaming tables recover", round),
			"SELECT count(*) = 0 FROM weir_catalog.streaming_progress WHERE input_rows <> $1 OR backlog_rows <> 0 OR status <> 'running'", int64(written))
		for _, name := range tables {
			got := textRows(t, ctx, conn, "SELECT * FROM "+name)
			want := textRows(t, ctx, pg, oracle[name])
			missing, extra := diffRows(want, got)
			if len(missing)+len(extra) > 0 {
				t.Fatalf("round %d: %s differs from PostgreSQL over all %d rows written: %d missing, %d extra\nmissing: %v\nextra: %v",
					round, name, written, len(missing), len(extra), head(missing), head(extra))
			}
		}
		var kept int64
		if err := conn.QueryRow(ctx, "SELECT count(*) FROM ev").Scan(&kept); err != nil {
			t.Fatal(err)
		}
		t.Logf("round %d: %d rows written, %d still in the input, every streaming table equal to PostgreSQL's", round, written, kept)
		conn.Close(ctx)
	}
}

// waitFor polls a boolean query until it is true, failing after 30 s.
func waitFor(t *testing.T, conn *pgx.Conn, what, sql string, args ...any) {
	t.Helper()
	deadline := time.Now().Add(30 * time.Second)
	for {
		var ok bool
		ctx, cancel := context.WithDeadline(context.Background(), deadline)
		err := conn.QueryRow(ctx, sql, args...).Scan(&ok)
		cancel()
		if err != nil {
			t.Fatalf("%s: %v", what, err)
		}
		if ok {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("%s: not within 30s", what)
		}
		time.Sleep(20 * time.Millisecond) // polling interval, with a deadline
	}
}
