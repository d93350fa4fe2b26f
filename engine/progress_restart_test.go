package engine_test

// Progress figures across a restart (issue 8, point 7): what
// weir_catalog.streaming_progress and SHOW STREAMING TABLES say after the
// server restarts must be what they said before, and what the tables hold:
// output_rows equal to the rows of the table, the watermark of a table
// whose trigger does not run again (available_now) restored, backlog_rows
// of a failed table the input rows waiting, and input_rows_per_second the
// arrival rate rather than a copy of the processing rate.

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/weir-sql/weir/engine"
)

type restartFigures struct {
	status    string
	input     int64
	output    int64
	watermark string
	backlog   int64
	showRows  int64
	tableRows int64
}

func readRestartFigures(t *testing.T, c *pgx.Conn, names []string) map[string]restartFigures {
	t.Helper()
	ctx := context.Background()
	out := map[string]restartFigures{}
	rows, err := c.Query(ctx, "SELECT name, status, input_rows, output_rows, coalesce(watermark::text, 'NULL'), backlog_rows FROM weir_catalog.streaming_progress")
	if err != nil {
		t.Fatal(err)
	}
	for rows.Next() {
		var n string
		var f restartFigures
		if err := rows.Scan(&n, &f.status, &f.input, &f.output, &f.watermark, &f.backlog); err != nil {
			t.Fatal(err)
		}
		out[n] = f
	}
	if err := rows.Err(); err != nil {
		t.Fatal(err)
	}
	rows, err = c.Query(ctx, "SHOW STREAMING TABLES", pgx.QueryExecModeSimpleProtocol)
	if err != nil {
		t.Fatal(err)
	}
	for rows.Next() {
		vals, err := rows.Values()
		if err != nil {
			t.Fatal(err)
		}
		n := vals[0].(string)
		f := out[n]
		fmt.Sscan(fmt.Sprint(vals[6]), &f.showRows)
		out[n] = f
	}
	if err := rows.Err(); err != nil {
		t.Fatal(err)
	}
	for _, n := range names {
		f := out[n]
		if f.status != "failed" {
			if err := c.QueryRow(ctx, "SELECT count(*) FROM "+n).Scan(&f.tableRows); err != nil {
				t.Fatalf("count %s: %v", n, err)
			}
		}
		out[n] = f
	}
	return out
}

func TestProgressAfterRestart(t *testing.T) {
	// Without snapshots a restart re-runs the epochs; with a snapshot after
	// every epoch it restores the state and re-runs none.
	for _, snapRows := range []int64{0, 1} {
		t.Run(fmt.Sprintf("snapshot_rows=%d", snapRows), func(t *testing.T) { testProgressAfterRestart(t, snapRows) })
	}
}

