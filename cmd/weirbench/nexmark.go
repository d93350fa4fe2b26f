package main

// The Nexmark benchmark (-nexmark N): for each query of testdata/nexmark
// (the suite engine/nexmark_suite_test.go checks against PostgreSQL), the
// events per second weir's streaming table runs at from the generator —
// INSERT … SELECT FROM nexmark() into the person, auction and bid tables
// the query reads, in -nexmark.batches statements, until the streaming
// table has consumed every row — next to PostgreSQL's COPY of the same
// rows plus the query's batch form, in the same run, interleaved. Cores
// are each server's CPU time (user + system, from /proc) over the wall
// time: weir's process; PostgreSQL's postmaster with its children
// (backends, parallel workers, WAL writer, checkpointer).
//
// A query weir refuses as a streaming table gets PostgreSQL's figure and
// the refusal. The first row, "ingest only", is the generator writing the
// three tables with no streaming table (PostgreSQL: the COPY alone).

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"

	"github.com/weir-sql/weir/connector/nexmark"
	"github.com/weir-sql/weir/internal/nexmarkq"
)

// nexmarkQuery is one query file of testdata/nexmark.
type nexmarkQuery struct {
	name      string
	title     string
	streams   []string
	streaming string
	batch     string
}

// loadNexmarkQueries parses testdata/nexmark/q*.sql (internal/nexmarkq)
// in query order; a title loses its "qN: " prefix.
func loadNexmarkQueries(dir string) ([]nexmarkQuery, error) {
	files, err := nexmarkq.Load(dir)
	if err != nil {
		return nil, err
	}
	qs := make([]nexmarkQuery, len(files))
	for i, f := range files {
		title := f.Title
		if k := strings.Index(title, ": "); k > 0 {
			title = title[k+2:]
		}
		qs[i] = nexmarkQuery{name: f.Name, title: title, streams: f.Streams, streaming: f.Streaming, batch: f.Batch}
	}
	return qs, nil
}

// The tables as engine/nexmark_suite_test.go makes them: weir's with the
// watermark the windowed queries close their windows by.
var nexmarkBenchTables = []struct{ name, cols string }{
	{"person", "id bigint, name text, email_address text, credit_card text, city text, state text, date_time timestamp, extra text"},
	{"auction", "id bigint, item_name text, description text, initial_bid bigint, reserve bigint, date_time timestamp, expires timestamp, seller bigint, category bigint, extra text"},
	{"bid", "auction bigint, bidder bigint, price bigint, channel text, url text, date_time timestamp, extra text"},
}

const (
	nexmarkBenchWatermark = ", WATERMARK FOR date_time AS date_time - INTERVAL '2 seconds'"
	nexmarkBenchOptions   = ", seed => 7, events_per_second => 200, disorder => '2 seconds'"
)

// nexmarkResult is one query's measurements.
type nexmarkResult struct {
	q       nexmarkQuery
	refusal string    // weir's refusal of the streaming table, "" if accepted
	weir    []float64 // seconds, generator → streaming table caught up
	weirCPU []float64 // weir's CPU seconds over the same time
	ingest  []float64 // seconds until the last INSERT returned
	pg      []float64 // seconds, COPY + batch query
	pgCPU   []float64
	rows    int64 // the streaming table's rows (weir) = the batch rows (PostgreSQL)
	pgRows  int64
}

