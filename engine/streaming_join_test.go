package engine_test

// TestStreamingJoinDifferential feeds two random event streams (ad
// impressions and clicks, Spark's stream-stream join example) into weir in
// random micro-batches, one INSERT into one of them per micro-batch, and
// checks interval joins of the two (inner, left, right, full) against
// PostgreSQL's batch join of the rows the lateness rule keeps:
//
//   - each side's watermark is max(event time delivered on it) - its delay,
//     advanced at the end of each micro-batch;
//   - a row with an event time below its own side's watermark is late
//     (dropped and counted);
//   - the output holds every pair that satisfies the condition and, once
//     the other side's watermark passed a preserved row's bound, that row
//     with NULLs if it matched nothing.
//
// At the end one far-future row on each side (that matches nothing)
// moves both watermarks past every bound; the state left must then be
// those two rows.
//
//	go test ./engine -run TestStreamingJoinDifferential -sjoin.seed=42 -sjoin.events=5000

import (
	"context"
	"flag"
	"fmt"
	"math"
	"math/rand"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/weir-sql/weir/internal/pgtest"
)

var (
	sjSeed   = flag.Int64("sjoin.seed", 0, "TestStreamingJoinDifferential: seed (0: from the clock)")
	sjEvents = flag.Int("sjoin.events", 1500, "TestStreamingJoinDifferential: events per side")
)

// sjEvent is one impression or click; ad 0 is NULL, ts -1 is NULL.
type sjEvent struct{ id, ad, ts int64 }

func (e sjEvent) sqlValues() string {
	ad, ts := "NULL", "NULL"
	if e.ad != 0 {
		ad = fmt.Sprint(e.ad)
	}
	if e.ts >= 0 {
		ts = "'" + sdTS(e.ts) + "'"
	}
	return fmt.Sprintf("(%d, %s, %s)", e.id, ad, ts)
}

const (
	sjImpDelay = 2 * sdMinute
	sjClkDelay = 3 * sdMinute
)

