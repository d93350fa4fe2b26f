package wire

import (
	"context"
	"errors"
	"net"
	"sync"
	"time"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/jackc/pgx/v5/pgproto3"

	"github.com/weir-sql/weir/sql/sqlerr"
	"github.com/weir-sql/weir/sql/types"
)

// copyBatchRows is how many COPY rows go into one Arrow batch.
const copyBatchRows = 8192

// binaryCopySignature starts every binary COPY stream.
var binaryCopySignature = []byte("PGCOPY\n\xff\r\n\x00")

// CopyDataError is a COPY FROM STDIN data error. Err is what the client
// sees as the error; Context is PostgreSQL's CONTEXT line, e.g.
// `COPY t, line 3, column x: "abc"`, sent as the ErrorResponse's Where.
type CopyDataError struct {
	Err     *sqlerr.Error
	Context string
}

func (e *CopyDataError) Error() string { return e.Err.Message }
func (e *CopyDataError) Unwrap() error { return e.Err }

// CopyIn implements ExecIO: it sends CopyInResponse and returns the source
// that decodes the client's CopyData stream.
func (x *execIO) CopyIn(ctx context.Context, opts CopyOptions, columns []types.T) (CopySource, error) {
	c := x.c
	f, err := parseCopyOptions(opts, len(columns))
	if err != nil {
		return nil, err
	}
	s := &copyInSource{c: c, f: f, types: columns, fs: c.sess.FormatSettings()}
	fields := make([]arrow.Field, len(columns))
	s.builders = make([]array.Builder, len(columns))
	for i, t := range columns {
		fields[i] = arrow.Field{Name: f.names[i], Type: t.Arrow(), Nullable: true}
		s.builders[i] = array.NewBuilder(memory.DefaultAllocator, t.Arrow())
	}
	s.schema = arrow.NewSchema(fields, nil)
	s.ctx = ctx
	s.stopWatch = context.AfterFunc(ctx, s.interrupt)
	c.copyIn = s
	c.send(&pgproto3.CopyInResponse{OverallFormat: f.overall(), ColumnFormatCodes: f.columnFormats(len(columns))})
	c.flush()
	if c.broken {
		s.clientDone, s.dataEnd = true, true
		s.err = errWriteFailed
	}
	return s, nil
}

// finishCopyIn ends the statement's COPY FROM STDIN, if any. A COPY whose
// data ended (the \. marker or the binary trailer) reads the client's
// CopyDone now. A COPY stopped in the middle (bad data, a cancel, an error
// storing rows) does not wait for the rest of the stream: as in
// PostgreSQL, the error goes out at once and the main loop drops the
// CopyData/CopyDone/CopyFail still arriving. Waiting here would deadlock a
// client such as pgx, which sends CopyDone only after it has seen the
// error, and would make a cancelled COPY of an endless stream never end.
func (c *conn) finishCopyIn() {
	if c.copyIn != nil {
		c.copyIn.unwatch()
		if c.copyIn.dataEnd && c.copyIn.err == nil {
			c.copyIn.drain()
		}
		c.copyIn.releaseBuilders()
		c.copyIn = nil
	}
}

// interrupt runs when the statement's context ends during the COPY: a
// receive blocked on a client that sends nothing returns at once (a read
// deadline in the past), and receive turns the timeout into 57014.
func (s *copyInSource) interrupt() {
	s.watchMu.Lock()
	defer s.watchMu.Unlock()
	if !s.finished {
		s.interrupted = true
		_ = s.c.nc.SetReadDeadline(time.Now())
	}
}

// unwatch ends the context watch; a deadline interrupt set is cleared so
// that the connection reads normally again.
func (s *copyInSource) unwatch() {
	if s.stopWatch != nil {
		s.stopWatch()
	}
	s.watchMu.Lock()
	defer s.watchMu.Unlock()
	s.finished = true
	if s.interrupted {
		s.interrupted = false
		_ = s.c.nc.SetReadDeadline(time.Time{})
	}
}

// finishCopyInQuietly forgets a COPY interrupted by the end of the
// connection without reading from a socket that is going away.
func (c *conn) finishCopyInQuietly() {
	if c.copyIn != nil {
		c.copyIn.unwatch()
		c.copyIn.releaseBuilders()
		c.copyIn = nil
	}
}

// copyInSource decodes COPY FROM STDIN data into Arrow batches.
type copyInSource struct {
	c        *conn
	f        copyFormat
	types    []types.T
	fs       types.FormatSettings
	schema   *arrow.Schema
	builders []array.Builder

	in      []byte // received input; in[pos:] is not yet consumed
	pos     int
	scan    int  // the search for the current record's end has looked at in[pos:scan]
	inQuote bool // csv: the scan stopped inside quotes

	clientDone bool // CopyDone or CopyFail read: the client's stream is over
	dataEnd    bool // no more data: CopyDone, the \. marker or the binary trailer
	headerDone bool
	noMoreRows bool  // the \. marker or the binary trailer was read
	line       int64 // number of the record being decoded, as in PostgreSQL's CONTEXT
	rows       int64
	err        error

	field []byte // scratch for a de-escaped value

	ctx         context.Context
	stopWatch   func() bool
	watchMu     sync.Mutex
	interrupted bool // interrupt set a read deadline
	finished    bool // unwatch ran: interrupt must not touch the socket
}