func runNexmark(c config, events int64, batches int, only string) error {
	ctx := context.Background()
	root, err := moduleRoot()
	if err != nil {
		return err
	}
	queries, err := loadNexmarkQueries(filepath.Join(root, "testdata", "nexmark"))
	if err != nil {
		return err
	}
	if only != "" {
		keep := map[string]bool{}
		for _, n := range strings.Split(only, ",") {
			keep[strings.TrimSpace(n)] = true
		}
		var qs []nexmarkQuery
		for _, q := range queries {
			if keep[q.name] {
				qs = append(qs, q)
			}
		}
		queries = qs
	}
	t0 := time.Now()
	servers, err := startServerPair(root, "weirbench-nexmark-")
	if err != nil {
		return err
	}
	defer servers.stop()
	w, pg := servers.targets()[0], servers.targets()[1]
	for _, t := range []*target{w, pg} {
		if t.conn, err = connect(t.url); err != nil {
			return fmt.Errorf("connect %s: %w", t.name, err)
		}
		defer t.conn.Close(ctx)
	}
	var pgVersion string
	pg.conn.QueryRow(ctx, "SHOW server_version").Scan(&pgVersion)
	weirPID := servers.weir.cmd.Process.Pid
	pgPID, err := postmasterPID(servers.pg.Dir)
	if err != nil {
		return err
	}

	// The rows once, as COPY text, for PostgreSQL.
	files := map[string]string{}
	rows := map[string]int64{}
	for _, tb := range nexmarkBenchTables {
		table, _ := nexmark.TableByName(tb.name)
		rows[tb.name] = nexmark.RowsIn(table, events)
		path := filepath.Join(servers.tmp, tb.name+".txt")
		f, err := os.Create(path)
		if err != nil {
			return err
		}
		bw := bufio.NewWriterSize(f, 1<<20)
		_, err = w.conn.PgConn().CopyTo(ctx, bw, fmt.Sprintf("COPY (SELECT * FROM nexmark('%s', max_events => %d%s)) TO STDOUT", tb.name, events, nexmarkBenchOptions))
		if err == nil {
			err = bw.Flush()
		}
		f.Close()
		if err != nil {
			return fmt.Errorf("COPY nexmark('%s') out of weir: %w", tb.name, err)
		}
		files[tb.name] = path
	}
	logf("%d events: %d people, %d auctions, %d bids", events, rows["person"], rows["auction"], rows["bid"])
	for _, t := range []*target{w, pg} {
		for _, sql := range []string{"DROP TABLE IF EXISTS side_input", "CREATE TABLE side_input (key bigint, value text)",
			"INSERT INTO side_input SELECT g, 'side-' || g FROM generate_series(0, 9999) g"} {
			if _, err := t.conn.Exec(ctx, sql); err != nil {
				return fmt.Errorf("%s: %s: %w", t.name, sql, err)
			}
		}
	}

	ingest := nexmarkQuery{name: "ingest", title: "the generator into the tables, no query", streams: []string{"person", "auction", "bid"}}
	var results []*nexmarkResult
	for _, q := range append([]nexmarkQuery{ingest}, queries...) {
		r := &nexmarkResult{q: q}
		results = append(results, r)
		for i := 0; i < c.repeat; i++ {
			sides := []string{"weir", "postgres"}
			if i%2 == 1 {
				sides = []string{"postgres", "weir"}
			}
			for _, side := range sides {
				if side == "weir" {
					if r.refusal != "" {
						continue
					}
					el, cpu, in, n, refusal, err := nexmarkWeirOnce(ctx, w.conn, weirPID, q, events, rows, batches)
					if err != nil {
						return fmt.Errorf("%s on weir: %w", q.name, err)
					}
					if refusal != "" {
						r.refusal = refusal
						logf("%s: weir refuses it: %s", q.name, refusal)
						continue
					}
					r.weir, r.weirCPU, r.ingest, r.rows = append(r.weir, el), append(r.weirCPU, cpu), append(r.ingest, in), n
					logf("%s run %d weir: %.3f s (%.0f events/s, %.2f cores; inserts returned after %.3f s), %d rows", q.name, i+1, el, float64(events)/el, cpu/el, in, n)
				} else {
					el, cpu, n, err := nexmarkPGOnce(ctx, pg.conn, pgPID, q, files, rows)
					if err != nil {
						return fmt.Errorf("%s on PostgreSQL: %w", q.name, err)
					}
					r.pg, r.pgCPU, r.pgRows = append(r.pg, el), append(r.pgCPU, cpu), n
					logf("%s run %d postgres: %.3f s (%.0f events/s, %.2f cores), %d rows", q.name, i+1, el, float64(events)/el, cpu/el, n)
				}
			}
		}
		if r.refusal == "" && q.name != "ingest" && r.rows != r.pgRows {
			return fmt.Errorf("%s: weir's streaming table has %d rows, PostgreSQL's batch form %d", q.name, r.rows, r.pgRows)
		}
	}
	cmdline := "go run ./cmd/weirbench " + strings.Join(os.Args[1:], " ")
	md := nexmarkReport(c, events, batches, results, pgVersion, cmdline, time.Since(t0))
	fmt.Println()
	fmt.Println(md)
	doc := c.doc
	if doc == "" {
		doc = filepath.Join(root, "docs", "benchmarks.md")
	}
	if doc != "-" {
		if err := writeSection(doc, nexmarkBegin, nexmarkEnd, md); err != nil {
			return err
		}
		logf("wrote %s", doc)
	}
	return nil
}

