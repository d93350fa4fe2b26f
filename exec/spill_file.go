package exec

import (
	"bufio"
	"context"
	"errors"
	"io"
	"os"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/ipc"
	"github.com/apache/arrow-go/v18/arrow/memory"
)

// spillWriter writes batches of one schema to a temporary file in the
// Arrow IPC stream format: a sorted run of an external sort, or one hash
// partition of an aggregate, a join side, DISTINCT or a set operation.
// The file lives under the query's spill directory and is removed when it
// has been read back (and in any case when the query ends).
type spillWriter struct {
	f       *os.File
	buf     *bufio.Writer
	w       *ipc.Writer
	rows    int64
	batches int64
	bytes   int64 // of the batches in memory
}

func newSpillWriter(q *QueryMemory, what string, schema *arrow.Schema) (*spillWriter, error) {
	f, err := q.newSpillFile(what)
	if err != nil {
		return nil, err
	}
	buf := bufio.NewWriterSize(f, 256<<10)
	return &spillWriter{f: f, buf: buf, w: ipc.NewWriter(buf, ipc.WithSchema(schema))}, nil
}

func (s *spillWriter) write(b arrow.RecordBatch) error {
	if b.NumRows() == 0 {
		return nil
	}
	s.rows += b.NumRows()
	s.batches++
	s.bytes += batchBytes(b)
	if err := s.w.Write(b); err != nil {
		return spillIOError(err)
	}
	return nil
}

// finish flushes the file and returns it for reading.
func (s *spillWriter) finish() (*spillFile, error) {
	err := s.w.Close()
	if err == nil {
		err = s.buf.Flush()
	}
	path := s.f.Name()
	if cerr := s.f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		os.Remove(path)
		return nil, spillIOError(err)
	}
	return &spillFile{path: path, rows: s.rows, batches: s.batches, bytes: s.bytes}, nil
}

// abandon closes and removes a file that will not be read.
func (s *spillWriter) abandon() {
	s.w.Close()
	s.f.Close()
	os.Remove(s.f.Name())
}

// spillFile is a finished spill file.
type spillFile struct {
	path    string
	rows    int64
	batches int64
	bytes   int64 // the batches' size in memory
}

func (f *spillFile) remove() { os.Remove(f.path) }

// spillReader reads a spill file's batches back in order. A returned batch
// is valid until the next call of next or close.
type spillReader struct {
	file *spillFile
	f    *os.File
	r    *ipc.Reader
	keep bool // close leaves the file, to be read again (openSpillAgain)
}

func openSpill(file *spillFile, mem memory.Allocator) (*spillReader, error) {
	f, err := os.Open(file.path)
	if err != nil {
		return nil, spillIOError(err)
	}
	r, err := ipc.NewReader(bufio.NewReaderSize(f, 256<<10), ipc.WithAllocator(mem))
	if err != nil {
		f.Close()
		return nil, spillIOError(err)
	}
	return &spillReader{file: file, f: f, r: r}, nil
}

// openSpillAgain opens a spill file that is read more than once (the
// inner side of a block nested-loop join): closing this reader leaves the
// file, which its owner removes with file.remove when done with it.
func openSpillAgain(file *spillFile, mem memory.Allocator) (*spillReader, error) {
	r, err := openSpill(file, mem)
	if err != nil {
		return nil, err
	}
	r.keep = true
	return r, nil
}

// next returns the next batch, or nil at the end.
func (s *spillReader) next() (arrow.RecordBatch, error) {
	if s.r.Next() {
		return s.r.RecordBatch(), nil
	}
	if err := s.r.Err(); err != nil && !errors.Is(err, io.EOF) {
		return nil, spillIOError(err)
	}
	return nil, nil
}

// close closes the reader and removes the file: a spill file is read
// once, unless it was opened with openSpillAgain.
func (s *spillReader) close() {
	s.r.Release()
	s.f.Close()
	if !s.keep {
		s.file.remove()
	}
}

// spillScanOp is an Operator over a spill file: how a partition's rows are
// fed back through an operator's own code.
type spillScanOp struct {
	env  *Env
	file *spillFile
	rd   *spillReader
	done bool
}

var _ Operator = (*spillScanOp)(nil)

func (s *spillScanOp) Next(ctx context.Context) (arrow.RecordBatch, error) {
	if err := checkCancel(ctx, s.env); err != nil {
		return nil, err
	}
	if s.done {
		return nil, nil
	}
	if s.rd == nil {
		rd, err := openSpill(s.file, s.env.exprCtx().Allocator())
		if err != nil {
			return nil, err
		}
		s.rd = rd
	}
	b, err := s.rd.next()
	if err != nil {
		return nil, err
	}
	if b == nil {
		s.done = true
		s.rd.close()
		s.rd = nil
	}
	return b, nil
}

func (s *spillScanOp) Close() {
	if s.rd != nil {
		s.rd.close()
		s.rd = nil
	} else if !s.done {
		s.file.remove()
	}
}
