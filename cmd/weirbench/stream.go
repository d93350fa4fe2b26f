package main

// Streaming benchmarks (-streaming, and part of the default full run):
//
//  1. windowed aggregation: COPY of an event file into a table that has an
//     append-mode tumbling-window streaming table, timed until every closed
//     window is in the streaming table; baseline PostgreSQL COPY + the batch
//     aggregate over the closed windows;
//     1b. the same with 30-second session windows per key, against
//     PostgreSQL's COPY + sessionization with window functions;
//  2. freshness in update mode: a writer INSERTing at a target rate and a
//     SUBSCRIBE TO reader; latency from INSERT acknowledged to the change
//     visible; baseline the plain INSERT round trip;
//  3. state bytes per open window key, from streaming_progress, against the
//     raw bytes of the key and aggregate values.

import (
	"bufio"
	"context"
	"fmt"
	"math/rand"
	"os"
	"path/filepath"
	"runtime"
	"runtime/pprof"
	"sort"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/jackc/pgx/v5"
)

const createEv = `CREATE TABLE ev (id bigint, region text, amount numeric(10,2), ts timestamptz)`

const createR5 = `CREATE STREAMING TABLE r5 AS SELECT region, window_start, window_end, count(*) AS n, sum(amount) AS total FROM STREAM ev WATERMARK ts DELAY OF INTERVAL 1 MINUTE WINDOW TUMBLING (SIZE INTERVAL 5 MINUTES) GROUP BY region, window_start, window_end`

const pgWindowQ = `SELECT region, to_timestamp(floor(extract(epoch from ts)/300)*300) AS ws, count(*), sum(amount) FROM ev WHERE ts < '%s' GROUP BY 1, 2`

// Session windows per key id % 1000: a key's events are about 21.6 s apart
// with ±10 s of jitter, so a 30-second gap both joins and splits sessions.
const createSk = `CREATE STREAMING TABLE sk AS SELECT id % 1000 AS k, window_start, window_end, count(*) AS n, sum(amount) AS total FROM STREAM ev WATERMARK ts DELAY OF INTERVAL 1 MINUTE GROUP BY session_window(ts, '30 seconds'), id % 1000`

// pgSessionQ sessionizes with window functions: a session starts where a
// key's event is at least the gap after its previous one; only sessions
// closed by the final watermark (max ts - 1 minute) count.
const pgSessionQ = `SELECT k, window_start, window_end, n, total FROM (
	SELECT k, min(ts) AS window_start, max(ts) + interval '30 seconds' AS window_end, count(*) AS n, sum(amount) AS total FROM (
		SELECT k, ts, amount, sum(brk) OVER (PARTITION BY k ORDER BY ts ROWS UNBOUNDED PRECEDING) AS sid FROM (
			SELECT id % 1000 AS k, ts, amount, CASE WHEN ts - lag(ts) OVER (PARTITION BY id % 1000 ORDER BY ts) < interval '30 seconds' THEN 0 ELSE 1 END AS brk FROM ev) b) s
	GROUP BY k, sid) r WHERE window_end <= (SELECT max(ts) - interval '1 minute' FROM ev)`

const createFe = `CREATE TABLE fe (id bigint, region text, amount numeric(10,2), ts timestamptz)`

const createFu = `CREATE STREAMING TABLE fu AS SELECT region, window_start, count(*) AS n, sum(amount) AS total FROM STREAM fe WATERMARK ts DELAY OF INTERVAL 1 MINUTE WINDOW TUMBLING (SIZE INTERVAL 5 MINUTES) GROUP BY region, window_start EMIT ON UPDATE`

// State-size streaming tables: every window stays open (watermark delay of
// ten years).
const createOpenRegion = `CREATE STREAMING TABLE open_region AS SELECT region, window_start, window_end, count(*) AS n, sum(amount) AS total FROM STREAM ev WATERMARK ts DELAY OF INTERVAL 3650 DAYS WINDOW TUMBLING (SIZE INTERVAL 5 MINUTES) GROUP BY region, window_start, window_end`

const createOpenKey = `CREATE STREAMING TABLE open_key AS SELECT id %% %d AS k, window_start, count(*) AS n, sum(amount) AS total FROM STREAM ev WATERMARK ts DELAY OF INTERVAL 3650 DAYS WINDOW TUMBLING (SIZE INTERVAL 1 MINUTE) GROUP BY id %% %d, window_start`

const evSpan = 6 * time.Hour

// evStats is what the event file implies.
type evStats struct {
	rows          int
	maxTs         time.Time
	watermark     time.Time // maxTs - 1 minute
	cutoff        time.Time // end of the last closed 5-minute window
	closedWindows int       // distinct (region, 5-min window) with end <= watermark
	windows5      int       // all distinct (region, 5-min window)
	rawRegion     float64   // mean raw bytes of (region, window_start, window_end, count, sum) per 5-min key
	keys1m        int       // distinct (id % keyMod, 1-min window)
	keyMod        int
}

