package main

import (
	"bytes"
	"context"
	"flag"
	"fmt"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/weir-sql/weir/internal/pgtest"
)

// The file lab of docs/tutorial-files.md as a test: JSON-lines files land
// in a folder while the server is killed with SIGKILL and restarted;
// bronze (read_files), silver (DISTINCT ON with a watermark) and gold
// (5-minute windows per event type) must end up as PostgreSQL's batch
// SQL over the same rows computes them, each file read exactly once; and
// a file that lands once the pipeline is caught up must reach all three
// layers within a second (asserted with a generous bound: the machine is
// shared).

var (
	fileLabKills = flag.Int("filelab.kills", 6, "TestFileLab: how many times to SIGKILL the server while files land")
	fileLabSeed  = flag.Uint64("filelab.seed", 0, "TestFileLab: seed (0: from the clock)")
	fileLabTail  = flag.Duration("filelab.tail", time.Second, "TestFileLab: how long files go on landing after the last restart")
)

// The lab's three tables, exactly as docs/tutorial-files.md writes them.
var fileLabDDL = []string{
	`CREATE OR REFRESH STREAMING TABLE bronze AS
SELECT *, _metadata.file_name AS source_file
FROM STREAM read_files('landing/events', format => 'json',
                       schemaHints => 'amount decimal(18,2), event_time timestamp')`,
	`CREATE OR REFRESH STREAMING TABLE silver AS
SELECT DISTINCT ON (event_id)
       event_id,
       lower(trim(event_type)) AS event_type,
       CAST(user_id AS bigint) AS user_id,
       CAST(amount AS numeric(18,2)) AS amount,
       event_time,
       source_file
FROM STREAM bronze WATERMARK event_time DELAY OF INTERVAL 10 MINUTES
WHERE event_id IS NOT NULL`,
	`CREATE OR REFRESH STREAMING TABLE gold AS
SELECT window.start AS window_start, window.end AS window_end, event_type,
       count(*) AS events, sum(amount) AS amount
FROM STREAM silver WATERMARK event_time DELAY OF INTERVAL 10 MINUTES
GROUP BY window(event_time, '5 minutes'), event_type`,
}

// The same three layers as PostgreSQL batch SQL over lab_events, the rows
// the files hold in the order weir reads them: files oldest first (the
// writer makes them one after another, so their modification times and
// names both follow file_seq), lines in file order. Silver keeps the
// first row of each event_id in that order (dialect.md: "keep the first
// row of each event_id"). Gold is append mode (the default for a windowed
// aggregate): a window is there once the final watermark, the largest
// event time silver delivered minus 10 minutes, has reached its end.
const (
	labSilverOracle = `SELECT DISTINCT ON (event_id) event_id, lower(trim(event_type)) AS event_type, user_id, amount, event_time, file_name
		FROM lab_events ORDER BY event_id, file_seq, line`
	labBronzeWeir   = `SELECT event_id, event_type, user_id, amount, event_time, source_file, _rescued_data->>'amount' FROM bronze`
	labBronzeOracle = `SELECT event_id, event_type, user_id, amount, event_time, file_name, bad_amount FROM lab_events`
	labSilverWeir   = `SELECT event_id, event_type, user_id, amount, event_time, source_file FROM silver`
	labGoldWeir     = `SELECT window_start, window_end, event_type, events, amount FROM gold`
	labGoldOracle   = `SELECT date_bin('5 minutes', event_time, 'epoch') AS ws, date_bin('5 minutes', event_time, 'epoch') + interval '5 minutes', event_type, count(*), sum(amount)
		FROM (` + labSilverOracle + `) s GROUP BY ws, event_type
		HAVING date_bin('5 minutes', event_time, 'epoch') + interval '5 minutes' <= (SELECT max(event_time) - interval '10 minutes' FROM lab_events)`
)

