package engine_test

// TestStreamingTreeDifferential checks the streaming queries that run as a
// tree of operators — window Top-N, Top-N outside windows, an aggregation
// over an aggregation (Flink's cascading windows), a rolling window
// function, a join of an aggregation with the stream — against
// PostgreSQL's batch SQL over the same rows. The input arrives in random
// micro-batches, out of order by less than the watermark delay (so no row
// is late); a last far-future row closes every window.

import (
	"context"
	"fmt"
	"math/rand"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/weir-sql/weir/internal/pgtest"
)

func TestStreamingTreeDifferential(t *testing.T) {
	seed := time.Now().UnixNano() % 1_000_000_000
	t.Logf("seed %d", seed)
	r := rand.New(rand.NewSource(seed))
	base := time.Date(2024, 1, 1, 0, 0, 0, 0, time.UTC).UnixMicro()
	const n = 2500
	type row struct{ id, k, v, ts int64 }
	rows := make([]row, n)
	for i := range rows {
		// Unique times (ties in ORDER BY would make PostgreSQL's order
		// arbitrary), about 1.5 s apart, jittered by up to 50 s against
		// the 2-minute delay.
		rows[i] = row{id: int64(i + 1), k: 1 + r.Int63n(6), v: r.Int63n(1000), ts: base + int64(i)*1_500_000 + r.Int63n(50_000_000) + int64(i)}
	}
	// A late-arriving order within the delay: shuffle neighbours.
	for i := 1; i < n; i++ {
		if r.Intn(3) == 0 {
			rows[i], rows[i-1] = rows[i-1], rows[i]
		}
	}
	far := row{id: -1, k: 99, v: 0, ts: base + 1000*86400*1_000_000}
	vals := func(rs []row) []string {
		out := make([]string, len(rs))
		for i, e := range rs {
			out[i] = fmt.Sprintf("(%d, %d, %d, '%s')", e.id, e.k, e.v, sdTS(e.ts))
		}
		return out
	}

	pg := pgtest.Shared(t)
	pgConn, err := pgx.Connect(context.Background(), pg.FreshDatabase(t))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { pgConn.Close(context.Background()) })
	srv := startServer(t, t.TempDir())
	w := srv.connect(t)
	sdExec(t, w, "weir", "SET TimeZone = 'UTC'")
	sdExec(t, pgConn, "PostgreSQL", "SET TimeZone = 'UTC'")
	sdExec(t, w, "weir", "CREATE TABLE ev (id bigint, k bigint, v bigint, ts timestamptz, WATERMARK FOR ts AS ts - INTERVAL '2 minutes')")
	sdExec(t, pgConn, "PostgreSQL", "CREATE TABLE ev (id bigint, k bigint, v bigint, ts timestamptz)")

	win := "to_timestamp(floor(extract(epoch from ts) / 300) * 300)"
	pgWin := "(SELECT *, " + win + " AS window_start, " + win + " + interval '5 minutes' AS window_end FROM ev WHERE id > 0) ev"
	tables := []struct{ name, create, oracle string }{
		{
			// Flink's window Top-N: the 3 largest values of each window.
			"tr_window_top",
			"CREATE STREAMING TABLE tr_window_top AS SELECT window_start, window_end, id, v, rn FROM (SELECT window_start, window_end, id, v, row_number() OVER (PARTITION BY window_start, window_end ORDER BY v DESC, id) AS rn FROM TUMBLE(ev, ts, INTERVAL '5 minutes')) x WHERE rn <= 3",
			"SELECT window_start, window_end, id, v, rn FROM (SELECT window_start, window_end, id, v, row_number() OVER (PARTITION BY window_start, window_end ORDER BY v DESC, id) AS rn FROM " + pgWin + ") x WHERE rn <= 3",
		},
		{
			// RisingWave's Top-N outside windows (update mode): the 2 largest per key so far.
			"tr_top",
			"CREATE STREAMING TABLE tr_top AS SELECT k, id, v FROM (SELECT k, id, v, row_number() OVER (PARTITION BY k ORDER BY v DESC, id) AS rn FROM ev) x WHERE rn <= 2",
			"SELECT k, id, v FROM (SELECT k, id, v, row_number() OVER (PARTITION BY k ORDER BY v DESC, id) AS rn FROM ev) x WHERE rn <= 2",
		},
		{
			// Cascading windows: the busiest key's count per window (Nexmark q5's inner part).
			"tr_nested",
			"CREATE STREAMING TABLE tr_nested AS SELECT window_start, window_end, max(n) AS top, count(*) AS keys FROM (SELECT k, window_start, window_end, count(*) AS n FROM TUMBLE(ev, ts, INTERVAL '5 minutes') GROUP BY k, window_start, window_end) c GROUP BY window_start, window_end",
			"SELECT window_start, window_end, max(n) AS top, count(*) AS keys FROM (SELECT k, window_start, window_end, count(*) AS n FROM " + pgWin + " GROUP BY k, window_start, window_end) c GROUP BY window_start, window_end",
		},
		{
			// Rolling aggregate over the last 3 rows of each key (Nexmark q6's shape).
			"tr_rolling",
			"CREATE STREAMING TABLE tr_rolling AS SELECT id, k, sum(v) OVER (PARTITION BY k ORDER BY ts ROWS BETWEEN 2 PRECEDING AND CURRENT ROW) AS s3, lag(v) OVER (PARTITION BY k ORDER BY ts ROWS BETWEEN 2 PRECEDING AND CURRENT ROW) AS prev FROM ev",
			"SELECT id, k, sum(v) OVER (PARTITION BY k ORDER BY ts ROWS BETWEEN 2 PRECEDING AND CURRENT ROW) AS s3, lag(v) OVER (PARTITION BY k ORDER BY ts ROWS BETWEEN 2 PRECEDING AND CURRENT ROW) AS prev FROM ev WHERE id > 0",
		},
		{
			// The rows that hold their window's maximum (Nexmark q7's shape): the
			// stream joined with its own windowed aggregate.
			"tr_max_rows",
			"CREATE STREAMING TABLE tr_max_rows AS SELECT b.id, b.v, m.window_end FROM ev b JOIN (SELECT max(v) AS maxv, window_end FROM TUMBLE(ev, ts, INTERVAL '5 minutes') GROUP BY window_start, window_end) m ON b.v = m.maxv AND b.ts >= m.window_end - INTERVAL '5 minutes' AND b.ts < m.window_end",
			"SELECT b.id, b.v, m.window_end FROM ev b JOIN (SELECT max(v) AS maxv, window_end FROM " + pgWin + " GROUP BY window_start, window_end) m ON b.v = m.maxv AND b.ts >= m.window_end - INTERVAL '5 minutes' AND b.ts < m.window_end",
		},
	}
	var names []string
	for _, tb := range tables {
		sdExec(t, w, "weir", tb.create)
		if tb.name != "tr_max_rows" {
			names = append(names, tb.name)
		}
	}
	// tr_max_rows reads ev twice: as a stream and through its aggregate.
	wait := func(rows int64) {
		waitConsumed(t, w, names, rows, 20*time.Second)
		waitConsumed(t, w, []string{"tr_max_rows"}, 2*rows, 20*time.Second)
	}
	off := 0
	for off < n {
		size := min(n-off, 1+r.Intn(80))
		sdExec(t, w, "weir", "INSERT INTO ev VALUES "+strings.Join(vals(rows[off:off+size]), ", "))
		off += size
		wait(int64(off))
	}
	sdExec(t, w, "weir", "INSERT INTO ev VALUES "+vals([]row{far})[0])
	wait(int64(n + 1))
	sdInsert(t, pgConn, "PostgreSQL", "ev", vals(rows))
	sdInsert(t, pgConn, "PostgreSQL", "ev", vals([]row{far}))
	prog := readProgress(t, w)
	for _, tb := range tables {
		want := sdRows(t, pgConn, "PostgreSQL", tb.oracle)
		got := sdRows(t, w, "weir", "SELECT * FROM "+tb.name)
		if tb.name == "tr_top" {
			got = sdRows(t, w, "weir", "SELECT * FROM tr_top WHERE k <> 99")
			want = sdRows(t, pgConn, "PostgreSQL", "SELECT * FROM ("+tb.oracle+") o WHERE k <> 99")
		}
		if d, m := diffSorted(want, got, 15); m > 0 {
			t.Errorf("seed %d: %s: %d rows differ (oracle %d, weir %d; - only in oracle, + only in weir):%s", seed, tb.name, m, len(want), len(got), d)
		} else {
			t.Logf("%s: %d rows equal", tb.name, len(got))
		}
		if p := prog[tb.name]; p.late != 0 {
			t.Errorf("seed %d: %s: late_rows = %d, want 0", seed, tb.name, p.late)
		}
	}
}

