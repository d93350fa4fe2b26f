package engine_test

// weir_catalog.streaming_batches (issue 12, point 3): a row per committed
// epoch whose figures add up to streaming_progress's totals, across a
// restart; and input_rows_per_second measured from the inputs: near the
// rate rows are inserted at, also while the table catches up on a
// backlog, when the rate it reads at (the processing rate) is far higher.

import (
	"context"
	"fmt"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
)

type batchTotals struct {
	rows, maxEpoch, input, late, output int64
	phasesOK                            bool
}

func readBatchTotals(t *testing.T, c *pgx.Conn, name string) batchTotals {
	t.Helper()
	var b batchTotals
	if err := c.QueryRow(context.Background(), `SELECT count(*), coalesce(max(epoch), 0), coalesce(sum(input_rows), 0), coalesce(sum(late_rows), 0), coalesce(sum(output_rows), 0),
		bool_and(abs(duration_ms - (read_ms + process_ms + commit_ms)) < 0.01 AND read_ms >= 0 AND process_ms >= 0 AND commit_ms > 0 AND start <= now())
		FROM weir_catalog.streaming_batches WHERE name = $1`, name).Scan(&b.rows, &b.maxEpoch, &b.input, &b.late, &b.output, &b.phasesOK); err != nil {
		t.Fatal(err)
	}
	return b
}

func TestStreamingBatches(t *testing.T) {
	dir := t.TempDir()
	s := startServer(t, dir)
	c := s.connect(t)
	ctx := context.Background()
	evExec(t, c,
		"CREATE TABLE ev (k bigint, ts timestamptz)",
		`CREATE STREAMING TABLE per_k AS SELECT k, count(*) AS n FROM STREAM ev GROUP BY k`,
		`CREATE STREAMING TABLE windows AS
			SELECT window_start, count(*) AS n FROM STREAM ev WATERMARK ts DELAY OF INTERVAL '0 seconds'
			WINDOW TUMBLING (SIZE INTERVAL 1 MINUTE) GROUP BY window_start EMIT ON WINDOW CLOSE`)
	for i := 0; i < 8; i++ {
		// Each INSERT commits on its own, so the tables see several epochs;
		// the last one's rows are late for windows closed by earlier ones.
		minute := i
		if i == 7 {
			minute = 0
		}
		evExec(t, c, fmt.Sprintf("INSERT INTO ev SELECT g %% 5, timestamptz '2026-01-01 00:00:00+00' + interval '1 minute' * %d FROM generate_series(1, 100) g", minute))
		waitConsumed(t, c, []string{"per_k", "windows"}, int64(100*(i+1)), 10*time.Second)
	}
	check := func(when string) {
		for _, name := range []string{"per_k", "windows"} {
			var epoch, input, late, output int64
			if err := c.QueryRow(ctx, "SELECT epoch, input_rows, late_rows, output_rows FROM weir_catalog.streaming_progress WHERE name = $1", name).Scan(&epoch, &input, &late, &output); err != nil {
				t.Fatal(err)
			}
			b := readBatchTotals(t, c, name)
			if b.rows != epoch || b.maxEpoch != epoch || b.input != input || b.late != late || !b.phasesOK {
				t.Errorf("%s %s: streaming_batches %+v; streaming_progress epoch %d input %d late %d", when, name, b, epoch, input, late)
			}
			var stored int64
			if err := c.QueryRow(ctx, "SELECT count(*) FROM "+name).Scan(&stored); err != nil {
				t.Fatal(err)
			}
			t.Logf("%s %s: progress output_rows %d, batches %d, rows stored %d", when, name, output, b.output, stored)
			// Append mode: the epochs' output rows are the stored rows,
			// also after the restart, which re-runs epochs 7 and 8 from an
			// empty state: epoch 7 closed the window whose rows came in
			// epoch 6, so its re-run emits one row less than its first run
			// did; that row is stored, and the count continues from the
			// record (exec.StreamJob.ReplayOutputRows).
			if name == "windows" && (b.output != stored || late == 0 || output != stored) {
				t.Errorf("%s windows: batches' output_rows sum to %d, progress says %d, the table holds %d (late %d)", when, b.output, output, stored, late)
			}
		}
		var wm, stateRows int64
		if err := c.QueryRow(ctx, `SELECT count(watermark), max(state_rows) FROM weir_catalog.streaming_batches WHERE name = 'windows'`).Scan(&wm, &stateRows); err != nil {
			t.Fatal(err)
		}
		if wm == 0 || stateRows == 0 {
			t.Errorf("%s: windows' batches have %d watermarks, state rows up to %d", when, wm, stateRows)
		}
	}
	check("before the restart")
	s.stop()
	s = startServer(t, dir)
	c = s.connect(t)
	waitConsumed(t, c, []string{"per_k", "windows"}, 800, 10*time.Second)
	check("after the restart")
}

