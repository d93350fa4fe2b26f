package main

// The files-ingestion benchmark (-files N): N events in -files.count
// files, as JSON lines, CSV and Parquet (the same rows in each), and in
// one run, interleaved:
//
//   - weir: CREATE STREAMING TABLE … AS SELECT window(event_time,
//     '5 minutes'), event_type, count(*), sum(amount) FROM STREAM
//     read_files(dir, format => …) GROUP BY ALL, timed from the CREATE to
//     the table having consumed every row (streaming_progress);
//   - PostgreSQL: server-side COPY of the CSV files into a fresh table plus
//     the batch aggregate (date_bin), all rows read;
//   - DuckDB (in this process, through duckdb-go): read_json / read_csv /
//     read_parquet of the same files plus the same GROUP BY.
//
// All three give the same groups, counts and sums (checked). events/s =
// N over the time; cores = the engine's CPU time over the wall time.

import (
	"bufio"
	"context"
	"database/sql"
	"errors"
	"fmt"
	"math/rand"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"syscall"
	"time"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/decimal128"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/apache/arrow-go/v18/parquet"
	"github.com/apache/arrow-go/v18/parquet/compress"
	"github.com/apache/arrow-go/v18/parquet/pqarrow"
	_ "github.com/duckdb/duckdb-go/v2"
	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
)

// filesTotals is what every engine's aggregate must come to.
type filesTotals struct {
	groups int64
	rows   int64
	sum    string // sum(amount), as numeric text
}

func (t filesTotals) String() string {
	return fmt.Sprintf("%d groups, %d rows, sum %s", t.groups, t.rows, t.sum)
}

var filesEventTypes = []string{"view", "cart", "buy", "refund", "search"}

