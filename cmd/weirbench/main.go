// Command weirbench runs weir's end-to-end benchmarks against a real weir
// server (the weir binary, built from this module and started as a
// subprocess on a fresh data directory) and a fresh PostgreSQL 15 cluster
// with fsync on, interleaving runs, and prints medians, minimums and
// weir/PostgreSQL ratios.
//
//	go run ./cmd/weirbench [-rows 1000000] [-repeat 5] [-quick] [-streaming]
//	go run ./cmd/weirbench -catalog 1000   # client catalog queries on 1,000 tables
//	go run ./cmd/weirbench -spill    # spill.go: GROUP BY, ORDER BY and windows past work_mem
//	go run ./cmd/weirbench -firstrow 3000000 -firstrow.base main   # firstrow.go: a large SELECT's first row
//	go run ./cmd/weirbench -nexmark 1000000   # nexmark.go: the Nexmark queries, events/s next to PostgreSQL
//	go run ./cmd/weirbench -exprs 2000000   # exprs.go: Nexmark's expression-heavy queries
//	go run ./cmd/weirbench -files 1000000   # files.go: read_files of JSON/CSV/Parquet next to PostgreSQL's COPY and DuckDB
//
// The full run includes the streaming benchmarks (stream.go); -streaming
// runs only those.
//
// With -profile DIR it instead runs the same workloads against weir started
// in-process (engine.Open + wire.NewServer on a loopback listener) and writes
// one CPU profile per workload into DIR, for `go tool pprof -top`.
package main

import (
	"bufio"
	"context"
	"errors"
	"flag"
	"fmt"
	"math/rand"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"sort"
	"strings"
	"time"

	"github.com/jackc/pgx/v5"
)

type config struct {
	rows       int
	repeat     int
	roundTrips int
	gbRuns     int
	quick      bool
	doc        string
	profile    string
	keep       bool
	streaming  bool // only the streaming benchmarks
}

