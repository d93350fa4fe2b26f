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
// newest manifest's epoch). It is written only once its files are in
// place, so a reader that follows the manifests in epoch order (added
// minus removed, LiveFiles) sees every row exactly once, at any instant.
// A reader that globs part-* sees the same set except around a commit:
// an epoch's files a moment before its manifest, and the files a
// compaction replaced for ReplacedRetention after it.
//
// Each epoch goes through these steps, and a crash at any point is
// repaired by Open (recover.go):
//
//  1. Write: the epoch's data files are written under hidden temporary
//     names and synced ("filesink-after-write").
//  2. Committed: they are renamed to their final names, and their folders
//     synced ("filesink-after-rename").
//  3. The manifest is written (temporary name, sync, rename, sync of the
//     folder): the epoch is committed ("filesink-after-manifest").
//  4. The files the manifest replaces are deleted, once
//     Options.ReplacedRetention (a minute) has passed, for readers still
//     reading the files of the earlier manifests.
//
// A crash before 3 leaves an epoch with no manifest: Open deletes its
// files (temporary or renamed: a data file's name holds its epoch) and
// the engine writes the epoch again, since it is after LastCommitted. A
// crash after 3 leaves a committed epoch; Open finishes 4. An epoch whose
// manifest exists is never written again (Write of an epoch at or before
// LastCommitted does nothing), so no row is written twice.
package filesink
