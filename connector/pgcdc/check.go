package pgcdc

import (
	"context"
	"strconv"

	"github.com/jackc/pgx/v5/pgconn"

	"github.com/weir-sql/weir/sql/sqlerr"
	"github.com/weir-sql/weir/sql/types"
)

// Column is one column of the captured table.
type Column struct {
	Name string
	Type types.T // text for a type weir does not know
	Key  bool    // part of the primary key
}

// Prepare checks at CREATE SOURCE that the source can be read, with
// clear SQLSTATEs: the server reachable (08001) and the login accepted
// (28P01 and others passed through), wal_level logical (55000), the table
// there (42P01), replication and SELECT allowed (42501). It creates the
// publication when missing (FOR TABLE the table; before any slot, since
// pgoutput looks publications up as of each change), and returns the
// table's columns.
func Prepare(ctx context.Context, o Options) ([]Column, error) {
	c, err := connect(ctx, o, false)
	if err != nil {
		return nil, err
	}
	defer c.Close(context.Background())
	rows, err := query(ctx, c, "SHOW wal_level", o)
	if err != nil {
		return nil, err
	}
	if len(rows) != 1 || string(rows[0][0]) != "logical" {
		level := ""
		if len(rows) == 1 {
			level = string(rows[0][0])
		}
		return nil, sqlerr.New(sqlerr.ObjectNotInPrerequisiteState, "logical decoding requires wal_level >= logical, and the source's server has wal_level = %s", level).
			WithHint("Set wal_level = logical in the PostgreSQL server's postgresql.conf (ALTER SYSTEM SET wal_level = logical) and restart it.")
	}
	cols, err := describe(ctx, c, o)
	if err != nil {
		return nil, err
	}
	rows, err = query(ctx, c, "SELECT rolsuper OR rolreplication FROM pg_roles WHERE rolname = current_user", o)
	if err != nil {
		return nil, err
	}
	if len(rows) != 1 || string(rows[0][0]) != "t" {
		return nil, sqlerr.New(sqlerr.InsufficientPrivilege, "permission denied to use replication slots: role \"%s\" is neither superuser nor REPLICATION", o.User).
			WithHint("ALTER ROLE " + quoteIdent(o.User) + " REPLICATION; on the source's server.")
	}
	rows, err = query(ctx, c, "SELECT has_table_privilege("+quoteLiteral(o.qualified())+", 'SELECT')", o)
	if err != nil {
		return nil, err
	}
	if len(rows) != 1 || string(rows[0][0]) != "t" {
		return nil, sqlerr.New(sqlerr.InsufficientPrivilege, "permission denied for table %s", o.Table).
			WithHint("GRANT SELECT ON " + o.qualified() + " TO " + quoteIdent(o.User) + "; the initial snapshot reads the table.")
	}
	if err := ensurePublication(ctx, c, o); err != nil {
		return nil, err
	}
	return cols, nil
}

// describe reads the table's columns, in order, with its primary key.
func describe(ctx context.Context, c *pgconn.PgConn, o Options) ([]Column, error) {
	rows, err := query(ctx, c, "SELECT to_regclass("+quoteLiteral(o.qualified())+")::oid", o)
	if err != nil {
		return nil, err
	}
	if len(rows) != 1 || rows[0][0] == nil {
		return nil, sqlerr.New(sqlerr.UndefinedTable, "relation \"%s.%s\" does not exist in the source database \"%s\"", o.Schema, o.Table, o.Database)
	}
	oid := string(rows[0][0])
	rows, err = query(ctx, c, `SELECT a.attname, a.atttypid, a.atttypmod,
	  coalesce(a.attnum = ANY (i.indkey), false)
	FROM pg_attribute a LEFT JOIN pg_index i ON i.indrelid = a.attrelid AND i.indisprimary
	WHERE a.attrelid = `+oid+` AND a.attnum > 0 AND NOT a.attisdropped ORDER BY a.attnum`, o)
	if err != nil {
		return nil, err
	}
	cols := make([]Column, 0, len(rows))
	for _, r := range rows {
		typOID, _ := strconv.ParseUint(string(r[1]), 10, 32)
		typmod, _ := strconv.ParseInt(string(r[2]), 10, 32)
		cols = append(cols, Column{Name: string(r[0]), Type: typeOf(uint32(typOID), int32(typmod)), Key: string(r[3]) == "t"})
	}
	return cols, nil
}

// typeOf is weir's type for a PostgreSQL type OID: the same type when
// weir has it, else text (the value arrives as PostgreSQL's text form).
func typeOf(oid uint32, typmod int32) types.T {
	if _, ok := types.Lookup(oid); ok {
		return types.T{OID: oid, Typmod: typmod}
	}
	return types.T{OID: types.OidText, Typmod: -1}
}

// ensurePublication creates the publication for the table when there is
// none of that name.
func ensurePublication(ctx context.Context, c *pgconn.PgConn, o Options) error {
	rows, err := query(ctx, c, "SELECT 1 FROM pg_publication WHERE pubname = "+quoteLiteral(o.Publication), o)
	if err != nil {
		return err
	}
	if len(rows) == 1 {
		return nil
	}
	_, err = query(ctx, c, "CREATE PUBLICATION "+quoteIdent(o.Publication)+" FOR TABLE "+o.qualified(), o)
	return err
}

// DropSlot drops the source's replication slot when it exists (DROP
// SOURCE): PostgreSQL would keep WAL for it forever.
func DropSlot(ctx context.Context, o Options) error {
	c, err := connect(ctx, o, false)
	if err != nil {
		return err
	}
	defer c.Close(context.Background())
	_, err = query(ctx, c, "SELECT pg_drop_replication_slot(slot_name) FROM pg_replication_slots WHERE slot_name = "+quoteLiteral(o.Slot), o)
	return err
}
