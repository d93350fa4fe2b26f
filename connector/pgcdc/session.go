package pgcdc

import (
	"context"
	"time"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/jackc/pglogrepl"
	"github.com/jackc/pgx/v5/pgconn"
	"github.com/jackc/pgx/v5/pgproto3"

	"github.com/weir-sql/weir/sql/sqlerr"
)

// snapshotBatchRows is the rows of one chunk of the initial snapshot.
const snapshotBatchRows = 8192

// snapshotFlushBytes is how much of the snapshot is held before it is
// written out as a part of its commit.
const snapshotFlushBytes = 64 << 20

// flushLinger is how long the stream may pause before the transactions
// received are logged: transactions arriving back to back share one
// commit (one fsync) of weir's store.
const flushLinger = 2 * time.Millisecond

// session is one replication connection: the snapshot first when the log
// has none, then the stream from the end of the log, until an error.
func (r *Replicator) session(ctx context.Context) error {
	p, err := r.loadProgress()
	if err != nil {
		return err
	}
	rc, err := connect(ctx, r.o, true)
	if err != nil {
		return err
	}
	defer rc.Close(context.Background())
	if !p.snapshotted {
		if p, err = r.snapshot(ctx, rc); err != nil {
			return err
		}
	}
	r.update(func(s *Status) { s.Snapshotted = true; s.LoggedLSN = p.end })
	d := newDecoder(r, p.end)
	if err := d.loadImages(); err != nil {
		return err
	}
	args := []string{"proto_version '1'", "publication_names " + quoteLiteral(r.o.Publication)}
	if err := pglogrepl.StartReplication(ctx, rc, r.o.Slot, pglogrepl.LSN(p.end), pglogrepl.StartReplicationOptions{Mode: pglogrepl.LogicalReplication, PluginArgs: args}); err != nil {
		return pgError(err, r.o)
	}
	r.update(func(s *Status) { s.Streaming = true; s.LastError = "" })
	r.event("info", "postgres-cdc source streaming from slot %s at LSN %s", r.o.Slot, pglogrepl.LSN(p.end))
	return d.stream(ctx, rc)
}

// snapshot creates the slot with an exported snapshot and logs the table
// as read in it, with the progress, in one commit: a crash before that
// commit leaves no rows, and the next session starts over (dropping the
// slot it created, whose snapshot is gone).
func (r *Replicator) snapshot(ctx context.Context, rc *pgconn.PgConn) (progress, error) {
	c, err := connect(ctx, r.o, false)
	if err != nil {
		return progress{}, err
	}
	defer c.Close(context.Background())
	if err := ensurePublication(ctx, c, r.o); err != nil {
		return progress{}, err
	}
	if _, err := query(ctx, c, "SELECT pg_drop_replication_slot(slot_name) FROM pg_replication_slots WHERE slot_name = "+quoteLiteral(r.o.Slot), r.o); err != nil {
		return progress{}, err
	}
	res, err := pglogrepl.CreateReplicationSlot(ctx, rc, r.o.Slot, "pgoutput", pglogrepl.CreateReplicationSlotOptions{Mode: pglogrepl.LogicalReplication, SnapshotAction: "EXPORT_SNAPSHOT"})
	if err != nil {
		return progress{}, pgError(err, r.o)
	}
	start, err := pglogrepl.ParseLSN(res.ConsistentPoint)
	if err != nil {
		return progress{}, sqlerr.New(sqlerr.ProtocolViolation, "postgres-cdc: bad consistent point %q", res.ConsistentPoint)
	}
	if _, err := query(ctx, c, "BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY; SET TRANSACTION SNAPSHOT "+quoteLiteral(res.SnapshotName), r.o); err != nil {
		return progress{}, err
	}
	sel := "SELECT "
	for i, col := range r.cols {
		if i > 0 {
			sel += ", "
		}
		sel += quoteIdent(col.Name)
	}
	sel += " FROM " + r.o.qualified()
	// The snapshot goes into one transaction of weir's store, flushed
	// in parts as it grows (invisible until its commit), so a large table
	// is not held in memory.
	tx := r.store.Begin(true)
	defer tx.Discard()
	rb := newRowBuilder(r.cols)
	appendBatch := func() error {
		b := rb.flush()
		if b == nil {
			return nil
		}
		defer b.Release()
		if err := tx.AppendChunks(r.rel, []arrow.RecordBatch{b}); err != nil {
			return err
		}
		if tx.PendingChunkBytes() > snapshotFlushBytes {
			return tx.FlushChunks()
		}
		return nil
	}
	rr := c.ExecParams(ctx, sel, nil, nil, nil, nil)
	var rows int64
	for rr.NextRow() {
		if err := rb.add(OpRead, int64(start), rr.Values()); err != nil {
			rr.Close()
			return progress{}, err
		}
		rows++
		if rb.rows == snapshotBatchRows {
			if err := appendBatch(); err != nil {
				rr.Close()
				return progress{}, err
			}
		}
	}
	if _, err := rr.Close(); err != nil {
		return progress{}, pgError(err, r.o)
	}
	if err := appendBatch(); err != nil {
		return progress{}, err
	}
	query(ctx, c, "COMMIT", r.o)
	p := progress{snapshotted: true, end: uint64(start)}
	if err := setProgress(tx, r.rel, p); err != nil {
		return progress{}, err
	}
	if err := tx.Commit(); err != nil {
		return progress{}, err
	}
	r.update(func(s *Status) { s.Changes += rows })
	r.event("info", "postgres-cdc source read the initial snapshot of %s.%s: %d rows, consistent at LSN %s", r.o.Schema, r.o.Table, rows, start)
	if r.OnCommit != nil {
		r.OnCommit()
	}
	return p, nil
}

