package files

import (
	"context"
	"io"
	"math"
	"os"
	"sort"
	"strconv"
	"strings"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/apache/arrow-go/v18/parquet/file"
	"github.com/apache/arrow-go/v18/parquet/pqarrow"

	"github.com/weir-sql/weir/sql/sqlerr"
	"github.com/weir-sql/weir/sql/types"
)

// Parquet, through arrow-go's pqarrow reader. Columns are matched to the
// schema's by exact name (top-level fields); a column whose Arrow type is
// already its weir type's representation is passed on as it is (no
// copy), others are converted value by value: numbers, booleans, dates
// and timestamps directly, anything else by way of its text (arrow-go's
// ValueStr: JSON for lists and structs) and PostgreSQL's input function.
// A value that does not convert is NULL and rescued, as a column the
// schema lacks is. A file that is not Parquet, truncated or damaged is
// XX001; arrow-go's panics on such files are caught and reported so too.

func damaged(path string, err error) error {
	return sqlerr.New(sqlerr.DataCorrupted, "could not read Parquet file \"%s\": %v", path, err)
}

func openParquet(path string) (*os.File, *pqarrow.FileReader, *file.Reader, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, nil, nil, ioError(path, err)
	}
	var pf *file.Reader
	if err := guard(path, func() { pf, err = file.NewParquetReader(f) }); err != nil {
		f.Close()
		return nil, nil, nil, err
	}
	if err != nil {
		f.Close()
		return nil, nil, nil, damaged(path, err)
	}
	fr, err := pqarrow.NewFileReader(pf, pqarrow.ArrowReadProperties{BatchSize: 8192}, memory.DefaultAllocator)
	if err != nil {
		pf.Close()
		f.Close()
		return nil, nil, nil, damaged(path, err)
	}
	return f, fr, pf, nil
}

func decodeParquetFile(info FileInfo, o Options, s Schema, batchRows int) (out []arrow.RecordBatch, st DecodeStats, err error) {
	if batchRows <= 0 {
		batchRows = 8192
	}
	f, fr, pf, err := openParquet(info.Path)
	if err != nil {
		return nil, DecodeStats{}, err
	}
	defer f.Close()
	defer pf.Close()
	fr.Props.BatchSize = int64(batchRows)
	d := &parquetDecoder{info: info, o: o, s: s, schema: ArrowSchema(s), batchRows: batchRows}
	gerr := guard(info.Path, func() { err = d.run(fr) })
	if gerr != nil {
		err = gerr
	}
	if err != nil {
		d.release()
		return nil, DecodeStats{}, err
	}
	if d.meta != nil {
		d.meta.Release()
	}
	d.stats.NewColumns = d.newCols.columns()
	return d.out, d.stats, nil
}

type parquetDecoder struct {
	info      FileInfo
	o         Options
	s         Schema
	schema    *arrow.Schema
	batchRows int

	meta  arrow.Array
	out   []arrow.RecordBatch
	stats DecodeStats

	newCols newColumns
	// noRescue: a pruned read; the rescued column is not read and comes
	// all NULL.
	noRescue bool
	resc     []rescueEntry
	rb       rescueBuf
}

// rescueEntry is one value of a batch to rescue.
type rescueEntry struct {
	row  int
	key  string
	text string
}

func (d *parquetDecoder) release() {
	if d.meta != nil {
		d.meta.Release()
	}
	for _, r := range d.out {
		r.Release()
	}
	d.out = nil
}

