package engine_test

import (
	"context"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/weir-sql/weir/internal/pgtest"
)

// weirAndOracle starts a weir server and connects to it and to a fresh
// database of the shared PostgreSQL 15, both closed with the test.
func weirAndOracle(t *testing.T) (w, pg *pgx.Conn) {
	t.Helper()
	pgConn, err := pgx.Connect(context.Background(), pgtest.Shared(t).FreshDatabase(t))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { pgConn.Close(context.Background()) })
	srv := startServer(t, t.TempDir())
	return srv.connect(t), pgConn
}

// waitEqualOracle waits until weir's rows of weirQ equal PostgreSQL's of
// oracleQ (as sorted text rows), failing with the difference after 20 s:
// streaming tables catch up asynchronously.
func waitEqualOracle(t *testing.T, what string, w, pg *pgx.Conn, weirQ, oracleQ string) {
	t.Helper()
	want := sdRows(t, pg, "PostgreSQL", oracleQ)
	deadline := time.Now().Add(20 * time.Second)
	for {
		got := sdRows(t, w, "weir", weirQ)
		d, m := diffSorted(want, got, 15)
		if m == 0 {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("%s: %d rows differ (oracle %d, weir %d; - only in oracle, + only in weir):%s", what, m, len(want), len(got), d)
		}
		time.Sleep(20 * time.Millisecond) // polling for a condition, with the deadline above
	}
}
