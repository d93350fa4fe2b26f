package engine_test

import (
	"testing"
	"time"
)

// TestStreamingNowPerEpoch: now() and current_timestamp in a streaming
// table are the micro-batch's processing time, as in Spark (they were the
// job's start, so processing-time conditions never moved), and a restart
// that re-runs logged epochs gives them the times they had.
func TestStreamingNowPerEpoch(t *testing.T) {
	dir := t.TempDir()
	srv := startServer(t, dir)
	c := srv.connect(t)
	sdExec(t, c, "weir", "SET TimeZone = 'UTC'")
	sdExec(t, c, "weir", "CREATE TABLE ev (id bigint)")
	sdExec(t, c, "weir", "CREATE STREAMING TABLE stamped AS SELECT id, now() AS t, current_timestamp AS ct FROM ev")
	sdExec(t, c, "weir", "CREATE STREAMING TABLE latest AS SELECT count(*) AS n, max(now()) AS last FROM ev")
	created := time.Now()
	names := []string{"stamped", "latest"}
	sdExec(t, c, "weir", "INSERT INTO ev VALUES (1)")
	waitConsumed(t, c, names, 1, 10*time.Second)
	sdExec(t, c, "weir", "INSERT INTO ev VALUES (2)")
	waitConsumed(t, c, names, 2, 10*time.Second)
	rows := sdRows(t, c, "weir", "SELECT id, t = ct, t > '"+created.Add(-time.Second).UTC().Format(time.RFC3339Nano)+"' FROM stamped")
	if len(rows) != 2 || rows[0] != `"1" | "t" | "t"` || rows[1] != `"2" | "t" | "t"` {
		t.Fatalf("stamped: %v", rows)
	}
	if d := sdRows(t, c, "weir", "SELECT (SELECT t FROM stamped WHERE id = 2) > (SELECT t FROM stamped WHERE id = 1)"); len(d) != 1 || d[0] != `"t"` {
		t.Fatalf("the second micro-batch's now() is not later than the first's: %v", d)
	}
	// Each streaming table runs its own micro-batches: latest's time is
	// its own epoch's, after the first row's.
	before := sdRows(t, c, "weir", "SELECT n, last FROM latest")
	if ok := sdRows(t, c, "weir", "SELECT last > (SELECT t FROM stamped WHERE id = 1) FROM latest"); len(before) != 1 || len(ok) != 1 || ok[0] != `"t"` {
		t.Fatalf("latest = %v (later than the first row's micro-batch: %v)", before, ok)
	}
	// A restart rebuilds latest by re-running its epochs: with their times.
	c.Close(t.Context())
	srv.stop()
	srv = startServer(t, dir)
	c = srv.connect(t)
	sdExec(t, c, "weir", "SET TimeZone = 'UTC'")
	waitConsumed(t, c, names, 2, 10*time.Second)
	end := time.Now().Add(10 * time.Second)
	for {
		after := sdRows(t, c, "weir", "SELECT n, last FROM latest")
		if len(after) == 1 && after[0] == before[0] {
			break
		}
		if time.Now().After(end) {
			t.Fatalf("after a restart latest = %v, before it %v", after, before)
		}
		time.Sleep(5 * time.Millisecond) // polling with a deadline
	}
}