// TestInputRateFromInputs: rows are inserted at a known pace while the
// table first catches up on a backlog and then keeps up. Throughout,
// input_rows_per_second stays near the pace, in streaming_batches and in
// streaming_progress, while processed_rows_per_second of the catch-up
// epochs is far higher (it is what input_rows_per_second was before: the
// rate rows were read at).
func TestInputRateFromInputs(t *testing.T) {
	s := startServer(t, t.TempDir())
	c := s.connect(t)
	ctx := context.Background()
	evExec(t, c, "CREATE TABLE src (k bigint, pad text)")
	// The backlog: 400 chunks of 500 rows, more than six epochs' reads.
	batch := &pgx.Batch{}
	for i := 0; i < 400; i++ {
		batch.Queue("INSERT INTO src SELECT g, md5(g::text) FROM generate_series(1, 500) g")
	}
	if err := c.SendBatch(ctx, batch).Close(); err != nil {
		t.Fatal(err)
	}
	const perInsert, every = 20, 10 * time.Millisecond
	pace := float64(perInsert) / every.Seconds() // 2000 rows/s
	producer := s.connect(t)
	stop := make(chan struct{})
	produced := make(chan int64)
	go func() {
		var n int64
		tick := time.NewTicker(every) // the producer's pace, not a synchronisation
		defer tick.Stop()
		for {
			select {
			case <-stop:
				produced <- n
				return
			case <-tick.C:
				if _, err := producer.Exec(ctx, fmt.Sprintf("INSERT INTO src SELECT g, 'p' FROM generate_series(1, %d) g", perInsert)); err != nil {
					produced <- -1
					return
				}
				n += perInsert
			}
		}
	}()
	began := time.Now()
	evExec(t, c, "CREATE STREAMING TABLE copy AS SELECT k, upper(pad) || lower(pad) AS p FROM src")
	// Keep producing for a second after the backlog is read.
	waitFor(t, c, "SELECT input_rows >= 200000 FROM weir_catalog.streaming_progress WHERE name = 'copy'")
	time.Sleep(time.Second) // the paced period being measured
	close(stop)
	n := <-produced
	if n < 0 {
		t.Fatal("the producer's INSERT failed")
	}
	elapsed := time.Since(began)
	waitConsumed(t, c, []string{"copy"}, 200000+n, 10*time.Second)
	actual := float64(n) / elapsed.Seconds()
	t.Logf("producer: %d rows in %.2f s (%.0f rows/s; pace %.0f)", n, elapsed.Seconds(), actual, pace)

	rows, err := c.Query(ctx, `SELECT epoch, input_rows, input_rows_per_second, processed_rows_per_second FROM weir_catalog.streaming_batches WHERE name = 'copy' ORDER BY epoch`)
	if err != nil {
		t.Fatal(err)
	}
	var catchUpIn, catchUpProc, keepUpIn []float64
	var log []string
	for rows.Next() {
		var epoch, in int64
		var inRate, procRate float64
		if err := rows.Scan(&epoch, &in, &inRate, &procRate); err != nil {
			t.Fatal(err)
		}
		log = append(log, fmt.Sprintf("%d:%d rows in %.0f/s proc %.0f/s", epoch, in, inRate, procRate))
		switch {
		case epoch == 1:
			// Its rows over the time since the job started (Spark's first
			// figure): the backlog's, not the pace's.
		case in >= 10000:
			catchUpIn, catchUpProc = append(catchUpIn, inRate), append(catchUpProc, procRate)
		default:
			keepUpIn = append(keepUpIn, inRate)
		}
	}
	if err := rows.Err(); err != nil {
		t.Fatal(err)
	}
	t.Logf("batches: %s", strings.Join(log, "; "))
	if len(catchUpIn) < 2 || len(keepUpIn) < 5 {
		t.Fatalf("%d catch-up and %d keep-up epochs after the first: the test needs more of both", len(catchUpIn), len(keepUpIn))
	}
	near := func(what string, rates []float64) float64 {
		m := median(rates)
		if m < actual/4 || m > actual*4 {
			t.Errorf("%s epochs: median input_rows_per_second %.0f, not near the %.0f rows/s inserted", what, m, actual)
		}
		return m
	}
	in := near("catch-up", catchUpIn)
	near("keeping-up", keepUpIn)
	if p := median(catchUpProc); p < 20*in {
		t.Errorf("catch-up epochs: processed_rows_per_second %.0f, not far above the input rate %.0f", p, in)
	}
	var progIn float64
	var epoch int64
	if err := c.QueryRow(ctx, "SELECT input_rows_per_second, epoch FROM weir_catalog.streaming_progress WHERE name = 'copy'").Scan(&progIn, &epoch); err != nil {
		t.Fatal(err)
	}
	var lastIn float64
	if err := c.QueryRow(ctx, "SELECT input_rows_per_second FROM weir_catalog.streaming_batches WHERE name = 'copy' AND epoch = $1", epoch).Scan(&lastIn); err != nil {
		t.Fatal(err)
	}
	if progIn != lastIn {
		t.Errorf("streaming_progress.input_rows_per_second %.1f differs from the last batch's %.1f", progIn, lastIn)
	}
}

func median(xs []float64) float64 {
	s := append([]float64(nil), xs...)
	sort.Float64s(s)
	return s[len(s)/2]
}
