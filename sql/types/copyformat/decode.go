package copyformat

// Decoding of COPY data in PostgreSQL's three formats: finding where a
// record ends in the byte stream, splitting it into fields, and undoing
// each format's escaping, with PostgreSQL's error messages.

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"unicode/utf8"

	"github.com/weir-sql/weir/sql/sqlerr"
	"github.com/weir-sql/weir/sql/types"
)

func trimCR(b []byte) []byte {
	if n := len(b); n > 0 && b[n-1] == '\r' {
		return b[:n-1]
	}
	return b
}

// findTextLine finds the next newline not escaped by a backslash: in text
// format a backslash takes the next byte with it, whatever it is.
func (s *Decoder) findTextLine() ([]byte, bool) {
	i := max(s.scan, s.pos)
	for {
		j := bytes.IndexByte(s.in[i:], '\n')
		if j < 0 {
			s.scan = len(s.in)
			return nil, false
		}
		nl := i + j
		slashes := 0
		for k := nl - 1; k >= s.pos && s.in[k] == '\\'; k-- {
			slashes++
		}
		if slashes%2 == 1 {
			i = nl + 1
			continue
		}
		rec := s.in[s.pos:nl]
		s.pos, s.scan = nl+1, nl+1
		return trimCR(rec), true
	}
}

// findCSVRecord finds the next newline outside quotes.
func (s *Decoder) findCSVRecord() ([]byte, bool) {
	q, esc := s.f.Quote, s.f.Escape
	buf := s.in
	i := max(s.scan, s.pos)
	for ; i < len(buf); i++ {
		ch := buf[i]
		if s.inQuote {
			if ch == esc && esc != q {
				if i+1 >= len(buf) {
					if !s.finished {
						break // the escaped byte has not arrived yet
					}
				} else if buf[i+1] == q || buf[i+1] == esc {
					i++
					continue
				}
			}
			if ch == q {
				s.inQuote = false
			}
			continue
		}
		if ch == q {
			s.inQuote = true
			continue
		}
		if ch == '\n' {
			rec := buf[s.pos:i]
			s.pos, s.scan = i+1, i+1
			return trimCR(rec), true
		}
	}
	s.scan = i
	return nil, false
}

// appendTextRecord splits a text-format line at unescaped delimiters,
// undoes backslash escapes and appends each value to its column.
func (s *Decoder) appendTextRecord(rec []byte) error {
	ncols := len(s.builders)
	if ncols == 0 {
		if len(rec) != 0 {
			return s.lineError(sqlerr.BadCopyFileFormat, "extra data after last expected column", rec)
		}
		return nil
	}
	delim := s.f.Delimiter
	col, i := 0, 0
	for {
		start := i
		out := s.field[:0]
		for i < len(rec) {
			ch := rec[i]
			if ch == delim {
				break
			}
			if ch != '\\' || i+1 >= len(rec) {
				out = append(out, ch)
				i++
				continue
			}
			i++
			ch = rec[i]
			i++
			switch ch {
			case 'b':
				out = append(out, '\b')
			case 'f':
				out = append(out, '\f')
			case 'n':
				out = append(out, '\n')
			case 'r':
				out = append(out, '\r')
			case 't':
				out = append(out, '\t')
			case 'v':
				out = append(out, '\v')
			case '0', '1', '2', '3', '4', '5', '6', '7':
				v := ch - '0'
				for k := 0; k < 2 && i < len(rec) && rec[i] >= '0' && rec[i] <= '7'; k++ {
					v = v<<3 | (rec[i] - '0')
					i++
				}
				out = append(out, v)
			case 'x':
				if i < len(rec) && isHexDigit(rec[i]) {
					v := hexValue(rec[i])
					i++
					if i < len(rec) && isHexDigit(rec[i]) {
						v = v<<4 | hexValue(rec[i])
						i++
					}
					out = append(out, v)
				} else {
					out = append(out, 'x')
				}
			default:
				out = append(out, ch)
			}
		}
		s.field = out
		if col >= ncols {
			return s.lineError(sqlerr.BadCopyFileFormat, "extra data after last expected column", rec)
		}
		if bytes.Equal(rec[start:i], s.f.Null) {
			s.builders[col].AppendNull()
		} else if err := s.appendValue(col, out); err != nil {
			return err
		}
		col++
		if i >= len(rec) {
			break
		}
		i++ // the delimiter
	}
	if col < ncols {
		return s.lineError(sqlerr.BadCopyFileFormat, fmt.Sprintf("missing data for column %q", s.f.Names[col]), rec)
	}
	return nil
}

