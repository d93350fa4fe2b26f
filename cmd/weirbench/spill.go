package main

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"time"

	"github.com/jackc/pgx/v5"
)

// The spill benchmarks: a hash aggregate with 1M groups, a sort of 10M
// rows and window functions over one partition of 5M rows, each with a
// small work_mem (both servers spill to temporary files) and with a large
// one (both in memory), on weir next to PostgreSQL with the same work_mem,
// plus the weir process's peak RSS per query.
//
//	go run ./cmd/weirbench -spill [-spill.sortrows 10000000] [-spill.groups 1000000] [-spill.windowrows 5000000] [-repeat 3]

const (
	// Each key appears 4 times; the keys are scattered over the rows.
	spillAggLoad = `INSERT INTO agg SELECT (g::bigint * 7919) %% %d, g %% 1000 FROM generate_series(1, %d) g`
	// The aggregate's 1M result rows are folded by an outer aggregate, so
	// that the time is the grouping's, not the transfer of 1M rows.
	spillAggQ = `SELECT count(*), sum(n), sum(s) FROM (SELECT k, count(*) AS n, sum(v) AS s FROM agg GROUP BY k) g`
	// Scattered bigint keys; OFFSET without LIMIT needs the whole sort
	// (no top-N shortcut) and returns one row, the largest key.
	spillSortLoad = `INSERT INTO srt SELECT (g::bigint * 2654435761) %% 1000000007 FROM generate_series(1, %d) g`
	spillSortQ    = `SELECT x FROM srt ORDER BY x OFFSET %d`
	// One window partition of all rows (no PARTITION BY): a running sum
	// over the default RANGE frame, row_number and lag, folded into one
	// row so that the time is the window's.
	spillWindowLoad = `INSERT INTO win SELECT (g::bigint * 2654435761) %% 1000000007 FROM generate_series(1, %d) g`
	spillWindowQ    = `SELECT count(*), max(rn), max(s), sum(l) FROM (SELECT row_number() OVER w AS rn, sum(x) OVER w AS s, lag(x, 1, 0) OVER w AS l FROM win WINDOW w AS (ORDER BY x)) t`
)

type spillCase struct {
	name    string
	sql     string
	workMem string
	weir    []float64
	pg      []float64
	rss     int64 // weir's largest peak RSS over the runs, bytes
	result  string
}

