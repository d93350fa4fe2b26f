package files

import (
	"errors"
	"io/fs"
	"log/slog"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"syscall"
	"time"

	"github.com/weir-sql/weir/sql/sqlerr"
)

// Discovery: which files a files source reads.
//
// Listing starts at the path's folder (or its one file) and descends into
// nested folders when recursiveFileLookup is on (the default), or into the
// folders a glob in the path names. Names beginning with '.' or '_' are
// skipped, files and folders alike, as Spark does (_SUCCESS, .crc files,
// a writer's temporary names). pathGlobFilter matches file names,
// modifiedAfter / modifiedBefore their modification times. A symbolic link
// to a file is read as that file; a link to a folder is not followed (no
// loops, and no way out of the folder the engine checked), and a broken
// or looping link is skipped.
//
// The completeness rule. A file is offered only once it is complete: when
// its size and modification time are unchanged across two observations
// at least the settle interval apart (an observation made when the
// modification time was already that long past counts as two), or when it
// was renamed into place inside a watched folder (a rename makes a whole
// file appear at once). Writers should write under a hidden name (.x or
// _x, which discovery skips) and rename the file when it is whole; a file
// written in place is safe only if its writer never pauses for longer than
// the settle interval mid-file.

// DefaultSettle is the settle interval of the completeness rule.
const DefaultSettle = 500 * time.Millisecond

// sqlstateUndefinedFile is PostgreSQL's undefined_file (ENOENT on a file it was
// asked to read).
const sqlstateUndefinedFile = "58P01"

// hiddenName reports whether a file or folder name is skipped.
func hiddenName(name string) bool { return name != "" && (name[0] == '.' || name[0] == '_') }

// lister walks one path option.
type lister struct {
	spec   pathSpec
	names  nameGlob // nil: every name
	o      Options
	onDir  func(dir string)             // every folder listed (discovery watches it)
	onSkip func(path string, err error) // an entry that could not be looked at
}

func newLister(o Options) (*lister, error) {
	sp, err := specOf(o.Path)
	if err != nil {
		return nil, sqlerr.New(sqlerr.InvalidParameterValue, "invalid glob in path \"%s\"", o.Path).WithHint(err.Error())
	}
	l := &lister{spec: sp, o: o}
	if o.PathGlobFilter != "" {
		if l.names, err = compileNameGlob(o.PathGlobFilter); err != nil {
			return nil, sqlerr.New(sqlerr.InvalidParameterValue, "invalid value for option \"pathGlobFilter\": \"%s\"", o.PathGlobFilter).WithHint(err.Error())
		}
	}
	return l, nil
}

// list calls visit for every file the path selects now, in path order.
// The error is the base's (missing, unreadable); entries below it that
// cannot be read go to onSkip.
func (l *lister) list(visit func(FileInfo)) error {
	fi, err := os.Stat(l.spec.base)
	if err != nil {
		return accessError("could not open", l.spec.base, err)
	}
	if !fi.IsDir() {
		if l.onDir != nil {
			l.onDir(filepath.Dir(l.spec.base)) // a streaming source watches the file's folder
		}
		if l.spec.alts == nil && fi.Mode().IsRegular() {
			// A path naming one file reads it, whatever its name.
			visit(fileInfoOf(l.spec.base, fi))
		}
		return nil
	}
	return l.walk(l.spec.base, nil, visit, true)
}

// walk lists dir, whose components under base are rel.
func (l *lister) walk(dir string, rel []string, visit func(FileInfo), top bool) error {
	if l.onDir != nil {
		l.onDir(dir)
	}
	ents, err := os.ReadDir(dir)
	if err != nil {
		if top {
			return accessError("could not open folder", dir, err)
		}
		l.skip(dir, err)
		return nil
	}
	for _, e := range ents {
		name := e.Name()
		if hiddenName(name) {
			continue
		}
		p := filepath.Join(dir, name)
		sub := append(rel[:len(rel):len(rel)], name)
		subFull, _ := l.spec.matchState(sub)
		typ := e.Type()
		if typ&fs.ModeSymlink != 0 {
			fi, err := os.Stat(p)
			if err != nil {
				l.skip(p, err)
				continue
			}
			if fi.IsDir() {
				continue // a link to a folder is not followed
			}
			if !fi.Mode().IsRegular() {
				if subFull && l.selects(name, fi) {
					l.skip(p, errNotRegular{fi.Mode()})
				}
				continue
			}
			if subFull && l.selects(name, fi) {
				visit(fileInfoOf(p, fi))
			}
			continue
		}
		switch {
		case typ.IsDir():
			if l.descends(sub) {
				if err := l.walk(p, sub, visit, false); err != nil {
					return err
				}
			}
		case typ.IsRegular():
			if !subFull {
				continue
			}
			fi, err := e.Info()
			if err != nil {
				l.skip(p, err) // vanished since the listing
				continue
			}
			if l.selects(name, fi) {
				visit(fileInfoOf(p, fi))
			}
		default:
			// A named pipe, socket or device where a file is expected:
			// reading it could block or never end; reported, not read.
			if !subFull {
				continue
			}
			if fi, err := e.Info(); err == nil && l.selects(name, fi) {
				l.skip(p, errNotRegular{fi.Mode()})
			}
		}
	}
	return nil
}

// errNotRegular is a listed entry that is not a regular file.
type errNotRegular struct{ mode fs.FileMode }