// writeEventsCSV writes id, region, amount, ts with ts increasing over
// evSpan with up to ±10 s of jitter (less than the 1-minute delay, so no
// row is late).
func writeEventsCSV(path string, rows int) (evStats, int64, error) {
	st := evStats{rows: rows, keyMod: 1000}
	f, err := os.Create(path)
	if err != nil {
		return st, 0, err
	}
	bw := bufio.NewWriterSize(f, 1<<20)
	r := rand.New(rand.NewSource(7))
	base := time.Date(2024, 3, 1, 0, 0, 0, 0, time.UTC)
	step := evSpan / time.Duration(rows)
	type rk struct {
		region int
		w      int64
	}
	type kk struct{ k, w int64 }
	win5 := map[rk]bool{}
	win1 := map[kk]bool{}
	buf := make([]byte, 0, 128)
	for i := 0; i < rows; i++ {
		cents := r.Int63n(1_000_000)
		ts := base.Add(time.Duration(i) * step).Add(time.Duration(r.Int63n(21)-10) * time.Second).Truncate(time.Second)
		if ts.After(st.maxTs) {
			st.maxTs = ts
		}
		reg := r.Intn(len(regions))
		id := int64(i + 1)
		win5[rk{reg, ts.Unix() / 300}] = true
		win1[kk{id % int64(st.keyMod), ts.Unix() / 60}] = true
		buf = buf[:0]
		buf = fmt.Appendf(buf, "%d,%s,%d.%02d,", id, regions[reg], cents/100, cents%100)
		buf = ts.AppendFormat(buf, "2006-01-02 15:04:05-07")
		buf = append(buf, '\n')
		bw.Write(buf)
	}
	if err := bw.Flush(); err != nil {
		f.Close()
		return st, 0, err
	}
	fi, err := f.Stat()
	if err != nil {
		return st, 0, err
	}
	st.watermark = st.maxTs.Add(-time.Minute)
	st.cutoff = time.Unix(st.watermark.Unix()/300*300, 0).UTC()
	var raw int
	for k := range win5 {
		if (k.w+1)*300 <= st.watermark.Unix() {
			st.closedWindows++
		}
		// region text bytes + window_start, window_end (8 each) + count
		// (int64) + sum (a scaled int64 holds these sums).
		raw += len(regions[k.region]) + 8 + 8 + 8 + 8
	}
	st.windows5 = len(win5)
	st.rawRegion = float64(raw) / float64(len(win5))
	st.keys1m = len(win1)
	return st, fi.Size(), f.Close()
}

// ---------- 1. windowed aggregation ----------

type progressRow struct {
	status     string
	epoch      int64
	inputRows  int64
	lateRows   int64
	stateRows  int64
	stateBytes int64
	backlog    int64
	outputRows int64
	lastError  *string
}

func readProgress(ctx context.Context, conn *pgx.Conn, name string) (progressRow, error) {
	var p progressRow
	err := conn.QueryRow(ctx, `SELECT status, epoch, input_rows, late_rows, state_rows, state_bytes, backlog_rows, output_rows, last_error FROM weir_catalog.streaming_progress WHERE name = $1`, name).
		Scan(&p.status, &p.epoch, &p.inputRows, &p.lateRows, &p.stateRows, &p.stateBytes, &p.backlog, &p.outputRows, &p.lastError)
	return p, err
}

// waitCaughtUp polls streaming_progress until name has consumed rows input
// rows with no backlog.
func waitCaughtUp(ctx context.Context, conn *pgx.Conn, name string, rows int64, timeout time.Duration) (progressRow, error) {
	deadline := time.Now().Add(timeout)
	for {
		p, err := readProgress(ctx, conn, name)
		if err != nil {
			return p, err
		}
		if p.status == "failed" {
			e := ""
			if p.lastError != nil {
				e = *p.lastError
			}
			return p, fmt.Errorf("streaming table %s failed: %s", name, e)
		}
		if p.inputRows >= rows && p.backlog == 0 {
			return p, nil
		}
		if time.Now().After(deadline) {
			return p, fmt.Errorf("streaming table %s not caught up after %s: %+v", name, timeout, p)
		}
		time.Sleep(5 * time.Millisecond)
	}
}

func textRows(ctx context.Context, conn *pgx.Conn, q string) ([]string, error) {
	rs, err := conn.PgConn().Exec(ctx, q).ReadAll()
	if err != nil {
		return nil, err
	}
	if len(rs) != 1 {
		return nil, fmt.Errorf("%d results", len(rs))
	}
	var out []string
	for _, r := range rs[0].Rows {
		f := make([]string, len(r))
		for i, v := range r {
			if v == nil {
				f[i] = "NULL"
			} else {
				f[i] = string(v)
			}
		}
		out = append(out, strings.Join(f, " | "))
	}
	sort.Strings(out)
	return out, nil
}

func copyFile(ctx context.Context, conn *pgx.Conn, path, table string, rows int) error {
	f, err := os.Open(path)
	if err != nil {
		return err
	}
	defer f.Close()
	tag, err := conn.PgConn().CopyFrom(ctx, bufio.NewReaderSize(f, 1<<20), "COPY "+table+" FROM STDIN (FORMAT csv)")
	if err != nil {
		return fmt.Errorf("copy: %w", err)
	}
	if int(tag.RowsAffected()) != rows {
		return fmt.Errorf("COPY reported %d rows, want %d", tag.RowsAffected(), rows)
	}
	return nil
}

// weirWindowOnce recreates ev and r5, COPYs the events and waits until
// every closed window is in r5. It returns the time and r5's rows.
func weirWindowOnce(ctx context.Context, conn *pgx.Conn, csvPath string, st evStats) (float64, []string, error) {
	got, el, err := weirCopyUntilComplete(ctx, conn, csvPath, st, "r5", createR5, "SELECT region, window_start, n, total FROM r5")
	if err == nil && len(got) != st.closedWindows {
		err = fmt.Errorf("r5 has %d rows, the data has %d closed windows", len(got), st.closedWindows)
	}
	return el, got, err
}

// weirCopyUntilComplete creates ev and the streaming table name (create),
// then times COPY of the event file until name has consumed every row,
// plus reading it with sel. The table must count no late row.
func weirCopyUntilComplete(ctx context.Context, conn *pgx.Conn, csvPath string, st evStats, name, create, sel string) ([]string, float64, error) {
	for _, q := range []string{"DROP STREAMING TABLE IF EXISTS r5", "DROP STREAMING TABLE IF EXISTS sk", "DROP TABLE IF EXISTS ev", createEv, create} {
		if _, err := conn.Exec(ctx, q); err != nil {
			return nil, 0, fmt.Errorf("%s: %w", q, err)
		}
	}
	start := time.Now()
	if err := copyFile(ctx, conn, csvPath, "ev", st.rows); err != nil {
		return nil, 0, err
	}
	copied := time.Since(start)
	p, err := waitCaughtUp(ctx, conn, name, int64(st.rows), 10*time.Minute)
	if err != nil {
		return nil, 0, err
	}
	got, err := textRows(ctx, conn, sel)
	el := time.Since(start).Seconds()
	if err != nil {
		return nil, 0, err
	}
	if p.lateRows != 0 {
		return nil, 0, fmt.Errorf("%s counted %d late rows, want 0", name, p.lateRows)
	}
	logf("  weir: COPY returned after %.3f s, %s complete after %.3f s (%d rows, %d epochs)", copied.Seconds(), name, el, len(got), p.epoch)
	return got, el, nil
}

