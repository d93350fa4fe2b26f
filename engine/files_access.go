package engine

import (
	"os"
	"path/filepath"
	"strings"

	"github.com/weir-sql/weir/catalog"
	"github.com/weir-sql/weir/sql/sqlerr"
)

// Who may read and write the server's files, and where. As in
// PostgreSQL, reading server files (read_files, a files source, COPY
// FROM 'file') needs superuser or the privileges of pg_read_server_files,
// writing them (COPY TO 'file') those of pg_write_server_files. On top of
// that every path must lie under one of the server's files roots (weir
// serve --files-root, repeatable; default the directory the server was
// started in): a relative path is taken under the first root, and the
// path is checked after cleaning and after resolving symbolic links, so
// neither ../ nor a link leads out of the roots.

// openFilesRoots resolves the configured roots (absolute, links resolved);
// none configured is the working directory.
func openFilesRoots(roots []string) ([]string, error) {
	if len(roots) == 0 {
		wd, err := os.Getwd()
		if err != nil {
			return nil, err
		}
		roots = []string{wd}
	}
	out := make([]string, 0, len(roots))
	for _, r := range roots {
		abs, err := filepath.Abs(r)
		if err != nil {
			return nil, err
		}
		if res, err := filepath.EvalSymlinks(abs); err == nil {
			abs = res
		}
		out = append(out, abs)
	}
	return out, nil
}

// fileAccess is what a statement wants to do with server files.
type fileAccess int

const (
	readFiles fileAccess = iota // read_files, a files source
	copyFrom                    // COPY t FROM 'file'
	copyTo                      // COPY t TO 'file'
)

// checkFilePrivilege refuses a session without the privileges access
// needs, with PostgreSQL's message for COPY.
func (s *Session) checkFilePrivilege(access fileAccess) error {
	switch access {
	case copyTo:
		if !s.hasPrivsOfOID(catalog.WriteServerFilesRoleOID) {
			return sqlerr.New(sqlerr.InsufficientPrivilege, "must be superuser or have privileges of the pg_write_server_files role to COPY to a file").
				WithHint("Anyone can COPY to stdout or from stdin. psql's \\copy command also works for anyone.")
		}
	case copyFrom:
		if !s.hasPrivsOfOID(catalog.ReadServerFilesRoleOID) {
			return sqlerr.New(sqlerr.InsufficientPrivilege, "must be superuser or have privileges of the pg_read_server_files role to COPY from a file").
				WithHint("Anyone can COPY to stdout or from stdin. psql's \\copy command also works for anyone.")
		}
	default:
		if !s.hasPrivsOfOID(catalog.ReadServerFilesRoleOID) {
			return sqlerr.New(sqlerr.InsufficientPrivilege, "must be superuser or have privileges of the pg_read_server_files role to read server files").
				WithHint("GRANT pg_read_server_files TO the role, or load the rows with COPY ... FROM STDIN (psql's \\copy), which anyone can.")
		}
	}
	return nil
}

// resolveServerPath checks the session may do access and returns the
// path p resolved under the files roots: absolute, cleaned, with the
// symbolic links of its existing part resolved (the rest, a glob or a
// file COPY TO creates, is kept as written).
func (s *Session) resolveServerPath(p string, access fileAccess) (string, error) {
	if err := s.checkFilePrivilege(access); err != nil {
		return "", err
	}
	return s.eng.resolveUnderRoots(p)
}

// resolveUnderRoots is resolveServerPath's path rule alone.
func (e *Engine) resolveUnderRoots(p string) (string, error) {
	if p == "" {
		return "", sqlerr.New(sqlerr.InvalidParameterValue, "the path must not be empty")
	}
	if strings.ContainsRune(p, 0) {
		return "", sqlerr.New(sqlerr.InvalidParameterValue, "the path must not contain a zero byte")
	}
	if !filepath.IsAbs(p) {
		p = filepath.Join(e.filesRoots[0], p)
	}
	p = filepath.Clean(p)
	if !underRoots(e.filesRoots, p) {
		return "", outsideRoots(p, e.filesRoots)
	}
	resolved := resolveExisting(p)
	if !underRoots(e.filesRoots, resolved) {
		return "", outsideRoots(p, e.filesRoots)
	}
	return resolved, nil
}

// resolveExisting resolves the symbolic links of the longest existing
// prefix of the clean absolute path p and appends the rest unchanged.
func resolveExisting(p string) string {
	rest := ""
	cur := p
	for {
		if res, err := filepath.EvalSymlinks(cur); err == nil {
			if rest == "" {
				return res
			}
			return filepath.Join(res, rest)
		}
		parent := filepath.Dir(cur)
		if parent == cur {
			return p
		}
		if rest == "" {
			rest = filepath.Base(cur)
		} else {
			rest = filepath.Join(filepath.Base(cur), rest)
		}
		cur = parent
	}
}

// underRoots tells whether the clean absolute path p is one of the roots
// or below one.
func underRoots(roots []string, p string) bool {
	for _, r := range roots {
		rel, err := filepath.Rel(r, p)
		if err == nil && rel != ".." && !strings.HasPrefix(rel, ".."+string(filepath.Separator)) {
			return true
		}
	}
	return false
}

func outsideRoots(p string, roots []string) error {
	return sqlerr.New(sqlerr.InsufficientPrivilege, "path \"%s\" is outside the server's files roots", p).
		WithHint("The server reads and writes files only under " + strings.Join(roots, ", ") + " (weir serve --files-root DIR).")
}

// checkListedFile refuses a file a listing found whose real location is
// outside the roots (a link inside a folder pointing out of it).
func (e *Engine) checkListedFile(p string) error {
	res, err := filepath.EvalSymlinks(p)
	if err != nil {
		return nil // gone or unreadable since: the reader reports it
	}
	if !underRoots(e.filesRoots, res) {
		return outsideRoots(res, e.filesRoots)
	}
	return nil
}
