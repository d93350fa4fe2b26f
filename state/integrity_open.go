package state

import (
	"fmt"
	"os"
	"path/filepath"
	"runtime/debug"

	"github.com/dgraph-io/ristretto/v2/z"

	"github.com/weir-sql/weir/sql/sqlerr"
)

// checkTableIndexes runs before Badger opens the directory: Badger reads
// every table file's index at open, and an index whose checksum fails (or
// whose lengths point outside the file) makes it panic in a goroutine of
// its own, which kills the server with a stack trace instead of saying
// the data is damaged. A damaged index loses the whole file's keys, so the
// server refuses to start, naming the file; damage inside a block is left
// to checkTableFiles after Open (the server starts and the reads of that
// block's keys fail with XX001).
func checkTableIndexes(dir string) error {
	names, err := filepath.Glob(filepath.Join(dir, "*.sst"))
	if err != nil {
		return storageError("list the table files of "+dir, err)
	}
	for _, name := range names {
		if reason := tableIndexDamage(name); reason != "" {
			return &sqlerr.Error{Code: sqlerr.DataCorrupted,
				Message: fmt.Sprintf("the data directory is damaged: table file %s: %s", filepath.Base(name), reason),
				Detail:  "Its index is unreadable, so none of its rows can be read.",
				Hint:    "Run `weir verify --data " + dir + "` for the whole report, and restore the directory from a backup."}
		}
	}
	return nil
}

// tableIndexDamage is why a table file's index cannot be read ("" when it
// can).
func tableIndexDamage(name string) (reason string) {
	defer debug.SetPanicOnFault(debug.SetPanicOnFault(true))
	defer func() {
		if p := recover(); p != nil {
			reason = fmt.Sprint("unreadable: ", p)
		}
	}()
	st, err := os.Stat(name)
	if err != nil {
		return err.Error()
	}
	if st.Size() == 0 {
		return "" // an empty file Badger is about to write or delete
	}
	mf, err := z.OpenMmapFile(name, os.O_RDONLY, 0)
	if err != nil {
		return err.Error()
	}
	defer func() { _ = mf.Close(-1) }()
	if _, err := tableIndex(mf.Data); err != nil {
		return "damaged index: " + err.Error()
	}
	return ""
}