// TestStreamingTreeDedupJoin: deduplication feeding a join of two streams
// (clicks delivered more than once, joined with the impression they
// follow), against PostgreSQL's SELECT DISTINCT and join over the same
// rows.
func TestStreamingTreeDedupJoin(t *testing.T) {
	r := rand.New(rand.NewSource(time.Now().UnixNano()))
	base := time.Date(2024, 1, 1, 0, 0, 0, 0, time.UTC).UnixMicro()
	pg := pgtest.Shared(t)
	pgConn, err := pgx.Connect(context.Background(), pg.FreshDatabase(t))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { pgConn.Close(context.Background()) })
	srv := startServer(t, t.TempDir())
	w := srv.connect(t)
	for _, c := range []*pgx.Conn{w, pgConn} {
		sdExec(t, c, "setup", "SET TimeZone = 'UTC'")
		sdExec(t, c, "setup", "CREATE TABLE imps (id bigint, ad bigint, ts timestamptz)")
		sdExec(t, c, "setup", "CREATE TABLE clicks (id bigint, ad bigint, ts timestamptz)")
	}
	sdExec(t, w, "weir", "CREATE STREAMING TABLE dj AS SELECT d.id AS click, i.id AS imp FROM (SELECT DISTINCT ON (id) id, ad, ts FROM STREAM clicks WATERMARK ts DELAY OF INTERVAL 5 MINUTES) d"+
		" JOIN STREAM imps i WATERMARK ts DELAY OF INTERVAL 5 MINUTES ON d.ad = i.ad AND d.ts BETWEEN i.ts AND i.ts + INTERVAL '10 minutes'")
	var fed int64
	for batch := 0; batch < 40; batch++ {
		var iv, cv []string
		for k := 0; k < 20; k++ {
			n := int64(batch*20 + k)
			ts := base + n*5_000_000
			iv = append(iv, fmt.Sprintf("(%d, %d, '%s')", n, r.Int63n(10), sdTS(ts)))
			c := fmt.Sprintf("(%d, %d, '%s')", n, r.Int63n(10), sdTS(ts+r.Int63n(300_000_000)))
			cv = append(cv, c)
			if r.Intn(3) == 0 {
				cv = append(cv, c) // delivered twice
			}
		}
		for _, c := range []*pgx.Conn{w, pgConn} {
			sdExec(t, c, "insert", "INSERT INTO imps VALUES "+strings.Join(iv, ", "))
			sdExec(t, c, "insert", "INSERT INTO clicks VALUES "+strings.Join(cv, ", "))
		}
		fed += int64(len(iv) + len(cv))
		waitConsumed(t, w, []string{"dj"}, fed, 20*time.Second)
	}
	want := sdRows(t, pgConn, "PostgreSQL", "SELECT d.id, i.id FROM (SELECT DISTINCT id, ad, ts FROM clicks) d JOIN imps i ON d.ad = i.ad AND d.ts BETWEEN i.ts AND i.ts + INTERVAL '10 minutes'")
	got := sdRows(t, w, "weir", "SELECT * FROM dj")
	if d, m := diffSorted(want, got, 15); m > 0 || len(want) == 0 {
		t.Errorf("dj: %d rows differ (oracle %d, weir %d):%s", m, len(want), len(got), d)
	}
}

