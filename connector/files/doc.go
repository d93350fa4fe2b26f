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
// When a file is read. A file is offered only once it is complete: its
// size and modification time unchanged across two observations at least
// the settle interval (DefaultSettle, 500ms) apart — an observation made
// when the modification time was already that long past counts as two —
// or it was renamed into place inside a watched folder. Writers should
// write under a hidden name (.x or _x: names beginning with '.' or '_' are
// never read, as in Spark) and rename the file when it is whole; a file
// written in place is safe only if its writer never pauses longer than the
// settle interval mid-file. Discovery is fsnotify plus a re-listing every
// DefaultRelist (2s) as the fallback (discover.go, discover_watch.go).
//
// Exactly once. Each file is entered in the processed-file log (in weir's
// store, filelog.go) when it is first decoded, durably, before any of its
// batches is returned; an offset is a batch number across the log. A path
// in the log is never read again: a file changed or replaced after it was
// read is reported (Source.Notices), not re-read. Re-reading an offset
// after a restart decodes its file from disk again, so processed files
// must stay in place, unchanged, until the table's checkpoints are past
// them: one that vanished or changed makes that Read fail with XX001
// naming it (its rows, as a checkpoint recorded them, cannot be
// reproduced).
//
// Paths reaching this package are absolute and already checked against
// the server's files roots and the reader's privileges (the engine does
// that: it knows --files-root and roles).
//
// files imports sql/types, state and connector only (design.md).
package files