// weirSessionOnce times COPY until every closed session is in sk.
func weirSessionOnce(ctx context.Context, conn *pgx.Conn, csvPath string, st evStats) (float64, []string, error) {
	got, el, err := weirCopyUntilComplete(ctx, conn, csvPath, st, "sk", createSk, "SELECT k, window_start, window_end, n, total FROM sk")
	return el, got, err
}

func pgSessionOnce(ctx context.Context, conn *pgx.Conn, csvPath string, st evStats) (float64, []string, error) {
	return pgCopyThenQuery(ctx, conn, csvPath, st, pgSessionQ)
}

func pgWindowOnce(ctx context.Context, conn *pgx.Conn, csvPath string, st evStats) (float64, []string, error) {
	return pgCopyThenQuery(ctx, conn, csvPath, st, fmt.Sprintf(pgWindowQ, st.cutoff.Format("2006-01-02 15:04:05-07")))
}

// pgCopyThenQuery times, on PostgreSQL, COPY of the event file into a new
// ev table plus the batch query q, and returns q's rows.
func pgCopyThenQuery(ctx context.Context, conn *pgx.Conn, csvPath string, st evStats, q string) (float64, []string, error) {
	for _, s := range []string{"DROP TABLE IF EXISTS ev", createEv} {
		if _, err := conn.Exec(ctx, s); err != nil {
			return 0, nil, fmt.Errorf("%s: %w", s, err)
		}
	}
	start := time.Now()
	if err := copyFile(ctx, conn, csvPath, "ev", st.rows); err != nil {
		return 0, nil, err
	}
	got, err := textRows(ctx, conn, q)
	el := time.Since(start).Seconds()
	if err != nil {
		return 0, nil, err
	}
	return el, got, nil
}

// ---------- 2. freshness ----------

type freshResult struct {
	target, batch int
	achieved      float64 // rows/s
	batches       int
	missing       int
	vis           []float64 // seconds, INSERT ack → visible in SUBSCRIBE
	ack           []float64 // seconds, INSERT round trip under load
}

func insertSQL(table string, rows int) string {
	var b strings.Builder
	b.WriteString("INSERT INTO " + table + " VALUES ")
	for i := 0; i < rows; i++ {
		if i > 0 {
			b.WriteString(", ")
		}
		fmt.Fprintf(&b, "($%d, $%d, $%d, $%d)", 4*i+1, 4*i+2, 4*i+3, 4*i+4)
	}
	return b.String()
}

// freshOnce runs the writer at rate rows/s (one INSERT of rate/100 rows every
// 10 ms, each with its own region value as the marker) for dur, with a
// SUBSCRIBE TO reader on another connection.
// With sub false (PostgreSQL, for reference) it only writes, into a table
// without a streaming table.
func freshOnce(ctx context.Context, url string, rate int, dur time.Duration, sub ...bool) (*freshResult, error) {
	subscribe := len(sub) == 0 || sub[0]
	ctl, err := connect(url)
	if err != nil {
		return nil, err
	}
	defer ctl.Close(ctx)
	qs := []string{"DROP STREAMING TABLE IF EXISTS fu", "DROP TABLE IF EXISTS fe", createFe, createFu}
	if !subscribe {
		qs = []string{"DROP TABLE IF EXISTS fe", createFe}
	}
	for _, q := range qs {
		if _, err := ctl.Exec(ctx, q); err != nil {
			return nil, fmt.Errorf("%s: %w", q, err)
		}
	}
	const interval = 10 * time.Millisecond
	batch := rate / int(time.Second/interval)
	if batch < 1 {
		batch = 1
	}
	nb := int(dur/interval) + 1
	vis := make([]atomic.Int64, nb)
	var warm atomic.Int64
	var bad atomic.Int64

	if !subscribe {
		warm.Store(1)
	}
	sconn, err := connect(url)
	if err != nil {
		return nil, err
	}
	if !subscribe {
		sconn.Close(ctx)
	}
	sctx, scancel := context.WithCancel(ctx)
	var swg sync.WaitGroup
	swg.Add(1)
	var subErr error
	go func() {
		defer swg.Done()
		if !subscribe {
			return
		}
		defer sconn.Close(context.Background())
		rows, err := sconn.Query(sctx, "SUBSCRIBE TO fu", pgx.QueryExecModeSimpleProtocol)
		if err != nil {
			subErr = err
			return
		}
		defer rows.Close()
		for rows.Next() {
			now := time.Now().UnixNano()
			raw := rows.RawValues() // weir_epoch, weir_diff, region, window_start, n, total
			if len(raw) < 5 || string(raw[1]) != "1" {
				continue
			}
			reg := string(raw[2])
			if reg == "warm" {
				warm.CompareAndSwap(0, now)
				continue
			}
			if len(reg) > 1 && reg[0] == 'b' {
				k, err := strconv.Atoi(reg[1:])
				if err != nil || k < 0 || k >= nb {
					continue
				}
				if n, _ := strconv.Atoi(string(raw[4])); n != batch {
					bad.Add(1)
				}
				vis[k].CompareAndSwap(0, now)
			}
		}
		if err := rows.Err(); err != nil && sctx.Err() == nil {
			subErr = err
		}
	}()
	defer func() { scancel(); swg.Wait() }()

	wconn, err := connect(url)
	if err != nil {
		return nil, err
	}
	defer wconn.Close(ctx)
	sql := insertSQL("fe", batch)
	args := make([]any, 4*batch)
	fill := func(region string) {
		ts := time.Now().UTC().Truncate(time.Microsecond)
		for i := 0; i < batch; i++ {
			args[4*i] = int64(i)
			args[4*i+1] = region
			args[4*i+2] = fmt.Sprintf("%d.%02d", i%1000, i%100)
			args[4*i+3] = ts
		}
	}
	// Warm up: prepare the INSERT and wait until the subscription delivers.
	fill("warm")
	if _, err := wconn.Exec(ctx, sql, args...); err != nil {
		return nil, fmt.Errorf("insert: %w", err)
	}
	for deadline := time.Now().Add(30 * time.Second); warm.Load() == 0; time.Sleep(time.Millisecond) {
		if time.Now().After(deadline) {
			return nil, fmt.Errorf("SUBSCRIBE TO fu did not deliver the warm-up batch (%v)", subErr)
		}
	}
	ack := make([]int64, nb)
	sent := make([]int64, nb)
	start := time.Now()
	end := start.Add(dur)
	n := 0
	for k := 0; k < nb; k++ {
		next := start.Add(time.Duration(k) * interval)
		if next.After(end) {
			break
		}
		if d := time.Until(next); d > 0 {
			time.Sleep(d)
		}
		fill(fmt.Sprintf("b%07d", k))
		t0 := time.Now()
		if _, err := wconn.Exec(ctx, sql, args...); err != nil {
			return nil, fmt.Errorf("insert: %w", err)
		}
		sent[k], ack[k] = t0.UnixNano(), time.Now().UnixNano()
		n++
	}
	el := time.Since(start)
	res := &freshResult{target: rate, batch: batch, batches: n, achieved: float64(n*batch) / el.Seconds()}
	if !subscribe {
		for k := 0; k < n; k++ {
			res.ack = append(res.ack, float64(ack[k]-sent[k])/1e9)
		}
		ctl.Exec(ctx, "DROP TABLE IF EXISTS fe")
		return res, nil
	}
	// Wait for the last changes.
	for deadline := time.Now().Add(10 * time.Second); time.Now().Before(deadline); time.Sleep(5 * time.Millisecond) {
		if vis[n-1].Load() != 0 {
			break
		}
	}
	for k := 0; k < n; k++ {
		res.ack = append(res.ack, float64(ack[k]-sent[k])/1e9)
		v := vis[k].Load()
		if v == 0 {
			res.missing++
			continue
		}
		res.vis = append(res.vis, float64(v-ack[k])/1e9)
	}
	if p, err := readProgress(ctx, ctl, "fu"); err == nil && p.lateRows != 0 {
		return nil, fmt.Errorf("fu counted %d late rows", p.lateRows)
	}
	if b := bad.Load(); b != 0 {
		return nil, fmt.Errorf("%d marker rows had a count different from the batch size %d", b, batch)
	}
	if subErr != nil {
		return nil, fmt.Errorf("subscribe: %w", subErr)
	}
	return res, nil
}

