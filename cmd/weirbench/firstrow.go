package main

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"time"
)

// The first-row benchmark: large SELECTs read to their end by a client,
// timing the first row and the last, with the weir process's peak RSS, on
// weir built from this tree, on weir built from a base revision (before
// results streamed, optional) and on PostgreSQL, in one run. One query
// computes its rows (PostgreSQL's function scan collects a set-returning
// function's rows before the first leaves), one scans a stored table
// (PostgreSQL's sequential scan streams).
//
//	go run ./cmd/weirbench -firstrow 3000000 [-firstrow.base main] [-repeat 3]

var firstRowQueries = []string{
	`SELECT g, repeat('x', 100) FROM generate_series(1, %d) g`,
	`SELECT g, s FROM firstrow_t`,
}

const firstRowLoad = `INSERT INTO firstrow_t SELECT g, repeat('x', 100) FROM generate_series(1, %d) g`

// firstRowSide is one server's figures per query; first and last in
// seconds.
type firstRowSide struct {
	name        string
	url         string
	pid         int // weir's process, for its peak RSS; 0 for PostgreSQL
	first, last map[string][]float64
	rss         map[string]int64
	err         map[string]string // the query failed (the base revision may answer 53200)
}

func runFirstRow(c config, rows int, base string) error {
	ctx := context.Background()
	root, err := moduleRoot()
	if err != nil {
		return err
	}
	t0 := time.Now()
	servers, err := startServerPair(root, "weirbench-firstrow-")
	if err != nil {
		return err
	}
	defer servers.stop()
	side := func(name, url string, pid int) *firstRowSide {
		return &firstRowSide{name: name, url: url, pid: pid, first: map[string][]float64{}, last: map[string][]float64{}, rss: map[string]int64{}, err: map[string]string{}}
	}
	sides := []*firstRowSide{side("weir", servers.weir.url(), servers.weir.cmd.Process.Pid)}
	if base != "" {
		w, err := startBaseWeir(root, servers.tmp, base)
		if err != nil {
			return err
		}
		defer w.stop()
		sides = append(sides, side("weir "+base, w.url(), w.cmd.Process.Pid))
	}
	sides = append(sides, side("PostgreSQL", servers.pg.url(), 0))
	load := func() error {
		for _, s := range sides {
			logf("loading %d rows into %s", rows, s.name)
			conn, err := connect(s.url)
			if err != nil {
				return err
			}
			defer conn.Close(ctx)
			for _, sql := range []string{"CREATE TABLE firstrow_t (g bigint, s text)", fmt.Sprintf(firstRowLoad, rows)} {
				if _, err := conn.Exec(ctx, sql); err != nil {
					return fmt.Errorf("%s: %s: %w", s.name, sql, err)
				}
			}
		}
		return nil
	}
	var queries []string
	for _, q := range firstRowQueries {
		if strings.Contains(q, "%d") {
			q = fmt.Sprintf(q, rows)
		}
		queries = append(queries, q)
	}
	for _, sql := range queries {
		// The table is loaded after the generate_series runs, so that
		// their peak RSS is not the load's.
		if strings.Contains(sql, "firstrow_t") {
			if err := load(); err != nil {
				return err
			}
		}
		for i := 0; i < c.repeat; i++ {
			for _, s := range sides {
				if s.pid != 0 {
					resetPeakRSS(s.pid)
				}
				first, last, err := timeFirstRow(ctx, s.url, sql, rows)
				if err != nil {
					s.err[sql] = err.Error()
					logf("%s: %v", s.name, err)
					continue
				}
				s.first[sql], s.last[sql] = append(s.first[sql], first), append(s.last[sql], last)
				if s.pid != 0 {
					s.rss[sql] = max(s.rss[sql], peakRSS(s.pid))
				}
				logf("%s: first row %.1f ms, last %.2f s", s.name, first*1000, last)
			}
		}
	}
	md := firstRowReport(c, rows, queries, sides, time.Since(t0))
	fmt.Println()
	fmt.Println(md)
	doc := c.doc
	if doc == "" {
		doc = filepath.Join(root, "docs", "benchmarks.md")
	}
	if doc != "-" {
		if err := writeSection(doc, firstRowBegin, firstRowEnd, md); err != nil {
			return err
		}
		logf("wrote %s", doc)
	}
	return nil
}

