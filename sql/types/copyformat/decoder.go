// Package copyformat decodes data in PostgreSQL's COPY formats (text, CSV
// and binary) into Arrow record batches, with PostgreSQL's error messages
// and CONTEXT lines.
//
// It is a subpackage of sql/types, not of connector or wire, because both
// need it and the layout (design.md, layout_test.go) lets wire import only
// sql/types: wire feeds it the CopyData of COPY FROM STDIN, and a file
// source (connector) can feed it a file's bytes. It imports only sql/types
// (the values' text and binary forms) and sql/sqlerr.
package copyformat

import (
	"errors"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/weir-sql/weir/sql/sqlerr"
	"github.com/weir-sql/weir/sql/types"
)

// BinarySignature starts every binary COPY stream.
var BinarySignature = []byte("PGCOPY\n\xff\r\n\x00")

// Format is a COPY data format with its options checked and defaulted.
type Format struct {
	Kind      byte // 't' text, 'c' csv, 'b' binary
	Delimiter byte
	Quote     byte
	Escape    byte
	Null      []byte
	Header    bool
	// Table and Names (one per column) name the input in errors' CONTEXT.
	Table string
	Names []string
}

// DataError is an error in COPY data. Err is what the client sees as the
// error; Context is PostgreSQL's CONTEXT line, e.g. `COPY t, line 3,
// column x: "abc"`.
type DataError struct {
	Err     *sqlerr.Error
	Context string
}

func (e *DataError) Error() string { return e.Err.Message }
func (e *DataError) Unwrap() error { return e.Err }

// ErrMoreInput is what ReadRow returns when it needs more input before it
// can decode the next row: Feed it (or Finish it), then call ReadRow again.
var ErrMoreInput = errors.New("copyformat: more input needed")

// Decoder turns a stream of COPY data into rows of the given column types.
// The stream is given in pieces of any size (Feed); a record may span
// pieces. One goroutine uses a decoder.
type Decoder struct {
	f        Format
	types    []types.T
	fs       types.FormatSettings
	schema   *arrow.Schema
	builders []array.Builder
	pending  int // rows decoded since the last Flush

	in      []byte // received input; in[pos:] is not yet consumed
	pos     int
	scan    int  // the search for the current record's end has looked at in[pos:scan]
	inQuote bool // csv: the scan stopped inside quotes

	finished   bool // Finish: no more input will come
	done       bool // the \. marker or the binary trailer was read
	headerDone bool
	line       int64 // number of the record being decoded, as in PostgreSQL's CONTEXT

	field []byte // scratch for a de-escaped value
}

// NewDecoder returns a decoder of f into columns of the given types, whose
// text is read with fs (DateStyle, IntervalStyle...).
func NewDecoder(f Format, columns []types.T, fs types.FormatSettings) *Decoder {
	d := &Decoder{f: f, types: columns, fs: fs}
	fields := make([]arrow.Field, len(columns))
	d.builders = make([]array.Builder, len(columns))
	for i, t := range columns {
		fields[i] = arrow.Field{Name: f.Names[i], Type: t.Arrow(), Nullable: true}
		d.builders[i] = array.NewBuilder(memory.DefaultAllocator, t.Arrow())
	}
	d.schema = arrow.NewSchema(fields, nil)
	return d
}

// Feed adds the next piece of the stream. Input after the end of data
// (Done) is ignored.
func (s *Decoder) Feed(data []byte) {
	if s.Ended() {
		return
	}
	if s.pos > 0 {
		n := copy(s.in, s.in[s.pos:])
		s.in = s.in[:n]
		s.scan -= s.pos
		s.pos = 0
	}
	s.in = append(s.in, data...)
}

// Finish says that no more input will come: the last line may lack its
// newline, and an incomplete record is an error.
func (s *Decoder) Finish() { s.finished = true }

// Done reports whether the data ended with the \. marker or the binary
// trailer.
func (s *Decoder) Done() bool { return s.done }

// Ended reports whether no more rows can come: Finish was called or the
// data ended.
func (s *Decoder) Ended() bool { return s.finished || s.done }

// ReadRow decodes the next row; false at the end of data, ErrMoreInput
// when it needs more input first. Errors in the data are *DataError.
func (s *Decoder) ReadRow() (bool, error) {
	if s.done {
		return false, nil
	}
	if s.f.Kind == 'b' {
		ok, err := s.readBinaryRow()
		if ok {
			s.pending++
		}
		return ok, err
	}
	for {
		rec, ok, err := s.nextRecord()
		if err != nil || !ok {
			return false, err
		}
		s.line++
		if s.f.Header && !s.headerDone {
			s.headerDone = true
			continue
		}
		if string(rec) == `\.` {
			// End-of-data marker: anything after it is ignored.
			s.done = true
			return false, nil
		}
		if s.f.Kind == 'c' {
			err = s.appendCSVRecord(rec)
		} else {
			err = s.appendTextRecord(rec)
		}
		if err == nil {
			s.pending++
		}
		return err == nil, err
	}
}

// nextRecord returns the next line (text) or record (csv, where a quoted
// field may hold newlines) without its line ending. The slice is valid
// until the next Feed.
func (s *Decoder) nextRecord() ([]byte, bool, error) {
	var rec []byte
	var found bool
	if s.f.Kind == 'c' {
		rec, found = s.findCSVRecord()
	} else {
		rec, found = s.findTextLine()
	}
	if found {
		return rec, true, nil
	}
	if !s.finished {
		return nil, false, ErrMoreInput
	}
	if s.pos >= len(s.in) {
		return nil, false, nil
	}
	// The last line may lack its newline.
	if s.f.Kind == 'c' && s.inQuote {
		s.line++
		return nil, false, s.lineError(sqlerr.BadCopyFileFormat, "unterminated CSV quoted field", s.in[s.pos:])
	}
	rec = s.in[s.pos:]
	s.pos, s.scan = len(s.in), len(s.in)
	return trimCR(rec), true, nil
}

// Flush returns the rows decoded since the last Flush as one batch (nil
// when there are none); the caller owns it.
func (s *Decoder) Flush() arrow.RecordBatch {
	if s.pending == 0 {
		return nil
	}
	cols := make([]arrow.Array, len(s.builders))
	for i, b := range s.builders {
		cols[i] = b.NewArray()
	}
	rec := array.NewRecordBatch(s.schema, cols, int64(s.pending))
	for _, a := range cols {
		a.Release()
	}
	s.pending = 0
	return rec
}

// Release frees the decoder's builders; it must not be used after.
func (s *Decoder) Release() {
	for i, b := range s.builders {
		if b != nil {
			b.Release()
			s.builders[i] = nil
		}
	}
}