// plainInsertLatencies times n sequential single-row INSERTs (extended
// protocol, prepared) into a table without streaming tables.
func plainInsertLatencies(ctx context.Context, conn *pgx.Conn, n int) ([]float64, error) {
	for _, q := range []string{"DROP TABLE IF EXISTS plain", "CREATE TABLE plain (id bigint, region text, amount numeric(10,2), ts timestamptz)"} {
		if _, err := conn.Exec(ctx, q); err != nil {
			return nil, err
		}
	}
	const q = "INSERT INTO plain VALUES ($1, $2, $3, $4)"
	ts := time.Now().UTC().Truncate(time.Second)
	for i := 0; i < 100; i++ { // warm-up
		if _, err := conn.Exec(ctx, q, int64(i), "north", "1.00", ts); err != nil {
			return nil, err
		}
	}
	out := make([]float64, 0, n)
	for i := 0; i < n; i++ {
		t0 := time.Now()
		if _, err := conn.Exec(ctx, q, int64(i), "north", "1.00", ts); err != nil {
			return nil, err
		}
		out = append(out, time.Since(t0).Seconds())
	}
	return out, nil
}

func quantile(xs []float64, q float64) float64 {
	if len(xs) == 0 {
		return 0
	}
	s := append([]float64(nil), xs...)
	sort.Float64s(s)
	i := int(q*float64(len(s)-1) + 0.5)
	return s[i]
}

// ---------- 3. state size ----------

type stateResult struct {
	name       string
	desc       string
	stateRows  int64
	stateBytes int64
	wantKeys   int
	raw        float64 // raw bytes per key
	rssDelta   int64   // weir RSS growth while the table was built, bytes (-1 if unknown)
	seconds    float64
}

func procRSS(pid int) int64 {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", pid))
	if err != nil {
		return -1
	}
	for _, l := range strings.Split(string(b), "\n") {
		if strings.HasPrefix(l, "VmRSS:") {
			f := strings.Fields(l)
			if len(f) >= 2 {
				kb, _ := strconv.ParseInt(f[1], 10, 64)
				return kb * 1024
			}
		}
	}
	return -1
}

// stateOnce creates a streaming table over the loaded ev table whose
// windows all stay open and reads its state figures once it caught up.
func stateOnce(ctx context.Context, conn *pgx.Conn, pid int, name, create string, rows int) (*stateResult, error) {
	if _, err := conn.Exec(ctx, "DROP STREAMING TABLE IF EXISTS "+name); err != nil {
		return nil, err
	}
	rss0 := int64(-1)
	if pid > 0 {
		rss0 = procRSS(pid)
	}
	start := time.Now()
	if _, err := conn.Exec(ctx, create); err != nil {
		return nil, fmt.Errorf("%s: %w", create, err)
	}
	p, err := waitCaughtUp(ctx, conn, name, int64(rows), 10*time.Minute)
	if err != nil {
		return nil, err
	}
	r := &stateResult{name: name, stateRows: p.stateRows, stateBytes: p.stateBytes, rssDelta: -1, seconds: time.Since(start).Seconds()}
	if pid > 0 && rss0 > 0 {
		r.rssDelta = procRSS(pid) - rss0
	}
	if p.outputRows != 0 {
		return nil, fmt.Errorf("%s emitted %d rows although no window closed", name, p.outputRows)
	}
	return r, nil
}

// ---------- driver ----------

