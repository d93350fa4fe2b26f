package iceberg

import (
	"context"
	"encoding/binary"
	"math"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/compute"
	"github.com/apache/arrow-go/v18/arrow/memory"
	ice "github.com/apache/iceberg-go"
	"github.com/apache/iceberg-go/table"

	"github.com/weir-sql/weir/sql/sqlerr"
)

// An update- or complete-mode table's changes arrive as a change feed, as
// Databricks' change data feed writes them: the table's columns, then
// _change_type ('insert' or 'delete'; an updated row is its delete then
// its insert) and _commit_version (the epoch). The sink applies them by
// copy-on-write: an epoch with changes finds the groups of data files
// that hold its deleted rows (rowIndex), reads only those, drops the
// deleted rows (each delete removes one equal row), and writes their
// other rows with the epoch's inserts as new data files, which Committed
// swaps in for the groups' files in one overwrite snapshot. The files of
// the current snapshot hold exactly the table's rows (no delete files),
// so a reader of the data files alone reads the table right, and an
// epoch costs the rows of the groups it touches, not the whole table.
// Groups hold at most Config.GroupRows rows; smaller ones are rewritten
// along with the epoch's (compaction), so the table does not fill with
// small files. docs/iceberg.md says why not equality or position deletes.

// Change feed columns after the table's.
const (
	ChangeTypeColumn    = "_change_type"
	CommitVersionColumn = "_commit_version"
)

// DefaultGroupRows is Config.GroupRows's default: a group of rows is
// rewritten whole when one of its rows changes.
const DefaultGroupRows = 1 << 16

// rewrite is what Write prepared of an update-mode epoch, for Committed:
// the groups whose files its snapshot removes and the groups it adds.
type rewrite struct {
	removed  map[uint32]bool
	oldFiles []ice.DataFile
	// readHashes are the hashes of the removed groups' rows, which the
	// index forgets once the snapshot committed.
	readHashes []uint64
	groups     []writtenGroup
}

type writtenGroup struct {
	files  []ice.DataFile
	hashes []uint64
}

func (r *rewrite) newFiles() []ice.DataFile {
	var out []ice.DataFile
	for _, g := range r.groups {
		out = append(out, g.files...)
	}
	return out
}

// committed brings the index up to date with the snapshot that committed
// r.
func (r *rewrite) committed(x *rowIndex) {
	for _, h := range r.readHashes {
		x.forget(h, r.removed)
	}
	x.dropGroups(r.removed)
	for _, g := range r.groups {
		paths := make([]string, len(g.files))
		for i, f := range g.files {
			paths[i] = f.FilePath()
		}
		x.addGroup(paths, g.hashes)
	}
}

func releaseAll(bs []arrow.RecordBatch) {
	for _, b := range bs {
		b.Release()
	}
}

// rewriteEpoch applies an epoch's changes (copy-on-write, above) and
// writes the new data files; nothing is committed.
func (s *Sink) rewriteEpoch(ctx context.Context, changes []arrow.RecordBatch) (*rewrite, error) {
	if s.index == nil {
		if err := s.buildIndex(ctx); err != nil {
			return nil, err
		}
	}
	inserts, deletes, err := s.splitChanges(ctx, changes)
	if err != nil {
		return nil, err
	}
	rw := &rewrite{removed: map[uint32]bool{}}
	var key []byte
	for k := range deletes {
		s.index.groupsOf(s.index.hashString(k), rw.removed)
	}
	for id, g := range s.index.groups {
		if g.rows < s.groupRows()/8 {
			rw.removed[id] = true // small: compacted into the epoch's groups
		}
	}
	// The removed groups' rows less the deleted ones.
	var out []arrow.RecordBatch
	if len(rw.removed) > 0 {
		paths := map[string]bool{}
		for id := range rw.removed {
			for _, p := range s.index.groups[id].paths {
				paths[p] = true
			}
		}
		tasks, err := s.tbl.Scan().PlanFiles(ctx)
		if err != nil {
			releaseAll(inserts)
			return nil, ioError("could not list the data files of Iceberg table \"%s\"", s.name(), err)
		}
		var read []table.FileScanTask
		for _, t := range tasks {
			if paths[t.File.FilePath()] {
				read = append(read, t)
				rw.oldFiles = append(rw.oldFiles, t.File)
			}
		}
		if len(read) != len(paths) {
			s.index = nil // rebuilt from the table at the next epoch
			releaseAll(inserts)
			return nil, sqlerr.New(sqlerr.InternalError, "iceberg sink: %d of the %d data files to rewrite are not in Iceberg table \"%s\"", len(paths)-len(read), len(paths), s.name())
		}
		_, recs, err := s.tbl.Scan().ReadTasks(ctx, read)
		if err != nil {
			releaseAll(inserts)
			return nil, ioError("could not read Iceberg table \"%s\"", s.name(), err)
		}
		for rec, err := range recs {
			if err != nil {
				releaseAll(inserts)
				releaseAll(out)
				return nil, ioError("could not read Iceberg table \"%s\"", s.name(), err)
			}
			kept, err := s.dropDeleted(ctx, rec, deletes, &key, &rw.readHashes)
			rec.Release()
			if err != nil {
				releaseAll(inserts)
				releaseAll(out)
				return nil, err
			}
			out = append(out, kept)
		}
	}
	// A delete of a row inserted in this same epoch cancels the insert.
	for i, ins := range inserts {
		kept, err := s.dropDeleted(ctx, ins, deletes, &key, nil)
		ins.Release()
		if err != nil {
			releaseAll(inserts[i+1:])
			releaseAll(out)
			return nil, err
		}
		out = append(out, kept)
	}
	if err := s.writeGroups(ctx, out, rw); err != nil {
		for _, g := range rw.groups {
			s.removeFiles(ctx, g.files)
		}
		return nil, err
	}
	return rw, nil
}

