package engine_test

import (
	"bytes"
	"context"
	"errors"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"

	"github.com/weir-sql/weir/internal/pgtest"
)

// srcErr runs sql and returns its error as a *pgconn.PgError (nil if it
// succeeded).
func srcErr(t testing.TB, c *pgx.Conn, sql string) *pgconn.PgError {
	t.Helper()
	_, err := c.PgConn().Exec(context.Background(), sql).ReadAll()
	if err == nil {
		return nil
	}
	var pe *pgconn.PgError
	if !errors.As(err, &pe) {
		t.Fatalf("%s: %v (not a server error)", sql, err)
	}
	return pe
}

func srcExec(t testing.TB, c *pgx.Conn, sql string) {
	t.Helper()
	if pe := srcErr(t, c, sql); pe != nil {
		t.Fatalf("%s: %s %s", sql, pe.Code, pe.Message)
	}
}

// TestSourceStatements: CREATE SOURCE in weir's and RisingWave's
// spellings, what the catalog shows of a source, hostile options (each a
// clear SQLSTATE naming the option), and DROP SOURCE with its dependents.
func TestSourceStatements(t *testing.T) {
	dir := t.TempDir()
	srv := startServer(t, dir)
	w := srv.connect(t)

	srcExec(t, w, `CREATE SOURCE bid (WATERMARK FOR date_time AS date_time - INTERVAL '4 seconds')
		WITH (connector = 'nexmark', table = 'bid', max_events = 5000, seed = 3, events_per_second = 1000, disorder = '1 second', paced = false)`)
	// RisingWave's form: every column, a watermark, dotted option names.
	srcExec(t, w, `CREATE SOURCE nexmark_person (id BIGINT, name VARCHAR, email_address VARCHAR, credit_card VARCHAR, city VARCHAR,
		state VARCHAR, date_time TIMESTAMP, extra VARCHAR, WATERMARK FOR date_time AS date_time - INTERVAL '4' SECOND)
		WITH (connector = 'nexmark', nexmark.table.type = 'Person', nexmark.event.num = '5000', nexmark.split.num = '2',
		nexmark.min.event.gap.in.ns = '1000000', nexmark.use.real.time = 'false', seed = '3')`)
	if pe := srcErr(t, w, `CREATE SOURCE IF NOT EXISTS bid WITH (connector = 'nexmark', table = 'auction')`); pe != nil {
		t.Fatalf("IF NOT EXISTS: %v", pe)
	}

	// A SELECT reads all a bounded source holds: the nexmark() rows.
	for src, fn := range map[string]string{
		"bid":            "nexmark('bid', max_events => 5000, seed => 3, events_per_second => 1000, disorder => '1 second')",
		"nexmark_person": "nexmark('person', max_events => 5000, seed => 3, events_per_second => 1000)",
	} {
		got, want := textRows(t, w, "SELECT * FROM "+src), textRows(t, w, "SELECT * FROM "+fn)
		if len(got) == 0 || strings.Join(got, "\n") != strings.Join(want, "\n") {
			t.Errorf("SELECT * FROM %s: %d rows, differing from %s (%d rows)", src, len(got), fn, len(want))
		}
	}
	if got := textRows(t, w, "SELECT b.price, p.name FROM bid b JOIN nexmark_person p ON p.id = b.bidder ORDER BY 1, 2 LIMIT 1"); len(got) != 1 {
		t.Errorf("a join of two sources: %v", got)
	}

	// The catalog: like a view (psql's \d lists and describes it), with
	// the batch query reading the same rows as its definition.
	for q, want := range map[string]string{
		"SELECT relkind FROM pg_class WHERE relname = 'bid'":                                                      "v",
		"SELECT table_type FROM information_schema.tables WHERE table_name = 'bid'":                               "VIEW",
		"SELECT count(*) FROM information_schema.columns WHERE table_name = 'nexmark_person'":                     "8",
		"SELECT data_type FROM information_schema.columns WHERE table_name = 'bid' AND column_name = 'date_time'": "timestamp without time zone",
		"SELECT pg_get_viewdef('bid'::regclass) LIKE '%nexmark(''bid'', max_events => 5000, seed => 3%'":          "t",
	} {
		if got := textRows(t, w, q); len(got) != 1 || got[0] != want {
			t.Errorf("%s: %v, want %s", q, got, want)
		}
	}
	show := textRows(t, w, "SHOW SOURCES")
	wantShow := []string{"bid\tnexmark\t\\N\t\\N\tbid\t5000\t1000\t3\tf\tdate_time - 00:00:04\t\\N",
		"nexmark_person\tnexmark\t\\N\t\\N\tperson\t5000\t1000\t3\tf\tdate_time - 00:00:04\t\\N"}
	if strings.Join(show, "\n") != strings.Join(wantShow, "\n") {
		t.Errorf("SHOW SOURCES:\n%s\nwant\n%s", strings.Join(show, "\n"), strings.Join(wantShow, "\n"))
	}

	// Hostile statements, each with its SQLSTATE and what it names.
	for _, tc := range []struct{ sql, code, mention string }{
		{"CREATE SOURCE s WITH (connector = 'nexmark', table = 'bid', events_per_second = -5)", "22023", "events_per_second"},
		{"CREATE SOURCE s WITH (connector = 'nexmark', table = 'bid', events_per_second = 9223372036854775807)", "22023", "events_per_second"},
		{"CREATE SOURCE s WITH (connector = 'nexmark', table = 'bid', events_per_second = 99999999999999999999)", "22023", "events_per_second"},
		{"CREATE SOURCE s WITH (connector = 'nexmark', table = 'bids')", "22023", "table"},
		{"CREATE SOURCE s WITH (connector = 'nexmark', nexmark.table.type = 'Bids')", "22023", "nexmark.table.type"},
		{"CREATE SOURCE s WITH (connector = 'nexmark')", "22023", "table"},
		{"CREATE SOURCE s WITH (connector = 'nexmark', table = 'bid', batch_size = 100000000)", "22023", "batch_size"},
		{"CREATE SOURCE s WITH (connector = 'nexmark', table = 'bid', nexmark.max.chunk.size = 100000000)", "22023", "nexmark.max.chunk.size"},
		{"CREATE SOURCE s WITH (connector = 'nexmark', table = 'bid', max_events = 'lots')", "22023", "max_events"},
		{"CREATE SOURCE s WITH (connector = 'nexmark', table = 'bid', max_events = 9000000000000000000, events_per_second = 1)", "22023", "max_events"},
		{"CREATE SOURCE s WITH (connector = 'nexmark', table = 'bid', seed = 1.5)", "22023", "seed"},
		{"CREATE SOURCE s WITH (connector = 'nexmark', table = 'bid', paced = 'sometimes')", "22023", "paced"},
		{"CREATE SOURCE s WITH (connector = 'nexmark', table = 'bid', late_fraction = 2)", "22023", "late_fraction"},
		{"CREATE SOURCE s WITH (connector = 'nexmark', table = 'bid', disorder = 'a while')", "22023", "disorder"},
		{"CREATE SOURCE s WITH (connector = 'nexmark', table = 'bid', nexmark.min.event.gap.in.ns = 0)", "22023", "nexmark.min.event.gap.in.ns"},
		{"CREATE SOURCE s WITH (connector = 'nexmark', table = 'bid', topic = 'x')", "22023", "topic"},
		{"CREATE SOURCE s WITH (connector = 'nexmark', table = 'bid', nexmark.table.type = 'bid')", "22023", "given twice"},
		{"CREATE SOURCE s WITH (table = 'bid')", "22023", "connector"},
		{"CREATE SOURCE s WITH (connector = 'nexmarc', table = 'bid')", "22023", "connector"},
		{"CREATE SOURCE s WITH (connector = 'kafka', topic = 'x')", "22023", "bootstrapServers"}, // kafka_test.go tests the connector
		{"CREATE SOURCE s WITH (connector = 'postgres-cdc', host = 'x')", "22023", "table.name"},
		{"CREATE SOURCE s WITH (connector = 'nexmark', table = 'bid', table = 'person')", "42601", "more than once"},
		{"CREATE SOURCE s (WATERMARK FOR price AS price) WITH (connector = 'nexmark', table = 'bid')", "42804", "price"},
		{"CREATE SOURCE s (WATERMARK FOR ts AS ts) WITH (connector = 'nexmark', table = 'bid')", "42703", "ts"},
		{"CREATE SOURCE s (a int) WITH (connector = 'nexmark', table = 'bid')", "42703", "\"a\""},
		{"CREATE SOURCE s (auction text) WITH (connector = 'nexmark', table = 'bid')", "42804", "auction"},
		{"CREATE SOURCE s (auction bigint) WITH (connector = 'nexmark', table = 'bid')", "42611", "1 of the 7"},
		{"CREATE SOURCE bid WITH (connector = 'nexmark', table = 'bid')", "42P07", "bid"},
		{"INSERT INTO bid VALUES (1, 2, 3, 'c', 'u', now(), 'e')", "42809", "source"},
		{"COPY bid FROM STDIN", "42809", "bid"},
		{"DROP TABLE bid", "42809", "not a table"},
		{"DROP VIEW bid", "42809", "not a view"},
		{"DROP SOURCE nosuch", "42P01", "nosuch"},
	} {
		pe := srcErr(t, w, tc.sql)
		if pe == nil || pe.Code != tc.code || !strings.Contains(pe.Message, tc.mention) {
			t.Errorf("%s: %v, want %s mentioning %s", tc.sql, pe, tc.code, tc.mention)
		}
	}
	if pe := srcErr(t, w, "CREATE SOURCE s WITH (connector = 'nexmark', table = 'bid', topic = 'x')"); pe == nil || !strings.Contains(pe.Hint, "events_per_second") || !strings.Contains(pe.Hint, "nexmark.event.num") {
		t.Errorf("the unknown option's hint lists not the options: %v", pe)
	}
	if pe := srcErr(t, w, "DROP TABLE bid"); pe == nil || !strings.Contains(pe.Hint, "DROP SOURCE") {
		t.Errorf("DROP TABLE of a source: hint %v", pe)
	}
	// An unbounded source has no end for a batch read.
	srcExec(t, w, "CREATE SOURCE endless WITH (connector = 'nexmark', table = 'bid')")
	if pe := srcErr(t, w, "SELECT count(*) FROM endless"); pe == nil || pe.Code != "0A000" || !strings.Contains(pe.Hint, "STREAM endless") {
		t.Errorf("SELECT from an unbounded source: %v", pe)
	}
	// A bounded source too big for the query memory is refused up front.
	srcExec(t, w, "CREATE SOURCE huge WITH (connector = 'nexmark', table = 'bid', max_events = 1000000000000, events_per_second = 1000000)")
	if pe := srcErr(t, w, "SELECT count(*) FROM huge"); pe == nil || pe.Code != "53200" || !strings.Contains(pe.Hint, "LIMIT") {
		t.Errorf("SELECT from a trillion-event source: %v", pe)
	}
	if got := textRows(t, w, "SELECT count(*) FROM (SELECT * FROM nexmark('bid', max_events => 1000000000000, seed => 1, events_per_second => 1000000) LIMIT 1000) s"); got[0] != "1000" {
		t.Errorf("the hint's query: %v", got)
	}
	srcExec(t, w, "DROP SOURCE huge")
	srcExec(t, w, "BEGIN")
	if pe := srcErr(t, w, "CREATE SOURCE s WITH (connector = 'nexmark', table = 'bid')"); pe == nil || pe.Code != "25001" {
		t.Errorf("CREATE SOURCE in a transaction block: %v", pe)
	}
	srcExec(t, w, "ROLLBACK")

	// Dependencies: a streaming table reading a source keeps it, unless
	// CASCADE, which drops the reader (and its readers) too.
	srcExec(t, w, "CREATE STREAMING TABLE bid_counts AS SELECT channel, count(*) AS n FROM STREAM bid GROUP BY channel")
	srcExec(t, w, "CREATE STREAMING TABLE big_bids AS SELECT auction, price, date_time FROM STREAM bid WHERE price > 1000000")
	srcExec(t, w, "CREATE STREAMING TABLE big_bid_days AS SELECT auction, count(*) AS n FROM STREAM big_bids GROUP BY auction")
	for _, sql := range []string{"DROP SOURCE bid", "DROP SOURCE bid RESTRICT", "DROP SOURCE nexmark_person, bid"} {
		pe := srcErr(t, w, sql)
		if pe == nil || pe.Code != "2BP01" || !strings.Contains(pe.Message, "cannot drop source bid because other objects depend on it") ||
			!strings.Contains(pe.Detail, "streaming table bid_counts depends on source bid") {
			t.Errorf("%s: %v, want 2BP01", sql, pe)
		}
	}
	show = textRows(t, w, "SHOW SOURCES")
	if len(show) != 3 || !strings.HasSuffix(show[0], "\tbid_counts, big_bid_days, big_bids") {
		t.Errorf("SHOW SOURCES with readers: %q", show)
	}

	// The catalog survives a restart.
	srv.stop()
	srv = startServer(t, dir)
	w = srv.connect(t)
	if again := textRows(t, w, "SHOW SOURCES"); strings.Join(again, "\n") != strings.Join(show, "\n") {
		t.Errorf("after a restart SHOW SOURCES is\n%s\nwas\n%s", strings.Join(again, "\n"), strings.Join(show, "\n"))
	}
	waitFor(t, w, "SELECT sum(n) = 4600 FROM bid_counts")

	var notices []string
	w.PgConn().Exec(context.Background(), "SELECT 1").ReadAll()
	cfg := w.Config().Copy()
	cfg.OnNotice = func(_ *pgconn.PgConn, n *pgconn.Notice) { notices = append(notices, n.Message) }
	c2, err := pgx.ConnectConfig(context.Background(), cfg)
	if err != nil {
		t.Fatal(err)
	}
	defer c2.Close(context.Background())
	srcExec(t, c2, "DROP SOURCE bid CASCADE")
	sort.Strings(notices)
	if strings.Join(notices, "|") != "drop cascades to streaming table bid_counts|drop cascades to streaming table big_bid_days|drop cascades to streaming table big_bids" {
		t.Errorf("CASCADE notices: %q", notices)
	}
	if got := textRows(t, c2, "SELECT count(*) FROM pg_class WHERE relname IN ('bid', 'bid_counts', 'big_bids', 'big_bid_days')"); got[0] != "0" {
		t.Errorf("after DROP SOURCE CASCADE %s relations are left", got[0])
	}
	notices = nil
	srcExec(t, c2, "DROP SOURCE IF EXISTS bid, endless")
	if len(notices) != 1 || notices[0] != `source "bid" does not exist, skipping` {
		t.Errorf("DROP SOURCE IF EXISTS: notices %q", notices)
	}
	if pe := srcErr(t, c2, "DROP SOURCE endless"); pe == nil || pe.Code != "42P01" {
		t.Errorf("a dropped source: %v", pe)
	}
	srcExec(t, c2, "CREATE TABLE plain (a int)")
	if pe := srcErr(t, c2, "DROP SOURCE plain"); pe == nil || pe.Code != "42809" || !strings.Contains(pe.Hint, "DROP TABLE") {
		t.Errorf("DROP SOURCE of a table: %v", pe)
	}
}