func TestStreamingJoinDifferential(t *testing.T) {
	seed := *sjSeed
	if seed == 0 {
		seed = time.Now().UnixNano() % 1_000_000_000
	}
	t.Logf("seed %d (reproduce: go test ./engine -run TestStreamingJoinDifferential -sjoin.seed=%d -sjoin.events=%d)", seed, seed, *sjEvents)
	r := rand.New(rand.NewSource(seed))
	base := time.Date(2024, 1, 1, 0, 0, 0, 0, time.UTC).UnixMicro()
	gen := func(side int64, n int) []sjEvent {
		out := make([]sjEvent, n)
		for i := range out {
			e := sjEvent{id: side*1_000_000 + int64(i+1), ad: 1 + r.Int63n(40)}
			nominal := base + int64(i)*3_000_000
			if side == 2 {
				nominal += 2 * sdMinute // clicks come after impressions
			}
			jitter := r.Int63n(8*sdMinute) - 4*sdMinute // more than the delays: some rows are late
			if r.Intn(3) == 0 {
				jitter /= 10
			}
			e.ts = nominal + jitter
			if r.Intn(5) == 0 {
				e.ts = e.ts / sdMinute * sdMinute // whole minutes land on bounds
			}
			if r.Intn(150) == 0 {
				e.ad = 0
			}
			if r.Intn(150) == 0 {
				e.ts = -1
			}
			out[i] = e
		}
		return out
	}
	imps, clks := gen(1, *sjEvents), gen(2, *sjEvents)

	// Micro-batches alternate randomly between the sides.
	type mb struct {
		side int // 0 impressions, 1 clicks
		rows []sjEvent
	}
	var batches []mb
	for i, k := 0, 0; i < len(imps) || k < len(clks); {
		side := r.Intn(2)
		if i >= len(imps) {
			side = 1
		} else if k >= len(clks) {
			side = 0
		}
		n := 1 + r.Intn(30)
		if side == 0 {
			n = min(n, len(imps)-i)
			batches = append(batches, mb{0, imps[i : i+n]})
			i += n
		} else {
			n = min(n, len(clks)-k)
			batches = append(batches, mb{1, clks[k : k+n]})
			k += n
		}
	}
	far := base + 1000*24*3600*1_000_000
	batches = append(batches, mb{0, []sjEvent{{id: -1, ad: -1, ts: far}}}, mb{1, []sjEvent{{id: -2, ad: -2, ts: far}}})

	// The lateness rule, simulated.
	wm := [2]int64{math.MinInt64, math.MinInt64}
	delay := [2]int64{sjImpDelay, sjClkDelay}
	var kept [2][]sjEvent
	var late int64
	var lateIDs []string // side.id of each late row, as the late_rows table names them
	for _, b := range batches {
		maxT := int64(math.MinInt64)
		for _, e := range b.rows {
			if e.ts >= 0 {
				maxT = max(maxT, e.ts) // late rows count too: they are below the watermark anyway
			}
			if e.ts >= 0 && e.ts < wm[b.side] && e.ad != 0 {
				late++
				lateIDs = append(lateIDs, fmt.Sprintf(`"%s.id=%d"`, []string{"i", "c"}[b.side], e.id))
				continue
			}
			if e.id > 0 {
				kept[b.side] = append(kept[b.side], e)
			}
		}
		if maxT != math.MinInt64 && maxT-delay[b.side] > wm[b.side] {
			wm[b.side] = maxT - delay[b.side]
		}
	}

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
		sdExec(t, c, "setup", "CREATE TABLE imp (id bigint, ad bigint, t timestamptz)")
		sdExec(t, c, "setup", "CREATE TABLE clk (id bigint, ad bigint, t timestamptz)")
	}
	const on = " ON i.ad = c.ad AND c.t BETWEEN i.t - INTERVAL '1 minute' AND i.t + INTERVAL '10 minutes'"
	kinds := map[string]string{"sj_inner": "JOIN", "sj_left": "LEFT JOIN", "sj_right": "RIGHT JOIN", "sj_full": "FULL JOIN"}
	var names []string
	for name, kind := range kinds {
		sdExec(t, w, "weir", "CREATE STREAMING TABLE "+name+" WITH (late_rows = late_"+name+") AS SELECT i.id AS iid, i.t AS it, c.id AS cid, c.t AS ct"+
			" FROM STREAM imp i WATERMARK t DELAY OF INTERVAL 2 MINUTES "+kind+" STREAM clk c WATERMARK t DELAY OF INTERVAL 3 MINUTES"+on)
		names = append(names, name)
	}
	// A join feeding window aggregations, windowed on either side's time
	// (Spark's window() over the join's rows): the join's watermark
	// bounds both, so every window closes with all its pairs and no pair
	// is late at the aggregation.
	windowed := map[string][2]string{
		"sj_win_ct": {"window(c.t, '5 minutes')", "date_bin('5 minutes', c.t, timestamptz '1970-01-01 00:00:00+00')"},
		"sj_win_it": {"window(i.t, '2 minutes')", "date_bin('2 minutes', i.t, timestamptz '1970-01-01 00:00:00+00')"},
	}
	for name, spec := range windowed {
		sdExec(t, w, "weir", "CREATE STREAMING TABLE "+name+" AS SELECT window.start AS ws, count(*) AS n, sum(i.id + c.id) AS s"+
			" FROM STREAM imp i WATERMARK t DELAY OF INTERVAL 2 MINUTES JOIN STREAM clk c WATERMARK t DELAY OF INTERVAL 3 MINUTES"+on+
			" GROUP BY "+spec[0])
		names = append(names, name)
	}
	var fed int64
	for _, b := range batches {
		vals := make([]string, len(b.rows))
		for i, e := range b.rows {
			vals[i] = e.sqlValues()
		}
		table := []string{"imp", "clk"}[b.side]
		sdExec(t, w, "weir", "INSERT INTO "+table+" VALUES "+strings.Join(vals, ", "))
		fed += int64(len(b.rows))
		waitConsumed(t, w, names, fed, 20*time.Second)
	}
	for side, table := range []string{"imp", "clk"} {
		vals := make([]string, len(kept[side]))
		for i, e := range kept[side] {
			vals[i] = e.sqlValues()
		}
		sdInsert(t, pgConn, "PostgreSQL", table, vals)
	}
	prog := readProgress(t, w)
	for name, kind := range kinds {
		oracle := "SELECT i.id AS iid, i.t AS it, c.id AS cid, c.t AS ct FROM imp i " + kind + " clk c" + on
		want := sdRows(t, pgConn, "PostgreSQL", oracle)
		got := sdRows(t, w, "weir", "SELECT * FROM "+name+" WHERE coalesce(iid, 0) >= 0 AND coalesce(cid, 0) >= 0")
		if d, n := diffSorted(want, got, 15); n > 0 {
			t.Errorf("seed %d: %s: %d rows differ (oracle %d, weir %d; - only in oracle, + only in weir):%s", seed, name, n, len(want), len(got), d)
		} else {
			t.Logf("%s: %d rows equal", name, len(got))
		}
		if p := prog[name]; p.late != late {
			t.Errorf("seed %d: %s: late_rows = %d, want %d", seed, name, p.late, late)
		}
		// The late_rows table holds exactly the rows the rule calls late.
		gotLate := sdRows(t, w, "weir", "SELECT CASE WHEN late_row->>'i.id' IS NOT NULL THEN 'i.id=' || (late_row->>'i.id') ELSE 'c.id=' || (late_row->>'c.id') END FROM late_"+name)
		slices.Sort(lateIDs)
		if d, n := diffSorted(lateIDs, gotLate, 15); n > 0 {
			t.Errorf("seed %d: %s: %d late rows differ (- only in the rule, + only in late_%s):%s", seed, name, n, name, d)
		}
	}
	for name, spec := range windowed {
		oracle := "SELECT " + spec[1] + " AS ws, count(*) AS n, sum(i.id + c.id) AS s FROM imp i JOIN clk c" + on + " GROUP BY 1"
		want := sdRows(t, pgConn, "PostgreSQL", oracle)
		got := sdRows(t, w, "weir", "SELECT * FROM "+name+" WHERE ws < '2025-01-01'")
		if d, n := diffSorted(want, got, 15); n > 0 {
			t.Errorf("seed %d: %s: %d windows differ (oracle %d, weir %d; - only in oracle, + only in weir):%s", seed, name, n, len(want), len(got), d)
		} else {
			t.Logf("%s: %d windows equal", name, len(got))
		}
		if p := prog[name]; p.late != late {
			t.Errorf("seed %d: %s: late_rows = %d, want %d (the join's; none at the aggregation)", seed, name, p.late, late)
		}
	}
	for _, name := range names {
		if _, ok := windowed[name]; ok {
			continue // its open window over the far-future pairs is state
		}
		got := sdRows(t, w, "weir", "SELECT state_rows FROM weir_catalog.streaming_progress WHERE name = '"+name+"'")
		if len(got) != 1 || got[0] != `"2"` {
			t.Errorf("seed %d: %s: state_rows %v after the final watermarks, want 2 (the two far-future rows)", seed, name, got)
		}
	}
}
