package kafka

import (
	"encoding/hex"
	"unicode/utf8"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/twmb/franz-go/pkg/kgo"

	"github.com/weir-sql/weir/connector/files"
	"github.com/weir-sql/weir/sql/sqlerr"
	"github.com/weir-sql/weir/sql/types"
)

// Records as rows. The raw format gives read_kafka's columns (Databricks'
// names, lowercased as SQL folds them): key and value bytea, topic,
// partition, offset, timestamp, timestamptype, and headers — jsonb here
// ([{"key": ..., "value": ...}], a value as text, or as "\\x..." hex when
// it is not UTF-8), since weir has no array of structs. json and csv
// decode the value into declared columns with connector/files' decoders,
// a value that does not fit going to the rescued column (with the topic
// and partition as "_file_path" and the offset as "_line").

// RawColumns are the raw format's columns.
var RawColumns = []files.Column{
	{Name: "key", Type: types.Bytea},
	{Name: "value", Type: types.Bytea},
	{Name: "topic", Type: types.Text},
	{Name: "partition", Type: types.Int4},
	{Name: "offset", Type: types.Int8},
	{Name: "timestamp", Type: types.TimestampTZ},
	{Name: "timestamptype", Type: types.Int4},
	{Name: "headers", Type: types.JSONB},
}

// ArrowSchema is the Arrow schema of a source's batches: RawColumns for
// raw, else s's columns and its rescued column.
func ArrowSchema(format string, s files.Schema) *arrow.Schema {
	cols := s.Columns
	if format == "raw" {
		cols = RawColumns
		s.Rescued = ""
	}
	fs := make([]arrow.Field, 0, len(cols)+1)
	for _, c := range cols {
		fs = append(fs, arrow.Field{Name: c.Name, Type: c.Type.Arrow(), Nullable: true})
	}
	if s.Rescued != "" {
		fs = append(fs, arrow.Field{Name: s.Rescued, Type: types.JSONB.Arrow(), Nullable: true})
	}
	return arrow.NewSchema(fs, nil)
}

// decoder turns a batch's records into an Arrow batch. One decoder serves
// one source (its buffers are reused).
type decoder struct {
	format string
	fopts  files.Options
	schema files.Schema
	arrow  *arrow.Schema
	where  map[topicPart]string // "topic/partition", made once per partition
	recs   []files.Record
	hdr    []byte
}

func newDecoder(o Options, s files.Schema) *decoder {
	d := &decoder{format: o.Format, schema: s, arrow: ArrowSchema(o.Format, s), where: map[topicPart]string{}}
	d.fopts = files.Options{Format: o.Format, Delimiter: o.Delimiter, Quote: '"', Escape: '"', RescuedColumn: s.Rescued, InferColumnTypes: true}
	return d
}

func (d *decoder) decode(recs []*kgo.Record) (arrow.RecordBatch, int64, error) {
	if d.format == "raw" {
		return d.raw(recs), 0, nil
	}
	d.recs = d.recs[:0]
	for _, r := range recs {
		tp := topicPart{r.Topic, r.Partition}
		w, ok := d.where[tp]
		if !ok {
			w = r.Topic + "/" + itoa(int64(r.Partition))
			d.where[tp] = w
		}
		d.recs = append(d.recs, files.Record{Data: r.Value, Where: w, Pos: r.Offset})
	}
	b, st, err := files.DecodeRecords(d.recs, d.fopts, d.schema)
	if err != nil {
		return nil, 0, err
	}
	if b == nil {
		return array.NewRecordBatch(d.arrow, emptyColumns(d.arrow), 0), 0, nil
	}
	// The decoder's schema has the same fields; give the batch ours.
	out := array.NewRecordBatch(d.arrow, b.Columns(), b.NumRows())
	b.Release()
	return out, st.Rescued, nil
}

func emptyColumns(s *arrow.Schema) []arrow.Array {
	out := make([]arrow.Array, s.NumFields())
	for i, f := range s.Fields() {
		out[i] = array.MakeArrayOfNull(memory.DefaultAllocator, f.Type, 0)
	}
	return out
}

