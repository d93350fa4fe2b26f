package engine_test

// TestExpectationsDifferential puts a known number of bad rows into a
// bronze table in several micro-batches and checks a silver table with a
// warning and two DROP ROW expectations (one that fails with division by
// zero on some rows) against PostgreSQL over the same rows:
//
//   - silver is PostgreSQL's SELECT ... WHERE (every drop condition) IS
//     NOT FALSE, with a division by zero counted as false;
//   - the quarantine table is the complement, each row with the names of
//     the expectations it failed;
//   - weir_catalog.expectations' passed/failed are PostgreSQL's counts,
//     and equal the bad rows the test generated;
//   - the expectations events of the event log add up to those counts,
//     and Monitor reports them.

import (
	"encoding/json"
	"fmt"
	"math/rand"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/weir-sql/weir/catalog/eventlog"
	"github.com/weir-sql/weir/internal/pgtest"
)

// qualityRow is one bronze row; amount -1000 stands for NULL, id 0 for NULL.
type qualityRow struct {
	id      int64
	amount  int64
	divisor int64
	kind    string
}

func (r qualityRow) values() string {
	id, amount := fmt.Sprint(r.id), fmt.Sprint(r.amount)
	if r.id == 0 {
		id = "NULL"
	}
	if r.amount == -1000 {
		amount = "NULL"
	}
	return fmt.Sprintf("(%s, %s, %d, '%s')", id, amount, r.divisor, r.kind)
}

// genQualityRows makes n rows and says how many are bad for each
// expectation: no id (has_id), amount <= 0 (pos_amount; NULL passes),
// 100 / divisor <= 1 or divisor 0 (ratio).
func genQualityRows(r *rand.Rand, n int) (rows []qualityRow, noID, badAmount, badRatio int) {
	kinds := []string{"view", "buy", "cart"}
	for i := 0; i < n; i++ {
		q := qualityRow{id: int64(i + 1), amount: int64(r.Intn(1000) + 1), divisor: int64(r.Intn(50) + 1), kind: kinds[r.Intn(len(kinds))]}
		switch r.Intn(20) {
		case 0:
			q.id = 0
		case 1:
			q.amount = -int64(r.Intn(100))
		case 2:
			q.amount = -1000 // NULL: passes amount > 0
		case 3:
			q.divisor = 0 // 100 / 0 fails the row, not the table
		case 4:
			q.divisor = 100 + int64(r.Intn(10)) // 100 / divisor is 0: fails
		}
		if q.id == 0 {
			noID++
		}
		if q.amount != -1000 && q.amount <= 0 {
			badAmount++
		}
		if q.divisor == 0 || 100/q.divisor <= 1 {
			badRatio++
		}
		rows = append(rows, q)
	}
	return rows, noID, badAmount, badRatio
}

