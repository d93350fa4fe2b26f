package pgcdc

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/jackc/pgx/v5/pgconn"

	"github.com/weir-sql/weir/sql/sqlerr"
)

// connectTimeout bounds a connection attempt: an unreachable host fails
// CREATE SOURCE within it instead of hanging the session.
const connectTimeout = 10 * time.Second

// connect opens a connection to the source database; replication makes
// it a logical replication connection (replication=database).
func connect(ctx context.Context, o Options, replication bool) (*pgconn.PgConn, error) {
	dsn := fmt.Sprintf("host=%s port=%d user=%s dbname=%s sslmode=prefer connect_timeout=10",
		quoteDSN(o.Host), o.Port, quoteDSN(o.User), quoteDSN(o.Database))
	cfg, err := pgconn.ParseConfig(dsn)
	if err != nil {
		return nil, sqlerr.New(sqlerr.InvalidParameterValue, "invalid postgres-cdc connection options: %v", err)
	}
	cfg.Password = o.Password
	cfg.RuntimeParams["application_name"] = "weir"
	// Timestamps come as text; UTC keeps them unambiguous.
	cfg.RuntimeParams["timezone"] = "UTC"
	cfg.RuntimeParams["datestyle"] = "ISO, MDY"
	cfg.RuntimeParams["extra_float_digits"] = "3"
	if replication {
		cfg.RuntimeParams["replication"] = "database"
	}
	cctx, cancel := context.WithTimeout(ctx, connectTimeout)
	defer cancel()
	c, err := pgconn.ConnectConfig(cctx, cfg)
	if err != nil {
		return nil, pgError(err, o)
	}
	return c, nil
}

// quoteDSN quotes a keyword/value connection string value.
func quoteDSN(s string) string {
	out := []byte{'\''}
	for i := 0; i < len(s); i++ {
		if s[i] == '\'' || s[i] == '\\' {
			out = append(out, '\\')
		}
		out = append(out, s[i])
	}
	return string(append(out, '\''))
}

// pgError turns a PostgreSQL error into weir's: the server's SQLSTATE and
// message passed through (28P01 for a wrong password, 42501 ...), and a
// connection that could not be made at all as 08001.
func pgError(err error, o Options) error {
	var pe *pgconn.PgError
	if errors.As(err, &pe) {
		e := sqlerr.New(pe.Code, "%s", pe.Message)
		if pe.Detail != "" {
			e = e.WithDetail(pe.Detail)
		}
		if pe.Hint != "" {
			e = e.WithHint(pe.Hint)
		}
		return e
	}
	var se *sqlerr.Error
	if errors.As(err, &se) {
		return err
	}
	if errors.Is(err, context.Canceled) {
		return sqlerr.New(sqlerr.QueryCanceled, "canceling statement due to user request")
	}
	return sqlerr.New("08001", "could not connect to the PostgreSQL server of the source at %s:%d: %v", o.Host, o.Port, unwrapConnect(err)).
		WithHint("Check hostname and port, and that PostgreSQL accepts TCP connections from this host (listen_addresses, pg_hba.conf).")
}

// unwrapConnect is the innermost cause of a connection error (pgconn
// repeats the address in every layer).
func unwrapConnect(err error) error {
	for {
		u := errors.Unwrap(err)
		if u == nil {
			return err
		}
		err = u
	}
}

// query runs sql (no parameters) and returns its rows as text.
func query(ctx context.Context, c *pgconn.PgConn, sql string, o Options) ([][][]byte, error) {
	res := c.Exec(ctx, sql)
	rs, err := res.ReadAll()
	if err != nil {
		return nil, pgError(err, o)
	}
	if len(rs) == 0 {
		return nil, nil
	}
	return rs[len(rs)-1].Rows, nil
}