// writeGroups writes rows (it releases them) as groups of at most
// GroupRows rows, each one WriteRecords call, with their rows' hashes.
func (s *Sink) writeGroups(ctx context.Context, rows []arrow.RecordBatch, rw *rewrite) error {
	limit := s.groupRows()
	var chunk []arrow.RecordBatch
	var hashes []uint64
	var key []byte
	flush := func() error {
		if len(chunk) == 0 {
			return nil
		}
		files, err := s.writeFiles(ctx, chunk)
		chunk = nil
		if err != nil {
			return err
		}
		rw.groups = append(rw.groups, writtenGroup{files: files, hashes: hashes})
		hashes = nil
		return nil
	}
	for i, b := range rows {
		for off := int64(0); off < b.NumRows(); {
			n := min(b.NumRows()-off, limit-int64(len(hashes)))
			part := b.NewSlice(off, off+n)
			cols := part.Columns()
			for r := 0; r < int(n); r++ {
				key = rowKey(key[:0], cols, r)
				hashes = append(hashes, s.index.hash(key))
			}
			chunk = append(chunk, part)
			off += n
			if int64(len(hashes)) >= limit {
				if err := flush(); err != nil {
					b.Release()
					releaseAll(rows[i+1:])
					return err
				}
			}
		}
		b.Release()
	}
	return flush()
}

// buildIndex reads every data file of the current snapshot and indexes
// its rows, a group per file.
func (s *Sink) buildIndex(ctx context.Context) error {
	x := newRowIndex()
	if s.tbl.CurrentSnapshot() != nil {
		tasks, err := s.tbl.Scan().PlanFiles(ctx)
		if err != nil {
			return ioError("could not list the data files of Iceberg table \"%s\"", s.name(), err)
		}
		var key []byte
		for _, t := range tasks {
			_, recs, err := s.tbl.Scan().ReadTasks(ctx, []table.FileScanTask{t})
			if err != nil {
				return ioError("could not read Iceberg table \"%s\"", s.name(), err)
			}
			var hashes []uint64
			for rec, err := range recs {
				if err != nil {
					return ioError("could not read Iceberg table \"%s\"", s.name(), err)
				}
				cols := rec.Columns()
				for r := 0; r < int(rec.NumRows()); r++ {
					key = rowKey(key[:0], cols, r)
					hashes = append(hashes, x.hash(key))
				}
				rec.Release()
			}
			x.addGroup([]string{t.File.FilePath()}, hashes)
		}
	}
	s.index = x
	return nil
}

func (s *Sink) groupRows() int64 {
	if s.cfg.GroupRows > 0 {
		return s.cfg.GroupRows
	}
	return DefaultGroupRows
}

// splitChanges converts a change feed's batches: the inserted rows (of
// the Iceberg schema; the caller releases them) and the deleted ones, by
// value (rowKey): how many of each to remove.
func (s *Sink) splitChanges(ctx context.Context, changes []arrow.RecordBatch) ([]arrow.RecordBatch, map[string]int, error) {
	n := len(s.cfg.Columns)
	var inserts []arrow.RecordBatch
	deletes := map[string]int{}
	var key []byte
	for _, b := range changes {
		if b.NumRows() == 0 {
			continue
		}
		if int(b.NumCols()) != n+2 {
			releaseAll(inserts)
			return nil, nil, sqlerr.New(sqlerr.InternalError, "iceberg sink: a change batch of %d columns for a table of %d and its change columns", b.NumCols(), n)
		}
		kinds, ok := b.Column(n).(*array.String)
		if !ok {
			releaseAll(inserts)
			return nil, nil, sqlerr.New(sqlerr.InternalError, "iceberg sink: %s arrives as %s", ChangeTypeColumn, b.Column(n).DataType())
		}
		conv, err := s.conv.convertColumns(b.Columns()[:n], b.NumRows())
		if err != nil {
			releaseAll(inserts)
			return nil, nil, err
		}
		keep := array.NewBooleanBuilder(memory.DefaultAllocator)
		keep.Reserve(int(b.NumRows()))
		for i := 0; i < int(b.NumRows()); i++ {
			ins := kinds.Value(i) != "delete"
			keep.UnsafeAppend(ins)
			if !ins {
				key = rowKey(key[:0], conv.Columns(), i)
				deletes[string(key)]++
			}
		}
		ins, err := filterBatch(ctx, conv, keep)
		conv.Release()
		if err != nil {
			releaseAll(inserts)
			return nil, nil, err
		}
		inserts = append(inserts, ins)
	}
	return inserts, deletes, nil
}

