package pgcdc

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/jackc/pglogrepl"
	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
	"github.com/jackc/pgx/v5/pgproto3"
)

// BenchmarkCDC measures change rows per second from PostgreSQL into
// weir's log (the Replicator: decode, Arrow batches, a durable commit per
// transaction) next to a baseline in the same run: a raw pglogrepl loop
// on a second slot made at the same point, which receives and parses the
// same pgoutput stream and keeps nothing. Run with -benchtime=1x.
//
//	go test ./connector/pgcdc -run '^$' -bench CDC -benchtime=1x
func BenchmarkCDC(b *testing.B) {
	const txns, perTxn = 50, 4000
	srv := logicalServer(b)
	ctx := context.Background()
	for i := 0; i < b.N; i++ {
		b.StopTimer()
		url := srv.FreshDatabase(b)
		pg, err := pgx.Connect(ctx, url)
		if err != nil {
			b.Fatal(err)
		}
		db := pg.Config().Database
		pg.Exec(ctx, `CREATE TABLE ev (id bigint PRIMARY KEY, kind text, amount numeric(12,2), at timestamptz)`)
		o, _ := ParseOptions(map[string]string{"port": fmt.Sprint(srv.Port), "database.name": db, "table.name": "ev", "slot.name": "bench_" + db})
		cols, err := Prepare(ctx, o)
		if err != nil {
			b.Fatal(err)
		}
		// Both slots exist before the changes: each reads all of them.
		st := openStore(b, b.TempDir())
		r := NewReplicator(st, 9001, o, cols)
		r.Start()
		for !r.Status().Streaming {
			time.Sleep(5 * time.Millisecond)
		}
		r.Close()
		raw, err := connect(ctx, o, true)
		if err != nil {
			b.Fatal(err)
		}
		rawSlot := "raw_" + db
		res, err := pglogrepl.CreateReplicationSlot(ctx, raw, rawSlot, "pgoutput", pglogrepl.CreateReplicationSlotOptions{Mode: pglogrepl.LogicalReplication, SnapshotAction: "NOEXPORT_SNAPSHOT"})
		if err != nil {
			b.Fatal(err)
		}
		for t := 0; t < txns; t++ {
			if _, err := pg.Exec(ctx, fmt.Sprintf(`INSERT INTO ev SELECT g, 'k' || (g %% 7), g * 0.5, now() FROM generate_series(%d, %d) g`, t*perTxn, (t+1)*perTxn-1)); err != nil {
				b.Fatal(err)
			}
		}
		var end string
		pg.QueryRow(ctx, `SELECT pg_current_wal_insert_lsn()::text`).Scan(&end)
		endLSN, _ := pglogrepl.ParseLSN(end)

		// Baseline: the raw loop.
		b.StartTimer()
		began := time.Now()
		start, _ := pglogrepl.ParseLSN(res.ConsistentPoint)
		if err := pglogrepl.StartReplication(ctx, raw, rawSlot, start, pglogrepl.StartReplicationOptions{Mode: pglogrepl.LogicalReplication,
			PluginArgs: []string{"proto_version '1'", "publication_names " + quoteLiteral(o.Publication)}}); err != nil {
			b.Fatal(err)
		}
		rows := rawLoop(b, raw, txns)
		rawSecs := time.Since(began).Seconds()
		raw.Close(ctx)

		// weir: the replicator, from its slot's start.
		began = time.Now()
		r = NewReplicator(st, 9001, o, cols)
		r.Start()
		for {
			s := r.Status()
			if s.LoggedLSN >= uint64(endLSN)-1024 && s.Changes >= int64(txns*perTxn) {
				break
			}
			time.Sleep(time.Millisecond)
		}
		weirSecs := time.Since(began).Seconds()
		b.StopTimer()
		r.Close()
		st.Close()
		pg.Exec(ctx, `SELECT pg_drop_replication_slot(slot_name) FROM pg_replication_slots WHERE slot_name IN ('`+rawSlot+`', '`+o.Slot+`')`)
		pg.Close(ctx)
		if rows != txns*perTxn {
			b.Fatalf("raw loop saw %d rows", rows)
		}
		b.ReportMetric(float64(txns*perTxn)/weirSecs, "weir-changes/s")
		b.ReportMetric(float64(rows)/rawSecs, "raw-pglogrepl-changes/s")
	}
}

// rawLoop receives and parses the stream until n commits, counting
// inserts: the least a pgoutput consumer does.
func rawLoop(b *testing.B, c *pgconn.PgConn, n int) int {
	ctx := context.Background()
	rows, commits := 0, 0
	for commits < n {
		msg, err := c.ReceiveMessage(ctx)
		if err != nil {
			b.Fatal(err)
		}
		cd, ok := msg.(*pgproto3.CopyData)
		if !ok || len(cd.Data) == 0 || cd.Data[0] != pglogrepl.XLogDataByteID {
			continue
		}
		x, err := pglogrepl.ParseXLogData(cd.Data[1:])
		if err != nil {
			b.Fatal(err)
		}
		m, err := pglogrepl.Parse(x.WALData)
		if err != nil {
			b.Fatal(err)
		}
		switch m.(type) {
		case *pglogrepl.InsertMessage:
			rows++
		case *pglogrepl.CommitMessage:
			commits++
		}
	}
	return rows
}