type streamReport struct {
	window *sample
	// sessions is the session-window variant of window, with the number
	// of closed sessions both servers returned.
	sessions    *sample
	sessionRows int
	evRows      int
	evBytes     int64
	st          evStats
	fresh       []*freshResult
	freshDur    time.Duration
	freshRuns   int
	plainWeir   []float64
	plainPG     []float64
	pgWriter    []*freshResult // the same writer against PostgreSQL, no subscriber
	state       []*stateResult
	elapsed     time.Duration
}

func freshDuration(c config) time.Duration {
	if c.quick {
		return 2 * time.Second
	}
	return 5 * time.Second
}

// runStreaming runs the three streaming benchmarks against running servers
// and returns the "Streaming" section of the report.
func runStreaming(ctx context.Context, c config, tmp string, targets [2]*target, weirPID int, pgVersion, cmdline string) (string, error) {
	t0 := time.Now()
	rep := &streamReport{evRows: c.rows, freshDur: freshDuration(c), freshRuns: c.repeat}
	csvPath := filepath.Join(tmp, "events.csv")
	logf("generating %d event rows", c.rows)
	st, size, err := writeEventsCSV(csvPath, c.rows)
	if err != nil {
		return "", err
	}
	rep.st, rep.evBytes = st, size
	logf("events CSV %.1f MB: max ts %s, watermark %s, %d closed windows of %d", float64(size)/1e6,
		st.maxTs.Format(time.RFC3339), st.watermark.Format(time.RFC3339), st.closedWindows, st.windows5)

	// 1. windowed aggregation.
	ws := &sample{name: fmt.Sprintf("COPY %d events → 5-min tumbling windows complete", c.rows), unit: "s",
		goal: "weir ≤ pg", goalOK: func(w, p float64) bool { return w <= p }}
	var want []string
	check := func(name string, got []string) error {
		if want == nil {
			want = got
			return nil
		}
		if strings.Join(got, "\n") != strings.Join(want, "\n") {
			n := min(5, len(got), len(want))
			return fmt.Errorf("windowed results differ (%s: %d rows, other %d rows); first rows:\n  %s\nvs\n  %s",
				name, len(got), len(want), strings.Join(got[:n], "\n  "), strings.Join(want[:n], "\n  "))
		}
		return nil
	}
	if err := interleave(ws, c.repeat, targets, func(t *target) (float64, error) {
		var el float64
		var got []string
		var err error
		if t.name == "weir" {
			el, got, err = weirWindowOnce(ctx, t.conn, csvPath, st)
		} else {
			el, got, err = pgWindowOnce(ctx, t.conn, csvPath, st)
		}
		if err != nil {
			return 0, err
		}
		if len(got) != st.closedWindows {
			return 0, fmt.Errorf("%s returned %d windows, want %d", t.name, len(got), st.closedWindows)
		}
		return el, check(t.name, got)
	}); err != nil {
		return "", err
	}
	logf("windowed results identical on both (%d rows = closed windows)", len(want))
	rep.window = ws

	// 1b. session windows.
	ss := &sample{name: fmt.Sprintf("COPY %d events → 30-second session windows per key (1000 keys) complete", c.rows), unit: "s",
		goal: "weir ≤ pg", goalOK: func(w, p float64) bool { return w <= p }}
	var wantS []string
	if err := interleave(ss, c.repeat, targets, func(t *target) (float64, error) {
		var el float64
		var got []string
		var err error
		if t.name == "weir" {
			el, got, err = weirSessionOnce(ctx, t.conn, csvPath, st)
		} else {
			el, got, err = pgSessionOnce(ctx, t.conn, csvPath, st)
		}
		if err != nil {
			return 0, err
		}
		if wantS == nil {
			wantS = got
		} else if strings.Join(got, "\n") != strings.Join(wantS, "\n") {
			n := min(5, len(got), len(wantS))
			return 0, fmt.Errorf("session results differ (%s: %d rows, other %d rows); first rows:\n  %s\nvs\n  %s",
				t.name, len(got), len(wantS), strings.Join(got[:n], "\n  "), strings.Join(wantS[:n], "\n  "))
		}
		return el, nil
	}); err != nil {
		return "", err
	}
	logf("session results identical on both (%d closed sessions)", len(wantS))
	rep.sessions, rep.sessionRows = ss, len(wantS)
	if _, err := targets[0].conn.Exec(ctx, "DROP STREAMING TABLE IF EXISTS sk"); err != nil {
		return "", err
	}

	// 3. state size (uses the ev table left by the last weir run).
	for _, s := range []struct{ name, create, desc string }{
		{"open_region", createOpenRegion, "`GROUP BY region, window_start, window_end`, 5-min windows, `count(*)`, `sum(amount)`"},
		{"open_key", fmt.Sprintf(createOpenKey, st.keyMod, st.keyMod), fmt.Sprintf("`GROUP BY id %% %d, window_start`, 1-min windows, `count(*)`, `sum(amount)`", st.keyMod)},
	} {
		r, err := stateOnce(ctx, targets[0].conn, weirPID, s.name, s.create, c.rows)
		if err != nil {
			return "", err
		}
		r.desc = s.desc
		if s.name == "open_region" {
			r.wantKeys, r.raw = st.windows5, st.rawRegion
		} else {
			r.wantKeys, r.raw = st.keys1m, 8+8+8+8 // bigint key, window_start, count, sum
		}
		if r.stateRows != int64(r.wantKeys) {
			return "", fmt.Errorf("%s holds %d state rows, the data has %d keys", s.name, r.stateRows, r.wantKeys)
		}
		logf("state %s: %d keys, %d state bytes (%.1f/key), raw %.1f/key, RSS +%.1f MB", s.name, r.stateRows, r.stateBytes,
			float64(r.stateBytes)/float64(r.stateRows), r.raw, float64(r.rssDelta)/1e6)
		rep.state = append(rep.state, r)
		if _, err := targets[0].conn.Exec(ctx, "DROP STREAMING TABLE "+s.name); err != nil {
			return "", err
		}
	}
	// Free the weir side of benchmark 1 before the latency runs.
	for _, q := range []string{"DROP STREAMING TABLE IF EXISTS r5", "DROP TABLE IF EXISTS ev"} {
		if _, err := targets[0].conn.Exec(ctx, q); err != nil {
			return "", err
		}
	}
	if _, err := targets[1].conn.Exec(ctx, "DROP TABLE IF EXISTS ev"); err != nil {
		return "", err
	}

	// 2. freshness, with the plain INSERT round trip as the baseline.
	nPlain := 2000
	if c.quick {
		nPlain = 500
	}
	if rep.plainWeir, err = plainInsertLatencies(ctx, targets[0].conn, nPlain); err != nil {
		return "", fmt.Errorf("plain INSERT on weir: %w", err)
	}
	if rep.plainPG, err = plainInsertLatencies(ctx, targets[1].conn, nPlain); err != nil {
		return "", fmt.Errorf("plain INSERT on postgres: %w", err)
	}
	logf("plain INSERT round trip: weir p50 %.2f ms p99 %.2f ms; postgres p50 %.2f ms p99 %.2f ms",
		quantile(rep.plainWeir, .5)*1e3, quantile(rep.plainWeir, .99)*1e3, quantile(rep.plainPG, .5)*1e3, quantile(rep.plainPG, .99)*1e3)
	for _, rate := range []int{10_000, 100_000} {
		agg := &freshResult{target: rate}
		var achieved []float64
		for i := 0; i < c.repeat; i++ {
			r, err := freshOnce(ctx, targets[0].url, rate, rep.freshDur)
			if err != nil {
				return "", fmt.Errorf("freshness at %d/s: %w", rate, err)
			}
			logf("freshness %d/s run %d: achieved %.0f rows/s, %d batches of %d, visible p50 %.1f ms p99 %.1f ms, INSERT p50 %.1f ms p99 %.1f ms, missing %d",
				rate, i+1, r.achieved, r.batches, r.batch, quantile(r.vis, .5)*1e3, quantile(r.vis, .99)*1e3,
				quantile(r.ack, .5)*1e3, quantile(r.ack, .99)*1e3, r.missing)
			agg.batch = r.batch
			agg.batches += r.batches
			agg.missing += r.missing
			agg.vis = append(agg.vis, r.vis...)
			agg.ack = append(agg.ack, r.ack...)
			achieved = append(achieved, r.achieved)
		}
		agg.achieved = median(achieved)
		rep.fresh = append(rep.fresh, agg)
		// The same writer against PostgreSQL (no streaming, no subscriber),
		// for reference: is the INSERT itself the limit?
		pw := &freshResult{target: rate}
		var pach []float64
		for i := 0; i < c.repeat; i++ {
			r, err := freshOnce(ctx, targets[1].url, rate, rep.freshDur, false)
			if err != nil {
				return "", fmt.Errorf("writer on postgres at %d/s: %w", rate, err)
			}
			logf("writer alone on postgres %d/s run %d: achieved %.0f rows/s, INSERT p50 %.1f ms p99 %.1f ms",
				rate, i+1, r.achieved, quantile(r.ack, .5)*1e3, quantile(r.ack, .99)*1e3)
			pw.batch, pw.batches = r.batch, pw.batches+r.batches
			pw.ack = append(pw.ack, r.ack...)
			pach = append(pach, r.achieved)
		}
		pw.achieved = median(pach)
		rep.pgWriter = append(rep.pgWriter, pw)
	}
	for _, q := range []string{"DROP STREAMING TABLE IF EXISTS fu", "DROP TABLE IF EXISTS fe", "DROP TABLE IF EXISTS plain"} {
		targets[0].conn.Exec(ctx, q)
	}
	targets[1].conn.Exec(ctx, "DROP TABLE IF EXISTS plain")
	rep.elapsed = time.Since(t0)
	return rep.markdown(c, pgVersion, cmdline), nil
}

