package iceberg

import (
	"context"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"testing"
	"time"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"
	ice "github.com/apache/iceberg-go"
	"github.com/apache/iceberg-go/catalog/hadoop"

	"github.com/weir-sql/weir/connector"
	"github.com/weir-sql/weir/connector/sinktest"
	"github.com/weir-sql/weir/sql/sqlerr"
	"github.com/weir-sql/weir/sql/types"
	"github.com/weir-sql/weir/state"
)

func openStore(t testing.TB) *state.Store {
	t.Helper()
	st, err := state.Open(t.TempDir(), state.Options{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	return st
}

// bigintConfig is a sink of one bigint column n, as sinktest writes.
func bigintConfig(warehouse string) Config {
	return Config{
		Options:  Options{Warehouse: warehouse, Namespace: []string{"bronze"}, Table: "events"},
		Identity: "events#16384",
		Columns:  []Column{{Name: "n", Type: types.Int8}},
	}
}

func mustOpen(t *testing.T, cfg Config) *Sink {
	t.Helper()
	s, err := Open(cfg)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

func TestConformance(t *testing.T) {
	sinktest.Run(t, func(t *testing.T) sinktest.Fixture {
		cfg := bigintConfig(t.TempDir())
		return sinktest.Fixture{
			Sink:   mustOpen(t, cfg),
			Store:  openStore(t),
			Reopen: func() connector.Sink { return mustOpen(t, cfg) },
		}
	})
}

func int64s(vals ...int64) []arrow.RecordBatch {
	b := array.NewInt64Builder(memory.DefaultAllocator)
	defer b.Release()
	b.AppendValues(vals, nil)
	return []arrow.RecordBatch{array.NewRecordBatch(sinktest.Schema, []arrow.Array{b.NewArray()}, int64(len(vals)))}
}

// readBack scans the Iceberg table as another process would: a new
// catalog over the warehouse, the table loaded from its files.
func readBack(t *testing.T, cfg Config) (rows []int64, epochs []string) {
	t.Helper()
	ctx := context.Background()
	cat, err := hadoop.NewCatalog("reader", cfg.Warehouse, ice.Properties{})
	if err != nil {
		t.Fatal(err)
	}
	tbl, err := cat.LoadTable(ctx, append(append([]string{}, cfg.Namespace...), cfg.Table))
	if err != nil {
		t.Fatal(err)
	}
	for _, s := range tbl.Metadata().Snapshots() {
		epochs = append(epochs, s.Summary.Properties[SummaryEpoch])
	}
	at, err := tbl.Scan().ToArrowTable(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer at.Release()
	for _, chunk := range at.Column(0).Data().Chunks() {
		rows = append(rows, chunk.(*array.Int64).Int64Values()...)
	}
	slices.Sort(rows)
	return rows, epochs
}

func TestEpochsReadBack(t *testing.T) {
	st := openStore(t)
	cfg := bigintConfig(t.TempDir())
	s := mustOpen(t, cfg)
	for epoch, vals := range [][]int64{{1, 2}, {3}, {}, {4, 5, 6}} {
		if err := connector.WriteEpoch(st, s, int64(epoch+1), int64s(vals...)); err != nil {
			t.Fatal(err)
		}
	}
	rows, epochs := readBack(t, cfg)
	if want := []int64{1, 2, 3, 4, 5, 6}; !slices.Equal(rows, want) {
		t.Errorf("rows = %v, want %v", rows, want)
	}
	if want := []string{"1", "2", "3", "4"}; !slices.Equal(epochs, want) {
		t.Errorf("snapshot epochs = %v, want %v", epochs, want)
	}
	if snap := s.Table().CurrentSnapshot(); snap.Summary.Properties[SummaryTable] != cfg.Identity {
		t.Errorf("summary %v lacks the identity %q", snap.Summary.Properties, cfg.Identity)
	}
}

// The crash between the epoch's store commit and its snapshot: the store
// holds epoch 2, the table only epoch 1. Reopened, the sink reports 1, so
// recovery writes epoch 2 again, and its rows are in the table once.
func TestCrashBeforeSnapshot(t *testing.T) {
	st := openStore(t)
	cfg := bigintConfig(t.TempDir())
	s := mustOpen(t, cfg)
	if err := connector.WriteEpoch(st, s, 1, int64s(1)); err != nil {
		t.Fatal(err)
	}
	tx := st.Begin(true)
	if err := s.Write(tx, 2, int64s(2, 3)); err != nil {
		t.Fatal(err)
	}
	if err := tx.Commit(); err != nil {
		t.Fatal(err)
	}
	// The process dies here: Committed(2) is never called.
	orphans := dataFiles(t, cfg)
	if len(orphans) != 2 {
		t.Fatalf("data files before the crash: %v", orphans)
	}
	if rows, _ := readBack(t, cfg); !slices.Equal(rows, []int64{1}) {
		t.Errorf("before the snapshot a reader sees %v, want [1]", rows)
	}

	s = mustOpen(t, cfg)
	last, err := s.LastCommitted()
	if err != nil || last != 1 {
		t.Fatalf("after the crash LastCommitted = %d, %v; want 1", last, err)
	}
	// Recovery re-runs epoch 2 (the one after LastCommitted) and writes it.
	if err := connector.WriteEpoch(st, s, 2, int64s(2, 3)); err != nil {
		t.Fatal(err)
	}
	rows, epochs := readBack(t, cfg)
	if want := []int64{1, 2, 3}; !slices.Equal(rows, want) {
		t.Errorf("rows = %v, want %v", rows, want)
	}
	if want := []string{"1", "2"}; !slices.Equal(epochs, want) {
		t.Errorf("snapshot epochs = %v, want %v", epochs, want)
	}
	// A restart after that re-runs nothing more.
	if last, _ := mustOpen(t, cfg).LastCommitted(); last != 2 {
		t.Errorf("after the re-run LastCommitted = %d, want 2", last)
	}
	// Writing an epoch the table already holds changes nothing.
	if err := connector.WriteEpoch(st, s, 2, int64s(2, 3)); err != nil {
		t.Fatal(err)
	}
	if rows, _ := readBack(t, cfg); !slices.Equal(rows, []int64{1, 2, 3}) {
		t.Errorf("after writing epoch 2 twice rows = %v", rows)
	}
}

// dataFiles lists the Parquet files in the table's data folder.
func dataFiles(t *testing.T, cfg Config) []string {
	t.Helper()
	m, err := filepath.Glob(filepath.Join(append(append([]string{cfg.Warehouse}, cfg.Namespace...), cfg.Table, "data", "*.parquet")...))
	if err != nil {
		t.Fatal(err)
	}
	return m
}

// An epoch whose store transaction failed leaves no file behind once it is
// written again in the same process.
func TestDiscardedEpochFilesRemoved(t *testing.T) {
	st := openStore(t)
	cfg := bigintConfig(t.TempDir())
	s := mustOpen(t, cfg)
	tx := st.Begin(true)
	if err := s.Write(tx, 1, int64s(1)); err != nil {
		t.Fatal(err)
	}
	tx.Discard()
	if err := connector.WriteEpoch(st, s, 1, int64s(1)); err != nil {
		t.Fatal(err)
	}
	if files := dataFiles(t, cfg); len(files) != 1 {
		t.Errorf("data files = %v, want the re-run's one", files)
	}
}

// Two streaming tables appending to one Iceberg table each count their
// own epochs.
func TestIdentities(t *testing.T) {
	st := openStore(t)
	a := bigintConfig(t.TempDir())
	b := a
	b.Identity = "other#16390"
	sa, sb := mustOpen(t, a), mustOpen(t, b)
	for e := int64(1); e <= 3; e++ {
		if err := connector.WriteEpoch(st, sa, e, int64s(e)); err != nil {
			t.Fatal(err)
		}
	}
	if err := sb.reload(context.Background()); err != nil {
		t.Fatal(err)
	}
	if err := connector.WriteEpoch(st, sb, 1, int64s(100)); err != nil {
		t.Fatal(err)
	}
	if n, _ := mustOpen(t, a).LastCommitted(); n != 3 {
		t.Errorf("a's LastCommitted = %d, want 3", n)
	}
	if n, _ := mustOpen(t, b).LastCommitted(); n != 1 {
		t.Errorf("b's LastCommitted = %d, want 1", n)
	}
	if rows, _ := readBack(t, a); !slices.Equal(rows, []int64{1, 2, 3, 100}) {
		t.Errorf("rows = %v", rows)
	}
}

// A writer that died in the middle of a commit leaves its claim on the
// next metadata version; commits fail (58030: the table pauses and tries
// again) until the claim is stale, then the same epoch commits, once.
func TestCommitBlockedByStaleClaim(t *testing.T) {
	st := openStore(t)
	cfg := bigintConfig(t.TempDir())
	s := mustOpen(t, cfg)
	if err := connector.WriteEpoch(st, s, 1, int64s(1)); err != nil {
		t.Fatal(err)
	}
	meta := filepath.Join(cfg.Warehouse, "bronze", "events", "metadata")
	versions, _ := filepath.Glob(filepath.Join(meta, "v*.metadata.json"))
	claim := filepath.Join(meta, "v"+strconv.Itoa(len(versions)+1)+".metadata.json.claim")
	if err := os.WriteFile(claim, []byte("{}"), 0o644); err != nil {
		t.Fatal(err)
	}
	err := connector.WriteEpoch(st, s, 2, int64s(2))
	if sqlerr.Code(err) != sqlerr.IOError {
		t.Fatalf("commit over a fresh claim: %v (%s), want 58030", err, sqlerr.Code(err))
	}
	if n, err := s.LastCommitted(); n != 1 || err != nil {
		t.Fatalf("LastCommitted = %d, %v; want 1", n, err)
	}
	old := time.Now().Add(-2 * time.Minute)
	if err := os.Chtimes(claim, old, old); err != nil {
		t.Fatal(err)
	}
	// Committed again, as a retry of the same epoch's publication.
	if err := s.Committed(2); err != nil {
		t.Fatal(err)
	}
	if rows, epochs := readBack(t, cfg); !slices.Equal(rows, []int64{1, 2}) || !slices.Equal(epochs, []string{"1", "2"}) {
		t.Errorf("rows %v, snapshot epochs %v", rows, epochs)
	}
}
