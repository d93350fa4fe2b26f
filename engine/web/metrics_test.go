package web

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"math"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/testutil"
	dto "github.com/prometheus/client_model/go"
	"github.com/prometheus/common/expfmt"
	"github.com/prometheus/common/model"

	"github.com/weir-sql/weir/engine"
	"github.com/weir-sql/weir/exec"
	"github.com/weir-sql/weir/wire"
)

// testServer is a real engine served over the wire on a free port, with
// its /metrics handler behind an httptest server.
type testServer struct {
	dir  string
	eng  *engine.Engine
	url  string // PostgreSQL URL
	http *httptest.Server
}

func startServer(t *testing.T) *testServer {
	t.Helper()
	dir := t.TempDir()
	eng, err := engine.Open(engine.Config{DataDir: filepath.Join(dir, "data"), FilesRoots: []string{dir}})
	if err != nil {
		t.Fatalf("open engine: %v", err)
	}
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	srv := wire.NewServer(eng, wire.Config{Logger: slog.New(slog.NewTextHandler(io.Discard, nil))})
	go srv.Serve(l)
	hs := httptest.NewServer(Handler(eng))
	t.Cleanup(func() {
		hs.Close()
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		srv.Shutdown(ctx)
		eng.Close()
	})
	return &testServer{dir: dir, eng: eng, url: fmt.Sprintf("postgres://weir@%s/weir?sslmode=disable", l.Addr()), http: hs}
}

func (s *testServer) connect(t *testing.T) *pgx.Conn {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	c, err := pgx.Connect(ctx, s.url)
	if err != nil {
		t.Fatalf("connect: %v", err)
	}
	t.Cleanup(func() { c.Close(context.Background()) })
	return c
}

// scrape GETs /metrics as Prometheus would and parses the text format.
func (s *testServer) scrape(t *testing.T) scraped {
	t.Helper()
	resp, err := http.Get(s.http.URL + "/metrics")
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		b, _ := io.ReadAll(resp.Body)
		t.Fatalf("GET /metrics: %s\n%s", resp.Status, b)
	}
	if ct := resp.Header.Get("Content-Type"); !strings.HasPrefix(ct, "text/plain") {
		t.Fatalf("GET /metrics: Content-Type %q", ct)
	}
	p := expfmt.NewTextParser(model.UTF8Validation)
	fams, err := p.TextToMetricFamilies(resp.Body)
	if err != nil {
		t.Fatalf("parse /metrics: %v", err)
	}
	return fams
}

type scraped map[string]*dto.MetricFamily

// get is the value of the sample of metric name whose labels include
// labels (name=value pairs); ok false when there is none.
func (s scraped) get(name string, labels ...string) (float64, bool) {
	f, ok := s[name]
	if !ok {
		return 0, false
	}
next:
	for _, m := range f.Metric {
		have := map[string]string{}
		for _, lp := range m.Label {
			have[lp.GetName()] = lp.GetValue()
		}
		for i := 0; i+1 < len(labels); i += 2 {
			if have[labels[i]] != labels[i+1] {
				continue next
			}
		}
		switch {
		case m.Counter != nil:
			return m.Counter.GetValue(), true
		case m.Gauge != nil:
			return m.Gauge.GetValue(), true
		case m.Untyped != nil:
			return m.Untyped.GetValue(), true
		}
	}
	return 0, false
}

func (s scraped) must(t *testing.T, name string, labels ...string) float64 {
	t.Helper()
	v, ok := s.get(name, labels...)
	if !ok {
		t.Fatalf("/metrics has no %s%v", name, labels)
	}
	return v
}

func (s scraped) histogram(t *testing.T, name string) *dto.Histogram {
	t.Helper()
	f, ok := s[name]
	if !ok || len(f.Metric) != 1 || f.Metric[0].Histogram == nil {
		t.Fatalf("/metrics has no histogram %s", name)
	}
	return f.Metric[0].Histogram
}

// waitUntil polls cond until it holds or the deadline passes.
func waitUntil(t *testing.T, what string, d time.Duration, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(d)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("not within %s: %s", d, what)
		}
		time.Sleep(20 * time.Millisecond) // polling interval, not synchronisation
	}
}