// labEvent is one line of one landed file.
type labEvent struct {
	fileSeq, line int
	file          string
	id, typ       string
	user          int64
	amount        string // "" when the line's amount is the unparsable "n/a"
	ts            time.Time
}

// labWriter makes the lab's files: JSON lines, written under a hidden name
// and renamed into the landing folder (the completeness rule the tutorial
// documents), with duplicated events (the same event_id and event time, a
// different amount: silver must keep the first), out-of-order event times
// (by less than the watermark delay, so no row is ever late) and the odd
// unparsable amount (rescued in bronze, NULL downstream).
type labWriter struct {
	dir   string
	r     *rand.Rand
	clock time.Time
	seq   int
	next  int64

	mu      sync.Mutex
	written []labEvent
}

var labTypes = []string{"view", "View", " view", "buy", "BUY ", "cart"}

// file makes the next file's events (n of them, starting at event time
// clock + advance) without writing it.
func (w *labWriter) file(n int, advance time.Duration) (name string, body []byte, evs []labEvent) {
	w.seq++
	name = fmt.Sprintf("events-%06d.json", w.seq)
	w.clock = w.clock.Add(advance)
	var b bytes.Buffer
	w.mu.Lock()
	recent := w.written[max(0, len(w.written)-300):]
	w.mu.Unlock()
	for i := 0; i < n; i++ {
		var e labEvent
		if pool := len(recent) + len(evs); pool > 0 && w.r.IntN(12) == 0 {
			// A duplicate of a recent event: a producer's retry.
			k := w.r.IntN(pool)
			var d labEvent
			if k < len(recent) {
				d = recent[k]
			} else {
				d = evs[k-len(recent)]
			}
			e = labEvent{id: d.id, typ: d.typ, user: d.user, ts: d.ts}
		} else {
			w.next++
			w.clock = w.clock.Add(time.Duration(w.r.IntN(2000)) * time.Millisecond)
			e = labEvent{id: fmt.Sprintf("e%07d", w.next), typ: labTypes[w.r.IntN(len(labTypes))], user: int64(w.r.IntN(1000)),
				ts: w.clock.Add(-time.Duration(w.r.IntN(5*60_000)) * time.Millisecond)} // out of order by < 5 min
		}
		e.fileSeq, e.line, e.file = w.seq, i+1, name
		amount := fmt.Sprintf("%d.%02d", w.r.IntN(500), w.r.IntN(100))
		if w.r.IntN(150) == 0 {
			amount = `"n/a"`
		} else {
			e.amount = amount
		}
		fmt.Fprintf(&b, `{"event_id":%q,"event_type":%q,"user_id":%d,"amount":%s,"event_time":%q}`+"\n",
			e.id, e.typ, e.user, amount, e.ts.UTC().Format("2006-01-02T15:04:05.000Z"))
		evs = append(evs, e)
	}
	return name, b.Bytes(), evs
}

// land writes a file under a hidden name and renames it into the folder.
func (w *labWriter) land(name string, body []byte, evs []labEvent) error {
	tmp := filepath.Join(w.dir, "."+name+".tmp")
	if err := os.WriteFile(tmp, body, 0o644); err != nil {
		return err
	}
	if err := os.Rename(tmp, filepath.Join(w.dir, name)); err != nil {
		return err
	}
	w.mu.Lock()
	w.written = append(w.written, evs...)
	w.mu.Unlock()
	return nil
}

func (w *labWriter) events() []labEvent {
	w.mu.Lock()
	defer w.mu.Unlock()
	return append([]labEvent(nil), w.written...)
}

