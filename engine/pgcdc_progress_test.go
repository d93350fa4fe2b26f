package engine_test

import (
	"context"
	"fmt"
	"testing"

	"github.com/weir-sql/weir/engine"
)

// streaming_progress.replication_slot_lag_bytes: a table reading a
// postgres-cdc source shows its slot's lag, the monitor's (and /metrics')
// figure for the source, within the WAL PostgreSQL holds for the slot;
// a table over other inputs shows NULL.
func TestPgCDCSlotLagInProgress(t *testing.T) {
	pg, shop := startLogicalPG(t)
	srv := startServerWith(t, engine.Config{DataDir: t.TempDir()})
	defer srv.stop()
	w := srv.connect(t)
	ctx := context.Background()
	execAll(t, w,
		fmt.Sprintf(`CREATE SOURCE shop WITH (connector = 'postgres-cdc', hostname = '127.0.0.1', port = %d,
		  username = 'postgres', database.name = 'shop', table.name = 'public.customers', slot.name = 'weir_lag')`, pg.Port),
		`CREATE STREAMING TABLE customer_changes AS SELECT * FROM STREAM shop`,
		`CREATE TABLE ev (id bigint)`,
		`CREATE STREAMING TABLE ev_copy AS SELECT * FROM STREAM ev`)
	shopChanges(t, shop, 0)
	waitUntil(t, "the slot lag in streaming_progress", func() (bool, string) {
		var held int64
		if err := shop.QueryRow(ctx, `SELECT pg_wal_lsn_diff(pg_current_wal_lsn(), confirmed_flush_lsn)::bigint FROM pg_replication_slots WHERE slot_name = 'weir_lag'`).Scan(&held); err != nil {
			return false, err.Error()
		}
		var lag *int64
		if err := w.QueryRow(ctx, `SELECT replication_slot_lag_bytes FROM weir_catalog.streaming_progress WHERE name = 'customer_changes'`).Scan(&lag); err != nil {
			return false, err.Error()
		}
		monitor := int64(-1)
		for _, src := range srv.eng.Monitor().Sources {
			if src.Name == "public.shop" && src.HasSlotLag {
				monitor = src.SlotLagBytes
			}
		}
		return lag != nil && *lag == monitor && *lag >= 0 && *lag <= held+1<<20,
			fmt.Sprintf("progress %v, monitor %d, PostgreSQL holds %d", lag, monitor, held)
	})
	var other *int64
	if err := w.QueryRow(ctx, `SELECT replication_slot_lag_bytes FROM weir_catalog.streaming_progress WHERE name = 'ev_copy'`).Scan(&other); err != nil {
		t.Fatal(err)
	}
	if other != nil {
		t.Fatalf("ev_copy reads no CDC source, and its replication_slot_lag_bytes is %d", *other)
	}
}