// writeFilesData writes the events into dir/json, dir/csv and dir/parquet,
// nfiles files each, and returns the totals and each format's bytes.
// Event times advance by 10 ms per event with up to ±5 s of jitter; the
// amount is 0.00 .. 999.99.
func writeFilesData(dir string, events, nfiles int) (filesTotals, map[string]int64, error) {
	sizes := map[string]int64{}
	for _, f := range []string{"json", "csv", "parquet"} {
		if err := os.MkdirAll(filepath.Join(dir, f), 0o755); err != nil {
			return filesTotals{}, nil, err
		}
	}
	r := rand.New(rand.NewSource(11))
	base := time.Date(2024, 3, 1, 0, 0, 0, 0, time.UTC)
	groups := map[[2]int64]bool{}
	var cents int64
	arrowSchema := arrow.NewSchema([]arrow.Field{
		{Name: "event_id", Type: arrow.PrimitiveTypes.Int64},
		{Name: "event_type", Type: arrow.BinaryTypes.String},
		{Name: "user_id", Type: arrow.PrimitiveTypes.Int64},
		{Name: "amount", Type: &arrow.Decimal128Type{Precision: 18, Scale: 2}},
		{Name: "event_time", Type: &arrow.TimestampType{Unit: arrow.Microsecond, TimeZone: "UTC"}},
	}, nil)
	line := make([]byte, 0, 160)
	for k := 0; k < nfiles; k++ {
		from, to := events*k/nfiles, events*(k+1)/nfiles
		name := fmt.Sprintf("part-%05d", k)
		jf, err := os.Create(filepath.Join(dir, "json", name+".json"))
		if err != nil {
			return filesTotals{}, nil, err
		}
		cf, err := os.Create(filepath.Join(dir, "csv", name+".csv"))
		if err != nil {
			return filesTotals{}, nil, err
		}
		jw, cw := bufio.NewWriterSize(jf, 1<<20), bufio.NewWriterSize(cf, 1<<20)
		cw.WriteString("event_id,event_type,user_id,amount,event_time\n")
		b := array.NewRecordBuilder(memory.DefaultAllocator, arrowSchema)
		for i := from; i < to; i++ {
			typ := r.Intn(len(filesEventTypes))
			user := r.Int63n(100_000)
			c := r.Int63n(100_000)
			ts := base.Add(time.Duration(i) * 10 * time.Millisecond).Add(time.Duration(r.Int63n(10_001)-5000) * time.Millisecond)
			cents += c
			groups[[2]int64{ts.Unix() / 300, int64(typ)}] = true
			stamp := ts.Format("2006-01-02T15:04:05.000Z")
			line = fmt.Appendf(line[:0], `{"event_id":%d,"event_type":"%s","user_id":%d,"amount":%d.%02d,"event_time":"%s"}`+"\n",
				i+1, filesEventTypes[typ], user, c/100, c%100, stamp)
			jw.Write(line)
			line = fmt.Appendf(line[:0], "%d,%s,%d,%d.%02d,%s\n", i+1, filesEventTypes[typ], user, c/100, c%100, stamp)
			cw.Write(line)
			b.Field(0).(*array.Int64Builder).Append(int64(i + 1))
			b.Field(1).(*array.StringBuilder).Append(filesEventTypes[typ])
			b.Field(2).(*array.Int64Builder).Append(user)
			b.Field(3).(*array.Decimal128Builder).Append(decimal128.FromI64(c))
			b.Field(4).(*array.TimestampBuilder).Append(arrow.Timestamp(ts.UnixMicro()))
		}
		for _, f := range []struct {
			w *bufio.Writer
			f *os.File
		}{{jw, jf}, {cw, cf}} {
			if err := f.w.Flush(); err != nil {
				return filesTotals{}, nil, err
			}
			if err := f.f.Close(); err != nil {
				return filesTotals{}, nil, err
			}
		}
		rec := b.NewRecordBatch()
		b.Release()
		pf, err := os.Create(filepath.Join(dir, "parquet", name+".parquet"))
		if err != nil {
			return filesTotals{}, nil, err
		}
		pw, err := pqarrow.NewFileWriter(arrowSchema, pf, parquet.NewWriterProperties(parquet.WithCompression(compress.Codecs.Snappy)), pqarrow.NewArrowWriterProperties(pqarrow.WithStoreSchema()))
		if err != nil {
			return filesTotals{}, nil, err
		}
		if err := pw.Write(rec); err != nil {
			return filesTotals{}, nil, err
		}
		rec.Release()
		if err := pw.Close(); err != nil {
			return filesTotals{}, nil, err
		}
	}
	for _, f := range []string{"json", "csv", "parquet"} {
		ents, err := os.ReadDir(filepath.Join(dir, f))
		if err != nil {
			return filesTotals{}, nil, err
		}
		for _, e := range ents {
			if fi, err := e.Info(); err == nil {
				sizes[f] += fi.Size()
			}
		}
	}
	return filesTotals{groups: int64(len(groups)), rows: int64(events), sum: fmt.Sprintf("%d.%02d", cents/100, cents%100)}, sizes, nil
}

// filesFormat is one format's spelling on each engine.
type filesFormat struct {
	name      string
	readFiles string // read_files' options after the path
	duckdb    string // DuckDB's table function call, %s = the folder
}

var filesFormats = []filesFormat{
	{"json", `format => 'json', schemaHints => 'amount decimal(18,2), event_time timestamp'`,
		`read_json('%s/*.json', format = 'newline_delimited', columns = {event_id: 'BIGINT', event_type: 'VARCHAR', user_id: 'BIGINT', amount: 'DECIMAL(18,2)', event_time: 'TIMESTAMPTZ'})`},
	{"csv", `format => 'csv', header => true, schemaHints => 'amount decimal(18,2), event_time timestamp'`,
		`read_csv('%s/*.csv', header = true, columns = {event_id: 'BIGINT', event_type: 'VARCHAR', user_id: 'BIGINT', amount: 'DECIMAL(18,2)', event_time: 'TIMESTAMPTZ'})`},
	{"parquet", `format => 'parquet'`, `read_parquet('%s/*.parquet')`},
}

// filesResult is one format's measurements (seconds and CPU seconds).
type filesResult struct {
	f                filesFormat
	weir, weirCPU    []float64
	duck, duckCPU    []float64
	weirErr, duckErr string
	weirTot, duckTot filesTotals
}

