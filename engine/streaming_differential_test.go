package engine_test

// TestStreamingDifferential feeds one randomly generated, mostly ordered
// but out-of-order event stream into weir in random micro-batches and
// checks five streaming tables over it against PostgreSQL batch SQL run on
// the rows the dialect's lateness rule keeps (dialect.md, "Semantics"):
//
//   - the watermark is max(ts delivered) - delay, advanced at the END of
//     each micro-batch and never backwards;
//   - windows are [start, end), aligned to the Unix epoch, and close when
//     watermark >= end;
//   - a row is dropped from a window that closed before its micro-batch
//     (window end <= watermark after the previous micro-batch); it is late
//     (counted in late_rows) when every window it belongs to had closed;
//   - append mode shows exactly the closed windows, update mode every window.
//
// Every INSERT is one micro-batch: the test waits until every streaming
// table's input_rows equals the rows inserted so far before the next one.
//
//	go test ./engine -run TestStreamingDifferential                       # ~3000 events, random seed
//	go test ./engine -run TestStreamingDifferential -sdiff.seed=42 -sdiff.events=20000

import (
	"context"
	"flag"
	"fmt"
	"math/rand"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/weir-sql/weir/internal/pgtest"
)

var (
	sdiffSeed   = flag.Int64("sdiff.seed", 0, "TestStreamingDifferential: seed (0: derive one from the clock)")
	sdiffEvents = flag.Int("sdiff.events", 3000, "TestStreamingDifferential: number of events")
	sdiffMaxRep = flag.Int("sdiff.report", 15, "TestStreamingDifferential: report at most this many differing rows per table")
)

const (
	sdMinute   = int64(60_000_000) // microseconds
	sdDelay    = 2 * sdMinute
	sdTumble   = 5 * sdMinute
	sdHopSize  = 10 * sdMinute
	sdHopSlide = 5 * sdMinute
)

// sdEvent is one input row. ts is microseconds since the Unix epoch.
type sdEvent struct {
	id     int64
	region string // "" = NULL
	amount int64  // cents; -1 = NULL
	ts     int64
}

func (e sdEvent) sqlValues() string {
	region := "NULL"
	if e.region != "" {
		region = "'" + e.region + "'"
	}
	amount := "NULL"
	if e.amount >= 0 {
		amount = fmt.Sprintf("%d.%02d", e.amount/100, e.amount%100)
	}
	ts := time.UnixMicro(e.ts).UTC().Format("2006-01-02 15:04:05.999999") + "+00"
	return fmt.Sprintf("(%d, %s, %s, '%s')", e.id, region, amount, ts)
}

func sdTS(us int64) string {
	return time.UnixMicro(us).UTC().Format("2006-01-02 15:04:05.999999+00")
}

// floorDiv rounds toward negative infinity (epoch alignment for any ts).
func floorDiv(a, b int64) int64 {
	q := a / b
	if a%b != 0 && (a < 0) != (b < 0) {
		q--
	}
	return q
}

