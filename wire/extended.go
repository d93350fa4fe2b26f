package wire

import (
	"context"

	"github.com/jackc/pgx/v5/pgproto3"

	"github.com/weir-sql/weir/sql/sqlerr"
)

// prepared is a statement created by Parse. st is nil for an empty query
// string (Execute answers EmptyQueryResponse).
type prepared struct {
	st         Statement
	query      string // the text, for pg_stat_activity
	paramTypes []uint32
	// describedNoData: Describe S answered NoData. If the statement then
	// turns out to return rows (SHOW, EXPLAIN know their shape only when
	// run), Execute sends a RowDescription before the rows so the client
	// can still read them.
	describedNoData bool
}

// portal is a bound statement. It runs at its first Execute and keeps its
// cursor across Executes that stop at a row limit.
type portal struct {
	stmt          *prepared
	params        []Value
	resultFormats []int16 // as given in Bind
	describedRows bool    // the client has a RowDescription for it
	describedNone bool    // Describe P answered NoData

	ctx    context.Context
	cancel context.CancelCauseFunc
	cur    *cursor
	tag    string // CommandComplete tag once the result ended
}

func (p *portal) close() {
	if p.cur != nil {
		p.cur.close()
	}
	if p.cancel != nil {
		p.cancel(nil)
	}
}

func (c *conn) closePortal(name string) {
	if p, ok := c.portals[name]; ok {
		p.close()
		delete(c.portals, name)
	}
}

// endOfTransaction closes every portal once no transaction block is open:
// portals belong to their transaction, as in PostgreSQL (weir has no WITH
// HOLD cursors), and a suspended one holds a running plan, its memory and
// its spill files until closed.
func (c *conn) endOfTransaction() {
	if c.sess.TxStatus() == 'I' {
		c.closeAllPortals()
	}
}

func (c *conn) closeAllPortals() {
	for name, p := range c.portals {
		p.close()
		delete(c.portals, name)
	}
}

func (c *conn) parse(m *pgproto3.Parse) error {
	if m.Name != "" {
		if _, ok := c.stmts[m.Name]; ok {
			return sqlerr.New("42P05", "prepared statement %q already exists", m.Name)
		}
	}
	c.activeStatement(m.Query)
	paramTypes := append([]uint32(nil), m.ParameterOIDs...)
	stmts, err := c.sess.Prepare(c.ctx, m.Query, paramTypes)
	if err != nil {
		return err
	}
	if len(stmts) > 1 {
		return sqlerr.New(sqlerr.SyntaxError, "cannot insert multiple commands into a prepared statement")
	}
	p := &prepared{query: m.Query, paramTypes: paramTypes}
	if len(stmts) == 1 {
		p.st = stmts[0]
		p.paramTypes = p.st.ParamTypes()
	}
	c.stmts[m.Name] = p
	c.send(&pgproto3.ParseComplete{})
	return nil
}

func (c *conn) lookupStatement(name string) (*prepared, error) {
	p, ok := c.stmts[name]
	if !ok {
		if name == "" {
			return nil, sqlerr.New(sqlerr.InvalidSQLStatementName, "unnamed prepared statement does not exist")
		}
		return nil, sqlerr.New(sqlerr.InvalidSQLStatementName, "prepared statement %q does not exist", name)
	}
	return p, nil
}

func (c *conn) lookupPortal(name string) (*portal, error) {
	p, ok := c.portals[name]
	if !ok {
		return nil, sqlerr.New(sqlerr.InvalidCursorName, "portal %q does not exist", name)
	}
	return p, nil
}

func (c *conn) bind(m *pgproto3.Bind) error {
	st, err := c.lookupStatement(m.PreparedStatement)
	if err != nil {
		return err
	}
	if m.DestinationPortal == "" {
		c.closePortal("")
	} else if _, ok := c.portals[m.DestinationPortal]; ok {
		return sqlerr.New("42P03", "portal %q already exists", m.DestinationPortal)
	}
	nparams := len(m.Parameters)
	if len(m.ParameterFormatCodes) > 1 && len(m.ParameterFormatCodes) != nparams {
		return sqlerr.New(sqlerr.ProtocolViolation, "bind message has %d parameter formats but %d parameters", len(m.ParameterFormatCodes), nparams)
	}
	if nparams != len(st.paramTypes) {
		name := m.PreparedStatement
		return sqlerr.New(sqlerr.ProtocolViolation, "bind message supplies %d parameters, but prepared statement %q requires %d", nparams, name, len(st.paramTypes))
	}
	if err := checkFormatCodes(m.ParameterFormatCodes); err != nil {
		return err
	}
	if err := checkFormatCodes(m.ResultFormatCodes); err != nil {
		return err
	}
	if st.st != nil {
		if cols := st.st.Columns(); cols != nil {
			if _, err := resolveFormats(m.ResultFormatCodes, len(cols)); err != nil {
				return err
			}
		}
	}

	// The message's buffers are reused by the next Receive; the portal
	// outlives it, so copy the parameters (one allocation for all data).
	total := 0
	for _, v := range m.Parameters {
		total += len(v)
	}
	data := make([]byte, 0, total)
	params := make([]Value, nparams)
	for i, v := range m.Parameters {
		var f int16
		switch len(m.ParameterFormatCodes) {
		case 0:
		case 1:
			f = m.ParameterFormatCodes[0]
		default:
			f = m.ParameterFormatCodes[i]
		}
		params[i].Format = f
		if v != nil {
			start := len(data)
			data = append(data, v...)
			params[i].Data = data[start:len(data):len(data)]
		}
	}
	c.portals[m.DestinationPortal] = &portal{
		stmt: st, params: params,
		resultFormats: append([]int16(nil), m.ResultFormatCodes...),
	}
	c.send(&pgproto3.BindComplete{})
	return nil
}

