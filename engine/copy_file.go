package engine

import (
	"context"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	pg_query "github.com/pganalyze/pg_query_go/v6"

	"github.com/weir-sql/weir/sql/sqlerr"
	"github.com/weir-sql/weir/sql/types"
	"github.com/weir-sql/weir/wire"
)

// COPY t FROM 'file' and COPY t TO 'file': PostgreSQL's server-file COPY,
// under weir's files rules (files_access.go): pg_read_server_files /
// pg_write_server_files (or superuser) with PostgreSQL's messages, and the
// path under a files root. As in PostgreSQL, COPY TO needs an absolute
// path; a relative COPY FROM path is taken under the first root (where
// PostgreSQL takes its data directory). The rows are decoded and encoded
// by the same code as COPY FROM STDIN / TO STDOUT: the statement runs
// as that COPY with a file in place of the client's stream.

func (s *Session) copyServerFile(ctx context.Context, c *pg_query.CopyStmt, io wire.ExecIO) (wire.Result, error) {
	access := copyTo
	if c.IsFrom {
		access = copyFrom
	}
	if err := s.checkFilePrivilege(access); err != nil {
		return nil, err
	}
	if !c.IsFrom && !filepath.IsAbs(c.Filename) {
		return nil, sqlerr.New("42602", "relative path not allowed for COPY to file")
	}
	path, err := s.eng.resolveUnderRoots(c.Filename)
	if err != nil {
		return nil, err
	}
	opts, err := copyOptions(c.Options)
	if err != nil {
		return nil, err
	}
	if c.IsFrom {
		f, err := os.Open(path)
		if err != nil {
			return nil, openFileError(c.Filename, "reading", err)
		}
		defer f.Close()
		if st, err := f.Stat(); err == nil && st.IsDir() {
			return nil, sqlerr.New(sqlerr.WrongObjectType, "\"%s\" is a directory", c.Filename)
		}
		return s.copyFrom(ctx, c, opts, &fileCopyIO{ExecIO: io, s: s, file: f})
	}
	if st, err := os.Stat(path); err == nil && st.IsDir() {
		return nil, sqlerr.New(sqlerr.WrongObjectType, "\"%s\" is a directory", c.Filename)
	}
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_TRUNC, 0o644)
	if err != nil {
		return nil, openFileError(c.Filename, "writing", err)
	}
	res, err := s.copyTo(ctx, c, opts, &fileCopyIO{ExecIO: io, s: s, file: f})
	if cerr := f.Close(); cerr != nil && err == nil {
		err = sqlerr.New(sqlerr.IOError, "could not close file \"%s\": %v", c.Filename, cerr)
	}
	return res, err
}

// openFileError is PostgreSQL's error for a COPY file that does not open.
func openFileError(name, mode string, err error) error {
	code, why := sqlerr.IOError, err.Error()
	var pe *fs.PathError
	if errors.As(err, &pe) {
		why = pe.Err.Error()
		if len(why) > 0 {
			why = strings.ToUpper(why[:1]) + why[1:]
		}
	}
	switch {
	case errors.Is(err, fs.ErrNotExist):
		code = "58P01"
	case errors.Is(err, fs.ErrPermission):
		code = sqlerr.InsufficientPrivilege
	}
	return sqlerr.New(code, "could not open file \"%s\" for %s: %s", name, mode, why)
}

// fileCopyIO is the statement's ExecIO with a server file in place of the
// client's COPY stream.
type fileCopyIO struct {
	wire.ExecIO
	s    *Session
	file *os.File
}

func (x *fileCopyIO) CopyIn(ctx context.Context, opts wire.CopyOptions, columns []types.T) (wire.CopySource, error) {
	return wire.CopyFromReader(ctx, x.file, opts, columns, x.s.FormatSettings())
}

func (x *fileCopyIO) CopyOut(ctx context.Context, opts wire.CopyOptions, res wire.Result) (int64, error) {
	return wire.CopyToWriter(ctx, x.file, opts, res, x.s.FormatSettings())
}