// genEvents makes n events: nominal times ~2 s apart from 2024-01-01,
// jittered by up to ±3 minutes (more than the 2-minute delay, so some rows
// are late), ~2% duplicates of an earlier event, ~0.5% very late (20-90
// minutes back), and a few NULL regions and amounts.
func genEvents(r *rand.Rand, n int) []sdEvent {
	base := time.Date(2024, 1, 1, 0, 0, 0, 0, time.UTC).UnixMicro()
	regions := []string{"eu", "us", "apac", "latam"}
	var out []sdEvent
	for i := 0; len(out) < n; i++ {
		if len(out) > 10 && r.Intn(100) < 2 {
			out = append(out, out[len(out)-1-r.Intn(min(len(out), 50))])
			continue
		}
		e := sdEvent{id: int64(i + 1), amount: int64(r.Intn(10000)), region: regions[r.Intn(len(regions))]}
		if r.Intn(200) == 0 {
			e.region = ""
		}
		if r.Intn(100) == 0 {
			e.amount = -1
		}
		nominal := base + int64(i)*2_000_000
		jitter := int64(r.Intn(int(6*sdMinute/1000)))*1000 - 3*sdMinute
		if r.Intn(3) == 0 {
			jitter /= 10 // most rows are only a little out of order
		}
		if r.Intn(200) == 0 {
			jitter = -(20*sdMinute + int64(r.Intn(int(70*sdMinute/1_000_000)))*1_000_000)
		}
		e.ts = nominal + jitter
		if r.Intn(4) == 0 {
			e.ts = e.ts / 1_000_000 * 1_000_000 // whole seconds, so some land on window boundaries
		}
		if r.Intn(6) == 0 {
			// whole minutes: the watermark (ts - 2 min) then often equals a
			// window end exactly, which must close that window
			e.ts = floorDiv(e.ts, sdMinute) * sdMinute
		}
		if r.Intn(50) == 0 {
			e.ts = floorDiv(e.ts, sdTumble) * sdTumble // exactly on a boundary
		}
		out = append(out, e)
	}
	return out
}

// splitBatches cuts n rows into micro-batches of 1-200 rows, small ones
// more often so that there are many watermark steps.
func splitBatches(r *rand.Rand, n int) []int {
	var sizes []int
	for n > 0 {
		s := 1 + r.Intn(20)
		if r.Intn(3) == 0 {
			s = 1 + r.Intn(200)
		}
		s = min(s, n)
		sizes = append(sizes, s)
		n -= s
	}
	return sizes
}

// sdOracle is the Go simulation of the dialect's lateness rule.
type sdOracle struct {
	tumbleKept []sdEvent
	hopKept    []sdEvent
	hopDrop0   []bool // the row's earlier hopping window [s1-slide, s1-slide+size) was closed
	lateTumble int64
	lateHop    int64 // rows whose every hopping window had closed
	finalWM    int64
	hasWM      bool
	wms        []int64 // the watermark after each micro-batch
}

func simulate(events []sdEvent, sizes []int) *sdOracle {
	o := &sdOracle{}
	wm, has := int64(0), false
	off := 0
	for _, size := range sizes {
		batch := events[off : off+size]
		off += size
		for _, e := range batch {
			ws := floorDiv(e.ts, sdTumble) * sdTumble
			if has && ws+sdTumble <= wm {
				o.lateTumble++
			} else {
				o.tumbleKept = append(o.tumbleKept, e)
			}
			s1 := floorDiv(e.ts, sdHopSlide) * sdHopSlide // the later window
			s0 := s1 - sdHopSlide
			closed1 := has && s1+sdHopSize <= wm
			closed0 := has && s0+sdHopSize <= wm
			if closed1 {
				o.lateHop++
			} else {
				o.hopKept = append(o.hopKept, e)
				o.hopDrop0 = append(o.hopDrop0, closed0)
			}
		}
		// End of the micro-batch: the watermark advances.
		for _, e := range batch {
			if c := e.ts - sdDelay; !has || c > wm {
				wm, has = c, true
			}
		}
		o.wms = append(o.wms, wm)
	}
	o.finalWM, o.hasWM = wm, has
	return o
}

// sdTable is one streaming table under test and its PostgreSQL oracle.
type sdTable struct {
	name, create string
	oracle       string // PostgreSQL query giving the expected rows
	late         func(o *sdOracle) int64
}

