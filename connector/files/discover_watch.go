package files

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/fsnotify/fsnotify"
)

// The discovery goroutine of a Source: fsnotify to notice new files at
// once, and a full re-listing every relist interval as the fallback
// (fsnotify misses events on some filesystems — network mounts, FUSE —
// and cannot watch a folder before it exists), plus second observations
// of files the completeness rule is waiting on. Only this goroutine
// touches the watcher; what it learns goes into the Source's candidates.

// DefaultRelist is the interval of the fallback re-listing (longer when
// listing takes long: at most a tenth of the time is spent listing).
const DefaultRelist = 2 * time.Second

type discovery struct {
	s       *Source
	lister  *lister
	watcher *fsnotify.Watcher // nil when fsnotify could not start
	watched map[string]bool
	sync    chan chan struct{}
	stop    chan struct{}
	done    chan struct{}
	// missing: the path's folder was missing or unreadable at the last
	// listing (reported once, until it is back).
	missing bool
}

func startDiscovery(s *Source) (*discovery, error) {
	l, err := newLister(s.opts)
	if err != nil {
		return nil, err
	}
	d := &discovery{s: s, lister: l, watched: map[string]bool{}, sync: make(chan chan struct{}), stop: make(chan struct{}), done: make(chan struct{})}
	if w, err := fsnotify.NewWatcher(); err == nil {
		d.watcher = w
	} else {
		s.notice(NoticeFolder, s.opts.Path, "file notifications are unavailable (%v); new files are found by re-listing every %s", err, s.cfg.relist)
	}
	l.onDir = d.watch
	l.onSkip = func(p string, err error) {
		if errors.Is(err, fs.ErrNotExist) {
			return
		}
		s.noticeOnce(NoticeUnreadable, p, "cannot look at %s: %v", p, err)
	}
	ready := make(chan struct{})
	go d.run(ready)
	// The first listing is in (and the folders watched) when Open
	// returns: the first Read sees the files already there, and a file
	// renamed into place from now on is noticed as such.
	<-ready
	s.mu.Lock()
	if len(s.cands) == 0 && len(s.entries) == 0 {
		s.noticeLocked(NoticeNoFiles, s.opts.Path, "no files match %s yet; files arriving there later are read", s.opts.Path)
	}
	s.mu.Unlock()
	return d, nil
}

func (d *discovery) close() {
	close(d.stop)
	<-d.done
}

// rescan lists now and returns once the listing is applied (tests; the
// engine's REFRESH).
func (d *discovery) rescan() {
	reply := make(chan struct{})
	select {
	case d.sync <- reply:
		<-reply
	case <-d.done:
	}
}

func (d *discovery) run(ready chan struct{}) {
	defer close(d.done)
	if d.watcher != nil {
		defer d.watcher.Close()
	}
	relist := d.s.cfg.relist
	d.relist()
	close(ready)
	listTimer := time.NewTimer(relist)
	defer listTimer.Stop()
	settleTimer := time.NewTimer(time.Hour)
	settleTimer.Stop()
	settleArmed := false
	armSettle := func() {
		if !settleArmed && d.s.waiting() {
			settleTimer.Reset(max(d.s.cfg.settle/4, 5*time.Millisecond))
			settleArmed = true
		}
	}
	armSettle()
	var events <-chan fsnotify.Event
	var errs <-chan error
	if d.watcher != nil {
		events, errs = d.watcher.Events, d.watcher.Errors
	}
	for {
		select {
		case <-d.stop:
			return
		case reply := <-d.sync:
			d.relist()
			close(reply)
		case <-listTimer.C:
			took := d.relist()
			listTimer.Reset(max(relist, 10*took))
		case <-settleTimer.C:
			settleArmed = false
			d.recheck()
		case ev, ok := <-events:
			if !ok {
				events = nil
				continue
			}
			d.event(ev)
		case err, ok := <-errs:
			if !ok {
				errs = nil
				continue
			}
			// An overflowed queue lost events: list at once.
			d.s.noticeOnce(NoticeFolder, d.s.opts.Path, "file notifications failed (%v); re-listing", err)
			d.relist()
		}
		armSettle()
	}
}

// relist lists the whole path and applies it; it returns how long it took.
func (d *discovery) relist() time.Duration {
	start := time.Now()
	err := d.lister.list(func(f FileInfo) { d.s.observe(f, time.Now(), false) })
	if err != nil {
		if !d.missing {
			d.missing = true
			d.s.notice(NoticeFolder, d.s.opts.Path, "cannot list %s: %v (looking again every %s)", d.s.opts.Path, err, d.s.cfg.relist)
		}
	} else if d.missing {
		d.missing = false
		d.s.notice(NoticeFolder, d.s.opts.Path, "%s can be listed again", d.s.opts.Path)
	}
	d.s.forgetUnseen(start)
	d.prune()
	return time.Since(start)
}