// copyNexmarkToPG creates table name in PostgreSQL with table's columns and
// COPYs the rows of the weir query sql into it.
func copyNexmarkToPG(t testing.TB, w, pg *pgx.Conn, name, table, sql string) {
	t.Helper()
	cols := map[string]string{
		"person":  "id bigint, name text, email_address text, credit_card text, city text, state text, date_time timestamp, extra text",
		"auction": "id bigint, item_name text, description text, initial_bid bigint, reserve bigint, date_time timestamp, expires timestamp, seller bigint, category bigint, extra text",
		"bid":     "auction bigint, bidder bigint, price bigint, channel text, url text, date_time timestamp, extra text",
	}[table]
	ctx := context.Background()
	if _, err := pg.Exec(ctx, "DROP TABLE IF EXISTS "+name); err != nil {
		t.Fatal(err)
	}
	if _, err := pg.Exec(ctx, "CREATE TABLE "+name+" ("+cols+")"); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { pg.Exec(context.Background(), "DROP TABLE IF EXISTS "+name) })
	rows := textRows(t, w, sql)
	if _, err := pg.PgConn().CopyFrom(ctx, bytes.NewBufferString(strings.Join(rows, "\n")+"\n"), "COPY "+name+" FROM STDIN"); err != nil {
		t.Fatalf("COPY %s into PostgreSQL: %v", name, err)
	}
}

