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
//	d/<sst file>/<first key>          a damaged block of a table file found
//	                                  at Open (damage_records.go): its key
//	                                  range reads as XX001 until dropped
//	o/<operator…>                     operator state (reserved, streaming)
//	e/<epoch…>                        epochs and checkpoints (reserved)
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
)

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
