package filesink

import (
	"bufio"
	"os"

	"github.com/apache/arrow-go/v18/arrow"
)

// fileWriter writes one data file of one format. The rows it gets are
// the data columns (the partition columns left out).
type fileWriter interface {
	// write appends the rows of b.
	write(b arrow.RecordBatch) error
	// size is about how many bytes the file holds so far.
	size() int64
	// finish flushes, syncs and closes the file.
	finish() error
	// abort closes the file without caring for its contents.
	abort()
}

// newFileWriter creates path (a temporary name) for the sink's format.
func (s *Sink) newFileWriter(path string) (fileWriter, error) {
	f, err := os.OpenFile(path, os.O_CREATE|os.O_EXCL|os.O_WRONLY, 0o644)
	if err != nil {
		return nil, err
	}
	cf := &countingFile{f: f}
	cf.w = bufio.NewWriterSize(countWriter{cf}, 256<<10)
	switch s.o.Format {
	case FormatParquet:
		return newParquetWriter(cf, s.fileSchema, s.dataCols)
	case FormatJSON:
		return &jsonWriter{cf: cf, rowJSON: s.o.RowJSON}, nil
	default:
		w := &csvWriter{cf: cf, cols: s.dataCols, fs: s.text}
		if _, err := cf.w.Write(s.csvHeader()); err != nil {
			cf.abort()
			return nil, err
		}
		return w, nil
	}
}

// countingFile is a data file being written through a buffer, counting
// the bytes that reached the file.
type countingFile struct {
	f *os.File
	w *bufio.Writer
	n int64
}

type countWriter struct{ c *countingFile }

func (w countWriter) Write(p []byte) (int, error) {
	n, err := w.c.f.Write(p)
	w.c.n += int64(n)
	return n, err
}

func (c *countingFile) Write(p []byte) (int, error) { return c.w.Write(p) }

// written is the bytes written so far, buffered or not.
func (c *countingFile) written() int64 { return c.n + int64(c.w.Buffered()) }

func (c *countingFile) finish() error {
	if err := c.w.Flush(); err != nil {
		c.f.Close()
		return err
	}
	if err := c.f.Sync(); err != nil {
		c.f.Close()
		return err
	}
	return c.f.Close()
}

func (c *countingFile) abort() { c.f.Close() }