// sameRows compares a weir query's rows with PostgreSQL's, as sorted
// sets of text rows.
func sameRows(t *testing.T, what string, w, pg *pgx.Conn, wq, pq string) {
	t.Helper()
	got, want := textRows(t, w, wq), textRows(t, pg, pq)
	sort.Strings(got)
	sort.Strings(want)
	if len(want) == 0 {
		t.Errorf("%s: PostgreSQL gives no rows", what)
	}
	if d, n := diffSorted(want, got, 8); n > 0 {
		t.Errorf("%s: %d rows differ from PostgreSQL's (weir %d, PostgreSQL %d):%s", what, n, len(got), len(want), d)
	}
}

// streamingOverSource are streaming tables over a source called src and
// the batch queries PostgreSQL runs for them over the same rows (nx).
var streamingOverSource = []struct{ name, create, check, oracle string }{
	{"sq_pass", "CREATE STREAMING TABLE sq_pass AS SELECT auction, bidder, price, date_time FROM STREAM src WHERE auction % 7 = 0",
		"SELECT * FROM sq_pass", "SELECT auction, bidder, price, date_time FROM nx WHERE auction % 7 = 0"},
	{"sq_channel", "CREATE STREAMING TABLE sq_channel AS SELECT channel, count(*) AS n, sum(price) AS total, max(price) AS hi, min(date_time) AS first FROM STREAM src GROUP BY channel",
		"SELECT * FROM sq_channel", "SELECT channel, count(*), sum(price), max(price), min(date_time) FROM nx GROUP BY channel"},
	{"sq_window", "CREATE STREAMING TABLE sq_window AS SELECT channel, window_start, window_end, count(*) AS n, sum(price) AS total FROM TUMBLE(src, date_time, INTERVAL '10 seconds') GROUP BY channel, window_start, window_end",
		"SELECT * FROM sq_window", "SELECT channel, date_bin('10 seconds', date_time, timestamp '2015-07-15') AS ws, date_bin('10 seconds', date_time, timestamp '2015-07-15') + interval '10 seconds', count(*), sum(price) FROM nx GROUP BY 1, 2, 3"},
}

