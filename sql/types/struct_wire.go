package types

import (
	"encoding/binary"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"

	"github.com/weir-sql/weir/sql/sqlerr"
)

// appendStructText is record_out: "(" the fields' text, comma-separated,
// ")", a NULL field as nothing, a field quoted when it is empty or holds a
// quote, backslash, parenthesis, comma or white space, with quotes and
// backslashes doubled inside the quotes.
func appendStructText(buf []byte, t T, arr arrow.Array, i int, fs *FormatSettings) []byte {
	sa, ok := arr.(*array.Struct)
	if !ok {
		return buf
	}
	buf = append(buf, '(')
	for j, f := range t.Fields() {
		if j > 0 {
			buf = append(buf, ',')
		}
		col := sa.Field(j)
		if col.IsNull(i) {
			continue
		}
		start := len(buf)
		buf = AppendText(buf, f.Type, col, i, fs)
		buf = quoteRecordField(buf, start)
	}
	return append(buf, ')')
}

// quoteRecordField quotes buf[start:] in place as record_out would.
func quoteRecordField(buf []byte, start int) []byte {
	el := buf[start:]
	need := len(el) == 0
	esc := 0
	for _, c := range el {
		switch c {
		case '"', '\\':
			esc++
			need = true
		case '(', ')', ',', ' ', '\t', '\n', '\r', '\v', '\f':
			need = true
		}
	}
	if !need {
		return buf
	}
	return quoteInPlace(buf, start, esc, 0) // array.go; record_out doubles
}

// appendStructBinary is record_send: the field count, then for each field
// its type OID and its length-prefixed binary form (-1 for NULL).
func appendStructBinary(buf []byte, t T, arr arrow.Array, i int) ([]byte, error) {
	sa, ok := arr.(*array.Struct)
	if !ok {
		return buf, sqlerr.New(sqlerr.InternalError, "struct value held in %T", arr)
	}
	be := binary.BigEndian
	fields := t.Fields()
	buf = be.AppendUint32(buf, uint32(len(fields)))
	for j, f := range fields {
		buf = be.AppendUint32(buf, f.Type.OID)
		col := sa.Field(j)
		if col.IsNull(i) {
			buf = be.AppendUint32(buf, 0xFFFFFFFF)
			continue
		}
		at := len(buf)
		buf = append(buf, 0, 0, 0, 0)
		var err error
		if buf, err = AppendBinary(buf, f.Type, col, i); err != nil {
			return buf, err
		}
		be.PutUint32(buf[at:], uint32(len(buf)-at-4))
	}
	return buf, nil
}
