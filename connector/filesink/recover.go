package filesink

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"time"
)

// recover brings the folder to the state of its newest manifest, whatever
// step of an epoch a crash interrupted (doc.go): every manifest's files
// must be there (a manifest is written only once they are), the files a
// manifest replaced are deleted once their retention passed
// (deleteReplaced is idempotent), and every
// file of an epoch that has no manifest — temporary, or renamed before the
// crash — is deleted. That epoch is then written again by the engine,
// under the same names.
func (s *Sink) recover() error {
	if err := os.MkdirAll(filepath.Join(s.o.Dir, ManifestDir), 0o755); err != nil {
		return err
	}
	ms, err := ReadManifests(s.o.Dir)
	if err != nil {
		return err
	}
	for _, m := range ms {
		if len(m.Removed) > 0 {
			s.replaced = append(s.replaced, replacedFiles{at: m.Committed, paths: m.Removed})
		}
	}
	if err := s.deleteReplaced(time.Now()); err != nil {
		return err
	}
	live := LiveFiles(ms)
	for _, f := range live {
		if _, err := os.Stat(s.finalPath(f.Path)); err != nil {
			return fmt.Errorf("data file %s, which the manifests list, is missing: %w", f.Path, err)
		}
		s.live[f.Partition] = append(s.live[f.Partition], f)
	}
	if n := len(ms); n > 0 {
		s.last = ms[n-1].Epoch
	}
	return filepath.WalkDir(s.o.Dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() {
			return nil
		}
		name := d.Name()
		if strings.HasPrefix(name, tempPrefix) {
			return os.Remove(p)
		}
		if e, ok := dataFileEpoch(name); ok && e > s.last {
			return os.Remove(p)
		}
		return nil
	})
}

// dataFileEpoch is the epoch in a data file's name (part-<epoch>-<n>.ext).
func dataFileEpoch(name string) (int64, bool) {
	rest, ok := strings.CutPrefix(name, "part-")
	if !ok {
		return 0, false
	}
	i := strings.IndexByte(rest, '-')
	if i < 0 {
		return 0, false
	}
	e, err := strconv.ParseInt(rest[:i], 10, 64)
	return e, err == nil
}

// isDiskFull reports whether err is ENOSPC (or EDQUOT).
func isDiskFull(err error) bool {
	return errors.Is(err, syscall.ENOSPC) || errors.Is(err, syscall.EDQUOT)
}
