package tablelog

import (
	"testing"
	"time"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/weir-sql/weir/connector"
	"github.com/weir-sql/weir/connector/sourcetest"
	"github.com/weir-sql/weir/sql/sqlerr"
	"github.com/weir-sql/weir/state"
)

const testRel = 4242

func openLogs(t *testing.T) (*Logs, *state.Store) {
	st, err := state.Open(t.TempDir(), state.Options{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	return New(st), st
}

func TestTableLogConformance(t *testing.T) {
	sourcetest.Run(t, func(t *testing.T) sourcetest.Fixture {
		logs, st := openLogs(t)
		return sourcetest.Fixture{
			Source: logs.Source(testRel, sourcetest.Schema),
			Append: func(b arrow.RecordBatch) error {
				tx := st.Begin(true)
				defer tx.Discard()
				if err := tx.AppendChunks(testRel, []arrow.RecordBatch{b}); err != nil {
					return err
				}
				return tx.Commit()
			},
			Trim: func(before int64) error {
				trimmed, err := logs.Trimmed(testRel)
				if err != nil {
					return err
				}
				return logs.TrimTo(testRel, before, trimmed)
			},
		}
	})
}

// The prefetching wrapper keeps the contract over a log that grows and
// is trimmed while reads run ahead.
func TestTableLogPrefetchConformance(t *testing.T) {
	sourcetest.Run(t, func(t *testing.T) sourcetest.Fixture {
		logs, st := openLogs(t)
		return sourcetest.Fixture{
			Source: connector.Prefetch(logs.Source(testRel, sourcetest.Schema)),
			Append: func(b arrow.RecordBatch) error {
				tx := st.Begin(true)
				defer tx.Discard()
				if err := tx.AppendChunks(testRel, []arrow.RecordBatch{b}); err != nil {
					return err
				}
				return tx.Commit()
			},
			Trim: func(before int64) error {
				trimmed, err := logs.Trimmed(testRel)
				if err != nil {
					return err
				}
				return logs.TrimTo(testRel, before, trimmed)
			},
		}
	})
}

// Expired finds the prefix committed by the cutoff; TrimTo removes what
// it is told and records it, so offsets keep their meaning.
func TestExpiredPrefix(t *testing.T) {
	logs, st := openLogs(t)
	appendChunks := func(n int) {
		t.Helper()
		tx := st.Begin(true)
		defer tx.Discard()
		for i := 0; i < n; i++ {
			if err := tx.AppendChunks(testRel, []arrow.RecordBatch{oneRow(t)}); err != nil {
				t.Fatal(err)
			}
		}
		if err := tx.Commit(); err != nil {
			t.Fatal(err)
		}
	}
	t0 := time.Unix(1_000_000, 0)
	appendChunks(3)
	logs.NoteCommitTime(testRel, t0)
	appendChunks(2)
	logs.NoteCommitTime(testRel, t0.Add(time.Hour))
	for _, tc := range []struct {
		cutoff time.Time
		want   int64
	}{{t0.Add(-time.Second), 0}, {t0, 3}, {t0.Add(time.Minute), 3}, {t0.Add(time.Hour), 5}} {
		old, trimmed, err := logs.Expired(testRel, tc.cutoff)
		if err != nil || old != tc.want || trimmed != 0 {
			t.Errorf("Expired(%v) = %d, %d, %v; want %d, 0", tc.cutoff, old, trimmed, err, tc.want)
		}
	}
	if err := logs.TrimTo(testRel, 2, 0); err != nil {
		t.Fatal(err)
	}
	src := logs.Source(testRel, sourcetest.Schema)
	if start, err := src.Start(); err != nil || start != 2 {
		t.Fatalf("Start after trimming 2: %d, %v", start, err)
	}
	if n, err := st.ChunkCount(testRel); err != nil || n != 3 {
		t.Fatalf("chunks left: %d, %v", n, err)
	}
	old, trimmed, err := logs.Expired(testRel, t0)
	if err != nil || old != 3 || trimmed != 2 {
		t.Errorf("Expired after the trim = %d, %d, %v; want 3, 2", old, trimmed, err)
	}
	// Trimming to where the log already starts removes nothing.
	if err := logs.TrimTo(testRel, 2, 2); err != nil {
		t.Fatal(err)
	}
	if n, _ := st.ChunkCount(testRel); n != 3 {
		t.Errorf("a no-op trim removed chunks: %d left", n)
	}
}

func oneRow(t *testing.T) arrow.RecordBatch {
	b := array.NewInt64Builder(memory.DefaultAllocator)
	defer b.Release()
	b.Append(1)
	return array.NewRecordBatch(sourcetest.Schema, []arrow.Array{b.NewArray()}, 1)
}

func TestOptions(t *testing.T) {
	o, err := ParseOptions([]connector.Setting{{Name: "retention", Value: "2 hours"}})
	if err != nil || o.Retention != 2*time.Hour {
		t.Fatalf("retention '2 hours': %v, %v", o.Retention, err)
	}
	if o, err := OptionsOf(map[string]string{"retention": ""}); err != nil || o.Retention != 0 {
		t.Fatalf("empty retention keeps forever: %v, %v", o.Retention, err)
	}
	for _, bad := range []connector.Setting{{Name: "retention", Value: "1 month"}, {Name: "retention", Value: "-1 hour"},
		{Name: "retention", Value: "soon"}, {Name: "retentoin", Value: "1 hour"}} {
		_, err := ParseOptions([]connector.Setting{bad})
		if sqlerr.Code(err) != sqlerr.InvalidParameterValue {
			t.Errorf("%s = %q: %v, want 22023", bad.Name, bad.Value, err)
		}
	}
}
