package files

import (
	"context"
	"errors"
	"io/fs"
	"sort"
	"strings"
	"time"

	"github.com/apache/arrow-go/v18/arrow"

	"github.com/weir-sql/weir/connector"
	"github.com/weir-sql/weir/sql/sqlerr"
)

// Read returns the batches from offset from on (see connector.Source and
// Source). Batches of files already in the log are decoded from disk
// again when not cached; at the log's end, new files are admitted.
//
// Read.Backlog counts the rows of files in the log after Next (known from
// the log); files discovered but not yet admitted count no rows there —
// their rows are unknown until decoded — and show in Backlog's files and
// bytes instead.
func (s *Source) Read(ctx context.Context, from int64, max int) (connector.Read, error) {
	s.readMu.Lock()
	defer s.readMu.Unlock()
	s.mu.Lock()
	entries, end, sc := s.entries, s.end, s.schema
	s.mu.Unlock()
	// entries only grows, and only here (admit), so this snapshot is
	// stable while the read runs.
	if from < 0 {
		from = 0
	}
	if from > end {
		return connector.Read{From: end, Next: end}, nil
	}
	rd := connector.Read{From: from}
	room := func() int {
		if max <= 0 {
			return -1
		}
		return max - len(rd.Batches)
	}
	off := from
	// The file containing Next and its batches (for the backlog).
	var curBatches []arrow.RecordBatch
	curFirst := int64(0)
	i := sort.Search(len(entries), func(i int) bool { return entries[i].First+entries[i].Batches > off })
	for i < len(entries) && room() != 0 {
		e := entries[i]
		if e.Batches == 0 {
			i++
			continue
		}
		bs, err := s.logged(ctx, e, s.schemaFor(e.Version, sc))
		if err != nil {
			return connector.Read{}, err
		}
		off = take(&rd, bs, off-e.First, room(), off)
		curBatches, curFirst = bs, e.First
		if off < e.First+e.Batches {
			break
		}
		i++
	}
	if off == end && room() != 0 {
		added, err := s.admit(ctx, room())
		if err != nil && len(rd.Batches) == 0 {
			return connector.Read{}, err
		}
		// With batches in hand, an admission error waits for the next
		// Read (which starts at the log's end and meets it again).
		for _, a := range added {
			if room() == 0 {
				break
			}
			if a.entry.Batches == 0 {
				continue
			}
			off = take(&rd, a.batches, 0, room(), off)
			curBatches, curFirst = a.batches, a.entry.First
		}
		s.mu.Lock()
		entries = s.entries
		s.mu.Unlock()
	}
	rd.Next = off
	rd.Backlog = s.rowsAfter(entries, off, curBatches, curFirst)
	s.lookAhead(entries, off, sc)
	return rd, nil
}

// take appends bs[k:] to rd, at most room batches (room < 0: all), and
// returns the offset after them.
func take(rd *connector.Read, bs []arrow.RecordBatch, k int64, room int, off int64) int64 {
	t := bs[k:]
	if room >= 0 && len(t) > room {
		t = t[:room]
	}
	rd.Batches = append(rd.Batches, t...)
	return off + int64(len(t))
}

// rowsAfter is the rows of the log after offset off: the rest of the file
// holding it (whose batches are cur, from offset curFirst) and the files
// after.
func (s *Source) rowsAfter(entries []logEntry, off int64, cur []arrow.RecordBatch, curFirst int64) int64 {
	var n int64
	i := sort.Search(len(entries), func(i int) bool { return entries[i].First+entries[i].Batches > off })
	if i < len(entries) && entries[i].First < off && cur != nil && curFirst == entries[i].First {
		for _, b := range cur[off-curFirst:] {
			n += b.NumRows()
		}
		i++
	}
	if i < len(entries) {
		last := entries[len(entries)-1]
		n += last.rowsBefore + last.Rows - entries[i].rowsBefore
	}
	return n
}