func (e errNotRegular) Error() string {
	kind := "not a regular file"
	switch {
	case e.mode&fs.ModeNamedPipe != 0:
		kind = "a named pipe, not a regular file"
	case e.mode&fs.ModeSocket != 0:
		kind = "a socket, not a regular file"
	case e.mode&fs.ModeDevice != 0:
		kind = "a device, not a regular file"
	}
	return kind + "; it is not read"
}

// descends reports whether listing goes into the folder at rel (its
// components under base): where the glob may still match, and below a
// full match when recursive — the first folder a glob names fully is
// always listed (its files are what the glob names).
func (l *lister) descends(rel []string) bool {
	if hiddenName(rel[len(rel)-1]) {
		return false
	}
	full, prefix := l.spec.matchState(rel)
	if !full {
		return prefix
	}
	parentFull, _ := l.spec.matchState(rel[:len(rel)-1])
	return l.o.Recursive || (l.spec.alts != nil && !parentFull)
}

// reachesDir reports whether listing goes into the folder at rel.
func (l *lister) reachesDir(rel []string) bool {
	for k := 1; k <= len(rel); k++ {
		if !l.descends(rel[:k]) {
			return false
		}
	}
	return len(rel) > 0
}

// reachesFile reports whether listing visits the file at rel (before
// the name filter and time bounds).
func (l *lister) reachesFile(rel []string) bool {
	if len(rel) == 0 || hiddenName(rel[len(rel)-1]) || !l.reachesDir(rel[:len(rel)-1]) && len(rel) > 1 {
		return false
	}
	full, _ := l.spec.matchState(rel)
	return full
}

func (l *lister) selects(name string, fi fs.FileInfo) bool {
	if l.names != nil && !l.names.match(name) {
		return false
	}
	mt := fi.ModTime()
	if !l.o.ModifiedAfter.IsZero() && !mt.After(l.o.ModifiedAfter) {
		return false
	}
	if !l.o.ModifiedBefore.IsZero() && !mt.Before(l.o.ModifiedBefore) {
		return false
	}
	return true
}

func (l *lister) skip(p string, err error) {
	if l.onSkip != nil {
		l.onSkip(p, err)
	}
}

func fileInfoOf(p string, fi fs.FileInfo) FileInfo {
	return FileInfo{Path: p, Name: filepath.Base(p), Size: fi.Size(), Modified: fi.ModTime()}
}

// accessError is an OS error on a path as PostgreSQL reports file access
// (errcode_for_file_access): 58P01 for a missing file, 42501 for a
// permission, 58030 otherwise.
func accessError(what, p string, err error) error {
	code := sqlerr.IOError
	switch {
	case errors.Is(err, fs.ErrNotExist):
		code = sqlstateUndefinedFile
	case errors.Is(err, fs.ErrPermission):
		code = sqlerr.InsufficientPrivilege
	}
	reason := err.Error()
	var pe *fs.PathError
	if errors.As(err, &pe) {
		reason = pe.Err.Error()
		var errno syscall.Errno
		if errors.As(pe.Err, &errno) {
			reason = errno.Error()
			if len(reason) > 0 {
				reason = strings.ToUpper(reason[:1]) + reason[1:]
			}
		}
	}
	return sqlerr.New(code, "%s \"%s\": %s", what, p, reason)
}

// byAge orders files oldest first (modification time, then path): the
// order List returns and new files are admitted in.
func byAge(fs []FileInfo) {
	sort.Slice(fs, func(i, j int) bool {
		if !fs[i].Modified.Equal(fs[j].Modified) {
			return fs[i].Modified.Before(fs[j].Modified)
		}
		return fs[i].Path < fs[j].Path
	})
}

// List returns the files under o.Path that o selects now (glob filter,
// modifiedAfter, recursion, only complete files), oldest first (by
// modification time, then path). A file modified within the settle
// interval is observed a second time once the interval has passed (List
// then waits up to DefaultSettle), and left out if it changed meanwhile.
func List(o Options) ([]FileInfo, error) { return listSettled(o, DefaultSettle) }

func listSettled(o Options, settle time.Duration) ([]FileInfo, error) {
	l, err := newLister(o)
	if err != nil {
		return nil, err
	}
	var skipErr error
	l.onSkip = func(p string, err error) {
		if errors.Is(err, fs.ErrNotExist) {
			return // vanished while listing
		}
		if errors.Is(err, fs.ErrPermission) && skipErr == nil {
			skipErr = accessError("could not open folder", p, err)
			return
		}
		slog.Warn("files: skipping "+p, "path", p, "error", err.Error())
	}
	var out []FileInfo
	now := time.Now()
	var young []int
	if err := l.list(func(f FileInfo) {
		if now.Sub(f.Modified) < settle {
			young = append(young, len(out))
		}
		out = append(out, f)
	}); err != nil {
		return nil, err
	}
	if skipErr != nil {
		return nil, skipErr
	}
	if len(young) > 0 {
		// Second observation of the files written lately.
		newest := out[young[0]].Modified
		for _, i := range young {
			if out[i].Modified.After(newest) {
				newest = out[i].Modified
			}
		}
		wait := settle - now.Sub(newest)
		wait = min(max(wait, 0), settle)
		time.Sleep(wait) // not synchronisation: the completeness rule's interval
		drop := map[int]bool{}
		for _, i := range young {
			fi, err := os.Stat(out[i].Path)
			if err != nil || fi.Size() != out[i].Size || !fi.ModTime().Equal(out[i].Modified) {
				drop[i] = true
			}
		}
		kept := out[:0]
		for i, f := range out {
			if !drop[i] {
				kept = append(kept, f)
			}
		}
		out = kept
	}
	byAge(out)
	return out, nil
}
