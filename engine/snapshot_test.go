package engine_test

import (
	"context"
	"testing"
	"time"

	"github.com/weir-sql/weir/engine"
	"github.com/weir-sql/weir/state"
)

// TestSnapshotReplacedAndDropped checks the life of a streaming table's
// state snapshot in the store: each new snapshot replaces the previous one
// (its chunks do not pile up epoch after epoch), and DROP deletes it.
func TestSnapshotReplacedAndDropped(t *testing.T) {
	srv := startServerWith(t, engine.Config{DataDir: t.TempDir(), SnapshotRows: 1})
	c := srv.connect(t)
	ctx := context.Background()
	for _, q := range []string{
		"CREATE TABLE ev (k int, v int)",
		"CREATE STREAMING TABLE st AS SELECT k, count(*) AS n, sum(v) AS s FROM ev GROUP BY k",
	} {
		if _, err := c.Exec(ctx, q); err != nil {
			t.Fatalf("%s: %v", q, err)
		}
	}
	rel, err := srv.eng.Catalog().LookupRelation(nil, "public", "st")
	if err != nil {
		t.Fatal(err)
	}
	snapRel := state.StateRelation(rel.OID)
	var counts []int
	for i := 1; i <= 5; i++ {
		if _, err := c.Exec(ctx, "INSERT INTO ev SELECT g % 7, g FROM generate_series(1, 100) g"); err != nil {
			t.Fatal(err)
		}
		waitConsumed(t, c, []string{"st"}, int64(100*i), 10*time.Second)
		n, err := srv.eng.Store().ChunkCount(snapRel)
		if err != nil {
			t.Fatal(err)
		}
		counts = append(counts, n)
	}
	// One batch of the window's keys and accumulators, one of the table's
	// rows: every snapshot has the same shape here.
	for i, n := range counts {
		if n == 0 || n != counts[0] {
			t.Fatalf("snapshot chunks after each of 5 epochs: %v; want the same non-zero count (snapshot %d)", counts, i+1)
		}
	}
	if _, err := c.Exec(ctx, "DROP STREAMING TABLE st"); err != nil {
		t.Fatal(err)
	}
	if n, err := srv.eng.Store().ChunkCount(snapRel); err != nil || n != 0 {
		t.Fatalf("after DROP the snapshot has %d chunks (%v)", n, err)
	}
}
