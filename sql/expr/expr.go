// Package expr holds typed scalar expressions and their vectorised
// evaluation over Arrow record batches, and the registries of scalar
// functions, operators and aggregates.
//
// Contract: Eval returns an array with exactly in.NumRows() elements. The
// returned array belongs to the caller. Inputs are never modified.
package expr

import (
	"fmt"
	"time"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/weir-sql/weir/sql/types"
)

// Expr is a typed scalar expression.
type Expr interface {
	Type() types.T
	Eval(ctx *Ctx, in arrow.RecordBatch) (arrow.Array, error)
	String() string
}

// Ctx carries what evaluation needs beyond the batch: parameters, the
// session's settings, the rows of enclosing queries for correlated
// subqueries, and the cancellation signal.
type Ctx struct {
	Mem      memory.Allocator
	Params   []Datum
	Location *time.Location // session TimeZone
	Now      time.Time      // statement timestamp: now() is stable within a statement
	// Outer holds, innermost last, one row of each enclosing query for
	// OuterRef; pushed by the subquery runner.
	Outer []OuterRow
	// Catalog answers the catalog lookups some functions make
	// (regclass casts, pg_table_is_visible, format_type, ...).
	Catalog CatalogFuncs
	// Settings gives current_setting() values.
	Settings func(name string) (string, bool)
	// Session identity for current_user, session_user, current_database.
	User, Database string
	// SessionUser is session_user when it differs from User (after SET
	// ROLE); "" means User.
	SessionUser string
	BackendPID  int32
	Done        <-chan struct{}
	// Backends reaches other sessions (pg_cancel_backend,
	// pg_terminate_backend); nil where there are none.
	Backends BackendControl
}

// OuterRow is one row of an enclosing query: its batch and row index.
type OuterRow struct {
	Batch arrow.RecordBatch
	Row   int
}

// CatalogFuncs is the part of the catalog that scalar functions consult.
// The engine implements it.
type CatalogFuncs interface {
	// RelationOID resolves a possibly qualified relation name (regclass input).
	RelationOID(name string) (uint32, error)
	// RelationName is regclass output: the name, qualified when not visible.
	RelationName(oid uint32) (string, bool)
	// TypeOID resolves a type name (regtype input).
	TypeOID(name string) (uint32, error)
	// TypeName is regtype and format_type output for the types the
	// catalog adds to sql/types' own (relations' row types).
	TypeName(oid uint32) (string, bool)
	// NamespaceOID resolves a schema name (regnamespace input).
	NamespaceOID(name string) (uint32, error)
	NamespaceName(oid uint32) (string, bool)
	// RoleName resolves an role OID (pg_get_userbyid).
	RoleName(oid uint32) (string, bool)
	// ProcSignature gives a pg_proc entry's argument and result types
	// (pg_get_function_arguments, pg_get_function_result).
	// variadic means the last argument repeats.
	ProcSignature(oid uint32) (args []types.T, ret types.T, variadic, ok bool)
	// ProcName is regproc output; ProcOID its input.
	ProcName(oid uint32) (string, bool)
	ProcOID(name string) (uint32, error)
	// RelationVisible tells whether a relation is visible on the search path.
	RelationVisible(oid uint32) bool
	// SearchPath is the session's effective schema search path.
	SearchPath() []string
	// ViewDefinition returns a view's SQL.
	ViewDefinition(oid uint32, pretty bool) (string, bool)
	// IndexDef is pg_get_indexdef: the CREATE INDEX statement, or with
	// column > 0 that key column's name.
	IndexDef(oid uint32, column int) (string, bool)
	// ConstraintDef is pg_get_constraintdef, e.g. "PRIMARY KEY (id)".
	ConstraintDef(oid uint32) (string, bool)
}

// Canceled reports whether the statement was told to stop (Done closed).
// Row-at-a-time loops call it every few rows, so one batch of expensive
// rows cannot outlast a cancel; it is a non-blocking channel poll, no lock.
func (c *Ctx) Canceled() bool {
	if c == nil || c.Done == nil {
		return false
	}
	select {
	case <-c.Done:
		return true
	default:
		return false
	}
}

// Mem returns the allocator to use.
func (c *Ctx) Allocator() memory.Allocator {
	if c == nil || c.Mem == nil {
		return memory.DefaultAllocator
	}
	return c.Mem
}

// ColumnRef reads column Index of the input batch.
type ColumnRef struct {
	Index int
	T     types.T
	Name  string
}

func (c *ColumnRef) Type() types.T { return c.T }
func (c *ColumnRef) Eval(ctx *Ctx, in arrow.RecordBatch) (arrow.Array, error) {
	col := in.Column(c.Index)
	col.Retain()
	return col, nil
}
func (c *ColumnRef) String() string {
	if c.Name != "" {
		return c.Name
	}
	return fmt.Sprintf("#%d", c.Index)
}

// OuterRef reads a column of an enclosing query's current row (correlated
// subqueries). Depth 1 is the immediately enclosing query.
type OuterRef struct {
	Depth int
	Index int
	T     types.T
	Name  string
}

func (o *OuterRef) Type() types.T { return o.T }
func (o *OuterRef) Eval(ctx *Ctx, in arrow.RecordBatch) (arrow.Array, error) {
	if len(ctx.Outer) < o.Depth {
		return nil, fmt.Errorf("outer reference %s evaluated without an outer row", o.Name)
	}
	r := ctx.Outer[len(ctx.Outer)-o.Depth]
	d := DatumAt(r.Batch.Column(o.Index), r.Row)
	return Broadcast(ctx.Allocator(), o.T, d, int(in.NumRows()))
}
func (o *OuterRef) String() string { return "outer." + o.Name }

// Const is a constant value.
type Const struct {
	Val Datum
	T   types.T
}

func (c *Const) Type() types.T { return c.T }
func (c *Const) Eval(ctx *Ctx, in arrow.RecordBatch) (arrow.Array, error) {
	return Broadcast(ctx.Allocator(), c.T, c.Val, int(in.NumRows()))
}
func (c *Const) String() string {
	if c.Val == nil {
		return "NULL"
	}
	return fmt.Sprintf("%v", c.Val)
}

// Param is $n (0-based Index), resolved from Ctx.Params at execution.
type Param struct {
	Index int
	T     types.T
}

func (p *Param) Type() types.T { return p.T }
func (p *Param) Eval(ctx *Ctx, in arrow.RecordBatch) (arrow.Array, error) {
	var d Datum
	if p.Index < len(ctx.Params) {
		d = ctx.Params[p.Index]
	}
	return Broadcast(ctx.Allocator(), p.T, d, int(in.NumRows()))
}
func (p *Param) String() string { return fmt.Sprintf("$%d", p.Index+1) }