func runFiles(c config, events, nfiles int, only, cpuprofile string) error {
	ctx := context.Background()
	root, err := moduleRoot()
	if err != nil {
		return err
	}
	t0 := time.Now()
	tmp, err := os.MkdirTemp("", "weirbench-files-")
	if err != nil {
		return err
	}
	os.Chmod(tmp, 0o755)
	if !c.keep {
		defer os.RemoveAll(tmp)
	}
	logf("writing %d events into %d files of each format under %s", events, nfiles, tmp)
	want, sizes, err := writeFilesData(filepath.Join(tmp, "in"), events, nfiles)
	if err != nil {
		return err
	}
	logf("expected: %s; bytes: json %d, csv %d, parquet %d", want, sizes["json"], sizes["csv"], sizes["parquet"])
	logf("building weir")
	bin, err := buildWeir(root, tmp)
	if err != nil {
		return err
	}
	if cpuprofile != "" {
		os.Setenv("WEIR_CPUPROFILE", cpuprofile) // the server profiles itself until it stops
	}
	wp, err := startWeir(bin, tmp, "--files-root", tmp)
	os.Unsetenv("WEIR_CPUPROFILE")
	if err != nil {
		return err
	}
	defer wp.stop()
	pgs, err := startPG(tmp)
	if err != nil {
		return err
	}
	defer pgs.stop()
	wc, err := connect(wp.url())
	if err != nil {
		return err
	}
	defer wc.Close(ctx)
	pc, err := connect(pgs.url())
	if err != nil {
		return err
	}
	defer pc.Close(ctx)
	var pgVersion string
	pc.QueryRow(ctx, "SHOW server_version").Scan(&pgVersion)
	pgPID, err := postmasterPID(pgs.Dir)
	if err != nil {
		return err
	}
	weirPID := wp.cmd.Process.Pid

	formats := filesFormats
	if only != "" {
		keep := map[string]bool{}
		for _, n := range strings.Split(only, ",") {
			keep[strings.TrimSpace(n)] = true
		}
		formats = nil
		for _, f := range filesFormats {
			if keep[f.name] {
				formats = append(formats, f)
			}
		}
	}
	var results []*filesResult
	for _, f := range formats {
		results = append(results, &filesResult{f: f})
	}
	var pgT, pgCPU []float64
	ev := float64(events)
	for i := 0; i < c.repeat; i++ {
		steps := []func() error{
			func() error {
				el, cpu, tot, err := filesPGOnce(ctx, pc, pgPID, filepath.Join(tmp, "in", "csv"), nfiles)
				if err != nil {
					return fmt.Errorf("PostgreSQL: %w", err)
				}
				if tot != want {
					return fmt.Errorf("PostgreSQL's aggregate: %s, want %s", tot, want)
				}
				pgT, pgCPU = append(pgT, el), append(pgCPU, cpu)
				logf("run %d postgres COPY csv + aggregate: %.3f s (%.0f events/s, %.2f cores)", i+1, el, ev/el, cpu/el)
				return nil
			},
		}
		for _, r := range results {
			r := r
			steps = append(steps, func() error {
				if r.weirErr != "" {
					return nil
				}
				el, cpu, tot, err := filesWeirOnce(ctx, wc, weirPID, filepath.Join(tmp, "in", r.f.name), r.f, int64(events))
				if err != nil {
					r.weirErr = err.Error()
					logf("run %d weir %s: %v", i+1, r.f.name, err)
					return nil
				}
				r.weirTot = tot
				if tot != want {
					r.weirErr = fmt.Sprintf("wrong result: %s, want %s", tot, want)
					logf("run %d weir %s: %s", i+1, r.f.name, r.weirErr)
					return nil
				}
				r.weir, r.weirCPU = append(r.weir, el), append(r.weirCPU, cpu)
				logf("run %d weir %s: %.3f s (%.0f events/s, %.2f cores; CREATE %.3f s)", i+1, r.f.name, el, ev/el, cpu/el, filesLastCreate.Seconds())
				return nil
			}, func() error {
				if r.duckErr != "" {
					return nil
				}
				el, cpu, tot, err := filesDuckOnce(ctx, fmt.Sprintf(r.f.duckdb, filepath.Join(tmp, "in", r.f.name)))
				if err != nil {
					r.duckErr = err.Error()
					logf("run %d duckdb %s: %v", i+1, r.f.name, err)
					return nil
				}
				r.duckTot = tot
				if tot != want {
					r.duckErr = fmt.Sprintf("wrong result: %s, want %s", tot, want)
					logf("run %d duckdb %s: %s", i+1, r.f.name, r.duckErr)
					return nil
				}
				r.duck, r.duckCPU = append(r.duck, el), append(r.duckCPU, cpu)
				logf("run %d duckdb %s: %.3f s (%.0f events/s, %.2f cores)", i+1, r.f.name, el, ev/el, cpu/el)
				return nil
			})
		}
		// Interleave: each run starts at a different step.
		for k := range steps {
			if err := steps[(k+i)%len(steps)](); err != nil {
				return err
			}
		}
	}
	cmdline := "go run ./cmd/weirbench " + strings.Join(os.Args[1:], " ")
	md := filesReport(c, events, nfiles, sizes, results, pgT, pgCPU, pgVersion, cmdline, time.Since(t0))
	fmt.Println()
	fmt.Println(md)
	doc := c.doc
	if doc == "" {
		doc = filepath.Join(root, "docs", "benchmarks.md")
	}
	if doc != "-" && only == "" {
		if err := writeSection(doc, filesBegin, filesEnd, md); err != nil {
			return err
		}
		logf("wrote %s", doc)
	}
	return nil
}

