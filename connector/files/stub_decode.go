package files

// STUB: the decoding half's entry points, owned by the decoding work;
// replaced by format_*.go / infer*.go (delete this file then).

import (
	"github.com/apache/arrow-go/v18/arrow"

	"github.com/weir-sql/weir/sql/sqlerr"
)

// DecodeStats is what decoding one file found besides its rows.
type DecodeStats struct {
	Rows       int64
	Rescued    int64    // rows with something in the rescued column
	NewColumns []Column // fields the schema lacks (their values went to the rescued column)
}

// ArrowSchema is the Arrow schema of s's rows (Columns, rescued, _metadata).
func ArrowSchema(s Schema) *arrow.Schema {
	panic("files.ArrowSchema: not built yet")
}

// DecodeFile reads one whole file into batches of at most batchRows rows
// of ArrowSchema(s). A value that does not parse as its column's type,
// and a field the schema lacks, go to the rescued column (with the file
// and line) instead of failing; an unreadable or damaged file is an error
// (XX001 for damage, 58030 for I/O).
func DecodeFile(info FileInfo, o Options, s Schema, batchRows int) ([]arrow.RecordBatch, DecodeStats, error) {
	return nil, DecodeStats{}, sqlerr.New(sqlerr.FeatureNotSupported, "reading %s files is not built yet", o.Format)
}

// Infer samples files (at most sampleFiles of them, sampleBytes in all)
// and returns their schema: the union of their fields with types widened,
// then o.SchemaHints applied; o.Schema given: that schema, parsed. Version 1.
func Infer(files []FileInfo, o Options, sampleFiles int, sampleBytes int64) (Schema, error) {
	return Schema{}, sqlerr.New(sqlerr.FeatureNotSupported, "schema inference is not built yet")
}