// nexmarkWeirOnce recreates the query's input tables and its streaming
// table, then times the generator's INSERTs until the table has consumed
// every row. It returns the seconds, weir's CPU seconds, the seconds until
// the last INSERT returned, the streaming table's rows, and the refusal
// when weir does not accept the query.
func nexmarkWeirOnce(ctx context.Context, conn *pgx.Conn, pid int, q nexmarkQuery, events int64, rows map[string]int64, batches int) (el, cpu, ingest float64, n int64, refusal string, err error) {
	setup := []string{"DROP STREAMING TABLE IF EXISTS nx"}
	for _, tb := range nexmarkBenchTables {
		setup = append(setup, "DROP TABLE IF EXISTS "+tb.name)
	}
	for _, tb := range nexmarkBenchTables {
		setup = append(setup, "CREATE TABLE "+tb.name+" ("+tb.cols+nexmarkBenchWatermark+")")
	}
	for _, sql := range setup {
		if _, err := conn.Exec(ctx, sql); err != nil {
			return 0, 0, 0, 0, "", fmt.Errorf("%s: %w", sql, err)
		}
	}
	if q.name != "ingest" {
		if _, err := conn.Exec(ctx, "CREATE STREAMING TABLE nx AS "+q.streaming); err != nil {
			var pe *pgconn.PgError
			if errors.As(err, &pe) {
				return 0, 0, 0, 0, pe.Code + ": " + pe.Message, nil
			}
			return 0, 0, 0, 0, "", err
		}
	}
	var want int64
	for _, s := range q.streams {
		want += rows[s]
	}
	cpu0, err := processCPU(pid)
	if err != nil {
		return 0, 0, 0, 0, "", err
	}
	start := time.Now()
	inserted := map[string]int64{}
	for k := 1; k <= batches; k++ {
		upTo := events * int64(k) / int64(batches)
		for _, s := range distinctTables(q.streams) {
			table, _ := nexmark.TableByName(s)
			r := nexmark.RowsIn(table, upTo)
			if r == inserted[s] {
				continue
			}
			sql := fmt.Sprintf("INSERT INTO %s SELECT * FROM nexmark('%s', max_events => %d%s) OFFSET %d", s, s, upTo, nexmarkBenchOptions, inserted[s])
			if _, err := conn.Exec(ctx, sql); err != nil {
				return 0, 0, 0, 0, "", fmt.Errorf("%s: %w", sql, err)
			}
			inserted[s] = r
		}
	}
	ingest = time.Since(start).Seconds()
	if q.name != "ingest" {
		p, err := waitCaughtUp(ctx, conn, "nx", want, 30*time.Minute)
		if err != nil {
			return 0, 0, 0, 0, "", err
		}
		if p.inputRows != want {
			return 0, 0, 0, 0, "", fmt.Errorf("the streaming table consumed %d rows, %d were inserted", p.inputRows, want)
		}
		if p.lateRows != 0 {
			return 0, 0, 0, 0, "", fmt.Errorf("the streaming table counted %d late rows, want 0", p.lateRows)
		}
	}
	el = time.Since(start).Seconds()
	cpu1, err := processCPU(pid)
	if err != nil {
		return 0, 0, 0, 0, "", err
	}
	if q.name != "ingest" {
		if err := conn.QueryRow(ctx, "SELECT count(*) FROM nx").Scan(&n); err != nil {
			return 0, 0, 0, 0, "", err
		}
	}
	return el, cpu1 - cpu0, ingest, n, "", nil
}

