package main

import (
	"context"
	"fmt"
	"os"
	"sort"
	"time"

	"github.com/jackc/pgx/v5"
)

// runRecovery measures restart after kill -9 with 1M rows of streaming
// state: a non-windowed aggregate over 1M distinct keys. It reports the
// time until the server accepts connections and until a query of the
// streaming table returns (which waits for the job to re-run its logged
// epochs), next to a baseline measured in the same run: a batch query over
// the same 1M input rows after the same restart, the least work a replay
// must do.
func runRecovery(keys, repeat int) error {
	root, err := moduleRoot()
	if err != nil {
		return err
	}
	tmp, err := os.MkdirTemp("", "weirbench-recovery-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(tmp)
	bin, err := buildWeir(root, tmp)
	if err != nil {
		return err
	}
	w, err := startWeir(bin, tmp)
	if err != nil {
		return err
	}
	ctx := context.Background()
	conn, err := pgx.Connect(ctx, w.url())
	if err != nil {
		return err
	}
	for _, q := range []string{
		"CREATE TABLE ev (id bigint, v int)",
		"CREATE STREAMING TABLE st AS SELECT id, count(*) AS n, sum(v) AS s FROM ev GROUP BY id",
		// An append-mode windowed table over 1M events: after a restart it
		// is served from its stored rows and re-runs only the open windows.
		"CREATE TABLE ev2 (k int, ts timestamptz)",
		"CREATE STREAMING TABLE w2 AS SELECT k, window_start, count(*) AS n FROM STREAM ev2 WATERMARK ts DELAY OF INTERVAL 1 MINUTE WINDOW TUMBLING (SIZE INTERVAL 1 MINUTE) GROUP BY k, window_start",
	} {
		if _, err := conn.Exec(ctx, q); err != nil {
			return err
		}
	}
	rows := make([][]any, keys)
	for i := range rows {
		rows[i] = []any{int64(i), int32(i % 100)}
	}
	if _, err := conn.CopyFrom(ctx, pgx.Identifier{"ev"}, []string{"id", "v"}, pgx.CopyFromRows(rows)); err != nil {
		return err
	}
	if err := waitState(ctx, conn, keys); err != nil {
		return err
	}
	base := time.Date(2024, 1, 1, 0, 0, 0, 0, time.UTC)
	for i := range rows {
		rows[i] = []any{int32(i % 100), base.Add(time.Duration(i) * time.Second)}
	}
	if _, err := conn.CopyFrom(ctx, pgx.Identifier{"ev2"}, []string{"k", "ts"}, pgx.CopyFromRows(rows)); err != nil {
		return err
	}
	var windowRows int64
	if err := waitProgress(ctx, conn, "w2", int64(keys), &windowRows); err != nil {
		return err
	}
	conn.Close(ctx)
	var appendServe, appendCatchUp []time.Duration
	var accept, serve, baseline []time.Duration
	for i := 0; i < repeat; i++ {
		w.cmd.Process.Kill() // SIGKILL
		w.cmd.Wait()
		began := time.Now()
		if w, err = startWeir(bin, tmp); err != nil {
			return err
		}
		accept = append(accept, time.Since(began))
		conn, err := pgx.Connect(ctx, w.url())
		if err != nil {
			return err
		}
		var wn int64
		if err := conn.QueryRow(ctx, "SELECT count(*) FROM w2").Scan(&wn); err != nil {
			return err
		}
		appendServe = append(appendServe, time.Since(began))
		if wn != windowRows {
			return fmt.Errorf("after restart w2 has %d rows, want %d", wn, windowRows)
		}
		var dummy int64
		if err := waitProgress(ctx, conn, "w2", int64(keys), &dummy); err != nil {
			return err
		}
		appendCatchUp = append(appendCatchUp, time.Since(began))
		var n int64
		if err := conn.QueryRow(ctx, "SELECT count(*) FROM st").Scan(&n); err != nil {
			return err
		}
		serve = append(serve, time.Since(began))
		if n != int64(keys) {
			return fmt.Errorf("after restart st has %d rows, want %d", n, keys)
		}
		t0 := time.Now()
		var cnt, sum int64
		if err := conn.QueryRow(ctx, "SELECT count(*), sum(v) FROM ev").Scan(&cnt, &sum); err != nil {
			return err
		}
		baseline = append(baseline, time.Since(t0))
		conn.Close(ctx)
		logf("restart %d: accepting connections after %s, streaming table served after %s", i+1, accept[i], serve[i])
	}
	w.stop()
	fmt.Printf("\n## Recovery after kill -9 with %d rows of streaming state (%d restarts)\n\n", keys, repeat)
	fmt.Println("| measure | median | best | worst |")
	fmt.Println("| --- | ---: | ---: | ---: |")
	for _, m := range []struct {
		name string
		d    []time.Duration
	}{{"restart to accepting connections", accept}, {"update mode, 1M keys: restart to the table served (epochs re-run)", serve},
		{"append mode, 1M events in 1-minute windows: restart to the table served (stored rows)", appendServe},
		{"append mode: restart to caught up (only open windows re-run)", appendCatchUp},
		{"baseline: batch scan of the 1M input rows after restart", baseline}} {
		sort.Slice(m.d, func(a, b int) bool { return m.d[a] < m.d[b] })
		fmt.Printf("| %s | %s | %s | %s |\n", m.name, m.d[len(m.d)/2].Round(time.Millisecond), m.d[0].Round(time.Millisecond), m.d[len(m.d)-1].Round(time.Millisecond))
	}
	return nil
}

// waitState waits until the streaming table holds keys groups.
func waitState(ctx context.Context, conn *pgx.Conn, keys int) error {
	deadline := time.Now().Add(5 * time.Minute)
	for {
		var rows int64
		if err := conn.QueryRow(ctx, "SELECT coalesce(max(state_rows), 0) FROM weir_catalog.streaming_progress").Scan(&rows); err != nil {
			return err
		}
		if rows >= int64(keys) {
			return nil
		}
		if time.Now().After(deadline) {
			return fmt.Errorf("streaming state reached only %d rows", rows)
		}
		time.Sleep(50 * time.Millisecond) // polling, with a deadline
	}
}

// waitProgress waits until a streaming table has consumed rows input rows
// and reports its output rows.
func waitProgress(ctx context.Context, conn *pgx.Conn, name string, rows int64, out *int64) error {
	deadline := time.Now().Add(5 * time.Minute)
	for {
		var in, backlog int64
		if err := conn.QueryRow(ctx, "SELECT input_rows, backlog_rows, output_rows FROM weir_catalog.streaming_progress WHERE name = $1", name).Scan(&in, &backlog, out); err != nil {
			return err
		}
		if in >= rows && backlog == 0 {
			return nil
		}
		if time.Now().After(deadline) {
			return fmt.Errorf("%s consumed only %d of %d rows", name, in, rows)
		}
		time.Sleep(20 * time.Millisecond) // polling, with a deadline
	}
}