// lookAhead starts decoding what the next Read will probably want: the
// next file of the log when re-reading it, else the oldest file ready to
// be admitted.
func (s *Source) lookAhead(entries []logEntry, off int64, sc Schema) {
	j := sort.Search(len(entries), func(i int) bool { return entries[i].First+entries[i].Batches > off })
	if j < len(entries) {
		if entries[j].First < off {
			s.cache.get(entries[j].File, s.opts, s.schemaFor(entries[j].Version, sc)) // the one being served: keep it
			j++
		}
		for ; j < len(entries); j++ {
			if entries[j].Batches > 0 {
				s.cache.get(entries[j].File, s.opts, s.schemaFor(entries[j].Version, sc))
				return
			}
		}
		return
	}
	s.mu.Lock()
	var f *FileInfo
	if ready := s.readyLocked(time.Now()); len(ready) > 0 && !s.holdingLocked() {
		f = &ready[0]
	}
	s.mu.Unlock()
	if f != nil {
		s.cache.get(*f, s.opts, sc)
	}
}

// logged returns the batches of a file in the log, decoding it again if
// need be. The file must be what the log recorded: one that vanished or
// changed cannot give the rows its offsets stand for (XX001).
func (s *Source) logged(ctx context.Context, e logEntry, sc Schema) ([]arrow.RecordBatch, error) {
	d := s.cache.get(e.File, s.opts, sc)
	select {
	case <-d.done:
	case <-ctx.Done():
		return nil, ctx.Err()
	}
	last := e.First + e.Batches - 1
	if d.statErr != nil {
		s.cache.drop(e.File, sc)
		if errors.Is(d.statErr, fs.ErrNotExist) {
			return nil, sqlerr.New(sqlerr.DataCorrupted, "file \"%s\" of the processed-file log is gone: the rows read from it (offsets %d to %d) cannot be read again", e.File.Path, e.First, last).
				WithHint("Leave processed files in place until the table's checkpoints are past them.")
		}
		return nil, accessError("could not open", e.File.Path, d.statErr)
	}
	if d.changed {
		s.cache.drop(e.File, sc)
		return nil, sqlerr.New(sqlerr.DataCorrupted, "file \"%s\" changed after it was read: the rows read from it (offsets %d to %d) cannot be read again", e.File.Path, e.First, last).
			WithHint("Do not change files once written; write new data under a new name.")
	}
	if d.err != nil {
		s.cache.drop(e.File, sc)
		return nil, d.err
	}
	if int64(len(d.batches)) != e.Batches {
		s.cache.drop(e.File, sc)
		return nil, sqlerr.New(sqlerr.DataCorrupted, "file \"%s\" decodes to %d batches, but the processed-file log recorded %d", e.File.Path, len(d.batches), e.Batches)
	}
	return d.batches, nil
}

// admitted is a file admitted by one Read, with its batches.
type admitted struct {
	entry   logEntry
	batches []arrow.RecordBatch
}

// retryUnreadable is how long a file that could not be read waits before
// it is tried again.
const retryUnreadable = 10 * time.Second