// nexmarkPGOnce recreates the query's input tables on PostgreSQL and times
// COPY of their rows plus the batch query, all its rows read.
func nexmarkPGOnce(ctx context.Context, conn *pgx.Conn, pid int, q nexmarkQuery, files map[string]string, rows map[string]int64) (el, cpu float64, n int64, err error) {
	for _, tb := range nexmarkBenchTables {
		for _, sql := range []string{"DROP TABLE IF EXISTS " + tb.name, "CREATE TABLE " + tb.name + " (" + tb.cols + ")"} {
			if _, err := conn.Exec(ctx, sql); err != nil {
				return 0, 0, 0, fmt.Errorf("%s: %w", sql, err)
			}
		}
	}
	cpu0, err := processTreeCPU(pid)
	if err != nil {
		return 0, 0, 0, err
	}
	start := time.Now()
	for _, s := range distinctTables(q.streams) {
		data, err := os.ReadFile(files[s])
		if err != nil {
			return 0, 0, 0, err
		}
		tag, err := conn.PgConn().CopyFrom(ctx, bytes.NewReader(data), "COPY "+s+" FROM STDIN")
		if err != nil {
			return 0, 0, 0, fmt.Errorf("COPY %s: %w", s, err)
		}
		if tag.RowsAffected() != rows[s] {
			return 0, 0, 0, fmt.Errorf("COPY %s: %d rows, want %d", s, tag.RowsAffected(), rows[s])
		}
	}
	if q.batch != "" {
		res := conn.PgConn().Exec(ctx, q.batch)
		for res.NextResult() {
			rr := res.ResultReader()
			for rr.NextRow() {
				n++
			}
			if _, err := rr.Close(); err != nil {
				return 0, 0, 0, err
			}
		}
		if err := res.Close(); err != nil {
			return 0, 0, 0, err
		}
	}
	el = time.Since(start).Seconds()
	cpu1, err := processTreeCPU(pid)
	if err != nil {
		return 0, 0, 0, err
	}
	return el, cpu1 - cpu0, n, nil
}

// clockTicks is USER_HZ, the unit of /proc's CPU times (100 on Linux).
const clockTicks = 100

// procStat is a process's parent and its CPU seconds from /proc/PID/stat:
// its own user + system time, and its reaped children's.
func procStat(pid int) (ppid int, self, children float64, err error) {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return 0, 0, 0, err
	}
	// The fields after the command name, which is in parentheses and may
	// hold spaces: state ppid ... utime(14) stime(15) cutime(16) cstime(17).
	s := string(b)
	i := strings.LastIndexByte(s, ')')
	if i < 0 {
		return 0, 0, 0, fmt.Errorf("/proc/%d/stat: %q", pid, s)
	}
	f := strings.Fields(s[i+1:])
	if len(f) < 15 {
		return 0, 0, 0, fmt.Errorf("/proc/%d/stat: %q", pid, s)
	}
	num := func(k int) float64 { v, _ := strconv.ParseInt(f[k-3], 10, 64); return float64(v) / clockTicks }
	ppid, _ = strconv.Atoi(f[1])
	return ppid, num(14) + num(15), num(16) + num(17), nil
}

// processCPU is pid's CPU seconds (all its threads).
func processCPU(pid int) (float64, error) {
	_, self, _, err := procStat(pid)
	return self, err
}

// processTreeCPU is the CPU seconds of pid, of its children that have
// exited (reaped by it), and of its live children: a PostgreSQL cluster's
// CPU when pid is the postmaster.
func processTreeCPU(pid int) (float64, error) {
	_, self, reaped, err := procStat(pid)
	if err != nil {
		return 0, err
	}
	total := self + reaped
	ents, err := os.ReadDir("/proc")
	if err != nil {
		return 0, err
	}
	for _, e := range ents {
		child, err := strconv.Atoi(e.Name())
		if err != nil || child == pid {
			continue
		}
		if ppid, cs, _, err := procStat(child); err == nil && ppid == pid {
			total += cs
		}
	}
	return total, nil
}

// postmasterPID is the first line of the cluster's postmaster.pid.
func postmasterPID(dir string) (int, error) {
	b, err := os.ReadFile(filepath.Join(dir, "data", "postmaster.pid"))
	if err != nil {
		return 0, err
	}
	line, _, _ := strings.Cut(string(b), "\n")
	return strconv.Atoi(strings.TrimSpace(line))
}

// The Nexmark section's markers in docs/benchmarks.md (writeDoc keeps it).
const (
	nexmarkBegin = "<!-- nexmark -->"
	nexmarkEnd   = "<!-- /nexmark -->"
)

