package types

import (
	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"

	"github.com/weir-sql/weir/sql/sqlerr"
)

// PLACEHOLDER: the signatures below are the contract; bodies are being written.

// AppendText appends the PostgreSQL text form of arr[i] (which must not be
// null) to buf, exactly as PostgreSQL 15 prints it.
func AppendText(buf []byte, t T, arr arrow.Array, i int, fs *FormatSettings) []byte {
	return buf
}

// AppendBinary appends the PostgreSQL binary wire form of arr[i] (not null).
func AppendBinary(buf []byte, t T, arr arrow.Array, i int) ([]byte, error) {
	return buf, sqlerr.New(sqlerr.FeatureNotSupported, "binary format for %s is not supported", t)
}

// AppendParsedText parses s as PostgreSQL's input function for t would and
// appends it to b (a builder of t.Arrow()). Errors carry 22P02/22007/22008/22003
// with PostgreSQL's message.
func AppendParsedText(b array.Builder, t T, s []byte, fs *FormatSettings) error {
	return sqlerr.New(sqlerr.FeatureNotSupported, "text input for %s is not supported", t)
}

// AppendParsedBinary decodes PostgreSQL's binary form of t and appends it to b.
func AppendParsedBinary(b array.Builder, t T, data []byte) error {
	return sqlerr.New(sqlerr.FeatureNotSupported, "binary input for %s is not supported", t)
}