// filesGroupByAllRefused is weir's refusal of GROUP BY ALL over
// read_files, "" while it is accepted (the report says which ran).
var filesGroupByAllRefused string

// filesLastCreate is how long the last CREATE took (schema inference
// included), for the log.
var filesLastCreate time.Duration

// filesWeirOnce creates the streaming table over dir and times it from the
// CREATE to every row consumed; it returns the table's totals.
func filesWeirOnce(ctx context.Context, conn *pgx.Conn, pid int, dir string, f filesFormat, events int64) (el, cpu float64, tot filesTotals, err error) {
	if _, err := conn.Exec(ctx, "DROP STREAMING TABLE IF EXISTS files_agg"); err != nil {
		return 0, 0, tot, err
	}
	create := fmt.Sprintf(`CREATE STREAMING TABLE files_agg AS SELECT window(event_time, '5 minutes'), event_type, count(*), sum(amount)
		FROM STREAM read_files('%s', %s) GROUP BY ALL`, dir, f.readFiles)
	cpu0, err := processCPU(pid)
	if err != nil {
		return 0, 0, tot, err
	}
	start := time.Now()
	if _, err := conn.Exec(ctx, create); err != nil {
		// GROUP BY ALL over read_files is refused (0A000 "a streaming
		// table reads one input as a stream") at the time of writing:
		// the same query with its groups spelled out.
		var pe *pgconn.PgError
		if !errors.As(err, &pe) || pe.Code != "0A000" {
			return 0, 0, tot, fmt.Errorf("%s: %w", create, err)
		}
		filesGroupByAllRefused = pe.Message
		spelled := strings.Replace(create, "GROUP BY ALL", "GROUP BY window(event_time, '5 minutes'), event_type", 1)
		if _, err := conn.Exec(ctx, spelled); err != nil {
			return 0, 0, tot, fmt.Errorf("%s: %w", spelled, err)
		}
	}
	filesLastCreate = time.Since(start)
	if _, err := waitCaughtUp(ctx, conn, "files_agg", events, 10*time.Minute); err != nil {
		return 0, 0, tot, err
	}
	el = time.Since(start).Seconds()
	cpu1, err := processCPU(pid)
	if err != nil {
		return 0, 0, tot, err
	}
	// The table's rows are the windows' current values (update mode: no
	// watermark closes them), so they add up to every row.
	err = conn.QueryRow(ctx, `SELECT count(*), coalesce(sum("count"), 0), coalesce(sum("sum"), 0)::text FROM files_agg`).Scan(&tot.groups, &tot.rows, &tot.sum)
	return el, cpu1 - cpu0, tot, err
}

