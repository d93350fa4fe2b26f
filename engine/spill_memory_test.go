package engine_test

import (
	"context"
	"errors"
	"io/fs"
	"path/filepath"
	"runtime"
	"runtime/debug"
	"sync"
	"testing"
	"time"

	"github.com/jackc/pgx/v5/pgconn"

	"github.com/weir-sql/weir/engine"
	"github.com/weir-sql/weir/exec"
	"github.com/weir-sql/weir/internal/pgtest"
)

// TestSpillWithinQueryMemory: operators whose input is far larger than
// the server's query memory (16MB here) complete with the default
// work_mem by spilling, where holding the input would fail with 53200,
// and give PostgreSQL's answer; afterwards nothing is held.
func TestSpillWithinQueryMemory(t *testing.T) {
	// A small GC target keeps the heap near what is live, so that its
	// peak says what the operators hold.
	defer debug.SetGCPercent(debug.SetGCPercent(10))
	srv := startServerWith(t, engine.Config{DataDir: t.TempDir(), QueryMemory: 16 << 20})
	w := srv.connect(t)
	p := pgConnFresh(t, pgtest.Shared(t))
	for _, sql := range []string{
		// Nested loops whose inner side (6M rows) is past 16MB.
		"SELECT count(*), sum(b), count(b) FROM generate_series(1, 3) a LEFT JOIN generate_series(1, 6000000) b ON b > a * 2000000 - 3",
		"SELECT count(*), count(a), sum(a) FROM generate_series(1, 3) a RIGHT JOIN generate_series(1, 6000000) b ON b < a * 2 + 1",
		// Aggregates whose ordered or distinct input (3M rows) is past
		// 16MB, with small results.
		"SELECT count(DISTINCT g), sum(DISTINCT g % 1000), count(*) FROM generate_series(1, 3000000) g",
		"SELECT string_agg(CASE WHEN g % 250000 = 0 THEN g::text END, ',' ORDER BY g % 1000003 DESC, g) FROM generate_series(1, 3000000) g",
		"SELECT g % 2, count(DISTINCT g), string_agg(CASE WHEN g % 500000 = 0 THEN g::text END, ',' ORDER BY -g) FROM generate_series(1, 3000000) g GROUP BY 1 ORDER BY 1",
	} {
		runtime.GC()
		base := liveHeap()
		peak := watchHeapPeak()
		wo := runQuery(w, sql)
		grew := int64(peak()) - int64(base)
		po := runQuery(p, sql)
		t.Logf("%s: Go heap grew by at most %d MB", sql, grew>>20)
		// Holding the input would take 50 to 150 MB of Go heap; the
		// spilling operators stay within work_mem and the 16MB budget,
		// plus the garbage between collections.
		if grew > 64<<20 {
			t.Errorf("%s: the Go heap grew by %d MB", sql, grew>>20)
		}
		if wo.err != "" {
			t.Errorf("%s: weir: %s (%s)", sql, wo.err, wo.code)
			continue
		}
		if d := diffOutcomes(po, wo, true); d != "" {
			t.Errorf("%s: %s", sql, d)
		}
		if used := srv.eng.QueryMemory().Used(); used != 0 {
			t.Errorf("%s: %d bytes held after the query", sql, used)
		}
	}
}

// TestSpillCancelRemovesFiles: a spilling nested-loop join and a spilling
// ordered aggregate stop within a second of statement_timeout (57014), and
// their spill files are gone when the query has ended.
func TestSpillCancelRemovesFiles(t *testing.T) {
	dir := t.TempDir()
	srv := startServer(t, dir)
	c := srv.connect(t)
	ctx := context.Background()
	for _, sql := range []string{"SET work_mem = '64kB'", "SET statement_timeout = '500ms'"} {
		if _, err := c.Exec(ctx, sql); err != nil {
			t.Fatal(err)
		}
	}
	for _, sql := range []string{
		"SELECT count(*) FROM generate_series(1, 200000) a JOIN generate_series(1, 200000) b ON a < b",
		"SELECT string_agg(g::text, ',' ORDER BY -g) FROM generate_series(1, 50000000) g",
		"SELECT count(DISTINCT g) FROM generate_series(1, 50000000) g",
	} {
		before := exec.SpillFilesCreated()
		start := time.Now()
		_, err := c.Exec(ctx, sql)
		took := time.Since(start)
		var pe *pgconn.PgError
		if !errors.As(err, &pe) || pe.Code != "57014" {
			t.Fatalf("%s: want 57014, got %v", sql, err)
		}
		if took > 1500*time.Millisecond {
			t.Errorf("%s: stopped after %v, 1 s past the 500 ms timeout", sql, took)
		}
		if exec.SpillFilesCreated() == before {
			t.Errorf("%s: did not spill before the timeout", sql)
		}
		deadline := time.Now().Add(10 * time.Second)
		for {
			n := 0
			filepath.WalkDir(filepath.Join(dir, "tmp"), func(_ string, d fs.DirEntry, err error) error {
				if err == nil && !d.IsDir() {
					n++
				}
				return nil
			})
			if n == 0 && srv.eng.QueryMemory().Used() == 0 {
				break
			}
			if time.Now().After(deadline) {
				t.Fatalf("%s: %d spill files and %d bytes held after the query", sql, n, srv.eng.QueryMemory().Used())
			}
			time.Sleep(10 * time.Millisecond) // waiting for the query to unwind, with a deadline
		}
	}
}

// watchHeapPeak samples the Go heap every 20ms until the returned function
// is called, which stops the sampling and returns the largest live heap
// seen (the weir server runs in the test's process).
// (liveHeap, select_stream_test.go: the heap the last GC found reachable,
// not the garbage awaiting the next collection, whose amount depends on
// how much the rest of the test process holds rather than on the query.)
func watchHeapPeak() func() uint64 {
	var (
		mu   sync.Mutex
		peak uint64
	)
	stop := make(chan struct{})
	done := make(chan struct{})
	sample := func() {
		live := liveHeap()
		mu.Lock()
		peak = max(peak, live)
		mu.Unlock()
	}
	go func() {
		defer close(done)
		t := time.NewTicker(20 * time.Millisecond)
		defer t.Stop()
		for {
			select {
			case <-stop:
				return
			case <-t.C:
				sample()
			}
		}
	}()
	return func() uint64 {
		close(stop)
		<-done
		sample()
		mu.Lock()
		defer mu.Unlock()
		return peak
	}
}