// TestStreamingTreeChangelogAggregates checks aggregations whose input is
// a changelog against PostgreSQL's batch SQL over the same rows, the input
// arriving in random micro-batches:
//   - count, sum, avg, min and max over a non-windowed GROUP BY whose keys
//     are updated many times (each update deletes the key's old row
//     below, and moves it between the groups above), with HAVING, compared
//     after many micro-batches, not only at the end;
//   - a rolling OVER over that changelog (Nexmark q6's shape);
//   - an aggregation over a LEFT interval join (its NULL-padded rows
//     arrive once the watermark passes), and one over that aggregation.
func TestStreamingTreeChangelogAggregates(t *testing.T) {
	seed := time.Now().UnixNano() % 1_000_000_000
	t.Logf("seed %d", seed)
	r := rand.New(rand.NewSource(seed))
	base := time.Date(2024, 1, 1, 0, 0, 0, 0, time.UTC).UnixMicro()
	pg := pgtest.Shared(t)
	pgConn, err := pgx.Connect(context.Background(), pg.FreshDatabase(t))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { pgConn.Close(context.Background()) })
	srv := startServer(t, t.TempDir())
	w := srv.connect(t)
	for _, c := range []*pgx.Conn{w, pgConn} {
		sdExec(t, c, "setup", "SET TimeZone = 'UTC'")
		sdExec(t, c, "setup", "CREATE TABLE kv (id bigint, k bigint, v bigint, f double precision, ts timestamptz)")
		sdExec(t, c, "setup", "CREATE TABLE imps (id bigint, ad bigint, ts timestamptz)")
		sdExec(t, c, "setup", "CREATE TABLE clicks (id bigint, ad bigint, ts timestamptz)")
	}
	// The keys' rows below: a count, a max, an exact sum with cents.
	inner := "SELECT k, count(*) AS c, max(v) AS m, min(f) AS mf, sum(v) * 0.01 AS cents FROM kv GROUP BY k"
	tables := []struct{ name, query string }{
		{"cl_buckets", "SELECT c % 5 AS bucket, count(*) AS keys, sum(c) AS rows, avg(m) AS avg_max, min(m) AS min_max, max(m) AS max_max," +
			" sum(mf) AS sum_mf, avg(mf) AS avg_mf, max(mf) AS max_mf, sum(cents) AS cents, avg(cents) AS avg_cents, count(m) AS with_v" +
			" FROM (" + inner + ") g GROUP BY c % 5"},
		{"cl_having", "SELECT m % 3 AS r, count(*) AS keys, max(c) AS most FROM (" + inner + ") g GROUP BY m % 3 HAVING count(*) > 2"},
		{"cl_total", "SELECT count(*) AS keys, sum(c) AS rows, max(m) AS top, avg(cents) AS a FROM (" + inner + ") g"},
		{"cl_rolling", "SELECT k, c, avg(m) OVER (PARTITION BY c % 3 ORDER BY m, k ROWS BETWEEN 2 PRECEDING AND CURRENT ROW) AS am, lag(k) OVER (PARTITION BY c % 3 ORDER BY m, k) AS prev FROM (" + inner + ") g"},
	}
	for _, tb := range tables {
		sdExec(t, w, "weir", "CREATE STREAMING TABLE "+tb.name+" AS "+tb.query)
	}
	const wm = " WATERMARK ts DELAY OF INTERVAL 2 MINUTES"
	joinQ := "SELECT i.ad, count(*) AS n, count(c.id) AS clicks, sum(c.id) AS ids, min(c.ts) AS first_click, max(c.ts) AS last_click FROM %s LEFT JOIN %s" +
		" ON c.ad = i.ad AND c.ts BETWEEN i.ts AND i.ts + INTERVAL '1 minute' GROUP BY i.ad"
	sdExec(t, w, "weir", "CREATE STREAMING TABLE cl_left AS "+fmt.Sprintf(joinQ, "STREAM imps i"+wm, "STREAM clicks c"+wm))
	sdExec(t, w, "weir", "CREATE STREAMING TABLE cl_left_nested AS SELECT clicks, count(*) AS ads, sum(n) AS imps, max(last_click) AS last FROM ("+
		fmt.Sprintf(joinQ, "STREAM imps i"+wm, "STREAM clicks c"+wm)+") a GROUP BY clicks")
	kvNames := []string{"cl_buckets", "cl_having", "cl_total", "cl_rolling"}
	compare := func(when string, name, weirSQL, pgSQL string) {
		t.Helper()
		want := sdRows(t, pgConn, "PostgreSQL", pgSQL)
		got := sdRows(t, w, "weir", weirSQL)
		if d, m := diffSorted(want, got, 15); m > 0 {
			t.Fatalf("seed %d, %s: %s: %d rows differ (oracle %d, weir %d; - only in oracle, + only in weir):%s", seed, when, name, m, len(want), len(got), d)
		}
		t.Logf("%s: %s: %d rows equal", when, name, len(got))
	}
	var kvFed, joinFed int64
	nextID := int64(1)
	for batch := 0; batch < 40; batch++ {
		var kv, iv, cv []string
		for m := 1 + r.Intn(60); m > 0; m-- {
			id := nextID
			nextID++
			v := "NULL"
			if r.Intn(10) > 0 {
				v = fmt.Sprint(r.Int63n(2000) - 500)
			}
			ts := base + id*1_000_000
			kv = append(kv, fmt.Sprintf("(%d, %d, %s, %g, '%s')", id, 1+r.Int63n(30), v, float64(r.Int63n(400))/4, sdTS(ts)))
			// Out of order, but by less than the 2-minute delay: no row is late.
			its := ts + r.Int63n(20_000_000)
			iv = append(iv, fmt.Sprintf("(%d, %d, '%s')", id, r.Int63n(12), sdTS(its)))
			for n := r.Intn(3); n > 0; n-- {
				cv = append(cv, fmt.Sprintf("(%d, %d, '%s')", id*10+int64(n), r.Int63n(12), sdTS(its+r.Int63n(80_000_000))))
			}
		}
		for _, c := range []*pgx.Conn{w, pgConn} {
			sdExec(t, c, "insert", "INSERT INTO kv VALUES "+strings.Join(kv, ", "))
			sdExec(t, c, "insert", "INSERT INTO imps VALUES "+strings.Join(iv, ", "))
			if len(cv) > 0 {
				sdExec(t, c, "insert", "INSERT INTO clicks VALUES "+strings.Join(cv, ", "))
			}
		}
		kvFed += int64(len(kv))
		joinFed += int64(len(iv) + len(cv))
		waitConsumed(t, w, kvNames, kvFed, 20*time.Second)
		waitConsumed(t, w, []string{"cl_left", "cl_left_nested"}, joinFed, 20*time.Second)
		if batch%8 == 7 {
			for i, tb := range tables {
				compare(fmt.Sprintf("after batch %d", batch), kvNames[i], "SELECT * FROM "+tb.name, tb.query)
			}
		}
	}
	// Far-future rows close every interval: the unmatched impressions'
	// NULL-padded rows come out. The far impression itself stays open.
	far := sdTS(base + 1000*86400*1_000_000)
	sdExec(t, w, "weir", "INSERT INTO imps VALUES (-1, 99, '"+far+"')")
	sdExec(t, w, "weir", "INSERT INTO clicks VALUES (-1, 98, '"+far+"')")
	waitConsumed(t, w, []string{"cl_left", "cl_left_nested"}, joinFed+2, 20*time.Second)
	real := fmt.Sprintf(joinQ, "imps i", "clicks c")
	compare("at the end", "cl_left", "SELECT * FROM cl_left", real)
	compare("at the end", "cl_left_nested", "SELECT * FROM cl_left_nested",
		"SELECT clicks, count(*) AS ads, sum(n) AS imps, max(last_click) AS last FROM ("+real+") a GROUP BY clicks")
	prog := readProgress(t, w)
	for _, name := range append(kvNames, "cl_left", "cl_left_nested") {
		if p := prog[name]; p.late != 0 {
			t.Errorf("seed %d: %s: late_rows = %d, want 0", seed, name, p.late)
		}
	}
}