// filesPGOnce COPYs the CSV files server-side into a fresh table and runs
// the batch aggregate.
func filesPGOnce(ctx context.Context, conn *pgx.Conn, pid int, dir string, nfiles int) (el, cpu float64, tot filesTotals, err error) {
	for _, s := range []string{"DROP TABLE IF EXISTS ev_files",
		"CREATE TABLE ev_files (event_id bigint, event_type text, user_id bigint, amount numeric(18,2), event_time timestamptz)"} {
		if _, err := conn.Exec(ctx, s); err != nil {
			return 0, 0, tot, err
		}
	}
	cpu0, err := processTreeCPU(pid)
	if err != nil {
		return 0, 0, tot, err
	}
	start := time.Now()
	for k := 0; k < nfiles; k++ {
		path := filepath.Join(dir, fmt.Sprintf("part-%05d.csv", k))
		if _, err := conn.Exec(ctx, fmt.Sprintf("COPY ev_files FROM '%s' WITH (FORMAT csv, HEADER true)", path)); err != nil {
			return 0, 0, tot, err
		}
	}
	err = conn.QueryRow(ctx, `SELECT count(*), coalesce(sum(n), 0), coalesce(sum(s), 0)::text FROM (
		SELECT date_bin('5 minutes', event_time, 'epoch') AS w, event_type, count(*) AS n, sum(amount) AS s FROM ev_files GROUP BY 1, 2) g`).
		Scan(&tot.groups, &tot.rows, &tot.sum)
	if err != nil {
		return 0, 0, tot, err
	}
	el = time.Since(start).Seconds()
	cpu1, err := processTreeCPU(pid)
	return el, cpu1 - cpu0, tot, err
}

// filesDuckOnce runs the aggregate over the files in a fresh in-memory
// DuckDB in this process; its CPU is this process's.
func filesDuckOnce(ctx context.Context, from string) (el, cpu float64, tot filesTotals, err error) {
	db, err := sql.Open("duckdb", "")
	if err != nil {
		return 0, 0, tot, err
	}
	defer db.Close()
	if err := db.PingContext(ctx); err != nil {
		return 0, 0, tot, err
	}
	cpu0 := selfCPU()
	start := time.Now()
	err = db.QueryRowContext(ctx, `SELECT count(*), coalesce(sum(n), 0)::BIGINT, coalesce(sum(s), 0)::VARCHAR FROM (
		SELECT time_bucket(INTERVAL 5 MINUTE, event_time) AS w, event_type, count(*) AS n, sum(amount) AS s FROM `+from+` GROUP BY ALL) g`).
		Scan(&tot.groups, &tot.rows, &tot.sum)
	el = time.Since(start).Seconds()
	return el, selfCPU() - cpu0, tot, err
}

// selfCPU is this process's CPU seconds (user + system).
func selfCPU() float64 {
	var ru syscall.Rusage
	syscall.Getrusage(syscall.RUSAGE_SELF, &ru)
	return float64(ru.Utime.Sec+ru.Stime.Sec) + float64(ru.Utime.Usec+ru.Stime.Usec)/1e6
}

// The Files ingestion section's markers in docs/benchmarks.md.
const (
	filesBegin = "<!-- files -->"
	filesEnd   = "<!-- /files -->"
)

