package files

import (
	"time"
)

// What discovery knows of the files it saw and the source has not read:
// candidates, each with the observations the completeness rule needs
// (discover.go). Guarded by Source.mu; discovery's goroutine observes, the
// reader admits.

type candidate struct {
	info FileInfo
	// since is when this size and modification time were first observed;
	// seen the latest observation.
	since, seen time.Time
	// renamed: it appeared by a rename inside a watched folder.
	renamed bool
	// retryAt: it could not be read; not offered again before then.
	retryAt time.Time
	// reported: an unreadable-file notice was given for this version.
	reported bool
}

// complete applies the completeness rule.
func (c *candidate) complete(settle time.Duration) bool {
	return c.renamed || c.seen.Sub(c.info.Modified) >= settle || c.seen.Sub(c.since) >= settle
}

// observe records that f was seen at now (renamed: it appeared by a
// rename). A file already in the log is never a candidate again; one
// changed since it was read is reported once per change.
func (s *Source) observe(f FileInfo, now time.Time, renamed bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if i, ok := s.byPath[f.Path]; ok {
		e := s.entries[i]
		if e.File.Size != f.Size || !e.File.Modified.Equal(f.Modified) {
			key := changeKey{f.Path, f.Size, f.Modified.UnixNano()}
			if !s.changedSeen[key] {
				s.changedSeen[key] = true
				s.noticeLocked(NoticeChanged, f.Path, "file %s changed after it was read (size %d → %d, modified %s → %s); it is not read again — write new data under a new name",
					f.Path, e.File.Size, f.Size, e.File.Modified.UTC().Format(time.RFC3339Nano), f.Modified.UTC().Format(time.RFC3339Nano))
			}
		}
		return
	}
	c, ok := s.cands[f.Path]
	switch {
	case !ok:
		c = &candidate{info: f, since: now, seen: now, renamed: renamed}
		s.cands[f.Path] = c
	case c.info.Size != f.Size || !c.info.Modified.Equal(f.Modified):
		// Changed since the last observation: the rule starts over.
		*c = candidate{info: f, since: now, seen: now, renamed: renamed}
	default:
		c.seen = now
		c.renamed = c.renamed || renamed
	}
	if c.complete(s.cfg.settle) {
		delete(s.unsettled, f.Path)
	} else {
		s.unsettled[f.Path] = struct{}{}
	}
}

// dropLocked removes a candidate.
func (s *Source) dropLocked(path string) {
	delete(s.cands, path)
	delete(s.unsettled, path)
}

// forget drops a candidate that vanished (and those under it, when path
// was a folder).
func (s *Source) forget(path string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.vanishedLocked(path)
	prefix := path + "/"
	for p := range s.cands {
		if len(p) > len(prefix) && p[:len(prefix)] == prefix {
			s.vanishedLocked(p)
		}
	}
}

// vanishedLocked drops a candidate that is gone, reporting it: a file
// listed, and deleted (or renamed away) before it was read.
//
// Only a complete candidate is reported: one still being written that
// goes away was in flight (a writer's temporary file renamed to its
// final name), not a file lost.
func (s *Source) vanishedLocked(path string) {
	c, ok := s.cands[path]
	if !ok {
		return
	}
	s.dropLocked(path)
	if c.complete(s.cfg.settle) {
		s.noticeLocked(NoticeVanished, path, "file %s vanished before it was read", path)
	}
}

// forgetUnseen drops the candidates a full listing that started at t did
// not see: they vanished.
func (s *Source) forgetUnseen(t time.Time) {
	s.mu.Lock()
	defer s.mu.Unlock()
	for p, c := range s.cands {
		if c.seen.Before(t) {
			s.vanishedLocked(p)
		}
	}
}

// incomplete are the candidates waiting for a second observation.
func (s *Source) incomplete() []string {
	s.mu.Lock()
	defer s.mu.Unlock()
	out := make([]string, 0, len(s.unsettled))
	for p := range s.unsettled {
		out = append(out, p)
	}
	return out
}

// waiting reports whether any candidate waits for a second observation.
func (s *Source) waiting() bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	return len(s.unsettled) > 0
}

// readyLocked are the complete candidates that may be admitted at now,
// oldest first.
//
// Files are admitted in age order, so a complete file never overtakes an
// older one still settling: after a restart, a file renamed in just now is
// complete at once while one written shortly before the restart waits for
// its second observation, and admitting the new one first would read rows
// out of their order (a dedup keeps the wrong duplicate; a watermark
// counts the older file's rows late). An incomplete file holds back the
// younger ones for at most the settle interval. Files waiting for a retry
// (unreadable) hold back nothing.
func (s *Source) readyLocked(now time.Time) []FileInfo {
	var all []FileInfo
	for _, c := range s.cands {
		if !now.Before(c.retryAt) {
			all = append(all, c.info)
		}
	}
	byAge(all)
	for i, f := range all {
		if !s.cands[f.Path].complete(s.cfg.settle) {
			return all[:i]
		}
	}
	return all
}

// Backlog is the files and bytes discovered and not yet read (complete
// or not).
func (s *Source) Backlog() (files, bytes int64) {
	s.mu.Lock()
	defer s.mu.Unlock()
	for _, c := range s.cands {
		files++
		bytes += c.info.Size
	}
	return files, bytes
}

type changeKey struct {
	path  string
	size  int64
	mtime int64
}
