package files

import (
	"bytes"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/weir-sql/weir/sql/types"
)

// batchWriter assembles one file's rows into batches of ArrowSchema(s).
// A format's decoder calls, per row: beginRow; for each value set* (or
// rescue*); endRow. Columns the row did not set are NULL. The writer owns
// its builders and buffers, reused from batch to batch; one writer serves
// one file on one goroutine.
type batchWriter struct {
	info      FileInfo
	schema    *arrow.Schema
	batchRows int

	cols     []colWriter
	rescued  *array.StringBuilder // nil: no rescued column, or it is not read
	builders []array.Builder      // every column's, rescued included

	// Pruning (o.ReadColumns): skip[i] marks a column no reader reads,
	// whose values are not converted; it comes all NULL. active are the
	// other columns. nullOut[j] marks output slot j (a column, then the
	// rescued column) as all NULL; nulls caches such arrays by slot.
	skip    []bool
	active  []int
	nullOut []bool
	nulls   map[int]arrow.Array

	// byName finds a column by its exact name.
	byName map[string]int
	// keyTokens are the columns' names as JSON string tokens ("name"),
	// nil for a name that needs escapes.
	keyTokens [][]byte

	setGen []uint32 // setGen[i] == gen: column i has its value this row
	gen    uint32

	resc rescueBuf
	line int64
	raw  []byte // the row's text as the file has it (for a last-resort rescue)
	rows int    // rows in the batch being built

	lastData []int // each string builder's bytes in the last batch

	meta arrow.Array // a _metadata column of batchRows rows, sliced per batch
	out  []arrow.RecordBatch

	stats    DecodeStats
	newCols  newColumns
	inferOff bool // o.InferColumnTypes false: new columns are text

	// lineBase is added to every row's line: DecodeRecords numbers a
	// message's row by its position in its log, not in the text.
	lineBase int64
}

func newBatchWriter(info FileInfo, o Options, s Schema, batchRows int) *batchWriter {
	if batchRows <= 0 {
		batchRows = 8192
	}
	w := &batchWriter{
		info:      info,
		schema:    ArrowSchema(s),
		batchRows: batchRows,
		cols:      make([]colWriter, len(s.Columns)),
		byName:    make(map[string]int, len(s.Columns)),
		setGen:    make([]uint32, len(s.Columns)),
		gen:       1,
		inferOff:  !o.InferColumnTypes,
	}
	mem := memory.DefaultAllocator
	read := readSet(o)
	// A value of an unread column that does not parse shows only in the
	// rescued column: while that is read, every column is decoded.
	rescueRead := s.Rescued != "" && (read == nil || read[s.Rescued])
	w.skip = make([]bool, len(s.Columns))
	for i, c := range s.Columns {
		b := array.NewBuilder(mem, c.Type.Arrow())
		w.builders = append(w.builders, b)
		w.cols[i] = newColWriter(c.Name, c.Type, b)
		w.skip[i] = read != nil && !read[c.Name] && !rescueRead
		w.nullOut = append(w.nullOut, w.skip[i])
		if !w.skip[i] {
			w.active = append(w.active, i)
		}
		if _, dup := w.byName[c.Name]; !dup {
			w.byName[c.Name] = i
		}
		tok := []byte(nil)
		if plainToken(c.Name) {
			tok = []byte(`"` + c.Name + `"`)
		}
		w.keyTokens = append(w.keyTokens, tok)
	}
	w.newCols.known = w.byName
	if s.Rescued != "" {
		rb := array.NewStringBuilder(mem)
		w.builders = append(w.builders, rb)
		w.nullOut = append(w.nullOut, !rescueRead)
		if rescueRead {
			w.rescued = rb
		}
	}
	for j, b := range w.builders {
		if !w.nullOut[j] {
			b.Reserve(min(batchRows, 1024))
		}
	}
	return w
}

// reserveFor sizes the builders for the first batch from the file's
// text: its rows guessed from the length of its first line, at most a
// batch. Without it a file's first batch grows its builders step by step
// (each step a copy); the batches after reserve what the last one took.
func (w *batchWriter) reserveFor(data []byte) {
	head := data[:min(len(data), 64<<10)]
	lines := bytes.Count(head, []byte{'\n'})
	if lines == 0 {
		return
	}
	rows := min(w.batchRows, int(int64(len(data))*int64(lines)/int64(len(head)))+16)
	perRow := len(head) / lines
	for j, b := range w.builders {
		if w.nullOut[j] {
			continue
		}
		b.Reserve(rows)
		if sb, ok := b.(*array.StringBuilder); ok && j < len(w.cols) {
			// A string column's bytes are some of the row's: a share of
			// it, which the doubling builder corrects if short.
			sb.ReserveData(rows * max(perRow/max(len(w.cols), 1), 8))
		}
	}
}

// readSet is o.ReadColumns as a set; nil when every column is read.
func readSet(o Options) map[string]bool {
	if o.ReadColumns == nil {
		return nil
	}
	out := make(map[string]bool, len(o.ReadColumns))
	for _, n := range o.ReadColumns {
		out[n] = true
	}
	return out
}

// skipped reports whether column i is not read (pruned): its values are
// not converted.
func (w *batchWriter) skipped(i int) bool { return w.skip[i] }

