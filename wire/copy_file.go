package wire

import (
	"bufio"
	"context"
	"io"

	"github.com/apache/arrow-go/v18/arrow"

	"github.com/weir-sql/weir/sql/sqlerr"
	"github.com/weir-sql/weir/sql/types"
	"github.com/weir-sql/weir/sql/types/copyformat"
)

// COPY to and from a server file (COPY t FROM '/path', COPY t TO '/path'):
// the same formats, decoding and encoding as COPY FROM STDIN / TO STDOUT,
// over a file the engine opened (it decides who may, and where).

// CopyFromReader returns a source decoding COPY data read from r, in the
// given column types. Data errors name the line as COPY FROM STDIN's do
// (opts.Table names the table in their CONTEXT).
func CopyFromReader(ctx context.Context, r io.Reader, opts CopyOptions, columns []types.T, fs types.FormatSettings) (CopySource, error) {
	f, err := parseCopyOptions(opts, len(columns))
	if err != nil {
		return nil, err
	}
	dec := copyformat.NewDecoder(copyformat.Format{Kind: f.kind, Delimiter: f.delimiter, Quote: f.quote, Escape: f.escape,
		Null: f.null, Header: f.header, Table: f.table, Names: f.names}, columns, fs)
	return &fileCopySource{ctx: ctx, r: r, dec: dec, chunk: make([]byte, 256<<10)}, nil
}

type fileCopySource struct {
	ctx   context.Context
	r     io.Reader
	dec   *copyformat.Decoder
	chunk []byte
	rows  int64
	err   error
}

func (s *fileCopySource) Rows() int64 { return s.rows }

func (s *fileCopySource) Next() (arrow.RecordBatch, error) {
	if s.err != nil {
		return nil, s.err
	}
	n := 0
	for n < copyBatchRows {
		ok, err := s.dec.ReadRow()
		if err == copyformat.ErrMoreInput {
			if err = s.read(); err == nil {
				continue
			}
		}
		if err != nil {
			s.dec.Release()
			s.err = err
			return nil, err
		}
		if !ok {
			break
		}
		n++
		s.rows++
	}
	if n == 0 {
		return nil, nil
	}
	return s.dec.Flush(), nil
}

// read feeds the decoder the file's next piece (Finish at its end).
func (s *fileCopySource) read() error {
	if err := s.ctx.Err(); err != nil {
		return errCopyCanceled()
	}
	k, err := s.r.Read(s.chunk)
	if k > 0 {
		s.dec.Feed(s.chunk[:k])
	}
	if err == io.EOF {
		s.dec.Finish()
		return nil
	}
	if err != nil {
		return sqlerr.New(sqlerr.IOError, "could not read from COPY file: %v", err)
	}
	return nil
}

// CopyToWriter writes every row of res to w in the requested COPY format
// (the header first when asked) and returns the number of rows written.
func CopyToWriter(ctx context.Context, w io.Writer, opts CopyOptions, res Result, fs types.FormatSettings) (int64, error) {
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
	sink := &fileSink{w: bufio.NewWriterSize(w, 256<<10)}
	cw := copyWriter{f: &f, cols: cols, fs: fs, file: sink}
	switch {
	case f.kind == 'b':
		cw.sendData(append(append([]byte{}, copyformat.BinarySignature...), 0, 0, 0, 0, 0, 0, 0, 0))
	case f.header:
		cw.sendHeader()
	}
	var n int64
	for {
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
			if err := cw.sendRow(b, i); err != nil {
				return n, err
			}
			n++
		}
		if sink.err != nil {
			break
		}
	}
	if f.kind == 'b' {
		cw.sendData([]byte{0xff, 0xff})
	}
	if sink.err == nil {
		sink.err = sink.w.Flush()
	}
	if sink.err != nil {
		return n, sqlerr.New(sqlerr.IOError, "could not write to COPY file: %v", sink.err)
	}
	return n, nil
}

// fileSink is where a copyWriter writing a file puts its data.
type fileSink struct {
	w   *bufio.Writer
	row []byte
	err error
}

func (s *fileSink) write(data []byte) {
	if s.err == nil {
		_, s.err = s.w.Write(data)
	}
}