// timeFirstRow opens a connection, runs sql and reads every row (text
// format, extended protocol, as pgx does), returning the seconds to the
// first row and to the end.
func timeFirstRow(ctx context.Context, url, sql string, want int) (first, last float64, err error) {
	conn, err := connect(url)
	if err != nil {
		return 0, 0, err
	}
	defer conn.Close(ctx)
	start := time.Now()
	r, err := conn.Query(ctx, sql)
	if err != nil {
		return 0, 0, err
	}
	n := 0
	for r.Next() {
		if n == 0 {
			first = time.Since(start).Seconds()
		}
		n++
	}
	r.Close()
	last = time.Since(start).Seconds()
	if err := r.Err(); err != nil {
		return 0, 0, err
	}
	if n != want {
		return 0, 0, fmt.Errorf("%d rows, want %d", n, want)
	}
	return first, last, nil
}

// startBaseWeir builds weir from the git revision base of the module at
// root (exported with git archive, not checked out) and starts it.
func startBaseWeir(root, tmp, base string) (*weirProc, error) {
	src := filepath.Join(tmp, "base-src")
	if err := os.MkdirAll(src, 0o755); err != nil {
		return nil, err
	}
	logf("building weir %s", base)
	archive := exec.Command("sh", "-c", fmt.Sprintf("git -C %s archive %s | tar -x -C %s", shellQuote(root), shellQuote(base), shellQuote(src)))
	if out, err := archive.CombinedOutput(); err != nil {
		return nil, fmt.Errorf("git archive %s: %v\n%s", base, err, out)
	}
	bin, err := buildWeir(src, filepath.Join(tmp, "base-bin"))
	if err != nil {
		return nil, err
	}
	dir := filepath.Join(tmp, "base")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, err
	}
	return startWeir(bin, dir)
}

func shellQuote(s string) string { return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'" }

func firstRowReport(c config, rows int, queries []string, sides []*firstRowSide, elapsed time.Duration) string {
	var b strings.Builder
	fmt.Fprintf(&b, "## Time to first row of a large SELECT: run of %s\n\n", time.Now().UTC().Format("2006-01-02 15:04 MST"))
	fmt.Fprintf(&b, "- Machine: %d CPUs (nproc), %s, %s; load average at the end %s\n", runtime.NumCPU(), goVersion(), cpuModel(), loadAverage())
	fmt.Fprintf(&b, "- Command: `go run ./cmd/weirbench %s` (%d runs, servers in turn); whole run %.0f s\n", strings.Join(os.Args[1:], " "), c.repeat, elapsed.Seconds())
	fmt.Fprintf(&b, "- Each query returns %d rows, about %d MB as text, read to the end by pgx (extended protocol, text format) on a new connection. `firstrow_t` is loaded by `%s`. PostgreSQL's function scan collects generate_series's rows before it returns the first; its sequential scan streams.\n", rows, rows*(8+100)>>20, fmt.Sprintf(firstRowLoad, rows))
	b.WriteString("- weir with its defaults (query memory: a quarter of RAM). Peak RSS: the weir process's VmHWM, reset before each run, the largest over the runs; it includes the server's baseline; for the table scan, the table's rows cached in memory and what was left of the load (the table is loaded after the generate_series runs).\n\n")
	b.WriteString("| query | server | first row, median | first row, best | last row, median | weir peak RSS |\n")
	b.WriteString("| --- | --- | ---: | ---: | ---: | ---: |\n")
	for _, q := range queries {
		for _, s := range sides {
			rss := "—"
			if s.pid != 0 {
				rss = fmt.Sprintf("%.0f MB", float64(s.rss[q])/(1<<20))
			}
			if len(s.first[q]) == 0 {
				fmt.Fprintf(&b, "| `%s` | %s | failed: %s | | | %s |\n", q, s.name, s.err[q], rss)
				continue
			}
			fmt.Fprintf(&b, "| `%s` | %s | %s | %s | %s | %s |\n", q, s.name, fmtVal(median(s.first[q]), "s"), fmtVal(best(s.first[q], false), "s"), fmtVal(median(s.last[q]), "s"), rss)
		}
	}
	return b.String()
}

// The first-row section's markers in docs/benchmarks.md: writeDoc keeps it.
const (
	firstRowBegin = "<!-- firstrow -->"
	firstRowEnd   = "<!-- /firstrow -->"
)
