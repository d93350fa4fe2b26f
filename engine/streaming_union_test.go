package engine_test

// TestStreamingUnionAll: UNION ALL of two streams, as Flink and Spark
// union streams — passed through, aggregated per tumbling window (which
// closes only when both inputs' watermarks pass it, so neither side's
// rows are late for the other's), and a union of two update-mode tables'
// changes aggregated — against PostgreSQL's batch SQL over the same rows.

import (
	"context"
	"fmt"
	"math/rand"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
)

func TestStreamingUnionAll(t *testing.T) {
	seed := time.Now().UnixNano() % 1_000_000_000
	t.Logf("seed %d", seed)
	r := rand.New(rand.NewSource(seed))
	base := time.Date(2024, 1, 1, 0, 0, 0, 0, time.UTC).UnixMicro()
	w, pgConn := weirAndOracle(t) // oracle_wait_test.go
	for _, c := range []*pgx.Conn{w, pgConn} {
		sdExec(t, c, "setup", "SET TimeZone = 'UTC'")
		sdExec(t, c, "setup", "CREATE TABLE web (id bigint, k bigint, v bigint, ts timestamptz)")
		sdExec(t, c, "setup", "CREATE TABLE app (uid bigint, k int, amount numeric(10,2), at timestamptz)")
	}
	const wm = " WATERMARK ts DELAY OF INTERVAL 1 MINUTE"
	union := "SELECT id, k, v, ts FROM STREAM web" + wm + " UNION ALL SELECT uid, k, amount::bigint, at AS ts FROM STREAM app WATERMARK at DELAY OF INTERVAL 1 MINUTE"
	pgUnion := "SELECT id, k, v, ts FROM web UNION ALL SELECT uid, k, amount::bigint, at FROM app"
	win := "to_timestamp(floor(extract(epoch from ts) / 300) * 300)"
	sdExec(t, w, "weir", "CREATE STREAMING TABLE u_rows AS "+union)
	sdExec(t, w, "weir", "CREATE STREAMING TABLE u_win AS SELECT window.start AS window_start, k, count(*) AS n, sum(v) AS s FROM ("+union+") u GROUP BY window(ts, '5 minutes'), k")
	sdExec(t, w, "weir", "CREATE STREAMING TABLE u_keys AS SELECT k, count(*) AS n, max(v) AS hi FROM ("+union+") u GROUP BY k")
	// Two update-mode tables' changes, united and aggregated again.
	sdExec(t, w, "weir", "CREATE STREAMING TABLE web_k AS SELECT k, sum(v) AS s FROM STREAM web GROUP BY k")
	sdExec(t, w, "weir", "CREATE STREAMING TABLE app_k AS SELECT k::bigint AS k, sum(amount)::bigint AS s FROM STREAM app GROUP BY k")
	sdExec(t, w, "weir", "CREATE STREAMING TABLE u_cl AS SELECT s % 3 AS r, count(*) AS n, sum(k) AS ks FROM (SELECT k, s FROM STREAM web_k UNION ALL SELECT k, s FROM STREAM app_k) u GROUP BY s % 3")
	oracles := map[string]string{
		"u_rows": pgUnion,
		// Closed windows only: the far rows below close every window but theirs.
		"u_win":  "SELECT " + win + ", k, count(*), sum(v) FROM (" + pgUnion + ") u WHERE k <> 99 GROUP BY 1, k",
		"u_keys": "SELECT k, count(*), max(v) FROM (" + pgUnion + ") u GROUP BY k",
		"u_cl":   "SELECT s % 3, count(*), sum(k) FROM (SELECT k, sum(v) AS s FROM web GROUP BY k UNION ALL SELECT k, sum(amount)::bigint FROM app GROUP BY k) u GROUP BY s % 3",
	}
	weirQ := map[string]string{"u_win": "SELECT * FROM u_win WHERE k <> 99"}
	check := func(round int) {
		for name, oracle := range oracles {
			if name == "u_win" && round < 11 {
				continue // its windows close only when both sides' far rows arrive
			}
			q := "SELECT * FROM " + name
			if wq, ok := weirQ[name]; ok {
				q = wq
			}
			waitEqualOracle(t, fmt.Sprintf("seed %d, round %d: %s", seed, round, name), w, pgConn, q, oracle)
		}
	}
	id := int64(0)
	for round := 0; round < 12; round++ {
		var wv, av []string
		for i := 0; i < 1+r.Intn(20); i++ {
			id++
			wv = append(wv, fmt.Sprintf("(%d, %d, %d, '%s')", id, r.Intn(5), r.Int63n(1000), sdTS(base+id*4_000_000)))
		}
		for i := 0; i < r.Intn(20); i++ {
			id++
			av = append(av, fmt.Sprintf("(%d, %d, %d.%02d, '%s')", id, r.Intn(5), r.Intn(900), r.Intn(100), sdTS(base+id*4_000_000)))
		}
		if round == 11 { // far rows on both sides close every window
			id++
			wv = append(wv, fmt.Sprintf("(%d, 99, 0, '%s')", id, sdTS(base+86400*1_000_000*10)))
			av = append(av, fmt.Sprintf("(%d, 99, 0, '%s')", id+1, sdTS(base+86400*1_000_000*10)))
		}
		for _, c := range []*pgx.Conn{w, pgConn} {
			sdExec(t, c, "web", "INSERT INTO web VALUES "+strings.Join(wv, ", "))
			if len(av) > 0 {
				sdExec(t, c, "app", "INSERT INTO app VALUES "+strings.Join(av, ", "))
			}
		}
		if round%4 == 3 || round == 11 {
			check(round)
		}
	}
	if p := readProgress(t, w)["u_win"]; p.late != 0 {
		t.Errorf("u_win dropped %d rows as late: a window closed before both inputs passed it", p.late)
	}
	for stmt, want := range map[string]string{
		"CREATE STREAMING TABLE bad AS SELECT k FROM STREAM web UNION SELECT k FROM STREAM app":         "UNION without ALL",
		"CREATE STREAMING TABLE bad AS SELECT k FROM STREAM web INTERSECT ALL SELECT k FROM STREAM app": "UNION without ALL, INTERSECT and EXCEPT",
		"CREATE STREAMING TABLE bad AS SELECT k FROM STREAM web UNION ALL SELECT k FROM app":            "reads no stream",
	} {
		_, err := w.Exec(context.Background(), stmt)
		if pe, ok := err.(*pgconn.PgError); !ok || pe.Code != "0A000" || !strings.Contains(pe.Message, want) {
			t.Errorf("%s: got %v, want 0A000 %q", stmt, err, want)
		}
	}
}
