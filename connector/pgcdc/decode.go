package pgcdc

import (
	"encoding/binary"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/jackc/pglogrepl"

	"github.com/weir-sql/weir/sql/sqlerr"
	"github.com/weir-sql/weir/sql/types"
)

// decoder turns pgoutput messages into change rows, one transaction at a
// time, and logs each transaction at its commit.
type decoder struct {
	r  *Replicator
	rb *rowBuilder
	// logged is the end LSN of the last transaction in weir's log: a
	// transaction committing before it is already there (sent again after
	// a reconnect) and is skipped.
	logged uint64
	// ackable is the LSN that may be confirmed: logged, or later when
	// what lies between holds nothing of ours.
	ackable uint64

	rels  map[uint32]*relation // relation id -> how its columns map to ours
	inTxn bool
	skip  bool  // the open transaction is already logged
	lsn   int64 // the open transaction's commit LSN (each row's _lsn)
	rows  int64 // rows of the open transaction

	// pending are transactions received and not yet logged (commit).
	pending     []arrow.RecordBatch
	pendingRows int64
	pendingEnd  uint64

	// images is the last row image of each key (doc.go): what fills a
	// TOASTed value PostgreSQL did not send, and a DEFAULT identity
	// delete's other columns.
	images map[string][][]byte
	keyIdx []int // our columns that are the key
	vals   [][]byte
	old    [][]byte
	keyBuf []byte
}

// relation maps a relation message's columns to the source's.
type relation struct {
	ours bool
	to   []int // relation column i is our column to[i] (-1: not ours)
}

func newDecoder(r *Replicator, logged uint64) *decoder {
	d := &decoder{r: r, rb: newRowBuilder(r.cols), logged: logged, ackable: logged, rels: map[uint32]*relation{},
		images: map[string][][]byte{}, vals: make([][]byte, len(r.cols)), old: make([][]byte, len(r.cols))}
	for i, c := range r.cols {
		if c.Key {
			d.keyIdx = append(d.keyIdx, i)
		}
	}
	return d
}

// loadImages rebuilds the row images from weir's log (after a restart):
// every row in log order, the last image of each key kept.
func (d *decoder) loadImages() error {
	if len(d.keyIdx) == 0 {
		return nil
	}
	batches, err := d.r.store.ScanTable(d.r.rel, d.r.schema)
	if err != nil {
		return err
	}
	n := len(d.r.cols)
	for _, b := range batches {
		ops := b.Column(n)
		for row := 0; row < int(b.NumRows()); row++ {
			vals := make([][]byte, n)
			for i := 0; i < n; i++ {
				if b.Column(i).IsNull(row) {
					continue
				}
				vals[i] = types.AppendText(nil, d.r.cols[i].Type, b.Column(i), row, nil)
			}
			op := types.AppendText(nil, types.T{OID: types.OidText}, ops, row, nil)
			d.remember(op[0], vals)
		}
	}
	return nil
}

// key is the image key of vals (its key columns), in d.keyBuf.
func (d *decoder) key(vals [][]byte) string {
	d.keyBuf = d.keyBuf[:0]
	for _, i := range d.keyIdx {
		if vals[i] == nil {
			d.keyBuf = append(d.keyBuf, 0)
			continue
		}
		d.keyBuf = binary.AppendUvarint(append(d.keyBuf, 1), uint64(len(vals[i])))
		d.keyBuf = append(d.keyBuf, vals[i]...)
	}
	return string(d.keyBuf)
}

// remember updates the image of vals' key after a change op.
func (d *decoder) remember(op byte, vals [][]byte) {
	if len(d.keyIdx) == 0 {
		return
	}
	switch op {
	case OpDelete:
		delete(d.images, d.key(vals))
	case OpTruncate:
		clear(d.images)
	default:
		img := make([][]byte, len(vals))
		for i, v := range vals {
			if v != nil {
				img[i] = append([]byte(nil), v...)
			}
		}
		d.images[d.key(vals)] = img
	}
}

// tuple reads a tuple into dst (our columns), leaving TOASTed unchanged
// values as toast[i] = true; it reports whether any was.
func (d *decoder) tuple(rel *relation, t *pglogrepl.TupleData, dst [][]byte, toast []bool) bool {
	clear(dst)
	any := false
	if t == nil {
		return false
	}
	for i, c := range t.Columns {
		if i >= len(rel.to) || rel.to[i] < 0 {
			continue
		}
		j := rel.to[i]
		switch c.DataType {
		case pglogrepl.TupleDataTypeText, pglogrepl.TupleDataTypeBinary:
			dst[j] = c.Data
		case pglogrepl.TupleDataTypeToast:
			if toast != nil {
				toast[j] = true
			}
			any = true
		}
	}
	return any
}

// fill takes the values of toast's columns from img.
func fill(dst [][]byte, toast []bool, img [][]byte) {
	for i, t := range toast {
		if t && img != nil {
			dst[i] = img[i]
		}
	}
}

func (d *decoder) add(op byte, vals [][]byte) error {
	if err := d.rb.add(op, d.lsn, vals); err != nil {
		return err
	}
	d.rows++
	d.remember(op, vals)
	return nil
}