func nexmarkReport(c config, events int64, batches int, results []*nexmarkResult, pgVersion, cmdline string, elapsed time.Duration) string {
	var b strings.Builder
	fmt.Fprintf(&b, "## Nexmark suite (`weirbench -nexmark`): run of %s\n\n", time.Now().UTC().Format("2006-01-02 15:04 MST"))
	b.WriteString("Each query of `testdata/nexmark` (the suite `engine/nexmark_suite_test.go` checks against PostgreSQL; [status.md](status.md#nexmark-suite) says which pass and why the others are refused). " +
		"**weir**: `INSERT INTO t SELECT * FROM nexmark('t', …) OFFSET …` into the tables the query reads, in " + strconv.Itoa(batches) + " statements, until its streaming table has consumed every row " +
		"(windowed queries in append mode, closed by the tables' `WATERMARK FOR date_time AS date_time - INTERVAL '2 seconds'`). " +
		"**PostgreSQL**: COPY of the same rows (text, produced once by weir's `nexmark()`) into fresh tables plus the query's batch form, all rows read. " +
		"events/s = the generator's events (all three tables' share of them) over that time. Cores = the server's CPU time (user + system, /proc) over the wall time: " +
		"weir's process; PostgreSQL's postmaster and its children. Medians of the interleaved runs; time ratio = weir's time / PostgreSQL's (below 1: weir is faster); " +
		"CPU ratio = weir's CPU seconds / PostgreSQL's, which a machine shared with other work disturbs less than wall time. " +
		"events/s counts all the events, also where a query reads only person and auction (q3, q8: 8% of the rows). " +
		"Both sides give the same number of rows (checked; the suite checks the rows themselves).\n\n")
	fmt.Fprintf(&b, "- Machine: %d CPUs (nproc), %s/%s, %s, %s; PostgreSQL %s (fsync on); load average at the end %s\n",
		runtime.NumCPU(), runtime.GOOS, runtime.GOARCH, goVersion(), cpuModel(), pgVersion, loadAverage())
	fmt.Fprintf(&b, "- Command: `%s` (%d events, %d interleaved runs per query; %.0f s in all)\n", cmdline, events, c.repeat, elapsed.Seconds())
	fmt.Fprintf(&b, "- Generator options: `nexmark(…%s)`\n\n", nexmarkBenchOptions)
	b.WriteString("| query | weir streaming table | weir cores | PostgreSQL COPY + batch | PostgreSQL cores | time ratio weir/pg | CPU ratio weir/pg | rows |\n")
	b.WriteString("| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: |\n")
	ev := float64(events)
	for _, r := range results {
		name := r.q.name + " " + r.q.title
		if r.q.name == "ingest" {
			name = "ingest only: generator → tables, no streaming table (pg: COPY alone)"
		}
		pm := median(r.pg)
		pgCell := fmt.Sprintf("%.0f k events/s (%.2f s)", ev/pm/1e3, pm)
		pgCores := fmt.Sprintf("%.2f", median(r.pgCPU)/pm)
		if r.refusal != "" {
			// The message up to its hint ("...; use ..."): status.md has it whole.
			short, _, _ := strings.Cut(r.refusal, ";")
			fmt.Fprintf(&b, "| %s | refused (%s) | — | %s | %s | — | — | %d |\n", name, short, pgCell, pgCores, r.pgRows)
			continue
		}
		wm := median(r.weir)
		rowsCell := fmt.Sprint(r.rows)
		if r.q.name == "ingest" {
			rowsCell = "—"
		}
		fmt.Fprintf(&b, "| %s | %.0f k events/s (%.2f s) | %.2f | %s | %s | %.2f | %.2f | %s |\n",
			name, ev/wm/1e3, wm, median(r.weirCPU)/wm, pgCell, pgCores, wm/pm, median(r.weirCPU)/median(r.pgCPU), rowsCell)
	}
	b.WriteString("\n")
	return b.String()
}

// distinctTables is the tables a query's streams read, each once (a query
// that reads bid twice, as both sides of a join, counts its rows twice in
// input_rows but is fed and copied once).
func distinctTables(streams []string) []string {
	var out []string
	seen := map[string]bool{}
	for _, s := range streams {
		if !seen[s] {
			seen[s] = true
			out = append(out, s)
		}
	}
	return out
}
