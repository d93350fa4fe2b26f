package files

import (
	"errors"
	"fmt"
	"io/fs"

	"github.com/apache/arrow-go/v18/arrow"

	"github.com/weir-sql/weir/sql/sqlerr"
)

// DecodeStats is what decoding one file found besides its rows.
type DecodeStats struct {
	Rows       int64
	Rescued    int64    // rows with something in the rescued column
	NewColumns []Column // fields the schema lacks (their values went to the rescued column), types inferred from this file
}

// DecodeFile reads one whole file into batches of at most batchRows rows
// (8192 when batchRows <= 0) of ArrowSchema(s). A value that does not
// parse as its column's type, and a field the schema lacks, go to the
// rescued column (with the file and line) instead of failing; so does a
// malformed line (JSON) or a row whose cell count is wrong (CSV). An
// unreadable file is an error (58030; 58P01 when it has vanished), a
// damaged Parquet file too (XX001).
//
// Every batch holds rows of the one file (the engine checks a batch's
// file by its first and last rows' _metadata).
//
// DecodeFile keeps no state between calls: files may be decoded
// concurrently, each on its own goroutine. The caller releases the
// batches.
func DecodeFile(info FileInfo, o Options, s Schema, batchRows int) (out []arrow.RecordBatch, st DecodeStats, err error) {
	switch o.Format {
	case "parquet":
		return decodeParquetFile(info, o, s, batchRows)
	case "json", "csv", "text":
	default:
		return nil, DecodeStats{}, errFormat(o.Format)
	}
	data, done, err := readWhole(info.Path, -1) // filebuf.go
	if err != nil {
		return nil, DecodeStats{}, ioError(info.Path, err)
	}
	defer done()
	return decodeBytes(data, info, o, s, batchRows)
}

// decodeBytes decodes a file's contents (json, csv, text).
func decodeBytes(data []byte, info FileInfo, o Options, s Schema, batchRows int) ([]arrow.RecordBatch, DecodeStats, error) {
	var decode func([]byte, *batchWriter)
	switch o.Format {
	case "json":
		decode = decodeJSON
	case "csv":
		o = withCSVDefaults(o)
		decode = func(d []byte, w *batchWriter) { decodeCSV(d, o, w) }
	case "text":
		decode = decodeText
	default:
		return nil, DecodeStats{}, errFormat(o.Format)
	}
	w := newBatchWriter(info, o, s, batchRows)
	w.reserveFor(data)
	if err := guard(info.Path, func() { decode(data, w) }); err != nil {
		w.discard()
		return nil, DecodeStats{}, err
	}
	out, st := w.finish()
	return out, st, nil
}

func errFormat(f string) error {
	return sqlerr.New(sqlerr.FeatureNotSupported, "files of format %q cannot be read", f).
		WithHint("The formats are json, csv, parquet and text.")
}

// codeUndefinedFile is PostgreSQL's undefined_file (58P01), which
// sqlerr does not name.
const codeUndefinedFile = "58P01"

// ioError maps a file system error to PostgreSQL's codes for one.
func ioError(path string, err error) error {
	if errors.Is(err, fs.ErrNotExist) {
		return sqlerr.New(codeUndefinedFile, "could not open file \"%s\" for reading: No such file or directory", path)
	}
	return sqlerr.New(sqlerr.IOError, "could not read file \"%s\": %v", path, err)
}

// guard runs f, turning a panic (a library's, on input it did not
// expect) into XX001: a damaged file must not take the server down.
func guard(path string, f func()) (err error) {
	defer func() {
		if r := recover(); r != nil {
			err = sqlerr.New(sqlerr.DataCorrupted, "could not decode file \"%s\": %s", path, fmt.Sprint(r))
		}
	}()
	f()
	return nil
}