func (d *decoder) raw(recs []*kgo.Record) arrow.RecordBatch {
	mem := memory.DefaultAllocator
	n := len(recs)
	key := array.NewBinaryBuilder(mem, arrow.BinaryTypes.Binary)
	val := array.NewBinaryBuilder(mem, arrow.BinaryTypes.Binary)
	topic := array.NewStringBuilder(mem)
	part := array.NewInt32Builder(mem)
	off := array.NewInt64Builder(mem)
	ts := array.NewTimestampBuilder(mem, types.TimestampTZ.Arrow().(*arrow.TimestampType))
	tst := array.NewInt32Builder(mem)
	hdrs := array.NewStringBuilder(mem)
	var keyBytes, valBytes int
	for _, r := range recs {
		keyBytes += len(r.Key)
		valBytes += len(r.Value)
	}
	key.Reserve(n)
	key.ReserveData(keyBytes)
	val.Reserve(n)
	val.ReserveData(valBytes)
	for _, b := range []array.Builder{topic, part, off, ts, tst, hdrs} {
		b.Reserve(n)
	}
	for _, r := range recs {
		if r.Key == nil {
			key.AppendNull()
		} else {
			key.Append(r.Key)
		}
		if r.Value == nil {
			val.AppendNull() // a tombstone
		} else {
			val.Append(r.Value)
		}
		topic.Append(r.Topic)
		part.Append(r.Partition)
		off.Append(r.Offset)
		ts.Append(arrow.Timestamp(r.Timestamp.UnixMicro()))
		tst.Append(int32(r.Attrs.TimestampType()))
		if len(r.Headers) == 0 {
			hdrs.AppendNull()
			continue
		}
		d.hdr = appendHeaders(d.hdr[:0], r.Headers)
		if types.AppendParsedText(hdrs, types.JSONB, d.hdr, nil) != nil {
			hdrs.AppendNull()
		}
	}
	bs := []array.Builder{key, val, topic, part, off, ts, tst, hdrs}
	arrs := make([]arrow.Array, len(bs))
	for i, b := range bs {
		arrs[i] = b.NewArray()
		b.Release()
	}
	out := array.NewRecordBatch(d.arrow, arrs, int64(n))
	for _, a := range arrs {
		a.Release()
	}
	return out
}

// appendHeaders appends headers as a JSON array of {"key","value"}.
func appendHeaders(b []byte, hs []kgo.RecordHeader) []byte {
	b = append(b, '[')
	for i, h := range hs {
		if i > 0 {
			b = append(b, ',')
		}
		b = append(b, `{"key":`...)
		b = appendJSONString(b, h.Key)
		b = append(b, `,"value":`...)
		switch {
		case h.Value == nil:
			b = append(b, "null"...)
		case utf8.Valid(h.Value):
			b = appendJSONString(b, string(h.Value))
		default:
			b = appendJSONString(b, `\x`+hex.EncodeToString(h.Value))
		}
		b = append(b, '}')
	}
	return append(b, ']')
}

func appendJSONString(b []byte, s string) []byte {
	b = append(b, '"')
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case c == '"' || c == '\\':
			b = append(b, '\\', c)
		case c < 0x20:
			b = append(b, '\\', 'u', '0', '0', "0123456789abcdef"[c>>4], "0123456789abcdef"[c&15])
		default:
			b = append(b, c)
		}
	}
	return append(b, '"')
}

func itoa(n int64) string {
	var buf [20]byte
	i := len(buf)
	neg := n < 0
	if neg {
		n = -n
	}
	for {
		i--
		buf[i] = byte('0' + n%10)
		n /= 10
		if n == 0 {
			break
		}
	}
	if neg {
		i--
		buf[i] = '-'
	}
	return string(buf[i:])
}

// errDecode wraps a decoding failure of a batch (a decoder's bug).
func errDecode(err error) error {
	return sqlerr.New(sqlerr.DataCorrupted, "could not decode Kafka records: %v", err)
}
