package wire

import (
	"context"
	"crypto/tls"
	"net"
	"time"

	"github.com/apache/arrow-go/v18/arrow"

	"github.com/weir-sql/weir/sql/types"
)

// Handler is what the wire layer calls: the engine implements it. wire knows
// the protocol; it knows nothing about SQL beyond value encoding.
type Handler interface {
	// LookupRole tells how a role authenticates. An unknown role is
	// answered with Exists false and no error: the wire layer then runs a
	// mock SCRAM exchange and fails it exactly as for a wrong password, so
	// that role names cannot be probed.
	LookupRole(user string) (Role, error)

	// NewSession opens a session for an authenticated user. params are the
	// StartupMessage parameters (user, database, application_name, ...);
	// b is the connection, for pg_stat_activity and for cancelling or
	// ending the session from another one. It fails with 3D000 for an
	// unknown database.
	NewSession(ctx context.Context, params map[string]string, b Backend) (Session, error)
}

// Role is what authentication needs to know of a role.
type Role struct {
	Exists bool
	// Verifier is empty when the role has no password: it is then trusted
	// from loopback only. Otherwise it has the form PostgreSQL keeps in
	// pg_authid: SCRAM-SHA-256$<iter>:<salt b64>$<StoredKey b64>:<ServerKey b64>.
	Verifier string
	// Superuser sessions may use the superuser_reserved_connections slots.
	Superuser bool
	// CanLogin false refuses the login (28000) once the client has
	// authenticated, as PostgreSQL does.
	CanLogin bool
}

// Backend is the connection side of one session, handed to the engine at
// NewSession. Its methods may be called from any goroutine (another
// session's pg_cancel_backend, a pg_stat_activity scan).
type Backend interface {
	PID() uint32
	// Activity is a snapshot of what the connection is doing.
	Activity() Activity
	// CancelStatement cancels the statement running now, if any, as a
	// CancelRequest does: it fails with 57014 "canceling statement due to
	// user request".
	CancelStatement()
	// Terminate ends the session: the running statement is cancelled and
	// the client gets FATAL 57P01 "terminating connection due to
	// administrator command".
	Terminate()
	// Done is closed once the connection has ended.
	Done() <-chan struct{}
}

// Activity is one row of pg_stat_activity as the wire layer knows it.
type Activity struct {
	BackendStart time.Time
	ClientAddr   net.Addr // nil for an in-process pipe
	// State is PostgreSQL's: "active", "idle", "idle in transaction" or
	// "idle in transaction (aborted)"; "starting" before the first
	// ReadyForQuery.
	State string
	// Query is the text of the statement running now, or of the last one.
	Query       string
	QueryStart  time.Time // zero before the first statement
	StateChange time.Time
	XactStart   time.Time // zero outside a transaction
	// TLS is the connection's TLS state (pg_stat_ssl); nil in the clear.
	TLS *tls.ConnectionState
}

// Timeouts are a session's statement_timeout,
// idle_in_transaction_session_timeout and idle_session_timeout; 0 is none.
type Timeouts struct {
	Statement, IdleInTransaction, IdleSession time.Duration
}

// Session is one client connection's SQL state: settings, prepared
// statements' plans, the transaction.
type Session interface {
	// StartupParameters returns the ParameterStatus values sent after
	// authentication, in order.
	StartupParameters() []Parameter

	// Prepare parses query text into zero or more statements. paramTypes are
	// the OIDs given in a Parse message (0 = infer). An empty or
	// comment-only text yields no statements (EmptyQueryResponse).
	Prepare(ctx context.Context, query string, paramTypes []uint32) ([]Statement, error)

	// TxStatus is the ReadyForQuery status: 'I' idle, 'T' in a transaction
	// block, 'E' in a failed transaction block.
	TxStatus() byte

	// FormatSettings are the session settings that change how values are
	// written as text (TimeZone, extra_float_digits); read before each
	// result is encoded.
	FormatSettings() types.FormatSettings

	// Timeouts are read before each statement and before each wait for
	// the client's next message.
	Timeouts() Timeouts

	// Close releases the session (the client went away); an open
	// transaction is rolled back.
	Close()
}

// CursorSession is implemented by a Session with SQL cursors (DECLARE …
// CURSOR). In PostgreSQL a SQL cursor is a portal, so a Describe of a
// portal may name one (psycopg's server-side cursors describe theirs
// after DECLARE); the wire layer asks the session about a portal name it
// did not bind. CursorColumns returns the columns of the cursor's rows,
// or false when there is no such cursor.
type CursorSession interface {
	CursorColumns(name string) ([]Column, bool)
}

