package state

import (
	"os"
	"path/filepath"
	"testing"
)

// Damage that appears in a table file while the store is open (after
// Open checked every block): Badger's iterator ends at the damaged block
// without an error, so a first read of the table returned the rows before
// it as the whole table. It must fail with XX001 instead, and go on
// failing.
func TestTableFileDamagedWhileOpen(t *testing.T) {
	dir := t.TempDir()
	writeClosed(t, dir, 400, 5)
	s := openTest(t, dir, Options{})
	defer s.Close()
	ssts, _ := filepath.Glob(filepath.Join(dir, "*.sst"))
	if len(ssts) == 0 {
		t.Fatal("no table file written")
	}
	f, err := os.OpenFile(ssts[0], os.O_RDWR, 0)
	if err != nil {
		t.Fatal(err)
	}
	st, _ := f.Stat()
	buf := make([]byte, 64)
	f.ReadAt(buf, st.Size()/3)
	for i := range buf {
		buf[i] ^= 0xa5
	}
	f.WriteAt(buf, st.Size()/3)
	f.Close()
	s.NameRelations(func(uint32) string { return "t" })
	for try := 0; try < 2; try++ {
		batches, err := s.ScanTable(1, testSchema)
		rows := int64(0)
		for _, b := range batches {
			rows += b.NumRows()
			b.Release()
		}
		if err == nil {
			t.Fatalf("read %d: %d of 2000 rows and no error", try, rows)
		}
		wantCorrupted(t, err, "t")
	}
	if len(s.damagedNow()) == 0 {
		t.Fatal("the damage found was not recorded")
	}
}