// dropDeleted returns rec (of the Iceberg schema, possibly without its
// field IDs) less the rows deletes counts, which it decrements; hashes,
// if not nil, gets the index hash of every row of rec.
func (s *Sink) dropDeleted(ctx context.Context, rec arrow.RecordBatch, deletes map[string]int, key *[]byte, hashes *[]uint64) (arrow.RecordBatch, error) {
	cols := rec.Columns()
	if len(cols) != len(s.cfg.Columns) {
		return nil, sqlerr.New(sqlerr.InternalError, "iceberg sink: the table read back has %d columns, want %d", len(cols), len(s.cfg.Columns))
	}
	for i, c := range cols {
		if !arrow.TypeEqual(c.DataType(), s.conv.schema.Field(i).Type) {
			return nil, sqlerr.New(sqlerr.InternalError, "iceberg sink: column %s read back as %s", s.cfg.Columns[i].Name, c.DataType())
		}
	}
	// Rebuilt on the sink's schema (the scan's lacks the field IDs).
	rec = array.NewRecordBatch(s.conv.schema, cols, rec.NumRows())
	defer rec.Release()
	if len(deletes) == 0 && hashes == nil {
		rec.Retain()
		return rec, nil
	}
	keep := array.NewBooleanBuilder(memory.DefaultAllocator)
	keep.Reserve(int(rec.NumRows()))
	dropped := false
	for i := 0; i < int(rec.NumRows()); i++ {
		*key = rowKey((*key)[:0], cols, i)
		if hashes != nil {
			*hashes = append(*hashes, s.index.hash(*key))
		}
		if c := deletes[string(*key)]; c > 0 {
			if c == 1 {
				delete(deletes, string(*key))
			} else {
				deletes[string(*key)] = c - 1
			}
			keep.UnsafeAppend(false)
			dropped = true
			continue
		}
		keep.UnsafeAppend(true)
	}
	if !dropped {
		keep.Release()
		rec.Retain()
		return rec, nil
	}
	return filterBatch(ctx, rec, keep)
}

// filterBatch keeps rec's rows whose keep is true (it releases keep).
func filterBatch(ctx context.Context, rec arrow.RecordBatch, keep *array.BooleanBuilder) (arrow.RecordBatch, error) {
	mask := keep.NewBooleanArray()
	keep.Release()
	defer mask.Release()
	out, err := compute.FilterRecordBatch(ctx, rec, mask, compute.DefaultFilterOptions())
	if err != nil {
		return nil, sqlerr.New(sqlerr.InternalError, "iceberg sink: %v", err)
	}
	return out, nil
}

// rowKey appends an encoding of row i of cols (of the Iceberg schema's
// Arrow types) that is equal for equal rows: per column a null marker,
// then the value's bytes (variable-length ones with their length).
func rowKey(buf []byte, cols []arrow.Array, i int) []byte {
	for _, c := range cols {
		if c.IsNull(i) {
			buf = append(buf, 0)
			continue
		}
		buf = append(buf, 1)
		switch a := c.(type) {
		case *array.Boolean:
			if a.Value(i) {
				buf = append(buf, 1)
			} else {
				buf = append(buf, 0)
			}
		case *array.Int32:
			buf = binary.LittleEndian.AppendUint32(buf, uint32(a.Value(i)))
		case *array.Int64:
			buf = binary.LittleEndian.AppendUint64(buf, uint64(a.Value(i)))
		case *array.Float32:
			buf = binary.LittleEndian.AppendUint32(buf, math.Float32bits(a.Value(i)))
		case *array.Float64:
			buf = binary.LittleEndian.AppendUint64(buf, math.Float64bits(a.Value(i)))
		case *array.Date32:
			buf = binary.LittleEndian.AppendUint32(buf, uint32(a.Value(i)))
		case *array.Time64:
			buf = binary.LittleEndian.AppendUint64(buf, uint64(a.Value(i)))
		case *array.Timestamp:
			buf = binary.LittleEndian.AppendUint64(buf, uint64(a.Value(i)))
		case *array.Decimal128:
			v := a.Value(i)
			buf = binary.LittleEndian.AppendUint64(buf, v.LowBits())
			buf = binary.LittleEndian.AppendUint64(buf, uint64(v.HighBits()))
		case *array.String:
			v := a.Value(i)
			buf = binary.LittleEndian.AppendUint32(buf, uint32(len(v)))
			buf = append(buf, v...)
		case *array.Binary:
			v := a.Value(i)
			buf = binary.LittleEndian.AppendUint32(buf, uint32(len(v)))
			buf = append(buf, v...)
		}
	}
	return buf
}