// TestStreamingTablesOverNexmarkSource: streaming tables reading a nexmark
// source give PostgreSQL's batch answers over the same generated rows
// (the nexmark() table function's, COPYed into PostgreSQL); the windowed
// one closes every window at the end of the bounded input.
func TestStreamingTablesOverNexmarkSource(t *testing.T) {
	srv := startServer(t, t.TempDir())
	w := srv.connect(t)
	pg := pgtest.Shared(t).Connect(t)
	const fn = "nexmark('bid', max_events => 40000, seed => 7, events_per_second => 1000, disorder => '2 seconds', batch_size => 1000)"
	srcExec(t, w, `CREATE SOURCE src (WATERMARK FOR date_time AS date_time - INTERVAL '3 seconds')
		WITH (connector = 'nexmark', table = 'bid', max_events = 40000, seed = 7, events_per_second = 1000, disorder = '2 seconds', batch_size = 1000, paced = false)`)
	copyNexmarkToPG(t, w, pg, "nx", "bid", "SELECT * FROM "+fn)
	// People as a second source, the static side of a stream-static join.
	srcExec(t, w, "CREATE SOURCE people WITH (connector = 'nexmark', table = 'person', max_events = 40000, seed = 7, events_per_second = 1000, paced = false)")
	copyNexmarkToPG(t, w, pg, "nx_person", "person", "SELECT * FROM nexmark('person', max_events => 40000, seed => 7, events_per_second => 1000)")
	queries := append(streamingOverSource, struct{ name, create, check, oracle string }{"sq_join",
		"CREATE STREAMING TABLE sq_join AS SELECT b.auction, b.price, p.name, p.state FROM STREAM src b JOIN people p ON p.id = b.bidder WHERE b.price > 500000",
		"SELECT * FROM sq_join", "SELECT b.auction, b.price, p.name, p.state FROM nx b JOIN nx_person p ON p.id = b.bidder WHERE b.price > 500000"})
	var names []string
	for _, q := range queries {
		srcExec(t, w, q.create)
		names = append(names, q.name)
	}
	waitConsumed(t, w, names, 36800, 30*time.Second)
	for _, q := range queries {
		sameRows(t, q.name, w, pg, q.check, q.oracle)
	}
	if p := readProgress(t, w); p["sq_window"].late != 0 {
		t.Errorf("late rows %d: the disorder (2 s) is within the watermark's delay (3 s)", p["sq_window"].late)
	}
}