func (d *parquetDecoder) run(fr *pqarrow.FileReader) error {
	fsch, err := fr.Schema()
	if err != nil {
		return damaged(d.info.Path, err)
	}
	// Each schema column's field in the file (-1: none); the file's
	// fields the schema lacks.
	byName := map[string]int{}
	for i, c := range d.s.Columns {
		if _, dup := byName[c.Name]; !dup {
			byName[c.Name] = i
		}
	}
	d.newCols.known = byName
	src := make([]int, len(d.s.Columns))
	for i := range src {
		src[i] = -1
	}
	var extra []int
	for fi, fld := range fsch.Fields() {
		if ci, ok := byName[fld.Name]; ok && src[ci] < 0 {
			src[ci] = fi
			continue
		}
		extra = append(extra, fi)
		d.newCols.observeType(fld.Name, parquetType(fld.Type))
	}
	leaves, pos := d.prune(fr, fsch, src, extra)
	rr, err := fr.GetRecordReader(context.Background(), leaves, nil)
	if err != nil {
		return damaged(d.info.Path, err)
	}
	defer rr.Release()
	if leaves != nil {
		// src and extra index the file's fields; the reader's records
		// hold the chosen ones only, in the file's order.
		rs := rr.Schema()
		if rs.NumFields() != len(pos.fields) {
			return sqlerr.New(sqlerr.InternalError, "Parquet file \"%s\": %d columns read, %d asked for", d.info.Path, rs.NumFields(), len(pos.fields))
		}
		for k, fi := range pos.fields {
			if rs.Field(k).Name != fsch.Field(fi).Name {
				return sqlerr.New(sqlerr.InternalError, "Parquet file \"%s\": column %d read is %q, not %q", d.info.Path, k, rs.Field(k).Name, fsch.Field(fi).Name)
			}
		}
		src, extra = pos.src, pos.extra
		d.noRescue = true
	}
	for rr.Next() {
		rec := rr.RecordBatch()
		if err := d.batch(rec, fsch, src, extra); err != nil {
			return err
		}
	}
	if err := rr.Err(); err != nil && err != io.EOF {
		return damaged(d.info.Path, err)
	}
	return nil
}

// prunedFields says where the fields a pruned read chose are in its
// records: fields are the file's field indices read, in order; src and
// extra as run's, renumbered to the records' columns (src -1: not read).
type prunedFields struct {
	fields     []int
	src, extra []int
}

// prune chooses the file's leaf columns to read when o.ReadColumns leaves
// some out (nil: read them all). A column not read comes all NULL (as a
// column the file lacks does); the fields the schema lacks are read only
// while the rescued column, where their values go, is read — and then so
// is every column, whose values that do not convert go there too.
func (d *parquetDecoder) prune(fr *pqarrow.FileReader, fsch *arrow.Schema, src, extra []int) ([]int, prunedFields) {
	read := readSet(d.o)
	if read == nil || d.s.Rescued != "" && read[d.s.Rescued] || fr.Manifest == nil {
		return nil, prunedFields{}
	}
	want := make([]bool, fsch.NumFields())
	any := false
	for ci, fi := range src {
		if fi >= 0 && read[d.s.Columns[ci].Name] {
			want[fi], any = true, true
		}
	}
	if len(fr.Manifest.Fields) != fsch.NumFields() {
		return nil, prunedFields{}
	}
	if !any {
		// No column read: the rows must still be counted, which a reader
		// of no column does not do. One leaf column is read, for its
		// row count only.
		for fi := range fr.Manifest.Fields {
			if fr.Manifest.Fields[fi].IsLeaf() {
				p := prunedFields{fields: []int{fi}, src: make([]int, len(src)), extra: []int{}}
				for ci := range p.src {
					p.src[ci] = -1
				}
				return []int{fr.Manifest.Fields[fi].ColIndex}, p
			}
		}
		return nil, prunedFields{}
	}
	var leaves []int
	var p prunedFields
	at := make([]int, fsch.NumFields())
	for fi := range want {
		at[fi] = -1
		if !want[fi] {
			continue
		}
		at[fi] = len(p.fields)
		p.fields = append(p.fields, fi)
		leaves = appendLeaves(leaves, &fr.Manifest.Fields[fi])
	}
	p.src = make([]int, len(src))
	for ci, fi := range src {
		p.src[ci] = -1
		if fi >= 0 && want[fi] {
			p.src[ci] = at[fi]
		}
	}
	p.extra = []int{} // not read: the rescued column is not
	return leaves, p
}

func appendLeaves(out []int, f *pqarrow.SchemaField) []int {
	if f.IsLeaf() {
		return append(out, f.ColIndex)
	}
	for i := range f.Children {
		out = appendLeaves(out, &f.Children[i])
	}
	return out
}