var _ CopySource = (*copyInSource)(nil)

func (s *copyInSource) Rows() int64 { return s.rows }

func (s *copyInSource) Next() (arrow.RecordBatch, error) {
	if s.err != nil {
		return nil, s.err
	}
	n := 0
	for n < copyBatchRows {
		ok, err := s.readRow()
		if err != nil {
			return nil, s.fail(err)
		}
		if !ok {
			break
		}
		n++
		s.rows++
	}
	if n == 0 {
		s.drain()
		if s.err != nil {
			return nil, s.err
		}
		return nil, nil
	}
	cols := make([]arrow.Array, len(s.builders))
	for i, b := range s.builders {
		cols[i] = b.NewArray()
	}
	rec := array.NewRecordBatch(s.schema, cols, int64(n))
	for _, a := range cols {
		a.Release()
	}
	return rec, nil
}

func (s *copyInSource) fail(err error) error {
	s.releaseBuilders()
	if s.err == nil {
		s.err = err
	}
	return s.err
}

func (s *copyInSource) releaseBuilders() {
	for i, b := range s.builders {
		if b != nil {
			b.Release()
			s.builders[i] = nil
		}
	}
}

// drain reads and drops the client's stream up to CopyDone or CopyFail.
func (s *copyInSource) drain() {
	for !s.clientDone {
		err := s.receive()
		if err != nil && s.err == nil {
			s.err = err
		}
		if err != nil && s.ctx != nil && s.ctx.Err() != nil {
			return // cancelled: the main loop drops the rest
		}
	}
}

// receive reads one message of the COPY stream.
func (s *copyInSource) receive() error {
	if s.ctx != nil && s.ctx.Err() != nil {
		return errCopyCanceled()
	}
	msg, err := s.c.be.Receive()
	if err != nil && s.ctx != nil && s.ctx.Err() != nil {
		var ne net.Error
		if errors.As(err, &ne) && ne.Timeout() {
			// Our interrupt, not the client: the stream is intact (the
			// partial message stays buffered) and the main loop drops the
			// rest of it.
			s.unwatch()
			return errCopyCanceled()
		}
	}
	if err != nil {
		s.clientDone, s.dataEnd = true, true
		s.c.receiveFailed(err)
		s.c.broken = true
		return errWriteFailed
	}
	switch m := msg.(type) {
	case *pgproto3.CopyData:
		if s.dataEnd {
			return nil // after the \. marker or the binary trailer
		}
		if s.pos > 0 {
			n := copy(s.in, s.in[s.pos:])
			s.in = s.in[:n]
			s.scan -= s.pos
			s.pos = 0
		}
		s.in = append(s.in, m.Data...)
	case *pgproto3.CopyDone:
		s.clientDone, s.dataEnd = true, true
	case *pgproto3.CopyFail:
		s.clientDone, s.dataEnd = true, true
		return sqlerr.New(sqlerr.QueryCanceled, "COPY from stdin failed: %s", m.Message)
	case *pgproto3.Flush, *pgproto3.Sync:
		// Ignored during COPY IN, as the protocol says.
	default:
		s.clientDone, s.dataEnd = true, true
		return sqlerr.New(sqlerr.ProtocolViolation, "unexpected message type %T during COPY from stdin", msg)
	}
	return nil
}

func errCopyCanceled() error {
	return sqlerr.New(sqlerr.QueryCanceled, "canceling statement due to user request")
}

// readRow decodes the next row into the builders; false at the end of data.
func (s *copyInSource) readRow() (bool, error) {
	if s.noMoreRows {
		return false, nil
	}
	if s.f.kind == 'b' {
		return s.readBinaryRow()
	}
	for {
		rec, ok, err := s.nextRecord()
		if err != nil || !ok {
			return false, err
		}
		s.line++
		if s.f.header && !s.headerDone {
			s.headerDone = true
			continue
		}
		if string(rec) == `\.` {
			// End-of-data marker: anything after it is ignored.
			s.dataEnd, s.noMoreRows = true, true
			return false, nil
		}
		if s.f.kind == 'c' {
			return true, s.appendCSVRecord(rec)
		}
		return true, s.appendTextRecord(rec)
	}
}

// nextRecord returns the next line (text) or record (csv, where a quoted
// field may hold newlines) without its line ending, receiving more input
// as needed. The slice is valid until the next receive.
func (s *copyInSource) nextRecord() ([]byte, bool, error) {
	for {
		var rec []byte
		var found bool
		if s.f.kind == 'c' {
			rec, found = s.findCSVRecord()
		} else {
			rec, found = s.findTextLine()
		}
		if found {
			return rec, true, nil
		}
		if s.dataEnd {
			if s.pos >= len(s.in) {
				return nil, false, nil
			}
			// The last line may lack its newline.
			if s.f.kind == 'c' && s.inQuote {
				s.line++
				return nil, false, s.lineError(sqlerr.BadCopyFileFormat, "unterminated CSV quoted field", s.in[s.pos:])
			}
			rec = s.in[s.pos:]
			s.pos, s.scan = len(s.in), len(s.in)
			return trimCR(rec), true, nil
		}
		if err := s.receive(); err != nil {
			return nil, false, err
		}
	}
}
