package filesink

import (
	"strconv"
	"strings"
	"time"

	"github.com/apache/arrow-go/v18/arrow"

	"github.com/weir-sql/weir/sql/sqlerr"
	"github.com/weir-sql/weir/sql/types"
)

// Formats.
const (
	FormatParquet = "parquet"
	FormatJSON    = "json" // JSON lines: one object per row
	FormatCSV     = "csv"  // with a header line
)

// DefaultTargetFileSize is target_file_size's default (Databricks' 128MB).
const DefaultTargetFileSize = 128 << 20

// Column is one column of the batches the sink is given.
type Column struct {
	Name string
	Type types.T
}

// Options configure a files sink.
type Options struct {
	// Dir is the target folder (absolute); it is created when missing.
	Dir    string
	Format string // FormatParquet, FormatJSON or FormatCSV
	// Columns are the columns of every batch Write gets, in order.
	Columns []Column
	// TargetFileSize: a data file is closed once it holds about this many
	// bytes and the epoch's next rows go to a new one; files smaller than a
	// quarter of it are merged by later epochs (compact.go). 0: the
	// default.
	TargetFileSize int64
	// PartitionBy names columns whose values make Hive-style folders
	// (col=value/); the files leave those columns out, as Spark's do.
	PartitionBy []string
	// CompactFiles is how many small files of a folder make a compaction
	// (0: 8).
	CompactFiles int
	// RowJSON appends row i of cols (the data columns, without the
	// partition columns) as one JSON object, as PostgreSQL's row_to_json
	// prints it. Required for FormatJSON. (This package may not use
	// sql/expr, which owns PostgreSQL's JSON output.)
	RowJSON func(buf []byte, cols []arrow.Array, i int) []byte
	// ReplacedRetention is how long files a compaction replaced stay on
	// disk after its epoch commits, for readers that listed them before
	// (0: one minute; negative: none).
	ReplacedRetention time.Duration
	// Format is how values are printed as text (CSV, partition values);
	// nil: types.DefaultFormat (UTC).
	Text *types.FormatSettings
	// Crash, when set, is called at each crash point (doc.go's steps), in
	// this order: "filesink-after-write", "filesink-after-rename",
	// "filesink-after-manifest". Tests kill the process there (the engine
	// passes internal/failpoint's Hit: WEIR_FAILPOINT=filesink-after-rename).
	Crash func(point string)
}

func (o *Options) targetSize() int64 {
	if o.TargetFileSize > 0 {
		return o.TargetFileSize
	}
	return DefaultTargetFileSize
}

func (o *Options) replacedRetention() time.Duration {
	switch {
	case o.ReplacedRetention < 0:
		return 0
	case o.ReplacedRetention == 0:
		return time.Minute
	}
	return o.ReplacedRetention
}

func (o *Options) compactFiles() int {
	if o.CompactFiles > 0 {
		return o.CompactFiles
	}
	return 8
}

func (o *Options) crash(point string) {
	if o.Crash != nil {
		o.Crash(point)
	}
}

// ext is the data files' extension.
func (o *Options) ext() string {
	if o.Format == FormatJSON {
		return "jsonl"
	}
	return o.Format
}

// CheckFormat reports whether format is one the sink writes.
func CheckFormat(format string) error {
	switch format {
	case FormatParquet, FormatJSON, FormatCSV:
		return nil
	}
	return sqlerr.New(sqlerr.InvalidParameterValue, "invalid value for option \"format\": \"%s\"", format).
		WithHint("A files sink writes parquet, json (JSON lines) or csv.")
}

// ParseSize reads a size as target_file_size takes it: a number of bytes
// with an optional unit B, kB/KB, MB, GB, TB (powers of 1024, as
// PostgreSQL's memory settings read them) or none.
func ParseSize(s string) (int64, error) {
	t := strings.TrimSpace(s)
	i := 0
	for i < len(t) && (t[i] >= '0' && t[i] <= '9') {
		i++
	}
	n, err := strconv.ParseInt(t[:i], 10, 64)
	bad := sqlerr.New(sqlerr.InvalidParameterValue, "invalid value for option \"target_file_size\": \"%s\"", s).
		WithHint("Write a size such as '128MB', '512kB' or '1GB'.")
	if err != nil || n <= 0 {
		return 0, bad
	}
	mult := int64(1)
	switch strings.ToLower(strings.TrimSpace(t[i:])) {
	case "", "b":
	case "kb", "k":
		mult = 1 << 10
	case "mb", "m":
		mult = 1 << 20
	case "gb", "g":
		mult = 1 << 30
	case "tb", "t":
		mult = 1 << 40
	default:
		return 0, bad
	}
	if n > (1<<62)/mult {
		return 0, bad
	}
	return n * mult, nil
}
