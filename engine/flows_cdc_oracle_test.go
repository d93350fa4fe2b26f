package engine_test

// AUTO CDC against PostgreSQL 15: a random change feed, its changes out of
// sequence order and spread over many epochs, goes into weir's SCD type 1
// and type 2 targets and into a PostgreSQL table; after every batch the
// targets must equal what batch SQL computes from the feed so far:
//   - SCD1: the latest change per key (DISTINCT ON (k) ... ORDER BY k, seq
//     DESC), less the keys whose latest change is a delete;
//   - SCD2: every non-delete change that changes a column (or follows a
//     delete) from its sequence to the next such change's or delete's
//     (lag and lead OVER (PARTITION BY k ORDER BY seq)).

import (
	"fmt"
	"math/rand"
	"strings"
	"testing"

	"github.com/weir-sql/weir/internal/pgtest"
)

const (
	cdcOracleSCD1 = `SELECT k, v, n FROM (SELECT DISTINCT ON (k) k, v, n, op FROM feed ORDER BY k, seq DESC) x
		WHERE op <> 'D' ORDER BY k`
	// A change equal to the one before it on every column but the key
	// continues that version (Databricks coalesces no-op updates).
	cdcOracleSCD2 = `WITH c AS (SELECT k, v, n, op, seq, lag(seq) OVER w AS ps, lag(op) OVER w AS pop, lag(v) OVER w AS pv, lag(n) OVER w AS pn
		  FROM feed WINDOW w AS (PARTITION BY k ORDER BY seq)),
		opening AS (SELECT * FROM c WHERE op = 'D' OR ps IS NULL OR pop = 'D' OR v IS DISTINCT FROM pv OR n IS DISTINCT FROM pn)
		SELECT k, v, n, __start_at, __end_at FROM (SELECT k, v, n, op, seq AS __start_at,
		lead(seq) OVER (PARTITION BY k ORDER BY seq) AS __end_at FROM opening) x WHERE op <> 'D' ORDER BY k, __start_at`
)

func TestAutoCDCOracle(t *testing.T) {
	for _, order := range []string{"in order", "out of order"} {
		t.Run(strings.ReplaceAll(order, " ", "_"), func(t *testing.T) {
			pg := pgConnFresh(t, pgtest.Shared(t))
			srv := startServer(t, t.TempDir())
			c := srv.connect(t)
			feedDDL := "CREATE TABLE feed (k int, v text, n bigint, op text, seq bigint)"
			execAll(t, c, feedDDL,
				"CREATE OR REFRESH STREAMING TABLE scd1",
				"CREATE FLOW scd1_flow AS AUTO CDC INTO scd1 FROM STREAM(feed) KEYS (k) APPLY AS DELETE WHEN op = 'D' SEQUENCE BY seq COLUMNS * EXCEPT (op, seq) STORED AS SCD TYPE 1",
				"CREATE OR REFRESH STREAMING TABLE scd2",
				"CREATE FLOW scd2_flow AS AUTO CDC INTO scd2 FROM STREAM feed KEYS (k) APPLY AS DELETE WHEN op = 'D' SEQUENCE BY seq COLUMNS k, v, n STORED AS SCD TYPE 2")
			execAll(t, pg, feedDDL)

			rng := rand.New(rand.NewSource(14))
			const changes = 600
			seqs := rng.Perm(changes) // sequence numbers, unique
			if order == "in order" {
				for i := range seqs {
					seqs[i] = i
				}
			}
			for batch := 0; batch*40 < changes; batch++ {
				var vals []string
				for i := batch * 40; i < min(changes, (batch+1)*40); i++ {
					op := []string{"I", "U", "U", "D"}[rng.Intn(4)]
					v := fmt.Sprintf("'v%d'", rng.Intn(2))
					if rng.Intn(10) == 0 {
						v = "NULL"
					}
					vals = append(vals, fmt.Sprintf("(%d, %s, %d, '%s', %d)", rng.Intn(25), v, rng.Int63n(3), op, seqs[i]*3))
				}
				ins := "INSERT INTO feed VALUES " + strings.Join(vals, ", ")
				execAll(t, c, ins, "REFRESH STREAMING TABLE scd1", "REFRESH STREAMING TABLE scd2")
				execAll(t, pg, ins)
				if got, want := queryLines(t, c, "SELECT * FROM scd1 ORDER BY k"), queryLines(t, pg, cdcOracleSCD1); got != want {
					t.Fatalf("batch %d: SCD1 target:\n%s\nPostgreSQL:\n%s", batch, got, want)
				}
				if got, want := queryLines(t, c, "SELECT * FROM scd2 ORDER BY k, __start_at"), queryLines(t, pg, cdcOracleSCD2); got != want {
					t.Fatalf("batch %d: SCD2 target:\n%s\nPostgreSQL:\n%s", batch, got, want)
				}
			}
		})
	}
}

// SEQUENCE BY struct(ts, n), as Databricks' examples sequence by a
// timestamp and a tie-breaker: ordered field by field, as PostgreSQL
// orders ROW(ts, n); SCD2's __start_at and __end_at are of that type.
func TestAutoCDCStructSequence(t *testing.T) {
	pg := pgConnFresh(t, pgtest.Shared(t))
	srv := startServer(t, t.TempDir())
	c := srv.connect(t)
	feed := []string{"CREATE TABLE f (k int, v text, ts bigint, n int, op text)",
		"INSERT INTO f VALUES (1,'a',1,1,'U'), (1,'b',1,2,'U'), (1,'c',0,9,'U'), (2,'x',5,0,'U'), (2,'y',5,1,'D'), (3,'p',2,2,'U'), (3,'q',2,1,'U')"}
	execAll(t, c, feed...)
	execAll(t, pg, feed...)
	for _, scd := range []string{"1", "2"} {
		execAll(t, c, "CREATE OR REFRESH STREAMING TABLE t"+scd,
			"CREATE FLOW f"+scd+" AS AUTO CDC INTO t"+scd+" FROM STREAM(f) KEYS (k) APPLY AS DELETE WHEN op = 'D' SEQUENCE BY struct(ts, n) COLUMNS k, v STORED AS SCD TYPE "+scd,
			"REFRESH STREAMING TABLE t"+scd)
	}
	if got, want := queryLines(t, c, "SELECT * FROM t1 ORDER BY k"),
		queryLines(t, pg, "SELECT k, v FROM (SELECT DISTINCT ON (k) k, v, op FROM f ORDER BY k, ts DESC, n DESC) x WHERE op <> 'D' ORDER BY k"); got != want {
		t.Errorf("SCD1:\n%s\nPostgreSQL:\n%s", got, want)
	}
	if got, want := queryLines(t, c, "SELECT k, v, __start_at::text, __end_at::text FROM t2 ORDER BY k, v"),
		queryLines(t, pg, "SELECT k, v, s::text, e::text FROM (SELECT k, v, op, ROW(ts, n) AS s, lead(ROW(ts, n)) OVER (PARTITION BY k ORDER BY ts, n) AS e FROM f) x WHERE op <> 'D' ORDER BY k, v"); got != want {
		t.Errorf("SCD2:\n%s\nPostgreSQL:\n%s", got, want)
	}
}
