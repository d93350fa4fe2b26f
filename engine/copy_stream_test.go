package engine_test

// COPY FROM STDIN streams into its transaction (issue 8, point 2): the
// server's memory stays bounded while gigabytes arrive, and the COPY is
// still all or nothing.

import (
	"context"
	"errors"

	"io"
	"os"
	"runtime"
	"strconv"
	"sync/atomic"
	"testing"
	"time"

	"github.com/jackc/pgx/v5/pgconn"
)

// copyRows is a COPY text stream of n rows of about 100 bytes, with an
// optional bad line at row bad (0: none) and an optional hook called once
// when half the rows are out.
type copyRows struct {
	n, i, bad int64
	half      func()
	buf       []byte
}

const copyRowPad = "the quick brown fox jumps over the lazy dog, again and again and again"

func (r *copyRows) Read(p []byte) (int, error) {
	for len(r.buf) < len(p) && r.i < r.n {
		r.i++
		if r.i == r.bad {
			r.buf = append(r.buf, "not-a-number\tx\n"...)
			continue
		}
		r.buf = strconv.AppendInt(r.buf, r.i, 10)
		r.buf = append(r.buf, '\t')
		r.buf = append(r.buf, copyRowPad...)
		r.buf = append(r.buf, '\n')
		if r.half != nil && r.i == r.n/2 {
			h := r.half
			r.half = nil
			h()
		}
	}
	if len(r.buf) == 0 {
		return 0, io.EOF
	}
	n := copy(p, r.buf)
	r.buf = r.buf[:copy(r.buf, r.buf[n:])]
	return n, nil
}

// TestCopyFromStreamsBounded copies WEIR_COPY_MB (default 256) MB and
// samples the Go heap of the (in-process) server meanwhile: the peak above
// the heap before the COPY must stay a fraction of the input.
func TestCopyFromStreamsBounded(t *testing.T) {
	mb := int64(256)
	if v := os.Getenv("WEIR_COPY_MB"); v != "" {
		mb, _ = strconv.ParseInt(v, 10, 64)
	}
	rows := mb << 20 / int64(len(copyRowPad)+8)
	s := startServer(t, t.TempDir())
	c := s.connect(t)
	ctx := context.Background()
	if _, err := c.Exec(ctx, "CREATE TABLE lines (n bigint, s text)"); err != nil {
		t.Fatal(err)
	}
	runtime.GC()
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	base := ms.HeapInuse
	var peak atomic.Uint64
	stop := make(chan struct{})
	sampled := make(chan struct{})
	go func() {
		defer close(sampled)
		tick := time.NewTicker(5 * time.Millisecond)
		defer tick.Stop()
		for {
			select {
			case <-stop:
				return
			case <-tick.C:
			}
			var m runtime.MemStats
			runtime.ReadMemStats(&m)
			if m.HeapInuse > peak.Load() {
				peak.Store(m.HeapInuse)
			}
		}
	}()
	began := time.Now()
	tag, err := c.PgConn().CopyFrom(ctx, &copyRows{n: rows}, "COPY lines FROM STDIN")
	close(stop)
	<-sampled
	if err != nil {
		t.Fatal(err)
	}
	took := time.Since(began)
	if tag.RowsAffected() != rows {
		t.Fatalf("COPY %d, want %d", tag.RowsAffected(), rows)
	}
	grew := int64(peak.Load()) - int64(base)
	t.Logf("COPY of %d MB (%d rows) in %.1f s: heap peak %d MB above the %d MB before", mb, rows, took.Seconds(), grew>>20, base>>20)
	// What a COPY may hold: a flush's worth of chunks (encoded and as
	// batches) and Badger's memtables, whatever the input's size. Holding
	// the input took three times its size.
	if limit := int64(256 << 20); grew > limit {
		t.Errorf("heap grew %d MB during a %d MB COPY (limit %d MB)", grew>>20, mb, limit>>20)
	}
	var n int64
	if err := c.QueryRow(ctx, "SELECT count(*) FROM lines").Scan(&n); err != nil || n != rows {
		t.Fatalf("count: %d, %v; want %d", n, err, rows)
	}
}