// TestNexmarkSourceRestart: a streaming table over a paced source, the
// server stopped midway and restarted on the same data directory, ends
// with exactly the rows of one uninterrupted run (counts equal: nothing
// read twice, nothing lost).
func TestNexmarkSourceRestart(t *testing.T) {
	dir := t.TempDir()
	srv := startServer(t, dir)
	w := srv.connect(t)
	pg := pgtest.Shared(t).Connect(t)
	// 30000 events offered at 10000 a second: about 3 seconds of feed.
	srcExec(t, w, `CREATE SOURCE src (WATERMARK FOR date_time AS date_time - INTERVAL '1 second')
		WITH (connector = 'nexmark', table = 'bid', max_events = 30000, seed = 21, events_per_second = 10000, batch_size = 200)`)
	copyNexmarkToPG(t, w, pg, "nx", "bid", "SELECT * FROM nexmark('bid', max_events => 30000, seed => 21, events_per_second => 10000)")
	var names []string
	for _, q := range streamingOverSource[:2] {
		srcExec(t, w, q.create)
		names = append(names, q.name)
	}
	// Midway: some of the feed read, not all of it.
	waitFor(t, w, "SELECT bool_and(input_rows > 0) FROM weir_catalog.streaming_progress")
	p := readProgress(t, w)
	if p["sq_pass"].input >= 27600 {
		t.Fatalf("the paced feed was read at once (%d rows): pacing does not work", p["sq_pass"].input)
	}
	srv.stop()
	srv = startServer(t, dir)
	w = srv.connect(t)
	waitConsumed(t, w, names, 27600, 30*time.Second)
	for _, q := range streamingOverSource[:2] {
		sameRows(t, q.name+" after a restart", w, pg, q.check, q.oracle)
	}
	if got := textRows(t, w, "SELECT count(*) FROM sq_pass"); got[0] != textRows(t, pg, "SELECT count(*) FROM nx WHERE auction % 7 = 0")[0] {
		t.Errorf("sq_pass holds %s rows after the restart", got[0])
	}
}