func main() {
	var c config
	flag.IntVar(&c.rows, "rows", 1_000_000, "rows in the generated CSV file")
	flag.IntVar(&c.repeat, "repeat", 5, "interleaved runs of each measurement")
	flag.IntVar(&c.roundTrips, "roundtrips", 20_000, "SELECT 1 round trips per run")
	flag.IntVar(&c.gbRuns, "groupby-queries", 3, "GROUP BY queries timed per run (the run's time is their mean)")
	flag.BoolVar(&c.quick, "quick", false, "small run (~30 s): 200k rows, 3 repeats, 5k round trips")
	flag.StringVar(&c.doc, "doc", "", "write the results as Markdown to this file (default docs/benchmarks.md in the module, not with -quick; \"-\" for none)")
	flag.StringVar(&c.profile, "profile", "", "profile weir in-process instead: write copy.prof, groupby.prof, select1.prof into this directory")
	flag.BoolVar(&c.streaming, "streaming", false, "run only the streaming benchmarks (windowed aggregation, freshness, state size); they are also part of the default full run")
	flag.BoolVar(&c.keep, "keep", false, "keep the temporary directory (data dirs, CSV, logs)")
	recovery := flag.Int("recovery", 0, "measure restart after kill -9 with this many rows of streaming state (e.g. 1000000) and exit")
	catalogTables := flag.Int("catalog", 0, "time the catalog queries of pgjdbc, SQLAlchemy and psql on this many tables (e.g. 1000) against PostgreSQL, write their section of docs/benchmarks.md and exit")
	spill := flag.Bool("spill", false, "run only the spill benchmarks (1M-group GROUP BY, 10M-row ORDER BY and windows over one 5M-row partition with work_mem 4MB and 1GB, next to PostgreSQL) and write their section of docs/benchmarks.md")
	spillSortRows := flag.Int("spill.sortrows", 10_000_000, "-spill: rows sorted")
	spillGroups := flag.Int("spill.groups", 1_000_000, "-spill: groups of the aggregate (4 rows each)")
	spillWindowRows := flag.Int("spill.windowrows", 5_000_000, "-spill: rows of the window's one partition")
	firstRow := flag.Int("firstrow", 0, "time the first and last row and weir's peak RSS of a SELECT of this many rows (e.g. 3000000) next to PostgreSQL, write their section of docs/benchmarks.md and exit")
	firstRowBase := flag.String("firstrow.base", "", "-firstrow: also build and measure weir at this git revision (e.g. main)")
	nexmarkEvents := flag.Int64("nexmark", 0, "run the Nexmark queries of testdata/nexmark over this many generated events (e.g. 1000000): weir's streaming tables next to PostgreSQL's COPY + batch query; write their section of docs/benchmarks.md and exit")
	nexmarkBatches := flag.Int("nexmark.batches", 10, "-nexmark: INSERT statements the events are written in")
	nexmarkQueries := flag.String("nexmark.queries", "", "-nexmark: only these queries (e.g. q0,q5,q11)")
	exprEvents := flag.Int("exprs", 0, "time Nexmark's expression-heavy queries over the bids of this many events (e.g. 2000000) next to PostgreSQL, write their section of docs/benchmarks.md and exit (exprs.go)")
	exprOnly := flag.String("exprs.only", "", "-exprs: only these queries, comma-separated (e.g. q14,q21); the doc is then not written")
	exprBase := flag.String("exprs.base", "", "-exprs: also build and measure weir at this git revision (before a change)")
	filesEvents := flag.Int("files", 0, "time read_files into a windowed streaming table over this many events (e.g. 1000000) as JSON lines, CSV and Parquet, next to PostgreSQL's server-side COPY + aggregate and DuckDB's batch read; write their section of docs/benchmarks.md and exit (files.go)")
	filesCount := flag.Int("files.count", 100, "-files: files the events are spread over")
	filesOnly := flag.String("files.formats", "", "-files: only these formats, comma-separated (json,csv,parquet); the doc is then not written")
	filesProfile := flag.String("files.cpuprofile", "", "-files: write weir's CPU profile of the whole run to this file (go tool pprof -top)")
	flag.Parse()
	if *filesEvents > 0 {
		set := map[string]bool{}
		flag.Visit(func(f *flag.Flag) { set[f.Name] = true })
		if !set["repeat"] {
			c.repeat = 3
		}
		if c.repeat < 1 || *filesCount < 1 {
			fatalf("bad flags")
		}
		if err := runFiles(c, *filesEvents, *filesCount, *filesOnly, *filesProfile); err != nil {
			fatalf("%v", err)
		}
		return
	}
	if *nexmarkEvents > 0 || *exprEvents > 0 {
		set := map[string]bool{}
		flag.Visit(func(f *flag.Flag) { set[f.Name] = true })
		if !set["repeat"] {
			c.repeat = 3
		}
	}
	if *nexmarkEvents > 0 {
		if c.repeat < 1 || *nexmarkBatches < 1 {
			fatalf("bad flags")
		}
		if err := runNexmark(c, *nexmarkEvents, *nexmarkBatches, *nexmarkQueries); err != nil {
			fatalf("%v", err)
		}
		return
	}
	if *exprEvents > 0 {
		if err := runExprs(c, *exprEvents, *exprOnly, *exprBase); err != nil {
			fatalf("%v", err)
		}
		return
	}
	if *firstRow > 0 {
		set := map[string]bool{}
		flag.Visit(func(f *flag.Flag) { set[f.Name] = true })
		if !set["repeat"] {
			c.repeat = 3
		}
		if err := runFirstRow(c, *firstRow, *firstRowBase); err != nil {
			fatalf("%v", err)
		}
		return
	}
	if *catalogTables > 0 {
		if c.repeat < 1 {
			fatalf("bad flags")
		}
		if err := runCatalog(c, *catalogTables); err != nil {
			fatalf("%v", err)
		}
		return
	}
	if *spill {
		set := map[string]bool{}
		flag.Visit(func(f *flag.Flag) { set[f.Name] = true })
		if !set["repeat"] {
			c.repeat = 3
		}
		if err := runSpill(c, *spillSortRows, *spillGroups, *spillWindowRows); err != nil {
			fatalf("%v", err)
		}
		return
	}
	if *recovery > 0 {
		if err := runRecovery(*recovery, 3); err != nil {
			fatalf("%v", err)
		}
		return
	}
	set := map[string]bool{}
	flag.Visit(func(f *flag.Flag) { set[f.Name] = true })
	if c.quick {
		if !set["rows"] {
			c.rows = 200_000
		}
		if !set["repeat"] {
			c.repeat = 3
		}
		if !set["roundtrips"] {
			c.roundTrips = 5_000
		}
	}
	if c.repeat < 1 || c.rows < 1 || c.roundTrips < 1 || c.gbRuns < 1 {
		fatalf("bad flags")
	}
	var err error
	if c.profile != "" {
		err = runProfile(c)
	} else {
		err = run(c)
	}
	if err != nil {
		fatalf("%v", err)
	}
}