func testProgressAfterRestart(t *testing.T, snapRows int64) {
	dir := t.TempDir()
	cfg := engine.Config{DataDir: dir, SnapshotRows: snapRows}
	s := startServerWith(t, cfg)
	c := s.connect(t)
	ctx := context.Background()
	names := []string{"by_group", "by_minute", "evens", "now_rows"}
	for _, q := range []string{
		"SET TimeZone = 'UTC'",
		"CREATE TABLE events (k bigint, ts timestamptz)",
		// update mode: the rows live in memory and are rebuilt at restart
		"CREATE STREAMING TABLE by_group AS SELECT k % 10 AS g, count(*) AS n FROM events GROUP BY 1",
		// append mode with windows: closed windows are stored rows
		`CREATE STREAMING TABLE by_minute AS SELECT window_start, count(*) AS n
		   FROM STREAM events WATERMARK ts DELAY OF INTERVAL '1 second'
		   WINDOW TUMBLING (SIZE INTERVAL '1 minute') GROUP BY window_start`,
		// stateless append
		"CREATE STREAMING TABLE evens AS SELECT k FROM events WHERE k % 2 = 0",
		// runs once: nothing after the restart refreshes its watermark
		`CREATE STREAMING TABLE now_rows WITH (trigger = 'available_now') AS
		   SELECT k, ts FROM STREAM events WATERMARK ts DELAY OF INTERVAL '1 second'`,
		// fails at k = 500 (division by zero) and keeps failing
		"CREATE STREAMING TABLE breaks AS SELECT 1 / (k - 500) AS x FROM events",
	} {
		if _, err := c.Exec(ctx, q); err != nil {
			t.Fatalf("%s: %v", q, err)
		}
	}
	if _, err := c.Exec(ctx, "INSERT INTO events SELECT g, timestamptz '2024-01-01 00:00:00+00' + g * interval '1 second' FROM generate_series(1, 1000) g"); err != nil {
		t.Fatal(err)
	}
	if _, err := c.Exec(ctx, "REFRESH STREAMING TABLE now_rows"); err != nil {
		t.Fatal(err)
	}
	waitConsumed(t, c, []string{"by_group", "by_minute", "evens"}, 1000, 20*time.Second)
	before := readRestartFigures(t, c, names)
	for _, n := range names {
		f := before[n]
		if f.output != f.tableRows || f.showRows != f.tableRows {
			t.Errorf("%s before the restart: output_rows %d, SHOW rows %d, table rows %d", n, f.output, f.showRows, f.tableRows)
		}
	}
	if before["now_rows"].watermark == "NULL" || before["by_minute"].watermark == "NULL" {
		t.Fatalf("no watermark before the restart: %+v", before)
	}
	// The failed table: its input holds 1000 rows, it consumed none of the
	// epoch that failed, so they wait.
	waitFor(t, c, "SELECT status = 'failed' FROM weir_catalog.streaming_progress WHERE name = 'breaks'")
	var failedBacklog, failedInput int64
	if err := c.QueryRow(ctx, "SELECT backlog_rows, input_rows FROM weir_catalog.streaming_progress WHERE name = 'breaks'").Scan(&failedBacklog, &failedInput); err != nil {
		t.Fatal(err)
	}
	if failedBacklog != 1000-failedInput || failedBacklog == 0 {
		t.Errorf("failed table: backlog_rows %d, input_rows %d; want %d rows waiting", failedBacklog, failedInput, 1000-failedInput)
	}

	s.stop()
	s = startServerWith(t, cfg)
	c = s.connect(t)
	// Recovery re-runs epochs in the background: wait until every figure
	// is back, and say which is not.
	deadline := time.Now().Add(20 * time.Second)
	var after map[string]restartFigures
	for {
		after = readRestartFigures(t, c, names)
		same := true
		for _, n := range names {
			a, b := after[n], before[n]
			if a.output != b.output || a.showRows != b.showRows || a.input != b.input || a.watermark != b.watermark || a.tableRows != b.tableRows {
				same = false
			}
		}
		if same || time.Now().After(deadline) {
			break
		}
		time.Sleep(10 * time.Millisecond)
	}
	for _, n := range names {
		a, b := after[n], before[n]
		if a.output != b.output || a.showRows != b.showRows || a.input != b.input || a.watermark != b.watermark || a.tableRows != b.tableRows {
			t.Errorf("%s after the restart: %+v; before: %+v", n, a, b)
		}
	}
	// After the restart the failed table fails again with its rows waiting.
	waitFor(t, c, "SELECT status = 'failed' FROM weir_catalog.streaming_progress WHERE name = 'breaks'")
	if err := c.QueryRow(ctx, "SELECT backlog_rows, input_rows FROM weir_catalog.streaming_progress WHERE name = 'breaks'").Scan(&failedBacklog, &failedInput); err != nil {
		t.Fatal(err)
	}
	if failedBacklog != 1000-failedInput || failedBacklog == 0 {
		t.Errorf("failed table after the restart: backlog_rows %d, input_rows %d; want %d rows waiting", failedBacklog, failedInput, 1000-failedInput)
	}
}

// TestInputRowsPerSecond: input_rows_per_second is the rate rows arrived
// at over the interval since the previous micro-batch (Spark's
// inputRowsPerSecond), so 500 rows that arrive 400 ms after the previous
// batch give at most 1250 rows/s, while processing them takes
// milliseconds (processed_rows_per_second far higher).
func TestInputRowsPerSecond(t *testing.T) {
	s := startServer(t, t.TempDir())
	c := s.connect(t)
	ctx := context.Background()
	for _, q := range []string{
		"CREATE TABLE e (k bigint)",
		"CREATE STREAMING TABLE ek AS SELECT k FROM e",
		"INSERT INTO e SELECT g FROM generate_series(1, 500) g",
	} {
		if _, err := c.Exec(ctx, q); err != nil {
			t.Fatalf("%s: %v", q, err)
		}
	}
	waitConsumed(t, c, []string{"ek"}, 500, 10*time.Second)
	gap := 400 * time.Millisecond
	time.Sleep(gap) // the interval being measured, not a synchronisation
	if _, err := c.Exec(ctx, "INSERT INTO e SELECT g FROM generate_series(1, 500) g"); err != nil {
		t.Fatal(err)
	}
	waitConsumed(t, c, []string{"ek"}, 1000, 10*time.Second)
	var in, processed float64
	if err := c.QueryRow(ctx, "SELECT input_rows_per_second, processed_rows_per_second FROM weir_catalog.streaming_progress WHERE name = 'ek'").Scan(&in, &processed); err != nil {
		t.Fatal(err)
	}
	t.Logf("input_rows_per_second %.0f, processed_rows_per_second %.0f", in, processed)
	if in <= 0 || in > 500/gap.Seconds() {
		t.Errorf("input_rows_per_second %.1f: want in (0, %.0f]", in, 500/gap.Seconds())
	}
	if processed <= in {
		t.Errorf("processed_rows_per_second %.1f not above input_rows_per_second %.1f", processed, in)
	}
}