func execSQL(t *testing.T, c *pgx.Conn, qs ...string) {
	t.Helper()
	for _, q := range qs {
		if _, err := c.Exec(context.Background(), q); err != nil {
			t.Fatalf("%s: %v", q, err)
		}
	}
}

// progressRow is one row of weir_catalog.streaming_progress.
type progressRow struct {
	status                                    string
	epoch, input, late, stateRows, stateBytes int64
	backlog, output                           int64
	inputRate, processedRate, lastBatchMillis float64
	watermarkMicros                           *int64
}

func readProgress(t *testing.T, c *pgx.Conn, name string) progressRow {
	t.Helper()
	var r progressRow
	err := c.QueryRow(context.Background(), `SELECT status, epoch, input_rows, late_rows, state_rows, state_bytes,
		  backlog_rows, output_rows, input_rows_per_second, processed_rows_per_second, last_batch_duration_ms,
		  (extract(epoch FROM watermark) * 1000000)::bigint
		FROM weir_catalog.streaming_progress WHERE name = $1`, name).Scan(&r.status, &r.epoch, &r.input, &r.late,
		&r.stateRows, &r.stateBytes, &r.backlog, &r.output, &r.inputRate, &r.processedRate, &r.lastBatchMillis, &r.watermarkMicros)
	if err != nil {
		t.Fatalf("streaming_progress of %s: %v", name, err)
	}
	return r
}

func sameProgress(a, b progressRow) bool {
	wa, wb := int64(math.MinInt64), int64(math.MinInt64)
	if a.watermarkMicros != nil {
		wa = *a.watermarkMicros
	}
	if b.watermarkMicros != nil {
		wb = *b.watermarkMicros
	}
	a.watermarkMicros, b.watermarkMicros = nil, nil
	return a == b && wa == wb
}

// checkProgress compares the scraped figures of table name with its
// streaming_progress row: read, scrape, read again, until the two reads
// agree (no epoch committed in between) and the scrape can be compared.
func checkProgress(t *testing.T, s *testServer, c *pgx.Conn, name string) (progressRow, scraped) {
	t.Helper()
	var row progressRow
	var m scraped
	var before, after time.Time
	waitUntil(t, name+"'s progress standing still for a scrape", 20*time.Second, func() bool {
		a := readProgress(t, c, name)
		before = time.Now()
		m = s.scrape(t)
		after = time.Now()
		row = readProgress(t, c, name)
		return sameProgress(a, row)
	})
	l := []string{"table", "public." + name, "flow", ""}
	for _, f := range []struct {
		metric string
		want   float64
	}{
		{"weir_streaming_epoch", float64(row.epoch)},
		{"weir_streaming_input_rows_total", float64(row.input)},
		{"weir_streaming_late_rows_total", float64(row.late)},
		{"weir_streaming_output_rows_total", float64(row.output)},
		{"weir_streaming_state_rows", float64(row.stateRows)},
		{"weir_streaming_state_bytes", float64(row.stateBytes)},
		{"weir_streaming_backlog_rows", float64(row.backlog)},
		{"weir_streaming_input_rows_per_second", row.inputRate},
		{"weir_streaming_processed_rows_per_second", row.processedRate},
	} {
		if got := m.must(t, f.metric, l...); got != f.want {
			t.Errorf("%s %s = %v, streaming_progress says %v", name, f.metric, got, f.want)
		}
	}
	if got := m.must(t, "weir_streaming_last_batch_duration_seconds", l...); math.Abs(got-row.lastBatchMillis/1000) > 1e-6 {
		t.Errorf("%s last batch %vs, streaming_progress says %vms", name, got, row.lastBatchMillis)
	}
	for _, st := range tableStatuses {
		want := 0.0
		if st == row.status {
			want = 1
		}
		if got := m.must(t, "weir_streaming_status", append(l, "status", st)...); got != want {
			t.Errorf("%s weir_streaming_status{status=%q} = %v, status is %s", name, st, got, row.status)
		}
	}
	lag, hasLag := m.get("weir_streaming_watermark_lag_seconds", l...)
	wm, hasWM := m.get("weir_streaming_watermark_timestamp_seconds", l...)
	if row.watermarkMicros == nil {
		if hasLag || hasWM {
			t.Errorf("%s has no watermark, /metrics says lag %v, watermark %v", name, lag, wm)
		}
		return row, m
	}
	w := time.UnixMicro(*row.watermarkMicros)
	if !hasLag || !hasWM {
		t.Fatalf("%s: watermark %s, no lag or watermark in /metrics", name, w)
	}
	if math.Abs(wm-float64(*row.watermarkMicros)/1e6) > 1e-6 {
		t.Errorf("%s watermark %v, streaming_progress says %s", name, wm, w)
	}
	if lo, hi := before.Sub(w).Seconds(), after.Sub(w).Seconds(); lag < lo || lag > hi {
		t.Errorf("%s watermark lag %vs, outside [%v, %v] (watermark %s)", name, lag, lo, hi, w)
	}
	return row, m
}