// Statement is one prepared statement.
type Statement interface {
	// ParamTypes are the OIDs of $1..$n, inferred where the client left 0.
	ParamTypes() []uint32
	// Columns describes the result rows; nil when the statement returns no
	// rows (the wire layer then answers Describe with NoData).
	Columns() []Column
	// Execute runs the statement. The returned Result streams the rows (if
	// any) and carries the command tag. ctx is cancelled by a CancelRequest,
	// pg_cancel_backend, statement_timeout, pg_terminate_backend, the
	// client's disconnect or shutdown; the engine then returns a 57014
	// error (the wire layer words it after the cause).
	Execute(ctx context.Context, params []Value, io ExecIO) (Result, error)
}

// Parameter is one ParameterStatus name/value pair.
type Parameter struct {
	Name, Value string
}

// Column describes a result column for RowDescription.
type Column struct {
	Name     string
	TableOID uint32 // 0 when not a plain table column
	AttNum   int16
	Type     types.T
}

// Value is a bound parameter as it arrived: Data is nil for NULL; Format is
// 0 text, 1 binary.
type Value struct {
	Data   []byte
	Format int16
}

// Result is what a statement produced. Rows come as Arrow record batches
// whose columns follow Statement.Columns (or Result.Columns for statements
// whose shape is known only at run time, like SHOW or EXPLAIN).
//
// A Result may compute its rows as they are asked for (a SELECT runs its
// operator tree one batch per Next), so the wire layer pulls a batch only
// once the previous one is sent. It outlives Statement.Execute: a portal
// stopped at an Execute row limit keeps its Result, and the next Execute
// calls Next again with its own ctx. Close is called once, whether or not
// Next reached the end: when the rows are all sent, or when the portal is
// dropped (Close message, Sync ending an implicit transaction, COMMIT or
// ROLLBACK ending a block, a new simple query, an error, the session's
// end).
type Result interface {
	// Columns of the rows; nil for a statement without rows.
	Columns() []Column
	// Next returns the next batch, or nil at the end. The caller releases
	// nothing: a batch stays valid until the next call of Next or Close.
	// An error is sent to the client after the rows already sent, as
	// PostgreSQL does for an error raised while a result is sent; Next is
	// not called after it.
	Next(ctx context.Context) (arrow.RecordBatch, error)
	// Tag is the CommandComplete tag ("SELECT 3", "INSERT 0 1", "COPY 10"),
	// valid once Next has returned nil. For SELECT the wire layer counts the
	// rows it actually sent (a suspended portal reports its own count).
	Tag() string
	Close()
}

// ExecIO is what a running statement may ask of the connection.
type ExecIO interface {
	// Notice sends a NoticeResponse (severity NOTICE or WARNING).
	Notice(severity, code, message string)
	// ParameterStatus sends a ParameterStatus (after SET of a reported
	// parameter such as application_name or TimeZone).
	ParameterStatus(name, value string)
	// CopyIn starts COPY FROM STDIN: sends CopyInResponse and returns a
	// source of decoded batches in the given column types. Data errors name
	// the line; CopyFail from the client ends with a 57014 error. If the
	// statement ends before reading the source to its end, the wire layer
	// drops the rest of the client's stream itself. Once ctx is done, a
	// Next waiting for the client's data returns 57014 (a cancel reaches a
	// COPY whose client stalls).
	//
	// ExecIO's methods must be called from the goroutine running
	// Statement.Execute or Result.Next: they use the connection unlocked.
	CopyIn(ctx context.Context, opts CopyOptions, columns []types.T) (CopySource, error)
	// CopyOut sends CopyOutResponse, then every row of res in the requested
	// format, then CopyDone; it returns the number of rows sent.
	CopyOut(ctx context.Context, opts CopyOptions, res Result) (int64, error)
}

// CopyOptions are the options of a COPY statement.
type CopyOptions struct {
	Format    string // "text" (default), "csv", "binary"
	Delimiter string // default tab for text, comma for csv
	Null      string // default \N for text, "" for csv
	Header    bool
	Quote     string // csv, default "
	Escape    string // csv, default = Quote

	// Table and ColumnNames only label COPY FROM data errors the way
	// PostgreSQL's CONTEXT line does: COPY t, line 3, column x: "abc".
	// Optional; ColumnNames follows the columns given to CopyIn.
	Table       string
	ColumnNames []string
}

// CopySource yields COPY input as batches.
type CopySource interface {
	// Next returns the next batch of decoded rows (about 8192 of them) or
	// nil at the end. The caller owns each batch (it may keep it; batches
	// use the Go allocator, so dropping one is enough). A data error is a
	// *CopyDataError carrying PostgreSQL's CONTEXT line. After an error the
	// rest of the client's COPY stream is not waited for: the error goes to
	// the client at once and what it still sends is dropped.
	Next() (arrow.RecordBatch, error)
	// Rows is the number of rows read so far.
	Rows() int64
}