func runSpill(c config, sortRows, groups, windowRows int) error {
	ctx := context.Background()
	root, err := moduleRoot()
	if err != nil {
		return err
	}
	t0 := time.Now()
	servers, err := startServerPair(root, "weirbench-spill-")
	if err != nil {
		return err
	}
	defer servers.stop()
	w := servers.weir
	targets := servers.targets()
	for _, t := range targets {
		if t.conn, err = connect(t.url); err != nil {
			return fmt.Errorf("connect %s: %w", t.name, err)
		}
		defer t.conn.Close(ctx)
	}
	var pgVersion string
	targets[1].conn.QueryRow(ctx, "SHOW server_version").Scan(&pgVersion)
	aggRows := groups * 4
	for _, t := range targets {
		logf("loading %d + %d + %d rows into %s", aggRows, sortRows, windowRows, t.name)
		for _, sql := range []string{
			"DROP TABLE IF EXISTS agg", "DROP TABLE IF EXISTS srt", "DROP TABLE IF EXISTS win",
			"CREATE TABLE agg (k bigint, v bigint)", "CREATE TABLE srt (x bigint)", "CREATE TABLE win (x bigint)",
			fmt.Sprintf(spillAggLoad, groups, aggRows), fmt.Sprintf(spillSortLoad, sortRows),
			fmt.Sprintf(spillWindowLoad, windowRows),
		} {
			if _, err := t.conn.Exec(ctx, sql); err != nil {
				return fmt.Errorf("%s: %s: %w", t.name, sql, err)
			}
		}
	}
	if _, err := targets[1].conn.Exec(ctx, "VACUUM ANALYZE"); err != nil {
		return err
	}
	// PostgreSQL in one process, as weir: the comparison is of one
	// operator's algorithm, not of parallel workers.
	if _, err := targets[1].conn.Exec(ctx, "SET max_parallel_workers_per_gather = 0"); err != nil {
		return err
	}
	sortQ := fmt.Sprintf(spillSortQ, sortRows-1)
	cases := []*spillCase{
		{name: fmt.Sprintf("GROUP BY, %d groups of %d rows", groups, aggRows), sql: spillAggQ, workMem: "4MB"},
		{name: fmt.Sprintf("GROUP BY, %d groups of %d rows", groups, aggRows), sql: spillAggQ, workMem: "1GB"},
		{name: fmt.Sprintf("ORDER BY over %d rows", sortRows), sql: sortQ, workMem: "4MB"},
		{name: fmt.Sprintf("ORDER BY over %d rows", sortRows), sql: sortQ, workMem: "1GB"},
		{name: fmt.Sprintf("window over one partition of %d rows", windowRows), sql: spillWindowQ, workMem: "4MB"},
		{name: fmt.Sprintf("window over one partition of %d rows", windowRows), sql: spillWindowQ, workMem: "1GB"},
	}
	plans := map[string]string{}
	for _, sc := range cases {
		for _, t := range targets {
			if _, err := t.conn.Exec(ctx, "SET work_mem = '"+sc.workMem+"'"); err != nil {
				return err
			}
		}
		plans[sc.workMem+" "+sc.sql] = explainAnalyze(ctx, targets[1].conn, sc.sql)
		// The answers must agree before anything is timed.
		var res [2]string
		for i, t := range targets {
			r, err := oneRowText(ctx, t.conn, sc.sql)
			if err != nil {
				return fmt.Errorf("%s on %s: %w", sc.name, t.name, err)
			}
			res[i] = r
		}
		if res[0] != res[1] {
			return fmt.Errorf("%s (work_mem %s): weir %q, PostgreSQL %q", sc.name, sc.workMem, res[0], res[1])
		}
		sc.result = res[0]
		s := &sample{name: sc.name + ", work_mem " + sc.workMem, unit: "s"}
		if err := interleave(s, c.repeat, targets, func(t *target) (float64, error) {
			if t.name == "weir" {
				resetPeakRSS(w.cmd.Process.Pid)
			}
			start := time.Now()
			if _, err := oneRowText(ctx, t.conn, sc.sql); err != nil {
				return 0, err
			}
			el := time.Since(start).Seconds()
			if t.name == "weir" {
				sc.rss = max(sc.rss, peakRSS(w.cmd.Process.Pid))
			}
			return el, nil
		}); err != nil {
			return err
		}
		sc.weir, sc.pg = s.weir, s.pg
	}
	md := spillReport(c, sortRows, groups, windowRows, cases, plans, pgVersion, time.Since(t0))
	fmt.Println()
	fmt.Println(md)
	doc := c.doc
	if doc == "" {
		doc = filepath.Join(root, "docs", "benchmarks.md")
	}
	if doc != "-" {
		if err := writeSection(doc, spillBegin, spillEnd, md); err != nil {
			return err
		}
		logf("wrote %s", doc)
	}
	return nil
}

// oneRowText runs sql in the simple protocol and returns its one row as text.
func oneRowText(ctx context.Context, conn *pgx.Conn, sql string) (string, error) {
	rs, err := conn.PgConn().Exec(ctx, sql).ReadAll()
	if err != nil {
		return "", err
	}
	if len(rs) != 1 || len(rs[0].Rows) != 1 {
		return "", fmt.Errorf("want one row")
	}
	var f []string
	for _, v := range rs[0].Rows[0] {
		f = append(f, string(v))
	}
	return strings.Join(f, " | "), nil
}

// explainAnalyze returns PostgreSQL's plan of sql with what spilled, on
// one line.
func explainAnalyze(ctx context.Context, conn *pgx.Conn, sql string) string {
	rs, err := conn.PgConn().Exec(ctx, "EXPLAIN (ANALYZE, COSTS OFF, TIMING OFF) "+sql).ReadAll()
	if err != nil || len(rs) != 1 {
		return ""
	}
	var lines []string
	for _, r := range rs[0].Rows {
		l := strings.Join(strings.Fields(strings.TrimPrefix(strings.TrimSpace(string(r[0])), "-> ")), " ")
		if strings.HasPrefix(l, "Planning") || strings.HasPrefix(l, "Execution") {
			continue
		}
		if i := strings.Index(l, " (actual"); i >= 0 {
			l = l[:i]
		}
		lines = append(lines, l)
	}
	return strings.Join(lines, " / ")
}

// resetPeakRSS resets the kernel's peak-RSS mark of a process (VmHWM).
func resetPeakRSS(pid int) {
	os.WriteFile(fmt.Sprintf("/proc/%d/clear_refs", pid), []byte("5"), 0o200)
}

// peakRSS reads a process's peak RSS (VmHWM) in bytes.
func peakRSS(pid int) int64 {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", pid))
	if err != nil {
		return 0
	}
	for _, l := range strings.Split(string(b), "\n") {
		if f := strings.Fields(l); len(f) >= 2 && f[0] == "VmHWM:" {
			kb, _ := strconv.ParseInt(f[1], 10, 64)
			return kb * 1024
		}
	}
	return 0
}