// TestSourceRefreshAndExplain: REFRESH of an available_now streaming
// table over a source waits until it has read what the source offers;
// EXPLAIN names the source as the input.
func TestSourceRefreshAndExplain(t *testing.T) {
	srv := startServer(t, t.TempDir())
	w := srv.connect(t)
	srcExec(t, w, "CREATE SOURCE people WITH (connector = 'nexmark', table = 'person', max_events = 20000, paced = false)")
	srcExec(t, w, "CREATE STREAMING TABLE by_state WITH (trigger = 'available_now') AS SELECT state, count(*) AS n FROM STREAM people GROUP BY state")
	srcExec(t, w, "REFRESH STREAMING TABLE by_state")
	if got := textRows(t, w, "SELECT sum(n) FROM by_state"); got[0] != "400" {
		t.Errorf("after REFRESH: %v people", got)
	}
	srcExec(t, w, "REFRESH STREAMING TABLE by_state FULL")
	if got := textRows(t, w, "SELECT sum(n) FROM by_state"); got[0] != "400" {
		t.Errorf("after REFRESH FULL: %v people", got)
	}
	plan := strings.Join(textRows(t, w, "EXPLAIN STREAMING TABLE by_state"), "\n")
	if !strings.Contains(plan, "Input: source people") {
		t.Errorf("EXPLAIN does not name the source:\n%s", plan)
	}
}