// TestMetricsFollowStreamingProgress: the per-table figures of /metrics
// are streaming_progress's, and change with it as rows arrive.
func TestMetricsFollowStreamingProgress(t *testing.T) {
	s := startServer(t)
	c := s.connect(t)
	sinkDir := filepath.Join(s.dir, "minutes_out")
	execSQL(t, c,
		"SET TimeZone = 'UTC'",
		"CREATE TABLE events (k bigint, ts timestamptz)",
		"CREATE STREAMING TABLE by_group AS SELECT k % 10 AS g, count(*) AS n FROM events GROUP BY 1",
		`CREATE STREAMING TABLE by_minute AS SELECT window_start, count(*) AS n
		   FROM STREAM events WATERMARK ts DELAY OF INTERVAL '1 second'
		   WINDOW TUMBLING (SIZE INTERVAL '1 minute') GROUP BY window_start`,
		fmt.Sprintf("CREATE SINK minutes_out FROM by_minute WITH (connector = 'files', path = '%s', format = 'json')", sinkDir),
		"CREATE SOURCE bids WITH (connector = 'nexmark', table = 'bid', max_events = 50)",
	)
	insert := func(from, to int) {
		execSQL(t, c, fmt.Sprintf(`INSERT INTO events SELECT g, timestamptz '2024-01-01 00:00:00+00' + g * interval '1 second'
			FROM generate_series(%d, %d) g`, from, to))
	}
	consumed := func(name string, n int64) func() bool {
		return func() bool { return readProgress(t, c, name).input == n }
	}

	insert(1, 1000)
	waitUntil(t, "by_group and by_minute read 1000 rows", 20*time.Second, func() bool {
		return consumed("by_group", 1000)() && consumed("by_minute", 1000)()
	})
	g1, _ := checkProgress(t, s, c, "by_group")
	m1, m := checkProgress(t, s, c, "by_minute")
	if g1.stateRows != 10 || m1.watermarkMicros == nil || m1.output == 0 {
		t.Fatalf("unexpected progress: by_group %+v, by_minute %+v", g1, m1)
	}
	if v := m.must(t, "weir_streaming_table_info", "table", "public.by_group", "mode", "update"); v != 1 {
		t.Errorf("by_group info %v", v)
	}
	if v := m.must(t, "weir_source_info", "source", "public.bids", "connector", "nexmark"); v != 1 {
		t.Errorf("source info %v", v)
	}
	if v := m.must(t, "weir_sink_info", "sink", "public.minutes_out", "connector", "files", "table", "public.by_minute"); v != 1 {
		t.Errorf("sink info %v", v)
	}
	// Sinks have no SQL view yet: Monitor is the reference.
	mon := s.eng.Monitor()
	if len(mon.Sinks) != 1 || mon.Sinks[0].Status != "running" {
		t.Fatalf("Monitor sinks: %+v", mon.Sinks)
	}
	for _, st := range sinkStatuses {
		want := 0.0
		if st == "running" {
			want = 1
		}
		if v := m.must(t, "weir_sink_status", "sink", "public.minutes_out", "status", st); v != want {
			t.Errorf("weir_sink_status{status=%q} = %v for a running sink", st, v)
		}
	}
	waitUntil(t, "the sink commits an epoch", 20*time.Second, func() bool {
		_, ok := s.scrape(t).get("weir_sink_last_committed_epoch", "sink", "public.minutes_out")
		return ok
	})

	// The figures move as rows arrive.
	insert(1001, 1500)
	waitUntil(t, "/metrics shows by_group's 1500 input rows", 20*time.Second, func() bool {
		v, _ := s.scrape(t).get("weir_streaming_input_rows_total", "table", "public.by_group", "flow", "")
		return v == 1500
	})
	waitUntil(t, "by_minute reads 1500 rows", 20*time.Second, consumed("by_minute", 1500))
	g2, _ := checkProgress(t, s, c, "by_group")
	m2, _ := checkProgress(t, s, c, "by_minute")
	if g2.epoch <= g1.epoch || m2.output <= m1.output || *m2.watermarkMicros <= *m1.watermarkMicros {
		t.Errorf("figures did not move: by_group epoch %d → %d, by_minute output %d → %d, watermark %d → %d",
			g1.epoch, g2.epoch, m1.output, m2.output, *m1.watermarkMicros, *m2.watermarkMicros)
	}
	checkExpectations(t, s)
}

