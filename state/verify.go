package state

import (
	"path/filepath"
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
// block at Open; then every key's value is read (Badger checks the CRC of
// each value-log entry it reads and of each block), and every table chunk
// is checksum-checked and decoded, published or not. It never writes, so
// it may run on a store opened with ReadOnly. rels lists the relations
// the catalog knows (their keys are checked against damaged files even
// when no chunk of theirs can be read).
func (s *Store) Verify(rels []uint32) *VerifyReport {
	r := &VerifyReport{Relations: map[uint32]*RelationCheck{}}
	names, _ := filepath.Glob(filepath.Join(s.dir, "*.sst"))
	r.TableFiles = len(names)
	vlogs, _ := filepath.Glob(filepath.Join(s.dir, "*.vlog"))
	r.ValueLogFiles = len(vlogs)
	for _, d := range s.damaged {
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
		for _, o := range []uint32{oid, StateRelation(oid)} {
			p := tablePrefix(o)
			for _, d := range s.damaged {
				if d.overlaps(p, prefixEnd(p)) {
					rel(o).Damaged++
					r.Damage = append(r.Damage, ValueDamage{Rel: o, Key: p, File: d.file,
						Reason: "its keys are in damaged table file " + d.file})
					break
				}
			}
		}
	}
	err := s.db.View(func(txn *badger.Txn) error {
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

