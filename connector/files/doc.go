// Package files is the files source (Databricks' Auto Loader, read_files):
// rows from JSON-lines, CSV, Parquet and text files landing under a folder,
// read incrementally, each file exactly once.
//
// The package has two halves, joined by the types in api.go:
//   - decoding (format_*.go, infer*.go, rescue*.go, metadata*.go): one
//     file's bytes to Arrow batches of a Schema, with _rescued_data for
//     what does not fit and _metadata for where each row came from; schema
//     inference by sampling, with type widening and schema hints;
//   - the source (options.go, discover*.go, filelog*.go, source*.go):
//     discovery (listing plus fsnotify; a file is read once complete), the
//     processed-file log in weir's store, and the connector.Source over it.
//
// Paths reaching this package are absolute and already checked against
// the server's files roots and the reader's privileges (the engine does
// that: it knows --files-root and roles).
//
// files imports sql/types, state and connector only (design.md).
package files
