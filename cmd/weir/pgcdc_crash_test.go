package main

import (
	"context"
	"fmt"
	"path/filepath"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/weir-sql/weir/internal/pgtest"
)

// TestPgCDCKillAndPostgresRestart streams a PostgreSQL table into weir
// (the real binary) through a postgres-cdc source while changes keep
// coming, kills weir with SIGKILL mid-stream and restarts it, then
// restarts PostgreSQL the way a crash does (pg_ctl restart -m immediate)
// mid-stream: weir reconnects with backoff and says so in the event log.
// At the end the change rows weir's streaming table holds, applied by
// key, equal PostgreSQL's table, and no change is there twice.
func TestPgCDCKillAndPostgresRestart(t *testing.T) {
	pg, err := pgtest.StartWith(pgtest.Options{Logical: true})
	if err != nil {
		t.Fatal(err)
	}
	defer pg.Stop()
	ctx := context.Background()
	src := func() *pgx.Conn {
		c, err := pgx.Connect(ctx, pg.URL())
		if err != nil {
			t.Fatal(err)
		}
		return c
	}
	p := src()
	run := func(c *pgx.Conn, qs ...string) {
		t.Helper()
		for _, q := range qs {
			if _, err := c.Exec(ctx, q); err != nil {
				t.Fatalf("%s: %v", q, err)
			}
		}
	}
	run(p, `CREATE TABLE accounts (id bigint PRIMARY KEY, owner text, balance numeric(14,2))`,
		`INSERT INTO accounts SELECT g, 'owner ' || g, g FROM generate_series(1, 1000) g`)
	round := 0
	changes := func(c *pgx.Conn) {
		t.Helper()
		base := 10000 * (round + 1)
		run(c, fmt.Sprintf(`INSERT INTO accounts SELECT g, 'late ' || g, 0 FROM generate_series(%d, %d) g`, base, base+199),
			fmt.Sprintf(`UPDATE accounts SET balance = balance + 1 WHERE id %% 4 = %d`, round%4),
			fmt.Sprintf(`UPDATE accounts SET id = id + 1000000 WHERE id BETWEEN %d AND %d`, base, base+9),
			fmt.Sprintf(`DELETE FROM accounts WHERE id %% 13 = %d`, round%13))
		for i := 0; i < 20; i++ {
			run(c, fmt.Sprintf(`UPDATE accounts SET owner = owner || '.' WHERE id = %d`, base+20+i))
		}
		round++
	}

	dir := filepath.Join(t.TempDir(), "data")
	port := freePort(t)
	srv, _ := startCrashServer(t, dir, port, nil)
	defer func() { srv.kill() }()
	w, err := pgx.Connect(ctx, srv.url())
	if err != nil {
		t.Fatal(err)
	}
	run(w, fmt.Sprintf(`CREATE SOURCE acc WITH (connector = 'postgres-cdc', hostname = '127.0.0.1', port = %d,
		username = 'postgres', database.name = 'postgres', table.name = 'accounts', slot.name = 'weir_acc')`, pg.Port),
		`CREATE STREAMING TABLE acc_changes AS SELECT * FROM STREAM acc`)
	changes(p)
	waitFor(t, w, "the snapshot and the first changes", "SELECT count(*) > 1000 FROM acc_changes")

	// Kill weir while changes are on their way.
	changes(p)
	srv.kill()
	changes(p) // while weir is down
	w.Close(ctx)
	srv, _ = startCrashServer(t, dir, port, nil)
	w, err = pgx.Connect(ctx, srv.url())
	if err != nil {
		t.Fatal(err)
	}
	defer w.Close(ctx)
	changes(p)

	// PostgreSQL crashes and comes back mid-stream.
	changes(p)
	p.Close(ctx)
	if err := pg.Restart(); err != nil {
		t.Fatal(err)
	}
	p = src()
	defer p.Close(ctx)
	changes(p)
	waitFor(t, w, "the reconnection event", `SELECT count(*) > 0 FROM weir_catalog.event_log
		WHERE event_type = 'cdc' AND message LIKE '%lost its replication connection%'`)
	changes(p)

	want := pgAccounts(t, p, `SELECT id::text || '|' || owner || '|' || balance::text FROM accounts`)
	waitUntilEqual(t, "acc_changes applied to equal the source table", want, func() []string {
		return applyChanges(t, w)
	})
	var dups int64
	if err := w.QueryRow(ctx, `SELECT count(*) FROM (SELECT _lsn, id FROM acc_changes GROUP BY _lsn, id HAVING count(*) > 1) d`).Scan(&dups); err != nil {
		t.Fatal(err)
	}
	if dups != 0 {
		t.Fatalf("%d changes are in weir twice", dups)
	}
}

func pgAccounts(t *testing.T, c *pgx.Conn, q string) []string {
	rows, err := c.Query(context.Background(), q)
	if err != nil {
		t.Fatal(err)
	}
	out, err := pgx.CollectRows(rows, pgx.RowTo[string])
	if err != nil {
		t.Fatal(err)
	}
	sort.Strings(out)
	return out
}

// applyChanges is the table acc_changes describes, applied in LSN order
// by key (nil when it cannot be read now).
func applyChanges(t *testing.T, w *pgx.Conn) []string {
	rows, err := w.Query(context.Background(), `SELECT id::text, id::text || '|' || owner || '|' || balance::text, _op FROM acc_changes ORDER BY _lsn`)
	if err != nil {
		return nil
	}
	defer rows.Close()
	state := map[string]string{}
	for rows.Next() {
		var key, op string
		var row *string
		if err := rows.Scan(&key, &row, &op); err != nil {
			return nil
		}
		if op == "d" {
			delete(state, key)
		} else if row != nil {
			state[key] = *row
		}
	}
	out := make([]string, 0, len(state))
	for _, v := range state {
		out = append(out, v)
	}
	sort.Strings(out)
	return out
}

func waitUntilEqual(t *testing.T, what string, want []string, got func() []string) {
	t.Helper()
	w := strings.Join(want, "\n")
	deadline := time.Now().Add(60 * time.Second)
	for {
		g := got()
		if strings.Join(g, "\n") == w {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("timed out waiting for %s: weir %d rows, PostgreSQL %d", what, len(g), len(want))
		}
		time.Sleep(20 * time.Millisecond) // polling a condition, with a deadline
	}
}
