package state

import "encoding/binary"

// Key layout. Every key starts with a one-letter namespace and a slash so
// that each kind of object can be iterated, dropped or counted by prefix and
// the namespaces never interleave:
//
//	c/<kind>/<name…>                  catalog objects (owned by package catalog)
//	s/<name>                          durable counters: the upper end of the
//	                                  current lease, u64 big endian (NextID)
//	t/<rel u32 BE><seq u64 BE>        one columnar chunk of input table rel:
//	                                  chunkHeader + one Arrow IPC stream holding
//	                                  one record batch. seq comes from the
//	                                  "chunk" counter, so a relation's chunks
//	                                  iterate in append order.
//	p/<group u64 BE><rel u32 BE><seq u64 BE>
//	                                  a chunk written by a multi-part commit
//	                                  that was not yet published (see group)
//	g/<group u64 BE>                  commit record of multi-part commit group:
//	                                  its chunks are visible only if it exists
//	t/<rel|1<<31 u32 BE><seq u64 BE>  the operator-state snapshot of streaming
//	                                  table rel (StateRelation): chunks like a
//	                                  table's, replaced as a whole by an epoch
//	                                  commit. Catalog OIDs stay far below 2^31.
//	t/<rel|1<<30 u32 BE><seq u64 BE>  the change log of update- or complete-mode
//	                                  streaming table rel (ChangesRelation):
//	                                  each epoch's changes as chunks of its rows
//	                                  then _change_type and _commit_version
//	                                  (package connector/changelog)
//	d/<sst file>/<first key>          a damaged block of a table file found
//	                                  at Open (damage_records.go): its key
//	                                  range reads as XX001 until dropped
//	o/<operator…>                     operator state (reserved, streaming)
//	e/<table u32 BE>/<epoch u64 BE>   the commit record of epoch n of streaming
//	                                  table `table` (package checkpoint): every
//	                                  source's offset at the epoch's end, the
//	                                  watermark, the first epoch a restart must
//	                                  re-run, the progress counts, and the
//	                                  epoch's processing time (what now()
//	                                  returned in it). Its existence is what
//	                                  makes the epoch committed.
//	e/<table u32 BE>.snap             the epoch (u64 BE) and format (u32 BE) of
//	                                  the table's operator-state snapshot, whose
//	                                  batches are the chunks of StateRelation
//	e/<table u32 BE>.out              progress of the table's stored-output
//	                                  sink: how many epochs' append-mode rows the
//	                                  table's own chunks hold (u64 BE)
//	e/<table u32 BE>.changes          progress of the table's change log: the
//	                                  last epoch (u64 BE, in the log's numbering)
//	                                  whose changes it holds; .changes.base the
//	                                  log's epoch of the table's epoch 0;
//	                                  .changes.on that the log is kept
//	e/<table u32 BE>.expect           the table's expectation counts so far
//	                                  (engine/expectations.go: JSON, written in
//	                                  each epoch's commit)
//	r/<rel u32 BE>/<n u64 BE>         input retention (package connector, the
//	                                  table-log source): the commit time (µs,
//	                                  u64 BE) by which rel's first n chunks
//	                                  existed
//	r/<rel u32 BE>.trim               how many chunks retention removed from
//	                                  the start of rel's log (u64 BE): offsets
//	                                  in the log are positions counted from
//	                                  before any trim
//	f/<table u32 BE>/<input…>         the processed-file logs of streaming
//	                                  table `table`'s files inputs (package
//	                                  connector/files owns what follows the
//	                                  input's key; the engine chooses it)
//	l/<seq u64 BE>                    one entry of the event log (package
//	                                  catalog/eventlog): JSON, in order of
//	                                  writing
//	b/<job u32 BE>/<epoch u64 BE>     one epoch's row of streaming job `job`'s
//	                                  batch history (engine/batches.go,
//	                                  weir_catalog.streaming_batches): JSON,
//	                                  written in the epoch's commit; the
//	                                  newest 1000 per job are kept
//	a/<seq u64 BE>                    one entry of the audit log (package
//	                                  catalog/auditlog, codec.go), in order
//	                                  of writing
//
// Big-endian integers make byte order equal numeric order, which is what
// iteration order over a prefix relies on.
const (
	PrefixCatalog  = "c/"
	PrefixSequence = "s/"
	PrefixTable    = "t/"
	PrefixPending  = "p/"
	PrefixGroup    = "g/"
	PrefixDamage   = "d/"
	PrefixOperator = "o/"
	PrefixEpoch    = "e/"
	PrefixRetain   = "r/"
	PrefixFilesLog = "f/"
	PrefixEventLog = "l/"
	PrefixBatches  = "b/"
	PrefixAuditLog = "a/"
)

// FilesLogPrefix is the prefix of streaming table rel's files logs.
func FilesLogPrefix(rel uint32) []byte {
	k := make([]byte, 0, len(PrefixFilesLog)+5)
	k = append(k, PrefixFilesLog...)
	k = binary.BigEndian.AppendUint32(k, rel)
	return append(k, '/')
}

// EpochPrefix is the prefix of the epoch records of streaming table rel.
func EpochPrefix(rel uint32) []byte {
	k := make([]byte, 0, len(PrefixEpoch)+5)
	k = append(k, PrefixEpoch...)
	k = binary.BigEndian.AppendUint32(k, rel)
	return append(k, '/')
}