func fatalf(format string, args ...any) {
	fmt.Fprintf(os.Stderr, "weirbench: "+format+"\n", args...)
	os.Exit(1)
}

func logf(format string, args ...any) {
	fmt.Fprintf(os.Stderr, "[%s] "+format+"\n", append([]any{time.Now().Format("15:04:05")}, args...)...)
}

// moduleRoot walks up from the working directory to the go.mod of this module.
func moduleRoot() (string, error) {
	dir, err := os.Getwd()
	if err != nil {
		return "", err
	}
	for {
		b, err := os.ReadFile(filepath.Join(dir, "go.mod"))
		if err == nil && strings.Contains(string(b), "module github.com/weir-sql/weir\n") {
			return dir, nil
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			return "", errors.New("run weirbench inside the github.com/weir-sql/weir module")
		}
		dir = parent
	}
}

func freePort() (int, error) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return 0, err
	}
	defer l.Close()
	return l.Addr().(*net.TCPAddr).Port, nil
}

// ---------- weir as a subprocess ----------

type weirProc struct {
	cmd  *exec.Cmd
	port int
	log  *os.File
}

func buildWeir(root, tmp string) (string, error) {
	bin := filepath.Join(tmp, "weir")
	cmd := exec.Command("go", "build", "-o", bin, "./cmd/weir")
	cmd.Dir = root
	out, err := cmd.CombinedOutput()
	if err != nil {
		return "", fmt.Errorf("go build ./cmd/weir: %v\n%s", err, out)
	}
	return bin, nil
}

func startWeir(bin, tmp string, args ...string) (*weirProc, error) {
	port, err := freePort()
	if err != nil {
		return nil, err
	}
	data := filepath.Join(tmp, "weir-data")
	logf, err := os.OpenFile(filepath.Join(tmp, "weir.log"), os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o644)
	if err != nil {
		return nil, err
	}
	cmd := exec.Command(bin, append([]string{"serve", "--data", data, "--listen", fmt.Sprintf("127.0.0.1:%d", port)}, args...)...)
	cmd.Stdout, cmd.Stderr = logf, logf
	if err := cmd.Start(); err != nil {
		return nil, err
	}
	w := &weirProc{cmd: cmd, port: port, log: logf}
	if err := waitReady(w.url(), 30*time.Second); err != nil {
		w.stop()
		log, _ := os.ReadFile(logf.Name())
		return nil, fmt.Errorf("weir did not start: %v\n%s", err, log)
	}
	return w, nil
}

func (w *weirProc) url() string {
	return fmt.Sprintf("postgres://weir@127.0.0.1:%d/weir?sslmode=disable", w.port)
}

func (w *weirProc) stop() {
	if w.cmd.Process != nil {
		w.cmd.Process.Signal(os.Interrupt)
		done := make(chan struct{})
		go func() { w.cmd.Wait(); close(done) }()
		select {
		case <-done:
		case <-time.After(10 * time.Second):
			w.cmd.Process.Kill()
			<-done
		}
	}
	w.log.Close()
}

func waitReady(url string, timeout time.Duration) error {
	deadline := time.Now().Add(timeout)
	for {
		ctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
		c, err := pgx.Connect(ctx, url)
		cancel()
		if err == nil {
			c.Close(context.Background())
			return nil
		}
		if time.Now().After(deadline) {
			return err
		}
		time.Sleep(100 * time.Millisecond)
	}
}

// ---------- measurements ----------

type sample struct {
	name      string
	unit      string // "s" (lower is better) or "/s" (higher is better)
	weir      []float64
	pg        []float64
	goal      string
	goalOK    func(weirMed, pgMed float64) bool
	info      bool // no goal: the last column says whether infoLabel holds
	infoLabel string
}

func median(xs []float64) float64 {
	s := append([]float64(nil), xs...)
	sort.Float64s(s)
	n := len(s)
	if n%2 == 1 {
		return s[n/2]
	}
	return (s[n/2-1] + s[n/2]) / 2
}

func best(xs []float64, higherBetter bool) float64 {
	b := xs[0]
	for _, x := range xs[1:] {
		if (higherBetter && x > b) || (!higherBetter && x < b) {
			b = x
		}
	}
	return b
}

type target struct {
	name string
	url  string
	conn *pgx.Conn
}

