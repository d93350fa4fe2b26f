package wire

import (
	"context"
	"strconv"
	"strings"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/jackc/pgx/v5/pgproto3"

	"github.com/weir-sql/weir/sql/sqlerr"
	"github.com/weir-sql/weir/sql/types"
)

// rowEncoder turns Arrow rows into DataRow messages. Its buffers are reused
// for every row of every result: a value is appended to buf, and DataRow
// slices into buf; pgproto3 copies the values into its output buffer when
// the message is sent, so buf is free again for the next row.
type rowEncoder struct {
	buf    []byte
	ends   []int // end offset of each value in buf; -1 for NULL
	values [][]byte
	msg    pgproto3.DataRow
}

func (r *rowEncoder) init() {
	// Never nil: an empty non-NULL value must be buf[k:k], not nil.
	r.buf = make([]byte, 0, 1024)
}

// cursor is a result being sent: the Result, where it stands in the current
// batch, and how each column is encoded. A suspended portal keeps one.
type cursor struct {
	res     Result
	cols    []Column
	formats []int16 // per column: 0 text, 1 binary
	fs      types.FormatSettings
	batch   arrow.RecordBatch
	row     int
	done    bool // Next returned nil
}

func (cur *cursor) close() {
	if cur.res != nil {
		cur.res.Close()
		cur.res = nil
	}
	cur.batch = nil
}

// resolveFormats expands the Bind result-format codes to one per column:
// none means all text, one applies to all.
func resolveFormats(codes []int16, ncols int) ([]int16, error) {
	out := make([]int16, ncols)
	switch len(codes) {
	case 0:
	case 1:
		for i := range out {
			out[i] = codes[0]
		}
	default:
		if len(codes) != ncols {
			return nil, sqlerr.New(sqlerr.ProtocolViolation, "bind message has %d result formats but query has %d columns", len(codes), ncols)
		}
		copy(out, codes)
	}
	return out, nil
}

func checkFormatCodes(codes []int16) error {
	for _, f := range codes {
		if f != 0 && f != 1 {
			return sqlerr.New(sqlerr.InvalidParameterValue, "unsupported format code: %d", f)
		}
	}
	return nil
}

func rowDescription(cols []Column, formats []int16) *pgproto3.RowDescription {
	fields := make([]pgproto3.FieldDescription, len(cols))
	for i, col := range cols {
		var f int16
		if formats != nil {
			f = formats[i]
		}
		fields[i] = pgproto3.FieldDescription{
			Name:                 []byte(col.Name),
			TableOID:             col.TableOID,
			TableAttributeNumber: uint16(col.AttNum),
			DataTypeOID:          col.Type.OID,
			DataTypeSize:         col.Type.Info().Len,
			TypeModifier:         col.Type.PGTypmod(),
			Format:               f,
		}
	}
	return &pgproto3.RowDescription{Fields: fields}
}

// sendRows sends rows of cur as DataRow messages until the result ends or,
// when limit > 0, limit rows have been sent. It returns the rows sent.
func (c *conn) sendRows(ctx context.Context, cur *cursor, limit int64) (int64, error) {
	var n int64
	for !cur.done {
		if limit > 0 && n >= limit {
			return n, nil
		}
		if cur.batch == nil || cur.row >= int(cur.batch.NumRows()) {
			if c.pending > 0 && cur.batch != nil && isStreaming(cur.res) {
				// Next may block (a streaming result waits for input):
				// let the client have the rows sent so far first. A
				// finished result is not flushed here, so that a short
				// query's rows, CommandComplete and ReadyForQuery leave in
				// one write.
				c.flush()
			}
			b, err := cur.res.Next(ctx)
			if err != nil {
				return n, err
			}
			if b == nil {
				cur.done, cur.batch = true, nil
				break
			}
			if cur.cols == nil {
				continue // a statement without rows has nothing to send
			}
			if int(b.NumCols()) != len(cur.cols) {
				return n, sqlerr.New(sqlerr.InternalError, "result batch has %d columns, expected %d", b.NumCols(), len(cur.cols))
			}
			cur.batch, cur.row = b, 0
			continue
		}
		if err := c.sendDataRow(cur, cur.row); err != nil {
			return n, err
		}
		cur.row++
		n++
		if c.broken {
			return n, errWriteFailed
		}
	}
	return n, nil
}

func (c *conn) sendDataRow(cur *cursor, i int) error {
	r := &c.rows
	buf, ends := r.buf[:0], r.ends[:0]
	for j, col := range cur.cols {
		arr := cur.batch.Column(j)
		if arr.IsNull(i) {
			ends = append(ends, -1)
			continue
		}
		if cur.formats[j] == 1 {
			var err error
			buf, err = types.AppendBinary(buf, col.Type, arr, i)
			if err != nil {
				return err
			}
		} else {
			buf = types.AppendText(buf, col.Type, arr, i, &cur.fs)
		}
		ends = append(ends, len(buf))
	}
	values := r.values[:0]
	start := 0
	for _, e := range ends {
		if e < 0 {
			values = append(values, nil)
			continue
		}
		values = append(values, buf[start:e:e])
		start = e
	}
	r.buf, r.ends, r.values = buf, ends, values
	r.msg.Values = values
	c.be.Send(&r.msg)
	c.flushIfFull(len(buf) + 4*len(values) + 7)
	return nil
}

// commandTag is the CommandComplete tag: for row-returning statements the
// count is the rows this Execute sent, as PostgreSQL reports it.
func commandTag(tag string, hasRows bool, sent int64) string {
	if !hasRows {
		return tag
	}
	if tag == "" || strings.HasPrefix(tag, "SELECT") {
		return "SELECT " + strconv.FormatInt(sent, 10)
	}
	return tag
}

// StreamingResult is implemented by results whose Next may wait for data
// that does not exist yet (SUBSCRIBE): the wire layer flushes the rows sent
// so far before each Next of such a result.
type StreamingResult interface {
	Result
	Streaming() bool
}

func isStreaming(r Result) bool {
	s, ok := r.(StreamingResult)
	return ok && s.Streaming()
}