// EpochKey is the key of the record of epoch n of streaming table rel.
func EpochKey(rel uint32, n int64) []byte {
	return binary.BigEndian.AppendUint64(EpochPrefix(rel), uint64(n))
}

// SnapshotRecordKey holds which epoch's state snapshot streaming table rel
// has, and in which format.
func SnapshotRecordKey(rel uint32) []byte { return epochSuffixKey(rel, ".snap") }

// OutputProgressKey holds how many epochs of streaming table rel have
// their append-mode rows in its chunks.
func OutputProgressKey(rel uint32) []byte { return epochSuffixKey(rel, ".out") }

// ChangesProgressKey holds the last epoch whose changes streaming table
// rel's change log holds; ChangesBaseKey the log's epoch number of the
// table's epoch 0 (REFRESH ... FULL numbers the table's epochs from 1
// again, the log's go on).
func ChangesProgressKey(rel uint32) []byte { return epochSuffixKey(rel, ".changes") }
func ChangesBaseKey(rel uint32) []byte     { return epochSuffixKey(rel, ".changes.base") }

// ChangesOnKey exists once streaming table rel keeps a change log (from
// when a streaming table first read it as a stream).
func ChangesOnKey(rel uint32) []byte { return epochSuffixKey(rel, ".changes.on") }

// ExpectationCountsKey holds streaming table rel's expectation counts.
func ExpectationCountsKey(rel uint32) []byte { return epochSuffixKey(rel, ".expect") }

func epochSuffixKey(rel uint32, suffix string) []byte {
	k := append([]byte(PrefixEpoch), binary.BigEndian.AppendUint32(nil, rel)...)
	return append(k, suffix...)
}

// RetentionPrefix is the prefix of the commit times of rel's log.
func RetentionPrefix(rel uint32) []byte {
	k := append([]byte(PrefixRetain), binary.BigEndian.AppendUint32(nil, rel)...)
	return append(k, '/')
}

// CommitTimeKey records when rel's first n chunks existed.
func CommitTimeKey(rel uint32, n uint64) []byte {
	return binary.BigEndian.AppendUint64(RetentionPrefix(rel), n)
}

// TrimKey holds how many chunks retention removed from rel's log.
func TrimKey(rel uint32) []byte {
	k := append([]byte(PrefixRetain), binary.BigEndian.AppendUint32(nil, rel)...)
	return append(k, ".trim"...)
}

// tablePrefix is the prefix of all chunks of relation rel.
func tablePrefix(rel uint32) []byte {
	k := make([]byte, 0, 2+4)
	k = append(k, PrefixTable...)
	return binary.BigEndian.AppendUint32(k, rel)
}

// chunkKey is the key of chunk seq of relation rel.
func chunkKey(rel uint32, seq uint64) []byte {
	k := make([]byte, 0, 2+4+8)
	k = append(k, PrefixTable...)
	k = binary.BigEndian.AppendUint32(k, rel)
	return binary.BigEndian.AppendUint64(k, seq)
}

// parseChunkKey is the inverse of chunkKey.
func parseChunkKey(k []byte) (rel uint32, seq uint64, ok bool) {
	if len(k) != 2+4+8 || string(k[:2]) != PrefixTable {
		return 0, 0, false
	}
	return binary.BigEndian.Uint32(k[2:6]), binary.BigEndian.Uint64(k[6:]), true
}

// groupKey is the commit record of a multi-part commit.
func groupKey(group uint64) []byte {
	return binary.BigEndian.AppendUint64([]byte(PrefixGroup), group)
}

// pendingKey marks chunk (rel, seq) as written by group before the group's
// commit record exists; recovery deletes the chunks of unpublished groups.
func pendingKey(group uint64, rel uint32, seq uint64) []byte {
	k := make([]byte, 0, 2+8+4+8)
	k = append(k, PrefixPending...)
	k = binary.BigEndian.AppendUint64(k, group)
	k = binary.BigEndian.AppendUint32(k, rel)
	return binary.BigEndian.AppendUint64(k, seq)
}

func parsePendingKey(k []byte) (group uint64, rel uint32, seq uint64, ok bool) {
	if len(k) != 2+8+4+8 || string(k[:2]) != PrefixPending {
		return 0, 0, 0, false
	}
	return binary.BigEndian.Uint64(k[2:10]), binary.BigEndian.Uint32(k[10:14]), binary.BigEndian.Uint64(k[14:]), true
}

func sequenceKey(name string) []byte {
	return append([]byte(PrefixSequence), name...)
}

func groupPendingPrefix(group uint64) []byte {
	return binary.BigEndian.AppendUint64([]byte(PrefixPending), group)
}

// StateRelation is the relation number whose chunks hold the state
// snapshot of streaming table rel. Being chunks, a snapshot of any size is
// written by one (multi-part) commit, atomically with its epoch.
func StateRelation(rel uint32) uint32 { return rel | 1<<31 }

// ChangesRelation is the relation number whose chunks are the change log
// of update- or complete-mode streaming table rel (catalog OIDs stay far
// below 2^30; inline sources, above it, have no change log).
func ChangesRelation(rel uint32) uint32 { return rel | 1<<30 }