// BenchmarkNexmarkSourceStream: a streaming aggregate over an unpaced
// nexmark source (1M events: 920000 bids), from CREATE STREAMING TABLE to
// every bid read, next to the same query in batch SQL in the same run:
// weir over nexmark() (the same rows) and PostgreSQL over them COPYed in
// beforehand (COPY not timed).
func BenchmarkNexmarkSourceStream(b *testing.B) {
	srv := startServer(b, b.TempDir())
	w := srv.connect(b)
	pg := pgtest.Shared(b).Connect(b)
	const events, bids = 1_000_000, 920_000
	const fn = "nexmark('bid', max_events => 1000000, seed => 5)"
	copyNexmarkToPG(b, w, pg, "nx_bench", "bid", "SELECT * FROM "+fn)
	const agg = "SELECT channel, count(*) AS n, sum(price) AS total, max(price) AS hi FROM %s GROUP BY channel"
	var st, wt, pt float64
	for i := 0; i < b.N; i++ {
		name := "bench_" + string(rune('a'+i%26)) + strings.Repeat("x", i/26)
		srcExec(b, w, "CREATE SOURCE src_"+name+" WITH (connector = 'nexmark', table = 'bid', max_events = 1000000, seed = 5, paced = false)")
		start := time.Now()
		srcExec(b, w, "CREATE STREAMING TABLE "+name+" AS "+strings.Replace(agg, "%s", "STREAM src_"+name, 1))
		waitConsumedTB(b, w, name, bids, 120*time.Second)
		st += time.Since(start).Seconds()
		start = time.Now()
		textRows(b, w, strings.Replace(agg, "%s", fn, 1))
		wt += time.Since(start).Seconds()
		start = time.Now()
		textRows(b, pg, strings.Replace(agg, "%s", "nx_bench", 1))
		pt += time.Since(start).Seconds()
		srcExec(b, w, "DROP SOURCE src_"+name+" CASCADE")
	}
	b.ReportMetric(float64(b.N)*events/st, "stream-events/s")
	b.ReportMetric(float64(b.N)*events/wt, "weir-batch-events/s")
	b.ReportMetric(float64(b.N)*events/pt, "pg-batch-events/s")
}

// waitConsumedTB waits until streaming table name has read want input
// rows (a condition polled with a deadline).
func waitConsumedTB(tb testing.TB, c *pgx.Conn, name string, want int64, deadline time.Duration) {
	tb.Helper()
	end := time.Now().Add(deadline)
	for {
		var n int64
		var status string
		err := c.QueryRow(context.Background(), "SELECT input_rows, status FROM weir_catalog.streaming_progress WHERE name = $1", name).Scan(&n, &status)
		if err == nil && (n >= want || status == "failed") {
			if status == "failed" {
				tb.Fatalf("%s failed", name)
			}
			return
		}
		if time.Now().After(end) {
			tb.Fatalf("%s: %d of %d rows read after %v (%v)", name, n, want, deadline, err)
		}
		time.Sleep(time.Millisecond) // polling interval, with a deadline
	}
}

// TestInlineNexmarkSource: FROM STREAM nexmark(...) in a streaming table
// reads the generator as a source (dialect.md's inline form), with the
// batch function's rows, across a restart too.
func TestInlineNexmarkSource(t *testing.T) {
	dir := t.TempDir()
	srv := startServer(t, dir)
	w := srv.connect(t)
	const fn = "nexmark('bid', max_events => 20000, seed => 3)"
	srcExec(t, w, "CREATE STREAMING TABLE inl_channel AS SELECT channel, count(*) AS n, sum(price) AS total FROM STREAM "+fn+" GROUP BY channel")
	srcExec(t, w, "CREATE STREAMING TABLE inl_window AS SELECT window_start, count(*) AS n FROM STREAM "+fn+
		" b WATERMARK date_time DELAY OF INTERVAL 2 SECONDS WINDOW TUMBLING (SIZE INTERVAL 1 SECOND) GROUP BY window_start")
	srcExec(t, w, "CREATE STREAMING TABLE inl_pass AS SELECT nexmark.auction, nexmark.price FROM "+fn+" WHERE nexmark.price < 1000")
	check := func(when string) {
		t.Helper()
		waitConsumed(t, w, []string{"inl_channel", "inl_window", "inl_pass"}, 18400, 30*time.Second)
		for q, want := range map[string]string{
			"SELECT channel, n, total FROM inl_channel": "SELECT channel, count(*), sum(price) FROM " + fn + " GROUP BY channel",
			"SELECT window_start, n FROM inl_window":    "SELECT date_bin('1 second', date_time, timestamp '2015-07-15'), count(*) FROM " + fn + " GROUP BY 1",
			"SELECT auction, price FROM inl_pass":       "SELECT auction, price FROM " + fn + " WHERE price < 1000",
		} {
			got, exp := textRows(t, w, q), textRows(t, w, want)
			sort.Strings(got)
			sort.Strings(exp)
			if d, n := diffSorted(exp, got, 5); n > 0 || len(exp) == 0 {
				t.Errorf("%s %s: %d rows differ from the batch query's (%d rows):%s", when, q, n, len(exp), d)
			}
		}
	}
	check("before the restart")
	srv.stop()
	srv = startServer(t, dir)
	w = srv.connect(t)
	check("after the restart")
	for _, tc := range []struct{ sql, code string }{
		{"CREATE STREAMING TABLE x AS SELECT * FROM STREAM nexmark('bid', max_events => 10 + 1)", "0A000"},
		{"CREATE STREAMING TABLE x AS SELECT * FROM STREAM nexmark('bid', max_evnts => 10)", "22023"},
		{"CREATE STREAMING TABLE x AS SELECT * FROM STREAM nexmark('bids', max_events => 10)", "22023"},
	} {
		if pe := srcErr(t, w, tc.sql); pe == nil || pe.Code != tc.code {
			t.Errorf("%s: %v, want %s", tc.sql, pe, tc.code)
		}
	}
}