func (c *conn) describe(m *pgproto3.Describe) error {
	switch m.ObjectType {
	case 'S':
		st, err := c.lookupStatement(m.Name)
		if err != nil {
			return err
		}
		c.send(&pgproto3.ParameterDescription{ParameterOIDs: st.paramTypes})
		var cols []Column
		if st.st != nil {
			cols = st.st.Columns()
		}
		if cols == nil {
			st.describedNoData = true
			c.send(&pgproto3.NoData{})
			return nil
		}
		c.send(rowDescription(cols, nil))
		return nil
	case 'P':
		p, err := c.lookupPortal(m.Name)
		if err != nil {
			if cs, ok := c.sess.(CursorSession); ok {
				if cols, ok := cs.CursorColumns(m.Name); ok {
					// A SQL cursor: its rows are sent in text, as
					// PostgreSQL describes a DECLAREd cursor.
					c.send(rowDescription(cols, nil))
					return nil
				}
			}
			return err
		}
		var cols []Column
		if p.cur != nil {
			cols = p.cur.cols
		} else if p.stmt.st != nil {
			cols = p.stmt.st.Columns()
		}
		if cols == nil {
			p.describedNone = true
			c.send(&pgproto3.NoData{})
			return nil
		}
		formats, err := resolveFormats(p.resultFormats, len(cols))
		if err != nil {
			return err
		}
		p.describedRows = true
		c.send(rowDescription(cols, formats))
		return nil
	}
	return sqlerr.New(sqlerr.ProtocolViolation, "invalid DESCRIBE message subtype %d", m.ObjectType)
}

func (c *conn) closeObject(m *pgproto3.Close) error {
	switch m.ObjectType {
	case 'S':
		delete(c.stmts, m.Name)
	case 'P':
		c.closePortal(m.Name)
	default:
		return sqlerr.New(sqlerr.ProtocolViolation, "invalid CLOSE message subtype %d", m.ObjectType)
	}
	c.send(&pgproto3.CloseComplete{})
	return nil
}

// execute runs (or continues) a portal, sending at most MaxRows rows when
// MaxRows > 0 and then PortalSuspended if the portal is not known to be done.
func (c *conn) execute(m *pgproto3.Execute) error {
	p, err := c.lookupPortal(m.Portal)
	if err != nil {
		return err
	}
	if p.stmt.st == nil {
		c.send(&pgproto3.EmptyQueryResponse{})
		return nil
	}
	if p.cur != nil && c.sess.TxStatus() == 'E' {
		// A suspended portal is not continued once an error failed its
		// transaction block (the Result may still hold rows of its
		// current batch), as in PostgreSQL.
		return sqlerr.New(sqlerr.InFailedTransaction, "current transaction is aborted, commands ignored until end of transaction block")
	}
	c.activeStatement(p.stmt.query)
	inBlock := c.sess.TxStatus() != 'I'
	if p.ctx == nil {
		p.ctx, p.cancel = context.WithCancelCause(c.ctx)
	}
	// One statement_timeout and one client watch cover the whole Execute:
	// running the statement and sending its rows.
	defer c.running(p.cancel)()
	if p.cur == nil {
		if err := c.startPortal(p); err != nil {
			c.closePortal(m.Portal)
			return err
		}
	}
	if p.cur.done {
		// Executing a finished portal again: nothing more to send.
		c.send(&pgproto3.CommandComplete{CommandTag: []byte(commandTag(p.tag, p.cur.cols != nil, 0))})
		return nil
	}
	n, err := c.sendRows(p.ctx, p.cur, int64(m.MaxRows))
	if err != nil {
		c.finishCopyIn()
		c.closePortal(m.Portal)
		return statementError(p.ctx, err)
	}
	if !p.cur.done {
		c.send(&pgproto3.PortalSuspended{})
		return nil
	}
	c.finishCopyIn()
	p.tag = p.cur.res.Tag()
	// The rows are all sent: release what the Result holds now rather than
	// when the client gets round to closing the portal.
	p.cur.close()
	c.send(&pgproto3.CommandComplete{CommandTag: []byte(commandTag(p.tag, p.cur.cols != nil, n))})
	if inBlock && c.sess.TxStatus() == 'I' {
		// COMMIT or ROLLBACK ended the block: its portals end with it.
		for name, o := range c.portals {
			if o != p {
				o.close()
				delete(c.portals, name)
			}
		}
	}
	return nil
}

// startPortal calls Statement.Execute for the first Execute of a portal,
// under the portal's context (created by execute).
func (c *conn) startPortal(p *portal) error {
	res, err := p.stmt.st.Execute(p.ctx, p.params, c.io)
	if err != nil {
		c.finishCopyIn()
		return statementError(p.ctx, err)
	}
	cols := res.Columns()
	formats, err := resolveFormats(p.resultFormats, len(cols))
	if err != nil {
		res.Close()
		return err
	}
	p.cur = &cursor{res: res, cols: cols, formats: formats, fs: c.sess.FormatSettings()}
	if cols != nil && !p.describedRows && (p.describedNone || p.stmt.describedNoData) {
		c.send(rowDescription(cols, formats))
	}
	return nil
}
