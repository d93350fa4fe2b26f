// Package iceberg is the Iceberg sink: a streaming table's output written
// to an Apache Iceberg table in a local warehouse folder, through
// iceberg-go and its filesystem ("hadoop") catalog, which needs no
// metastore: the table is its folder, data/ holding Parquet data files and
// metadata/ the versioned metadata files, manifests and snapshots.
//
// Exactly once. Every epoch commits one Iceberg snapshot whose summary
// carries the epoch (weir.epoch) and the streaming table it came from
// (weir.table, the sink's identity). The snapshot is the only thing that
// makes rows visible, so the sink follows connector.Sink's contract in two
// steps:
//   - Write converts the epoch's changes and writes them as Parquet data
//     files under the table's data/ folder. No snapshot references them
//     yet, so no reader sees them.
//   - Committed, once the epoch's store transaction committed, commits the
//     snapshot that adds those files (one metadata file written and
//     renamed into place by the catalog: all or nothing).
//   - LastCommitted is the weir.epoch of the newest snapshot in the
//     table's history that carries this sink's identity: after a crash
//     between the store's commit and the snapshot's, recovery re-runs the
//     epoch and writes it again, once.
//
// Orphans. The files of an epoch whose snapshot never committed (the
// process died between Write and Committed, or the store transaction
// failed) are referenced by no snapshot: harmless, since Iceberg readers
// read only the files a snapshot lists. Within one process the sink
// deletes them itself when the epoch is written again; after a crash they
// stay until an orphan-file cleanup (iceberg-go's DeleteOrphanFiles,
// Spark's remove_orphan_files) removes them.
//
// Modes. In append mode each epoch's snapshot appends its rows. An
// update- or complete-mode table's changes are a change feed (deletes and
// inserts of whole rows, updates.go), which the sink applies by
// copy-on-write: each epoch with changes rewrites the groups of data files
// that hold its deleted rows (rowindex.go locates them) with its inserts,
// in one overwrite snapshot. docs/iceberg.md says why this and not
// equality deletes.
package iceberg
