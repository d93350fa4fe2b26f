package state

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"runtime/debug"
	"sort"

	"github.com/dgraph-io/badger/v4"
	"github.com/dgraph-io/badger/v4/fb"
	"github.com/dgraph-io/badger/v4/options"
	"github.com/dgraph-io/badger/v4/pb"
	"github.com/dgraph-io/badger/v4/table"
	"github.com/dgraph-io/badger/v4/y"
	"github.com/dgraph-io/ristretto/v2/z"
	"github.com/klauspost/compress/snappy"
	"google.golang.org/protobuf/proto"
)

// Badger checks a block's checksum when it reads it (OnBlockRead), but its
// iterators do not report a failed block: an iterator that meets one just
// ends, and a Get says "not found". A damaged table file would so silently
// lose every key from the damaged block to the end of the file. So Open
// checks every block of every table file once (checkTableFiles), and
// remembers the key range of each damaged block; a read whose keys fall in
// one fails with XX001 instead of returning what is left.
//
// Damage that appears while the server runs (in a file checked at start,
// or in one a flush or compaction wrote since) would be just as silent, so
// every read through an iterator is followed by a check of the blocks that
// hold its key range (recheckRange): the read fails with XX001 and the
// damage is recorded as if found at Open.

// damagedFile is a table file that failed its check, with the range of
// user keys it holds.
type damagedFile struct {
	file        string
	first, last []byte
	reason      string
}

// TableFileDamage is damage in a table (.sst) file found by
// CheckTableFiles: one damaged block, or the whole file when its index is
// damaged.
type TableFileDamage struct {
	File   string
	Reason string
	// First and Last bound the keys the damaged part may hold, inclusive;
	// nil First: any key; nil Last: any key from First on.
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
	var found []damagedFile
	for _, d := range damage {
		if !s.inTree(d.File) {
			continue // compacted away while it was read (see inTree)
		}
		df := damagedFile{file: d.File, first: d.First, last: d.Last, reason: d.Reason}
		for _, ti := range infos {
			if table.IDToFilename(ti.ID) != d.File {
				continue
			}
			// Badger opened the file: its key range bounds the damage.
			if df.first == nil {
				df.first = y.ParseKey(ti.Left)
			}
			if df.last == nil {
				df.last = y.ParseKey(ti.Right)
			}
		}
		newCorruption(0, "table file "+d.File+" is damaged: "+d.Reason, nil, d.File)
		found = append(found, df)
	}
	recorded, err := s.loadDamageRecords()
	if err != nil {
		return storageError("read the damage records of "+s.dir, err)
	}
	for _, d := range recorded {
		newCorruption(0, "table file "+d.file+" was found damaged at an earlier start: "+d.reason, nil, d.file)
	}
	if len(found) > 0 && !s.opts.ReadOnly {
		if err := s.recordDamage(found, recorded); err != nil {
			return storageError("record the damage found in "+s.dir, err)
		}
	}
	all := append(recorded, found...)
	if len(all) > 0 {
		s.damaged.Store(&all)
	}
	return nil
}

// inTree says whether the table file named file is still in Badger's tree.
// A compaction replaces files while they are checked, and deletes the old
// ones by truncating them to nothing and removing them, after taking them
// out of the tree: a check that read such a file saw an empty or vanishing
// file, not damage.
func (s *Store) inTree(file string) bool {
	for _, ti := range s.db.Tables() {
		if table.IDToFilename(ti.ID) == file {
			return true
		}
	}
	return false
}

// damagedNow is the current list of damaged blocks.
func (s *Store) damagedNow() []damagedFile {
	if p := s.damaged.Load(); p != nil {
		return *p
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
		out = append(out, checkTableFile(name)...)
	}
	return out, nil
}

// checkTableFile reads one table file read-only and checks its index and
// each of its blocks against their checksums, as Badger's table reader
// would, but without its panics (Table.VerifyChecksum dereferences a nil
// block when one fails, in v4.9.6) and block by block, so that a damaged
// block costs the keys it holds, not the whole file. The layout, from the
// end: checksum length u32, checksum (protobuf), index length u32, index
// (flatbuffer TableIndex, whose block offsets carry each block's first
// key), and before it the blocks, each compressed as a whole and ending
// in its checksum and checksum length.
func checkTableFile(name string) (damage []TableFileDamage) {
	return checkTableFileRange(name, nil, nil)
}

