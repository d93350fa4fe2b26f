package filesink

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"syscall"
)

// recover brings the folder to the state of its newest manifest, whatever
// step of an epoch a crash interrupted (doc.go): every manifest's files
// are renamed into place and its replaced files deleted (publish is
// idempotent), and every temporary file left — of an epoch that has no
// manifest, so is not committed — is deleted. The epoch is then written
// again by the engine, under the same final names.
func (s *Sink) recover() error {
	if err := os.MkdirAll(filepath.Join(s.o.Dir, ManifestDir), 0o755); err != nil {
		return err
	}
	ms, err := ReadManifests(s.o.Dir)
	if err != nil {
		return err
	}
	removed := map[string]bool{}
	for _, m := range ms {
		for _, r := range m.Removed {
			removed[r] = true
		}
	}
	for i := range ms {
		m := ms[i]
		// A file added and later compacted away is not renamed.
		live := m
		live.Added = nil
		for _, f := range m.Added {
			if !removed[f.Path] {
				live.Added = append(live.Added, f)
			}
		}
		if err := s.publish(&live); err != nil {
			return err
		}
	}
	for _, f := range LiveFiles(ms) {
		s.live[f.Partition] = append(s.live[f.Partition], f)
	}
	if n := len(ms); n > 0 {
		s.last = ms[n-1].Epoch
	}
	return filepath.WalkDir(s.o.Dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if !d.IsDir() && strings.HasPrefix(d.Name(), tempPrefix) {
			return os.Remove(p)
		}
		return nil
	})
}

// isDiskFull reports whether err is ENOSPC (or EDQUOT).
func isDiskFull(err error) bool {
	return errors.Is(err, syscall.ENOSPC) || errors.Is(err, syscall.EDQUOT)
}