// checkExpectations: every expectation Monitor knows is in /metrics with
// its counts.
func checkExpectations(t *testing.T, s *testServer) {
	t.Helper()
	mon := s.eng.Monitor()
	m := s.scrape(t)
	for _, tb := range mon.Tables {
		for _, x := range tb.Expectations {
			l := []string{"table", tb.Name, "flow", tb.Flow, "expectation", x.Name, "action", x.Action}
			if got := m.must(t, "weir_expectation_passed_rows_total", l...); got < float64(x.Passed) {
				t.Errorf("%s %s passed %v, Monitor said %d before", tb.Name, x.Name, got, x.Passed)
			}
			if got := m.must(t, "weir_expectation_failed_rows_total", l...); got < float64(x.Failed) {
				t.Errorf("%s %s failed %v, Monitor said %d before", tb.Name, x.Name, got, x.Failed)
			}
		}
	}
}

// TestMetricsServer: connections, statements, errors by SQLSTATE class,
// the commit and fsync histograms and the store's size.
func TestMetricsServer(t *testing.T) {
	s := startServer(t)
	c := s.connect(t)
	ctx := context.Background()
	m := s.scrape(t)
	if v := m.must(t, "weir_connections"); v != 1 {
		t.Errorf("weir_connections = %v with one client", v)
	}
	opened := m.must(t, "weir_connections_opened_total")

	c2 := s.connect(t)
	m = s.scrape(t)
	if v := m.must(t, "weir_connections"); v != 2 {
		t.Errorf("weir_connections = %v with two clients", v)
	}
	if v := m.must(t, "weir_connections_opened_total"); v != opened+1 {
		t.Errorf("weir_connections_opened_total %v → %v after one more", opened, v)
	}
	c2.Close(ctx)
	waitUntil(t, "weir_connections back to 1", 10*time.Second, func() bool {
		v, _ := s.scrape(t).get("weir_connections")
		return v == 1
	})

	// One statement over the simple protocol is one statement.
	before := s.scrape(t).must(t, "weir_statements_total")
	if _, err := c.Exec(ctx, "SELECT 1", pgx.QueryExecModeSimpleProtocol); err != nil {
		t.Fatal(err)
	}
	if after := s.scrape(t).must(t, "weir_statements_total"); after != before+1 {
		t.Errorf("weir_statements_total %v → %v after one statement", before, after)
	}

	// Errors are counted by class, wherever the statement fails: binding
	// (42P01 at Parse), running (42P07), sending rows (22012).
	execSQL(t, c, "CREATE TABLE t (x int)", "INSERT INTO t VALUES (0)")
	for _, bad := range []struct{ sql, code string }{
		{"SELECT * FROM no_such_table", "42P01"},
		{"CREATE TABLE t (x int)", "42P07"},
		{"SELECT 1 / x FROM t", "22012"},
	} {
		class := bad.code[:2]
		m := s.scrape(t)
		was, _ := m.get("weir_statement_errors_total", "class", class)
		stmts := m.must(t, "weir_statements_total")
		_, err := c.Exec(ctx, bad.sql)
		if err == nil || !strings.Contains(err.Error(), bad.code) {
			t.Fatalf("%s: %v, want %s", bad.sql, err, bad.code)
		}
		m = s.scrape(t)
		if now, _ := m.get("weir_statement_errors_total", "class", class); now != was+1 {
			t.Errorf("%s (%s): errors of class %s %v → %v", bad.sql, bad.code, class, was, now)
		}
		if now := m.must(t, "weir_statements_total"); now != stmts+1 {
			t.Errorf("%s (%s): statements %v → %v", bad.sql, bad.code, stmts, now)
		}
	}

	// Every INSERT committed and synced (the default policy is a group
	// fsync): the histograms count them.
	m = s.scrape(t)
	commit, fsync := m.histogram(t, "weir_store_commit_duration_seconds"), m.histogram(t, "weir_store_fsync_duration_seconds")
	if commit.GetSampleCount() == 0 || commit.GetSampleSum() <= 0 || fsync.GetSampleCount() == 0 || fsync.GetSampleSum() <= 0 {
		t.Errorf("commit %d (%vs), fsync %d (%vs)", commit.GetSampleCount(), commit.GetSampleSum(), fsync.GetSampleCount(), fsync.GetSampleSum())
	}
	for _, h := range []*dto.Histogram{commit, fsync} {
		var prev uint64
		for _, b := range h.Bucket {
			if b.GetCumulativeCount() < prev || b.GetCumulativeCount() > h.GetSampleCount() {
				t.Errorf("buckets not cumulative: %v", h)
			}
			prev = b.GetCumulativeCount()
		}
	}
	commits := commit.GetSampleCount()
	execSQL(t, c, "INSERT INTO t SELECT g FROM generate_series(1, 1000) g")
	if n := s.scrape(t).histogram(t, "weir_store_commit_duration_seconds").GetSampleCount(); n <= commits {
		t.Errorf("commits %d → %d after an INSERT", commits, n)
	}

	size := s.scrape(t).must(t, "weir_store_size_bytes")
	if disk := diskBytes(t, filepath.Join(s.dir, "data")); size <= 0 || size > float64(disk) {
		t.Errorf("weir_store_size_bytes %v, the data directory takes %d", size, disk)
	}
	if v := s.scrape(t).must(t, "weir_build_info", "version", engine.Version); v != 1 {
		t.Errorf("weir_build_info %v", v)
	}
	if _, ok := s.scrape(t)["go_goroutines"]; !ok {
		t.Error("no Go collector metrics")
	}
}

