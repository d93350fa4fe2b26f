package engine_test

import (
	"context"
	"encoding/binary"
	"slices"
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

// TestUnreadableSnapshotFormatIsIgnored: a snapshot record of another
// format (an older or newer weir) is not loaded; the table recovers by
// re-running its epochs and comes back equal.
func TestUnreadableSnapshotFormatIsIgnored(t *testing.T) {
	dir := t.TempDir()
	cfg := engine.Config{DataDir: dir, SnapshotRows: 1}
	srv := startServerWith(t, cfg)
	c := srv.connect(t)
	ctx := context.Background()
	for _, q := range []string{
		"CREATE TABLE ev (k int, v int)",
		"CREATE STREAMING TABLE st AS SELECT k, count(*) AS n, sum(v) AS s FROM ev GROUP BY k",
		"INSERT INTO ev SELECT g % 7, g FROM generate_series(1, 100) g",
	} {
		if _, err := c.Exec(ctx, q); err != nil {
			t.Fatalf("%s: %v", q, err)
		}
	}
	waitConsumed(t, c, []string{"st"}, 100, 10*time.Second)
	want := sdRows(t, c, "weir", "SELECT * FROM st ORDER BY k")
	rel, err := srv.eng.Catalog().LookupRelation(nil, "public", "st")
	if err != nil {
		t.Fatal(err)
	}
	c.Close(ctx)
	srv.stop()

	// Rewrite the snapshot record as a format this weir does not know.
	st, err := state.Open(dir, state.Options{})
	if err != nil {
		t.Fatal(err)
	}
	key := binary.BigEndian.AppendUint32([]byte(state.PrefixEpoch), rel.OID)
	key = append(key, ".snap"...)
	tx := st.Begin(true)
	v, err := tx.Get(key)
	if err != nil || len(v) != 12 {
		t.Fatalf("snapshot record %x (%v), want epoch and format", v, err)
	}
	binary.BigEndian.PutUint32(v[8:], 999)
	if err := tx.Set(key, v); err != nil {
		t.Fatal(err)
	}
	if err := tx.Commit(); err != nil {
		t.Fatal(err)
	}
	st.Close()

	srv = startServerWith(t, cfg)
	c = srv.connect(t)
	waitConsumed(t, c, []string{"st"}, 100, 10*time.Second)
	if got := sdRows(t, c, "weir", "SELECT * FROM st ORDER BY k"); !slices.Equal(got, want) {
		t.Fatalf("after ignoring the snapshot st is %v, want %v", got, want)
	}
	var status string
	if err := c.QueryRow(ctx, "SELECT status FROM weir_catalog.streaming_progress WHERE name = 'st'").Scan(&status); err != nil || status != "running" {
		t.Fatalf("status %q (%v)", status, err)
	}
}