// startLabServer starts weir in root (its files root) on dataDir.
func startLabServer(t *testing.T, root, dataDir string, port int) *crashServer {
	t.Helper()
	s := &crashServer{port: port, log: &bytes.Buffer{}, exited: make(chan error, 1)}
	s.cmd = exec.Command(weirBinary, "serve", "--data", dataDir, "--listen", fmt.Sprintf("127.0.0.1:%d", port), "--files-root", root)
	s.cmd.Dir = root
	s.cmd.Stdout, s.cmd.Stderr = s.log, s.log
	if err := s.cmd.Start(); err != nil {
		t.Fatalf("start weir: %v", err)
	}
	go func() { s.exited <- s.cmd.Wait() }()
	deadline := time.Now().Add(30 * time.Second)
	for {
		ctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
		c, err := pgx.Connect(ctx, s.url())
		cancel()
		if err == nil {
			c.Close(context.Background())
			return s
		}
		select {
		case err := <-s.exited:
			t.Fatalf("weir exited during start (%v):\n%s", err, s.log)
		default:
		}
		if time.Now().After(deadline) {
			t.Fatalf("weir did not accept connections within 30s:\n%s", s.log)
		}
		time.Sleep(10 * time.Millisecond) // polling interval, not synchronisation
	}
}

func TestFileLab(t *testing.T) {
	seed := *fileLabSeed
	if seed == 0 {
		seed = uint64(time.Now().UnixNano())
	}
	t.Logf("seed %d (reproduce: go test ./cmd/weir -run TestFileLab -filelab.seed=%d -filelab.kills=%d)", seed, seed, *fileLabKills)
	ctx := context.Background()
	r := rand.New(rand.NewPCG(seed, 11))
	root := t.TempDir()
	landing := filepath.Join(root, "landing", "events")
	if err := os.MkdirAll(landing, 0o755); err != nil {
		t.Fatal(err)
	}
	dataDir := filepath.Join(root, "weir-data")
	port := freePort(t)
	w := &labWriter{dir: landing, r: rand.New(rand.NewPCG(seed, 12)), clock: time.Date(2024, 1, 1, 10, 0, 0, 0, time.UTC)}

	// A few files first: bronze infers its schema from what is there.
	for i := 0; i < 3; i++ {
		if err := w.land(w.file(20+w.r.IntN(100), 0)); err != nil {
			t.Fatal(err)
		}
	}
	srv := startLabServer(t, root, dataDir, port)
	defer func() { srv.kill() }()
	conn, err := pgx.Connect(ctx, srv.url())
	if err != nil {
		t.Fatal(err)
	}
	for _, ddl := range fileLabDDL {
		if _, err := conn.Exec(ctx, ddl); err != nil {
			t.Fatalf("%s\n: %v\n%s", ddl, err, srv.log)
		}
	}
	conn.Close(ctx)

	// Files land all the time, whether the server is up or not.
	stop := make(chan struct{})
	writerDone := make(chan error, 1)
	go func() {
		for {
			select {
			case <-stop:
				writerDone <- nil
				return
			default:
			}
			if err := w.land(w.file(20+w.r.IntN(180), 0)); err != nil {
				writerDone <- err
				return
			}
			time.Sleep(time.Duration(10+w.r.IntN(50)) * time.Millisecond) // the pace of arrivals, not synchronisation
		}
	}()
	for kill := 0; kill < *fileLabKills; kill++ {
		time.Sleep(time.Duration(100+r.IntN(1400)) * time.Millisecond) // the random moment of the kill: timing, not synchronisation
		srv.kill()
		if log := srv.log.String(); strings.Contains(log, "panic") {
			t.Fatalf("the server panicked before kill %d:\n%s", kill+1, log)
		}
		time.Sleep(time.Duration(r.IntN(500)) * time.Millisecond) // down for a while, files still landing
		srv = startLabServer(t, root, dataDir, port)
		labCheckNoRepeats(t, ctx, srv, w, kill+1)
	}
	time.Sleep(*fileLabTail) // files landing into the running server: timing, not synchronisation
	close(stop)
	if err := <-writerDone; err != nil {
		t.Fatal(err)
	}

	pg := pgtest.Shared(t)
	pgc, err := pgx.Connect(ctx, pg.FreshDatabase(t))
	if err != nil {
		t.Fatal(err)
	}
	defer pgc.Close(ctx)
	if _, err := pgc.Exec(ctx, `SET TimeZone = 'UTC'; CREATE TABLE lab_events (file_seq int, line int, file_name text, event_id text, event_type text,
		user_id bigint, amount numeric(18,2), event_time timestamptz, bad_amount text)`); err != nil {
		t.Fatal(err)
	}
	loaded := 0
	load := func() {
		evs := w.events()
		rows := make([][]any, 0, len(evs)-loaded)
		for _, e := range evs[loaded:] {
			var amount, bad any
			if e.amount != "" {
				amount = e.amount
			} else {
				bad = "n/a"
			}
			rows = append(rows, []any{int32(e.fileSeq), int32(e.line), e.file, e.id, e.typ, e.user, amount, e.ts, bad})
		}
		if _, err := pgc.CopyFrom(ctx, pgx.Identifier{"lab_events"}, []string{"file_seq", "line", "file_name", "event_id", "event_type", "user_id", "amount", "event_time", "bad_amount"}, pgx.CopyFromRows(rows)); err != nil {
			t.Fatal(err)
		}
		loaded = len(evs)
	}
	load()
	conn, err = pgx.Connect(ctx, srv.url())
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close(ctx)
	labCompare(t, ctx, conn, pgc, srv, 60*time.Second, "after the kills")
	t.Logf("%d kills survived; %d files, %d lines landed", *fileLabKills, w.seq, loaded)

	// Freshness: one file at a time into the caught-up pipeline, each
	// moving event time on by 6 minutes so that it closes a gold window.
	var lat [3][]time.Duration
	for probe := 0; probe < 5; probe++ {
		name, body, evs := w.file(20, 6*time.Minute)
		w.mu.Lock()
		w.written = append(w.written, evs...) // for the oracle, before the file lands
		w.mu.Unlock()
		load()
		want := [3]string{}
		for i, q := range []string{labBronzeOracle, labSilverOracle, labGoldOracle} {
			if err := pgc.QueryRow(ctx, "SELECT count(*) FROM ("+q+") x").Scan(&want[i]); err != nil {
				t.Fatal(err)
			}
		}
		tmp := filepath.Join(landing, "."+name+".tmp")
		if err := os.WriteFile(tmp, body, 0o644); err != nil {
			t.Fatal(err)
		}
		landed := time.Now()
		if err := os.Rename(tmp, filepath.Join(landing, name)); err != nil {
			t.Fatal(err)
		}
		for i, table := range []string{"bronze", "silver", "gold"} {
			deadline := landed.Add(30 * time.Second)
			for {
				var got string
				if err := conn.QueryRow(ctx, "SELECT count(*) FROM "+table).Scan(&got); err != nil {
					t.Fatal(err)
				}
				if got == want[i] {
					lat[i] = append(lat[i], time.Since(landed))
					break
				}
				if time.Now().After(deadline) {
					t.Fatalf("probe %d: %s has %s rows 30 s after the file landed, want %s", probe, table, got, want[i])
				}
				time.Sleep(2 * time.Millisecond) // polling interval, with a deadline
			}
		}
	}
	labCompare(t, ctx, conn, pgc, srv, 30*time.Second, "after the freshness probes")
	for i, table := range []string{"bronze", "silver", "gold"} {
		s := append([]time.Duration(nil), lat[i]...)
		sort.Slice(s, func(a, b int) bool { return s[a] < s[b] })
		t.Logf("file landed → visible in %s: median %s, max %s (%d probes)", table, s[len(s)/2].Round(time.Millisecond), s[len(s)-1].Round(time.Millisecond), len(s))
		if s[len(s)/2] > 5*time.Second {
			t.Errorf("%s: median latency %s from a file landing to its rows, want well within a second (bound 5 s on a shared machine)", table, s[len(s)/2])
		}
	}
}