func sdTables(o *sdOracle) []sdTable {
	wm := "'" + sdTS(o.finalWM) + "'::timestamptz"
	tumbleWin := "to_timestamp(floor(extract(epoch from ts) / 300) * 300)"
	aggs := "count(*) AS n, sum(amount) AS total, min(amount) AS lo, max(amount) AS hi, avg(amount) AS mean"
	tumbleOracle := func(closedOnly bool) string {
		where := ""
		if closedOnly {
			where = " WHERE window_end <= " + wm
		}
		return "SELECT * FROM (SELECT region, " + tumbleWin + " AS window_start, " + tumbleWin + " + interval '5 minutes' AS window_end, " +
			aggs + " FROM ev_tumble GROUP BY 1, 2, 3) t" + where
	}
	hopS1 := "to_timestamp(floor(extract(epoch from ts) / 300) * 300)"
	return []sdTable{
		{
			name: "sd_append",
			create: "CREATE STREAMING TABLE sd_append AS SELECT region, window_start, window_end, " + aggs +
				" FROM STREAM ev WATERMARK ts DELAY OF INTERVAL 2 MINUTES WINDOW TUMBLING (SIZE INTERVAL 5 MINUTES) GROUP BY region, window_start, window_end",
			oracle: tumbleOracle(true),
			late:   func(o *sdOracle) int64 { return o.lateTumble },
		},
		{
			name: "sd_update",
			create: "CREATE STREAMING TABLE sd_update AS SELECT region, window_start, window_end, " + aggs +
				" FROM STREAM ev WATERMARK ts DELAY OF INTERVAL 2 MINUTES WINDOW TUMBLING (SIZE INTERVAL 5 MINUTES) GROUP BY region, window_start, window_end EMIT ON UPDATE",
			oracle: tumbleOracle(false),
			late:   func(o *sdOracle) int64 { return o.lateTumble },
		},
		{
			name: "sd_hop",
			create: "CREATE STREAMING TABLE sd_hop AS SELECT region, window_start, window_end, count(*) AS n" +
				" FROM STREAM ev WATERMARK ts DELAY OF INTERVAL 2 MINUTES WINDOW HOPPING (SIZE INTERVAL 10 MINUTES, ADVANCE BY INTERVAL 5 MINUTES) GROUP BY region, window_start, window_end",
			// Each row belongs to the windows starting at s1 (its slide) and
			// s1 - 5 min; the earlier copy is absent when it had closed.
			oracle: "SELECT region, window_start, window_start + interval '10 minutes' AS window_end, count(*) AS n FROM (" +
				"SELECT region, " + hopS1 + " AS window_start FROM ev_hop" +
				" UNION ALL SELECT region, " + hopS1 + " - interval '5 minutes' FROM ev_hop WHERE NOT drop0" +
				") c WHERE window_start + interval '10 minutes' <= " + wm + " GROUP BY 1, 2, 3",
			late: func(o *sdOracle) int64 { return o.lateHop },
		},
		{
			name:   "sd_region",
			create: "CREATE STREAMING TABLE sd_region AS SELECT region, count(*), sum(amount) FROM ev GROUP BY region",
			oracle: "SELECT region, count(*), sum(amount) FROM ev_all GROUP BY region",
			late:   func(*sdOracle) int64 { return 0 },
		},
		{
			name:   "sd_big",
			create: "CREATE STREAMING TABLE sd_big AS SELECT id, amount FROM STREAM ev WHERE amount > 50",
			oracle: "SELECT id, amount FROM ev_all WHERE amount > 50",
			late:   func(*sdOracle) int64 { return 0 },
		},
	}
}

func sdExec(t *testing.T, c *pgx.Conn, who, sql string) {
	t.Helper()
	if _, err := c.Exec(context.Background(), sql, pgx.QueryExecModeSimpleProtocol); err != nil {
		t.Fatalf("%s: %v\n%s", who, err, truncate(sql, 400))
	}
}

func sdInsert(t *testing.T, c *pgx.Conn, who, table string, rows []string) {
	t.Helper()
	for len(rows) > 0 {
		n := min(len(rows), 500)
		sdExec(t, c, who, "INSERT INTO "+table+" VALUES "+strings.Join(rows[:n], ", "))
		rows = rows[n:]
	}
}

// sdProgress is one streaming_progress row.
type sdProgress struct {
	status    string
	input     int64
	late      int64
	watermark string
	lastError string
}

