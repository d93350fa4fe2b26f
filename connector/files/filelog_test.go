package files

import (
	"bytes"
	"testing"
	"time"

	"github.com/weir-sql/weir/sql/sqlerr"
	"github.com/weir-sql/weir/state"
)

func TestLogEntryRoundTrip(t *testing.T) {
	e := logEntry{File: FileInfo{Path: "/data/in/a b.json", Name: "a b.json", Size: 1 << 40, Modified: time.Unix(1700000000, 123456789)},
		First: 1 << 33, Batches: 17, Rows: 123456, Version: 3, Damaged: true}
	got, err := decodeEntry(encodeEntry(e))
	if err != nil {
		t.Fatal(err)
	}
	if got.File.Path != e.File.Path || got.File.Name != e.File.Name || got.File.Size != e.File.Size || !got.File.Modified.Equal(e.File.Modified) ||
		got.First != e.First || got.Batches != e.Batches || got.Rows != e.Rows || got.Version != e.Version || got.Damaged != e.Damaged {
		t.Fatalf("round trip: %+v, want %+v", got, e)
	}
	for _, bad := range [][]byte{nil, {9}, {entryFormat, 0x80}} {
		if _, err := decodeEntry(bad); err == nil {
			t.Errorf("decodeEntry(%v) accepted", bad)
		}
	}
}

func TestLogKeysAndDamage(t *testing.T) {
	a, b := LogKey(7, 0), LogKey(7, 1)
	if bytes.HasPrefix(a, b) || bytes.HasPrefix(b, a) || !bytes.HasPrefix(a, []byte(state.PrefixOperator)) {
		t.Fatalf("log keys %q %q overlap", a, b)
	}
	st := newSrcStore(t, state.SyncGroup)
	key := LogKey(7, 0)
	// A gap in the offsets is a damaged log.
	txn := st.Begin(true)
	txn.Set(entryKey(key, 0), encodeEntry(logEntry{File: FileInfo{Path: "/a"}, First: 0, Batches: 2}))
	txn.Set(entryKey(key, 1), encodeEntry(logEntry{File: FileInfo{Path: "/b"}, First: 3, Batches: 1}))
	if err := txn.Commit(); err != nil {
		t.Fatal(err)
	}
	if _, err := ProcessedFiles(st, key); sqlerr.Code(err) != sqlerr.DataCorrupted {
		t.Fatalf("a log with a gap: %v", err)
	}
	if err := DropLog(st, key); err != nil {
		t.Fatal(err)
	}
	if fs, err := ProcessedFiles(st, key); err != nil || len(fs) != 0 {
		t.Fatalf("after DropLog: %v %v", fs, err)
	}
}
