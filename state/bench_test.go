package state

import (
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/dgraph-io/badger/v4"
)

const benchBatchRows = 8192

// BenchmarkAppendChunks commits one 8192-row chunk per transaction; the
// baseline sub-benchmarks write the same encoded bytes with a raw Badger Set
// under the same sync behaviour.
func BenchmarkAppendChunks(b *testing.B) {
	batch := makeBatch(0, benchBatchRows)
	defer batch.Release()
	data, _, err := encodeChunk(batch)
	if err != nil {
		b.Fatal(err)
	}
	for _, mode := range []struct {
		name string
		sync SyncPolicy
	}{{"nosync", SyncNone}, {"groupsync", SyncGroup}} {
		b.Run("weir/"+mode.name, func(b *testing.B) {
			s, err := Open(b.TempDir(), Options{Sync: mode.sync})
			if err != nil {
				b.Fatal(err)
			}
			defer s.Close()
			b.SetBytes(int64(len(data)))
			b.ReportAllocs()
			for i := 0; i < b.N; i++ {
				tx := s.Begin(true)
				if err := tx.AppendChunks(1, []arrow.RecordBatch{batch}); err != nil {
					b.Fatal(err)
				}
				if err := tx.Commit(); err != nil {
					b.Fatal(err)
				}
			}
		})
		b.Run("baseline-badger-set/"+mode.name, func(b *testing.B) {
			s, err := Open(b.TempDir(), Options{Sync: SyncNone})
			if err != nil {
				b.Fatal(err)
			}
			defer s.Close()
			b.SetBytes(int64(len(data)))
			b.ReportAllocs()
			for i := 0; i < b.N; i++ {
				err := s.db.Update(func(txn *badger.Txn) error {
					return txn.Set(chunkKey(1, uint64(i)), data)
				})
				if err == nil && mode.sync == SyncGroup {
					err = s.db.Sync()
				}
				if err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// BenchmarkScanTable scans a table of 1M rows (123 chunks): "cached" is the
// normal case, "decode" empties the cache first, and the baseline reads the
// same values from Badger without decoding them. The "noverify" runs do the
// same on a store opened without Badger's checksum verification, so that its
// cost is measured in the same run.
func BenchmarkScanTable(b *testing.B) {
	b.Run("verify", func(b *testing.B) { benchScanTable(b, Options{Sync: SyncNone}) })
	b.Run("noverify", func(b *testing.B) { benchScanTable(b, Options{Sync: SyncNone, noVerify: true}) })
}

func benchScanTable(b *testing.B, opts Options) {
	s, err := Open(b.TempDir(), opts)
	if err != nil {
		b.Fatal(err)
	}
	defer s.Close()
	const rows = 1 << 20
	tx := s.Begin(true)
	for first := 0; first < rows; first += benchBatchRows {
		batch := makeBatch(first, benchBatchRows)
		if err := tx.AppendChunks(1, []arrow.RecordBatch{batch}); err != nil {
			b.Fatal(err)
		}
		batch.Release()
	}
	if err := tx.Commit(); err != nil {
		b.Fatal(err)
	}
	_, bytes, err := s.TableStats(1)
	if err != nil {
		b.Fatal(err)
	}
	scanOnce := func(b *testing.B) {
		bs, err := s.ScanTable(1, testSchema)
		if err != nil {
			b.Fatal(err)
		}
		n := int64(0)
		for _, r := range bs {
			n += r.NumRows()
			r.Release()
		}
		if n != rows {
			b.Fatalf("scanned %d rows", n)
		}
	}
	b.Run("weir/cached", func(b *testing.B) {
		scanOnce(b)
		b.ReportAllocs()
		b.ResetTimer()
		for i := 0; i < b.N; i++ {
			scanOnce(b)
		}
	})
	b.Run("weir/decode", func(b *testing.B) {
		b.SetBytes(bytes)
		for i := 0; i < b.N; i++ {
			s.evictTable(1)
			scanOnce(b)
		}
	})
	b.Run("baseline-badger-read", func(b *testing.B) {
		b.SetBytes(bytes)
		for i := 0; i < b.N; i++ {
			err := s.db.View(func(txn *badger.Txn) error {
				opts := badger.DefaultIteratorOptions
				opts.Prefix = tablePrefix(1)
				it := txn.NewIterator(opts)
				defer it.Close()
				for it.Rewind(); it.Valid(); it.Next() {
					if err := it.Item().Value(func([]byte) error { return nil }); err != nil {
						return err
					}
				}
				return nil
			})
			if err != nil {
				b.Fatal(err)
			}
		}
	})
}
