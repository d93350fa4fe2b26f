package filesink

import (
	"bytes"
	"strings"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/weir-sql/weir/sql/types"
)

// Hive-style partitions, as Spark writes them: a folder col=value per
// partition column, the value in its text form with the characters that
// cannot stand in a path escaped as %XX, NULL as Spark's
// __HIVE_DEFAULT_PARTITION__. The files leave the partition columns out:
// readers (Spark, DuckDB's hive_partitioning) take them from the path.

// NullPartition is the folder value of a NULL partition column.
const NullPartition = "__HIVE_DEFAULT_PARTITION__"

// appendEscapedPartition appends partition value v, escaped as Spark's
// ExternalCatalogUtils.escapePathName does.
func appendEscapedPartition(buf, v []byte) []byte {
	const hex = "0123456789ABCDEF"
	for _, c := range v {
		if c < 0x20 || c == 0x7f || strings.IndexByte("\"#%'*/:=?\\{[]^", c) >= 0 {
			buf = append(buf, '%', hex[c>>4], hex[c&15])
			continue
		}
		buf = append(buf, c)
	}
	return buf
}

// part is the rows of one partition in one epoch.
type part struct {
	key     string // the folder, "" unpartitioned
	batches []arrow.RecordBatch
}

// split groups the data columns of the batches by partition, keeping the
// order of the rows within each and of the partitions' first rows.
func (s *Sink) split(changes []arrow.RecordBatch) ([]*part, error) {
	var parts []*part
	byKey := map[string]*part{}
	get := func(key string) *part {
		p := byKey[key]
		if p == nil {
			p = &part{key: key}
			byKey[key] = p
			parts = append(parts, p)
		}
		return p
	}
	for _, b := range changes {
		if b.NumRows() == 0 {
			continue
		}
		if len(s.partIdx) == 0 {
			p := get("")
			p.batches = append(p.batches, s.dataBatch(b))
			continue
		}
		// Runs of rows with the same partition, sliced and concatenated
		// per partition.
		runs := map[string][]arrow.RecordBatch{}
		var order []string
		n := int(b.NumRows())
		var buf, key, curKey []byte // reused: no allocation per row
		start, cur := 0, ""
		flush := func(end int) {
			if end > start {
				if _, ok := runs[cur]; !ok {
					order = append(order, cur)
				}
				runs[cur] = append(runs[cur], b.NewSlice(int64(start), int64(end)))
			}
			start = end
		}
		for i := 0; i < n; i++ {
			key = key[:0]
			for j, c := range s.partIdx {
				if j > 0 {
					key = append(key, '/')
				}
				key = append(key, s.o.Columns[c].Name...)
				key = append(key, '=')
				col := b.Column(c)
				if col.IsNull(i) {
					key = append(key, NullPartition...)
					continue
				}
				buf = types.AppendText(buf[:0], s.o.Columns[c].Type, col, i, s.text)
				key = appendEscapedPartition(key, buf)
			}
			switch {
			case i == 0:
				curKey = append(curKey[:0], key...)
				cur = string(key)
			case !bytes.Equal(key, curKey):
				flush(i)
				curKey = append(curKey[:0], key...)
				cur = string(key)
			}
		}
		flush(n)
		for _, key := range order {
			slices := runs[key]
			whole, err := concatBatches(slices)
			for _, sl := range slices {
				sl.Release()
			}
			if err != nil {
				return nil, err
			}
			p := get(key)
			p.batches = append(p.batches, s.dataBatch(whole))
			whole.Release()
		}
	}
	return parts, nil
}

// dataBatch is b without its partition columns (retained: the caller
// releases it).
func (s *Sink) dataBatch(b arrow.RecordBatch) arrow.RecordBatch {
	cols := make([]arrow.Array, len(s.dataIdx))
	for i, c := range s.dataIdx {
		cols[i] = b.Column(c)
	}
	return array.NewRecordBatch(s.dataSchema, cols, b.NumRows())
}

// concatBatches concatenates batches of one schema.
func concatBatches(bs []arrow.RecordBatch) (arrow.RecordBatch, error) {
	if len(bs) == 1 {
		bs[0].Retain()
		return bs[0], nil
	}
	cols := make([]arrow.Array, bs[0].NumCols())
	var rows int64
	for _, b := range bs {
		rows += b.NumRows()
	}
	for c := range cols {
		parts := make([]arrow.Array, len(bs))
		for i, b := range bs {
			parts[i] = b.Column(c)
		}
		a, err := array.Concatenate(parts, memory.DefaultAllocator)
		if err != nil {
			for _, x := range cols[:c] {
				x.Release()
			}
			return nil, err
		}
		cols[c] = a
	}
	out := array.NewRecordBatch(bs[0].Schema(), cols, rows)
	for _, a := range cols {
		a.Release()
	}
	return out, nil
}