// admit enters new files in the log: complete ones, oldest first, within
// maxFilesPerTrigger and maxBytesPerTrigger (at least one file), stopping
// early once room batches are in hand (room < 0: no such bound). The
// entries are committed before admit returns, so none of their batches is
// returned before its file is in the log.
func (s *Source) admit(ctx context.Context, room int) ([]admitted, error) {
	now := time.Now()
	s.mu.Lock()
	ready := s.readyLocked(now)
	sc := s.schema
	var pending *Schema
	if s.pending != nil {
		p := *s.pending
		p.Columns = append([]Column(nil), p.Columns...)
		pending = &p
	}
	seq, next := len(s.entries), s.end
	holding := s.holdingLocked()
	s.mu.Unlock()
	if len(ready) == 0 || holding {
		return nil, nil // holding: the engine reopens the source on the pending version
	}
	files := ready[:0:0]
	var bytes int64
	for _, f := range ready {
		if len(files) >= max(s.opts.MaxFilesPerTrigger, 1) {
			break
		}
		if s.opts.MaxBytesPerTrigger > 0 && len(files) > 0 && bytes+f.Size > s.opts.MaxBytesPerTrigger {
			break
		}
		files = append(files, f)
		bytes += f.Size
	}
	var out []admitted
	var admitErr error
	var evolved []Column
	var stopAt *FileInfo // the file whose new columns stopped admission
	got := 0
	for i, f := range files {
		d := s.cache.get(f, s.opts, sc)
		if i+1 < len(files) {
			s.cache.get(files[i+1], s.opts, sc) // decode the next one meanwhile
		}
		select {
		case <-d.done:
		case <-ctx.Done():
			return nil, ctx.Err() // nothing committed: a failed Read changes nothing
		}
		if d.statErr != nil || d.changed {
			s.cache.drop(f, sc)
			s.settleAgain(f, d.statErr)
			continue
		}
		e := logEntry{File: f, First: next, Version: sc.Version}
		if d.err != nil {
			s.cache.drop(f, sc)
			code := sqlerr.Code(d.err)
			switch {
			case code == sqlerr.DataCorrupted && s.opts.IgnoreCorruptFiles:
				e.Damaged = true
				s.notice(NoticeDamaged, f.Path, "file %s is damaged and was skipped (ignoreCorruptFiles): %v", f.Path, d.err)
			case unreadable(d.err):
				s.unreadable(f, d.err, now)
				continue
			default:
				admitErr = d.err
			}
			if admitErr != nil {
				break
			}
		}
		if len(d.stats.NewColumns) > 0 && !e.Damaged {
			switch s.opts.EvolutionMode {
			case EvolveFailOnNewColumns:
				// 22000 (data_exception): the data does not fit the
				// schema; Databricks' UNKNOWN_FIELD_EXCEPTION has a
				// SQLSTATE of its own (KD003) PostgreSQL lacks.
				admitErr = sqlerr.New(sqlerr.DataException, "file \"%s\" has columns the schema lacks: %s", f.Path, columnNames(d.stats.NewColumns)).
					WithDetail("Databricks reports this as UNKNOWN_FIELD_EXCEPTION.NEW_FIELDS_IN_FILE.").
					WithHint("schemaEvolutionMode is failOnNewColumns: add the columns to the source's schema, or use addNewColumns or rescue, then restart the table.")
			case EvolveAddNewColumns:
				evolved = append(evolved, d.stats.NewColumns...)
				if s.cfg.stopOnNew && evolve(sc, pending, d.stats.NewColumns) != nil {
					// Not read under the old schema: recorded, and
					// admitted once the source reopens on the new one.
					s.cache.drop(f, sc)
					stopAt = &files[i]
				}
			}
			if admitErr != nil || stopAt != nil {
				break
			}
		}
		e.Batches = int64(len(d.batches))
		for _, b := range d.batches {
			e.Rows += b.NumRows()
		}
		next += e.Batches
		out = append(out, admitted{entry: e, batches: d.batches})
		got += len(d.batches)
		if room >= 0 && got >= room {
			break
		}
	}
	if len(out) == 0 && stopAt == nil {
		return nil, admitErr
	}
	newVersion := evolve(sc, pending, evolved)
	txn := s.st.Begin(true)
	defer txn.Discard()
	for i, a := range out {
		if err := txn.Set(entryKey(s.logKey, seq+i), encodeEntry(a.entry)); err != nil {
			return nil, err
		}
	}
	if newVersion != nil {
		if err := setVersion(txn, s.logKey, *newVersion); err != nil {
			return nil, err
		}
	}
	if err := txn.Commit(); err != nil {
		return nil, err
	}
	if stopAt != nil && s.cfg.hit != nil {
		s.cfg.hit("files-evolve-recorded") // the merged schema durable, the file unread
	}
	s.mu.Lock()
	for _, a := range out {
		if n := len(s.entries); n > 0 {
			a.entry.rowsBefore = s.entries[n-1].rowsBefore + s.entries[n-1].Rows
		}
		s.byPath[a.entry.File.Path] = len(s.entries)
		s.entries = append(s.entries, a.entry)
		s.end = a.entry.First + a.entry.Batches
		s.dropLocked(a.entry.File.Path)
	}
	if newVersion != nil {
		s.pending = newVersion
		s.versions = insertVersion(s.versions, *newVersion)
		switch {
		case stopAt != nil:
			s.noticeLocked(NoticeSchema, stopAt.Path, "file %s has new columns %s: schema version %d recorded; the table restarts on it and reads the file with them", stopAt.Path, columnNames(evolved), newVersion.Version)
		default:
			s.noticeLocked(NoticeSchema, out[len(out)-1].entry.File.Path, "new columns %s: schema version %d recorded", columnNames(evolved), newVersion.Version)
		}
	}
	s.mu.Unlock()
	// An admission error after some files waits for the next Read.
	return out, nil
}

