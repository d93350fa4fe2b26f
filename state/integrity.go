package state

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"sort"

	"github.com/dgraph-io/badger/v4"
	"github.com/dgraph-io/badger/v4/options"
	"github.com/dgraph-io/badger/v4/table"
	"github.com/dgraph-io/badger/v4/y"
	"github.com/dgraph-io/ristretto/v2/z"
)

// Badger checks a block's checksum when it reads it (OnBlockRead), but its
// iterators do not report a failed block: an iterator that meets one just
// ends, and a Get says "not found". A damaged table file would so silently
// lose every key from the damaged block to the end of the file. So Open
// checks every block of every table file once (checkTableFiles), and
// remembers the key range of each damaged file; a read whose keys fall in
// one fails with XX001 instead of returning what is left.
//
// Table files are immutable, so one check per file suffices for damage
// that was there when the server started. Damage that appears while it
// runs is found by `weir verify` or the next start.

// damagedFile is a table file that failed its check, with the range of
// user keys it holds.
type damagedFile struct {
	file        string
	first, last []byte
	reason      string
}

// TableFileDamage is one damaged table (.sst) file found by CheckTableFiles.
type TableFileDamage struct {
	File   string
	Reason string
	// First and Last bound the keys the file holds (nil when its index is
	// unreadable too: then any key may be in it).
	First, Last []byte
}

// checkTableFiles checks every block of every table file of the open DB.
func (s *Store) checkTableFiles() error {
	infos := s.db.Tables()
	ids := make(map[uint64]bool, len(infos))
	for _, ti := range infos {
		ids[ti.ID] = true
	}
	damage, err := CheckTableFiles(s.dir, func(id uint64) bool { return ids[id] })
	if err != nil {
		return err
	}
	for _, d := range damage {
		df := damagedFile{file: d.File, first: d.First, last: d.Last, reason: d.Reason}
		for _, ti := range infos {
			if table.IDToFilename(ti.ID) == d.File && df.first == nil {
				// Badger read the index when it opened the file.
				df.first, df.last = y.ParseKey(ti.Left), y.ParseKey(ti.Right)
			}
		}
		newCorruption(0, "table file "+d.File+" is damaged: "+d.Reason, nil, d.File)
		s.damaged = append(s.damaged, df)
	}
	return nil
}

// CheckTableFiles checks the checksum of every block of the table files in
// dir (those for which inTree says true, when it is not nil: Badger keeps
// obsolete files until it deletes them), opening each read-only. It returns
// the damaged ones; err is for a directory it cannot list.
func CheckTableFiles(dir string, inTree func(id uint64) bool) ([]TableFileDamage, error) {
	names, err := filepath.Glob(filepath.Join(dir, "*.sst"))
	if err != nil {
		return nil, storageError("list "+dir, err)
	}
	sort.Strings(names)
	var out []TableFileDamage
	for _, name := range names {
		id, ok := table.ParseFileID(filepath.Base(name))
		if !ok || (inTree != nil && !inTree(id)) {
			continue
		}
		if d := checkTableFile(name); d != nil {
			out = append(out, *d)
		}
	}
	return out, nil
}

// checkTableFile opens one table file read-only, without caches, and
// checks all its blocks. Badger's Table.VerifyChecksum dereferences a nil
// block when a block fails (v4.9.6), and a damaged index can make its table
// code panic: a panic is damage too.
func checkTableFile(name string) (damage *TableFileDamage) {
	base := filepath.Base(name)
	var first, last []byte
	defer func() {
		if p := recover(); p != nil {
			damage = &TableFileDamage{File: base, Reason: "block checksum mismatch", First: first, Last: last}
			if first == nil {
				damage.Reason = fmt.Sprint("unreadable index: ", p)
			}
		}
	}()
	mf, err := z.OpenMmapFile(name, os.O_RDONLY, 0)
	if err != nil && err != z.NewFile {
		return &TableFileDamage{File: base, Reason: err.Error()}
	}
	t, err := table.OpenTable(mf, table.Options{
		ReadOnly:    true,
		ChkMode:     options.NoVerification,
		BlockSize:   badger.DefaultOptions("").BlockSize,
		Compression: badger.DefaultOptions("").Compression,
	})
	if err != nil {
		return &TableFileDamage{File: base, Reason: err.Error()}
	}
	defer func() { _ = mf.Close(-1) }()
	first = append([]byte(nil), y.ParseKey(t.Smallest())...)
	last = append([]byte(nil), y.ParseKey(t.Biggest())...)
	if err := t.VerifyChecksum(); err != nil {
		return &TableFileDamage{File: base, Reason: "block checksum mismatch (" + err.Error() + ")", First: first, Last: last}
	}
	return nil
}

// damageIn returns the damaged file whose keys overlap [lo, hi) (hi nil:
// no upper bound), or nil. It is cheap when nothing is damaged.
func (s *Store) damageIn(rel uint32, lo, hi []byte) *corruption {
	if len(s.damaged) == 0 {
		return nil
	}
	for _, d := range s.damaged {
		if d.first != nil && (hi != nil && bytes.Compare(d.first, hi) >= 0 || bytes.Compare(d.last, lo) < 0) {
			continue
		}
		return newCorruption(rel, "data checksum mismatch in table file "+d.file, lo, d.file)
	}
	return nil
}

// prefixEnd is the first key after every key with prefix p (nil: none).
func prefixEnd(p []byte) []byte {
	end := append([]byte(nil), p...)
	for i := len(end) - 1; i >= 0; i-- {
		if end[i] < 0xff {
			end[i]++
			return end[:i+1]
		}
	}
	return nil
}

// damageAt is damageIn for the one key k.
func (s *Store) damageAt(rel uint32, k []byte) *corruption {
	if len(s.damaged) == 0 {
		return nil
	}
	return s.damageIn(rel, k, append(append([]byte(nil), k...), 0))
}

// readError is the error for a failed read of key outside any table's
// chunks (catalog, counters): damage becomes XX001, the rest storageError.
func (s *Store) readError(key []byte, err error) error {
	if c := badgerCorruption(0, key, err); c != nil {
		return s.relationError(c)
	}
	return storageError("read", err)
}
