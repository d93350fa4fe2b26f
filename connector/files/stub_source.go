package files

// STUB: the source half's entry points, owned by the source work;
// replaced by options.go / discover*.go / filelog*.go / source*.go
// (delete this file then).

import (
	"context"

	"github.com/apache/arrow-go/v18/arrow"

	"github.com/weir-sql/weir/connector"
	"github.com/weir-sql/weir/sql/sqlerr"
	"github.com/weir-sql/weir/state"
)

// ParseOptions checks read_files' / CREATE SOURCE's options (Databricks'
// names, case-insensitive; cloudFiles.-prefixed spellings too): 22023
// for an unknown or ill-typed one, 0A000 naming a Databricks option weir
// does not have, with what to use instead. path and format are required.
func ParseOptions(settings []connector.Setting) (Options, error) {
	return Options{}, sqlerr.New(sqlerr.FeatureNotSupported, "read_files is not built yet")
}

// List returns the files under o.Path that o selects now (glob filter,
// modifiedAfter, recursion, only complete files), oldest first (by
// modification time, then path).
func List(o Options) ([]FileInfo, error) {
	return nil, sqlerr.New(sqlerr.FeatureNotSupported, "read_files is not built yet")
}

// ReadNow reads every file List returns now, for a plain SELECT.
func ReadNow(ctx context.Context, o Options, s Schema) ([]arrow.RecordBatch, error) {
	return nil, sqlerr.New(sqlerr.FeatureNotSupported, "read_files is not built yet")
}

// Source is a files source as a connector.Source: it discovers files,
// records each in its processed-file log (in st, under logKey: one log
// per reader, as each reader keeps its own offsets) and serves their rows.
type Source struct{}

var _ connector.Source = (*Source)(nil)

// Open opens the source; its log survives restarts under logKey.
func Open(st *state.Store, logKey []byte, o Options, s Schema) (*Source, error) {
	return nil, sqlerr.New(sqlerr.FeatureNotSupported, "read_files is not built yet")
}

func (s *Source) Read(ctx context.Context, from int64, max int) (connector.Read, error) {
	return connector.Read{}, sqlerr.New(sqlerr.FeatureNotSupported, "read_files is not built yet")
}
func (s *Source) Start() (int64, error) { return 0, nil }

// Backlog is the files and bytes discovered and not yet read.
func (s *Source) Backlog() (files, bytes int64) { return 0, 0 }

// Schema is the source's schema now (evolution may have added columns).
func (s *Source) Schema() Schema { return Schema{} }

// Close stops discovery.
func (s *Source) Close() error { return nil }