const streamMethod = `## Streaming

### Method

Same servers, binary, client and interleaving as above (weir as a subprocess with its default
group-commit fsync; PostgreSQL 15 with fsync on).

- **Windowed aggregation.** An event file (CSV, fixed seed) of ` + "`id bigint, region text (10 values), amount numeric(10,2), ts timestamptz`" + `,
  ts increasing over 6 hours with ±10 s of jitter (less than the 1-minute watermark delay, so no
  row is late). weir: each run drops and recreates ` + "`ev`" + ` and the append-mode streaming table
  ` + "`CREATE STREAMING TABLE r5 AS SELECT region, window_start, window_end, count(*) AS n, sum(amount) AS total FROM STREAM ev WATERMARK ts DELAY OF INTERVAL 1 MINUTE WINDOW TUMBLING (SIZE INTERVAL 5 MINUTES) GROUP BY region, window_start, window_end`" + `
  (before the COPY); the time runs from the start of ` + "`COPY ev FROM STDIN`" + ` until
  ` + "`weir_catalog.streaming_progress`" + ` (polled every 5 ms) shows all input rows consumed with
  ` + "`backlog_rows = 0`" + `, plus reading r5 (` + "`SELECT region, window_start, n, total FROM r5`" + `).
  PostgreSQL: drop/create ` + "`ev`" + `, then time COPY + the batch aggregate
  ` + "`SELECT region, to_timestamp(floor(extract(epoch from ts)/300)*300) AS ws, count(*), sum(amount) FROM ev WHERE ts < C GROUP BY 1, 2`" + `
  where C is the end of the last window closed by the final watermark (max ts − 1 minute); the
  filter ` + "`ts < watermark`" + ` would also count the still-open last window, which r5 does not hold.
  Every run checks that r5 has exactly as many rows as the data has closed windows (computed by
  weirbench while writing the file), that late_rows is 0, and that the text rows of both servers
  are identical.
- **Session windows.** The same file and method, with the append-mode table
  ` + "`" + `CREATE STREAMING TABLE sk AS SELECT id % 1000 AS k, window_start, window_end, count(*) AS n, sum(amount) AS total FROM STREAM ev WATERMARK ts DELAY OF INTERVAL 1 MINUTE GROUP BY session_window(ts, '30 seconds'), id % 1000` + "`" + `
  (a key's events are about 21.6 s apart with ±10 s of jitter, so the 30-second gap both joins
  and splits sessions). PostgreSQL: COPY + sessionization with ` + "`lag`" + ` and a running ` + "`sum`" + ` over
  ` + "`PARTITION BY id % 1000 ORDER BY ts`" + `, keeping the sessions closed by the final watermark.
  Every run checks that both servers return identical text rows.
- **Freshness (update mode).** ` + "`CREATE STREAMING TABLE fu AS SELECT region, window_start, count(*) AS n, sum(amount) AS total FROM STREAM fe WATERMARK ts DELAY OF INTERVAL 1 MINUTE WINDOW TUMBLING (SIZE INTERVAL 5 MINUTES) GROUP BY region, window_start EMIT ON UPDATE`" + `,
  recreated for each run. One pgx connection reads ` + "`SUBSCRIBE TO fu`" + ` (rows: weir_epoch, weir_diff,
  then the table's columns); another writes one multi-row ` + "`INSERT INTO fe VALUES ($1,$2,$3,$4), …`" + `
  (prepared, extended protocol) every 10 ms on a fixed schedule (rate/100 rows per INSERT: 100
  rows for 10k events/s, 1000 for 100k events/s; a late INSERT is sent at once, so the achieved
  rate is measured; the median over runs is shown, and the same writer also runs against
  PostgreSQL without a subscriber, for reference). Every row of batch k has region ` + "`b<k>`" + ` and ts = now, so batch k creates
  exactly one new group; its visibility time is when the subscriber receives the ` + "`weir_diff = +1`" + `
  row for ` + "`b<k>`" + ` (its n is checked to equal the batch size). Latency = visibility time − the
  time the INSERT's CommandComplete arrived; p50/p99 over all batches of all runs.
  Baseline (no natural competitor): the physical limit of the same path, the round trip of a
  plain single-row prepared ` + "`INSERT`" + ` on a table without streaming tables (durable on return),
  on weir (and PostgreSQL for reference), and the INSERT round trip of the writer itself.
- **State bytes per open window key.** Over the ` + "`ev`" + ` table left by the last weir run, a
  streaming table whose watermark delay is 3650 days (so no window ever closes) is created and
  read from ` + "`streaming_progress`" + ` once caught up: ` + "`state_bytes / state_rows`" + `. Baseline: the
  raw bytes of the key and aggregate values (text bytes of region; 8 bytes each for bigint,
  timestamptz, count, and the numeric sum as a scaled int64). weir's state_bytes is its own
  estimate (16 bytes per key + value sizes + 16 per aggregate), so the growth of the weir
  process's RSS while the table was built is shown next to it as a check (for ≥100k keys only;
  a lower bound, since the Go heap reuses memory freed earlier; ` + "`-profile`" + ` logs the exact Go
  heap growth per key after a GC, in-process).
- Goals: windowed aggregation weir time ≤ PostgreSQL time; freshness p99 < 100 ms.
- ` + "`go run ./cmd/weirbench -streaming`" + ` runs only these (and rewrites only this section);
  ` + "`-quick`" + ` scales down (200k events, 3 runs, 2 s per freshness run). With ` + "`-profile DIR`" + `,
  stream.prof and fresh.prof are CPU profiles of weir in-process for the windowed and the
  100k events/s freshness workloads.

`

