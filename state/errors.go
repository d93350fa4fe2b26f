package state

import (
	"errors"
	"strings"
	"syscall"

	"github.com/dgraph-io/badger/v4"
	"github.com/weir-sql/weir/sql/sqlerr"
)

// storageError turns an error from badger or the file system into the
// *sqlerr.Error a client should see. Badger flattens wrapped errors into
// strings (y.Wrap formats with %+v), so errno values are recognised both by
// errors.Is and by their text.
func storageError(op string, err error) error {
	if err == nil {
		return nil
	}
	var se *sqlerr.Error
	if errors.As(err, &se) {
		return se
	}
	msg := err.Error()
	switch {
	case errors.Is(err, syscall.ENOSPC) || errors.Is(err, syscall.EDQUOT) ||
		strings.Contains(msg, "no space left on device") || strings.Contains(msg, "disk quota exceeded"):
		return &sqlerr.Error{Code: sqlerr.DiskFull,
			Message: "could not " + op + ": no space left on device",
			Detail:  msg,
			Hint:    "Free disk space in the data directory and retry."}
	case errors.Is(err, syscall.EROFS) || errors.Is(err, syscall.EACCES) || errors.Is(err, syscall.EPERM) ||
		errors.Is(err, syscall.EIO) ||
		strings.Contains(msg, "read-only file system") || strings.Contains(msg, "permission denied") ||
		strings.Contains(msg, "input/output error") || strings.Contains(msg, "operation not permitted"):
		return &sqlerr.Error{Code: sqlerr.IOError,
			Message: "could not " + op + ": " + ioReason(msg),
			Detail:  msg}
	case strings.Contains(strings.ToLower(msg), "checksum mismatch"):
		return &sqlerr.Error{Code: sqlerr.DataCorrupted,
			Message: "could not " + op + ": data checksum mismatch",
			Detail:  msg,
			Hint:    "Run `weir verify --data DIR` on the stopped server's data directory."}
	case errors.Is(err, badger.ErrConflict):
		return &sqlerr.Error{Code: "40001",
			Message: "could not serialize access due to concurrent update"}
	case errors.Is(err, badger.ErrTxnTooBig):
		return &sqlerr.Error{Code: sqlerr.ProgramLimitExceeded,
			Message: "transaction is too large to commit"}
	case errors.Is(err, badger.ErrDBClosed), errors.Is(err, badger.ErrBlockedWrites):
		return &sqlerr.Error{Code: sqlerr.AdminShutdown,
			Message: "could not " + op + ": the store is closed"}
	}
	return &sqlerr.Error{Code: sqlerr.IOError, Message: "could not " + op + ": " + msg}
}

func ioReason(msg string) string {
	for _, r := range []string{"read-only file system", "permission denied", "input/output error", "operation not permitted"} {
		if strings.Contains(msg, r) {
			return r
		}
	}
	return msg
}
