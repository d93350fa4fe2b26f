package engine

import (
	pg_query "github.com/pganalyze/pg_query_go/v6"

	"github.com/weir-sql/weir/sql/sqlerr"
	"github.com/weir-sql/weir/wire"
)

// discard runs DISCARD. DISCARD ALL is what connection poolers (pgbouncer's
// server_reset_query, pgjdbc pools) send when a connection changes hands;
// as in PostgreSQL it includes SET SESSION AUTHORIZATION DEFAULT and RESET
// ALL (back to the values the session started with), so one client's role and settings never leak to the next. weir has
// no temporary tables, sequences or cached plans to drop (the plan cache
// re-binds on catalog changes), so the other forms only answer.
func (s *Session) discard(d *pg_query.DiscardStmt, io wire.ExecIO) (wire.Result, error) {
	switch d.Target {
	case pg_query.DiscardMode_DISCARD_PLANS:
		return commandResult("DISCARD PLANS"), nil
	case pg_query.DiscardMode_DISCARD_SEQUENCES:
		return commandResult("DISCARD SEQUENCES"), nil
	case pg_query.DiscardMode_DISCARD_TEMP:
		return commandResult("DISCARD TEMP"), nil
	}
	if s.tx.open {
		return nil, sqlerr.New(sqlerr.ActiveTransaction, "DISCARD ALL cannot run inside a transaction block")
	}
	if err := s.setSessionAuthorization("", io); err != nil {
		return nil, err
	}
	for i := range settingList {
		if st := &settingList[i]; !st.readOnly {
			s.assign(st, s.ids.defaults[lowerName(st.name)], io)
		}
	}
	return commandResult("DISCARD ALL"), nil
}