// sameKey tells whether a and b have the same key values.
func (d *decoder) sameKey(a, b [][]byte) bool {
	for _, i := range d.keyIdx {
		if string(a[i]) != string(b[i]) || (a[i] == nil) != (b[i] == nil) {
			return false
		}
	}
	return true
}

// handle decodes one pgoutput message.
func (d *decoder) handle(data []byte) error {
	msg, err := pglogrepl.Parse(data)
	if err != nil {
		return sqlerr.New(sqlerr.ProtocolViolation, "postgres-cdc: cannot decode a pgoutput message: %v", err)
	}
	switch m := msg.(type) {
	case *pglogrepl.RelationMessage:
		rel := &relation{ours: m.Namespace == d.r.o.Schema && m.RelationName == d.r.o.Table, to: make([]int, len(m.Columns))}
		for i, c := range m.Columns {
			rel.to[i] = -1
			if rel.ours {
				for j, oc := range d.r.cols {
					if oc.Name == c.Name {
						rel.to[i] = j
					}
				}
			}
		}
		d.rels[m.RelationID] = rel
	case *pglogrepl.BeginMessage:
		d.inTxn, d.lsn, d.rows = true, int64(m.FinalLSN), 0
		d.skip = uint64(m.FinalLSN) < max(d.logged, d.pendingEnd)
	case *pglogrepl.InsertMessage:
		rel := d.rels[m.RelationID]
		if d.skip || rel == nil || !rel.ours {
			return nil
		}
		d.tuple(rel, m.Tuple, d.vals, nil)
		return d.add(OpInsert, d.vals)
	case *pglogrepl.UpdateMessage:
		rel := d.rels[m.RelationID]
		if d.skip || rel == nil || !rel.ours {
			return nil
		}
		toast := make([]bool, len(d.vals))
		hasToast := d.tuple(rel, m.NewTuple, d.vals, toast)
		hasOld := m.OldTuple != nil
		if hasOld {
			d.tuple(rel, m.OldTuple, d.old, nil)
		}
		if hasToast {
			if m.OldTupleType == pglogrepl.UpdateMessageTupleTypeOld {
				fill(d.vals, toast, d.old)
			} else {
				k := d.vals
				if hasOld {
					k = d.old
				}
				fill(d.vals, toast, d.images[d.key(k)])
			}
		}
		if hasOld && !d.sameKey(d.old, d.vals) {
			// The key changed: the old row goes, the new one comes.
			if img, ok := d.images[d.key(d.old)]; ok && m.OldTupleType == pglogrepl.UpdateMessageTupleTypeKey {
				copy(d.old, img)
			}
			if err := d.add(OpDelete, d.old); err != nil {
				return err
			}
			return d.add(OpInsert, d.vals)
		}
		return d.add(OpUpdate, d.vals)
	case *pglogrepl.DeleteMessage:
		rel := d.rels[m.RelationID]
		if d.skip || rel == nil || !rel.ours {
			return nil
		}
		d.tuple(rel, m.OldTuple, d.old, nil)
		if m.OldTupleType == pglogrepl.DeleteMessageTupleTypeKey {
			if img, ok := d.images[d.key(d.old)]; ok {
				copy(d.old, img)
			}
		}
		return d.add(OpDelete, d.old)
	case *pglogrepl.TruncateMessage:
		if d.skip {
			return nil
		}
		for _, id := range m.RelationIDs {
			if rel := d.rels[id]; rel != nil && rel.ours {
				return d.add(OpTruncate, nil)
			}
		}
	case *pglogrepl.CommitMessage:
		d.inTxn = false
		if d.skip {
			d.rb.discard()
			return nil
		}
		return d.commit(uint64(m.TransactionEndLSN))
	}
	return nil
}

// commit ends the open transaction: its rows join the pending group,
// which is logged in one commit of weir's store (one fsync) when the
// stream pauses (flushLinger) or the group is large; a transaction with
// none of ours only moves what may be confirmed once the group is logged.
func (d *decoder) commit(end uint64) error {
	d.pendingEnd = end
	if b := d.rb.flush(); b != nil {
		d.pending = append(d.pending, b)
		d.pendingRows += d.rows
	}
	if len(d.pending) == 0 {
		d.ackable = max(d.ackable, end)
		return nil
	}
	if d.pendingRows >= maxPendingRows {
		return d.flush()
	}
	return nil
}

// maxPendingRows bounds the rows a pending group holds in memory.
const maxPendingRows = 1 << 16

// flush logs the pending group with the end LSN of its last transaction.
func (d *decoder) flush() error {
	if len(d.pending) == 0 {
		return nil
	}
	defer func() {
		for _, b := range d.pending {
			b.Release()
		}
		d.pending, d.pendingRows = d.pending[:0], 0
	}()
	end := d.pendingEnd
	tx := d.r.store.Begin(true)
	defer tx.Discard()
	if err := tx.AppendChunks(d.r.rel, d.pending); err != nil {
		return err
	}
	if err := setProgress(tx, d.r.rel, progress{snapshotted: true, end: end}); err != nil {
		return err
	}
	if err := tx.Commit(); err != nil {
		return err
	}
	d.logged, d.ackable = end, max(d.ackable, end)
	rows := d.pendingRows
	d.r.update(func(s *Status) { s.LoggedLSN = end; s.Changes += rows })
	if d.r.OnCommit != nil {
		d.r.OnCommit()
	}
	return nil
}