func (d *parquetDecoder) batch(rec arrow.RecordBatch, fsch *arrow.Schema, src, extra []int) error {
	n := int(rec.NumRows())
	if n == 0 {
		return nil
	}
	d.resc = d.resc[:0]
	arrs := make([]arrow.Array, 0, len(d.s.Columns)+2)
	defer func() {
		for _, a := range arrs {
			a.Release()
		}
	}()
	for ci, c := range d.s.Columns {
		want := c.Type.Arrow()
		if src[ci] < 0 {
			arrs = append(arrs, array.MakeArrayOfNull(memory.DefaultAllocator, want, n))
			continue
		}
		col := rec.Column(src[ci])
		if arrow.TypeEqual(col.DataType(), want) && passable(col, c.Type) {
			col.Retain()
			arrs = append(arrs, col)
			continue
		}
		arrs = append(arrs, d.convert(col, c, n))
	}
	if d.s.Rescued != "" && d.noRescue {
		arrs = append(arrs, array.MakeArrayOfNull(memory.DefaultAllocator, types.JSONB.Arrow(), n))
	} else if d.s.Rescued != "" {
		for _, fi := range extra {
			col := rec.Column(fi)
			name := fsch.Field(fi).Name
			for i := 0; i < n; i++ {
				if col.IsValid(i) {
					d.resc = append(d.resc, rescueEntry{row: i, key: name, text: col.ValueStr(i)})
				}
			}
		}
		arrs = append(arrs, d.rescuedColumn(n))
	}
	if d.meta == nil || d.meta.Len() < n {
		if d.meta != nil {
			d.meta.Release()
		}
		d.meta = newMetadataArray(d.info, n)
	}
	arrs = append(arrs, array.NewSlice(d.meta, 0, int64(n)))
	d.out = append(d.out, array.NewRecordBatch(d.schema, arrs, int64(n)))
	d.stats.Rows += int64(n)
	return nil
}

// passable: a column of the wanted Arrow type holds only values of the
// weir type too. Text must be UTF-8 without NUL, which Parquet does not
// promise (checked over the whole data buffer at once); numeric and jsonb
// text are never passed on unchecked.
func passable(col arrow.Array, t types.T) bool {
	switch t.OID {
	case types.OidText:
		data := col.(*array.String).ValueBytes()
		return validText(data)
	case types.OidNumeric, types.OidJSONB, types.OidJSON, types.OidVarchar, types.OidBpchar, types.OidName, types.OidChar:
		return false
	}
	return true
}

// rescuedColumn builds the batch's rescued column from d.resc.
func (d *parquetDecoder) rescuedColumn(n int) arrow.Array {
	b := array.NewStringBuilder(memory.DefaultAllocator)
	defer b.Release()
	if len(d.resc) == 0 {
		b.AppendNulls(n)
		return b.NewArray()
	}
	sort.SliceStable(d.resc, func(i, j int) bool { return d.resc[i].row < d.resc[j].row })
	k := 0
	for i := 0; i < n; i++ {
		if k >= len(d.resc) || d.resc[k].row != i {
			b.AppendNull()
			continue
		}
		d.rb.reset()
		for ; k < len(d.resc) && d.resc[k].row == i; k++ {
			e := d.resc[k]
			d.rb.addString(e.key, []byte(e.text))
		}
		d.stats.Rescued++
		// The row's number in the file stands for its line.
		doc := d.rb.finish(d.info.Path, d.stats.Rows+int64(i)+1)
		if types.AppendParsedText(b, types.JSONB, doc, nil) != nil {
			b.AppendNull()
		}
	}
	return b.NewArray()
}

// convert builds column c from a file column of another Arrow type.
func (d *parquetDecoder) convert(col arrow.Array, c Column, n int) arrow.Array {
	b := array.NewBuilder(memory.DefaultAllocator, c.Type.Arrow())
	defer b.Release()
	b.Reserve(n)
	if sb, ok := b.(*array.StringBuilder); ok {
		// Text out (numeric, jsonb, text from another type): guess a
		// decimal's width rather than grow by doubling, copying.
		sb.ReserveData(n * 12)
	}
	w := newColWriter(c.Name, c.Type, b)
	defer w.release()
	var buf []byte
	for i := 0; i < n; i++ {
		if col.IsNull(i) {
			b.AppendNull()
			continue
		}
		ok := false
		buf, ok = convertValue(&w, col, i, buf[:0])
		if !ok {
			b.AppendNull()
			if d.s.Rescued != "" && !d.noRescue {
				d.resc = append(d.resc, rescueEntry{row: i, key: c.Name, text: col.ValueStr(i)})
			}
		}
	}
	return b.NewArray()
}

