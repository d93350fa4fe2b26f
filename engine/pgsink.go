package engine

import (
	"context"
	"fmt"
	"strings"
	"time"

	"github.com/weir-sql/weir/catalog"
	"github.com/weir-sql/weir/connector/pgsink"
	"github.com/weir-sql/weir/planner"
	"github.com/weir-sql/weir/sql/sqlerr"
)

// CREATE SINK name FROM table WITH (connector = 'postgres', url = ...,
// table = ..., primary_key = 'a, b'): the table's changes written to a
// PostgreSQL table, each epoch with its progress row in one PostgreSQL
// transaction (connector/pgsink). url may be secret('name'): it is
// opened each time the sink connects. primary_key defaults to the
// streaming table's PRIMARY KEY.

func (s *Session) postgresSinkDefinition(def *catalog.Sink, opts map[string]string) (*catalog.Sink, error) {
	p := &catalog.PostgresSink{}
	for k, v := range opts {
		switch strings.ToLower(k) {
		case "connector":
		case "url":
			p.URL = v
		case "table", "table.name":
			p.Table = v
		case "primary_key":
			for _, c := range strings.Split(v, ",") {
				if c = strings.TrimSpace(c); c != "" {
					p.PrimaryKey = append(p.PrimaryKey, c)
				}
			}
		default:
			return nil, sqlerr.New(sqlerr.InvalidParameterValue, "unrecognized option \"%s\" of a postgres sink", k).
				WithHint("A postgres sink takes url, table and primary_key.")
		}
	}
	if p.URL == "" || p.Table == "" {
		return nil, sqlerr.New(sqlerr.InvalidParameterValue, "options \"url\" and \"table\" are required").
			WithHint("For example WITH (connector = 'postgres', url = 'postgres://app@127.0.0.1:5432/shop', table = 'orders_5m').")
	}
	url, err := s.eng.resolveSecret(s.currentRoleOID(), p.URL) // secrets.go
	if err != nil {
		return nil, err
	}
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	if err := pgsink.Check(ctx, pgsink.Options{URL: url, Table: p.Table}); err != nil {
		return nil, err
	}
	def.Postgres = p
	return def, nil
}

func (e *Engine) openPostgresSink(def *catalog.Sink, table *catalog.Relation, mode string) (*pgsink.Sink, error) {
	p := def.Postgres
	if p == nil {
		return nil, sqlerr.New(sqlerr.InternalError, "sink %s has no postgres options", def.Name)
	}
	url, err := e.resolveSecret(def.Owner, p.URL)
	if err != nil {
		return nil, err
	}
	o := pgsink.Options{URL: url, Table: p.Table, Name: fmt.Sprintf("%s.%s#%d", def.Schema, def.Name, def.OID),
		Keys: p.PrimaryKey, Changes: mode != planner.AppendMode}
	if len(o.Keys) == 0 {
		o.Keys = table.PrimaryKey
	}
	for _, c := range table.Columns {
		o.Columns = append(o.Columns, pgsink.Column{Name: c.Name, Type: c.Type})
	}
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	return pgsink.Open(ctx, o)
}