func connect(url string) (*pgx.Conn, error) {
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	return pgx.Connect(ctx, url)
}

const createT = `CREATE TABLE t (order_id bigint, region text, amount numeric(10,2), ts timestamptz)`
const groupByQ = `SELECT region, count(*), sum(amount), avg(amount), min(ts), max(ts) FROM t GROUP BY region`

// copyOnce recreates t and times COPY of the CSV file into it.
func copyOnce(ctx context.Context, conn *pgx.Conn, csvPath string, rows int) (float64, error) {
	if _, err := conn.Exec(ctx, "DROP TABLE IF EXISTS t"); err != nil {
		return 0, fmt.Errorf("drop: %w", err)
	}
	if _, err := conn.Exec(ctx, createT); err != nil {
		return 0, fmt.Errorf("create: %w", err)
	}
	f, err := os.Open(csvPath)
	if err != nil {
		return 0, err
	}
	defer f.Close()
	start := time.Now()
	tag, err := conn.PgConn().CopyFrom(ctx, bufio.NewReaderSize(f, 1<<20), "COPY t FROM STDIN (FORMAT csv)")
	el := time.Since(start).Seconds()
	if err != nil {
		return 0, fmt.Errorf("copy: %w", err)
	}
	if int(tag.RowsAffected()) != rows {
		return 0, fmt.Errorf("COPY reported %d rows, want %d (tag %q)", tag.RowsAffected(), rows, tag.String())
	}
	return el, nil
}