// appendCSVRecord splits a CSV record as PostgreSQL's CopyReadAttributesCSV
// does: quotes may start anywhere in a field, the escape byte inside quotes
// escapes a quote or itself, and only an unquoted field equal to the NULL
// string is NULL.
func (s *Decoder) appendCSVRecord(rec []byte) error {
	ncols := len(s.builders)
	if ncols == 0 {
		if len(rec) != 0 {
			return s.lineError(sqlerr.BadCopyFileFormat, "extra data after last expected column", rec)
		}
		return nil
	}
	delim, q, esc := s.f.Delimiter, s.f.Quote, s.f.Escape
	col, i := 0, 0
	for {
		start := i
		out := s.field[:0]
		quoted, endedAtDelim := false, false
	field:
		for {
			// unquoted part
			for {
				if i >= len(rec) {
					break field
				}
				ch := rec[i]
				i++
				if ch == delim {
					endedAtDelim = true
					break field
				}
				if ch == q {
					quoted = true
					break
				}
				out = append(out, ch)
			}
			// quoted part
			for {
				if i >= len(rec) {
					return s.lineError(sqlerr.BadCopyFileFormat, "unterminated CSV quoted field", rec)
				}
				ch := rec[i]
				i++
				if ch == esc && i < len(rec) && (rec[i] == esc || rec[i] == q) {
					out = append(out, rec[i])
					i++
					continue
				}
				if ch == q {
					break
				}
				out = append(out, ch)
			}
		}
		s.field = out
		end := i
		if endedAtDelim {
			end--
		}
		if col >= ncols {
			return s.lineError(sqlerr.BadCopyFileFormat, "extra data after last expected column", rec)
		}
		if !quoted && bytes.Equal(rec[start:end], s.f.Null) {
			s.builders[col].AppendNull()
		} else if err := s.appendValue(col, out); err != nil {
			return err
		}
		col++
		if !endedAtDelim {
			break
		}
	}
	if col < ncols {
		return s.lineError(sqlerr.BadCopyFileFormat, fmt.Sprintf("missing data for column %q", s.f.Names[col]), rec)
	}
	return nil
}

// appendValue parses one text value into column col.
func (s *Decoder) appendValue(col int, v []byte) error {
	if !utf8.Valid(v) {
		return s.columnError(col, v, sqlerr.New("22021", "invalid byte sequence for encoding \"UTF8\": %s", badUTF8(v)))
	}
	if err := types.AppendParsedText(s.builders[col], s.types[col], v, &s.fs); err != nil {
		return s.columnError(col, v, sqlerr.From(err))
	}
	return nil
}

// readBinaryRow decodes the next tuple of binary COPY data.
func (s *Decoder) readBinaryRow() (bool, error) {
	if !s.headerDone {
		ok, err := s.readBinaryHeader()
		if err != nil || !ok {
			return false, err
		}
	}
	for {
		if s.finished && s.pos >= len(s.in) {
			return false, nil // end without a trailer: PostgreSQL accepts it
		}
		complete, err := s.binaryTupleComplete()
		if err != nil {
			return false, err
		}
		if complete {
			break
		}
		if s.finished {
			return false, s.binaryError("unexpected EOF in COPY data")
		}
		return false, ErrMoreInput
	}
	p := s.pos
	count := int16(binary.BigEndian.Uint16(s.in[p:]))
	p += 2
	if count == -1 {
		s.pos = p
		s.done = true
		return false, nil
	}
	s.line++
	for col := range s.builders {
		n := int32(binary.BigEndian.Uint32(s.in[p:]))
		p += 4
		if n == -1 {
			s.builders[col].AppendNull()
			continue
		}
		v := s.in[p : p+int(n)]
		p += int(n)
		if err := types.AppendParsedBinary(s.builders[col], s.types[col], v); err != nil {
			s.pos = p
			return false, &DataError{Err: sqlerr.From(err), Context: fmt.Sprintf("COPY %s, line %d, column %s", s.f.Table, s.line, s.f.Names[col])}
		}
	}
	s.pos = p
	return true, nil
}

