package engine_test

import (
	"bytes"
	"context"
	"errors"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"

	"github.com/weir-sql/weir/internal/pgtest"
)

// textRows runs sql over the simple protocol and returns its rows as
// text, tab-separated (the COPY text form: the generated values hold no
// tabs, newlines or backslashes).
func textRows(t testing.TB, c *pgx.Conn, sql string) []string {
	t.Helper()
	res, err := c.PgConn().Exec(context.Background(), sql).ReadAll()
	if err != nil {
		t.Fatalf("%s: %v", sql, err)
	}
	var out []string
	for _, r := range res {
		for _, row := range r.Rows {
			vals := make([]string, len(row))
			for i, v := range row {
				if v == nil {
					vals[i] = `\N`
				} else {
					vals[i] = string(v)
				}
			}
			out = append(out, strings.Join(vals, "\t"))
		}
	}
	return out
}

// TestNexmarkTableFunction: nexmark() in FROM gives the benchmark's
// proportions (1:3:46 of max_events), the same rows every time, and the
// same answers to Nexmark's q0–q3 as PostgreSQL gives over the generated
// rows copied into it.
func TestNexmarkTableFunction(t *testing.T) {
	srv := startServer(t, t.TempDir())
	w := srv.connect(t)
	ctx := context.Background()

	// 100000 events: 2000 epochs of 1 person, 3 auctions and 46 bids.
	for table, want := range map[string]string{"person": "2000", "auction": "6000", "bid": "92000"} {
		got := textRows(t, w, "SELECT count(*) FROM nexmark('"+table+"', max_events => 100000)")
		if len(got) != 1 || got[0] != want {
			t.Errorf("%s of 100000 events: %v rows, want %s", table, got, want)
		}
	}
	facts := "SELECT count(*), min(price), max(price), sum(price), count(DISTINCT auction), min(date_time), max(date_time) FROM nexmark('bid', max_events => 100000, seed => 3)"
	first := textRows(t, w, facts)
	if again := textRows(t, w, facts); strings.Join(again, "|") != strings.Join(first, "|") {
		t.Errorf("nexmark is not deterministic: %v then %v", first, again)
	}
	if other := textRows(t, w, strings.Replace(facts, "seed => 3", "seed => 4", 1)); strings.Join(other, "|") == strings.Join(first, "|") {
		t.Errorf("seeds 3 and 4 gave the same facts %v", first)
	}
	t.Logf("bid facts: %v", first)

	// The rows into PostgreSQL, by COPY.
	pg := pgtest.Shared(t).Connect(t)
	const opts = ", max_events => 50000, seed => 11, events_per_second => 1000, disorder => '2 seconds'"
	tables := map[string]string{
		"person":  "id bigint, name text, email_address text, credit_card text, city text, state text, date_time timestamp, extra text",
		"auction": "id bigint, item_name text, description text, initial_bid bigint, reserve bigint, date_time timestamp, expires timestamp, seller bigint, category bigint, extra text",
		"bid":     "auction bigint, bidder bigint, price bigint, channel text, url text, date_time timestamp, extra text",
	}
	for table, cols := range tables {
		if _, err := pg.Exec(ctx, "DROP TABLE IF EXISTS nx_"+table); err != nil {
			t.Fatal(err)
		}
		if _, err := pg.Exec(ctx, "CREATE TABLE nx_"+table+" ("+cols+")"); err != nil {
			t.Fatal(err)
		}
		rows := textRows(t, w, "SELECT * FROM nexmark('"+table+"'"+opts+")")
		data := strings.Join(rows, "\n") + "\n"
		if _, err := pg.PgConn().CopyFrom(ctx, bytes.NewBufferString(data), "COPY nx_"+table+" FROM STDIN"); err != nil {
			t.Fatalf("COPY %s into PostgreSQL: %v", table, err)
		}
		// Column types as PostgreSQL describes them.
		wt := textRows(t, w, "SELECT pg_typeof(date_time)::text FROM nexmark('"+table+"'"+opts+") LIMIT 1")
		if len(wt) != 1 || wt[0] != "timestamp without time zone" {
			t.Errorf("%s.date_time is %v", table, wt)
		}
	}
	t.Cleanup(func() {
		for table := range tables {
			pg.Exec(context.Background(), "DROP TABLE IF EXISTS nx_"+table)
		}
	})
	queries := []string{
		// q0: pass-through
		"SELECT count(*), sum(price), sum(auction), sum(bidder) FROM %bid",
		"SELECT auction, bidder, price, date_time FROM %bid",
		// q1: currency conversion
		"SELECT auction, bidder, price * 0.908 AS price, date_time FROM %bid",
		// q2: selection
		"SELECT auction, price FROM %bid WHERE auction % 123 = 0",
		// q3: local item suggestion (a join of people and auctions)
		"SELECT p.name, p.city, p.state, a.id FROM %auction a JOIN %person p ON a.seller = p.id WHERE a.category = 10 AND p.state IN ('OR', 'ID', 'CA')",
		// shape facts over the other columns
		"SELECT channel, count(*), min(length(url)), max(date_time) - min(date_time) FROM %bid GROUP BY channel",
		"SELECT category, count(*), sum(reserve - initial_bid), min(expires - date_time) > interval '0' FROM %auction GROUP BY category",
		"SELECT state, count(DISTINCT city), count(*), min(credit_card), max(email_address) FROM %person GROUP BY state",
	}
	for _, q := range queries {
		wq, pq := q, q
		for table := range tables {
			wq = strings.ReplaceAll(wq, "%"+table, "nexmark('"+table+"'"+opts+")")
			pq = strings.ReplaceAll(pq, "%"+table, "nx_"+table)
		}
		got, want := textRows(t, w, wq), textRows(t, pg, pq)
		sort.Strings(got)
		sort.Strings(want)
		if len(got) != len(want) {
			t.Errorf("%s: weir %d rows, PostgreSQL %d", q, len(got), len(want))
			continue
		}
		if len(got) == 0 {
			t.Errorf("%s: no rows", q)
		}
		for i := range got {
			if got[i] != want[i] {
				t.Errorf("%s: row %d weir %q, PostgreSQL %q", q, i, got[i], want[i])
				break
			}
		}
	}
}