// nullArray is an all-NULL array for output slot j of batchRows rows,
// made once per writer and sliced per batch (the caller releases the
// slice).
func (w *batchWriter) nullArray(j, rows int) arrow.Array {
	a, ok := w.nulls[j]
	if !ok {
		if w.nulls == nil {
			w.nulls = map[int]arrow.Array{}
		}
		a = array.MakeArrayOfNull(memory.DefaultAllocator, w.schema.Field(j).Type, w.batchRows)
		w.nulls[j] = a
	}
	return array.NewSlice(a, 0, int64(rows))
}

// column finds the column of a field name, exactly; -1 when none.
func (w *batchWriter) column(name []byte) int {
	if i, ok := w.byName[string(name)]; ok {
		return i
	}
	return -1
}

func (w *batchWriter) beginRow(line int64, raw []byte) {
	w.line, w.raw = line+w.lineBase, raw
	w.gen++
	if w.gen == 0 { // wrapped: forget every mark
		clear(w.setGen)
		w.gen = 1
	}
	w.resc.reset()
}

// has reports whether column i has its value this row already (a field
// given twice: the later one is rescued).
func (w *batchWriter) has(i int) bool { return w.setGen[i] == w.gen }

func (w *batchWriter) mark(i int) { w.setGen[i] = w.gen }

// setNull gives column i NULL this row.
func (w *batchWriter) setNull(i int) {
	w.setGen[i] = w.gen
	w.cols[i].appendNull()
}

// failed gives column i NULL after its value did not parse; the caller
// rescues the value.
func (w *batchWriter) failed(i int) {
	w.setGen[i] = w.gen
	w.cols[i].appendNull()
}

// rescuing reports whether rescued entries are kept at all.
func (w *batchWriter) rescuing() bool { return w.rescued != nil }

func (w *batchWriter) endRow() {
	for _, i := range w.active {
		if w.setGen[i] != w.gen {
			w.cols[i].appendNull()
		}
	}
	if w.rescued != nil {
		if w.resc.empty() {
			w.rescued.AppendNull()
		} else {
			w.stats.Rescued++
			doc := w.resc.finish(w.info.Path, w.line)
			if types.AppendParsedText(w.rescued, types.JSONB, doc, nil) != nil {
				// Not jsonb after all (jsonb refuses some JSON: lone
				// surrogates, \u0000, nesting past its depth): rescue the
				// row's text whole, as a string, which jsonb always takes.
				w.resc.reset()
				w.resc.addString("_corrupt_record", w.raw)
				w.rescued.BinaryBuilder.Append(w.resc.finish(w.info.Path, w.line))
			}
		}
	}
	w.stats.Rows++
	w.rows++
	if w.rows == w.batchRows {
		w.flush()
	}
}

// flush ends the batch being built (if it has rows).
func (w *batchWriter) flush() {
	if w.rows == 0 {
		return
	}
	if w.meta == nil {
		// The first batch is the largest: full, or the file's only one.
		w.meta = newMetadataArray(w.info, w.rows)
	}
	arrs := make([]arrow.Array, 0, len(w.builders)+1)
	if w.lastData == nil {
		w.lastData = make([]int, len(w.builders))
	}
	for i, b := range w.builders {
		if w.nullOut[i] {
			arrs = append(arrs, w.nullArray(i, w.rows))
			continue
		}
		a := b.NewArray()
		if sa, ok := a.(*array.String); ok {
			w.lastData[i] = len(sa.ValueBytes())
		}
		arrs = append(arrs, a)
	}
	meta := array.NewSlice(w.meta, 0, int64(w.rows))
	arrs = append(arrs, meta)
	w.out = append(w.out, array.NewRecordBatch(w.schema, arrs, int64(w.rows)))
	for _, a := range arrs {
		a.Release()
	}
	w.rows = 0
	// The next batch is likely as large: reserve it at once rather than
	// growing the builders step by step again.
	for i, b := range w.builders {
		if w.nullOut[i] {
			continue
		}
		b.Reserve(w.batchRows)
		if sb, ok := b.(*array.StringBuilder); ok {
			sb.ReserveData(int(float64(w.lastData[i]) * 1.1))
		}
	}
}

// finish flushes and returns the batches and stats; the writer is done.
func (w *batchWriter) finish() ([]arrow.RecordBatch, DecodeStats) {
	w.flush()
	w.release()
	w.stats.NewColumns = w.newCols.columns()
	return w.out, w.stats
}

// release frees the builders (also after an error).
func (w *batchWriter) release() {
	for i := range w.cols {
		w.cols[i].release()
	}
	for _, b := range w.builders {
		b.Release()
	}
	w.builders = nil
	for _, a := range w.nulls {
		a.Release()
	}
	w.nulls = nil
	if w.meta != nil {
		w.meta.Release()
		w.meta = nil
	}
}

// discard releases batches already made (after an error).
func (w *batchWriter) discard() {
	w.release()
	for _, r := range w.out {
		r.Release()
	}
	w.out = nil
}

// plainToken: name written between quotes is a JSON string token as it
// stands (no quote, backslash or control character to escape).
func plainToken(name string) bool {
	for i := 0; i < len(name); i++ {
		if c := name[i]; c < 0x20 || c == '"' || c == '\\' {
			return false
		}
	}
	return true
}