func readProgress(t *testing.T, c *pgx.Conn) map[string]sdProgress {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	rows, err := c.Query(ctx, "SELECT name, status, input_rows, late_rows, coalesce(watermark::text, ''), coalesce(last_error, '') FROM weir_catalog.streaming_progress", pgx.QueryExecModeSimpleProtocol)
	if err != nil {
		t.Fatalf("streaming_progress: %v", err)
	}
	out := map[string]sdProgress{}
	for rows.Next() {
		var name string
		var p sdProgress
		if err := rows.Scan(&name, &p.status, &p.input, &p.late, &p.watermark, &p.lastError); err != nil {
			t.Fatalf("streaming_progress: %v", err)
		}
		out[name] = p
	}
	if err := rows.Err(); err != nil {
		t.Fatalf("streaming_progress: %v", err)
	}
	return out
}

// waitConsumed polls streaming_progress until every named table's
// input_rows equals want, failing on a failed job or after the deadline.
func waitConsumed(t *testing.T, c *pgx.Conn, names []string, want int64, deadline time.Duration) {
	t.Helper()
	end := time.Now().Add(deadline)
	for {
		p := readProgress(t, c)
		done := true
		for _, n := range names {
			pr, ok := p[n]
			if !ok {
				t.Fatalf("streaming table %s missing from streaming_progress", n)
			}
			if pr.status == "failed" {
				t.Fatalf("streaming table %s failed: %s", n, pr.lastError)
			}
			if pr.input > want {
				t.Fatalf("streaming table %s: input_rows %d > %d rows inserted", n, pr.input, want)
			}
			if pr.input != want {
				done = false
			}
		}
		if done {
			return
		}
		if time.Now().After(end) {
			t.Fatalf("after %v the streaming tables have not consumed %d rows: %+v", deadline, want, p)
		}
		time.Sleep(2 * time.Millisecond)
	}
}

func sdRows(t *testing.T, c *pgx.Conn, who, sql string) []string {
	t.Helper()
	o := runQuery(c, sql)
	if o.err != "" {
		t.Fatalf("%s: %s\n%s", who, o.err, sql)
	}
	slices.Sort(o.rows)
	return o.rows
}

// diffSorted reports rows only in want (-) and only in got (+).
func diffSorted(want, got []string, max int) (string, int) {
	var b strings.Builder
	n := 0
	i, j := 0, 0
	line := func(s string) {
		if n < max {
			b.WriteString("\n    " + s)
		}
		n++
	}
	for i < len(want) || j < len(got) {
		switch {
		case j >= len(got) || i < len(want) && want[i] < got[j]:
			line("- " + want[i])
			i++
		case i >= len(want) || got[j] < want[i]:
			line("+ " + got[j])
			j++
		default:
			i++
			j++
		}
	}
	if n > max {
		fmt.Fprintf(&b, "\n    ... %d more", n-max)
	}
	return b.String(), n
}