func spillReport(c config, sortRows, groups, windowRows int, cases []*spillCase, plans map[string]string, pgVersion string, elapsed time.Duration) string {
	var b strings.Builder
	fmt.Fprintf(&b, "## Spilling to disk: run of %s\n\n", time.Now().UTC().Format("2006-01-02 15:04 MST"))
	fmt.Fprintf(&b, "- Machine: %d CPUs (nproc), %s, %s; PostgreSQL %s; load average at the end %s\n", runtime.NumCPU(), goVersion(), cpuModel(), pgVersion, loadAverage())
	fmt.Fprintf(&b, "- Command: `go run ./cmd/weirbench -spill %s` (%d interleaved runs); whole run %.0f s\n",
		strings.Join(filterSpillArgs(os.Args[1:]), " "), c.repeat, elapsed.Seconds())
	b.WriteString("- weir as a subprocess with its defaults (query memory: a quarter of RAM); PostgreSQL 15 with `max_parallel_workers_per_gather = 0` (one process, as weir) and the same `work_mem`, set per session. Both answers are compared before timing.\n")
	b.WriteString("- Peak RSS: the weir process's VmHWM, reset (`/proc/PID/clear_refs`) before each run; the largest over the runs. It includes the server's baseline (Badger, caches) and the Go heap's headroom.\n\n")
	b.WriteString("| query | work_mem | weir median | pg median | weir best | pg best | ratio weir/pg | weir peak RSS |\n")
	b.WriteString("| --- | --- | ---: | ---: | ---: | ---: | ---: | ---: |\n")
	for _, sc := range cases {
		wm, pm := median(sc.weir), median(sc.pg)
		fmt.Fprintf(&b, "| %s | %s | %s | %s | %s | %s | %.2f | %.0f MB |\n", sc.name, sc.workMem,
			fmtVal(wm, "s"), fmtVal(pm, "s"), fmtVal(best(sc.weir, false), "s"), fmtVal(best(sc.pg, false), "s"), wm/pm, float64(sc.rss)/(1<<20))
	}
	fmt.Fprintf(&b, "\nQueries: `%s` over `agg(k bigint, v bigint)` loaded by `%s`; `%s` over `srt(x bigint)` loaded by `%s`; `%s` over `win(x bigint)` loaded by `%s`.\n\n",
		spillAggQ, fmt.Sprintf(spillAggLoad, groups, groups*4), fmt.Sprintf(spillSortQ, sortRows-1), fmt.Sprintf(spillSortLoad, sortRows),
		spillWindowQ, fmt.Sprintf(spillWindowLoad, windowRows))
	b.WriteString("PostgreSQL's plans (EXPLAIN ANALYZE):\n\n")
	for _, sc := range cases {
		if p := plans[sc.workMem+" "+sc.sql]; p != "" {
			fmt.Fprintf(&b, "- %s, work_mem %s: `%s`\n", sc.name, sc.workMem, p)
		}
	}
	return b.String()
}

// loadAverage is /proc/loadavg's 1, 5 and 15 minute figures: how shared
// the machine was.
func loadAverage() string {
	b, err := os.ReadFile("/proc/loadavg")
	if err != nil {
		return "unknown"
	}
	f := strings.Fields(string(b))
	if len(f) < 3 {
		return "unknown"
	}
	return strings.Join(f[:3], " / ")
}

func filterSpillArgs(args []string) []string {
	var out []string
	for _, a := range args {
		if a != "-spill" && a != "--spill" {
			out = append(out, a)
		}
	}
	return out
}

// The spill section's markers in docs/benchmarks.md: writeDoc keeps it.
const (
	spillBegin = "<!-- spill -->"
	spillEnd   = "<!-- /spill -->"
)

// writeSection replaces the text between begin and end in the file at path
// with md, or adds it before the notes (or at the end).
func writeSection(path, begin, end, md string) error {
	b, err := os.ReadFile(path)
	if err != nil {
		return err
	}
	old := string(b)
	section := begin + "\n" + strings.TrimRight(md, "\n") + "\n" + end + "\n"
	if i := strings.Index(old, begin); i >= 0 {
		if j := strings.Index(old[i:], end); j >= 0 {
			rest := strings.TrimPrefix(old[i+j+len(end):], "\n")
			return os.WriteFile(path, []byte(old[:i]+section+rest), 0o644)
		}
	}
	if i := strings.Index(old, "<!-- notes -->"); i >= 0 {
		return os.WriteFile(path, []byte(old[:i]+section+"\n"+old[i:]), 0o644)
	}
	return os.WriteFile(path, []byte(strings.TrimRight(old, "\n")+"\n\n"+section), 0o644)
}
