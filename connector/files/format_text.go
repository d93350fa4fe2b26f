package files

import "bytes"

// Text files, as Spark's text format: a row per line, in one text column
// `value` (line breaks \n or \r\n; an empty line is an empty string; the
// file's last line break ends its last row rather than starting one). A
// line that is not UTF-8, or holds NUL, is NULL and rescued.

// TextColumn is the one column of a text file's rows.
const TextColumn = "value"

func decodeText(data []byte, w *batchWriter) {
	ci := w.column([]byte(TextColumn))
	if ci < 0 && len(w.cols) > 0 {
		ci = 0
	}
	line := int64(0)
	for pos := 0; pos < len(data); {
		end := bytes.IndexByte(data[pos:], '\n')
		if end < 0 {
			end = len(data)
		} else {
			end += pos
		}
		l := data[pos:end]
		pos = end + 1
		line++
		if len(l) > 0 && l[len(l)-1] == '\r' {
			l = l[:len(l)-1]
		}
		w.beginRow(line, l)
		if ci >= 0 && !w.skipped(ci) {
			if w.cols[ci].appendText(l) {
				w.mark(ci)
			} else {
				w.failed(ci)
				if w.rescuing() {
					w.resc.addString(w.cols[ci].name, l)
				}
			}
		}
		w.endRow()
	}
}
