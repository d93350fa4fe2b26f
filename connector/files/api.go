package files

import (
	"time"

	"github.com/weir-sql/weir/sql/types"
)

// The types both halves of the package share. Their fields are the
// contract between decoding (format_*.go) and the source (source*.go) and
// between this package and the engine; keep them stable.

// Column is one data column of a files source.
type Column struct {
	Name string
	Type types.T
}

// Schema is what a files source's rows hold, in this column order:
// Columns, then (when Rescued != "") the rescued-data column of type jsonb
// named Rescued, then always the _metadata column (MetadataColumn), a
// struct of file_path text, file_name text, file_size bigint,
// file_modification_time timestamptz. Version counts schema changes from
// 1 (evolution adds columns and bumps it).
type Schema struct {
	Columns []Column
	Rescued string
	Version int
}

// MetadataColumn is the name of the hidden struct column every row of a
// files source carries (Databricks' _metadata). SELECT * leaves it out;
// it is read by name (_metadata.file_path).
const MetadataColumn = "_metadata"

// Evolution modes (Databricks' schemaEvolutionMode).
const (
	EvolveAddNewColumns    = "addNewColumns"
	EvolveRescue           = "rescue"
	EvolveFailOnNewColumns = "failOnNewColumns"
	EvolveNone             = "none"
)

// Options are a files source's options, typed: read_files' named
// arguments or CREATE SOURCE's WITH list, in Databricks' names
// (ParseOptions in options.go checks them).
type Options struct {
	Path   string // as the user gave it: a folder, a file or a glob
	Format string // json (JSON lines), csv, parquet, text

	// Schema is the user's schema ('a INT, b STRING'), "" to infer;
	// SchemaHints overrides inferred types of the columns it names.
	Schema           string
	SchemaHints      string
	InferColumnTypes bool // default true; false: every inferred column is text (json/csv)
	EvolutionMode    string
	RescuedColumn    string // default "_rescued_data"; "" only when no rescue is wanted

	// CSV.
	Header    bool   // default false, as Databricks' read_files
	Delimiter byte   // default ','
	Quote     byte   // default '"'
	Escape    byte   // default '"' (a doubled quote)
	NullValue string // default ""
	MultiLine bool   // multiLine: a quoted value may span lines (default false, as Spark's: a record ends at its line's end)

	// Discovery.
	PathGlobFilter     string    // a glob on file names, "" all
	Recursive          bool      // recursiveFileLookup: descend into folders (default true)
	ModifiedAfter      time.Time // zero: no bound
	ModifiedBefore     time.Time // zero: no bound
	MaxFilesPerTrigger int       // default 1000
	MaxBytesPerTrigger int64     // 0: no bound (at least one file per trigger)

	// ReadColumns, when not nil, names the only columns a reader reads
	// (data columns, the rescued column, MetadataColumn): the engine
	// derives it from the plan of the table reading the source, which is
	// fixed for that table. The others are not converted and come all
	// NULL — unless the rescued column is read, as a value that does not
	// parse shows there: then every column is decoded. Rows and batches
	// are the same whatever it holds.
	ReadColumns []string

	// IgnoreCorruptFiles: a file decoding finds damaged (XX001) is
	// entered in the processed-file log with no rows and reported,
	// instead of failing the table.
	IgnoreCorruptFiles bool
}

// FileInfo is what a row's _metadata says of its file.
type FileInfo struct {
	Path     string // absolute
	Name     string // base name
	Size     int64
	Modified time.Time
}