func (r *streamReport) markdown(c config, pgVersion, cmdline string) string {
	var b strings.Builder
	b.WriteString(streamMethod)
	fmt.Fprintf(&b, "### Run of %s\n\n", time.Now().UTC().Format("2006-01-02 15:04 MST"))
	fmt.Fprintf(&b, "- Machine: %d CPUs (nproc), %s/%s, %s, %s; PostgreSQL %s\n",
		runtime.NumCPU(), runtime.GOOS, runtime.GOARCH, goVersion(), cpuModel(), pgVersion)
	fmt.Fprintf(&b, "- Command: `%s` (%d events, CSV %.1f MB, %d closed windows; %d interleaved runs; freshness %d runs of %s per rate); streaming part %.0f s\n\n",
		cmdline, r.evRows, float64(r.evBytes)/1e6, r.st.closedWindows, c.repeat, r.freshRuns, r.freshDur, r.elapsed.Seconds())

	s := r.window
	wm, pm := median(s.weir), median(s.pg)
	met := "yes"
	if !s.goalOK(wm, pm) {
		met = "**NO**"
	}
	b.WriteString("| benchmark | weir median | pg median | weir best | pg best | ratio weir/pg (median) | goal | goal met? |\n")
	b.WriteString("| --- | ---: | ---: | ---: | ---: | ---: | --- | --- |\n")
	rows := float64(r.evRows)
	fmt.Fprintf(&b, "| %s (pg: COPY + batch aggregate) | %.3f s (%.0f events/s) | %.3f s (%.0f events/s) | %.3f s | %.3f s | %.2f | %s | %s |\n\n",
		s.name, wm, rows/wm, pm, rows/pm, best(s.weir, false), best(s.pg, false), wm/pm, s.goal, met)
	fmt.Fprintf(&b, "Both results: %d rows, identical text. Runs (s): weir %s; pg %s.\n\n", r.st.closedWindows, fmtList(s.weir), fmtList(s.pg))
	if ss := r.sessions; ss != nil {
		wm, pm := median(ss.weir), median(ss.pg)
		met := "yes"
		if !ss.goalOK(wm, pm) {
			met = "**NO**"
		}
		b.WriteString("| benchmark | weir median | pg median | weir best | pg best | ratio weir/pg (median) | goal | goal met? |\n")
		b.WriteString("| --- | ---: | ---: | ---: | ---: | ---: | --- | --- |\n")
		fmt.Fprintf(&b, "| %s (pg: COPY + sessionization with window functions) | %.3f s (%.0f events/s) | %.3f s (%.0f events/s) | %.3f s | %.3f s | %.2f | %s | %s |\n\n",
			ss.name, wm, rows/wm, pm, rows/pm, best(ss.weir, false), best(ss.pg, false), wm/pm, ss.goal, met)
		fmt.Fprintf(&b, "Both results: %d closed sessions, identical text. Runs (s): weir %s; pg %s.\n\n", r.sessionRows, fmtList(ss.weir), fmtList(ss.pg))
	}

	b.WriteString("| freshness, update mode | achieved rate | batches | visible after ack p50 | p99 | INSERT round trip p50 | p99 | goal | goal met? |\n")
	b.WriteString("| --- | ---: | ---: | ---: | ---: | ---: | ---: | --- | --- |\n")
	for _, f := range r.fresh {
		met := "yes"
		if quantile(f.vis, .99) >= 0.1 || f.missing > 0 {
			met = "**NO**"
		}
		miss := ""
		if f.missing > 0 {
			miss = fmt.Sprintf(" (%d never seen)", f.missing)
		}
		fmt.Fprintf(&b, "| target %d events/s, %d rows per INSERT every 10 ms | %.0f events/s | %d%s | %s | %s | %s | %s | p99 < 100 ms | %s |\n",
			f.target, f.batch, f.achieved, f.batches, miss, ms(quantile(f.vis, .5)), ms(quantile(f.vis, .99)),
			ms(quantile(f.ack, .5)), ms(quantile(f.ack, .99)), met)
	}
	for _, f := range r.pgWriter {
		fmt.Fprintf(&b, "| reference: the same writer against PostgreSQL (no streaming table, no subscriber), target %d events/s | %.0f events/s | %d | — | — | %s | %s | none | — |\n",
			f.target, f.achieved, f.batches, ms(quantile(f.ack, .5)), ms(quantile(f.ack, .99)))
	}
	fmt.Fprintf(&b, "| baseline: plain single-row INSERT round trip, weir | — | %d | — | — | %s | %s | none (physical limit) | — |\n",
		len(r.plainWeir), ms(quantile(r.plainWeir, .5)), ms(quantile(r.plainWeir, .99)))
	fmt.Fprintf(&b, "| reference: plain single-row INSERT round trip, PostgreSQL | — | %d | — | — | %s | %s | none | — |\n\n",
		len(r.plainPG), ms(quantile(r.plainPG, .5)), ms(quantile(r.plainPG, .99)))

	b.WriteString("| state, all windows open | keys (state_rows) | state_bytes | state bytes/key | raw bytes/key (baseline) | ratio | RSS growth/key (lower bound) | build time |\n")
	b.WriteString("| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: |\n")
	for _, s := range r.state {
		per := float64(s.stateBytes) / float64(s.stateRows)
		rss := "n/a"
		if s.rssDelta >= 0 && s.stateRows >= 100_000 { // below that, noise
			rss = fmt.Sprintf("%.0f B", float64(s.rssDelta)/float64(s.stateRows))
		}
		fmt.Fprintf(&b, "| %s | %d | %.1f MB | %.1f B | %.1f B | %.2f | %s | %.2f s |\n",
			s.desc, s.stateRows, float64(s.stateBytes)/1e6, per, s.raw, per/s.raw, rss, s.seconds)
	}
	b.WriteString("\n")
	return b.String()
}

