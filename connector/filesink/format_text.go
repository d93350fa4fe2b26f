package filesink

import (
	"bytes"

	"github.com/apache/arrow-go/v18/arrow"

	"github.com/weir-sql/weir/sql/types"
)

// jsonWriter writes JSON lines: one object per row, as row_to_json prints
// the row (numbers as numbers, timestamps in ISO 8601, NULL as null).
type jsonWriter struct {
	cf      *countingFile
	rowJSON func(buf []byte, cols []arrow.Array, i int) []byte
	buf     []byte
}

func (j *jsonWriter) write(b arrow.RecordBatch) error {
	cols := b.Columns()
	for i := 0; i < int(b.NumRows()); i++ {
		j.buf = j.rowJSON(j.buf[:0], cols, i)
		j.buf = append(j.buf, '\n')
		if _, err := j.cf.Write(j.buf); err != nil {
			return err
		}
	}
	return nil
}

func (j *jsonWriter) size() int64   { return j.cf.written() }
func (j *jsonWriter) finish() error { return j.cf.finish() }
func (j *jsonWriter) abort()        { j.cf.abort() }

// csvWriter writes CSV as PostgreSQL's COPY ... (FORMAT csv, HEADER)
// does: values in their text form, NULL as an empty field, and a field
// quoted when it holds the delimiter, a quote, a line break, or is empty
// (so that an empty string differs from NULL).
type csvWriter struct {
	cf   *countingFile
	cols []Column
	fs   *types.FormatSettings
	buf  []byte
	val  []byte
}

func (c *csvWriter) write(b arrow.RecordBatch) error {
	for i := 0; i < int(b.NumRows()); i++ {
		c.buf = c.buf[:0]
		for k := range c.cols {
			if k > 0 {
				c.buf = append(c.buf, ',')
			}
			col := b.Column(k)
			if col.IsNull(i) {
				continue
			}
			c.val = types.AppendText(c.val[:0], c.cols[k].Type, col, i, c.fs)
			c.buf = appendCSVField(c.buf, c.val)
		}
		c.buf = append(c.buf, '\n')
		if _, err := c.cf.Write(c.buf); err != nil {
			return err
		}
	}
	return nil
}

func (c *csvWriter) size() int64   { return c.cf.written() }
func (c *csvWriter) finish() error { return c.cf.finish() }
func (c *csvWriter) abort()        { c.cf.abort() }

// appendCSVField appends v, quoted when it must be.
func appendCSVField(buf, v []byte) []byte {
	if len(v) > 0 && !bytes.ContainsAny(v, ",\"\r\n") && !bytes.Equal(v, []byte(`\.`)) {
		return append(buf, v...)
	}
	buf = append(buf, '"')
	for _, ch := range v {
		if ch == '"' {
			buf = append(buf, '"')
		}
		buf = append(buf, ch)
	}
	return append(buf, '"')
}

// csvHeader is the header line of the sink's CSV files.
func (s *Sink) csvHeader() []byte {
	var buf []byte
	for k, c := range s.dataCols {
		if k > 0 {
			buf = append(buf, ',')
		}
		buf = appendCSVField(buf, []byte(c.Name))
	}
	return append(buf, '\n')
}