// checkTableFileRange is checkTableFile for the blocks that may hold user
// keys in [lo, hi) (lo nil: from the first; hi nil: to the last).
func checkTableFileRange(name string, lo, hi []byte) (damage []TableFileDamage) {
	base := filepath.Base(name)
	whole := func(reason string) []TableFileDamage {
		return []TableFileDamage{{File: base, Reason: reason}}
	}
	// A compaction deletes a file it replaced by truncating it first: a
	// read of its mapping then faults (SIGBUS), which this turns into a
	// panic recovered below. The caller tells that from damage (inTree).
	defer debug.SetPanicOnFault(debug.SetPanicOnFault(true))
	defer func() {
		if p := recover(); p != nil {
			damage = whole(fmt.Sprint("unreadable: ", p))
		}
	}()
	mf, err := z.OpenMmapFile(name, os.O_RDONLY, 0)
	if err != nil {
		return whole(err.Error())
	}
	defer func() { _ = mf.Close(-1) }()
	data := mf.Data
	index, err := tableIndex(data)
	if err != nil {
		return whole("damaged index: " + err.Error())
	}
	n := index.OffsetsLength()
	var ko fb.BlockOffset
	firstKey := func(i int) []byte {
		var o fb.BlockOffset
		if i >= n || !index.Offsets(&o, i) {
			return nil
		}
		return append([]byte(nil), y.ParseKey(o.KeyBytes())...)
	}
	compression := badger.DefaultOptions("").Compression
	for i := 0; i < n; i++ {
		if !index.Offsets(&ko, i) {
			return whole("damaged index")
		}
		// Block i holds keys from its first key to the next block's
		// (inclusive: one key's versions may span blocks).
		if hi != nil && bytes.Compare(y.ParseKey(ko.KeyBytes()), hi) >= 0 {
			break
		}
		if next := firstKey(i + 1); lo != nil && next != nil && bytes.Compare(next, lo) < 0 {
			continue
		}
		off, size := int(ko.Offset()), int(ko.Len())
		if off < 0 || size < 8 || off+size > len(data) {
			return whole("damaged index: block out of the file")
		}
		if err := checkBlock(data[off:off+size], compression); err != nil {
			first := firstKey(i)
			// The next block's first key bounds this one (inclusive: one
			// key's versions may span blocks); the last block is unbounded.
			damage = append(damage, TableFileDamage{File: base, Reason: fmt.Sprintf("block %d at offset %d: %v", i, off, err),
				First: first, Last: firstKey(i + 1)})
		}
	}
	return damage
}

// tableIndex returns a table file's index after checking its checksum.
func tableIndex(data []byte) (*fb.TableIndex, error) {
	pos := len(data) - 4
	if pos < 0 {
		return nil, errors.New("file too short")
	}
	chkLen := int(binary.BigEndian.Uint32(data[pos:]))
	pos -= chkLen
	if chkLen < 0 || pos < 4 {
		return nil, errors.New("invalid checksum length")
	}
	var chk pb.Checksum
	if err := proto.Unmarshal(data[pos:pos+chkLen], &chk); err != nil {
		return nil, err
	}
	pos -= 4
	idxLen := int(binary.BigEndian.Uint32(data[pos:]))
	if idxLen < 0 || idxLen > pos {
		return nil, errors.New("invalid index length")
	}
	idx := data[pos-idxLen : pos]
	if err := y.VerifyChecksum(idx, &chk); err != nil {
		return nil, errors.New("index checksum mismatch")
	}
	return fb.GetRootAsTableIndex(idx, 0), nil
}

// checkBlock checks one (compressed) block against its checksum.
func checkBlock(b []byte, compression options.CompressionType) error {
	switch compression {
	case options.None:
	case options.Snappy:
		d, err := snappy.Decode(nil, b)
		if err != nil {
			return errors.New("block does not decompress")
		}
		b = d
	case options.ZSTD:
		d, err := y.ZSTDDecompress(nil, b)
		if err != nil {
			return errors.New("block does not decompress")
		}
		b = d
	default:
		return errors.New("unknown compression")
	}
	pos := len(b) - 4
	if pos < 0 {
		return errors.New("block too short")
	}
	chkLen := int(binary.BigEndian.Uint32(b[pos:]))
	if chkLen < 0 || chkLen > pos {
		return errors.New("invalid checksum length")
	}
	pos -= chkLen
	var chk pb.Checksum
	if err := proto.Unmarshal(b[pos:pos+chkLen], &chk); err != nil {
		return errors.New("checksum does not decode")
	}
	if err := y.VerifyChecksum(b[:pos], &chk); err != nil {
		return errors.New("block checksum mismatch")
	}
	return nil
}

// damageIn returns the damaged file whose keys overlap [lo, hi) (hi nil:
// no upper bound), or nil. It is cheap when nothing is damaged.
func (s *Store) damageIn(rel uint32, lo, hi []byte) *corruption {
	p := s.damaged.Load()
	if p == nil {
		return nil
	}
	for _, d := range *p {
		if d.overlaps(lo, hi) {
			return newCorruption(rel, "data checksum mismatch in table file "+d.file, lo, d.file)
		}
	}
	return nil
}

// overlaps says whether the file may hold keys in [lo, hi) (hi nil: no
// upper bound). A file whose key range is unknown may hold any.
func (d damagedFile) overlaps(lo, hi []byte) bool {
	if d.first == nil {
		return true
	}
	return (hi == nil || bytes.Compare(d.first, hi) < 0) && (d.last == nil || bytes.Compare(d.last, lo) >= 0)
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
	if s.damaged.Load() == nil {
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
