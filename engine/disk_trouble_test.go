package engine_test

import (
	"context"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/weir-sql/weir/internal/failpoint"
)

// TestStreamingPausesOnStorageErrorAndResumes makes the store refuse one
// epoch write (as a full disk would): the streaming table pauses with
// last_error, readers keep its last committed contents, and it resumes by
// itself from its epoch log, ending exactly as without the failure.
func TestStreamingPausesOnStorageErrorAndResumes(t *testing.T) {
	failpoint.Arm("epoch-commit-error:2")
	defer failpoint.Arm("")
	srv := startServer(t, t.TempDir())
	conn := srv.connect(t)
	ctx := context.Background()
	for _, q := range []string{
		"CREATE TABLE t (k text, v int)",
		"CREATE STREAMING TABLE s AS SELECT k, count(*) AS n, sum(v) AS total FROM t GROUP BY k",
		"INSERT INTO t VALUES ('a', 1), ('b', 2)",
	} {
		if _, err := conn.Exec(ctx, q); err != nil {
			t.Fatalf("%s: %v", q, err)
		}
	}
	waitFor(t, conn, "SELECT count(*) = 2 FROM s")
	// The second epoch's log write fails.
	if _, err := conn.Exec(ctx, "INSERT INTO t VALUES ('a', 10)"); err != nil {
		t.Fatal(err)
	}
	waitFor(t, conn, "SELECT status = 'paused' AND last_error LIKE '%no space left on device%' FROM weir_catalog.streaming_progress WHERE name = 's'")
	// Readers still see the last committed epoch.
	var n int
	if err := conn.QueryRow(ctx, "SELECT n FROM s WHERE k = 'a'").Scan(&n); err != nil || n != 1 {
		t.Fatalf("while paused, a's count = %d (%v), want the committed 1", n, err)
	}
	// Space returns (the failpoint fired once): the table resumes.
	waitFor(t, conn, "SELECT status = 'running' FROM weir_catalog.streaming_progress WHERE name = 's'")
	waitFor(t, conn, "SELECT n = 2 AND total = 11 FROM s WHERE k = 'a'")
	waitFor(t, conn, "SELECT n = 1 AND total = 2 FROM s WHERE k = 'b'")
}

// waitFor polls a boolean query until it is true, with a deadline.
func waitFor(t *testing.T, conn *pgx.Conn, q string) {
	t.Helper()
	deadline := time.Now().Add(15 * time.Second)
	for {
		var ok bool
		err := conn.QueryRow(context.Background(), q).Scan(&ok)
		if err == nil && ok {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("condition not reached in 15s: %s (last error %v)", q, err)
		}
		time.Sleep(20 * time.Millisecond) // polling interval, with a deadline
	}
}
