package files

import (
	"bytes"
)

// CSV, as Spark's csv format reads it: a record per line (with multiLine,
// a quoted value may hold line breaks), cells split at the delimiter,
// quoted with the quote character, inside which the escape character
// (by default the quote itself: a doubled quote) escapes a quote. With a
// header the first record names the cells and cells are matched to
// columns by name (a column the file lacks is NULL; a cell the schema
// lacks is rescued); without one, cell k is column k. An unquoted cell
// that is empty or equals nullValue is NULL; a quoted empty cell is the
// empty string. Text after a closing quote is kept as written.
//
// A record whose cell count differs from the header's (the schema's
// without one), or with a quote still open at its line's end (at the
// file's end with multiLine), is rescued whole: its columns are NULL and
// the rescued column holds the record as _corrupt_record.

// withCSVDefaults fills what a zero Options leaves unset.
func withCSVDefaults(o Options) Options {
	if o.Delimiter == 0 {
		o.Delimiter = ','
	}
	if o.Quote == 0 {
		o.Quote = '"'
	}
	if o.Escape == 0 {
		o.Escape = o.Quote
	}
	return o
}

// csvCell is a cell's text: a span of the file or of the scratch buffer.
type csvCell struct {
	start, end int
	inScratch  bool
	quoted     bool
}

type csvReader struct {
	delim, quote, esc byte
	multiLine         bool
	cells             []csvCell
	scratch           []byte
}

func newCSVReader(o Options) *csvReader {
	o = withCSVDefaults(o)
	return &csvReader{delim: o.Delimiter, quote: o.Quote, esc: o.Escape, multiLine: o.MultiLine}
}

func (r *csvReader) text(data []byte, c csvCell) []byte {
	if c.inScratch {
		return r.scratch[c.start:c.end]
	}
	return data[c.start:c.end]
}

// record splits the record starting at data[pos] into r.cells. end is
// where its text ends (line break excluded), next where the next record
// starts, lines how many line breaks it spans; ok is false when a quote
// is left open.
func (r *csvReader) record(data []byte, pos int) (end, next, lines int, ok bool) {
	r.cells = r.cells[:0]
	r.scratch = r.scratch[:0]
	i := pos
	for {
		if i < len(data) && data[i] == r.quote {
			c, ni, nl, closed := r.quoted(data, i)
			lines += nl
			if !closed {
				if ni < len(data) { // broke at a line end
					return trimCR(data, pos, ni), ni + 1, lines, false
				}
				return len(data), len(data), lines, false
			}
			i = ni
			r.cells = append(r.cells, c)
		} else {
			j := i
			for j < len(data) && data[j] != r.delim && data[j] != '\n' {
				j++
			}
			e := j
			if (j == len(data) || data[j] == '\n') && e > i && data[e-1] == '\r' {
				e--
			}
			r.cells = append(r.cells, csvCell{start: i, end: e})
			i = j
		}
		if i < len(data) && data[i] == r.delim {
			i++
			continue
		}
		// A line break or the file's end ends the record.
		if i < len(data) {
			return trimCR(data, pos, i), i + 1, lines, true
		}
		return trimCR(data, pos, i), i, lines, true
	}
}

func trimCR(data []byte, pos, i int) int {
	if i > pos && data[i-1] == '\r' {
		return i - 1
	}
	return i
}

// quoted reads the quoted cell at data[i] == quote, and anything after
// its closing quote up to the delimiter or line end. next is where it
// stopped; closed false when the quote is still open there (at a line
// break without multiLine, or the file's end).
func (r *csvReader) quoted(data []byte, i int) (c csvCell, next, lines int, closed bool) {
	i++
	seg := i
	copied := false
	st := len(r.scratch)
	for {
		if i >= len(data) {
			return c, i, lines, false
		}
		b := data[i]
		switch {
		case b == r.esc && r.esc != r.quote && i+1 < len(data) && (data[i+1] == r.quote || data[i+1] == r.esc):
			r.scratch = append(r.scratch, data[seg:i]...)
			r.scratch = append(r.scratch, data[i+1])
			i += 2
			seg, copied = i, true
			continue
		case b == r.quote:
			if r.esc == r.quote && i+1 < len(data) && data[i+1] == r.quote {
				r.scratch = append(r.scratch, data[seg:i+1]...)
				i += 2
				seg, copied = i, true
				continue
			}
			// The closing quote; text may follow up to the delimiter.
			j := i + 1
			for j < len(data) && data[j] != r.delim && data[j] != '\n' {
				j++
			}
			tail := data[i+1 : j]
			if j == len(data) || data[j] == '\n' {
				tail = bytes.TrimSuffix(tail, []byte{'\r'})
			}
			if !copied && len(tail) == 0 {
				return csvCell{start: seg, end: i, quoted: true}, j, lines, true
			}
			r.scratch = append(r.scratch, data[seg:i]...)
			r.scratch = append(r.scratch, tail...)
			return csvCell{start: st, end: len(r.scratch), inScratch: true, quoted: true}, j, lines, true
		case b == '\n':
			if !r.multiLine {
				return c, i, lines, false
			}
			lines++
		}
		i++
	}
}

// decodeCSV decodes CSV text into w.
func decodeCSV(data []byte, o Options, w *batchWriter) {
	r := newCSVReader(o)
	data = bytes.TrimPrefix(data, utf8BOM)
	var header [][]byte // names, with a header
	var colOf []int     // cell position -> column, -1: not in the schema
	if !o.Header {
		for k := range w.cols {
			colOf = append(colOf, k)
		}
	}
	line := int64(1)
	for pos := 0; pos < len(data); {
		end, next, lines, ok := r.record(data, pos)
		raw := data[pos:end]
		recLine := line
		line += int64(lines) + 1
		pos = next
		if len(raw) == 0 {
			continue // blank lines are no records
		}
		if o.Header && header == nil && ok {
			for _, c := range r.cells {
				name := bytes.Clone(r.text(data, c))
				header = append(header, name)
				colOf = append(colOf, w.column(name))
			}
			continue
		}
		w.beginRow(recLine, raw)
		if !ok || len(r.cells) != len(colOf) {
			if w.rescuing() {
				w.resc.addString("_corrupt_record", raw)
			}
			w.endRow()
			continue
		}
		for k, c := range r.cells {
			ci := colOf[k]
			if ci >= 0 && w.skipped(ci) {
				continue // not read: not converted
			}
			v := r.text(data, c)
			isNull := !c.quoted && (len(v) == 0 || string(v) == o.NullValue)
			if ci < 0 {
				if !isNull {
					w.newCols.observe(header[k], csvInferKind(v, w.inferOff))
					if w.rescuing() {
						w.resc.addString(string(header[k]), v)
					}
				}
				continue
			}
			if w.has(ci) {
				if !isNull && w.rescuing() {
					w.resc.addString(w.cols[ci].name, v)
				}
				continue
			}
			if isNull {
				w.setNull(ci)
				continue
			}
			if w.cols[ci].appendText(v) {
				w.mark(ci)
				continue
			}
			w.failed(ci)
			if w.rescuing() {
				w.resc.addString(w.cols[ci].name, v)
			}
		}
		w.endRow()
	}
}