// labCheckNoRepeats checks, right after a restart, that bronze holds no
// file's lines more than once and no file that never landed.
func labCheckNoRepeats(t *testing.T, ctx context.Context, srv *crashServer, w *labWriter, round int) {
	t.Helper()
	lines := map[string]int64{}
	for _, e := range w.events() {
		lines[e.file]++
	}
	conn, err := pgx.Connect(ctx, srv.url())
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close(ctx)
	rows, err := conn.Query(ctx, "SELECT source_file, count(*) FROM bronze GROUP BY source_file")
	if err != nil {
		t.Fatalf("round %d: %v\n%s", round, err, srv.log)
	}
	defer rows.Close()
	for rows.Next() {
		var f string
		var n int64
		if err := rows.Scan(&f, &n); err != nil {
			t.Fatal(err)
		}
		if n > lines[f] {
			t.Fatalf("round %d: bronze holds %d rows of %s, which has %d lines: a file was read twice", round, n, f, lines[f])
		}
	}
	if err := rows.Err(); err != nil {
		t.Fatal(err)
	}
}

// labCompare waits (up to wait) for each layer to equal PostgreSQL's batch
// result over every landed row, and fails with the difference.
func labCompare(t *testing.T, ctx context.Context, conn, pgc *pgx.Conn, srv *crashServer, wait time.Duration, when string) {
	t.Helper()
	for _, l := range []struct{ name, weir, oracle string }{
		{"bronze", labBronzeWeir, labBronzeOracle},
		{"silver", labSilverWeir, labSilverOracle},
		{"gold", labGoldWeir, labGoldOracle},
	} {
		want := textRows(t, ctx, pgc, l.oracle)
		deadline := time.Now().Add(wait)
		for {
			got := textRows(t, ctx, conn, l.weir)
			missing, extra := diffRows(want, got)
			if len(missing)+len(extra) == 0 {
				break
			}
			if time.Now().After(deadline) {
				var progress string
				conn.QueryRow(ctx, "SELECT string_agg(name || ' status ' || status || ' input ' || input_rows || ' late ' || late_rows || ' output ' || output_rows || ' ' || coalesce(last_error, ''), ', ') FROM weir_catalog.streaming_progress").Scan(&progress)
				t.Fatalf("%s: %s differs from PostgreSQL over the same rows (%d rows there, %d in weir): %d missing, %d extra\nmissing: %v\nextra: %v\nprogress: %s\nbronze's arrival order: %s\nserver log (tail): %s",
					when, l.name, len(want), len(got), len(missing), len(extra), head(missing), head(extra), progress, labOrder(t, ctx, conn), tail(srv.log.String(), 3000))
			}
			time.Sleep(20 * time.Millisecond) // polling interval, with a deadline
		}
	}
}

func tail(s string, n int) string {
	if len(s) > n {
		return s[len(s)-n:]
	}
	return s
}

// labOrder describes the order bronze received its files in (its rows'
// order in a plain scan): the places where a file follows a later one.
func labOrder(t *testing.T, ctx context.Context, conn *pgx.Conn) string {
	rows, err := conn.Query(ctx, "SELECT source_file FROM bronze")
	if err != nil {
		return err.Error()
	}
	defer rows.Close()
	var files []string
	for rows.Next() {
		var f string
		rows.Scan(&f)
		if len(files) == 0 || files[len(files)-1] != f {
			files = append(files, f)
		}
	}
	var out []string
	for i := 1; i < len(files); i++ {
		if files[i] < files[i-1] {
			out = append(out, fmt.Sprintf("%s after %s (run %d of %d)", files[i], files[i-1], i, len(files)))
		}
	}
	if len(out) == 0 {
		return fmt.Sprintf("in file order (%d runs of one file)", len(files))
	}
	return strings.Join(head(out), "; ") + fmt.Sprintf(" (%d inversions)", len(out))
}