func TestExpectationsDifferential(t *testing.T) {
	seed := time.Now().UnixNano()
	r := rand.New(rand.NewSource(seed))
	rows, noID, badAmount, badRatio := genQualityRows(r, 2000)
	t.Logf("seed %d: %d rows, %d without id, %d with amount <= 0, %d failing the ratio", seed, len(rows), noID, badAmount, badRatio)

	srv := startServer(t, t.TempDir())
	w := srv.connect(t)
	pg := pgtest.Shared(t)
	p, err := pgx.Connect(t.Context(), pg.FreshDatabase(t))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { p.Close(t.Context()) })

	const bronze = "CREATE TABLE bronze (event_id bigint, amount bigint, divisor bigint, event_type text)"
	sdExec(t, w, "weir", bronze)
	sdExec(t, p, "PostgreSQL", bronze)
	sdExec(t, w, "weir", `CREATE STREAMING TABLE silver (
		CONSTRAINT has_id EXPECT (event_id IS NOT NULL),
		CONSTRAINT pos_amount EXPECT (amount > 0) ON VIOLATION DROP ROW,
		CONSTRAINT ratio EXPECT (100 / divisor > 1) ON VIOLATION DROP ROW
	) WITH (quarantine = silver_quarantine) AS SELECT * FROM STREAM bronze`)

	// Several micro-batches of random sizes.
	vals := make([]string, len(rows))
	for i, q := range rows {
		vals[i] = q.values()
	}
	for off := 0; off < len(vals); {
		n := min(len(vals)-off, 1+r.Intn(400))
		sdExec(t, w, "weir", "INSERT INTO bronze VALUES "+strings.Join(vals[off:off+n], ", "))
		off += n
		waitConsumed(t, w, []string{"silver"}, int64(off), 20*time.Second)
	}
	sdInsert(t, p, "PostgreSQL", "bronze", vals)

	// PostgreSQL's answer: ratio's division by zero counts as a failure.
	const ratioOK = "(CASE WHEN divisor = 0 THEN false ELSE 100 / divisor > 1 END)"
	const keep = "(amount > 0) IS NOT FALSE AND " + ratioOK + " IS NOT FALSE"
	cols := "event_id, amount, divisor, event_type"
	compare := func(what, weirSQL, pgSQL string) {
		t.Helper()
		got, want := sdRows(t, w, "weir", weirSQL), sdRows(t, p, "PostgreSQL", pgSQL)
		if d, n := diffSorted(want, got, 15); n > 0 {
			t.Errorf("seed %d: %s: %d rows differ (- PostgreSQL, + weir):%s", seed, what, n, d)
		}
	}
	compare("silver", "SELECT "+cols+" FROM silver", "SELECT "+cols+" FROM bronze WHERE "+keep)
	compare("quarantine", "SELECT "+cols+", failed_expectations FROM silver_quarantine",
		"SELECT "+cols+", array_remove(ARRAY[CASE WHEN event_id IS NULL THEN 'has_id' END, CASE WHEN amount <= 0 THEN 'pos_amount' END, CASE WHEN NOT "+ratioOK+" THEN 'ratio' END], NULL) FROM bronze WHERE NOT ("+keep+")")
	compare("counts", "SELECT expectation, passed, failed FROM weir_catalog.expectations WHERE table_name = 'silver'",
		`SELECT 'has_id', count(*) FILTER (WHERE event_id IS NOT NULL), count(*) FILTER (WHERE event_id IS NULL) FROM bronze
		 UNION ALL SELECT 'pos_amount', count(*) FILTER (WHERE (amount > 0) IS NOT FALSE), count(*) FILTER (WHERE amount <= 0) FROM bronze
		 UNION ALL SELECT 'ratio', count(*) FILTER (WHERE `+ratioOK+`), count(*) FILTER (WHERE NOT `+ratioOK+`) FROM bronze`)

	// The counts are the bad rows put in.
	want := map[string][2]int64{"has_id": {int64(len(rows) - noID), int64(noID)}, "pos_amount": {int64(len(rows) - badAmount), int64(badAmount)},
		"ratio": {int64(len(rows) - badRatio), int64(badRatio)}}
	got := expectationTotals(t, w, "silver")
	if !mapsEqual(got, want) {
		t.Fatalf("seed %d: weir_catalog.expectations %v, the rows put in give %v", seed, got, want)
	}

	// The event log's per-epoch counts add up to the totals, one event per
	// epoch with rows.
	evs, err := eventlog.Read(srv.eng.Store(), func(e *eventlog.Event) bool { return e.Kind == eventlog.KindExpectations })
	if err != nil {
		t.Fatal(err)
	}
	sum := map[string][2]int64{}
	epochs := map[int64]bool{}
	for _, ev := range evs {
		if epochs[ev.Epoch] {
			t.Errorf("two expectations events of epoch %d", ev.Epoch)
		}
		epochs[ev.Epoch] = true
		var d struct {
			DataQuality struct {
				Expectations []struct {
					Name   string `json:"name"`
					Passed int64  `json:"passed_records"`
					Failed int64  `json:"failed_records"`
				} `json:"expectations"`
			} `json:"data_quality"`
		}
		if err := json.Unmarshal([]byte(ev.Details), &d); err != nil {
			t.Fatalf("event details %q: %v", ev.Details, err)
		}
		for _, x := range d.DataQuality.Expectations {
			s := sum[x.Name]
			sum[x.Name] = [2]int64{s[0] + x.Passed, s[1] + x.Failed}
		}
	}
	if !mapsEqual(sum, want) {
		t.Errorf("seed %d: the event log's expectations events add up to %v, want %v", seed, sum, want)
	}

	// Monitor (metrics, live page) reads the same counts.
	mon := map[string][2]int64{}
	for _, tb := range srv.eng.Monitor().Tables {
		if tb.Name == "public.silver" {
			for _, x := range tb.Expectations {
				mon[x.Name] = [2]int64{x.Passed, x.Failed}
			}
		}
	}
	if !mapsEqual(mon, want) {
		t.Errorf("seed %d: Monitor's expectations %v, want %v", seed, mon, want)
	}
}

// expectationTotals reads weir_catalog.expectations for table.
func expectationTotals(t *testing.T, c *pgx.Conn, table string) map[string][2]int64 {
	t.Helper()
	rs, err := c.Query(t.Context(), "SELECT expectation, passed, failed FROM weir_catalog.expectations WHERE table_name = $1", table)
	if err != nil {
		t.Fatal(err)
	}
	out := map[string][2]int64{}
	for rs.Next() {
		var name string
		var passed, failed int64
		if err := rs.Scan(&name, &passed, &failed); err != nil {
			t.Fatal(err)
		}
		out[name] = [2]int64{passed, failed}
	}
	if err := rs.Err(); err != nil {
		t.Fatal(err)
	}
	return out
}

func mapsEqual(a, b map[string][2]int64) bool {
	if len(a) != len(b) {
		return false
	}
	for k, v := range a {
		if b[k] != v {
			return false
		}
	}
	return true
}
