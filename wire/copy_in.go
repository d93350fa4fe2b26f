package wire

import (
	"context"
	"errors"
	"net"
	"sync"
	"time"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/jackc/pgx/v5/pgproto3"

	"github.com/weir-sql/weir/sql/sqlerr"
	"github.com/weir-sql/weir/sql/types"
	"github.com/weir-sql/weir/sql/types/copyformat"
)

// copyBatchRows is how many COPY rows go into one Arrow batch.
const copyBatchRows = 8192

// CopyDataError is a COPY FROM STDIN data error. Err is what the client
// sees as the error; Context is PostgreSQL's CONTEXT line, e.g.
// `COPY t, line 3, column x: "abc"`, sent as the ErrorResponse's Where.
// The decoding of COPY data is package copyformat's, which a file source
// shares.
type CopyDataError = copyformat.DataError

// CopyIn implements ExecIO: it sends CopyInResponse and returns the source
// that decodes the client's CopyData stream.
func (x *execIO) CopyIn(ctx context.Context, opts CopyOptions, columns []types.T) (CopySource, error) {
	c := x.c
	f, err := parseCopyOptions(opts, len(columns))
	if err != nil {
		return nil, err
	}
	s := &copyInSource{c: c, dec: copyformat.NewDecoder(copyformat.Format{Kind: f.kind, Delimiter: f.delimiter,
		Quote: f.quote, Escape: f.escape, Null: f.null, Header: f.header, Table: f.table, Names: f.names},
		columns, c.sess.FormatSettings())}
	s.ctx = ctx
	s.stopWatch = context.AfterFunc(ctx, s.interrupt)
	c.copyIn = s
	c.send(&pgproto3.CopyInResponse{OverallFormat: f.overall(), ColumnFormatCodes: f.columnFormats(len(columns))})
	c.flush()
	if c.broken {
		s.clientDone = true
		s.dec.Finish()
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
		if c.copyIn.dec.Ended() && c.copyIn.err == nil {
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

// copyInSource receives COPY FROM STDIN data and has its decoder turn it
// into Arrow batches.
type copyInSource struct {
	c   *conn
	dec *copyformat.Decoder

	clientDone bool // CopyDone or CopyFail read: the client's stream is over
	rows       int64
	err        error

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
		ok, err := s.dec.ReadRow()
		if err == copyformat.ErrMoreInput {
			if err = s.receive(); err == nil {
				continue
			}
		}
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
	return s.dec.Flush(), nil
}

func (s *copyInSource) fail(err error) error {
	s.releaseBuilders()
	if s.err == nil {
		s.err = err
	}
	return s.err
}

func (s *copyInSource) releaseBuilders() { s.dec.Release() }

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
		s.clientDone = true
		s.dec.Finish()
		s.c.receiveFailed(err)
		s.c.broken = true
		return errWriteFailed
	}
	switch m := msg.(type) {
	case *pgproto3.CopyData:
		s.dec.Feed(m.Data) // dropped after the \. marker or the binary trailer
	case *pgproto3.CopyDone:
		s.clientDone = true
		s.dec.Finish()
	case *pgproto3.CopyFail:
		s.clientDone = true
		s.dec.Finish()
		return sqlerr.New(sqlerr.QueryCanceled, "COPY from stdin failed: %s", m.Message)
	case *pgproto3.Flush, *pgproto3.Sync:
		// Ignored during COPY IN, as the protocol says.
	default:
		s.clientDone = true
		s.dec.Finish()
		return sqlerr.New(sqlerr.ProtocolViolation, "unexpected message type %T during COPY from stdin", msg)
	}
	return nil
}

func errCopyCanceled() error {
	return sqlerr.New(sqlerr.QueryCanceled, "canceling statement due to user request")
}
