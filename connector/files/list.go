package files

import (
	"context"
	"sync"

	"github.com/apache/arrow-go/v18/arrow"

	"github.com/weir-sql/weir/sql/sqlerr"
)

// ReadNow reads every file List returns now, for a plain SELECT: the
// files are decoded two at a time (this machine's cores) and their
// batches returned in List's order. An unreadable or damaged file is the
// error (a SELECT reports it rather than skipping rows), unless
// ignoreCorruptFiles skips the damaged ones.
func ReadNow(ctx context.Context, o Options, s Schema) ([]arrow.RecordBatch, error) {
	files, err := List(o)
	if err != nil {
		return nil, err
	}
	return readAll(ctx, files, o, s, DefaultBatchRows, DecodeFile)
}

type decodeFileFunc = func(FileInfo, Options, Schema, int) ([]arrow.RecordBatch, DecodeStats, error)

func readAll(ctx context.Context, files []FileInfo, o Options, s Schema, batchRows int, decode decodeFileFunc) ([]arrow.RecordBatch, error) {
	type result struct {
		batches []arrow.RecordBatch
		err     error
	}
	results := make([]result, len(files))
	work := make(chan int)
	var wg sync.WaitGroup
	for w := 0; w < decodeParallel; w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range work {
				bs, _, err := decode(files[i], o, s, batchRows)
				results[i] = result{bs, err}
			}
		}()
	}
	var cancelled error
feed:
	for i := range files {
		select {
		case work <- i:
		case <-ctx.Done():
			cancelled = ctx.Err()
			break feed
		}
	}
	close(work)
	wg.Wait()
	if cancelled != nil {
		return nil, cancelled
	}
	var out []arrow.RecordBatch
	for _, r := range results {
		if r.err != nil {
			if o.IgnoreCorruptFiles && isDamageError(r.err) {
				continue
			}
			return nil, r.err
		}
		out = append(out, r.batches...)
	}
	return out, nil
}

func isDamageError(err error) bool { return sqlerr.Code(err) == sqlerr.DataCorrupted }
