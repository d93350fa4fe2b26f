package files

import (
	"bytes"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
)

// Messages as rows: a message bus (Kafka) carries one JSON object or one
// CSV record per message, not lines of a file. DecodeRecords gives such
// messages the files source's decoding, rescue included, one row per
// message, so the two connectors read a value the same way.

// Record is one message to decode as one row.
type Record struct {
	Data []byte
	// Where and Pos say where it came from, in its rescued data:
	// "_file_path" is Where (a topic and partition) and "_line" is Pos
	// (its offset). Messages of one place share one Where string.
	Where string
	Pos   int64
}

// DecodeRecords decodes recs (format json or csv, without a header) into
// one batch of the schema's data columns and its rescued column (no
// _metadata column): row i is recs[i], always, so a message that is not
// a JSON object or a CSV record of the right cell count is a row of NULLs
// with the message whole in the rescued column (an empty one too). The
// caller releases the batch.
func DecodeRecords(recs []Record, o Options, s Schema) (arrow.RecordBatch, DecodeStats, error) {
	if o.Format != "json" && o.Format != "csv" {
		return nil, DecodeStats{}, errFormat(o.Format)
	}
	if o.Format == "csv" {
		o = withCSVDefaults(o)
		o.Header = false
	}
	w := newBatchWriter(FileInfo{}, o, s, max(len(recs), 1))
	var sc jsonScanner
	err := guard("message", func() {
		for i := range recs {
			r := &recs[i]
			w.info.Path = r.Where
			data := bytes.TrimSpace(r.Data)
			// An empty message, and a CSV message of more than one line
			// (which could be more than one record), are not one row's
			// values: rescued whole.
			if len(data) == 0 || (o.Format == "csv" && bytes.ContainsAny(data, "\r\n")) {
				w.lineBase = 0
				w.beginRow(r.Pos, r.Data)
				if w.rescuing() {
					w.resc.addString("_corrupt_record", r.Data)
				}
				w.endRow()
				continue
			}
			if o.Format == "csv" {
				w.lineBase = r.Pos - 1 // decodeCSV numbers its one record line 1
				decodeCSV(data, o, w)
				continue
			}
			w.lineBase = 0
			w.beginRow(r.Pos, data)
			if !sc.parseLine(data) {
				if w.rescuing() {
					w.resc.addString("_corrupt_record", data)
				}
				w.endRow()
				continue
			}
			sc.jsonRow(w)
			w.endRow()
		}
	})
	if err != nil {
		w.discard()
		return nil, DecodeStats{}, err
	}
	out, st := w.finish()
	if len(out) == 0 {
		return nil, st, nil
	}
	// Drop the _metadata column the writer adds: a message has no file.
	b := out[0]
	n := int(b.NumCols()) - 1
	fields := ArrowSchema(s).Fields()[:n]
	rb := array.NewRecordBatch(arrow.NewSchema(fields, nil), b.Columns()[:n], b.NumRows())
	b.Release()
	return rb, st, nil
}
