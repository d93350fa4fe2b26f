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

// BenchmarkChunkChecksum is the CRC-32C of one 8192-row chunk, next to
// encoding and decoding the same chunk: what the chunk checksum adds to a
// write (once) and to a read (once per decode).
func BenchmarkChunkChecksum(b *testing.B) {
	batch := makeBatch(0, benchBatchRows)
	defer batch.Release()
	data, crc, err := encodeChunk(batch)
	if err != nil {
		b.Fatal(err)
	}
	putChunkHeader(data, 0, batch.NumRows(), crc)
	b.Run("crc32c", func(b *testing.B) {
		b.SetBytes(int64(len(data)))
		for i := 0; i < b.N; i++ {
			if err := checkChunk(data); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("baseline-encode", func(b *testing.B) {
		b.SetBytes(int64(len(data)))
		for i := 0; i < b.N; i++ {
			if _, _, err := encodeChunk(batch); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("baseline-decode", func(b *testing.B) {
		b.SetBytes(int64(len(data)))
		for i := 0; i < b.N; i++ {
			r, err := decodeCheckedChunk(data)
			if err != nil {
				b.Fatal(err)
			}
			r.Release()
		}
	})
}

// BenchmarkOpen opens a store holding a table of 1M rows (123 chunks in
// the value log) and 2,000 small chunks (in the LSM tree): with the checks
// at Open (every table-file block, the log tails) and without.
func BenchmarkOpen(b *testing.B) {
	dir := b.TempDir()
	s, err := Open(dir, Options{Sync: SyncNone})
	if err != nil {
		b.Fatal(err)
	}
	tx := s.Begin(true)
	for first := 0; first < 1<<20; first += benchBatchRows {
		batch := makeBatch(first, benchBatchRows)
		if err := tx.AppendChunks(1, []arrow.RecordBatch{batch}); err != nil {
			b.Fatal(err)
		}
		batch.Release()
	}
	if err := tx.Commit(); err != nil {
		b.Fatal(err)
	}
	for i := 0; i < 2000; i++ {
		batch := makeBatch(i*4, 4)
		tx := s.Begin(true)
		if err := tx.AppendChunks(2, []arrow.RecordBatch{batch}); err != nil {
			b.Fatal(err)
		}
		if err := tx.Commit(); err != nil {
			b.Fatal(err)
		}
		batch.Release()
	}
	if err := s.Close(); err != nil {
		b.Fatal(err)
	}
	for _, mode := range []struct {
		name string
		opts Options
	}{{"verify", Options{Sync: SyncNone}}, {"noverify", Options{Sync: SyncNone, noVerify: true}}} {
		b.Run(mode.name, func(b *testing.B) {
			for i := 0; i < b.N; i++ {
				s, err := Open(dir, mode.opts)
				if err != nil {
					b.Fatal(err)
				}
				if err := s.Close(); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
