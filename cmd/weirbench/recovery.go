package main

import (
	"context"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"time"

	"github.com/jackc/pgx/v5"
)

// runRecovery measures restart after kill -9 with 1M rows of streaming
// state: a non-windowed aggregate over 1M distinct keys (update mode), and
// an append-mode windowed table over 1M events. It reports the time until
// the server accepts connections and until a query of each streaming
// table returns (which waits for the job to restore its state snapshot and
// re-run the epochs after it), next to baselines measured in the same run:
// the same restart when the tables take no snapshot and re-run every
// epoch, and a batch query over the same 1M input rows after the restart.
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
	snap, err := measureRecovery(bin, filepath.Join(tmp, "snapshots"), keys, repeat)
	if err != nil {
		return err
	}
	// --snapshot-rows past the input: no snapshot, every epoch re-run.
	rerun, err := measureRecovery(bin, filepath.Join(tmp, "rerun"), keys, repeat, "--snapshot-rows=1000000000000")
	if err != nil {
		return err
	}
	fmt.Printf("\n## Recovery after kill -9 with %d rows of streaming state (%d restarts)\n\n", keys, repeat)
	fmt.Printf("How the update-mode table recovered, from the server log: %s\n\n", snap.how)
	fmt.Println("| measure | median | best | worst |")
	fmt.Println("| --- | ---: | ---: | ---: |")
	for _, m := range []struct {
		name string
		d    []time.Duration
	}{{"restart to accepting connections", snap.accept},
		{"update mode, 1M keys: restart to the table served (state snapshot restored)", snap.serve},
		{"baseline: the same without snapshots (every epoch re-run)", rerun.serve},
		{"append mode, 1M events in 1-minute windows: restart to the table served (stored rows)", snap.appendServe},
		{"append mode: restart to caught up (state snapshot restored)", snap.appendCatchUp},
		{"baseline: append mode caught up without snapshots (open windows re-run)", rerun.appendCatchUp},
		{"baseline: batch scan of the 1M input rows after restart", snap.scan}} {
		sort.Slice(m.d, func(a, b int) bool { return m.d[a] < m.d[b] })
		fmt.Printf("| %s | %s | %s | %s |\n", m.name, m.d[len(m.d)/2].Round(time.Millisecond), m.d[0].Round(time.Millisecond), m.d[len(m.d)-1].Round(time.Millisecond))
	}
	return nil
}

type recoveryTimes struct {
	accept, serve, appendServe, appendCatchUp, scan []time.Duration
	how                                             string
}

// measureRecovery loads the tables into a server started with args in
// dir, then kills and restarts it repeat times.
func measureRecovery(bin, dir string, keys, repeat int, args ...string) (*recoveryTimes, error) {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, err
	}
	w, err := startWeir(bin, dir, args...)
	if err != nil {
		return nil, err
	}
	ctx := context.Background()
	conn, err := pgx.Connect(ctx, w.url())
	if err != nil {
		return nil, err
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
			return nil, err
		}
	}
	rows := make([][]any, keys)
	for i := range rows {
		rows[i] = []any{int64(i), int32(i % 100)}
	}
	if _, err := conn.CopyFrom(ctx, pgx.Identifier{"ev"}, []string{"id", "v"}, pgx.CopyFromRows(rows)); err != nil {
		return nil, err
	}
	if err := waitState(ctx, conn, keys); err != nil {
		return nil, err
	}
	base := time.Date(2024, 1, 1, 0, 0, 0, 0, time.UTC)
	for i := range rows {
		rows[i] = []any{int32(i % 100), base.Add(time.Duration(i) * time.Second)}
	}
	if _, err := conn.CopyFrom(ctx, pgx.Identifier{"ev2"}, []string{"k", "ts"}, pgx.CopyFromRows(rows)); err != nil {
		return nil, err
	}
	var windowRows int64
	if err := waitProgress(ctx, conn, "w2", int64(keys), &windowRows); err != nil {
		return nil, err
	}
	conn.Close(ctx)
	t := &recoveryTimes{}
	for i := 0; i < repeat; i++ {
		w.cmd.Process.Kill() // SIGKILL
		w.cmd.Wait()
		logStart, _ := w.log.Seek(0, io.SeekCurrent)
		began := time.Now()
		if w, err = startWeir(bin, dir, args...); err != nil {
			return nil, err
		}
		t.accept = append(t.accept, time.Since(began))
		conn, err := pgx.Connect(ctx, w.url())
		if err != nil {
			return nil, err
		}
		var wn int64
		if err := conn.QueryRow(ctx, "SELECT count(*) FROM w2").Scan(&wn); err != nil {
			return nil, err
		}
		t.appendServe = append(t.appendServe, time.Since(began))
		if wn != windowRows {
			return nil, fmt.Errorf("after restart w2 has %d rows, want %d", wn, windowRows)
		}
		var dummy int64
		if err := waitProgress(ctx, conn, "w2", int64(keys), &dummy); err != nil {
			return nil, err
		}
		t.appendCatchUp = append(t.appendCatchUp, time.Since(began))
		var n int64
		if err := conn.QueryRow(ctx, "SELECT count(*) FROM st").Scan(&n); err != nil {
			return nil, err
		}
		t.serve = append(t.serve, time.Since(began))
		if n != int64(keys) {
			return nil, fmt.Errorf("after restart st has %d rows, want %d", n, keys)
		}
		t0 := time.Now()
		var cnt, sum int64
		if err := conn.QueryRow(ctx, "SELECT count(*), sum(v) FROM ev").Scan(&cnt, &sum); err != nil {
			return nil, err
		}
		t.scan = append(t.scan, time.Since(t0))
		conn.Close(ctx)
		logf("restart %d %v: accepting connections after %s, update-mode table served after %s", i+1, args, t.accept[i], t.serve[i])
		if i == 0 {
			t.how = recoveryLine(w.log.Name(), logStart, "streaming table st:")
		}
	}
	w.stop()
	return t, nil
}

// recoveryLine returns the first line of the log after offset that
// contains what.
func recoveryLine(path string, offset int64, what string) string {
	data, err := os.ReadFile(path)
	if err != nil || offset > int64(len(data)) {
		return "(no log)"
	}
	for _, line := range strings.Split(string(data[offset:]), "\n") {
		if i := strings.Index(line, what); i >= 0 {
			return "`" + line[i:] + "`"
		}
	}
	return "(not logged)"
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