// TestNexmarkTableFunctionErrors: bad arguments are 22023 naming what is
// wrong.
func TestNexmarkTableFunctionErrors(t *testing.T) {
	srv := startServer(t, t.TempDir())
	w := srv.connect(t)
	for _, tc := range []struct{ sql, mention string }{
		{"SELECT * FROM nexmark('bids', max_events => 10)", "table"},
		{"SELECT * FROM nexmark('bid', max_evnts => 10)", "max_evnts"},
		{"SELECT * FROM nexmark('bid')", "max_events"},
		{"SELECT * FROM nexmark('bid', max_events => 'ten')", "max_events"},
		{"SELECT * FROM nexmark('bid', max_events => -5)", "max_events"},
		{"SELECT * FROM nexmark('bid', max_events => 10, events_per_second => 0)", "events_per_second"},
		{"SELECT * FROM nexmark('bid', max_events => 10, late_fraction => 2)", "late_fraction"},
		{"SELECT * FROM nexmark('bid', max_events => 10, disorder => 'soon')", "disorder"},
		{"SELECT * FROM nexmark(max_events => 10)", "table"},
		{"SELECT * FROM nexmark('bid', 10)", "named"},
		{"SELECT * FROM nexmark('bid', max_events => 9000000000000000000, events_per_second => 1)", "max_events"},
	} {
		_, err := w.Exec(context.Background(), tc.sql)
		var pe *pgconn.PgError
		if !errors.As(err, &pe) || pe.Code != "22023" || !strings.Contains(pe.Message, tc.mention) {
			t.Errorf("%s: %v, want 22023 mentioning %s", tc.sql, err, tc.mention)
		}
	}
	// A scan stops with its consumer: the first rows of a trillion events
	// come at once.
	if got := textRows(t, w, "SELECT auction FROM nexmark('bid', max_events => 1000000000000) LIMIT 3"); len(got) != 3 {
		t.Errorf("LIMIT 3 of a trillion events: %v", got)
	}
	if got := textRows(t, w, "SELECT ordinality, auction > 0 FROM nexmark('bid', max_events => 100) WITH ORDINALITY ORDER BY 1 DESC LIMIT 1"); len(got) != 1 || got[0] != "92\tt" {
		t.Errorf("WITH ORDINALITY: %q", got)
	}
	// The session goes on.
	if got := textRows(t, w, "SELECT count(*) FROM nexmark('person', max_events => 500)"); len(got) != 1 || got[0] != "10" {
		t.Errorf("after the errors: %v", got)
	}
}

// BenchmarkNexmarkCount times SELECT count(*) FROM nexmark('bid',
// max_events => 10000000) on weir (in process, over loopback TCP) next to
// PostgreSQL's SELECT count(*) FROM generate_series(1, 9200000) — the same
// 9.2M rows (the bids of 10M events) produced and counted by its own
// fastest row source — in the same run, interleaved.
func BenchmarkNexmarkCount(b *testing.B) {
	srv := startServer(b, b.TempDir())
	w := srv.connect(b)
	pg := pgtest.Shared(b).Connect(b)
	ctx := context.Background()
	run := func(c *pgx.Conn, sql string) float64 {
		start := time.Now()
		var n int64
		if err := c.QueryRow(ctx, sql).Scan(&n); err != nil || n != 9_200_000 {
			b.Fatalf("%s: %d, %v", sql, n, err)
		}
		return time.Since(start).Seconds()
	}
	var wt, pt float64
	for i := 0; i < b.N; i++ {
		wt += run(w, "SELECT count(*) FROM nexmark('bid', max_events => 10000000)")
		pt += run(pg, "SELECT count(*) FROM generate_series(1, 9200000)")
	}
	b.ReportMetric(float64(b.N)*10_000_000/wt, "weir-events/s")
	b.ReportMetric(float64(b.N)*9_200_000/wt, "weir-rows/s")
	b.ReportMetric(float64(b.N)*9_200_000/pt, "pg-generate_series-rows/s")
}
