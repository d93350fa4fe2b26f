package engine

import "github.com/weir-sql/weir/catalog"

// seesMonitoringOf is whether the current user reads rel's rows in the
// monitoring relations (streaming_progress, expectations,
// streaming_batches; the event log has its own, mayReadEventsOf): a
// role that may SELECT the table (or some column of it), or a member of
// pg_monitor or pg_read_all_stats, which read the progress and metrics
// of tables they cannot SELECT, as PostgreSQL's pg_stat_* views show
// them every table's statistics.
func (s *Session) seesMonitoringOf(rel *catalog.Relation) bool {
	if s.superuser {
		return true
	}
	role := s.currentRoleOID()
	if s.eng.cat.HasPrivsOfRole(role, catalog.MonitorRoleOID) || s.eng.cat.HasPrivsOfRole(role, catalog.ReadAllStatsRoleOID) {
		return true
	}
	return s.eng.relationAllowed(role, rel, catalog.PrivSelect, nil)
}