// convertValue appends col[i] to w's column; false when it does not fit.
func convertValue(w *colWriter, col arrow.Array, i int, buf []byte) ([]byte, bool) {
	var iv int64
	isInt := true
	switch a := col.(type) {
	case *array.Int8:
		iv = int64(a.Value(i))
	case *array.Int16:
		iv = int64(a.Value(i))
	case *array.Int32:
		iv = int64(a.Value(i))
	case *array.Int64:
		iv = a.Value(i)
	case *array.Uint8:
		iv = int64(a.Value(i))
	case *array.Uint16:
		iv = int64(a.Value(i))
	case *array.Uint32:
		iv = int64(a.Value(i))
	case *array.Uint64:
		v := a.Value(i)
		if v > math.MaxInt64 {
			buf = strconv.AppendUint(buf, v, 10)
			return buf, w.appendText(buf)
		}
		iv = int64(v)
	case *array.Float32:
		buf = strconv.AppendFloat(buf, float64(a.Value(i)), 'g', -1, 32)
		return buf, w.appendText(buf)
	case *array.Float64:
		if w.t.OID == types.OidFloat4 {
			w.b.(*array.Float32Builder).Append(float32(a.Value(i)))
			return buf, true
		}
		buf = strconv.AppendFloat(buf, a.Value(i), 'g', -1, 64)
		return buf, w.appendText(buf)
	case *array.Boolean:
		if w.kind == kindBool {
			w.bl.Append(a.Value(i))
			return buf, true
		}
		buf = strconv.AppendBool(buf, a.Value(i))
		return buf, w.appendText(buf)
	case *array.String:
		return buf, w.appendText([]byte(a.Value(i)))
	case *array.LargeString:
		return buf, w.appendText([]byte(a.Value(i)))
	case *array.Binary:
		if w.t.OID == types.OidBytea {
			w.b.(*array.BinaryBuilder).Append(a.Value(i))
			return buf, true
		}
		return buf, w.appendText(a.Value(i))
	case *array.Decimal128:
		v := a.Value(i)
		hi, lo := v.HighBits(), v.LowBits()
		if hi == 0 && lo <= math.MaxInt64 || hi == -1 && lo > math.MaxInt64 {
			buf = appendScaled(buf, int64(lo), int(a.DataType().(*arrow.Decimal128Type).Scale))
			return buf, w.appendText(buf)
		}
		buf = append(buf, a.ValueStr(i)...)
		return buf, w.appendText(buf)
	case *array.Date32:
		days := int64(a.Value(i))
		if w.kind == kindTimestamp {
			w.ts.Append(arrow.Timestamp(days * types.MicrosPerDay))
			return buf, true
		}
		buf = types.AppendDate(buf, int32(days))
		return buf, w.appendText(buf)
	case *array.Timestamp:
		unit := a.DataType().(*arrow.TimestampType).Unit
		us := toMicros(int64(a.Value(i)), unit)
		if w.kind == kindTimestamp {
			w.ts.Append(arrow.Timestamp(us))
			return buf, true
		}
		if w.t.OID == types.OidDate {
			w.b.(*array.Date32Builder).Append(arrow.Date32(floorDiv(us, types.MicrosPerDay)))
			return buf, true
		}
		buf = types.AppendTimestamp(buf, us)
		return buf, w.appendText(buf)
	default:
		buf = append(buf, col.ValueStr(i)...)
		if w.t.IsStruct() {
			return buf, w.appendJSONRecord(buf)
		}
		if w.kind == kindJSONB || w.kind == kindText {
			return buf, w.appendJSONText(buf, false)
		}
		return buf, w.appendText(buf)
	}
	if isInt {
		if w.kind == kindTimestamp {
			return buf, false
		}
		if w.kind == kindFloat {
			if w.t.OID == types.OidFloat4 {
				w.b.(*array.Float32Builder).Append(float32(iv))
			} else {
				w.b.(*array.Float64Builder).Append(float64(iv))
			}
			return buf, true
		}
		buf = strconv.AppendInt(buf, iv, 10)
		return buf, w.appendText(buf)
	}
	return buf, false
}

// appendScaled writes v·10^-scale as decimal text: 1250, 2 is 12.50.
func appendScaled(buf []byte, v int64, scale int) []byte {
	if scale <= 0 {
		buf = strconv.AppendInt(buf, v, 10)
		for ; scale < 0; scale++ {
			buf = append(buf, '0')
		}
		return buf
	}
	u := uint64(v)
	if v < 0 {
		buf = append(buf, '-')
		u = uint64(-v)
	}
	var d [24]byte
	digits := strconv.AppendUint(d[:0], u, 10)
	if len(digits) <= scale {
		buf = append(buf, '0', '.')
		for k := len(digits); k < scale; k++ {
			buf = append(buf, '0')
		}
		return append(buf, digits...)
	}
	buf = append(buf, digits[:len(digits)-scale]...)
	buf = append(buf, '.')
	return append(buf, digits[len(digits)-scale:]...)
}

