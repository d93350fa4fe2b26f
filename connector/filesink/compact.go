package filesink

import (
	"bytes"
	"context"
	"os"
	"sort"

	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/apache/arrow-go/v18/parquet/pqarrow"
)

// Small-file compaction. A table whose epochs are small writes a small
// file per epoch; readers then open thousands of files. So an epoch also
// merges the committed files of a partition smaller than a quarter of the
// target size, once there are CompactFiles of them, into one file (up to
// the target size): the epoch's manifest adds the merged file and removes
// the small ones, so a reader following the manifests sees each row once
// before and after. The merge is staged like the epoch's own files, and
// committed (or discarded) with them. Rows keep their order: the files are
// merged in the order they were added.

func (s *Sink) compact(st *stagedEpoch, seq *int) error {
	target := s.o.targetSize()
	keys := make([]string, 0, len(s.live))
	for k := range s.live {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, key := range keys {
		if pick := s.smallRun(s.live[key], target); pick != nil {
			if err := s.merge(st, key, pick, seq); err != nil {
				return err
			}
		}
	}
	return nil
}

// smallRun is the first run of CompactFiles or more small files next to
// each other in epoch order (up to the target size in all), or nil. Only
// neighbours are merged, so that the merged file takes their place in
// epoch order and no other file's epochs fall inside its range.
func (s *Sink) smallRun(files []DataFile, target int64) []DataFile {
	var run []DataFile
	var total int64
	for _, f := range files {
		if f.Bytes < target/4 && total+f.Bytes <= target {
			run = append(run, f)
			total += f.Bytes
			continue
		}
		if len(run) >= s.o.compactFiles() {
			return run
		}
		run, total = nil, 0
		if f.Bytes < target/4 {
			run, total = []DataFile{f}, f.Bytes
		}
	}
	if len(run) >= s.o.compactFiles() {
		return run
	}
	return nil
}

// merge writes the rows of files into one new file of the epoch.
func (s *Sink) merge(st *stagedEpoch, key string, files []DataFile, seq *int) error {
	w, cur, err := s.newFile(st, key, seq)
	if err != nil {
		return err
	}
	for _, f := range files {
		if err := s.copyInto(w, f); err != nil {
			w.abort()
			return err
		}
		cur.Rows += f.Rows
		st.m.Removed = append(st.m.Removed, f.Path)
	}
	if err := w.finish(); err != nil {
		return err
	}
	cur.Bytes = w.size()
	cur.Compacted = true
	cur.FirstEpoch, cur.LastEpoch = files[0].FirstEpoch, files[len(files)-1].LastEpoch
	st.m.Added[len(st.m.Added)-1] = cur
	return nil
}

// copyInto appends the rows of data file f to w.
func (s *Sink) copyInto(w fileWriter, f DataFile) error {
	switch tw := w.(type) {
	case *jsonWriter:
		data, err := os.ReadFile(s.finalPath(f.Path))
		if err != nil {
			return err
		}
		_, err = tw.cf.Write(data)
		return err
	case *csvWriter:
		data, err := os.ReadFile(s.finalPath(f.Path))
		if err != nil {
			return err
		}
		// Every file starts with the same header, which the merged file
		// already has.
		data = bytes.TrimPrefix(data, s.csvHeader())
		_, err = tw.cf.Write(data)
		return err
	}
	file, err := os.Open(s.finalPath(f.Path))
	if err != nil {
		return err
	}
	defer file.Close()
	tbl, err := pqarrow.ReadTable(context.Background(), file, nil, pqarrow.ArrowReadProperties{BatchSize: 1 << 16}, memory.DefaultAllocator)
	if err != nil {
		return err
	}
	defer tbl.Release()
	tr := array.NewTableReader(tbl, 1<<16)
	defer tr.Release()
	for tr.Next() {
		rec := tr.RecordBatch()
		b := array.NewRecordBatch(s.fileSchema, rec.Columns(), rec.NumRows())
		err := w.write(b)
		b.Release()
		if err != nil {
			return err
		}
	}
	return tr.Err()
}
