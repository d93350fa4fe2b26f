package iceberg

import (
	"context"
	"encoding/binary"
	"math"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/compute"
	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/weir-sql/weir/sql/sqlerr"
)

// An update- or complete-mode table's changes arrive as a change feed, as
// Databricks' change data feed writes them: the table's columns, then
// _change_type ('insert' or 'delete'; an updated row is its delete then
// its insert) and _commit_version (the epoch). The sink applies them to
// the table's contents and writes the result whole: an epoch with changes
// reads the current snapshot's rows, drops the deleted ones (each delete
// removes one equal row), adds the inserted ones and writes all of them
// as the new data files, which Committed swaps in for the old ones in one
// overwrite snapshot. docs/iceberg.md says why not equality deletes.

// Change feed columns after the table's.
const (
	ChangeTypeColumn    = "_change_type"
	CommitVersionColumn = "_commit_version"
)

// contentsAfter returns the table's rows after applying the changes to
// its current snapshot, as batches of the Iceberg schema (the caller
// releases them).
func (s *Sink) contentsAfter(ctx context.Context, changes []arrow.RecordBatch) ([]arrow.RecordBatch, error) {
	n := len(s.cfg.Columns)
	var inserts []arrow.RecordBatch
	release := func(bs []arrow.RecordBatch) {
		for _, b := range bs {
			b.Release()
		}
	}
	// The deleted rows, by value: how many of each to remove.
	deletes := map[string]int{}
	var key []byte
	for _, b := range changes {
		if b.NumRows() == 0 {
			continue
		}
		if int(b.NumCols()) != n+2 {
			release(inserts)
			return nil, sqlerr.New(sqlerr.InternalError, "iceberg sink: a change batch of %d columns for a table of %d and its change columns", b.NumCols(), n)
		}
		kinds, ok := b.Column(n).(*array.String)
		if !ok {
			release(inserts)
			return nil, sqlerr.New(sqlerr.InternalError, "iceberg sink: %s arrives as %s", ChangeTypeColumn, b.Column(n).DataType())
		}
		conv, err := s.conv.convertColumns(b.Columns()[:n], b.NumRows())
		if err != nil {
			release(inserts)
			return nil, err
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
			release(inserts)
			return nil, err
		}
		inserts = append(inserts, ins)
	}

	// The current rows less the deleted ones.
	var out []arrow.RecordBatch
	if s.tbl.CurrentSnapshot() != nil {
		_, recs, err := s.tbl.Scan().ToArrowRecords(ctx)
		if err != nil {
			release(inserts)
			return nil, ioError("could not read Iceberg table \"%s\"", s.name(), err)
		}
		for rec, err := range recs {
			if err != nil {
				release(inserts)
				release(out)
				return nil, ioError("could not read Iceberg table \"%s\"", s.name(), err)
			}
			kept, err := s.dropDeleted(ctx, rec, deletes, &key)
			rec.Release()
			if err != nil {
				release(inserts)
				release(out)
				return nil, err
			}
			out = append(out, kept)
		}
	}
	// A delete of a row inserted in this same epoch cancels the insert.
	for _, ins := range inserts {
		kept, err := s.dropDeleted(ctx, ins, deletes, &key)
		ins.Release()
		if err != nil {
			release(out)
			return nil, err
		}
		out = append(out, kept)
	}
	return out, nil
}

// dropDeleted returns rec (of the Iceberg schema, possibly without its
// field IDs) less the rows deletes counts, which it decrements.
func (s *Sink) dropDeleted(ctx context.Context, rec arrow.RecordBatch, deletes map[string]int, key *[]byte) (arrow.RecordBatch, error) {
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
	if len(deletes) == 0 {
		rec.Retain()
		return rec, nil
	}
	keep := array.NewBooleanBuilder(memory.DefaultAllocator)
	keep.Reserve(int(rec.NumRows()))
	for i := 0; i < int(rec.NumRows()); i++ {
		*key = rowKey((*key)[:0], cols, i)
		if c := deletes[string(*key)]; c > 0 {
			if c == 1 {
				delete(deletes, string(*key))
			} else {
				deletes[string(*key)] = c - 1
			}
			keep.UnsafeAppend(false)
			continue
		}
		keep.UnsafeAppend(true)
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