// groupByText runs the GROUP BY in the simple protocol (text results) and
// returns its rows sorted, for comparison.
func groupByText(ctx context.Context, conn *pgx.Conn) ([]string, error) {
	rs, err := conn.PgConn().Exec(ctx, groupByQ).ReadAll()
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

// groupByOnce times n executions of the GROUP BY (extended protocol, default
// pgx mode, all rows read) and returns the mean seconds per query.
func groupByOnce(ctx context.Context, conn *pgx.Conn, n int) (float64, error) {
	start := time.Now()
	for i := 0; i < n; i++ {
		rows, err := conn.Query(ctx, groupByQ)
		if err != nil {
			return 0, err
		}
		cnt := 0
		for rows.Next() {
			cnt++
		}
		rows.Close()
		if err := rows.Err(); err != nil {
			return 0, err
		}
		if cnt != 10 {
			return 0, fmt.Errorf("GROUP BY returned %d rows, want 10", cnt)
		}
	}
	return time.Since(start).Seconds() / float64(n), nil
}

// select1Once does n sequential SELECT 1 round trips; returns round trips/s.
func select1Once(ctx context.Context, conn *pgx.Conn, n int, simple bool) (float64, error) {
	var args []any
	if simple {
		args = []any{pgx.QueryExecModeSimpleProtocol}
	}
	var v int
	start := time.Now()
	for i := 0; i < n; i++ {
		if err := conn.QueryRow(ctx, "SELECT 1", args...).Scan(&v); err != nil {
			return 0, err
		}
		if v != 1 {
			return 0, fmt.Errorf("SELECT 1 returned %d", v)
		}
	}
	return float64(n) / time.Since(start).Seconds(), nil
}

// interleave runs f against weir and PostgreSQL repeat times, alternating
// which goes first, and collects both series.
func interleave(s *sample, repeat int, targets [2]*target, f func(t *target) (float64, error)) error {
	for i := 0; i < repeat; i++ {
		order := []int{0, 1}
		if i%2 == 1 {
			order = []int{1, 0}
		}
		for _, k := range order {
			t := targets[k]
			v, err := f(t)
			if err != nil {
				return fmt.Errorf("%s on %s: %w", s.name, t.name, err)
			}
			if k == 0 {
				s.weir = append(s.weir, v)
			} else {
				s.pg = append(s.pg, v)
			}
			logf("%s run %d %s: %s", s.name, i+1, t.name, fmtVal(v, s.unit))
		}
	}
	return nil
}

func fmtVal(v float64, unit string) string {
	switch unit {
	case "s":
		if v < 1 {
			return fmt.Sprintf("%.1f ms", v*1000)
		}
		return fmt.Sprintf("%.3f s", v)
	default:
		return fmt.Sprintf("%.0f/s", v)
	}
}

func run(c config) error {
	ctx := context.Background()
	root, err := moduleRoot()
	if err != nil {
		return err
	}
	tmp, err := os.MkdirTemp("", "weirbench-")
	if err != nil {
		return err
	}
	os.Chmod(tmp, 0o755)
	if c.keep {
		logf("temporary directory %s (kept)", tmp)
	} else {
		defer os.RemoveAll(tmp)
	}
	t0 := time.Now()

	logf("building weir")
	bin, err := buildWeir(root, tmp)
	if err != nil {
		return err
	}
	csvPath := filepath.Join(tmp, "orders.csv")
	var size int64
	if !c.streaming {
		logf("generating %d CSV rows", c.rows)
		if size, err = writeCSV(csvPath, c.rows); err != nil {
			return err
		}
		logf("CSV file %.1f MB", float64(size)/1e6)
	}

	logf("starting weir")
	w, err := startWeir(bin, tmp)
	if err != nil {
		return err
	}
	defer w.stop()
	logf("starting PostgreSQL 15 (fsync on)")
	pg, err := startPG(tmp)
	if err != nil {
		return err
	}
	defer pg.stop()
	pgVersion := ""

	targets := [2]*target{{name: "weir", url: w.url()}, {name: "postgres", url: pg.url()}}
	for _, t := range targets {
		if t.conn, err = connect(t.url); err != nil {
			return fmt.Errorf("connect %s: %w", t.name, err)
		}
		defer t.conn.Close(ctx)
	}
	targets[1].conn.QueryRow(ctx, "SHOW server_version").Scan(&pgVersion)
	var fsync string
	targets[1].conn.QueryRow(ctx, "SHOW fsync").Scan(&fsync)
	if fsync != "on" {
		return fmt.Errorf("PostgreSQL fsync is %q, want on", fsync)
	}

	cmdline := "go run ./cmd/weirbench " + strings.Join(os.Args[1:], " ")
	cmdline = strings.TrimSpace(cmdline)
	md := ""
	if !c.streaming {
		if md, err = batchBenches(ctx, c, csvPath, targets, cmdline, pgVersion, size, t0); err != nil {
			return err
		}
		fmt.Println()
		fmt.Println(md)
	}
	logf("streaming benchmarks")
	smd, err := runStreaming(ctx, c, tmp, targets, w.cmd.Process.Pid, pgVersion, cmdline)
	if err != nil {
		return err
	}
	fmt.Println()
	fmt.Println(smd)

	doc := c.doc
	if doc == "" && !c.quick {
		doc = filepath.Join(root, "docs", "benchmarks.md")
	}
	if doc != "" && doc != "-" {
		if err := writeDoc(doc, md, smd); err != nil {
			return err
		}
		logf("wrote %s", doc)
	}
	return nil
}

// batchBenches runs COPY, GROUP BY and SELECT 1 and returns their report.
func batchBenches(ctx context.Context, c config, csvPath string, targets [2]*target, cmdline, pgVersion string, size int64, t0 time.Time) (string, error) {
	lower := func(goalFrac float64) func(w, p float64) bool {
		return func(w, p float64) bool { return w <= p*goalFrac }
	}
	copyS := &sample{name: fmt.Sprintf("COPY %d CSV rows", c.rows), unit: "s", goal: "weir ≤ pg", goalOK: lower(1)}
	if err := interleave(copyS, c.repeat, targets, func(t *target) (float64, error) {
		return copyOnce(ctx, t.conn, csvPath, c.rows)
	}); err != nil {
		return "", err
	}

	// Results must agree before anything is timed.
	var want []string
	for i, t := range targets {
		got, err := groupByText(ctx, t.conn)
		if err != nil {
			return "", fmt.Errorf("GROUP BY on %s: %w", t.name, err)
		}
		if i == 0 {
			want = got
			continue
		}
		if strings.Join(got, "\n") != strings.Join(want, "\n") {
			return "", fmt.Errorf("GROUP BY results differ!\nweir:\n  %s\npostgres:\n  %s",
				strings.Join(want, "\n  "), strings.Join(got, "\n  "))
		}
	}
	logf("GROUP BY results identical on both (%d rows)", len(want))
	if _, err := targets[1].conn.Exec(ctx, "VACUUM ANALYZE t"); err != nil {
		return "", err
	}
	pgPlan := ""
	if rs, err := targets[1].conn.PgConn().Exec(ctx, "EXPLAIN "+groupByQ).ReadAll(); err == nil && len(rs) == 1 {
		var lines []string
		for _, r := range rs[0].Rows {
			l := strings.TrimSpace(string(r[0]))
			if i := strings.Index(l, "  (cost="); i >= 0 {
				l = l[:i]
			}
			lines = append(lines, strings.Join(strings.Fields(strings.TrimPrefix(l, "-> ")), " "))
		}
		pgPlan = strings.Join(lines, " / ")
		logf("PostgreSQL plan: %s", pgPlan)
	}
	for _, t := range targets { // warm up
		if _, err := groupByOnce(ctx, t.conn, 1); err != nil {
			return "", fmt.Errorf("GROUP BY on %s: %w", t.name, err)
		}
	}
	gbS := &sample{name: fmt.Sprintf("GROUP BY over %d rows", c.rows), unit: "s", goal: "weir ≤ pg", goalOK: lower(1)}
	if err := interleave(gbS, c.repeat, targets, func(t *target) (float64, error) {
		return groupByOnce(ctx, t.conn, c.gbRuns)
	}); err != nil {
		return "", err
	}

	// The same against PostgreSQL restricted to one process, for reference.
	if _, err := targets[1].conn.Exec(ctx, "SET max_parallel_workers_per_gather = 0"); err != nil {
		return "", err
	}
	gb1S := &sample{name: fmt.Sprintf("GROUP BY over %d rows, pg without parallel workers", c.rows), unit: "s",
		goal: "none (reference)", goalOK: lower(1), info: true, infoLabel: "weir ≤ pg"}
	if err := interleave(gb1S, c.repeat, targets, func(t *target) (float64, error) {
		return groupByOnce(ctx, t.conn, c.gbRuns)
	}); err != nil {
		return "", err
	}
	if _, err := targets[1].conn.Exec(ctx, "RESET max_parallel_workers_per_gather"); err != nil {
		return "", err
	}

	higher := func(frac float64) func(w, p float64) bool {
		return func(w, p float64) bool { return w >= p*frac }
	}
	for _, t := range targets { // warm up (and prepare)
		if _, err := select1Once(ctx, t.conn, 500, false); err != nil {
			return "", fmt.Errorf("SELECT 1 on %s: %w", t.name, err)
		}
		if _, err := select1Once(ctx, t.conn, 500, true); err != nil {
			return "", fmt.Errorf("SELECT 1 simple on %s: %w", t.name, err)
		}
	}
	s1 := &sample{name: "SELECT 1 round trips (extended, prepared)", unit: "/s", goal: "weir ≥ 80% of pg", goalOK: higher(0.8)}
	if err := interleave(s1, c.repeat, targets, func(t *target) (float64, error) {
		return select1Once(ctx, t.conn, c.roundTrips, false)
	}); err != nil {
		return "", err
	}
	s1s := &sample{name: "SELECT 1 round trips (simple protocol)", unit: "/s", goal: "none (reported)", goalOK: higher(0.8), info: true, infoLabel: "≥80%"}
	if err := interleave(s1s, c.repeat, targets, func(t *target) (float64, error) {
		return select1Once(ctx, t.conn, c.roundTrips, true)
	}); err != nil {
		return "", err
	}
	elapsed := time.Since(t0)

	samples := []*sample{copyS, gbS, gb1S, s1, s1s}
	return report(c, samples, cmdline, pgVersion, size, elapsed, pgPlan), nil
}

func goVersion() string { return runtime.Version() }

func report(c config, samples []*sample, cmdline, pgVersion string, csvBytes int64, elapsed time.Duration, pgPlan string) string {
	var b strings.Builder
	fmt.Fprintf(&b, "## Run of %s\n\n", time.Now().UTC().Format("2006-01-02 15:04 MST"))
	fmt.Fprintf(&b, "- Machine: %d CPUs (nproc), %s/%s, %s, %s; PostgreSQL %s\n",
		runtime.NumCPU(), runtime.GOOS, runtime.GOARCH, goVersion(), cpuModel(), pgVersion)
	fmt.Fprintf(&b, "- Command: `%s` (%d rows, CSV %.1f MB, %d interleaved runs, %d SELECT 1 round trips per run, GROUP BY time = mean of %d queries per run); whole run %.0f s\n\n",
		cmdline, c.rows, float64(csvBytes)/1e6, c.repeat, c.roundTrips, c.gbRuns, elapsed.Seconds())
	fmt.Fprintf(&b, "| benchmark | weir median | pg median | weir best | pg best | ratio weir/pg (median) | goal | goal met? |\n")
	fmt.Fprintf(&b, "| --- | ---: | ---: | ---: | ---: | ---: | --- | --- |\n")
	for _, s := range samples {
		hb := s.unit == "/s"
		wm, pm := median(s.weir), median(s.pg)
		wb, pb := best(s.weir, hb), best(s.pg, hb)
		ratio := wm / pm
		met := "yes"
		if !s.goalOK(wm, pm) {
			met = "**NO**"
		}
		if s.info {
			met = "(" + s.infoLabel + ": yes)"
			if !s.goalOK(wm, pm) {
				met = "(" + s.infoLabel + ": no)"
			}
		}
		var wcol, pcol, wbc, pbc string
		if hb {
			wcol, pcol = fmt.Sprintf("%.0f rt/s", wm), fmt.Sprintf("%.0f rt/s", pm)
			wbc, pbc = fmt.Sprintf("%.0f rt/s", wb), fmt.Sprintf("%.0f rt/s", pb)
		} else if strings.HasPrefix(s.name, "COPY") {
			rows := float64(c.rows)
			wcol = fmt.Sprintf("%.3f s (%.0f rows/s)", wm, rows/wm)
			pcol = fmt.Sprintf("%.3f s (%.0f rows/s)", pm, rows/pm)
			wbc, pbc = fmt.Sprintf("%.3f s", wb), fmt.Sprintf("%.3f s", pb)
		} else {
			wcol, pcol = fmtVal(wm, "s"), fmtVal(pm, "s")
			wbc, pbc = fmtVal(wb, "s"), fmtVal(pb, "s")
		}
		fmt.Fprintf(&b, "| %s | %s | %s | %s | %s | %.2f | %s | %s |\n", s.name, wcol, pcol, wbc, pbc, ratio, s.goal, met)
	}
	if pgPlan != "" {
		fmt.Fprintf(&b, "\nPostgreSQL's GROUP BY plan (default settings): `%s`.\n", pgPlan)
	}
	b.WriteString("\nRatios are weir/PostgreSQL of the medians: for times lower is better for weir, for round-trip rates higher is better.\n")
	return b.String()
}

func cpuModel() string {
	b, err := os.ReadFile("/proc/cpuinfo")
	if err != nil {
		return "unknown CPU"
	}
	for _, l := range strings.Split(string(b), "\n") {
		if strings.HasPrefix(l, "model name") {
			if i := strings.Index(l, ":"); i >= 0 {
				return strings.TrimSpace(l[i+1:])
			}
		}
	}
	return "unknown CPU"
}

const docHeader = `# weir benchmarks

End-to-end benchmarks of weir against PostgreSQL 15, produced by ` + "`go run ./cmd/weirbench`" + `.

## Method

- weirbench builds the weir binary from this module (` + "`go build ./cmd/weir`" + `) and starts it as a
  subprocess on a fresh data directory, with its defaults: every commit is made durable with a
  group-commit fsync (state.SyncGroup). It also starts a fresh PostgreSQL 15 cluster (initdb +
  pg_ctl, its own starter, not internal/pgtest) with **fsync on** and default settings otherwise
  (synchronous_commit on, shared_buffers 128MB), TimeZone UTC. Both listen on loopback TCP; the
  client is pgx v5 in the weirbench process, one connection per server.
- Each measurement is run N times (` + "`-repeat`" + `, default 5), **interleaving** weir and PostgreSQL
  (alternating which goes first) because the machine is shared and noisy; the table gives the
  median and the best run of each and the ratio of the medians.
- **COPY**: a CSV file of ` + "`order_id bigint, region text (10 values), amount numeric(10,2), ts timestamptz`" + `
  is generated once (fixed seed); each run drops and recreates ` + "`t`" + ` and times
  ` + "`COPY t FROM STDIN (FORMAT csv)`" + ` streaming that file through ` + "`PgConn().CopyFrom`" + `
  until CommandComplete (i.e. durable on both). The same bytes go to both servers.
- **GROUP BY**: ` + "`SELECT region, count(*), sum(amount), avg(amount), min(ts), max(ts) FROM t GROUP BY region`" + `
  over the loaded table. Before timing, the text results of both servers are compared (sorted by
  row) and the run fails loudly if they differ. PostgreSQL's table is ` + "`VACUUM ANALYZE`" + `d first;
  both are warmed with one query. A run's time is the mean of a few queries (extended protocol,
  all rows read).
- **SELECT 1**: sequential round trips on one connection, ` + "`QueryRow(\"SELECT 1\").Scan`" + `, in pgx's
  default mode (extended protocol, statement prepared once and cached) and with
  ` + "`QueryExecModeSimpleProtocol`" + `; after a 500-query warm-up.
- Goals: COPY and GROUP BY weir time ≤ PostgreSQL time; SELECT 1 (extended) weir rate ≥ 80% of
  PostgreSQL's.
- Profiling (` + "`go run ./cmd/weirbench -profile DIR`" + `) runs the same workloads against weir started
  in-process (engine.Open + wire.NewServer on a loopback listener) and writes CPU profiles
  (copy.prof, groupby.prof, select1.prof) for ` + "`go tool pprof -top`" + `. It is for finding hot
  spots only; the numbers above always come from the real binary.

`

// The streaming section sits between these markers, after the batch run
// and before the notes.
const (
	streamBegin = "<!-- streaming -->"
	streamEnd   = "<!-- /streaming -->"
)

// writeDoc writes the header, the batch run md and the streaming section
// smd, keeping any hand-written notes that follow a "<!-- notes -->" marker
// in the existing file. An empty md or smd keeps that part of the existing
// file (a -streaming run rewrites only the streaming section).
func writeDoc(path, md, smd string) error {
	notes := ""
	old := ""
	if b, err := os.ReadFile(path); err == nil {
		old = string(b)
	}
	// The sections of -spill, -firstrow and -nexmark are kept as they
	// are, before the notes.
	kept := ""
	for _, m := range [][2]string{{spillBegin, spillEnd}, {firstRowBegin, firstRowEnd}, {nexmarkBegin, nexmarkEnd}, {exprsBegin, exprsEnd}} {
		if i := strings.Index(old, m[0]); i >= 0 {
			if j := strings.Index(old[i:], m[1]); j >= 0 {
				kept += "\n" + old[i:i+j+len(m[1])] + "\n"
				old = old[:i] + strings.TrimPrefix(old[i+j+len(m[1]):], "\n")
			}
		}
	}
	body := old
	if i := strings.Index(old, "<!-- notes -->"); i >= 0 {
		notes = "\n" + old[i:]
		body = old[:i]
	}
	oldMain, oldStream := "", ""
	if i := strings.Index(body, streamBegin); i >= 0 {
		rest := body[i+len(streamBegin):]
		if j := strings.Index(rest, streamEnd); j >= 0 {
			oldStream = strings.TrimPrefix(rest[:j], "\n")
		}
		body = body[:i]
	}
	if i := strings.Index(body, "## Run of"); i >= 0 {
		oldMain = strings.TrimRight(body[i:], "\n") + "\n"
	}
	if md == "" {
		md = oldMain
	}
	if smd == "" {
		smd = oldStream
	}
	out := docHeader + md
	if smd != "" {
		out += "\n" + streamBegin + "\n" + strings.TrimRight(smd, "\n") + "\n" + streamEnd + "\n"
	}
	out += kept
	out += notes
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return err
	}
	return os.WriteFile(path, []byte(out), 0o644)
}

// ---------- CSV ----------

var regions = []string{"north", "south", "east", "west", "central", "northeast", "northwest", "southeast", "southwest", "islands"}

func writeCSV(path string, rows int) (int64, error) {
	f, err := os.Create(path)
	if err != nil {
		return 0, err
	}
	bw := bufio.NewWriterSize(f, 1<<20)
	r := rand.New(rand.NewSource(42))
	base := time.Date(2024, 1, 1, 0, 0, 0, 0, time.UTC)
	buf := make([]byte, 0, 128)
	for i := 0; i < rows; i++ {
		cents := r.Int63n(1_000_000) // 0.00 .. 9999.99
		ts := base.Add(time.Duration(r.Int63n(365*24*3600)) * time.Second)
		buf = buf[:0]
		buf = fmt.Appendf(buf, "%d,%s,%d.%02d,", i+1, regions[r.Intn(len(regions))], cents/100, cents%100)
		buf = ts.AppendFormat(buf, "2006-01-02 15:04:05-07")
		buf = append(buf, '\n')
		bw.Write(buf)
	}
	if err := bw.Flush(); err != nil {
		f.Close()
		return 0, err
	}
	st, err := f.Stat()
	if err != nil {
		return 0, err
	}
	return st.Size(), f.Close()
}