// TestNexmarkSourceSurvivesKill9: the server process killed with SIGKILL
// while streaming tables read a paced source; restarted on the same data
// directory, they end with exactly PostgreSQL's answers over the same rows
// (nothing read twice, nothing lost).
func TestNexmarkSourceSurvivesKill9(t *testing.T) {
	if testing.Short() {
		t.Skip("starts a child server process")
	}
	dir := t.TempDir()
	child := startChild(t, dir)
	ctx := context.Background()
	w, err := pgx.Connect(ctx, "postgres://weir@"+child.addr+"/weir?sslmode=disable")
	if err != nil {
		child.kill()
		t.Fatal(err)
	}
	pg := pgtest.Shared(t).Connect(t)
	srcExec(t, w, `CREATE SOURCE src WITH (connector = 'nexmark', table = 'bid', max_events = 30000, seed = 33, events_per_second = 10000, batch_size = 100)`)
	copyNexmarkToPG(t, w, pg, "nx", "bid", "SELECT * FROM nexmark('bid', max_events => 30000, seed => 33, events_per_second => 10000)")
	var names []string
	for _, q := range streamingOverSource[:2] {
		srcExec(t, w, q.create)
		names = append(names, q.name)
	}
	waitFor(t, w, "SELECT bool_and(input_rows > 0) FROM weir_catalog.streaming_progress")
	child.kill()
	w.Close(ctx)
	srv := startServer(t, dir)
	w = srv.connect(t)
	waitConsumed(t, w, names, 27600, 30*time.Second)
	for _, q := range streamingOverSource[:2] {
		sameRows(t, q.name+" after kill -9", w, pg, q.check, q.oracle)
	}
}

// TestPacedSourceLatency: a streaming table over a paced source reads each
// batch soon after the clock makes it readable (every tenth of a second
// here), not once a second when the runner's safety-net poll comes round.
func TestPacedSourceLatency(t *testing.T) {
	srv := startServer(t, t.TempDir())
	w := srv.connect(t)
	// 10000 events a second: 9200 bids, batches of 920 (0.1 s each).
	srcExec(t, w, "CREATE SOURCE feed WITH (connector = 'nexmark', table = 'bid', events_per_second = 10000)")
	srcExec(t, w, "CREATE STREAMING TABLE feed_n AS SELECT count(*) AS n FROM STREAM feed")
	var last int64 = -1
	changes := 0
	end := time.Now().Add(1500 * time.Millisecond)
	for time.Now().Before(end) {
		var n int64
		if err := w.QueryRow(context.Background(), "SELECT input_rows FROM weir_catalog.streaming_progress WHERE name = 'feed_n'").Scan(&n); err != nil {
			t.Fatal(err)
		}
		if n != last {
			changes++
			last = n
		}
		time.Sleep(5 * time.Millisecond) // sampling interval of a measurement
	}
	if changes < 4 {
		t.Errorf("input_rows changed %d times in 1.5 s over a feed of a batch every 0.1 s (ends at %d rows)", changes, last)
	}
}