// recheck observes the files the completeness rule is waiting on again.
func (d *discovery) recheck() {
	for _, p := range d.s.incomplete() {
		fi, err := os.Stat(p)
		if err != nil {
			d.s.forget(p)
			continue
		}
		d.s.observe(fileInfoOf(p, fi), time.Now(), false)
	}
}

// watch adds a folder to the watcher (the lister calls it for every
// folder it lists).
func (d *discovery) watch(dir string) {
	if d.watcher == nil || d.watched[dir] {
		return
	}
	if err := d.watcher.Add(dir); err != nil {
		// Too many watches, or the folder went: re-listing covers it.
		// Reported once: past the kernel's watch limit every folder fails.
		d.s.noticeOnceKey("watch", NoticeFolder, dir, "cannot watch %s (%v); new files there (and in other folders that cannot be watched) are found by re-listing", dir, err)
		return
	}
	d.watched[dir] = true
}

// prune forgets the watches of folders that are gone (the kernel dropped
// their watches with them).
func (d *discovery) prune() {
	for dir := range d.watched {
		if fi, err := os.Stat(dir); err != nil || !fi.IsDir() {
			delete(d.watched, dir)
			if d.watcher != nil {
				_ = d.watcher.Remove(dir)
			}
		}
	}
}

// event applies one notification. A Create that is the arrival of a
// rename is a file that appeared whole.
func (d *discovery) event(ev fsnotify.Event) {
	name := filepath.Base(ev.Name)
	if hiddenName(name) {
		return
	}
	switch {
	case ev.Has(fsnotify.Remove) || ev.Has(fsnotify.Rename):
		d.s.forget(ev.Name)
		if d.watched[ev.Name] {
			delete(d.watched, ev.Name)
		}
		return
	case ev.Has(fsnotify.Create) || ev.Has(fsnotify.Write) || ev.Has(fsnotify.Chmod):
	default:
		return
	}
	fi, err := os.Stat(ev.Name)
	if err != nil {
		return
	}
	if fi.IsDir() {
		if ev.Has(fsnotify.Create) {
			// A nested folder created later: watch it, and list it (files
			// may have landed in it before the watch).
			d.relistUnder(ev.Name)
		}
		return
	}
	if !fi.Mode().IsRegular() || !d.selects(ev.Name, fi) {
		return
	}
	d.s.observe(fileInfoOf(ev.Name, fi), time.Now(), renamedInto(ev))
}

// renamedInto reports whether a Create is the arrival half of a rename
// whose departure fsnotify saw in a watched folder (inotify's
// IN_MOVED_TO paired with IN_MOVED_FROM by their cookie). fsnotify keeps
// the old name in an unexported field that only Event.String shows
// ("CREATE "new" ← "old""), so the string tells. A file moved in from an
// unwatched folder is not recognised: the settle rule applies to it.
// (TestDiscoverRenamedIntoPlace pins this to the fsnotify version in
// go.mod.)
func renamedInto(ev fsnotify.Event) bool {
	return ev.Has(fsnotify.Create) && ev.String() != fmt.Sprintf("%-13s %q", ev.Op.String(), ev.Name)
}

// relistUnder lists a folder created under the path, if listing reaches
// it (it was not watched when its first files may have landed).
func (d *discovery) relistUnder(dir string) {
	rel := d.rel(dir)
	if rel == nil || !d.lister.reachesDir(rel) {
		return
	}
	_ = d.lister.walk(dir, rel, func(f FileInfo) { d.s.observe(f, time.Now(), false) }, false)
}

// rel is p's components under the listing's base (nil when outside).
func (d *discovery) rel(p string) []string {
	r, err := filepath.Rel(d.lister.spec.base, p)
	if err != nil || r == "." || strings.HasPrefix(r, "..") {
		return nil
	}
	return strings.Split(r, string(filepath.Separator))
}

// selects applies the path's glob, the name filter and the time bounds to
// a file an event named: what a listing would have found.
func (d *discovery) selects(p string, fi fs.FileInfo) bool {
	l := d.lister
	if p == l.spec.base {
		return l.spec.alts == nil
	}
	rel := d.rel(p)
	if rel == nil || !l.reachesFile(rel) {
		return false
	}
	return l.selects(filepath.Base(p), fi)
}
