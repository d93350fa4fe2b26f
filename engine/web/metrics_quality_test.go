package web

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
)

// The README's quality gate (Bronze → Silver with a warn, a DROP ROW and
// a FAIL UPDATE expectation, and a quarantine), with a files sink on
// silver.
var qualityGateSQL = []string{
	"CREATE TABLE bronze (event_id bigint, amount numeric(12,2), event_type text, event_time timestamptz)",
	`CREATE OR REFRESH STREAMING TABLE silver (
	   CONSTRAINT has_id     EXPECT (event_id IS NOT NULL),
	   CONSTRAINT pos_amount EXPECT (amount > 0) ON VIOLATION DROP ROW,
	   CONSTRAINT known_type EXPECT (event_type IN ('view','buy')) ON VIOLATION FAIL UPDATE
	 ) WITH (quarantine = 'silver_quarantine')
	 AS SELECT * FROM STREAM bronze`,
}

// insertBronze adds n rows with ids from first: every 5th has a NULL id
// (has_id fails, kept) and every 4th a non-positive amount (pos_amount
// fails, dropped and quarantined). It returns how many of each it put in.
func insertBronze(ctx context.Context, c *pgx.Conn, first, n int) (nullIDs, badAmounts int, err error) {
	for i := first; i < first+n; i++ {
		if i%5 == 0 {
			nullIDs++
		}
		if i%4 == 0 {
			badAmounts++
		}
	}
	_, err = c.Exec(ctx, `INSERT INTO bronze SELECT CASE WHEN i % 5 = 0 THEN NULL ELSE i END,
		CASE WHEN i % 4 = 0 THEN -(i % 7)::numeric(12,2) ELSE (i % 90 + 1)::numeric(12,2) END,
		CASE WHEN i % 2 = 0 THEN 'view' ELSE 'buy' END, now()
		FROM generate_series($1::bigint, $2::bigint) AS i`, first, first+n-1)
	return nullIDs, badAmounts, err
}

// TestMetricsQualityGate: over the README's quality gate fed rows of which
// the test knows the bad ones, weir_expectation_*_total equal
// weir_catalog.expectations and the bad rows put in; the batch phase
// metrics are there and not negative; a sink that fails writes a "sink"
// event to its table's event log and /metrics shows it failed.
func TestMetricsQualityGate(t *testing.T) {
	s := startServer(t)
	c := s.connect(t)
	out := filepath.Join(s.dir, "silver_out")
	execSQL(t, c, qualityGateSQL...)
	execSQL(t, c, fmt.Sprintf("CREATE SINK silver_out FROM silver WITH (connector = 'files', path = '%s', format = 'json')", out))
	ctx := context.Background()
	var total, nullIDs, badAmounts int
	insert := func(n int) {
		t.Helper()
		ni, ba, err := insertBronze(ctx, c, total+1, n)
		if err != nil {
			t.Fatalf("insert into bronze: %v", err)
		}
		total, nullIDs, badAmounts = total+n, nullIDs+ni, badAmounts+ba
	}
	read := func() bool {
		v, _ := s.scrape(t).get("weir_streaming_input_rows_total", "table", "public.silver", "flow", "")
		return v == float64(total)
	}
	check := func() {
		t.Helper()
		want := map[string][2]int64{ // passed, failed: every expectation checks every row
			"has_id":     {int64(total - nullIDs), int64(nullIDs)},
			"pos_amount": {int64(total - badAmounts), int64(badAmounts)},
			"known_type": {int64(total), 0},
		}
		rows, err := c.Query(ctx, "SELECT table_name, coalesce(flow, ''), expectation, action, passed, failed FROM weir_catalog.expectations ORDER BY expectation")
		if err != nil {
			t.Fatal(err)
		}
		defer rows.Close()
		m := s.scrape(t)
		seen := 0
		for rows.Next() {
			var table, flow, name, action string
			var passed, failed int64
			if err := rows.Scan(&table, &flow, &name, &action, &passed, &failed); err != nil {
				t.Fatal(err)
			}
			seen++
			if w := want[name]; passed != w[0] || failed != w[1] {
				t.Errorf("weir_catalog.expectations %s: passed %d failed %d, the test put in %d good and %d bad rows", name, passed, failed, w[0], w[1])
			}
			if !strings.Contains(table, ".") {
				table = "public." + table
			}
			l := []string{"table", table, "flow", flow, "expectation", name, "action", action}
			if got := m.must(t, "weir_expectation_passed_rows_total", l...); got != float64(passed) {
				t.Errorf("weir_expectation_passed_rows_total%v = %v, weir_catalog.expectations says %d", l, got, passed)
			}
			if got := m.must(t, "weir_expectation_failed_rows_total", l...); got != float64(failed) {
				t.Errorf("weir_expectation_failed_rows_total%v = %v, weir_catalog.expectations says %d", l, got, failed)
			}
		}
		if err := rows.Err(); err != nil {
			t.Fatal(err)
		}
		if seen != 3 {
			t.Errorf("weir_catalog.expectations has %d rows, want 3", seen)
		}
		var quarantined int
		if err := c.QueryRow(ctx, "SELECT count(*) FROM silver_quarantine").Scan(&quarantined); err != nil {
			t.Fatal(err)
		}
		if quarantined != badAmounts {
			t.Errorf("silver_quarantine holds %d rows, the test put in %d bad amounts", quarantined, badAmounts)
		}
		for _, phase := range []string{"read", "process", "commit"} {
			v := m.must(t, "weir_streaming_last_batch_phase_duration_seconds", "table", "public.silver", "flow", "", "phase", phase)
			if v < 0 {
				t.Errorf("phase %s: %v s", phase, v)
			}
		}
	}

	insert(200)
	waitUntil(t, "silver reads 200 rows", 20*time.Second, read)
	check()
	if v := s.scrape(t).must(t, "weir_sink_status", "sink", "public.silver_out", "status", "running"); v != 1 {
		t.Fatalf("the sink is not running: %v", v)
	}

	// The sink's folder becomes a file: the sink fails, the table goes on.
	waitUntil(t, "the sink commits an epoch", 20*time.Second, func() bool {
		_, ok := s.scrape(t).get("weir_sink_last_committed_epoch", "sink", "public.silver_out")
		return ok
	})
	if err := os.RemoveAll(out); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(out, []byte("not a folder"), 0o644); err != nil {
		t.Fatal(err)
	}
	insert(300)
	waitUntil(t, "/metrics shows the sink failed", 20*time.Second, func() bool {
		v, _ := s.scrape(t).get("weir_sink_status", "sink", "public.silver_out", "status", "failed")
		return v == 1
	})
	waitUntil(t, "silver reads 500 rows", 20*time.Second, read)
	check()
	var n int
	var msg, errText string
	if err := c.QueryRow(ctx, `SELECT count(*), max(message), max(error::text) FROM event_log('silver') WHERE event_type = 'sink' AND level = 'ERROR'`).Scan(&n, &msg, &errText); err != nil {
		t.Fatal(err)
	}
	if n != 1 || !strings.Contains(msg, "silver_out") || !strings.Contains(errText, out) {
		t.Errorf("event_log('silver') sink events: %d, %q, %q; want one naming the sink and its path", n, msg, errText)
	}
}