// evolve returns the schema version to record when files brought new
// columns: the pending version (or the served one's successor) with the
// columns it lacks appended; nil when nothing is new.
func evolve(sc Schema, pending *Schema, cols []Column) *Schema {
	if len(cols) == 0 {
		return nil
	}
	base := pending
	if base == nil {
		b := sc
		b.Columns = append([]Column(nil), sc.Columns...)
		b.Version = sc.Version + 1
		base = &b
	}
	added := false
	for _, c := range cols {
		dup := false
		for _, have := range base.Columns {
			if strings.EqualFold(have.Name, c.Name) {
				dup = true
				break
			}
		}
		if !dup {
			base.Columns = append(base.Columns, c)
			added = true
		}
	}
	if !added {
		return nil // recorded already, or only case variants of known columns
	}
	return base
}

func columnNames(cs []Column) string {
	names := make([]string, len(cs))
	for i, c := range cs {
		names[i] = c.Name
	}
	return strings.Join(names, ", ")
}

// unreadable reports whether a decode failed for want of access to the
// file (it may be readable later) rather than for what it holds.
func unreadable(err error) bool {
	if errors.Is(err, fs.ErrPermission) || errors.Is(err, fs.ErrNotExist) {
		return true
	}
	switch sqlerr.Code(err) {
	case sqlerr.IOError, sqlerr.InsufficientPrivilege, sqlstateUndefinedFile:
		return true
	}
	return false
}

// unreadable puts off a file that could not be read, reporting it once.
func (s *Source) unreadable(f FileInfo, err error, now time.Time) {
	s.mu.Lock()
	defer s.mu.Unlock()
	c, ok := s.cands[f.Path]
	if !ok {
		return
	}
	c.retryAt = now.Add(retryUnreadable)
	if !c.reported {
		c.reported = true
		s.noticeLocked(NoticeUnreadable, f.Path, "cannot read %s: %v (trying again every %s)", f.Path, err, retryUnreadable)
	}
}

// settleAgain handles a file that changed or vanished between discovery
// and decoding: it goes back to discovery (or away).
func (s *Source) settleAgain(f FileInfo, statErr error) {
	if statErr != nil {
		if errors.Is(statErr, fs.ErrNotExist) {
			s.forget(f.Path) // reports it vanished
			return
		}
		s.unreadable(f, statErr, time.Now())
		return
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if c, ok := s.cands[f.Path]; ok {
		// Not complete after all: the rule starts over at the next
		// observation.
		now := time.Now()
		c.since, c.seen, c.renamed = now, now, false
		c.info.Size, c.info.Modified = -1, now
		s.unsettled[f.Path] = struct{}{}
	}
}
