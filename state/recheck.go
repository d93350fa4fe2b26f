package state

import (
	"bytes"
	"path/filepath"

	"github.com/dgraph-io/badger/v4/table"
	"github.com/dgraph-io/badger/v4/y"
)

// recheckRange checks the blocks of the table files that may hold keys in
// [lo, hi) (hi nil: no upper bound), after an iteration over that range:
// a block that failed Badger's check while the iteration read it ended the
// iteration early without an error (integrity.go). New damage is recorded
// as Open records it, so that later reads of the range fail too, and
// returned as a corruption of rel. It costs a second pass over the range's
// blocks, which a read that loads a relation into its cache pays once.
func (s *Store) recheckRange(rel uint32, lo, hi []byte) *corruption {
	if s.opts.noVerify {
		return nil
	}
	var found []damagedFile
	for _, ti := range s.db.Tables() {
		left, right := y.ParseKey(ti.Left), y.ParseKey(ti.Right)
		if (hi != nil && bytes.Compare(left, hi) >= 0) || bytes.Compare(right, lo) < 0 {
			continue
		}
		name := filepath.Join(s.dir, table.IDToFilename(ti.ID))
		damage := checkTableFileRange(name, lo, hi)
		if len(damage) > 0 && !s.inTree(damage[0].File) {
			continue // compacted away while it was read (see inTree)
		}
		for _, d := range damage {
			df := damagedFile{file: d.File, first: d.First, last: d.Last, reason: d.Reason}
			if df.first == nil {
				df.first = append([]byte(nil), left...)
			}
			if df.last == nil {
				df.last = append([]byte(nil), right...)
			}
			found = append(found, df)
		}
	}
	if len(found) == 0 {
		return nil
	}
	s.damagedMu.Lock()
	known := s.damagedNow()
	var fresh []damagedFile
	for _, d := range found {
		if !containsDamage(known, d) {
			fresh = append(fresh, d)
		}
	}
	if len(fresh) > 0 {
		all := append(append([]damagedFile(nil), known...), fresh...)
		s.damaged.Store(&all)
		if !s.opts.ReadOnly {
			if err := s.recordDamage(fresh, known); err != nil {
				newCorruption(rel, "the damage found could not be recorded: "+err.Error(), lo, fresh[0].file)
			}
		}
	}
	s.damagedMu.Unlock()
	return newCorruption(rel, "data checksum mismatch in table file "+found[0].file+": "+found[0].reason, lo, found[0].file)
}

// containsDamage says whether list holds the damaged block d.
func containsDamage(list []damagedFile, d damagedFile) bool {
	for _, k := range list {
		if k.file == d.file && bytes.Equal(k.first, d.first) && bytes.Equal(k.last, d.last) {
			return true
		}
	}
	return false
}
