package state

import (
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"

	"github.com/dgraph-io/ristretto/v2/z"
	"sort"

	"github.com/dgraph-io/badger/v4"
)

// VerifyReport is what Store.Verify checked and the damage it found.
type VerifyReport struct {
	TableFiles    int // .sst files checked block by block
	ValueLogFiles int // .vlog files present
	Keys          int64
	Values        int64 // values read (each value-log entry a key points to is CRC-checked)
	Chunks        int64 // table chunks checksum-checked and decoded
	Rows          int64 // rows in those chunks

	// Relations are the relations with chunks, by OID (state relations of
	// streaming tables included, see StateRelation).
	Relations map[uint32]*RelationCheck

	DamagedFiles []TableFileDamage
	// Damage lists every damaged value: its relation (0 for keys that are
	// not table chunks), key, file when known, and reason.
	Damage []ValueDamage
}

// RelationCheck counts what Verify read of one relation.
type RelationCheck struct {
	Chunks, Rows int64
	Damaged      int // chunks that failed, plus 1 if its keys are in a damaged file
}

// ValueDamage is one damaged value.
type ValueDamage struct {
	Rel    uint32
	Key    []byte
	File   string
	Reason string
}

// Clean says whether nothing was found damaged.
func (r *VerifyReport) Clean() bool { return len(r.DamagedFiles) == 0 && len(r.Damage) == 0 }

// Verify reads the whole store: every table file was checked block by
// block at Open; every value-log file is read entry by entry; then every
// key's value is read (Badger checks the CRC of each value-log entry it
// reads and of each block), and every table chunk is checksum-checked and
// decoded, published or not. (Badger's own DB.VerifyChecksum is not used:
// in v4.9.6 it dereferences a nil block when a block fails, and it stops
// at the first damaged file.) It never writes, so
// it may run on a store opened with ReadOnly. rels lists the relations
// the catalog knows (their keys are checked against damaged files even
// when no chunk of theirs can be read).
func (s *Store) Verify(rels []uint32) *VerifyReport {
	r := &VerifyReport{Relations: map[uint32]*RelationCheck{}}
	names, _ := filepath.Glob(filepath.Join(s.dir, "*.sst"))
	r.TableFiles = len(names)
	vlogs, _ := filepath.Glob(filepath.Join(s.dir, "*.vlog"))
	r.ValueLogFiles = len(vlogs)
	// Every entry of every value-log file, read in order: damage in an
	// entry no key points to any more costs nothing yet, but says the disk
	// is failing.
	sort.Strings(vlogs) // zero-padded numbers: the newest is last
	for i, name := range vlogs {
		if d := checkLogFile(s.dir, name, i == len(vlogs)-1); d != nil {
			r.Damage = append(r.Damage, *d)
		}
	}
	for _, d := range s.damagedNow() {
		r.DamagedFiles = append(r.DamagedFiles, TableFileDamage{File: d.file, Reason: d.reason, First: d.first, Last: d.last})
	}
	rel := func(oid uint32) *RelationCheck {
		c, ok := r.Relations[oid]
		if !ok {
			c = &RelationCheck{}
			r.Relations[oid] = c
		}
		return c
	}
	for _, oid := range rels {
		for _, o := range []uint32{oid, StateRelation(oid), ChangesRelation(oid)} {
			p := tablePrefix(o)
			for _, d := range s.damagedNow() {
				if d.overlaps(p, prefixEnd(p)) {
					rel(o).Damaged++
					r.Damage = append(r.Damage, ValueDamage{Rel: o, Key: p, File: d.file,
						Reason: "its keys are in damaged table file " + d.file})
					break
				}
			}
		}
	}
	err := s.db.View(func(txn *badger.Txn) (err error) {
		// Badger's table iterator can panic on a block whose checksum it
		// did not check (a slice bound from a damaged length): that is
		// damage found, not a crash of verify.
		defer func() {
			if p := recover(); p != nil {
				err = fmt.Errorf("a damaged table block stopped the scan: %v", p)
			}
		}()
		opts := badger.DefaultIteratorOptions
		opts.PrefetchValues = false
		it := txn.NewIterator(opts)
		defer it.Close()
		for it.Rewind(); it.Valid(); it.Next() {
			item := it.Item()
			r.Keys++
			key := item.KeyCopy(nil)
			oid, _, isChunk := parseChunkKey(key)
			err := item.Value(func(v []byte) error {
				r.Values++
				if !isChunk {
					if file := s.logger.vlogFailure(key); file != "" {
						r.Damage = append(r.Damage, ValueDamage{Key: key, File: file, Reason: "value-log entry checksum mismatch"})
					}
					return nil
				}
				c := rel(oid)
				c.Chunks++
				r.Chunks++
				b, err := decodeChunk(v)
				if err != nil {
					c.Damaged++
					d := ValueDamage{Rel: oid, Key: key, Reason: err.Error()}
					if file := s.logger.vlogFailure(key); file != "" {
						d.File, d.Reason = file, "value-log entry checksum mismatch"
					}
					r.Damage = append(r.Damage, d)
					return nil
				}
				c.Rows += b.NumRows()
				r.Rows += b.NumRows()
				b.Release()
				return nil
			})
			if err != nil {
				d := ValueDamage{Key: key, Reason: err.Error()}
				if isChunk {
					d.Rel = oid
					rel(oid).Damaged++
				}
				if c := badgerCorruption(d.Rel, key, err); c != nil {
					d.File, d.Reason = c.file, c.reason+" ("+err.Error()+")"
				}
				r.Damage = append(r.Damage, d)
			}
		}
		return nil
	})
	if err != nil {
		r.Damage = append(r.Damage, ValueDamage{Reason: "iteration failed: " + err.Error()})
	}
	sort.Slice(r.Damage, func(i, j int) bool { return r.Damage[i].Rel < r.Damage[j].Rel })
	return r
}