func toMicros(v int64, unit arrow.TimeUnit) int64 {
	switch unit {
	case arrow.Second:
		return v * 1_000_000
	case arrow.Millisecond:
		return v * 1000
	case arrow.Nanosecond:
		return floorDiv(v, 1000)
	}
	return v
}

func floorDiv(a, b int64) int64 {
	q := a / b
	if a%b != 0 && (a < 0) != (b < 0) {
		q--
	}
	return q
}

// parquetType is the weir type of a Parquet file's (Arrow) column type.
func parquetType(dt arrow.DataType) types.T {
	switch t := dt.(type) {
	case *arrow.BooleanType:
		return types.Bool
	case *arrow.Int8Type, *arrow.Int16Type, *arrow.Uint8Type:
		return types.Int2
	case *arrow.Int32Type, *arrow.Uint16Type:
		return types.Int4
	case *arrow.Int64Type, *arrow.Uint32Type:
		return types.Int8
	case *arrow.Uint64Type:
		return types.Numeric
	case *arrow.Float16Type, *arrow.Float32Type:
		return types.Float4
	case *arrow.Float64Type:
		return types.Float8
	case *arrow.StringType, *arrow.LargeStringType, *arrow.StringViewType:
		return types.Text
	case *arrow.BinaryType, *arrow.LargeBinaryType, *arrow.FixedSizeBinaryType, *arrow.BinaryViewType:
		return types.Bytea
	case *arrow.Date32Type, *arrow.Date64Type:
		return types.Date
	case *arrow.TimestampType:
		if t.TimeZone != "" {
			return types.TimestampTZ
		}
		return types.Timestamp
	case *arrow.Time32Type, *arrow.Time64Type:
		return types.Time
	case *arrow.Decimal128Type:
		return types.T{OID: types.OidNumeric, Typmod: types.NumericTypmod(int(t.Precision), int(t.Scale))}
	case *arrow.Decimal256Type:
		return types.T{OID: types.OidNumeric, Typmod: types.NumericTypmod(int(t.Precision), int(t.Scale))}
	case *arrow.DictionaryType:
		return parquetType(t.ValueType)
	case *arrow.ListType, *arrow.LargeListType, *arrow.StructType, *arrow.MapType, *arrow.FixedSizeListType:
		return types.JSONB
	}
	return types.Text
}

// widenType is the type of a field two files type differently.
func widenType(a, b types.T) types.T {
	if a == b {
		return a
	}
	isInt := func(t types.T) bool {
		return t.OID == types.OidInt2 || t.OID == types.OidInt4 || t.OID == types.OidInt8
	}
	isFloat := func(t types.T) bool { return t.OID == types.OidFloat4 || t.OID == types.OidFloat8 }
	switch {
	case isInt(a) && isInt(b):
		return types.Int8
	case (isInt(a) || isFloat(a)) && (isInt(b) || isFloat(b)):
		return types.Float8
	case a.OID == types.OidNumeric && b.OID == types.OidNumeric:
		return types.Numeric
	case a.OID == types.OidTimestampTZ && b.OID == types.OidTimestamp || a.OID == types.OidTimestamp && b.OID == types.OidTimestampTZ:
		return types.TimestampTZ
	}
	return types.Text
}

// inferParquet unites the sampled files' schemas.
func inferParquet(files []FileInfo) ([]Column, error) {
	var cols []Column
	idx := map[string]int{}
	for _, fi := range files {
		f, fr, pf, err := openParquet(fi.Path)
		if err != nil {
			return nil, err
		}
		sch, err := fr.Schema()
		pf.Close()
		f.Close()
		if err != nil {
			return nil, damaged(fi.Path, err)
		}
		for _, fld := range sch.Fields() {
			t := parquetType(fld.Type)
			key := strings.ToLower(fld.Name)
			if i, ok := idx[key]; ok {
				if cols[i].Name == fld.Name {
					cols[i].Type = widenType(cols[i].Type, t)
				}
				continue
			}
			idx[key] = len(cols)
			cols = append(cols, Column{Name: fld.Name, Type: t})
		}
	}
	return cols, nil
}