func ms(sec float64) string { return fmt.Sprintf("%.1f ms", sec*1e3) }

func fmtList(xs []float64) string {
	p := make([]string, len(xs))
	for i, x := range xs {
		p[i] = fmt.Sprintf("%.2f", x)
	}
	return strings.Join(p, ", ")
}

// profileStreaming runs the streaming workloads against weir in-process:
// stream.prof covers the windowed aggregation (COPY until r5 is complete),
// fresh.prof the 100k events/s freshness run; it also measures the Go heap
// growth per open window key (after a GC), which the subprocess cannot show.
func profileStreaming(ctx context.Context, c config, tmp string, conn *pgx.Conn, url string, prof func(string, func() error) error) error {
	csvPath := filepath.Join(tmp, "events.csv")
	st, _, err := writeEventsCSV(csvPath, c.rows)
	if err != nil {
		return err
	}
	if err := prof("stream.prof", func() error {
		for i := 0; i < c.repeat; i++ {
			el, _, err := weirWindowOnce(ctx, conn, csvPath, st)
			if err != nil {
				return err
			}
			logf("windowed aggregation in-process: %s", fmtVal(el, "s"))
		}
		return nil
	}); err != nil {
		return err
	}
	heap := func() uint64 {
		var m runtime.MemStats
		runtime.GC()
		runtime.GC()
		runtime.ReadMemStats(&m)
		return m.HeapAlloc
	}
	for _, s := range []struct{ name, create string }{
		{"open_region", createOpenRegion},
		{"open_key", fmt.Sprintf(createOpenKey, st.keyMod, st.keyMod)},
	} {
		h0 := heap()
		r, err := stateOnce(ctx, conn, 0, s.name, s.create, c.rows)
		if err != nil {
			return err
		}
		h1 := heap()
		logf("state %s: %d keys, state_bytes %.1f/key, Go heap growth %.1f/key (after GC)", s.name, r.stateRows,
			float64(r.stateBytes)/float64(r.stateRows), (float64(h1)-float64(h0))/float64(r.stateRows))
		hp, err := os.Create(filepath.Join(c.profile, "heap_"+s.name+".prof"))
		if err == nil {
			pprof.WriteHeapProfile(hp)
			hp.Close()
		}
		if _, err := conn.Exec(ctx, "DROP STREAMING TABLE "+s.name); err != nil {
			return err
		}
	}
	return prof("fresh.prof", func() error {
		for i := 0; i < c.repeat; i++ {
			r, err := freshOnce(ctx, url, 100_000, freshDuration(c))
			if err != nil {
				return err
			}
			logf("freshness 100k/s in-process: achieved %.0f rows/s, visible p50 %.1f ms p99 %.1f ms, INSERT p50 %.1f ms p99 %.1f ms, missing %d",
				r.achieved, quantile(r.vis, .5)*1e3, quantile(r.vis, .99)*1e3, quantile(r.ack, .5)*1e3, quantile(r.ack, .99)*1e3, r.missing)
		}
		return nil
	})
}