// binaryTupleComplete reports whether in[pos:] holds a whole tuple (or the
// trailer), checking its field count and lengths on the way.
func (s *Decoder) binaryTupleComplete() (bool, error) {
	buf := s.in[s.pos:]
	if len(buf) < 2 {
		return false, nil
	}
	count := int(int16(binary.BigEndian.Uint16(buf)))
	if count == -1 {
		return true, nil
	}
	if count != len(s.builders) {
		s.line++
		return false, s.binaryError(fmt.Sprintf("row field count is %d, expected %d", count, len(s.builders)))
	}
	p := 2
	for range count {
		if len(buf)-p < 4 {
			return false, nil
		}
		n := int(int32(binary.BigEndian.Uint32(buf[p:])))
		p += 4
		if n == -1 {
			continue
		}
		if n < 0 {
			s.line++
			return false, s.binaryError(fmt.Sprintf("invalid field size %d", n))
		}
		if len(buf)-p < n {
			return false, nil
		}
		p += n
	}
	return true, nil
}

func (s *Decoder) readBinaryHeader() (bool, error) {
	for {
		buf := s.in[s.pos:]
		if len(buf) >= len(BinarySignature) && !bytes.Equal(buf[:len(BinarySignature)], BinarySignature) {
			return false, s.binaryError("COPY file signature not recognized")
		}
		if len(buf) >= 19 {
			flags := binary.BigEndian.Uint32(buf[11:])
			if flags&(1<<16) != 0 {
				return false, s.binaryError("invalid COPY file header (WITH OIDS)")
			}
			if flags&0xfffe0000 != 0 {
				return false, s.binaryError("unrecognized critical flags in COPY file header")
			}
			ext := int(int32(binary.BigEndian.Uint32(buf[15:])))
			if ext < 0 {
				return false, s.binaryError("invalid COPY file header (missing length)")
			}
			if len(buf)-19 >= ext {
				s.pos += 19 + ext
				s.headerDone = true
				return true, nil
			}
		}
		if s.finished {
			if len(buf) == 0 {
				return false, nil
			}
			return false, s.binaryError("invalid COPY file header (missing data)")
		}
		return false, ErrMoreInput
	}
}

func (s *Decoder) binaryError(msg string) error {
	return &DataError{
		Err:     sqlerr.New(sqlerr.BadCopyFileFormat, "%s", msg),
		Context: fmt.Sprintf("COPY %s, line %d", s.f.Table, max(s.line, 1)),
	}
}

// lineError is an error about a whole line; CONTEXT quotes the line.
func (s *Decoder) lineError(code, msg string, rec []byte) error {
	return &DataError{
		Err:     sqlerr.New(code, "%s", msg),
		Context: fmt.Sprintf("COPY %s, line %d: \"%s\"", s.f.Table, s.line, printable(rec)),
	}
}

// columnError is an error about one value; CONTEXT names the column.
func (s *Decoder) columnError(col int, v []byte, e *sqlerr.Error) error {
	return &DataError{
		Err:     e,
		Context: fmt.Sprintf("COPY %s, line %d, column %s: \"%s\"", s.f.Table, s.line, s.f.Names[col], printable(v)),
	}
}

// printable cuts a value shown in CONTEXT to 100 bytes, as PostgreSQL does.
func printable(v []byte) string {
	const limit = 100
	if len(v) <= limit {
		return string(v)
	}
	cut := limit
	for cut > 0 && !utf8.RuneStart(v[cut]) {
		cut--
	}
	return string(v[:cut]) + "..."
}

func badUTF8(v []byte) string {
	for i := 0; i < len(v); {
		r, n := utf8.DecodeRune(v[i:])
		if r == utf8.RuneError && n <= 1 {
			end := min(i+2, len(v))
			var b bytes.Buffer
			for k := i; k < end; k++ {
				if k > i {
					b.WriteByte(' ')
				}
				fmt.Fprintf(&b, "0x%02x", v[k])
			}
			return b.String()
		}
		i += n
	}
	return ""
}

func isHexDigit(b byte) bool {
	return (b >= '0' && b <= '9') || (b >= 'a' && b <= 'f') || (b >= 'A' && b <= 'F')
}

func hexValue(b byte) byte {
	switch {
	case b >= '0' && b <= '9':
		return b - '0'
	case b >= 'a' && b <= 'f':
		return b - 'a' + 10
	}
	return b - 'A' + 10
}
