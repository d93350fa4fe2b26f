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

// The first-row benchmark: a large SELECT read to its end by a client,
// timing the first row and the last, with the weir process's peak RSS, on
// weir built from this tree, on weir built from a base revision (before
// results streamed, optional) and on PostgreSQL, in one run.
//
//	go run ./cmd/weirbench -firstrow 3000000 [-firstrow.base main] [-repeat 3]

const firstRowQ = `SELECT g, repeat('x', 100) FROM generate_series(1, %d) g`

// firstRowSide is one server's figures; first and last in seconds.
type firstRowSide struct {
	name        string
	url         string
	pid         int // weir's process, for its peak RSS; 0 for PostgreSQL
	first, last []float64
	rss         int64
	err         string // the query failed (the base revision may answer 53200)
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
	sides := []*firstRowSide{{name: "weir", url: servers.weir.url(), pid: servers.weir.cmd.Process.Pid}}
	if base != "" {
		w, err := startBaseWeir(root, servers.tmp, base)
		if err != nil {
			return err
		}
		defer w.stop()
		sides = append(sides, &firstRowSide{name: "weir " + base, url: w.url(), pid: w.cmd.Process.Pid})
	}
	sides = append(sides, &firstRowSide{name: "PostgreSQL", url: servers.pg.url()})
	sql := fmt.Sprintf(firstRowQ, rows)
	for i := 0; i < c.repeat; i++ {
		for _, s := range sides {
			if s.pid != 0 {
				resetPeakRSS(s.pid)
			}
			first, last, err := timeFirstRow(ctx, s.url, sql, rows)
			if err != nil {
				s.err = err.Error()
				logf("%s: %v", s.name, err)
				continue
			}
			s.first, s.last = append(s.first, first), append(s.last, last)
			if s.pid != 0 {
				s.rss = max(s.rss, peakRSS(s.pid))
			}
			logf("%s: first row %.1f ms, last %.2f s", s.name, first*1000, last)
		}
	}
	md := firstRowReport(c, rows, sides, time.Since(t0))
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

func firstRowReport(c config, rows int, sides []*firstRowSide, elapsed time.Duration) string {
	var b strings.Builder
	fmt.Fprintf(&b, "## Time to first row of a large SELECT: run of %s\n\n", time.Now().UTC().Format("2006-01-02 15:04 MST"))
	fmt.Fprintf(&b, "- Machine: %d CPUs (nproc), %s, %s; load average at the end %s\n", runtime.NumCPU(), goVersion(), cpuModel(), loadAverage())
	fmt.Fprintf(&b, "- Command: `go run ./cmd/weirbench %s` (%d runs, servers in turn); whole run %.0f s\n", strings.Join(os.Args[1:], " "), c.repeat, elapsed.Seconds())
	fmt.Fprintf(&b, "- Query: `%s`, read to the end by pgx (extended protocol, text format) on a new connection; %d rows, about %d MB as text.\n", fmt.Sprintf(firstRowQ, rows), rows, rows*(8+100)>>20)
	b.WriteString("- weir with its defaults (query memory: a quarter of RAM). Peak RSS: the weir process's VmHWM, reset before each run, the largest over the runs; it includes the server's baseline.\n\n")
	b.WriteString("| server | first row, median | first row, best | last row, median | weir peak RSS |\n")
	b.WriteString("| --- | ---: | ---: | ---: | ---: |\n")
	for _, s := range sides {
		rss := "—"
		if s.pid != 0 {
			rss = fmt.Sprintf("%.0f MB", float64(s.rss)/(1<<20))
		}
		if len(s.first) == 0 {
			fmt.Fprintf(&b, "| %s | failed: %s | | | %s |\n", s.name, s.err, rss)
			continue
		}
		fmt.Fprintf(&b, "| %s | %s | %s | %s | %s |\n", s.name, fmtVal(median(s.first), "s"), fmtVal(best(s.first, false), "s"), fmtVal(median(s.last), "s"), rss)
	}
	return b.String()
}

// The first-row section's markers in docs/benchmarks.md: writeDoc keeps it.
const (
	firstRowBegin = "<!-- firstrow -->"
	firstRowEnd   = "<!-- /firstrow -->"
)