// diskBytes is the space the files under dir take (du).
func diskBytes(t *testing.T, dir string) int64 {
	var n int64
	err := filepath.Walk(dir, func(_ string, info os.FileInfo, err error) error {
		if err != nil || info.IsDir() {
			return err
		}
		if st, ok := info.Sys().(*syscall.Stat_t); ok {
			n += st.Blocks * 512
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return n
}

// TestMetricsLint: the pipeline's metrics pass promlint (names, units,
// _total on counters, help text), with every kind of figure present.
func TestMetricsLint(t *testing.T) {
	s := startServer(t)
	c := s.connect(t)
	execSQL(t, c,
		"CREATE TABLE events (k bigint, ts timestamptz)",
		`CREATE STREAMING TABLE by_minute AS SELECT window_start, count(*) AS n
		   FROM STREAM events WATERMARK ts DELAY OF INTERVAL '1 second'
		   WINDOW TUMBLING (SIZE INTERVAL '1 minute') GROUP BY window_start`,
		"CREATE SOURCE bids WITH (connector = 'nexmark', table = 'bid', max_events = 50)",
		fmt.Sprintf("CREATE SINK out FROM by_minute WITH (connector = 'files', path = '%s', format = 'json')", filepath.Join(s.dir, "out")),
		"INSERT INTO events VALUES (1, '2024-01-01 00:00:00+00'), (2, '2024-01-01 00:05:00+00')",
	)
	if _, err := c.Exec(context.Background(), "SELECT * FROM nothing_here"); err == nil {
		t.Fatal("no error")
	}
	waitUntil(t, "by_minute has a watermark", 20*time.Second, func() bool {
		_, ok := s.scrape(t).get("weir_streaming_watermark_lag_seconds", "table", "public.by_minute")
		return ok
	})
	problems, err := testutil.CollectAndLint(newPipelineCollector(s.eng.Monitor))
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range problems {
		t.Errorf("promlint: %s: %s", p.Metric, p.Text)
	}
	// The whole registry, as served, gathers without error.
	if _, err := newRegistry(s.eng).Gather(); err != nil {
		t.Errorf("gather: %v", err)
	}
}

// BenchmarkMetricsScrape: one scrape of /metrics of a server with 20
// streaming tables (the registry's whole output, text format).
func BenchmarkMetricsScrape(b *testing.B) {
	dir := b.TempDir()
	eng, err := engine.Open(engine.Config{DataDir: filepath.Join(dir, "data")})
	if err != nil {
		b.Fatal(err)
	}
	defer eng.Close()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		b.Fatal(err)
	}
	srv := wire.NewServer(eng, wire.Config{Logger: slog.New(slog.NewTextHandler(io.Discard, nil))})
	go srv.Serve(l)
	defer srv.Shutdown(context.Background())
	ctx := context.Background()
	c, err := pgx.Connect(ctx, fmt.Sprintf("postgres://weir@%s/weir?sslmode=disable", l.Addr()))
	if err != nil {
		b.Fatal(err)
	}
	defer c.Close(ctx)
	qs := []string{"CREATE TABLE events (k bigint, ts timestamptz)"}
	for i := 0; i < 20; i++ {
		qs = append(qs, fmt.Sprintf(`CREATE STREAMING TABLE m%d AS SELECT window_start, count(*) AS n
		   FROM STREAM events WATERMARK ts DELAY OF INTERVAL '1 second'
		   WINDOW TUMBLING (SIZE INTERVAL '1 minute') GROUP BY window_start`, i))
	}
	qs = append(qs, "INSERT INTO events SELECT g, timestamptz '2024-01-01 00:00:00+00' + g * interval '1 second' FROM generate_series(1, 1000) g")
	for _, q := range qs {
		if _, err := c.Exec(ctx, q); err != nil {
			b.Fatal(err)
		}
	}
	h := Handler(eng)
	req := httptest.NewRequest("GET", "/metrics", nil)
	var size int
	for b.Loop() {
		rec := httptest.NewRecorder()
		h.ServeHTTP(rec, req)
		size = rec.Body.Len()
	}
	b.ReportMetric(float64(size), "bytes/scrape")
}

// TestMetricsFromMonitor: the figures of a Monitor whose every part is
// filled (expectations, batches, a flow, a files backlog, a paused table, a
// failed sink), as they are exported: the parts a running engine of this
// test's size does not show on its own.
func TestMetricsFromMonitor(t *testing.T) {
	now := time.Date(2026, 12, 1, 12, 0, 0, 0, time.UTC)
	wm := now.Add(-90 * time.Second)
	mon := engine.Monitor{
		Time: now,
		Sources: []engine.MonitorSource{{Name: "public.landing", Connector: "files"},
			{Name: "public.shop", Connector: "postgres-cdc", SlotLagBytes: 8192, HasSlotLag: true}},
		Tables: []engine.MonitorTable{
			{Name: "public.silver", Status: "running", Mode: "append", HasFiles: true, BacklogFiles: 3, BacklogBytes: 4096,
				Progress: exec.Progress{Epoch: 7, InputRows: 1000, OutputRows: 990, LateRows: 4, StateRows: 12, StateBytes: 2048,
					BacklogRows: 30, InputRowsPerSecond: 500, ProcessedRowsPerSecond: 800, LastBatchDuration: 250 * time.Millisecond,
					Watermark: wm.UnixMicro(), HasWatermark: true},
				Expectations: []engine.ExpectationCount{{Name: "pos_amount", Action: "drop", Passed: 990, Failed: 10}},
				Batches:      []engine.BatchRow{{Epoch: 6}, {Epoch: 7, ReadDuration: 50 * time.Millisecond, ProcessDuration: 150 * time.Millisecond, CommitDuration: 50 * time.Millisecond}}},
			{Name: "public.all_events", Flow: "from_eu", Status: "paused", Mode: "append",
				KafkaLag: []engine.MonitorPartitionLag{{Topic: "orders", Partition: 0, Lag: 12}, {Topic: "orders", Partition: 3, Lag: 0}}},
			{Name: "public.all_events", Flow: "from_us", Status: "rebuilding", Mode: "append"},
		},
		Sinks: []engine.MonitorSink{{Name: "public.out", Connector: "kafka", From: "public.silver", Status: "failed", LastError: "broker gone", LastEpoch: 5},
			{Name: "public.later", Connector: "files", From: "public.silver", Status: "stopped", LastEpoch: -1}},
		Server: engine.ServerStats{Connections: 2, ConnectionsOpened: 9, Queries: 40, Errors: map[string]int64{"42": 3, "22": 1},
			StoreBytes:    1 << 20,
			CommitLatency: engine.LatencyHistogram{Bounds: []float64{0.001, 0.01}, Cumulative: []uint64{3, 5}, Count: 6, Sum: 0.1}},
	}
	reg := prometheus.NewPedanticRegistry()
	col := newPipelineCollector(func() engine.Monitor { return mon })
	reg.MustRegister(col)
	fams, err := reg.Gather()
	if err != nil {
		t.Fatal(err)
	}
	m := scraped{}
	for _, f := range fams {
		m[f.GetName()] = f
	}
	silver := []string{"table", "public.silver", "flow", ""}
	for _, c := range []struct {
		name   string
		labels []string
		want   float64
	}{
		{"weir_streaming_input_rows_total", silver, 1000},
		{"weir_streaming_backlog_files", silver, 3},
		{"weir_streaming_backlog_bytes", silver, 4096},
		{"weir_streaming_last_batch_duration_seconds", silver, 0.25},
		{"weir_streaming_last_batch_phase_duration_seconds", append(silver, "phase", "process"), 0.15},
		{"weir_streaming_watermark_lag_seconds", silver, 90},
		{"weir_streaming_watermark_timestamp_seconds", silver, float64(wm.Unix())},
		{"weir_expectation_passed_rows_total", append(silver, "expectation", "pos_amount", "action", "drop"), 990},
		{"weir_expectation_failed_rows_total", append(silver, "expectation", "pos_amount", "action", "drop"), 10},
		{"weir_streaming_status", []string{"table", "public.all_events", "flow", "from_eu", "status", "paused"}, 1},
		{"weir_streaming_status", []string{"table", "public.all_events", "flow", "from_eu", "status", "running"}, 0},
		// a status weir may add later is shown, not hidden
		{"weir_streaming_status", []string{"table", "public.all_events", "flow", "from_us", "status", "rebuilding"}, 1},
		{"weir_source_info", []string{"source", "public.landing", "connector", "files"}, 1},
		{"weir_source_replication_slot_lag_bytes", []string{"source", "public.shop"}, 8192},
		{"weir_streaming_kafka_partition_lag", []string{"table", "public.all_events", "flow", "from_eu", "topic", "orders", "partition", "0"}, 12},
		{"weir_streaming_kafka_partition_lag", []string{"table", "public.all_events", "flow", "from_eu", "topic", "orders", "partition", "3"}, 0},
		{"weir_sink_status", []string{"sink", "public.out", "status", "failed"}, 1},
		{"weir_sink_last_committed_epoch", []string{"sink", "public.out"}, 5},
		{"weir_statement_errors_total", []string{"class", "42"}, 3},
		{"weir_statement_errors_total", []string{"class", "22"}, 1},
		{"weir_connections", nil, 2},
		{"weir_store_size_bytes", nil, 1 << 20},
	} {
		if got := m.must(t, c.name, c.labels...); got != c.want {
			t.Errorf("%s%v = %v, want %v", c.name, c.labels, got, c.want)
		}
	}
	if _, ok := m.get("weir_sink_last_committed_epoch", "sink", "public.later"); ok {
		t.Error("a sink whose epoch is unknown has weir_sink_last_committed_epoch")
	}
	if _, ok := m.get("weir_source_replication_slot_lag_bytes", "source", "public.landing"); ok {
		t.Error("a files source has a replication slot lag")
	}
	if _, ok := m.get("weir_streaming_backlog_files", "table", "public.all_events"); ok {
		t.Error("a table not reading files has weir_streaming_backlog_files")
	}
	h := m.histogram(t, "weir_store_commit_duration_seconds")
	if h.GetSampleCount() != 6 || h.GetSampleSum() != 0.1 || len(h.Bucket) != 2 || h.Bucket[1].GetCumulativeCount() != 5 {
		t.Errorf("commit histogram %v", h)
	}
	problems, err := testutil.CollectAndLint(col)
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range problems {
		t.Errorf("promlint: %s: %s", p.Metric, p.Text)
	}
}
