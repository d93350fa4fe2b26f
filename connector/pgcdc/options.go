package pgcdc

import (
	"strconv"
	"strings"

	"github.com/weir-sql/weir/sql/sqlerr"
)

// Options are a postgres-cdc source's options. RisingWave's names
// (hostname, username, database.name, schema.name, table.name, slot.name)
// and dialect.md's short ones (host, user, database, schema, table, slot)
// are both accepted.
type Options struct {
	Host, User, Password, Database string
	Port                           int
	Schema, Table                  string
	Slot, Publication              string
}

var aliases = map[string]string{
	"hostname": "host", "host": "host", "port": "port", "username": "user", "user": "user",
	"password": "password", "database.name": "database", "database": "database",
	"schema.name": "schema", "schema": "schema", "table.name": "table", "table": "table",
	"slot.name": "slot", "slot": "slot", "publication": "publication", "publication.name": "publication",
}

// ParseOptions reads the options of CREATE SOURCE (connector excluded;
// secrets already resolved by the caller).
func ParseOptions(m map[string]string) (Options, error) {
	o := Options{Host: "127.0.0.1", Port: 5432, User: "postgres", Database: "postgres", Schema: "public"}
	for k, v := range m {
		if k == "connector" {
			continue
		}
		name, ok := aliases[strings.ToLower(k)]
		if !ok {
			return o, sqlerr.New(sqlerr.InvalidParameterValue, "unrecognized parameter \"%s\" of a postgres-cdc source", k).
				WithHint("Options: hostname, port, username, password, database.name, schema.name, table.name, slot.name, publication.")
		}
		switch name {
		case "host":
			o.Host = v
		case "port":
			p, err := strconv.Atoi(v)
			if err != nil || p <= 0 || p > 65535 {
				return o, sqlerr.New(sqlerr.InvalidParameterValue, "invalid value for option \"port\": \"%s\"", v)
			}
			o.Port = p
		case "user":
			o.User = v
		case "password":
			o.Password = v
		case "database":
			o.Database = v
		case "schema":
			o.Schema = v
		case "table":
			if s, t, ok := strings.Cut(v, "."); ok {
				o.Schema, o.Table = s, t
			} else {
				o.Table = v
			}
		case "slot":
			o.Slot = v
		case "publication":
			o.Publication = v
		}
	}
	if o.Table == "" {
		return o, sqlerr.New(sqlerr.InvalidParameterValue, "option \"table.name\" is required").
			WithHint("Name the PostgreSQL table to capture, e.g. table.name = 'public.customers'.")
	}
	if o.Slot == "" {
		o.Slot = "weir_" + o.Table
	}
	if o.Publication == "" {
		o.Publication = "weir_" + o.Table
	}
	for _, n := range []struct{ opt, v string }{{"slot.name", o.Slot}, {"publication", o.Publication}} {
		if !validIdent(n.v) {
			return o, sqlerr.New(sqlerr.InvalidParameterValue, "invalid value for option \"%s\": \"%s\"", n.opt, n.v).
				WithHint("Use lower-case letters, digits and underscores (PostgreSQL's rule for replication slot names).")
		}
	}
	return o, nil
}

// validIdent is PostgreSQL's rule for slot names (and what weir quotes
// without surprise for publications): [a-z0-9_]{1,63}.
func validIdent(s string) bool {
	if s == "" || len(s) > 63 {
		return false
	}
	for _, c := range s {
		if !(c >= 'a' && c <= 'z' || c >= '0' && c <= '9' || c == '_') {
			return false
		}
	}
	return true
}

// quoteIdent quotes a PostgreSQL identifier.
func quoteIdent(s string) string { return `"` + strings.ReplaceAll(s, `"`, `""`) + `"` }

// quoteLiteral quotes a PostgreSQL string literal.
func quoteLiteral(s string) string { return `'` + strings.ReplaceAll(s, `'`, `''`) + `'` }

// qualified is the captured table as PostgreSQL names it.
func (o Options) qualified() string { return quoteIdent(o.Schema) + "." + quoteIdent(o.Table) }
