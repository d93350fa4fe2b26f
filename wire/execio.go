package wire

import (
	"strconv"
	"strings"

	"github.com/jackc/pgx/v5/pgproto3"

	"github.com/weir-sql/weir/sql/sqlerr"
)

// execIO is the ExecIO a running statement gets: it writes to the
// connection of that statement.
type execIO struct {
	c *conn
}

var _ ExecIO = (*execIO)(nil)

func (x *execIO) Notice(severity, code, message string) {
	if severity == "" {
		severity = "NOTICE"
	}
	x.c.send(&pgproto3.NoticeResponse{Severity: severity, SeverityUnlocalized: severity, Code: code, Message: message})
	x.c.flush() // as PostgreSQL does: a long statement's notices arrive while it runs
}

func (x *execIO) ParameterStatus(name, value string) {
	x.c.send(&pgproto3.ParameterStatus{Name: name, Value: value})
}

// copyFormat is a COPY data format with its options checked and defaulted.
type copyFormat struct {
	kind      byte // 't' text, 'c' csv, 'b' binary
	delimiter byte
	quote     byte
	escape    byte
	null      []byte
	header    bool
	table     string
	names     []string
}

func parseCopyOptions(o CopyOptions, ncols int) (copyFormat, error) {
	f := copyFormat{table: o.Table, header: o.Header}
	switch strings.ToLower(o.Format) {
	case "", "text":
		f.kind, f.delimiter, f.null = 't', '\t', []byte(`\N`)
	case "csv":
		f.kind, f.delimiter, f.quote, f.escape = 'c', ',', '"', '"'
		f.null = []byte{}
	case "binary":
		f.kind = 'b'
	default:
		return f, sqlerr.New(sqlerr.InvalidParameterValue, "COPY format %q not recognized", o.Format)
	}
	single := func(s, what string, dst *byte) error {
		if s == "" {
			return nil
		}
		if len(s) != 1 {
			return sqlerr.New(sqlerr.FeatureNotSupported, "COPY %s must be a single one-byte character", what)
		}
		*dst = s[0]
		return nil
	}
	if err := single(o.Delimiter, "delimiter", &f.delimiter); err != nil {
		return f, err
	}
	if f.kind == 'c' {
		if err := single(o.Quote, "quote", &f.quote); err != nil {
			return f, err
		}
		f.escape = f.quote
		if err := single(o.Escape, "escape", &f.escape); err != nil {
			return f, err
		}
	}
	if o.Null != "" {
		f.null = []byte(o.Null)
	}
	if f.kind != 'b' && (f.delimiter == '\n' || f.delimiter == '\r') {
		return f, sqlerr.New(sqlerr.InvalidParameterValue, "COPY delimiter cannot be newline or carriage return")
	}
	f.names = make([]string, ncols)
	for i := range f.names {
		if i < len(o.ColumnNames) {
			f.names[i] = o.ColumnNames[i]
		} else {
			f.names[i] = "column" + strconv.Itoa(i+1)
		}
	}
	if f.table == "" {
		f.table = "stdin"
	}
	return f, nil
}

func (f *copyFormat) overall() byte {
	if f.kind == 'b' {
		return 1
	}
	return 0
}

func (f *copyFormat) columnFormats(n int) []uint16 {
	codes := make([]uint16, n)
	if f.kind == 'b' {
		for i := range codes {
			codes[i] = 1
		}
	}
	return codes
}
