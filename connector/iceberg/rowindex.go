package iceberg

import "hash/maphash"

// rowIndex says which group of data files may hold a row of an
// update-mode table, so that an epoch's deletes rewrite only the files
// that hold the deleted rows (copy-on-write, updates.go) and not the whole
// table.
//
// A group is the data files one WriteRecords call wrote (one epoch's
// rewrite of some groups, or a file found at open); the index maps a
// 64-bit hash of a row's value (rowKey) to the groups holding a row of
// that hash. A hash is a hint, never the answer: the rows of the groups
// it names are compared whole, so a collision costs only the rewrite of a
// group that did not need it. Most hashes are in one group (one); those
// in several (equal rows, collisions) are in more.
//
// The index lives in memory, built from the table's files when the sink
// first needs it and rebuilt whenever the table is read again (a commit
// whose outcome is unknown); the table stays the truth.
type rowIndex struct {
	seed   maphash.Seed
	groups map[uint32]*fileGroup
	next   uint32
	one    map[uint64]uint32
	more   map[uint64][]uint32
}

// fileGroup is one group's data files (their paths) and row count.
type fileGroup struct {
	paths []string
	rows  int64
}

func newRowIndex() *rowIndex {
	return &rowIndex{seed: maphash.MakeSeed(), groups: map[uint32]*fileGroup{}, one: map[uint64]uint32{}, more: map[uint64][]uint32{}}
}

func (x *rowIndex) hash(key []byte) uint64 { return maphash.Bytes(x.seed, key) }

func (x *rowIndex) hashString(key string) uint64 { return maphash.String(x.seed, key) }

// addGroup records a group of files holding rows of the given hashes.
func (x *rowIndex) addGroup(paths []string, hashes []uint64) {
	x.next++
	id := x.next
	x.groups[id] = &fileGroup{paths: paths, rows: int64(len(hashes))}
	for _, h := range hashes {
		x.add(h, id)
	}
}

func (x *rowIndex) add(h uint64, id uint32) {
	if ids, ok := x.more[h]; ok {
		for _, g := range ids {
			if g == id {
				return
			}
		}
		x.more[h] = append(ids, id)
		return
	}
	g, ok := x.one[h]
	switch {
	case !ok:
		x.one[h] = id
	case g != id:
		delete(x.one, h)
		x.more[h] = []uint32{g, id}
	}
}

// groupsOf adds to set the groups that may hold a row of hash h.
func (x *rowIndex) groupsOf(h uint64, set map[uint32]bool) {
	if g, ok := x.one[h]; ok {
		set[g] = true
	}
	for _, g := range x.more[h] {
		set[g] = true
	}
}

// forget takes a row of hash h, read from one of the removed groups, out
// of those groups.
func (x *rowIndex) forget(h uint64, removed map[uint32]bool) {
	if g, ok := x.one[h]; ok {
		if removed[g] {
			delete(x.one, h)
		}
		return
	}
	ids, ok := x.more[h]
	if !ok {
		return
	}
	kept := ids[:0]
	for _, g := range ids {
		if !removed[g] {
			kept = append(kept, g)
		}
	}
	switch len(kept) {
	case 0:
		delete(x.more, h)
	case 1:
		delete(x.more, h)
		x.one[h] = kept[0]
	default:
		x.more[h] = kept
	}
}

// dropGroups forgets the removed groups themselves (their rows' hashes
// are forgotten by forget as they are read).
func (x *rowIndex) dropGroups(removed map[uint32]bool) {
	for g := range removed {
		delete(x.groups, g)
	}
}
