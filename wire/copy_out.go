package wire

import (
	"bytes"
	"context"
	"encoding/binary"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/jackc/pgx/v5/pgproto3"

	"github.com/weir-sql/weir/sql/sqlerr"
	"github.com/weir-sql/weir/sql/types"
	"github.com/weir-sql/weir/sql/types/copyformat"
)

// CopyOut implements ExecIO: COPY ... TO STDOUT. Each row goes in its own
// CopyData message, as PostgreSQL sends them.
func (x *execIO) CopyOut(ctx context.Context, opts CopyOptions, res Result) (int64, error) {
	c := x.c
	cols := res.Columns()
	if opts.ColumnNames == nil {
		opts.ColumnNames = make([]string, len(cols))
		for i, col := range cols {
			opts.ColumnNames[i] = col.Name
		}
	}
	f, err := parseCopyOptions(opts, len(cols))
	if err != nil {
		return 0, err
	}
	c.send(&pgproto3.CopyOutResponse{OverallFormat: f.overall(), ColumnFormatCodes: f.columnFormats(len(cols))})

	w := copyWriter{c: c, f: &f, cols: cols, fs: c.sess.FormatSettings()}
	switch {
	case f.kind == 'b':
		hdr := append(append([]byte{}, copyformat.BinarySignature...), 0, 0, 0, 0, 0, 0, 0, 0)
		w.sendData(hdr)
	case f.header:
		w.sendHeader()
	}
	var n int64
	for {
		if c.pending > 0 {
			c.flush() // Next may wait for input; deliver what is ready
		}
		b, err := res.Next(ctx)
		if err != nil {
			return n, err
		}
		if b == nil {
			break
		}
		if int(b.NumCols()) != len(cols) {
			return n, sqlerr.New(sqlerr.InternalError, "result batch has %d columns, expected %d", b.NumCols(), len(cols))
		}
		for i := 0; i < int(b.NumRows()); i++ {
			if err := w.sendRow(b, i); err != nil {
				return n, err
			}
			n++
			if c.broken {
				return n, errWriteFailed
			}
		}
	}
	if f.kind == 'b' {
		w.sendData([]byte{0xff, 0xff})
	}
	c.send(&pgproto3.CopyDone{})
	return n, nil
}

// copyWriter encodes rows in a COPY format into reused buffers.
type copyWriter struct {
	c     *conn
	f     *copyFormat
	cols  []Column
	fs    types.FormatSettings
	value []byte // one value's text, before escaping
	msg   pgproto3.CopyData
	// file, when set, receives the data instead of the client (COPY TO a
	// server file, copy_file.go), whose row is then the row buffer.
	file *fileSink
}

// rowBuf is the buffer a row is built in.
func (w *copyWriter) rowBuf() []byte {
	if w.file != nil {
		return w.file.row[:0]
	}
	return w.c.copyBuf[:0]
}

// keepBuf keeps a grown row buffer for the next row.
func (w *copyWriter) keepBuf(buf []byte) {
	if w.file != nil {
		w.file.row = buf
		return
	}
	w.c.copyBuf = buf
}

func (w *copyWriter) sendData(data []byte) {
	if w.file != nil {
		w.file.write(data)
		return
	}
	w.msg.Data = data
	w.c.be.Send(&w.msg)
	w.c.flushIfFull(len(data) + 5)
}

func (w *copyWriter) sendHeader() {
	buf := w.rowBuf()
	for i, name := range w.f.names {
		if i > 0 {
			buf = append(buf, w.f.delimiter)
		}
		if w.f.kind == 'c' {
			buf = w.appendCSV(buf, []byte(name))
		} else {
			buf = w.appendText(buf, []byte(name))
		}
	}
	buf = append(buf, '\n')
	w.keepBuf(buf)
	w.sendData(buf)
}

func (w *copyWriter) sendRow(b arrow.RecordBatch, i int) error {
	buf := w.rowBuf()
	if w.f.kind == 'b' {
		buf = binary.BigEndian.AppendUint16(buf, uint16(len(w.cols)))
	}
	for j, col := range w.cols {
		arr := b.Column(j)
		if w.f.kind == 'b' {
			if arr.IsNull(i) {
				buf = binary.BigEndian.AppendUint32(buf, 0xffffffff)
				continue
			}
			at := len(buf)
			buf = append(buf, 0, 0, 0, 0)
			var err error
			buf, err = types.AppendBinary(buf, col.Type, arr, i)
			if err != nil {
				return err
			}
			binary.BigEndian.PutUint32(buf[at:], uint32(len(buf)-at-4))
			continue
		}
		if j > 0 {
			buf = append(buf, w.f.delimiter)
		}
		if arr.IsNull(i) {
			buf = append(buf, w.f.null...)
			continue
		}
		w.value = types.AppendText(w.value[:0], col.Type, arr, i, &w.fs)
		if w.f.kind == 'c' {
			buf = w.appendCSV(buf, w.value)
		} else {
			buf = w.appendText(buf, w.value)
		}
	}
	if w.f.kind != 'b' {
		buf = append(buf, '\n')
	}
	w.keepBuf(buf)
	w.sendData(buf)
	return nil
}

// appendText escapes a value for text format as CopyAttributeOutText does:
// backslash, the delimiter and the control characters that have a
// backslash letter.
func (w *copyWriter) appendText(buf, v []byte) []byte {
	delim := w.f.delimiter
	for _, ch := range v {
		var esc byte
		switch ch {
		case '\\':
			esc = '\\'
		case '\b':
			esc = 'b'
		case '\f':
			esc = 'f'
		case '\n':
			esc = 'n'
		case '\r':
			esc = 'r'
		case '\t':
			esc = 't'
		case '\v':
			esc = 'v'
		default:
			if ch == delim {
				esc = ch
			}
		}
		if esc != 0 {
			buf = append(buf, '\\', esc)
		} else {
			buf = append(buf, ch)
		}
	}
	return buf
}

// appendCSV quotes a value when it must be (it holds the delimiter, the
// quote, a line break, or reads like the NULL string), as
// CopyAttributeOutCSV does.
func (w *copyWriter) appendCSV(buf, v []byte) []byte {
	f := w.f
	quote := bytes.Equal(v, f.null) || (len(w.cols) == 1 && string(v) == `\.`)
	if !quote {
		for _, ch := range v {
			if ch == f.delimiter || ch == f.quote || ch == '\n' || ch == '\r' {
				quote = true
				break
			}
		}
	}
	if !quote {
		return append(buf, v...)
	}
	buf = append(buf, f.quote)
	for _, ch := range v {
		if ch == f.quote || ch == f.escape {
			buf = append(buf, f.escape)
		}
		buf = append(buf, ch)
	}
	return append(buf, f.quote)
}