func filesReport(c config, events, nfiles int, sizes map[string]int64, results []*filesResult, pgT, pgCPU []float64, pgVersion, cmdline string, elapsed time.Duration) string {
	var b strings.Builder
	fmt.Fprintf(&b, "## Files ingestion (`weirbench -files`): run of %s\n\n", time.Now().UTC().Format("2006-01-02 15:04 MST"))
	fmt.Fprintf(&b, "%d events (event_id, event_type, user_id, amount, event_time) in %d files, written once as JSON lines, CSV (with a header) and Parquet (snappy, arrow-go's writer), the same rows in each. ", events, nfiles)
	b.WriteString("**weir**: `CREATE STREAMING TABLE files_agg AS SELECT window(event_time, '5 minutes'), event_type, count(*), sum(amount) FROM STREAM read_files(dir, format => …, schemaHints => 'amount decimal(18,2), event_time timestamp') GROUP BY ALL`, " +
		"timed from the CREATE (schema inference included) to `streaming_progress.input_rows` = every event with no backlog. " +
		"**PostgreSQL**: server-side `COPY ev_files FROM 'part-N.csv' (FORMAT csv, HEADER)` of the CSV files into a fresh table (fsync on) plus `SELECT date_bin('5 minutes', event_time, 'epoch'), event_type, count(*), sum(amount) … GROUP BY 1, 2`. " +
		"**DuckDB** (duckdb-go, in the benchmark's process, a fresh in-memory database per run): `read_json` / `read_csv` with the columns' types given, `read_parquet`, and the same aggregate with `time_bucket`. " +
		"Every engine's result is checked (groups, total count, total sum). events/s = events over the time; cores = CPU time (user + system) over wall time " +
		"(weir's process; PostgreSQL's postmaster and children; DuckDB's: the benchmark process). Medians of the interleaved runs.\n\n")
	if filesGroupByAllRefused != "" {
		fmt.Fprintf(&b, "weir refused `GROUP BY ALL` over `read_files` in this run (0A000: %s), so weir ran the same query with `GROUP BY window(event_time, '5 minutes'), event_type`.\n\n", filesGroupByAllRefused)
	}
	fmt.Fprintf(&b, "- Machine: %d CPUs (nproc), %s/%s, %s, %s; PostgreSQL %s (fsync on); load average at the end %s\n",
		runtime.NumCPU(), runtime.GOOS, runtime.GOARCH, goVersion(), cpuModel(), pgVersion, loadAverage())
	fmt.Fprintf(&b, "- Command: `%s` (%d interleaved runs; %.0f s in all); bytes: JSON %.1f MB, CSV %.1f MB, Parquet %.1f MB\n\n",
		cmdline, c.repeat, elapsed.Seconds(), float64(sizes["json"])/1e6, float64(sizes["csv"])/1e6, float64(sizes["parquet"])/1e6)
	ev := float64(events)
	cell := func(t, cpu []float64, errText string) (string, string) {
		if errText != "" && len(t) == 0 {
			short, _, _ := strings.Cut(errText, "\n")
			if len(short) > 120 {
				short = short[:120] + "…"
			}
			return "failed: " + strings.ReplaceAll(short, "|", "\\|"), "—"
		}
		m := median(t)
		return fmt.Sprintf("%.0f k events/s (%.2f s)", ev/m/1e3, m), fmt.Sprintf("%.2f", median(cpu)/m)
	}
	// perCPU is events per CPU-second: what a machine shared with other
	// work (whose cores the engines did not get) disturbs least.
	perCPU := func(cpu []float64) string {
		if len(cpu) == 0 {
			return "—"
		}
		return fmt.Sprintf("%.0f k", ev/median(cpu)/1e3)
	}
	pgCell, pgCores := cell(pgT, pgCPU, "")
	b.WriteString("| format | weir read_files → streaming table | weir cores | weir events per CPU-s | PostgreSQL COPY csv + aggregate | PostgreSQL cores | PostgreSQL events per CPU-s | DuckDB batch | DuckDB cores | DuckDB events per CPU-s | time weir / PostgreSQL | CPU weir / PostgreSQL | time weir / DuckDB | goal (faster than PostgreSQL, ≥ 1.5M events/s) |\n")
	b.WriteString("| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | --- |\n")
	for _, r := range results {
		wCell, wCores := cell(r.weir, r.weirCPU, r.weirErr)
		dCell, dCores := cell(r.duck, r.duckCPU, r.duckErr)
		ratioPG, cpuPG, ratioDuck, goal := "—", "—", "—", "no (did not run)"
		if len(r.weir) > 0 {
			wm := median(r.weir)
			ratioPG = fmt.Sprintf("%.2f", wm/median(pgT))
			cpuPG = fmt.Sprintf("%.2f", median(r.weirCPU)/median(pgCPU))
			if len(r.duck) > 0 {
				ratioDuck = fmt.Sprintf("%.2f", wm/median(r.duck))
			}
			goal = "no"
			if wm < median(pgT) && ev/wm >= 1.5e6 {
				goal = "yes"
			} else if wm < median(pgT) {
				goal = "faster than PostgreSQL; below 1.5M events/s"
			}
		}
		fmt.Fprintf(&b, "| %s | %s | %s | %s | %s | %s | %s | %s | %s | %s | %s | %s | %s | %s |\n", r.f.name, wCell, wCores, perCPU(r.weirCPU),
			pgCell, pgCores, perCPU(pgCPU), dCell, dCores, perCPU(r.duckCPU), ratioPG, cpuPG, ratioDuck, goal)
	}
	b.WriteString("\n")
	return b.String()
}