// stream receives the replication stream until an error: keepalives
// answered, a status update on every StatusInterval, each transaction
// logged at its commit.
func (d *decoder) stream(ctx context.Context, rc *pgconn.PgConn) error {
	interval := d.r.StatusInterval
	if interval <= 0 {
		interval = time.Second
	}
	next := time.Now().Add(interval)
	for {
		if !time.Now().Before(next) {
			if err := d.sendStatus(ctx, rc); err != nil {
				return err
			}
			next = time.Now().Add(interval)
		}
		deadline := next
		if len(d.pending) > 0 {
			deadline = time.Now().Add(flushLinger)
		}
		mctx, cancel := context.WithDeadline(ctx, deadline)
		msg, err := rc.ReceiveMessage(mctx)
		cancel()
		if err != nil {
			if ctx.Err() != nil {
				return ctx.Err()
			}
			if pgconn.Timeout(err) {
				// The stream paused: log what is pending.
				if err := d.flush(); err != nil {
					return err
				}
				continue
			}
			return pgError(err, d.r.o)
		}
		switch m := msg.(type) {
		case *pgproto3.ErrorResponse:
			return pgError(pgconn.ErrorResponseToPgError(m), d.r.o)
		case *pgproto3.CopyData:
			if len(m.Data) == 0 {
				continue
			}
			switch m.Data[0] {
			case pglogrepl.PrimaryKeepaliveMessageByteID:
				k, err := pglogrepl.ParsePrimaryKeepaliveMessage(m.Data[1:])
				if err != nil {
					return sqlerr.New(sqlerr.ProtocolViolation, "postgres-cdc: %v", err)
				}
				d.serverEnd(uint64(k.ServerWALEnd))
				// Everything sent before the keepalive is received: with
				// no transaction open, nothing of ours lies before its
				// WAL end that is not logged.
				if !d.inTxn && len(d.pending) == 0 {
					d.ackable = max(d.ackable, uint64(k.ServerWALEnd))
				}
				if k.ReplyRequested {
					if err := d.sendStatus(ctx, rc); err != nil {
						return err
					}
					next = time.Now().Add(interval)
				}
			case pglogrepl.XLogDataByteID:
				x, err := pglogrepl.ParseXLogData(m.Data[1:])
				if err != nil {
					return sqlerr.New(sqlerr.ProtocolViolation, "postgres-cdc: %v", err)
				}
				d.serverEnd(uint64(x.ServerWALEnd))
				if err := d.handle(x.WALData); err != nil {
					return err
				}
			}
		}
	}
}

func (d *decoder) serverEnd(lsn uint64) {
	d.r.update(func(s *Status) { s.ServerLSN = max(s.ServerLSN, lsn) })
}

// sendStatus confirms d.ackable to PostgreSQL: never 0 (nothing to say
// yet), never beyond weir's log.
func (d *decoder) sendStatus(ctx context.Context, rc *pgconn.PgConn) error {
	if d.ackable == 0 {
		return nil
	}
	lsn := pglogrepl.LSN(d.ackable)
	if err := pglogrepl.SendStandbyStatusUpdate(ctx, rc, pglogrepl.StandbyStatusUpdate{WALWritePosition: lsn, WALFlushPosition: lsn, WALApplyPosition: lsn}); err != nil {
		return pgError(err, d.r.o)
	}
	d.r.update(func(s *Status) { s.Confirmed = d.ackable })
	return nil
}