// TestCopyFromAllOrNothing: a bad line after several flushed parts, a
// client that vanishes mid-stream and a ROLLBACK leave nothing; inside a
// block the rows commit with it.
func TestCopyFromAllOrNothing(t *testing.T) {
	s := startServer(t, t.TempDir())
	c := s.connect(t)
	ctx := context.Background()
	if _, err := c.Exec(ctx, "CREATE TABLE lines (n bigint, s text)"); err != nil {
		t.Fatal(err)
	}
	count := func() int64 {
		t.Helper()
		var n int64
		if err := c.QueryRow(ctx, "SELECT count(*) FROM lines").Scan(&n); err != nil {
			t.Fatal(err)
		}
		return n
	}
	const rows = 1_200_000 // about 95 MB: several flushed parts
	_, err := c.PgConn().CopyFrom(ctx, &copyRows{n: rows, bad: rows - 10}, "COPY lines FROM STDIN")
	var pgErr *pgconn.PgError
	if !errors.As(err, &pgErr) || pgErr.Code != "22P02" {
		t.Fatalf("bad line: %v, want 22P02", err)
	}
	if n := count(); n != 0 {
		t.Fatalf("%d rows committed by a COPY that failed", n)
	}

	// The client goes away half-way.
	gone := s.connect(t)
	r := &copyRows{n: rows}
	r.half = func() { gone.PgConn().Conn().Close() }
	if _, err := gone.PgConn().CopyFrom(ctx, r, "COPY lines FROM STDIN"); err == nil {
		t.Fatal("COPY over a closed connection succeeded")
	}
	if n := count(); n != 0 {
		t.Fatalf("%d rows committed by a COPY whose client vanished", n)
	}

	// In a block (500,000 rows, about 40 MB: flushed parts and a tail in
	// memory, plus an INSERT): the block reads its own rows, nobody else
	// does until COMMIT, and nothing is left after ROLLBACK or a COPY that
	// failed in the block.
	const blockRows = 500_000
	for _, end := range []string{"ROLLBACK", "COMMIT"} {
		if _, err := c.Exec(ctx, "BEGIN"); err != nil {
			t.Fatal(err)
		}
		if _, err := c.PgConn().CopyFrom(ctx, &copyRows{n: blockRows}, "COPY lines FROM STDIN"); err != nil {
			t.Fatal(err)
		}
		if _, err := c.Exec(ctx, "INSERT INTO lines VALUES (-1, 'inserted')"); err != nil {
			t.Fatal(err)
		}
		other := s.connect(t)
		var seen int64
		if err := other.QueryRow(ctx, "SELECT count(*) FROM lines").Scan(&seen); err != nil || seen != 0 {
			t.Fatalf("another session sees %d rows of an open block (%v)", seen, err)
		}
		var own, sum int64
		if err := c.QueryRow(ctx, "SELECT count(*), sum(n) FROM lines").Scan(&own, &sum); err != nil {
			t.Fatal(err)
		}
		if own != blockRows+1 || sum != blockRows*(blockRows+1)/2-1 {
			t.Fatalf("the block sees %d of its own rows, sum %d", own, sum)
		}
		if _, err := c.Exec(ctx, end); err != nil {
			t.Fatal(err)
		}
		want := map[string]int64{"ROLLBACK": 0, "COMMIT": blockRows + 1}[end]
		if n := count(); n != want {
			t.Fatalf("after %s: %d rows, want %d", end, n, want)
		}
	}
	if _, err := c.Exec(ctx, "BEGIN"); err != nil {
		t.Fatal(err)
	}
	if _, err := c.PgConn().CopyFrom(ctx, &copyRows{n: blockRows, bad: blockRows - 1}, "COPY lines FROM STDIN"); err == nil {
		t.Fatal("bad line in a block: no error")
	}
	if _, err := c.Exec(ctx, "COMMIT"); err != nil { // a failed block: ROLLBACK
		t.Fatal(err)
	}
	if n := count(); n != blockRows+1 {
		t.Fatalf("after a failed COPY in a block: %d rows, want %d", n, blockRows+1)
	}

}