func TestStreamingDifferential(t *testing.T) {
	seed := *sdiffSeed
	if seed == 0 {
		seed = time.Now().UnixNano() % 1_000_000_000
	}
	t.Logf("seed %d (reproduce: go test ./engine -run TestStreamingDifferential -sdiff.seed=%d -sdiff.events=%d)", seed, seed, *sdiffEvents)
	r := rand.New(rand.NewSource(seed))
	events := genEvents(r, *sdiffEvents)
	sizes := splitBatches(r, len(events))
	o := simulate(events, sizes)
	tables := sdTables(o)

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

	sdExec(t, w, "weir", "CREATE TABLE ev (id bigint, region text, amount numeric(12,2), ts timestamptz)")
	var names []string
	for _, tb := range tables {
		sdExec(t, w, "weir", tb.create)
		names = append(names, tb.name)
	}

	// Feed weir one micro-batch per INSERT.
	started := time.Now()
	off := 0
	var prevAppend []string
	for k, size := range sizes {
		vals := make([]string, size)
		for i, e := range events[off : off+size] {
			vals[i] = e.sqlValues()
		}
		sdExec(t, w, "weir", "INSERT INTO ev VALUES "+strings.Join(vals, ", "))
		off += size
		waitConsumed(t, w, names, int64(off), 10*time.Second)
		// Append mode, between micro-batches: only closed windows, and a
		// row once shown never changes or disappears.
		cur := sdRows(t, w, "weir", "SELECT * FROM sd_append")
		if _, n := diffSorted(prevAppend, cur, 0); n != len(cur)-len(prevAppend) {
			d, _ := diffSorted(prevAppend, cur, *sdiffMaxRep)
			t.Fatalf("seed %d: after micro-batch %d sd_append changed rows it had shown (- before, + after):%s", seed, k+1, d)
		}
		prevAppend = cur
		if open := sdRows(t, w, "weir", "SELECT count(*) FROM sd_append WHERE window_end > '"+sdTS(o.wms[k])+"'"); len(open) != 1 || open[0] != `"0"` {
			t.Fatalf("seed %d: after micro-batch %d (watermark %s) sd_append shows %v windows that have not closed", seed, k+1, sdTS(o.wms[k]), open)
		}
	}
	t.Logf("%d events in %d micro-batches fed in %v; oracle: %d late (tumbling), %d late (hopping), final watermark %s",
		len(events), len(sizes), time.Since(started).Round(time.Millisecond), o.lateTumble, o.lateHop, sdTS(o.finalWM))

	// The oracle's input on PostgreSQL.
	for _, tbl := range []string{"ev_all", "ev_tumble"} {
		sdExec(t, pgConn, "PostgreSQL", "CREATE TABLE "+tbl+" (id bigint, region text, amount numeric(12,2), ts timestamptz)")
	}
	sdExec(t, pgConn, "PostgreSQL", "CREATE TABLE ev_hop (id bigint, region text, amount numeric(12,2), ts timestamptz, drop0 boolean)")
	toVals := func(es []sdEvent) []string {
		v := make([]string, len(es))
		for i, e := range es {
			v[i] = e.sqlValues()
		}
		return v
	}
	sdInsert(t, pgConn, "PostgreSQL", "ev_all", toVals(events))
	sdInsert(t, pgConn, "PostgreSQL", "ev_tumble", toVals(o.tumbleKept))
	hv := make([]string, len(o.hopKept))
	for i, e := range o.hopKept {
		v := e.sqlValues()
		hv[i] = fmt.Sprintf("%s, %t)", v[:len(v)-1], o.hopDrop0[i])
	}
	sdInsert(t, pgConn, "PostgreSQL", "ev_hop", hv)

	// Sanity: weir's input table holds every event.
	if got, want := sdRows(t, w, "weir", "SELECT count(*) FROM ev"), []string{fmt.Sprintf("%q", fmt.Sprint(len(events)))}; !slices.Equal(got, want) {
		t.Fatalf("weir's ev has %v rows, want %v", got, want)
	}

	prog := readProgress(t, w)
	for _, tb := range tables {
		want := sdRows(t, pgConn, "PostgreSQL", tb.oracle)
		got := sdRows(t, w, "weir", "SELECT * FROM "+tb.name)
		if d, n := diffSorted(want, got, *sdiffMaxRep); n > 0 {
			t.Errorf("seed %d: %s: %d rows differ (PostgreSQL oracle %d rows, weir %d rows; - only in oracle, + only in weir):%s\noracle: %s",
				seed, tb.name, n, len(want), len(got), d, tb.oracle)
		} else {
			t.Logf("%s: %d rows equal", tb.name, len(got))
		}
		p := prog[tb.name]
		if want := tb.late(o); p.late != want {
			t.Errorf("seed %d: %s: late_rows = %d, want %d", seed, tb.name, p.late, want)
		}
		if strings.Contains(tb.create, "WATERMARK") {
			if want := sdTS(o.finalWM); p.watermark != want {
				t.Errorf("seed %d: %s: watermark = %q, want %q", seed, tb.name, p.watermark, want)
			}
		}
	}
	if t.Failed() {
		t.Logf("rerun with -sdiff.seed=%d -sdiff.events=%d", seed, *sdiffEvents)
	}
}
