package wire

import (
	"context"

	"github.com/jackc/pgx/v5/pgproto3"
)

// simpleQuery runs a Query message: every statement of the text in order,
// each with its own RowDescription, rows and CommandComplete, stopping at
// the first error; then ReadyForQuery.
func (c *conn) simpleQuery(sql string) {
	// As in PostgreSQL, a simple query discards the unnamed statement and portal.
	c.closePortal("")
	delete(c.stmts, "")
	c.activeStatement(sql)

	stmts, err := c.sess.Prepare(c.ctx, sql, nil)
	if err != nil {
		c.sendError(err)
		c.readyForQuery()
		return
	}
	if len(stmts) == 0 {
		c.send(&pgproto3.EmptyQueryResponse{})
	}
	for _, st := range stmts {
		if err := c.runSimple(st); err != nil {
			if c.ctx.Err() != nil {
				return // shutdown or lost client: the loop says goodbye
			}
			c.sendError(err)
			break
		}
	}
	c.endOfTransaction()
	c.readyForQuery()
}

func (c *conn) runSimple(st Statement) error {
	ctx, cancel := context.WithCancelCause(c.ctx)
	defer cancel(nil)
	defer c.running(cancel)()

	res, err := st.Execute(ctx, nil, c.io)
	if err != nil {
		c.finishCopyIn()
		return statementError(ctx, err)
	}
	cur := &cursor{res: res, cols: res.Columns(), fs: c.sess.FormatSettings()}
	defer cur.close()
	cur.formats = make([]int16, len(cur.cols))
	if cur.cols != nil {
		c.send(rowDescription(cur.cols, nil))
	}
	n, err := c.sendRows(ctx, cur, 0)
	c.finishCopyIn()
	if err != nil {
		return statementError(ctx, err)
	}
	c.send(&pgproto3.CommandComplete{CommandTag: []byte(commandTag(res.Tag(), cur.cols != nil, n))})
	return nil
}