// OpenForVerify opens dir read-only for Verify. A directory left by a
// crash has write-ahead logs (.mem) whose tail Badger would cut at the next
// start, and Badger refuses to open such a directory read-only. Then the
// logs are copied, cut where Badger would cut them, into a scratch
// directory beside symbolic links to every other file, and that is opened
// read-only instead; dir itself is never written. logDamage says, for each
// write-ahead log that was cut, whether anything but zeros followed the
// cut (damage: the transactions after it would be lost at the next start).
// close removes the scratch directory after closing the store.
func OpenForVerify(dir string) (s *Store, logDamage []ValueDamage, close func(), err error) {
	s, err = Open(dir, Options{ReadOnly: true})
	if err == nil {
		return s, nil, func() { s.Close() }, nil
	}
	if !strings.Contains(err.Error(), "Log truncate required") {
		return nil, nil, nil, err
	}
	scratch, terr := os.MkdirTemp("", "weir-verify-")
	if terr != nil {
		return nil, nil, nil, err
	}
	cleanup := func() { os.RemoveAll(scratch) }
	entries, terr := os.ReadDir(dir)
	if terr != nil {
		cleanup()
		return nil, nil, nil, err
	}
	abs, _ := filepath.Abs(dir)
	for _, e := range entries {
		src := filepath.Join(abs, e.Name())
		dst := filepath.Join(scratch, e.Name())
		if filepath.Ext(e.Name()) != ".mem" {
			if terr := os.Symlink(src, dst); terr != nil {
				cleanup()
				return nil, nil, nil, terr
			}
			continue
		}
		data, terr := os.ReadFile(src)
		if terr != nil {
			cleanup()
			return nil, nil, nil, terr
		}
		if terr := os.WriteFile(dst, data, 0o600); terr != nil {
			cleanup()
			return nil, nil, nil, terr
		}
	}
	// Badger names the log and the offset it would cut at; cut the copy
	// there and try again, log by log.
	cut := regexp.MustCompile(`while opening fid: (\d+) .*end offset: (\d+) < size: (\d+)`)
	for tries := 0; tries < 64; tries++ {
		s, err = Open(scratch, Options{ReadOnly: true})
		if err == nil {
			s.dir = dir
			return s, logDamage, func() { s.Close(); cleanup() }, nil
		}
		m := cut.FindStringSubmatch(err.Error())
		if m == nil {
			break
		}
		fid, _ := strconv.Atoi(m[1])
		end, _ := strconv.Atoi(m[2])
		name := fmt.Sprintf("%05d.mem", fid)
		data, rerr := os.ReadFile(filepath.Join(scratch, name))
		if rerr != nil || end > len(data) {
			break
		}
		if _, damaged := logTailDamage(dir, name, data, true); damaged {
			logDamage = append(logDamage, ValueDamage{File: name,
				Reason: fmt.Sprintf("write-ahead log has a damaged entry before offset %d, with data after it: the transactions after it would be lost at the next start", end)})
		}
		if terr := os.Truncate(filepath.Join(scratch, name), int64(end)); terr != nil {
			break
		}
	}
	cleanup()
	return nil, nil, nil, err
}

// checkLogFile reads a value-log file of dir entry by entry; a bad entry
// followed by acknowledged data (not a torn tail, see logtail_torn.go) is
// damage.
func checkLogFile(dir, name string, newest bool) *ValueDamage {
	mf, err := z.OpenMmapFile(name, os.O_RDONLY, 0)
	if err != nil {
		return &ValueDamage{File: filepath.Base(name), Reason: err.Error()}
	}
	defer func() { _ = mf.Close(-1) }()
	if bad, damaged := logTailDamage(dir, name, mf.Data, newest); damaged {
		return &ValueDamage{File: filepath.Base(name), Reason: fmt.Sprintf("value-log entry at offset %d fails its checksum", bad)}
	}
	return nil
}
