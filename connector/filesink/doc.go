// Package filesink is the files sink (CREATE SINK ... WITH (connector =
// 'files')): it writes a streaming table's changes as Parquet, JSON lines
// or CSV files into a folder, epoch by epoch, exactly once across crashes
// of weir.
//
// The folder's layout:
//
//	<dir>/part-<epoch>-<n>.<ext>                  data files (ext: parquet, jsonl, csv)
//	<dir>/<col>=<value>/part-<epoch>-<n>.<ext>    the same, with partition_by (Hive style)
//	<dir>/_weir_manifest/<epoch>.json             the epoch's manifest
//	.tmp-...                                      files being written (hidden; never read)
//
// The manifest of an epoch is the sink's commit record: it lists the data
// files the epoch added and the ones it replaced (small-file compaction),
// and its presence is what makes the epoch committed (LastCommitted is the
// newest manifest's epoch). A reader that follows the manifests in epoch
// order (added minus removed) sees every row exactly once; one that globs
// part-* sees the same set once the epoch's renames and deletions are done.
//
// Each epoch goes through these steps, and a crash at any point is
// repaired by Open (recover.go):
//
//  1. Write: the epoch's data files are written under hidden temporary
//     names and synced. Crash: the temporary files are deleted at Open;
//     the epoch has no manifest, so the engine writes it again.
//  2. Committed: the manifest is written (temporary name, sync, rename,
//     sync of the folder). Crash before the rename: as 1. Crash after: the
//     epoch is committed; Open finishes steps 3 and 4 from the manifest.
//  3. The temporary files are renamed to their final names.
//  4. The files the manifest replaces are deleted.
//
// Rows are never written twice because the final names are fixed by the
// manifest, and an epoch whose manifest exists is never written again
// (Write of an epoch at or before LastCommitted does nothing).
package filesink
